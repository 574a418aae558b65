/* gg-sd-notify.c: the systemd readiness protocol, without libsystemd.
 *
 * One datagram to the AF_UNIX socket named by $NOTIFY_SOCKET: a path, or an
 * abstract address written with a leading "@".
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-sd-notify.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/**
 * gg_sd_notify_take_socket:
 *
 * Reads $NOTIFY_SOCKET and removes it from the environment, so that games
 * and tools the gateway launches do not talk to systemd in its name.
 *
 * Returns: (transfer full) (nullable): the address, or %NULL when not run
 *   by a service manager that wants notifications
 */
char *
gg_sd_notify_take_socket (void)
{
  const char *value = g_getenv ("NOTIFY_SOCKET");
  char *address;

  if (value == NULL || *value == '\0')
    return NULL;
  address = g_strdup (value);
  g_unsetenv ("NOTIFY_SOCKET");
  return address;
}

/**
 * gg_sd_notify_send:
 * @address: (nullable): from gg_sd_notify_take_socket()
 * @state: newline-separated assignments, e.g. "READY=1"
 * @error: return location for a #GError
 *
 * Sends @state without blocking. A %NULL @address does nothing.
 *
 * Returns: %TRUE if the datagram was sent (or there is nobody to send it to)
 */
gboolean
gg_sd_notify_send (const char  *address,
                   const char  *state,
                   GError     **error)
{
  struct sockaddr_un sun = { .sun_family = AF_UNIX };
  socklen_t sun_length;
  size_t address_length;
  size_t state_length;
  ssize_t sent;
  int fd;

  g_return_val_if_fail (state != NULL, FALSE);

  if (address == NULL)
    return TRUE;

  address_length = strlen (address);
  if ((address[0] != '/' && address[0] != '@') || address_length < 2 ||
      address_length >= sizeof sun.sun_path)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Unsupported NOTIFY_SOCKET address “%s”"), address);
      return FALSE;
    }
  memcpy (sun.sun_path, address, address_length);
  if (address[0] == '@')
    {
      /* Abstract: a leading NUL, and the length counts exactly the name. */
      sun.sun_path[0] = '\0';
      sun_length = offsetof (struct sockaddr_un, sun_path) + address_length;
    }
  else
    sun_length = offsetof (struct sockaddr_un, sun_path) + address_length + 1;

  fd = socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   "socket: %s", g_strerror (saved_errno));
      return FALSE;
    }

  state_length = strlen (state);
  do
    sent = sendto (fd, state, state_length, MSG_NOSIGNAL,
                   (const struct sockaddr *) &sun, sun_length);
  while (sent < 0 && errno == EINTR);

  if (sent < 0 || (size_t) sent != state_length)
    {
      int saved_errno = sent < 0 ? errno : EMSGSIZE;

      close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("Cannot notify the service manager at %s: %s"),
                   address, g_strerror (saved_errno));
      return FALSE;
    }
  close (fd);
  return TRUE;
}
