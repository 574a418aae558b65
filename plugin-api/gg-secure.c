/* gg-secure.c: random tokens from the kernel and constant-time comparison.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include <gio/gio.h>

#include "gg-secure.h"

/**
 * gg_secure_random:
 * @buffer: where to write
 * @length: how many bytes
 * @error: return location for a #GIOErrorEnum error
 *
 * Fills @buffer with cryptographically secure random bytes from
 * getrandom(2), retrying after interruptions and short reads. Blocks only
 * if the kernel's pool is not yet initialised, early at boot.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gg_secure_random (void    *buffer,
                  gsize    length,
                  GError **error)
{
  guint8 *p = buffer;
  gsize done = 0;

  g_return_val_if_fail (buffer != NULL || length == 0, FALSE);

  while (done < length)
    {
      ssize_t r = getrandom (p + done, length - done, 0);

      if (r < 0)
        {
          int saved_errno = errno;

          if (saved_errno == EINTR)
            continue;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                       "getrandom: %s", g_strerror (saved_errno));
          return FALSE;
        }
      done += (gsize) r;
    }
  return TRUE;
}

/**
 * gg_secure_token_hex:
 * @n_bytes: how many random bytes (1 to 4096)
 * @error: return location for an error
 *
 * Makes a random token from the kernel's random source, for secrets such as
 * bearer tokens.
 *
 * Returns: (transfer full): @n_bytes random bytes as 2 * @n_bytes
 *   lowercase hex digits, or %NULL
 *
 * Since: 1.0
 */
char *
gg_secure_token_hex (gsize    n_bytes,
                     GError **error)
{
  static const char hex[] = "0123456789abcdef";
  g_autofree guint8 *raw = NULL;
  char *out;

  g_return_val_if_fail (n_bytes > 0 && n_bytes <= 4096, NULL);

  raw = g_malloc (n_bytes);
  if (!gg_secure_random (raw, n_bytes, error))
    return NULL;

  out = g_malloc (2 * n_bytes + 1);
  for (gsize i = 0; i < n_bytes; i++)
    {
      out[2 * i] = hex[raw[i] >> 4];
      out[2 * i + 1] = hex[raw[i] & 0xF];
    }
  out[2 * n_bytes] = '\0';
  memset (raw, 0, n_bytes);
  return out;
}

/**
 * gg_secure_equal_bytes:
 * @a: (array length=a_length) (element-type guint8): the first buffer
 * @a_length: its length
 * @b: (array length=b_length) (element-type guint8): the second buffer
 * @b_length: its length
 *
 * Compares in time that depends only on the longer length, never on the
 * contents or on where they differ. Buffers of different lengths are
 * unequal but still take the full time.
 *
 * Returns: whether the buffers hold the same bytes
 *
 * Since: 1.0
 */
gboolean
gg_secure_equal_bytes (const void *a,
                       gsize       a_length,
                       const void *b,
                       gsize       b_length)
{
  const volatile guint8 *pa = a;
  const volatile guint8 *pb = b;
  gsize n = MAX (a_length, b_length);
  guint8 diff = 0;

  g_return_val_if_fail (a != NULL || a_length == 0, FALSE);
  g_return_val_if_fail (b != NULL || b_length == 0, FALSE);

  for (gsize i = 0; i < n; i++)
    {
      /* Read in range even past the shorter buffer's end (a length
       * mismatch already makes the result FALSE). */
      guint8 x = a_length > 0 ? pa[i % a_length] : 0;
      guint8 y = b_length > 0 ? pb[i % b_length] : 0;
      diff |= x ^ y;
    }
  diff |= (guint8) ((a_length ^ b_length) != 0);
  return diff == 0;
}

/**
 * gg_secure_equal:
 * @a: (nullable): a NUL-terminated secret
 * @b: (nullable): a NUL-terminated secret
 *
 * Constant-time string comparison, see gg_secure_equal_bytes(). A %NULL
 * string equals nothing, not even another %NULL.
 *
 * Returns: whether @a and @b are equal
 *
 * Since: 1.0
 */
gboolean
gg_secure_equal (const char *a,
                 const char *b)
{
  if (a == NULL || b == NULL)
    return FALSE;
  return gg_secure_equal_bytes (a, strlen (a), b, strlen (b));
}
