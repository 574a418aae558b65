/* refgame-query.c: a query string parser that refuses rather than guesses.
 *
 * libsoup's own form decoder keeps the last of duplicate keys and passes
 * invalid UTF-8 through; a debug surface driven by agents should instead say
 * exactly what is wrong with a request, so /command parses the raw query.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "refgame-query.h"

#include <string.h>

G_DEFINE_QUARK (rg-query-error-quark, rg_query_error)

/* Form decoding: '+' is a space, then %XX escapes.  NULL on a bad escape,
 * an embedded NUL, invalid UTF-8 or a result over @max bytes. */
static char *
decode_component (const char  *start,
                  gsize        len,
                  gsize        max,
                  const char  *what,
                  GError     **error)
{
  g_autofree char *plus = g_strndup (start, len);
  g_autofree char *decoded = NULL;

  g_strdelimit (plus, "+", ' ');
  decoded = g_uri_unescape_string (plus, NULL);
  if (decoded == NULL)
    {
      g_set_error (error, RG_QUERY_ERROR, RG_QUERY_ERROR_BAD_ENCODING,
                   "invalid percent-encoding in a query %s", what);
      return NULL;
    }
  if (strlen (decoded) > max)
    {
      g_set_error (error, RG_QUERY_ERROR, RG_QUERY_ERROR_TOO_LONG,
                   "a query %s is longer than %" G_GSIZE_FORMAT " bytes", what, max);
      return NULL;
    }
  if (!g_utf8_validate (decoded, -1, NULL))
    {
      g_set_error (error, RG_QUERY_ERROR, RG_QUERY_ERROR_BAD_ENCODING,
                   "a query %s is not valid UTF-8", what);
      return NULL;
    }
  return g_steal_pointer (&decoded);
}

/**
 * rg_query_parse:
 * @raw: (nullable): the raw query, without '?'
 * @error: where a refusal goes (RG_QUERY_ERROR)
 *
 * Splits and decodes a query string under fixed limits.  Empty segments are
 * skipped; a key without '=' has the empty value; a repeated key is refused,
 * since it would silently override a command name or an argument.
 *
 * Returns: (transfer full): key -> value, both decoded UTF-8, or %NULL.
 */
GHashTable *
rg_query_parse (const char  *raw,
                GError     **error)
{
  g_autoptr(GHashTable) params = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  const char *p = raw;

  if (raw == NULL)
    return g_steal_pointer (&params);
  if (strlen (raw) > RG_QUERY_MAX_LENGTH)
    {
      g_set_error (error, RG_QUERY_ERROR, RG_QUERY_ERROR_TOO_LONG,
                   "the query string is longer than %d bytes", RG_QUERY_MAX_LENGTH);
      return NULL;
    }

  while (*p != '\0')
    {
      const char *end = strchr (p, '&');
      const char *eq;
      gsize seg_len = end != NULL ? (gsize) (end - p) : strlen (p);
      g_autofree char *key = NULL;
      g_autofree char *value = NULL;

      if (seg_len > 0)
        {
          eq = memchr (p, '=', seg_len);
          key = decode_component (p, eq != NULL ? (gsize) (eq - p) : seg_len,
                                  RG_QUERY_MAX_KEY, "key", error);
          if (key == NULL)
            return NULL;
          if (*key == '\0')
            {
              g_set_error (error, RG_QUERY_ERROR, RG_QUERY_ERROR_BAD_ENCODING,
                           "a query parameter has an empty name");
              return NULL;
            }
          value = eq != NULL
                  ? decode_component (eq + 1, seg_len - (gsize) (eq + 1 - p), RG_QUERY_MAX_VALUE,
                                      "value", error)
                  : g_strdup ("");
          if (value == NULL)
            return NULL;
          if (g_hash_table_contains (params, key))
            {
              g_set_error (error, RG_QUERY_ERROR, RG_QUERY_ERROR_DUPLICATE,
                           "the query parameter '%s' is repeated", key);
              return NULL;
            }
          if (g_hash_table_size (params) >= RG_QUERY_MAX_PARAMS)
            {
              g_set_error (error, RG_QUERY_ERROR, RG_QUERY_ERROR_TOO_MANY,
                           "more than %d query parameters", RG_QUERY_MAX_PARAMS);
              return NULL;
            }
          g_hash_table_insert (params, g_steal_pointer (&key), g_steal_pointer (&value));
        }
      if (end == NULL)
        break;
      p = end + 1;
    }
  return g_steal_pointer (&params);
}
