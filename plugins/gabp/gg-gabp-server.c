/* gg-gabp-server.c: the GABP mod-side listener.
 *
 * Binds 127.0.0.1 only. The token is the configured one (GABP_TOKEN when a
 * GABP bridge launched gamegate), else a fresh 32-byte one, which is then
 * written with the port to the bridge config file (0600, atomically) so
 * that a bridge on the same machine can find it. At most max_connections
 * bridges at a time; one more is closed at once.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <unistd.h>

#include "gg-gabp-server.h"

struct _GgGabpServer
{
  GObject parent_instance;

  GgBus            *bus;
  GgGabpSchemas    *schemas;
  guint16           port;
  char             *token;
  char             *bridge_file;
  guint             max_connections;
  double            rate;
  guint             burst;
  gsize             max_message_size;
  GSocketService   *service;
  GPtrArray        *sessions;
  gulong            event_handler;
};

G_DEFINE_FINAL_TYPE (GgGabpServer, gg_gabp_server, G_TYPE_OBJECT)

static void
gg_gabp_server_dispose (GObject *object)
{
  GgGabpServer *self = GG_GABP_SERVER (object);

  gg_gabp_server_stop (self);
  g_clear_signal_handler (&self->event_handler, self->bus);
  g_clear_object (&self->bus);
  g_clear_object (&self->schemas);
  G_OBJECT_CLASS (gg_gabp_server_parent_class)->dispose (object);
}

static void
gg_gabp_server_finalize (GObject *object)
{
  GgGabpServer *self = GG_GABP_SERVER (object);

  if (self->token != NULL)
    memset (self->token, 0, strlen (self->token));
  g_free (self->token);
  g_free (self->bridge_file);
  g_ptr_array_unref (self->sessions);
  G_OBJECT_CLASS (gg_gabp_server_parent_class)->finalize (object);
}

static void
gg_gabp_server_class_init (GgGabpServerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = gg_gabp_server_dispose;
  object_class->finalize = gg_gabp_server_finalize;
}

static void
gg_gabp_server_init (GgGabpServer *self)
{
  self->max_connections = GG_GABP_SERVER_DEFAULT_MAX_CONNECTIONS;
  self->rate = GG_GABP_SERVER_DEFAULT_RATE;
  self->burst = GG_GABP_SERVER_DEFAULT_BURST;
  self->max_message_size = GG_GABP_DEFAULT_MAX_MESSAGE_SIZE;
  self->sessions = g_ptr_array_new_with_free_func (g_object_unref);
}

static void
on_bus_event (GgBus        *bus,
              GgTarget     *target,
              const char   *channel,
              guint64       seq,
              JsonNode     *payload,
              GgGabpServer *self)
{
  /* A copy: a session may close (and leave the array) while sending. */
  g_autoptr(GPtrArray) sessions = g_ptr_array_new_full (self->sessions->len, g_object_unref);

  for (guint i = 0; i < self->sessions->len; i++)
    g_ptr_array_add (sessions, g_object_ref (g_ptr_array_index (self->sessions, i)));
  for (guint i = 0; i < sessions->len; i++)
    gg_gabp_session_forward_event (g_ptr_array_index (sessions, i), target, channel, payload);
}

/**
 * gg_gabp_server_new:
 * @bus: the bus whose targets are offered
 * @schemas: the GABP schemas
 *
 * Returns: (transfer full): a server, not listening yet
 */
GgGabpServer *
gg_gabp_server_new (GgBus         *bus,
                    GgGabpSchemas *schemas)
{
  GgGabpServer *self = g_object_new (GG_TYPE_GABP_SERVER, NULL);

  self->bus = g_object_ref (bus);
  self->schemas = g_object_ref (schemas);
  self->event_handler = g_signal_connect (bus, "target-event", G_CALLBACK (on_bus_event), self);
  return self;
}

/** gg_gabp_server_set_port: the port to listen on (0: any free one). */
void
gg_gabp_server_set_port (GgGabpServer *self,
                         guint16       port)
{
  self->port = port;
}

/** gg_gabp_server_set_token: the token bridges must send (NULL: generate one). */
void
gg_gabp_server_set_token (GgGabpServer *self,
                          const char   *token)
{
  if (self->token != NULL)
    memset (self->token, 0, strlen (self->token));
  g_free (self->token);
  self->token = g_strdup (token);
}

/** gg_gabp_server_set_bridge_file: where a generated token is written (NULL: nowhere). */
void
gg_gabp_server_set_bridge_file (GgGabpServer *self,
                                const char   *path)
{
  g_free (self->bridge_file);
  self->bridge_file = g_strdup (path);
}

/** gg_gabp_server_set_limits: connections, messages per second and burst, message size. */
void
gg_gabp_server_set_limits (GgGabpServer *self,
                           guint         max_connections,
                           double        rate_per_second,
                           guint         burst,
                           gsize         max_message_size)
{
  self->max_connections = max_connections;
  self->rate = rate_per_second;
  self->burst = burst;
  self->max_message_size = max_message_size;
}

/**
 * gg_gabp_write_bridge_file:
 * @path: the file
 * @token: the token
 * @port: the TCP port, 0 for the stdio transport
 * @error: return location for a #GError
 *
 * Writes the bridge config file of the GABP spec, mode 0600, atomically.
 *
 * Returns: %TRUE on success
 */
gboolean
gg_gabp_write_bridge_file (const char  *path,
                           const char  *token,
                           guint16      port,
                           GError     **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *address = g_strdup_printf ("%u", port);
  g_autofree char *launch_id = g_uuid_string_random ();
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *start = g_date_time_format_iso8601 (now);
  g_autofree char *text = NULL;
  gboolean ok;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot create %s: %s", dir, g_strerror (saved));
      return FALSE;
    }
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "token");
  json_builder_add_string_value (builder, token);
  json_builder_set_member_name (builder, "transport");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, port != 0 ? "tcp" : "stdio");
  json_builder_set_member_name (builder, "address");
  json_builder_add_string_value (builder, port != 0 ? address : "");
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "metadata");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "pid");
  json_builder_add_int_value (builder, getpid ());
  json_builder_set_member_name (builder, "startTime");
  json_builder_add_string_value (builder, start);
  json_builder_set_member_name (builder, "launchId");
  json_builder_add_string_value (builder, launch_id);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  text = gg_json_to_string (root);
  ok = g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error);
  memset (text, 0, strlen (text));
  return ok;
}

static GgGabpSession *
add_session (GgGabpServer *self,
             GgGabpCodec  *codec);

static void
on_session_closed (GgGabpSession *session,
                   GgGabpServer  *self)
{
  g_signal_handlers_disconnect_by_data (session, self);
  g_ptr_array_remove (self->sessions, session);
}

static GgGabpSession *
add_session (GgGabpServer *self,
             GgGabpCodec  *codec)
{
  GgGabpSession *session;

  gg_gabp_codec_set_max_message_size (codec, self->max_message_size);
  session = gg_gabp_session_new (codec, self->bus, self->token, self->rate, self->burst);
  g_ptr_array_add (self->sessions, session);
  g_signal_connect (session, "closed", G_CALLBACK (on_session_closed), self);
  gg_gabp_session_start (session);
  return session;
}

static gboolean
on_incoming (GSocketService    *service,
             GSocketConnection *connection,
             GObject           *source,
             GgGabpServer      *self)
{
  g_autoptr(GgGabpCodec) codec = NULL;

  if (self->sessions->len >= self->max_connections)
    {
      g_message ("GABP server: refusing a connection, %u bridges are connected already",
                 self->sessions->len);
      g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
      return TRUE;
    }
  g_socket_set_option (g_socket_connection_get_socket (connection), IPPROTO_TCP, TCP_NODELAY, 1, NULL);
  codec = gg_gabp_codec_new (G_IO_STREAM (connection), self->schemas);
  add_session (self, codec);
  return TRUE;
}

/**
 * gg_gabp_server_ensure_token:
 * @self: a server
 * @error: return location for a #GError
 *
 * Generates a token unless one was set.
 *
 * Returns: %TRUE when the server has a token
 */
gboolean
gg_gabp_server_ensure_token (GgGabpServer  *self,
                             GError       **error)
{
  if (self->token != NULL)
    return TRUE;
  self->token = gg_secure_token_hex (32, error);
  return self->token != NULL;
}

/**
 * gg_gabp_server_start:
 * @self: a server
 * @error: return location for a #GError
 *
 * Listens on 127.0.0.1.
 *
 * Returns: %TRUE when listening
 */
gboolean
gg_gabp_server_start (GgGabpServer  *self,
                      GError       **error)
{
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, self->port);
  g_autoptr(GSocketAddress) effective = NULL;
  gboolean generated = self->token == NULL;

  if (self->service != NULL)
    return TRUE;
  if (!gg_gabp_server_ensure_token (self, error))
    return FALSE;
  self->service = g_socket_service_new ();
  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (self->service), address,
                                      G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                                      NULL, &effective, error))
    {
      g_prefix_error (error, "GABP server cannot listen on 127.0.0.1:%u: ", self->port);
      g_clear_object (&self->service);
      return FALSE;
    }
  self->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective));
  if (generated && self->bridge_file != NULL &&
      !gg_gabp_write_bridge_file (self->bridge_file, self->token, self->port, error))
    {
      g_socket_service_stop (self->service);
      g_socket_listener_close (G_SOCKET_LISTENER (self->service));
      g_clear_object (&self->service);
      return FALSE;
    }
  g_signal_connect (self->service, "incoming", G_CALLBACK (on_incoming), self);
  g_socket_service_start (self->service);
  g_message ("GABP server listening on 127.0.0.1:%u", self->port);
  return TRUE;
}

/** gg_gabp_server_stop: stops listening and closes every session. */
void
gg_gabp_server_stop (GgGabpServer *self)
{
  if (self->service != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->service, self);
      g_socket_service_stop (self->service);
      g_socket_listener_close (G_SOCKET_LISTENER (self->service));
      g_clear_object (&self->service);
    }
  while (self->sessions->len > 0)
    {
      g_autoptr(GgGabpSession) session = g_object_ref (g_ptr_array_index (self->sessions, 0));

      g_signal_handlers_disconnect_by_data (session, self);
      gg_gabp_session_close (session);
      g_ptr_array_remove (self->sessions, session);
    }
}

/** gg_gabp_server_is_listening: Returns: %TRUE between start and stop. */
gboolean
gg_gabp_server_is_listening (GgGabpServer *self)
{
  return self->service != NULL;
}

/** gg_gabp_server_get_port: Returns: the port listened on (after start). */
guint16
gg_gabp_server_get_port (GgGabpServer *self)
{
  return self->port;
}

/** gg_gabp_server_get_token: Returns: (nullable): the token (for tests and the bridge file). */
const char *
gg_gabp_server_get_token (GgGabpServer *self)
{
  return self->token;
}

/** gg_gabp_server_get_session_count: Returns: how many bridges are connected. */
guint
gg_gabp_server_get_session_count (GgGabpServer *self)
{
  return self->sessions->len;
}

/**
 * gg_gabp_server_prepare_stdio:
 * @self: a server
 * @error: return location for a #GError
 *
 * Before serving on stdio: makes sure there is a token, writing a generated
 * one to the bridge file (transport "stdio").
 *
 * Returns: %TRUE when ready
 */
gboolean
gg_gabp_server_prepare_stdio (GgGabpServer  *self,
                              GError       **error)
{
  if (self->token != NULL)
    return TRUE;
  if (!gg_gabp_server_ensure_token (self, error))
    return FALSE;
  return self->bridge_file == NULL ||
         gg_gabp_write_bridge_file (self->bridge_file, self->token, 0, error);
}

/**
 * gg_gabp_server_serve_stream:
 * @self: a server with a token
 * @stream: the bridge's connection (stdin/stdout for the stdio transport)
 *
 * Serves one bridge on @stream.
 *
 * Returns: (transfer none): the session; it emits `closed` when done
 */
GgGabpSession *
gg_gabp_server_serve_stream (GgGabpServer *self,
                             GIOStream    *stream)
{
  g_autoptr(GgGabpCodec) codec = gg_gabp_codec_new (stream, self->schemas);

  return add_session (self, codec);
}
