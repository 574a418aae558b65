/* gg-a2g-tls.c: the A2G service's own HTTPS listener (server profile with
 * tls-certificate and tls-key).
 *
 * a2g-security.md requires TLS 1.2 or later. libsoup's own HTTPS listener
 * takes whatever TLS version GnuTLS's default priorities allow (TLS 1.0
 * and 1.1 included on Debian 12), and GIO has no minimum-version setting,
 * so the service accepts its connections itself. Each one:
 *
 *   1. its ClientHello is read and checked (gg-a2g-client-hello.c): one
 *      offering nothing newer than TLS 1.1 gets a protocol_version alert,
 *      a broken one decode_error (or nothing, when it is no TLS at all),
 *      and is closed: the handshake fails, as a scanner expects;
 *   2. the TLS handshake runs over the connection with the ClientHello
 *      put back in front (gg-a2g-replay-stream.c); a connection that
 *      still negotiated less than TLS 1.2 (a ClientHello misread) is
 *      closed unread;
 *   3. it is handed to the SoupServer, which serves it like any other:
 *      keep-alive for as many requests as the client sends.
 *
 * Steps 1 and 2 together have `[a2g] tls-handshake-timeout` seconds.
 *
 * Keep-alive: libsoup keeps a connection open after an answer only while
 * its server has a listener (request_finished() in soup-server.c reads a
 * server without one as shutting down, and closes every connection after
 * its first answer: for TLS a close_notify right after the response, with
 * no `Connection: close` on it). The SoupServer therefore also listens on
 * a Unix socket that nobody can reach (bound in a private directory, the
 * path removed at once); soup_server_disconnect() closes it with the rest,
 * and keep-alive then ends as it does over plain HTTP.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-tls.h"

#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "gg-a2g-client-hello.h"
#include "gg-a2g-replay-stream.h"

struct _GgA2gTlsListener {
  GSocketService *service;
  SoupServer *soup;              /* borrowed */
  GTlsCertificate *certificate;
  GCancellable *cancellable;
  guint handshake_timeout_s;
  guint16 port;
};

/* One connection until it is handed to the SoupServer. */
typedef struct {
  SoupServer *soup;
  GTlsCertificate *certificate;
  GSocketConnection *connection;
  GCancellable *cancellable;     /* the deadline's, and the listener's */
  GCancellable *listener_cancellable;
  gulong listener_cancel_id;
  guint deadline_id;
  guint8 *hello;                 /* GG_A2G_CLIENT_HELLO_MAX_SIZE */
  gsize hello_length;
  gsize hello_need;
  GIOStream *tls;
} Accepted;

static void
accepted_free (Accepted *accepted)
{
  g_clear_handle_id (&accepted->deadline_id, g_source_remove);
  g_cancellable_disconnect (accepted->listener_cancellable, accepted->listener_cancel_id);
  g_object_unref (accepted->listener_cancellable);
  g_object_unref (accepted->cancellable);
  g_object_unref (accepted->soup);
  g_object_unref (accepted->certificate);
  g_object_unref (accepted->connection);
  g_clear_object (&accepted->tls);
  g_free (accepted->hello);
  g_free (accepted);
}

/* No HTTP over it: closed at once. Nothing logged above debug: a scanner
 * would fill the log. */
static void
drop (Accepted   *accepted,
      const char *why)
{
  g_debug ("a2g: TLS connection closed: %s", why);
  g_io_stream_close (G_IO_STREAM (accepted->connection), NULL, NULL);
  accepted_free (accepted);
}

static gboolean
on_deadline (gpointer user_data)
{
  Accepted *accepted = user_data;

  accepted->deadline_id = 0;
  g_cancellable_cancel (accepted->cancellable);
  return G_SOURCE_REMOVE;
}

static void
on_listener_cancelled (GCancellable *listener_cancellable,
                       gpointer      user_data)
{
  g_cancellable_cancel (user_data);
}

static void
on_handshake (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Accepted *accepted = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketAddress) local = NULL;
  g_autoptr(GSocketAddress) remote = NULL;
  GSocket *socket = g_socket_connection_get_socket (accepted->connection);
  GTlsProtocolVersion version;

  if (!g_tls_connection_handshake_finish (G_TLS_CONNECTION (source), result, &error))
    {
      drop (accepted, error->message);
      return;
    }
  version = g_tls_connection_get_protocol_version (G_TLS_CONNECTION (source));
  if (version < G_TLS_PROTOCOL_VERSION_TLS_1_2 || version == G_TLS_PROTOCOL_VERSION_UNKNOWN)
    {
      drop (accepted, "negotiated a TLS version older than 1.2");
      return;
    }
  g_clear_handle_id (&accepted->deadline_id, g_source_remove);
  g_debug ("a2g: TLS connection accepted (TLS 1.%d)", version == G_TLS_PROTOCOL_VERSION_TLS_1_3 ? 3 : 2);
  local = g_socket_get_local_address (socket, NULL);
  remote = g_socket_get_remote_address (socket, NULL);
  if (local == NULL || remote == NULL ||
      !soup_server_accept_iostream (accepted->soup, accepted->tls, local, remote, NULL))
    {
      g_io_stream_close (accepted->tls, NULL, NULL);
      drop (accepted, "the peer is gone");
      return;
    }
  accepted_free (accepted);
}

static void
start_handshake (Accepted *accepted)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) hello = g_bytes_new (accepted->hello, accepted->hello_length);
  g_autoptr(GIOStream) replayed = gg_a2g_replay_stream_new (G_IO_STREAM (accepted->connection), hello);

  accepted->tls = g_tls_server_connection_new (replayed, accepted->certificate, &error);
  if (accepted->tls == NULL)
    {
      g_warning ("a2g: TLS: %s", error->message);
      drop (accepted, error->message);
      return;
    }
  /* As libsoup's own HTTPS listener: HTTP frames its messages itself, a
   * client closing without close_notify loses nothing. */
  g_tls_connection_set_require_close_notify (G_TLS_CONNECTION (accepted->tls), FALSE);
  g_tls_connection_handshake_async (G_TLS_CONNECTION (accepted->tls), G_PRIORITY_DEFAULT, accepted->cancellable,
                                    on_handshake, accepted);
}

/* Answers a refused ClientHello with its alert, then closes. */
static void
refuse (Accepted               *accepted,
        const GgA2gClientHello *hello)
{
  GSocket *socket = g_socket_connection_get_socket (accepted->connection);
  guint8 alert[7];
  gsize length = gg_a2g_client_hello_alert (hello, alert);

  /* Seven bytes into the empty send buffer of a new connection: never
   * blocks; if it fails the peer is gone anyway. */
  if (length > 0 && g_socket_send_with_blocking (socket, (const char *) alert, length, FALSE, NULL, NULL) > 0)
    g_socket_shutdown (socket, FALSE, TRUE, NULL);
  drop (accepted, hello->problem);
}

static void read_hello (Accepted *accepted);

static void
on_hello_read (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  Accepted *accepted = user_data;
  g_autoptr(GError) error = NULL;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);
  GgA2gClientHello hello;

  if (n <= 0)
    {
      drop (accepted, n == 0 ? "the peer closed before its ClientHello" : error->message);
      return;
    }
  accepted->hello_length += (gsize) n;
  if (accepted->hello_length < accepted->hello_need)
    {
      read_hello (accepted);
      return;
    }
  switch (gg_a2g_client_hello_check (accepted->hello, accepted->hello_length, &hello))
    {
    case GG_A2G_CLIENT_HELLO_INCOMPLETE:
      accepted->hello_need = hello.need;
      read_hello (accepted);
      break;
    case GG_A2G_CLIENT_HELLO_ACCEPTABLE:
      start_handshake (accepted);
      break;
    case GG_A2G_CLIENT_HELLO_TOO_OLD:
    case GG_A2G_CLIENT_HELLO_REFUSED:
    default:
      refuse (accepted, &hello);
      break;
    }
}

static void
read_hello (Accepted *accepted)
{
  GInputStream *input = g_io_stream_get_input_stream (G_IO_STREAM (accepted->connection));

  /* The check never asks for more than GG_A2G_CLIENT_HELLO_MAX_SIZE. */
  g_input_stream_read_async (input, accepted->hello + accepted->hello_length,
                             GG_A2G_CLIENT_HELLO_MAX_SIZE - accepted->hello_length, G_PRIORITY_DEFAULT,
                             accepted->cancellable, on_hello_read, accepted);
}

static gboolean
on_incoming (GSocketService    *service,
             GSocketConnection *connection,
             GObject           *source_object,
             gpointer           user_data)
{
  GgA2gTlsListener *listener = user_data;
  Accepted *accepted = g_new0 (Accepted, 1);

  /* As libsoup does for the connections it accepts itself: an answer's
   * headers and body go out as they are written, not held back by Nagle
   * for the client's delayed ACK. */
  g_socket_set_option (g_socket_connection_get_socket (connection), IPPROTO_TCP, TCP_NODELAY, TRUE, NULL);
  accepted->soup = g_object_ref (listener->soup);
  accepted->certificate = g_object_ref (listener->certificate);
  accepted->connection = g_object_ref (connection);
  accepted->cancellable = g_cancellable_new ();
  accepted->listener_cancellable = g_object_ref (listener->cancellable);
  accepted->listener_cancel_id = g_cancellable_connect (listener->cancellable, G_CALLBACK (on_listener_cancelled),
                                                        accepted->cancellable, NULL);
  accepted->deadline_id = g_timeout_add_seconds (listener->handshake_timeout_s, on_deadline, accepted);
  accepted->hello = g_malloc (GG_A2G_CLIENT_HELLO_MAX_SIZE);
  accepted->hello_need = 1;
  read_hello (accepted);
  return TRUE;
}

/* A listening socket nobody can connect to: its path is gone. */
static GSocket *
unreachable_listener_new (GError **error)
{
  g_autofree char *dir = g_dir_make_tmp ("gamegate-a2g-XXXXXX", error);
  g_autofree char *path = NULL;
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  gboolean listening;

  if (dir == NULL)
    return NULL;
  path = g_build_filename (dir, "keep-alive", NULL);
  address = g_unix_socket_address_new (path);
  socket = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, error);
  listening = socket != NULL && g_socket_bind (socket, address, FALSE, error) && g_socket_listen (socket, error);
  g_unlink (path);
  g_rmdir (dir);
  return listening ? g_steal_pointer (&socket) : NULL;
}

/**
 * gg_a2g_tls_listener_new:
 * @soup: the server that serves the connections (borrowed: outlives the
 *   listener); it is given a listener of its own that nobody can reach
 *   (see the top of this file)
 * @certificate: the certificate with its key
 * @address: where to listen (port 0: any)
 * @handshake_timeout_s: seconds a connection has for its ClientHello and
 *   the handshake
 * @error: where to report failure
 *
 * Returns: (transfer full) (nullable): a listener, accepting
 */
GgA2gTlsListener *
gg_a2g_tls_listener_new (SoupServer       *soup,
                         GTlsCertificate  *certificate,
                         GSocketAddress   *address,
                         guint             handshake_timeout_s,
                         GError          **error)
{
  GgA2gTlsListener *listener = g_new0 (GgA2gTlsListener, 1);
  g_autoptr(GSocketAddress) effective = NULL;
  g_autoptr(GSocket) keep_alive = NULL;

  listener->service = g_socket_service_new ();
  listener->soup = soup;
  listener->certificate = g_object_ref (certificate);
  listener->cancellable = g_cancellable_new ();
  listener->handshake_timeout_s = handshake_timeout_s;
  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (listener->service), address, G_SOCKET_TYPE_STREAM,
                                      G_SOCKET_PROTOCOL_TCP, NULL, &effective, error))
    {
      gg_a2g_tls_listener_free (listener);
      return NULL;
    }
  keep_alive = unreachable_listener_new (error);
  if (keep_alive == NULL || !soup_server_listen_socket (soup, keep_alive, 0, error))
    {
      g_prefix_error (error, "Cannot keep TLS connections alive: ");
      gg_a2g_tls_listener_free (listener);
      return NULL;
    }
  listener->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective));
  g_signal_connect (listener->service, "incoming", G_CALLBACK (on_incoming), listener);
  g_socket_service_start (listener->service);
  return listener;
}

/** gg_a2g_tls_listener_get_port: Returns: the port it listens on */
guint16
gg_a2g_tls_listener_get_port (GgA2gTlsListener *listener)
{
  return listener->port;
}

/**
 * gg_a2g_tls_listener_free:
 * @listener: (transfer full) (nullable): a listener
 *
 * Stops accepting; connections not handed to the SoupServer yet are
 * closed.
 */
void
gg_a2g_tls_listener_free (GgA2gTlsListener *listener)
{
  if (listener == NULL)
    return;
  g_cancellable_cancel (listener->cancellable);
  g_socket_service_stop (listener->service);
  g_socket_listener_close (G_SOCKET_LISTENER (listener->service));
  g_signal_handlers_disconnect_by_data (listener->service, listener);
  g_object_unref (listener->service);
  g_object_unref (listener->certificate);
  g_object_unref (listener->cancellable);
  g_free (listener);
}
