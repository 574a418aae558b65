/* gg-loopback-port.c: choosing a TCP port on 127.0.0.1 for a game a plugin
 * launches (gamebridge's launch declaration, GABP's GABP_SERVER_PORT).
 *
 * Both checks bind a socket and close it again at once: the port is only a
 * good candidate, since nothing stops another process from taking it before
 * the game binds it; a launcher that cares (gamebridge) checks again.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-loopback-port.h"

static gboolean
bind_loopback (guint16   port,
               gboolean  reuse,
               guint16  *out_port,
               GError  **error)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                            G_SOCKET_PROTOCOL_TCP, error);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, port);
  g_autoptr(GSocketAddress) bound = NULL;

  if (socket == NULL || !g_socket_bind (socket, address, reuse, error))
    return FALSE;
  if (out_port == NULL)
    return TRUE;
  bound = g_socket_get_local_address (socket, error);
  if (bound == NULL)
    return FALSE;
  *out_port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  return TRUE;
}

/**
 * gg_loopback_port_is_bindable:
 * @port: a TCP port
 *
 * Whether nothing is bound to @port on 127.0.0.1. The check binds with
 * SO_REUSEADDR, as a game's own listener does: a listening socket still
 * blocks it, but the TIME_WAIT a game that just closed on this port left
 * behind does not, so a freshly stopped game's port counts as free at once.
 *
 * Returns: %TRUE when @port could be bound
 *
 * Since: 1.0
 */
gboolean
gg_loopback_port_is_bindable (guint16 port)
{
  return port != 0 && bind_loopback (port, TRUE, NULL, NULL);
}

/**
 * gg_loopback_port_pick_free:
 * @error: return location for a #GError
 *
 * Asks the kernel for a free TCP port on 127.0.0.1.
 *
 * Returns: the port, or 0 with @error set
 *
 * Since: 1.0
 */
guint16
gg_loopback_port_pick_free (GError **error)
{
  guint16 port = 0;

  if (!bind_loopback (0, FALSE, &port, error))
    return 0;
  return port;
}
