/* gg-tap-server.c: `gamegate serve`'s bus tap: a 0600 Unix socket (in the
 * 0700 gamegate runtime directory) where every record the bus reports goes
 * out as one JSON line to every connected reader.
 *
 * A slow reader never slows the gateway: each reader has a bounded queue
 * (GG_TAP_QUEUE_MAX_RECORDS, GG_TAP_QUEUE_MAX_BYTES); past it records are
 * dropped for that reader only, and once there is room again it first gets
 * `{"kind":"dropped","count":N}`. A reader may send one JSON line of
 * filters (`plugin`, `target`, `session`, `errors`) so that what it does not
 * want is never queued; each is answered `{"kind":"watching"}` once
 * applied, so that the reader knows from when on nothing passes it by. The observer is attached only while a reader is
 * connected: with none, the bus reports nothing. At shutdown the daemon
 * drains the tap (gg_tap_server_drain_async()): no new readers or
 * records, and what each reader was queued is written before it exits,
 * for at most a bounded time.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <gio/gunixsocketaddress.h>
#include <string.h>
#include <sys/stat.h>

#include "gg-tap-server.h"

struct _GgTapServer {
  GgBus *bus;
  char *path;
  GSocketService *service;
  GPtrArray *readers;        /* Reader */
  guint observer_id;
  GTask *drain;              /* nullable: draining for the shutdown */
  guint drain_timeout_id;
};

typedef struct {
  GgTapServer *server;
  GSocketConnection *connection;
  GDataInputStream *input;
  GCancellable *cancellable;
  GQueue queue;              /* GBytes, one line each */
  gsize queued_bytes;
  guint64 dropped;
  gboolean writing;
  gboolean closed;
  GgTapFilter filter;
} Reader;

void
gg_tap_filter_clear (GgTapFilter *filter)
{
  g_clear_pointer (&filter->plugin, g_free);
  g_clear_pointer (&filter->target, g_free);
  g_clear_pointer (&filter->session, g_free);
  filter->errors = FALSE;
}

void
gg_tap_filter_from_json (GgTapFilter *filter,
                         JsonObject  *object)
{
  gg_tap_filter_clear (filter);
  filter->plugin = g_strdup (json_object_get_string_member_with_default (object, "plugin", NULL));
  filter->target = g_strdup (json_object_get_string_member_with_default (object, "target", NULL));
  filter->session = g_strdup (json_object_get_string_member_with_default (object, "session", NULL));
  filter->errors = json_object_get_boolean_member_with_default (object, "errors", FALSE);
}

static gboolean
member_matches (JsonObject *record,
                const char *member,
                const char *wanted)
{
  return wanted == NULL ||
         g_strcmp0 (json_object_get_string_member_with_default (record, member, NULL), wanted) == 0;
}

gboolean
gg_tap_filter_matches (const GgTapFilter *filter,
                       JsonObject        *record)
{
  if (g_strcmp0 (json_object_get_string_member_with_default (record, "kind", NULL), "dropped") == 0)
    return TRUE;
  if (filter->errors && json_object_get_boolean_member_with_default (record, "ok", TRUE))
    return FALSE;
  return member_matches (record, "plugin", filter->plugin) &&
         member_matches (record, "target", filter->target) &&
         member_matches (record, "session", filter->session);
}

char *
gg_tap_default_socket_path (void)
{
  return g_build_filename (g_get_user_runtime_dir (), "gamegate", "tap.sock", NULL);
}

static void reader_pump (Reader *reader);
static void observe (GgBus *bus, JsonObject *record, gpointer user_data);
static void check_drained (GgTapServer *self);

static void
reader_free (gpointer data)
{
  Reader *reader = data;

  g_cancellable_cancel (reader->cancellable);
  g_queue_clear_full (&reader->queue, (GDestroyNotify) g_bytes_unref);
  g_io_stream_close (G_IO_STREAM (reader->connection), NULL, NULL);
  g_object_unref (reader->input);
  g_object_unref (reader->connection);
  g_object_unref (reader->cancellable);
  gg_tap_filter_clear (&reader->filter);
  g_free (reader);
}

/* Drops @reader; the last reader gone detaches the observer. */
static void
reader_close (Reader *reader)
{
  GgTapServer *server = reader->server;

  if (reader->closed)
    return;
  reader->closed = TRUE;
  g_cancellable_cancel (reader->cancellable);
  if (reader->writing)
    return; /* freed when the write completes */
  g_ptr_array_remove (server->readers, reader);
  if (server->readers->len == 0 && server->observer_id != 0)
    {
      gg_bus_remove_observer (server->bus, server->observer_id);
      server->observer_id = 0;
    }
  check_drained (server);
}

static gboolean
has_room (Reader *reader,
          gsize   length)
{
  return reader->queue.length < GG_TAP_QUEUE_MAX_RECORDS &&
         reader->queued_bytes + length <= GG_TAP_QUEUE_MAX_BYTES;
}

static void
push (Reader *reader,
      GBytes *line)
{
  g_queue_push_tail (&reader->queue, g_bytes_ref (line));
  reader->queued_bytes += g_bytes_get_size (line);
}

/* After drops, the reader learns how many once there is room again. */
static void
push_dropped (Reader *reader)
{
  g_autofree char *text = NULL;
  g_autoptr(GBytes) line = NULL;

  if (reader->dropped == 0)
    return;
  text = g_strdup_printf ("{\"kind\":\"dropped\",\"count\":%" G_GUINT64_FORMAT "}\n", reader->dropped);
  line = g_bytes_new_take (text, strlen (text));
  text = NULL;
  if (!has_room (reader, g_bytes_get_size (line)))
    return;
  push (reader, line);
  reader->dropped = 0;
}

static void
on_written (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Reader *reader = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) line = g_queue_pop_head (&reader->queue);

  reader->writing = FALSE;
  if (reader->server == NULL)
    {
      /* The server went away while this was being written. */
      g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, NULL);
      reader_free (reader);
      return;
    }
  reader->queued_bytes -= g_bytes_get_size (line);
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    {
      if (!reader->closed)
        g_debug ("tap: reader gone: %s", error->message);
      reader->closed = FALSE;
      reader_close (reader);
      return;
    }
  if (reader->closed)
    {
      reader->closed = FALSE;
      reader_close (reader);
      return;
    }
  if (reader->queue.length == 0)
    push_dropped (reader);
  reader_pump (reader);
  check_drained (reader->server);
}

static void
reader_pump (Reader *reader)
{
  GOutputStream *output;
  GBytes *line;

  if (reader->writing || reader->closed || reader->queue.length == 0)
    return;
  line = g_queue_peek_head (&reader->queue);
  output = g_io_stream_get_output_stream (G_IO_STREAM (reader->connection));
  reader->writing = TRUE;
  g_output_stream_write_all_async (output, g_bytes_get_data (line, NULL), g_bytes_get_size (line),
                                   G_PRIORITY_DEFAULT, reader->cancellable, on_written, reader);
}

static void
observe (GgBus      *bus,
         JsonObject *record,
         gpointer    user_data)
{
  GgTapServer *self = user_data;
  g_autoptr(GBytes) line = NULL;

  for (guint i = 0; i < self->readers->len; i++)
    {
      Reader *reader = g_ptr_array_index (self->readers, i);

      if (reader->closed || !gg_tap_filter_matches (&reader->filter, record))
        continue;
      if (line == NULL)
        {
          g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
          g_autofree char *json = NULL;
          char *text;

          json_node_set_object (node, record);
          json = json_to_string (node, FALSE);
          text = g_strconcat (json, "\n", NULL);
          line = g_bytes_new_take (text, strlen (text));
        }
      push_dropped (reader);
      if (reader->dropped > 0 || !has_room (reader, g_bytes_get_size (line)))
        {
          reader->dropped++;
          continue;
        }
      push (reader, line);
      reader_pump (reader);
    }
}

static void
on_line (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  gsize length = 0;
  g_autofree char *text = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source),
                                                                     result, &length, &error);
  Reader *reader;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  reader = user_data;
  if (text == NULL)
    {
      /* End of stream or a broken one: the reader went away. */
      reader_close (reader);
      return;
    }
  {
    g_autoptr(JsonNode) node = gg_json_parse (text, (gssize) length, GG_JSON_DEFAULT_MAX_DEPTH, NULL);

    if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
      {
        static const char watching[] = "{\"kind\":\"watching\"}\n";
        g_autoptr(GBytes) ack = g_bytes_new_static (watching, sizeof watching - 1);

        gg_tap_filter_from_json (&reader->filter, json_node_get_object (node));
        /* Behind whatever was queued already: every record after it passed
         * the new filter. Never dropped: a reader waits for it. */
        push (reader, ack);
        reader_pump (reader);
      }
  }
  g_data_input_stream_read_line_async (reader->input, G_PRIORITY_DEFAULT, reader->cancellable,
                                       on_line, reader);
}

static gboolean
on_incoming (GSocketService    *service,
             GSocketConnection *connection,
             GObject           *source_object,
             gpointer           user_data)
{
  GgTapServer *self = user_data;
  Reader *reader = g_new0 (Reader, 1);

  reader->server = self;
  reader->connection = g_object_ref (connection);
  reader->cancellable = g_cancellable_new ();
  reader->input = g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (connection)));
  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (reader->input), FALSE);
  g_queue_init (&reader->queue);
  g_ptr_array_add (self->readers, reader);
  if (self->observer_id == 0)
    self->observer_id = gg_bus_add_observer (self->bus, observe, self, NULL);
  g_data_input_stream_read_line_async (reader->input, G_PRIORITY_DEFAULT, reader->cancellable,
                                       on_line, reader);
  g_debug ("tap: reader connected (%u connected)", self->readers->len);
  return TRUE;
}

GgTapServer *
gg_tap_server_new (GgBus       *bus,
                   const char  *path,
                   GError     **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GSocketAddress) address = NULL;
  GgTapServer *self;
  GStatBuf st;
  mode_t old_umask;
  gboolean ok;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved_errno = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("Cannot create %s: %s"), dir, g_strerror (saved_errno));
      return NULL;
    }
  /* A stale socket from an earlier run. */
  if (g_lstat (path, &st) == 0 && S_ISSOCK (st.st_mode))
    g_unlink (path);

  self = g_new0 (GgTapServer, 1);
  self->bus = g_object_ref (bus);
  self->path = g_strdup (path);
  self->readers = g_ptr_array_new_with_free_func (reader_free);
  self->service = g_socket_service_new ();
  address = g_unix_socket_address_new (path);
  /* Created 0600 from the start rather than chmod-ed later. */
  old_umask = umask (0177);
  ok = g_socket_listener_add_address (G_SOCKET_LISTENER (self->service), address,
                                      G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT,
                                      NULL, NULL, error);
  umask (old_umask);
  if (!ok)
    {
      g_prefix_error (error, _("Cannot listen on %s: "), path);
      gg_tap_server_free (self);
      return NULL;
    }
  g_chmod (path, 0600);
  g_signal_connect (self->service, "incoming", G_CALLBACK (on_incoming), self);
  g_socket_service_start (self->service);
  g_message (_("tap: listening on %s"), path);
  return self;
}

/* No new readers and no new records. */
static void
stop_listening (GgTapServer *self)
{
  if (self->service != NULL)
    {
      g_socket_service_stop (self->service);
      g_socket_listener_close (G_SOCKET_LISTENER (self->service));
      g_signal_handlers_disconnect_by_data (self->service, self);
      g_clear_object (&self->service);
      g_unlink (self->path);
    }
  if (self->observer_id != 0)
    {
      gg_bus_remove_observer (self->bus, self->observer_id);
      self->observer_id = 0;
    }
}

static void
drain_done (GgTapServer *self)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->drain);

  g_clear_handle_id (&self->drain_timeout_id, g_source_remove);
  g_task_return_boolean (task, TRUE);
}

/* While draining: done once every open reader has been written all it was
 * queued. */
static void
check_drained (GgTapServer *self)
{
  if (self == NULL || self->drain == NULL)
    return;
  for (guint i = 0; i < self->readers->len; i++)
    {
      Reader *reader = g_ptr_array_index (self->readers, i);

      if (!reader->closed && (reader->writing || reader->queue.length > 0))
        return;
    }
  drain_done (self);
}

static gboolean
on_drain_timeout (gpointer user_data)
{
  GgTapServer *self = user_data;

  self->drain_timeout_id = 0;
  g_debug ("tap: a reader did not take what it was queued within the shutdown's time");
  drain_done (self);
  return G_SOURCE_REMOVE;
}

/**
 * gg_tap_server_drain_async:
 * @self: the tap server
 * @timeout_ms: how long a slow reader may hold the shutdown up
 * @callback: called once every reader got what it was queued, or after
 *   @timeout_ms
 * @user_data: data for @callback
 *
 * Stops taking readers and records, then writes each reader what it was
 * queued (and how many it missed), so that `gamegate tap` shows the last
 * records of a daemon that stops.
 */
void
gg_tap_server_drain_async (GgTapServer         *self,
                           guint                timeout_ms,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_return_if_fail (self->drain == NULL);

  self->drain = g_task_new (NULL, NULL, callback, user_data);
  g_task_set_source_tag (self->drain, gg_tap_server_drain_async);
  stop_listening (self);
  self->drain_timeout_id = g_timeout_add (timeout_ms, on_drain_timeout, self);
  for (guint i = 0; i < self->readers->len; i++)
    {
      Reader *reader = g_ptr_array_index (self->readers, i);

      if (reader->queue.length == 0)
        push_dropped (reader);
      reader_pump (reader);
    }
  check_drained (self);
}

/** gg_tap_server_drain_finish: Returns: %TRUE */
gboolean
gg_tap_server_drain_finish (GAsyncResult  *result,
                            GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
gg_tap_server_free (GgTapServer *self)
{
  if (self == NULL)
    return;
  stop_listening (self);
  if (self->drain != NULL)
    drain_done (self);
  /* A reader being written to is freed when its (cancelled) write ends. */
  for (guint i = self->readers->len; i > 0; i--)
    {
      Reader *reader = g_ptr_array_index (self->readers, i - 1);

      if (!reader->writing)
        continue;
      reader->server = NULL;
      reader->closed = TRUE;
      g_cancellable_cancel (reader->cancellable);
      g_ptr_array_steal_index (self->readers, i - 1);
    }
  g_ptr_array_unref (self->readers);
  g_object_unref (self->bus);
  g_free (self->path);
  g_free (self);
}
