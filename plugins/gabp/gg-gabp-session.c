/* gg-gabp-session.c: the mod side of one GABP connection.
 *
 * Nothing but session/hello is served before a hello with the right token
 * (-31001); a wrong token is refused with -31000, and after three refusals
 * the connection is closed. Every incoming message costs one token of a
 * bucket refilled at `rate_per_second` up to `burst`; a request arriving at
 * an empty bucket is answered -31005 without being run.
 *
 * Tools are those of every bus target, named as gg-gabp-names.h says; the
 * name map is the one of the last tools/list, rebuilt once when a call
 * names a tool it does not know. Events are forwarded on the channels the
 * bridge subscribed to, numbered per channel for this session.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-gabp-catalog.h"
#include "gg-gabp-names.h"
#include "gg-gabp-session.h"
#include "gg-gabp-unanswered.h"

#define MAX_AUTH_FAILURES 3

struct _GgGabpSession
{
  GObject parent_instance;

  GgGabpCodec   *codec;
  GgBus         *bus;
  char          *token;
  double         rate;
  double         burst;
  double         bucket;
  gint64         bucket_time;
  gboolean       authenticated;
  guint          auth_failures;
  gboolean       closed;
  gboolean       draining;       /* input ended; close once in_flight is 0 */
  guint          in_flight;      /* requests still being worked on */
  GCancellable  *cancellable;
  GgGabpCatalog *catalog;
  GHashTable    *subscriptions;  /* channel -> next seq (guint64 *) */
  GgGabpUnanswered unanswered;   /* messages that got no answer */
};

enum { SIGNAL_CLOSED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (GgGabpSession, gg_gabp_session, G_TYPE_OBJECT)

static void
gg_gabp_session_dispose (GObject *object)
{
  GgGabpSession *self = GG_GABP_SESSION (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->codec != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->codec, self);
      gg_gabp_codec_close (self->codec);
      g_clear_object (&self->codec);
    }
  g_clear_object (&self->bus);
  g_clear_object (&self->catalog);
  G_OBJECT_CLASS (gg_gabp_session_parent_class)->dispose (object);
}

static void
gg_gabp_session_finalize (GObject *object)
{
  GgGabpSession *self = GG_GABP_SESSION (object);

  if (self->token != NULL)
    memset (self->token, 0, strlen (self->token));
  g_free (self->token);
  g_hash_table_unref (self->subscriptions);
  G_OBJECT_CLASS (gg_gabp_session_parent_class)->finalize (object);
}

static void
gg_gabp_session_class_init (GgGabpSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = gg_gabp_session_dispose;
  object_class->finalize = gg_gabp_session_finalize;
  signals[SIGNAL_CLOSED] =
    g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
gg_gabp_session_init (GgGabpSession *self)
{
  self->cancellable = g_cancellable_new ();
  self->subscriptions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/* Replies ------------------------------------------------------------------ */

static void
reply_error (GgGabpSession *self,
             const char    *id,
             int            code,
             const char    *message)
{
  g_autoptr(GError) error = NULL;

  if (self->closed)
    return;
  if (!gg_gabp_codec_send_error (self->codec, id, code, message, NULL, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED))
    gg_gabp_unanswered_note (&self->unanswered, "a request whose error reply could not be sent",
                             error->message);
}

static void
reply_result (GgGabpSession *self,
              const char    *id,
              JsonNode      *result)
{
  g_autoptr(GError) error = NULL;

  if (self->closed)
    return;
  if (!gg_gabp_codec_send_result (self->codec, id, result, &error))
    g_message ("GABP result for %s not sent: %s", id, error->message);
}

static void
reply_object (GgGabpSession *self,
              const char    *id,
              JsonObject    *result)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), result);
  reply_result (self, id, node);
}

/* Rate limit ----------------------------------------------------------- */

static gboolean
take_token (GgGabpSession *self)
{
  gint64 now = g_get_monotonic_time ();

  if (self->rate <= 0)
    return TRUE;
  self->bucket = MIN (self->burst, self->bucket + (now - self->bucket_time) * self->rate / G_USEC_PER_SEC);
  self->bucket_time = now;
  if (self->bucket < 1.0)
    return FALSE;
  self->bucket -= 1.0;
  return TRUE;
}

/* Methods ------------------------------------------------------------------ */

static void
handle_hello (GgGabpSession *self,
              const char    *id,
              JsonObject    *params)
{
  const char *token = json_object_get_string_member_with_default (params, "token", "");
  g_autoptr(JsonObject) result = json_object_new ();
  g_autoptr(JsonObject) app = json_object_new ();
  g_autoptr(JsonObject) caps = json_object_new ();
  g_autoptr(JsonObject) limits = json_object_new ();
  g_autoptr(JsonObject) server = json_object_new ();
  JsonArray *methods;
  const char *method_names[] = { "session/hello", "tools/list", "tools/call",
                                 "events/subscribe", "events/unsubscribe" };

  if (!gg_secure_equal (token, self->token))
    {
      /* A failed hello ends whatever session there was. */
      self->authenticated = FALSE;
      self->auth_failures++;
      reply_error (self, id, GG_GABP_ERROR_AUTH_FAILED, "authentication failed");
      if (self->auth_failures >= MAX_AUTH_FAILURES)
        gg_gabp_session_close (self);
      return;
    }
  self->authenticated = TRUE;

  methods = json_array_new ();
  json_object_set_string_member (result, "agentId", "gamegate");
  json_object_set_string_member (app, "name", "gamegate");
  json_object_set_string_member (app, "version", PACKAGE_VERSION);
  json_object_set_object_member (result, "app", g_steal_pointer (&app));
  for (gsize i = 0; i < G_N_ELEMENTS (method_names); i++)
    json_array_add_string_element (methods, method_names[i]);
  json_object_set_array_member (caps, "methods", methods);
  json_object_set_array_member (caps, "events", json_array_new ());
  json_object_set_int_member (limits, "maxMessageSize",
                              (gint64) gg_framed_stream_get_max_message_size (gg_gabp_codec_get_stream (self->codec)));
  json_object_set_object_member (caps, "limits", g_steal_pointer (&limits));
  json_object_set_object_member (result, "capabilities", g_steal_pointer (&caps));
  json_object_set_string_member (result, "schemaVersion", "1.0");
  json_object_set_string_member (server, "name", "gamegate");
  json_object_set_string_member (server, "version", PACKAGE_VERSION);
  json_object_set_object_member (result, "serverInfo", g_steal_pointer (&server));
  reply_object (self, id, result);
}

/* tools/list */

typedef struct {
  GgGabpSession *self;   /* strong */
  char          *id;
  char          *name;   /* tools/call: the GABP tool name */
  JsonObject    *params;
} Pending;

static void
pending_free (Pending *p)
{
  if (--p->self->in_flight == 0 && p->self->draining)
    gg_gabp_session_close (p->self);
  g_object_unref (p->self);
  g_free (p->id);
  g_free (p->name);
  if (p->params != NULL)
    json_object_unref (p->params);
  g_free (p);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Pending, pending_free)

static Pending *
pending_new (GgGabpSession *self,
             const char    *id,
             JsonObject    *params)
{
  Pending *p = g_new0 (Pending, 1);

  self->in_flight++;
  p->self = g_object_ref (self);
  p->id = g_strdup (id);
  p->params = params != NULL ? json_object_ref (params) : NULL;
  return p;
}

static gboolean
tool_matches_filter (JsonObject *tool,
                     JsonObject *filter)
{
  JsonArray *tags = json_object_has_member (filter, "tags") ? json_object_get_array_member (filter, "tags") : NULL;
  const char *pattern = json_object_get_string_member_with_default (filter, "namePattern", NULL);

  if (pattern != NULL && !g_pattern_match_simple (pattern, json_object_get_string_member (tool, "name")))
    return FALSE;
  if (tags != NULL && json_array_get_length (tags) > 0)
    {
      JsonArray *have = json_object_has_member (tool, "tags") ? json_object_get_array_member (tool, "tags") : NULL;

      for (guint i = 0; have != NULL && i < json_array_get_length (have); i++)
        for (guint j = 0; j < json_array_get_length (tags); j++)
          if (g_strcmp0 (json_array_get_string_element (have, i), json_array_get_string_element (tags, j)) == 0)
            return TRUE;
      return FALSE;
    }
  return TRUE;
}

static void
on_catalog_for_list (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(Pending) p = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GgGabpCatalog) catalog = gg_gabp_catalog_build_finish (result, &error);
  g_autoptr(JsonObject) out = NULL;
  JsonArray *tools, *all;
  JsonObject *filter;

  if (catalog == NULL)
    {
      reply_error (p->self, p->id, GG_GABP_ERROR_INTERNAL, error->message);
      return;
    }
  g_set_object (&p->self->catalog, catalog);
  filter = json_object_has_member (p->params, "filter") ? json_object_get_object_member (p->params, "filter") : NULL;
  all = gg_gabp_catalog_get_tools (catalog);
  tools = json_array_new ();
  for (guint i = 0; i < json_array_get_length (all); i++)
    {
      JsonObject *tool = json_array_get_object_element (all, i);
      if (filter == NULL || tool_matches_filter (tool, filter))
        json_array_add_object_element (tools, json_object_ref (tool));
    }
  out = json_object_new ();
  json_object_set_array_member (out, "tools", tools);
  reply_object (p->self, p->id, out);
}

/* tools/call */

static int
wire_code_for (const GError *error)
{
  if (error->domain == GG_TARGET_ERROR)
    switch (error->code)
      {
      case GG_TARGET_ERROR_TOOL_NOT_FOUND: return GG_GABP_ERROR_TOOL_NOT_FOUND;
      case GG_TARGET_ERROR_INVALID_ARGUMENTS: return GG_GABP_ERROR_INVALID_PARAMS;
      default: return GG_GABP_ERROR_TOOL_FAILED;
      }
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return GG_GABP_ERROR_TOOL_FAILED;
  return GG_GABP_ERROR_INTERNAL;
}

static void
on_tool_called (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(Pending) p = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = gg_target_call_tool_finish (GG_TARGET (source), result, &error);

  if (node == NULL)
    reply_error (p->self, p->id, wire_code_for (error), error->message);
  else
    reply_result (p->self, p->id, node);
}

static void call_with_catalog (Pending *p, gboolean may_refresh);

static void
on_catalog_for_call (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Pending *p = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GgGabpCatalog) catalog = gg_gabp_catalog_build_finish (result, &error);

  if (catalog == NULL)
    {
      reply_error (p->self, p->id, GG_GABP_ERROR_INTERNAL, error->message);
      pending_free (p);
      return;
    }
  g_set_object (&p->self->catalog, catalog);
  call_with_catalog (p, FALSE);
}

/* Takes @p. */
static void
call_with_catalog (Pending  *p,
                   gboolean  may_refresh)
{
  GgGabpSession *self = p->self;
  const char *target_id, *tool;
  GgTarget *target;
  JsonNode *args;

  if (self->catalog == NULL || !gg_gabp_catalog_lookup (self->catalog, p->name, &target_id, &tool))
    {
      if (may_refresh)
        {
          gg_gabp_catalog_build_async (self->bus, self->cancellable, on_catalog_for_call, p);
          return;
        }
      reply_error (self, p->id, GG_GABP_ERROR_TOOL_NOT_FOUND, "no such tool");
      pending_free (p);
      return;
    }
  target = gg_bus_lookup_target (self->bus, target_id);
  if (target == NULL)
    {
      reply_error (self, p->id, GG_GABP_ERROR_TOOL_NOT_FOUND, "the game offering this tool is gone");
      pending_free (p);
      return;
    }
  args = json_object_get_member (p->params, "arguments");
  if (args != NULL && !JSON_NODE_HOLDS_OBJECT (args))
    {
      reply_error (self, p->id, GG_GABP_ERROR_INVALID_PARAMS, "arguments must be an object");
      pending_free (p);
      return;
    }
  if (G_UNLIKELY (gg_bus_is_observed (self->bus)))
    {
      /* The bus tap: the request, and its id on the call made now (the
       * session's cancellable is read when the call starts). */
      g_autofree char *id = gg_bus_new_correlation (self->bus, "gabp");
      g_autoptr(JsonNode) payload = json_node_new (JSON_NODE_OBJECT);
      GgBusRecord record = { .kind = "request", .plugin = "gabp", .name = "tools/call",
                             .correlation = id, .duration_us = -1, .payload = payload };

      json_node_set_object (payload, p->params);
      gg_bus_report (self->bus, &record);
      gg_bus_set_correlation (self->cancellable, "gabp", NULL, id);
    }
  gg_target_call_tool_async (target, tool, args != NULL ? json_node_get_object (args) : NULL,
                             self->cancellable, on_tool_called, p);
}

static void
handle_tools_call (GgGabpSession *self,
                   const char    *id,
                   JsonObject    *params)
{
  Pending *p = pending_new (self, id, params);

  p->name = g_strdup (json_object_get_string_member_with_default (params, "name", ""));
  call_with_catalog (p, TRUE);
}

static void
handle_subscription (GgGabpSession *self,
                     const char    *id,
                     JsonObject    *params,
                     gboolean       subscribe)
{
  JsonArray *channels = json_object_get_array_member (params, "channels");
  JsonArray *done;
  g_autoptr(JsonObject) out = json_object_new ();

  if (subscribe && channels != NULL)
    {
      guint added = 0;

      for (guint i = 0; i < json_array_get_length (channels); i++)
        {
          const char *channel = json_array_get_string_element (channels, i);

          if (channel == NULL)
            continue;
          if (strlen (channel) > GG_GABP_SESSION_MAX_CHANNEL_LENGTH)
            {
              g_autofree char *message =
                g_strdup_printf ("events/subscribe: a channel name is longer than %d bytes",
                                 GG_GABP_SESSION_MAX_CHANNEL_LENGTH);
              reply_error (self, id, GG_GABP_ERROR_INVALID_PARAMS, message);
              return;
            }
          /* Duplicates in one request are refused by the schema. */
          if (!g_hash_table_contains (self->subscriptions, channel))
            added++;
        }
      if (g_hash_table_size (self->subscriptions) + added > GG_GABP_SESSION_MAX_SUBSCRIPTIONS)
        {
          g_autofree char *message =
            g_strdup_printf ("events/subscribe: too many subscriptions (at most %d channels per session)",
                             GG_GABP_SESSION_MAX_SUBSCRIPTIONS);
          reply_error (self, id, GG_GABP_ERROR_INVALID_PARAMS, message);
          return;
        }
    }

  done = json_array_new ();
  for (guint i = 0; channels != NULL && i < json_array_get_length (channels); i++)
    {
      const char *channel = json_array_get_string_element (channels, i);

      if (channel == NULL)
        continue;
      if (subscribe)
        {
          if (!g_hash_table_contains (self->subscriptions, channel))
            g_hash_table_insert (self->subscriptions, g_strdup (channel), g_new0 (guint64, 1));
        }
      else
        g_hash_table_remove (self->subscriptions, channel);
      json_array_add_string_element (done, channel);
    }
  json_object_set_array_member (out, subscribe ? "subscribed" : "unsubscribed", done);
  reply_object (self, id, out);
}

static void
on_request (GgGabpCodec   *codec,
            const char    *id,
            const char    *method,
            JsonObject    *params,
            GgGabpSession *self)
{
  if (!take_token (self))
    {
      reply_error (self, id, GG_GABP_ERROR_RATE_LIMITED, "rate limited; slow down");
      return;
    }
  if (g_str_equal (method, "session/hello"))
    {
      handle_hello (self, id, params);
      return;
    }
  if (!self->authenticated)
    {
      reply_error (self, id, GG_GABP_ERROR_NO_SESSION, "session not established: send session/hello first");
      return;
    }
  if (g_str_equal (method, "tools/list"))
    gg_gabp_catalog_build_async (self->bus, self->cancellable, on_catalog_for_list,
                                 pending_new (self, id, params));
  else if (g_str_equal (method, "tools/call"))
    handle_tools_call (self, id, params);
  else if (g_str_equal (method, "events/subscribe"))
    handle_subscription (self, id, params, TRUE);
  else if (g_str_equal (method, "events/unsubscribe"))
    handle_subscription (self, id, params, FALSE);
  else
    reply_error (self, id, GG_GABP_ERROR_METHOD_NOT_FOUND, "method not found");
}

static void
on_invalid (GgGabpCodec   *codec,
            const char    *id,
            const char    *type,
            GError        *error,
            GgGabpSession *self)
{
  /* Whatever has an id and is not a response or an event (which are never
   * answered, so two peers cannot loop) is answered, echoing the id even
   * when it is not a UUID. The rest is noted where a mod author sees it. */
  gboolean answerable = id != NULL && g_strcmp0 (type, "response") != 0 &&
                        g_strcmp0 (type, "event") != 0;

  if (!take_token (self))
    {
      if (answerable)
        reply_error (self, id, GG_GABP_ERROR_RATE_LIMITED, "rate limited; slow down");
      else
        gg_gabp_unanswered_note (&self->unanswered, "an invalid message while rate limited",
                                 error->message);
      return;
    }
  if (answerable)
    reply_error (self, id, gg_gabp_error_get_wire_code (error), error->message);
  else if (g_strcmp0 (type, "response") == 0)
    gg_gabp_unanswered_note (&self->unanswered, "an invalid response", error->message);
  else if (g_strcmp0 (type, "event") == 0)
    gg_gabp_unanswered_note (&self->unanswered, "an invalid event", error->message);
  else if (g_error_matches (error, GG_GABP_ERROR, GG_GABP_ERROR_PARSE))
    gg_gabp_unanswered_note (&self->unanswered, "a message that is not JSON", error->message);
  else
    gg_gabp_unanswered_note (&self->unanswered, "a message whose id cannot be read", error->message);
}

/* Responses and events from a bridge mean nothing to a mod. */
static void
on_response (GgGabpCodec   *codec,
             const char    *id,
             JsonNode      *result,
             JsonObject    *error,
             GgGabpSession *self)
{
  take_token (self);
}

static void
on_event (GgGabpCodec   *codec,
          const char    *channel,
          guint64        seq,
          JsonNode      *payload,
          GgGabpSession *self)
{
  take_token (self);
}

static void
on_closed (GgGabpCodec   *codec,
           GError        *error,
           GgGabpSession *self)
{
  /* At the end of input, what was asked is still answered. */
  if (error == NULL && self->in_flight > 0)
    {
      self->draining = TRUE;
      return;
    }
  gg_gabp_session_close (self);
}

/**
 * gg_gabp_session_new:
 * @codec: (transfer none): the connection
 * @bus: the bus whose targets are offered
 * @token: the token bridges must present
 * @rate_per_second: messages per second allowed on average (0: no limit)
 * @burst: how many may come at once
 *
 * Returns: (transfer full): a session; gg_gabp_session_start() reads
 */
GgGabpSession *
gg_gabp_session_new (GgGabpCodec *codec,
                     GgBus       *bus,
                     const char  *token,
                     double       rate_per_second,
                     guint        burst)
{
  GgGabpSession *self = g_object_new (GG_TYPE_GABP_SESSION, NULL);

  self->codec = g_object_ref (codec);
  self->bus = g_object_ref (bus);
  self->token = g_strdup (token);
  self->rate = rate_per_second;
  self->burst = MAX (burst, 1);
  self->bucket = self->burst;
  self->bucket_time = g_get_monotonic_time ();
  g_signal_connect (codec, "request", G_CALLBACK (on_request), self);
  g_signal_connect (codec, "invalid", G_CALLBACK (on_invalid), self);
  g_signal_connect (codec, "response", G_CALLBACK (on_response), self);
  g_signal_connect (codec, "event", G_CALLBACK (on_event), self);
  g_signal_connect (codec, "closed", G_CALLBACK (on_closed), self);
  return self;
}

/** gg_gabp_session_start: starts reading. */
void
gg_gabp_session_start (GgGabpSession *self)
{
  gg_gabp_codec_start (self->codec);
}

/** gg_gabp_session_is_authenticated: Returns: %TRUE after a good hello. */
gboolean
gg_gabp_session_is_authenticated (GgGabpSession *self)
{
  return self->authenticated;
}

static void
on_flushed (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GgGabpSession) self = user_data;

  gg_framed_stream_flush_finish (GG_FRAMED_STREAM (source), result, NULL);
  gg_gabp_codec_close (self->codec);
  g_signal_emit (self, signals[SIGNAL_CLOSED], 0);
}

/**
 * gg_gabp_session_close:
 * @self: a session
 *
 * Cancels the session's work, sends what is queued, closes the connection
 * and then emits `closed` (once).
 */
void
gg_gabp_session_close (GgGabpSession *self)
{
  if (self->closed)
    return;
  self->closed = TRUE;
  g_cancellable_cancel (self->cancellable);
  gg_framed_stream_flush_async (gg_gabp_codec_get_stream (self->codec), NULL, on_flushed,
                                g_object_ref (self));
}

/**
 * gg_gabp_session_forward_event:
 * @self: a session
 * @target: where the event comes from
 * @channel: its channel on @target
 * @payload: its payload
 *
 * Sends the event as `<target>/<channel>` if the bridge subscribed to it.
 */
void
gg_gabp_session_forward_event (GgGabpSession *self,
                               GgTarget      *target,
                               const char    *channel,
                               JsonNode      *payload)
{
  g_autofree char *prefix = NULL;
  g_autofree char *name = NULL;
  g_autoptr(GError) error = NULL;
  guint64 *seq;

  if (self->closed || !self->authenticated || g_hash_table_size (self->subscriptions) == 0)
    return;
  prefix = gg_gabp_name_for_target (gg_target_get_id (target));
  name = g_strconcat (prefix, "/", channel, NULL);
  seq = g_hash_table_lookup (self->subscriptions, name);
  if (seq == NULL)
    return;
  if (!gg_gabp_codec_send_event (self->codec, name, *seq, payload, &error))
    {
      g_message ("GABP event %s not forwarded: %s", name, error->message);
      return;
    }
  (*seq)++;
}
