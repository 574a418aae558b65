/* gg-a2g-redis-url.c: the `[a2g] redis` value: `unix:/path/to.sock` or
 * `tcp://[:password@]host[:port]`, checked when the configuration is read
 * and masked wherever it is shown (the password never is).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-redis-private.h"

/* @url into a socket path, or a host, port and password (nullable). */
gboolean
_gg_a2g_redis_url_parse (const char  *url,
                         char       **unix_path,
                         char       **host,
                         int         *port,
                         char       **password,
                         GError     **error)
{
  if (g_str_has_prefix (url, "unix:"))
    {
      const char *path = url + strlen ("unix:");

      if (path[0] != '/')
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "expected unix:/ABSOLUTE/PATH or tcp://[:PASSWORD@]ADDRESS:PORT");
          return FALSE;
        }
      *unix_path = g_strdup (path);
      return TRUE;
    }
  if (g_str_has_prefix (url, "tcp://"))
    {
      const char *rest = url + strlen ("tcp://");
      const char *at = strrchr (rest, '@');
      const char *colon;
      g_autofree char *address = NULL;
      guint64 number;

      if (at != NULL)
        {
          if (rest[0] != ':' || at == rest + 1)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "the password goes as tcp://:PASSWORD@ADDRESS:PORT");
              return FALSE;
            }
          *password = g_strndup (rest + 1, at - rest - 1);
          rest = at + 1;
        }
      colon = strrchr (rest, ':');
      if (colon == NULL || !g_ascii_string_to_unsigned (colon + 1, 10, 1, 65535, &number, NULL))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "expected tcp://ADDRESS:PORT");
          return FALSE;
        }
      address = g_strndup (rest, colon - rest);
      if (address[0] == '[' && address[strlen (address) - 1] == ']')
        {
          char *inner = g_strndup (address + 1, strlen (address) - 2);
          g_free (address);
          address = inner;
        }
      if (strcmp (address, "localhost") == 0)
        {
          g_free (address);
          address = g_strdup ("127.0.0.1");
        }
      /* A name would be resolved by hiredis, blocking the loop: addresses only. */
      if (!g_hostname_is_ip_address (address))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "the address must be an IP address (names would block while resolved)");
          return FALSE;
        }
      *host = g_steal_pointer (&address);
      *port = (int) number;
      return TRUE;
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
               "expected unix:/ABSOLUTE/PATH or tcp://[:PASSWORD@]ADDRESS:PORT");
  return FALSE;
}

/**
 * gg_a2g_redis_url_check:
 * @url: a `redis` value
 * @error: %G_IO_ERROR_INVALID_ARGUMENT, never naming the password
 *
 * Returns: whether @url is usable
 */
gboolean
gg_a2g_redis_url_check (const char  *url,
                        GError     **error)
{
  g_autofree char *path = NULL, *host = NULL, *password = NULL;
  int port = 0;
  gboolean ok = _gg_a2g_redis_url_parse (url, &path, &host, &port, &password, error);

  if (password != NULL)
    memset (password, 0, strlen (password));
  return ok;
}

/**
 * gg_a2g_redis_url_masked:
 * @url: a `redis` value
 *
 * Returns: (transfer full): @url with its password (if any) as `********`
 */
char *
gg_a2g_redis_url_masked (const char *url)
{
  const char *at = strrchr (url, '@');

  if (g_str_has_prefix (url, "tcp://") && at != NULL)
    return g_strconcat ("tcp://:********@", at + 1, NULL);
  return g_strdup (url);
}
