/* gg-a2g-redis-url.c: the `[a2g] redis` value, checked when the
 * configuration is read and masked wherever it is shown (a password never
 * is). Three layouts:
 *
 *   unix:/path/to.sock | tcp://[:PASSWORD@]ADDRESS:PORT    one primary
 *   sentinel:NAME@tcp://ADDRESS:PORT,tcp://...             the primary NAME
 *                                                          the sentinels name
 *   cluster:tcp://[:PASSWORD@]ADDRESS:PORT,tcp://...       a Redis Cluster's
 *                                                          seed nodes
 *
 * A password given with any address is the data nodes' (AUTH on every
 * connection to a primary or cluster node; sentinels are asked without).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-redis-private.h"

#define ONE_EXPECTED "expected unix:/ABSOLUTE/PATH or tcp://[:PASSWORD@]ADDRESS:PORT"
/* Seeds or sentinels one value may list. */
#define MAX_ADDRESSES 64

void
_gg_a2g_redis_address_free (GgA2gRedisAddress *address)
{
  g_free (address->unix_path);
  g_free (address->host);
  g_free (address);
}

/** _gg_a2g_redis_address_name: Returns: (transfer full): "HOST:PORT" or the socket's path */
char *
_gg_a2g_redis_address_name (const char *unix_path,
                            const char *host,
                            int         port)
{
  if (unix_path != NULL)
    return g_strdup (unix_path);
  return strchr (host, ':') != NULL ? g_strdup_printf ("[%s]:%d", host, port) : g_strdup_printf ("%s:%d", host, port);
}

/* One address: a socket path, or a host, port and password (nullable). */
static GgA2gRedisAddress *
address_parse (const char  *url,
               gboolean     tcp_only,
               char       **password,
               GError     **error)
{
  g_autoptr(GgA2gRedisAddress) result = g_new0 (GgA2gRedisAddress, 1);

  if (g_str_has_prefix (url, "unix:") && !tcp_only)
    {
      const char *path = url + strlen ("unix:");

      if (path[0] != '/')
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, ONE_EXPECTED);
          return NULL;
        }
      result->unix_path = g_strdup (path);
      return g_steal_pointer (&result);
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
              return NULL;
            }
          if (*password != NULL)
            {
              memset (*password, 0, strlen (*password));
              g_free (*password);
            }
          *password = g_strndup (rest + 1, at - rest - 1);
          rest = at + 1;
        }
      colon = strrchr (rest, ':');
      if (colon == NULL || !g_ascii_string_to_unsigned (colon + 1, 10, 1, 65535, &number, NULL))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "expected tcp://ADDRESS:PORT");
          return NULL;
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
          return NULL;
        }
      result->host = g_steal_pointer (&address);
      result->port = (int) number;
      return g_steal_pointer (&result);
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
               tcp_only ? "expected tcp://[:PASSWORD@]ADDRESS:PORT in the list" : ONE_EXPECTED);
  return NULL;
}

/**
 * _gg_a2g_redis_url_parse:
 * @url: a `redis` value
 * @mode: (out): its layout
 * @master_name: (out): the primary's name for %GG_A2G_REDIS_SENTINEL, else NULL
 * @addresses: (out): the one server, the sentinels or the seed nodes
 *   (#GgA2gRedisAddress)
 * @password: (out): the data nodes' password, or NULL
 *
 * Returns: whether @url is usable; the outs are set only then
 */
gboolean
_gg_a2g_redis_url_parse (const char      *url,
                         GgA2gRedisMode  *mode,
                         char           **master_name,
                         GPtrArray      **addresses,
                         char           **password,
                         GError         **error)
{
  g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func ((GDestroyNotify) _gg_a2g_redis_address_free);
  g_autofree char *name = NULL;
  g_autofree char *secret = NULL;
  g_auto(GStrv) parts = NULL;
  GgA2gRedisMode layout = GG_A2G_REDIS_SINGLE;
  const char *rest = url;

  if (g_str_has_prefix (url, "cluster:"))
    {
      layout = GG_A2G_REDIS_CLUSTER;
      rest = url + strlen ("cluster:");
    }
  else if (g_str_has_prefix (url, "sentinel:"))
    {
      const char *at = strchr (url, '@');

      layout = GG_A2G_REDIS_SENTINEL;
      rest = url + strlen ("sentinel:");
      if (at == NULL || at == rest)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "expected sentinel:NAME@tcp://ADDRESS:PORT[,tcp://ADDRESS:PORT...]");
          return FALSE;
        }
      name = g_strndup (rest, at - rest);
      if (strpbrk (name, " \t\r\n,/:") != NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "the primary's name holds no spaces, ',', ':' or '/'");
          return FALSE;
        }
      rest = at + 1;
    }
  if (layout == GG_A2G_REDIS_SINGLE)
    {
      GgA2gRedisAddress *one = address_parse (url, FALSE, &secret, error);

      if (one == NULL)
        return FALSE;
      g_ptr_array_add (list, one);
    }
  else
    {
      parts = g_strsplit (rest, ",", MAX_ADDRESSES + 1);
      if (g_strv_length (parts) > MAX_ADDRESSES)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "at most %d addresses", MAX_ADDRESSES);
          if (secret != NULL)
            memset (secret, 0, strlen (secret));
          return FALSE;
        }
      for (guint i = 0; parts[i] != NULL; i++)
        {
          GgA2gRedisAddress *one = address_parse (parts[i], TRUE, &secret, error);

          if (one == NULL)
            {
              if (secret != NULL)
                memset (secret, 0, strlen (secret));
              return FALSE;
            }
          g_ptr_array_add (list, one);
        }
      for (guint i = 0; parts[i] != NULL; i++)
        memset (parts[i], 0, strlen (parts[i]));
    }
  *mode = layout;
  *master_name = g_steal_pointer (&name);
  *addresses = g_steal_pointer (&list);
  *password = g_steal_pointer (&secret);
  return TRUE;
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
  g_autofree char *name = NULL, *password = NULL;
  g_autoptr(GPtrArray) addresses = NULL;
  GgA2gRedisMode mode;
  gboolean ok = _gg_a2g_redis_url_parse (url, &mode, &name, &addresses, &password, error);

  if (password != NULL)
    memset (password, 0, strlen (password));
  return ok;
}

/**
 * gg_a2g_redis_url_masked:
 * @url: a `redis` value
 *
 * Returns: (transfer full): @url with every password in it as `********`
 */
char *
gg_a2g_redis_url_masked (const char *url)
{
  g_autoptr(GString) masked = g_string_new (NULL);
  const char *rest = url;
  const char *at;
  g_auto(GStrv) parts = NULL;

  if (g_str_has_prefix (url, "cluster:"))
    rest = url + strlen ("cluster:");
  else if (g_str_has_prefix (url, "sentinel:") && (at = strchr (url, '@')) != NULL)
    rest = at + 1;
  g_string_append_len (masked, url, rest - url);
  parts = g_strsplit (rest, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *part_at = strrchr (parts[i], '@');

      if (i > 0)
        g_string_append_c (masked, ',');
      if (g_str_has_prefix (parts[i], "tcp://") && part_at != NULL)
        g_string_append_printf (masked, "tcp://:********@%s", part_at + 1);
      else
        g_string_append (masked, parts[i]);
      memset (parts[i], 0, strlen (parts[i]));
    }
  return g_string_free (g_steal_pointer (&masked), FALSE);
}
