/* gg-a2g-tls.c: the A2G service's own HTTPS listener (server profile with
 * tls-certificate and tls-key).
 *
 * libsoup's own HTTPS listener takes whatever TLS version GnuTLS's default
 * priorities allow (TLS 1.0 and 1.1 included on Debian 12), and says
 * nothing of the version to handlers. a2g-security.md requires TLS 1.2 or
 * later, so the service accepts its connections itself: each one is
 * handshaken here (within HANDSHAKE_TIMEOUT_S), closed unless it
 * negotiated TLS 1.2 or later, and only then handed to the SoupServer,
 * which never reads a byte of an older connection.
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

#define HANDSHAKE_TIMEOUT_S 10

struct _GgA2gTlsListener {
  GSocketService *service;
  SoupServer *soup;              /* borrowed */
  GTlsCertificate *certificate;
  GCancellable *cancellable;
  guint16 port;
};

typedef struct {
  SoupServer *soup;
  GSocketConnection *connection;
  GIOStream *tls;
} Handshake;

static void
handshake_free (Handshake *handshake)
{
  g_object_unref (handshake->soup);
  g_object_unref (handshake->connection);
  g_clear_object (&handshake->tls);
  g_free (handshake);
}

static void
on_handshake (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Handshake *handshake = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketAddress) local = NULL;
  g_autoptr(GSocketAddress) remote = NULL;
  GSocket *socket = g_socket_connection_get_socket (handshake->connection);

  if (!g_tls_connection_handshake_finish (G_TLS_CONNECTION (source), result, &error) ||
      g_tls_connection_get_protocol_version (G_TLS_CONNECTION (source)) < G_TLS_PROTOCOL_VERSION_TLS_1_2 ||
      g_tls_connection_get_protocol_version (G_TLS_CONNECTION (source)) == G_TLS_PROTOCOL_VERSION_UNKNOWN)
    {
      /* No HTTP over it: closed at once (older TLS, failed handshake, a
       * plain HTTP client). Nothing logged: a scanner would fill the log. */
      g_io_stream_close (G_IO_STREAM (handshake->connection), NULL, NULL);
      handshake_free (handshake);
      return;
    }
  g_socket_set_timeout (socket, 0);
  g_debug ("a2g: TLS connection accepted (TLS 1.%d)",
           g_tls_connection_get_protocol_version (G_TLS_CONNECTION (source)) == G_TLS_PROTOCOL_VERSION_TLS_1_3 ? 3 : 2);
  local = g_socket_get_local_address (socket, NULL);
  remote = g_socket_get_remote_address (socket, NULL);
  if (local == NULL || remote == NULL ||
      !soup_server_accept_iostream (handshake->soup, handshake->tls, local, remote, NULL))
    g_io_stream_close (G_IO_STREAM (handshake->connection), NULL, NULL);
  handshake_free (handshake);
}

static gboolean
on_incoming (GSocketService    *service,
             GSocketConnection *connection,
             GObject           *source_object,
             gpointer           user_data)
{
  GgA2gTlsListener *listener = user_data;
  g_autoptr(GError) error = NULL;
  Handshake *handshake;
  GIOStream *tls;

  tls = g_tls_server_connection_new (G_IO_STREAM (connection), listener->certificate, &error);
  if (tls == NULL)
    {
      g_warning ("a2g: TLS: %s", error->message);
      g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
      return TRUE;
    }
  /* As libsoup does for the connections it accepts itself: an answer's
   * headers and body go out as they are written, not held back by Nagle
   * for the client's delayed ACK. */
  g_socket_set_option (g_socket_connection_get_socket (connection), IPPROTO_TCP, TCP_NODELAY, TRUE, NULL);
  /* As libsoup's own HTTPS listener: HTTP frames its messages itself, a
   * client closing without close_notify loses nothing. */
  g_tls_connection_set_require_close_notify (G_TLS_CONNECTION (tls), FALSE);
  g_socket_set_timeout (g_socket_connection_get_socket (connection), HANDSHAKE_TIMEOUT_S);
  handshake = g_new0 (Handshake, 1);
  handshake->soup = g_object_ref (listener->soup);
  handshake->connection = g_object_ref (connection);
  handshake->tls = tls;
  g_tls_connection_handshake_async (G_TLS_CONNECTION (tls), G_PRIORITY_DEFAULT, listener->cancellable,
                                    on_handshake, handshake);
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
 * @error: where to report failure
 *
 * Returns: (transfer full) (nullable): a listener, accepting
 */
GgA2gTlsListener *
gg_a2g_tls_listener_new (SoupServer       *soup,
                         GTlsCertificate  *certificate,
                         GSocketAddress   *address,
                         GError          **error)
{
  GgA2gTlsListener *listener = g_new0 (GgA2gTlsListener, 1);
  g_autoptr(GSocketAddress) effective = NULL;
  g_autoptr(GSocket) keep_alive = NULL;

  listener->service = g_socket_service_new ();
  listener->soup = soup;
  listener->certificate = g_object_ref (certificate);
  listener->cancellable = g_cancellable_new ();
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
 * Stops accepting; handshakes in progress are cancelled.
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
