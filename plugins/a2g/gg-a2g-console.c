/* gg-a2g-console.c: the web console: its three static files (a GResource
 * built from data/a2g/console/) and GET /v1/console/events, a server-sent
 * event stream: one `snapshot` right away and then every second, and one
 * `decision` per decided entity, at most 100 a second per stream (the
 * rest are counted in the next snapshot's `dropped_decisions`).
 *
 * A slow reader never slows the service: what a stream has not written
 * yet is bounded, and a stream past the bound is closed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-canonical.h"
#include "gg-a2g-console.h"
#include "gg-a2g-exchange.h"
#include "gg-a2g-resources.h"

#define RESOURCE_PREFIX "/org/gamegate/a2g/console"
#define MAX_DECISIONS_PER_SECOND 100
#define MAX_BACKLOG (256 * 1024)

typedef struct {
  GgA2gConsole *console;
  SoupServerMessage *msg;
  gsize backlog;            /* appended, not yet written */
  guint64 dropped;
  gint64 second;
  guint sent_this_second;
  gboolean closed;
  gboolean finished;        /* libsoup is done with it */
} Stream;

struct _GgA2gConsole {
  GgA2gService *service;
  GPtrArray *streams;       /* Stream */
  guint timer_id;
  guint reap_id;            /* removes finished streams, outside libsoup's signals */
  GPtrArray *builds;        /* Build in progress */
  GPtrArray *waiting;       /* Stream: new ones that want their first snapshot */
};

static void
stream_free (Stream *stream)
{
  g_signal_handlers_disconnect_by_data (stream->msg, stream);
  g_object_unref (stream->msg);
  g_free (stream);
}

static void
stream_push (Stream     *stream,
             const char *event,
             const char *data)
{
  g_autofree char *frame = NULL;
  gsize length;

  if (stream->closed || stream->finished)
    return;
  frame = g_strdup_printf ("event: %s\ndata: %s\n\n", event, data);
  length = strlen (frame);
  if (stream->backlog + length > MAX_BACKLOG)
    {
      /* Too slow a reader: closed rather than buffered without end. */
      stream->closed = TRUE;
      soup_message_body_complete (soup_server_message_get_response_body (stream->msg));
      soup_server_message_unpause (stream->msg);
      return;
    }
  stream->backlog += length;
  soup_message_body_append (soup_server_message_get_response_body (stream->msg), SOUP_MEMORY_TAKE,
                            g_steal_pointer (&frame), length);
  soup_server_message_unpause (stream->msg);
}

static void
on_wrote_body_data (SoupServerMessage *msg,
                    guint              size,
                    Stream            *stream)
{
  stream->backlog -= MIN (stream->backlog, size);
}

static gboolean
reap (gpointer user_data)
{
  GgA2gConsole *console = user_data;

  console->reap_id = 0;
  for (guint i = console->streams->len; i > 0; i--)
    {
      Stream *stream = g_ptr_array_index (console->streams, i - 1);

      if (stream->finished)
        {
          g_ptr_array_remove (console->waiting, stream);
          g_ptr_array_remove_index (console->streams, i - 1);
        }
    }
  if (console->streams->len == 0)
    g_clear_handle_id (&console->timer_id, g_source_remove);
  return G_SOURCE_REMOVE;
}

static void
on_stream_finished (SoupServerMessage *msg,
                    Stream            *stream)
{
  GgA2gConsole *console = stream->console;

  /* Possibly from inside a push to this very stream: freed later. */
  stream->finished = TRUE;
  stream->closed = TRUE;
  if (console->reap_id == 0)
    console->reap_id = g_idle_add (reap, console);
}

/* ---- snapshots ------------------------------------------------------------- */

typedef struct {
  GgA2gConsole *console;  /* NULL once the console is gone */
  gint64 sessions;
  gboolean everyone;      /* the timer's snapshot, not a new stream's */
} Build;

static void
send_snapshot (GgA2gConsole *console,
               gint64        sessions,
               JsonArray    *budgets,
               gboolean      everyone)
{
  GgA2gStats *stats = console->service->stats;
  g_autoptr(JsonObject) counts = json_object_new ();
  g_autoptr(GPtrArray) targets = NULL;
  GgA2gCounts view;
  gint64 lookups;

  /* The service's (every replica's), as the flush before this read them. */
  gg_a2g_stats_view (stats, &view);
  lookups = view.cache_hits + view.cache_misses;
  gg_a2g_counts_add_json (&view, counts);
  /* Not g_ptr_array_copy(): the copy would own the streams too. */
  targets = g_ptr_array_new ();
  for (guint i = 0; i < (everyone ? console->streams : console->waiting)->len; i++)
    g_ptr_array_add (targets, g_ptr_array_index (everyone ? console->streams : console->waiting, i));
  g_ptr_array_set_size (console->waiting, 0);
  for (guint i = 0; i < targets->len; i++)
    {
      Stream *stream = g_ptr_array_index (targets, i);
      g_autoptr(JsonObject) snapshot = gg_a2g_reply_new ();
      JsonObject *cache = json_object_new ();
      g_autofree char *text = NULL;

      json_object_set_string_member (snapshot, "profile", gg_a2g_profile_name (console->service->settings.profile));
      json_object_set_int_member (snapshot, "sessions", MAX (sessions, 0));
      json_object_set_member (snapshot, "decisions", json_node_copy (json_object_get_member (counts, "decisions")));
      json_object_set_object_member (snapshot, "decisions_per_second", gg_a2g_stats_rates (stats));
      json_object_set_int_member (cache, "hits", view.cache_hits);
      json_object_set_int_member (cache, "misses", view.cache_misses);
      json_object_set_double_member (cache, "hit_rate", lookups > 0 ? (double) view.cache_hits / (double) lookups : 0.0);
      json_object_set_object_member (snapshot, "cache", cache);
      json_object_set_member (snapshot, "fallbacks", json_node_copy (json_object_get_member (counts, "fallbacks")));
      json_object_set_member (snapshot, "tokens", json_node_copy (json_object_get_member (counts, "tokens")));
      json_object_set_array_member (snapshot, "budgets", json_array_ref (budgets));
      json_object_set_int_member (snapshot, "dropped_decisions", (gint64) stream->dropped);
      text = gg_json_object_to_string (snapshot);
      stream_push (stream, "snapshot", text);
    }
}

static void
on_budgets (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Build *build = user_data;
  GgA2gConsole *console = build->console;
  g_autoptr(JsonArray) budgets = gg_a2g_store_budget_list_finish (GG_A2G_STORE (source), result, NULL);

  if (console != NULL)
    {
      g_ptr_array_remove (console->builds, build);
      if (budgets == NULL)
        budgets = json_array_new ();
      send_snapshot (console, build->sessions, budgets, build->everyone);
    }
  g_free (build);
}

static void
on_counted (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Build *build = user_data;

  build->sessions = gg_a2g_store_session_count_finish (GG_A2G_STORE (source), result, NULL);
  gg_a2g_store_budget_list_async (GG_A2G_STORE (source), "game:", NULL, on_budgets, build);
}

static void
on_flushed (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Build *build = user_data;
  GgA2gCounts totals;

  /* Unreachable: the snapshot shows the last totals and what was counted here since. */
  gg_a2g_stats_flush_finish (result, &totals, NULL);
  if (build->console == NULL)
    {
      g_free (build);
      return;
    }
  gg_a2g_store_session_count_async (build->console->service->store, NULL, on_counted, build);
}

static void
build_snapshot (GgA2gConsole *console,
                gboolean      everyone)
{
  Build *build = g_new0 (Build, 1);

  build->console = console;
  build->everyone = everyone;
  g_ptr_array_add (console->builds, build);
  /* The other replicas' counts come with this replica's flush. */
  gg_a2g_stats_flush_async (console->service->stats, on_flushed, build);
}

static gboolean
on_tick (gpointer user_data)
{
  build_snapshot (user_data, TRUE);
  return G_SOURCE_CONTINUE;
}

/* ---- API ------------------------------------------------------------------- */

/**
 * gg_a2g_console_new:
 * @service: the service (not referenced; it owns the console)
 *
 * Returns: (transfer full): the console
 */
GgA2gConsole *
gg_a2g_console_new (GgA2gService *service)
{
  GgA2gConsole *console = g_new0 (GgA2gConsole, 1);

  console->service = service;
  console->streams = g_ptr_array_new_with_free_func ((GDestroyNotify) stream_free);
  console->waiting = g_ptr_array_new ();
  console->builds = g_ptr_array_new ();
  return console;
}

/**
 * gg_a2g_console_open_stream:
 * @console: the console
 * @msg: a GET /v1/console/events
 */
void
gg_a2g_console_open_stream (GgA2gConsole      *console,
                            SoupServerMessage *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  Stream *stream = g_new0 (Stream, 1);

  stream->console = console;
  stream->msg = g_object_ref (msg);
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_headers_replace (headers, "Content-Type", "text/event-stream");
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  soup_message_headers_replace (headers, "X-Content-Type-Options", "nosniff");
  soup_message_body_set_accumulate (soup_server_message_get_response_body (msg), FALSE);
  g_signal_connect (msg, "wrote-body-data", G_CALLBACK (on_wrote_body_data), stream);
  g_signal_connect (msg, "finished", G_CALLBACK (on_stream_finished), stream);
  g_ptr_array_add (console->streams, stream);
  g_ptr_array_add (console->waiting, stream);
  if (console->timer_id == 0)
    console->timer_id = g_timeout_add_seconds (1, on_tick, console);
  /* The first snapshot right away; until then libsoup waits. */
  soup_server_message_pause (msg);
  build_snapshot (console, FALSE);
}

/*
 * console_decision:
 * @console: the console
 * @event: a `decision` event's data
 */
static void
console_decision (GgA2gConsole *console,
                         JsonObject   *event)
{
  g_autofree char *text = NULL;
  gint64 second = g_get_monotonic_time () / G_USEC_PER_SEC;

  for (guint i = 0; i < console->streams->len; i++)
    {
      Stream *stream = g_ptr_array_index (console->streams, i);

      if (stream->second != second)
        {
          stream->second = second;
          stream->sent_this_second = 0;
        }
      if (stream->sent_this_second >= MAX_DECISIONS_PER_SECOND)
        {
          stream->dropped++;
          continue;
        }
      if (text == NULL)
        text = gg_json_object_to_string (event);
      stream->sent_this_second++;
      stream_push (stream, "decision", text);
    }
}

static char *
console_time (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *seconds = g_date_time_format (now, "%Y-%m-%dT%H:%M:%S");

  return g_strdup_printf ("%s.%03dZ", seconds, g_date_time_get_microsecond (now) / 1000);
}

/**
 * gg_a2g_console_report:
 * @console: the console
 * @session: the session the entity belongs to
 * @decision: the settled entity, as its entry of the decide answer says
 * @started_us: when the entity's decision started (monotonic)
 *
 * Sends one `decision` event: never a token or the raw client_id (the
 * session is the start of the SHA-256 of the client_id).
 */
void
gg_a2g_console_report (GgA2gConsole               *console,
                       GgA2gSession               *session,
                       const GgA2gConsoleDecision *decision,
                       gint64                      started_us)
{
  g_autoptr(JsonObject) event = json_object_new ();
  g_autofree char *time = NULL;
  g_autofree char *hash = NULL;
  g_autofree char *short_hash = NULL;
  double latency = (double) (g_get_monotonic_time () - started_us) / 1000.0;

  if (console == NULL || console->streams->len == 0)
    return;
  time = console_time ();
  hash = gg_a2g_sha256_hex (session->client_id, -1);
  short_hash = g_strndup (hash, 8);
  json_object_set_string_member (event, "time", time);
  json_object_set_string_member (event, "session", short_hash);
  json_object_set_string_member (event, "game", session->game);
  json_object_set_string_member (event, "entity", decision->entity);
  if (decision->type != NULL)
    json_object_set_string_member (event, "type", decision->type);
  json_object_set_string_member (event, "action", decision->action);
  if (decision->source == NULL)
    {
      json_object_set_string_member (event, "code", decision->code);
      if (decision->message != NULL)
        json_object_set_string_member (event, "message", decision->message);
    }
  else
    {
      json_object_set_string_member (event, "source", decision->source);
      json_object_set_int_member (event, "confidence", decision->confidence);
      if (decision->reason != NULL && *decision->reason != '\0')
        json_object_set_string_member (event, "reason", decision->reason);
    }
  json_object_set_double_member (event, "latency_ms", (double) (gint64) (latency * 10 + 0.5) / 10);
  console_decision (console, event);
}

/**
 * gg_a2g_console_serve_file:
 * @console: the console
 * @msg: a GET of `/`, `/console.css` or `/console.js`
 * @path: the path
 *
 * Returns: whether @path was a console file
 */
gboolean
gg_a2g_console_serve_file (GgA2gConsole      *console,
                           SoupServerMessage *msg,
                           const char        *path)
{
  static const struct {
    const char *path, *file, *type;
  } files[] = {
    { "/", "index.html", "text/html; charset=utf-8" },
    { "/console.css", "console.css", "text/css; charset=utf-8" },
    { "/console.js", "console.js", "text/javascript; charset=utf-8" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    if (strcmp (path, files[i].path) == 0)
      {
        g_autofree char *name = g_strconcat (RESOURCE_PREFIX "/", files[i].file, NULL);
        g_autoptr(GBytes) bytes = g_resource_lookup_data (gg_a2g_console_get_resource (), name,
                                                            G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
        SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
        gsize length;
        gconstpointer data;

        if (bytes == NULL)
          return FALSE;
        data = g_bytes_get_data (bytes, &length);
        soup_message_headers_replace (headers, "Cache-Control", "no-cache");
        soup_message_headers_replace (headers, "Content-Security-Policy", "default-src 'self'");
        soup_message_headers_replace (headers, "X-Content-Type-Options", "nosniff");
        soup_message_headers_replace (headers, "Referrer-Policy", "no-referrer");
        soup_message_headers_replace (headers, "X-Frame-Options", "DENY");
        soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
        soup_server_message_set_response (msg, files[i].type, SOUP_MEMORY_COPY, data, length);
        return TRUE;
      }
  return FALSE;
}

/**
 * gg_a2g_console_close:
 * @console: the console
 *
 * Ends every stream (shutdown).
 */
void
gg_a2g_console_close (GgA2gConsole *console)
{
  g_clear_handle_id (&console->timer_id, g_source_remove);
  for (guint i = 0; i < console->streams->len; i++)
    {
      Stream *stream = g_ptr_array_index (console->streams, i);

      if (stream->closed || stream->finished)
        continue;
      stream->closed = TRUE;
      soup_message_body_complete (soup_server_message_get_response_body (stream->msg));
      soup_server_message_unpause (stream->msg);
    }
}

/** gg_a2g_console_free: @console: (transfer full): the console */
void
gg_a2g_console_free (GgA2gConsole *console)
{
  gg_a2g_console_close (console);
  g_clear_handle_id (&console->reap_id, g_source_remove);
  for (guint i = 0; i < console->builds->len; i++)
    ((Build *) g_ptr_array_index (console->builds, i))->console = NULL;
  g_ptr_array_unref (console->builds);
  g_ptr_array_unref (console->waiting);
  g_ptr_array_unref (console->streams);
  g_free (console);
}
