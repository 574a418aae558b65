/* gg-jsonrpc-wire.c: the JSON text of JSON-RPC: a cheap check of incoming
 * text before json-glib parses it, the compact writer for outgoing messages
 * (gg-json.c's, with integral doubles as integers), and id rules.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "gg-json-private.h"
#include "gg-jsonrpc-private.h"

#define MAX_DEPTH      128
#define MAX_SAFE_INT   G_GINT64_CONSTANT (9007199254740991)

/* Compact serializer */

/* The same escaping as gg_json_to_string(), including its repair of invalid
 * UTF-8: application strings (a game's raw output) must not make the
 * message unreadable for the other side. */
void
_gg_jsonrpc_write_string (GString    *out,
                          const char *s)
{
  _gg_json_append_string (out, s);
}

void
_gg_jsonrpc_write_member (JsonObject  *object,
                          const char  *name,
                          JsonNode    *node,
                          gpointer     user_data)
{
  GgJsonRpcMemberWriter *w = user_data;

  if (!w->first)
    g_string_append_c (w->out, ',');
  w->first = FALSE;
  _gg_jsonrpc_write_string (w->out, name);
  g_string_append_c (w->out, ':');
  _gg_jsonrpc_write_node (w->out, node);
}

/* gg_json_to_string()'s writer, with integral doubles as integers (see
 * _gg_json_append_full()). */
void
_gg_jsonrpc_write_node (GString  *out,
                        JsonNode *node)
{
  if (node == NULL)
    g_string_append (out, "null");
  else
    _gg_json_append_full (out, node, FALSE);
}

/* Checking incoming text */

enum { C_BAD, C_SPACE, C_QUOTE, C_OPEN, C_CLOSE, C_PUNCT, C_NUMBER, C_WORD };

static const guint8 char_class[256] = {
  [' '] = C_SPACE, ['\t'] = C_SPACE, ['\n'] = C_SPACE, ['\r'] = C_SPACE,
  ['"'] = C_QUOTE, ['{'] = C_OPEN, ['['] = C_OPEN, ['}'] = C_CLOSE, [']'] = C_CLOSE,
  [','] = C_PUNCT, [':'] = C_PUNCT,
  ['-'] = C_NUMBER, ['0'] = C_NUMBER, ['1'] = C_NUMBER, ['2'] = C_NUMBER,
  ['3'] = C_NUMBER, ['4'] = C_NUMBER, ['5'] = C_NUMBER, ['6'] = C_NUMBER,
  ['7'] = C_NUMBER, ['8'] = C_NUMBER, ['9'] = C_NUMBER,
  ['t'] = C_WORD, ['f'] = C_WORD, ['n'] = C_WORD,
};

/* Whether the body of a string (between its quotes) holds `\u0000`, which
 * json-glib would turn into a C string cut short at the NUL. */
static gboolean
has_escaped_nul (const guint8 *s,
                 gsize         n)
{
  const guint8 *end = s + n;
  const guint8 *q = s;

  while ((q = memchr (q, '\\', (gsize) (end - q))) != NULL)
    {
      if (end - q >= 6 && memcmp (q + 1, "u0000", 5) == 0)
        return TRUE;
      q += 2;  /* the backslash and the character it escapes */
      if (q >= end)
        break;
    }
  return FALSE;
}

/* Whether the string token p[start..end) (quotes included) is a member
 * name of the top-level object that may read as "id". A name written with
 * escapes counts, so that "\u0069d" cannot slip a wrapped integer past. */
static gboolean
is_id_key (const guint8 *p,
           gsize         start,
           gsize         end,
           gsize         n)
{
  gsize k = end;

  while (k < n && char_class[p[k]] == C_SPACE)
    k++;
  if (k >= n || p[k] != ':')
    return FALSE;
  if (end - start == 4 && memcmp (p + start, "\"id\"", 4) == 0)
    return TRUE;
  return memchr (p + start, '\\', end - start) != NULL;
}

/* One linear pass: nesting depth, one top-level value, only JSON tokens
 * outside strings. Returns NULL if json-glib may parse it, else why not.
 * Sets @big_int if an integer does not fit in 64 bits (json-glib wraps
 * those silently, so their values cannot be trusted), and @big_id too if
 * that integer is the value of the top-level "id": the id is judged by
 * the id alone, a big integer elsewhere does not make it untrustworthy. */
const char *
_gg_jsonrpc_precheck (const guint8 *p,
                      gsize         n,
                      gboolean     *big_int,
                      gboolean     *big_id)
{
  guint depth = 0;
  guint values = 0;
  gsize i = 0;
  gboolean id_value_next = FALSE;

  while (i < n)
    {
      guint8 c = p[i];
      gboolean is_id_value = FALSE;

      if (char_class[c] != C_SPACE && char_class[c] != C_PUNCT)
        {
          is_id_value = id_value_next;
          id_value_next = FALSE;
        }

      switch (char_class[c])
        {
        case C_SPACE:
        case C_PUNCT:
          i++;
          break;

        case C_QUOTE:
          {
            gsize j = i + 1;

            if (depth == 0)
              values++;
            for (;;)
              {
                const guint8 *q = j < n ? memchr (p + j, '"', n - j) : NULL;
                gsize backslashes = 0;

                if (q == NULL)
                  return "unterminated string";
                while (q - backslashes > p + i + 1 && q[-1 - (gssize) backslashes] == '\\')
                  backslashes++;
                j = (gsize) (q - p) + 1;
                if (backslashes % 2 == 0)
                  break;
              }
            if (has_escaped_nul (p + i + 1, j - i - 2))
              return "escaped NUL in a string";
            if (depth == 1 && !is_id_value && is_id_key (p, i, j, n))
              id_value_next = TRUE;
            i = j;
          }
          break;

        case C_OPEN:
          if (depth == 0)
            values++;
          if (++depth > MAX_DEPTH)
            return "nesting deeper than 128 levels";
          i++;
          break;

        case C_CLOSE:
          if (depth == 0)
            return "unbalanced brackets";
          depth--;
          i++;
          break;

        case C_NUMBER:
          {
            gsize start = i;
            gboolean integral = TRUE;

            if (depth == 0)
              values++;
            while (i < n && (g_ascii_isdigit (p[i]) || p[i] == '-' || p[i] == '+' ||
                             p[i] == '.' || p[i] == 'e' || p[i] == 'E'))
              {
                if (p[i] == '.' || p[i] == 'e' || p[i] == 'E')
                  integral = FALSE;
                i++;
              }
            if (integral && i - start > 18)
              {
                char buf[24];
                gint64 v;

                gboolean big = FALSE;

                if (i - start >= sizeof buf)
                  big = TRUE;
                else
                  {
                    memcpy (buf, p + start, i - start);
                    buf[i - start] = '\0';
                    if (!g_ascii_string_to_signed (buf, 10, G_MININT64, G_MAXINT64, &v, NULL))
                      big = TRUE;
                  }
                if (big)
                  {
                    *big_int = TRUE;
                    if (is_id_value)
                      *big_id = TRUE;
                  }
              }
          }
          break;

        case C_WORD:
          {
            gsize start = i;

            if (depth == 0)
              values++;
            while (i < n && g_ascii_isalpha (p[i]))
              i++;
            if (!((i - start == 4 && memcmp (p + start, "true", 4) == 0) ||
                  (i - start == 5 && memcmp (p + start, "false", 5) == 0) ||
                  (i - start == 4 && memcmp (p + start, "null", 4) == 0)))
              return "unexpected word";
          }
          break;

        case C_BAD:
        default:
          return "unexpected character";
        }

      if (values > 1)
        return "more than one value";
    }
  if (depth > 0)
    return "unexpected end of input";
  return NULL;
}

/* Ids: strings, or integers within +-(2^53-1) (integral doubles count).
 * Returns a normalised copy, or NULL if @node is not a usable id. */
JsonNode *
_gg_jsonrpc_normalize_id (JsonNode *node)
{
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return NULL;
  type = json_node_get_value_type (node);
  if (type == G_TYPE_STRING)
    return json_node_ref (node);
  if (type == G_TYPE_INT64)
    {
      gint64 v = json_node_get_int (node);

      if (v < -MAX_SAFE_INT || v > MAX_SAFE_INT)
        return NULL;
      return json_node_ref (node);
    }
  if (type == G_TYPE_DOUBLE)
    {
      double v = json_node_get_double (node);
      JsonNode *id;

      if (!isfinite (v) || v != floor (v) || fabs (v) > (double) MAX_SAFE_INT)
        return NULL;
      id = json_node_new (JSON_NODE_VALUE);
      json_node_set_int (id, (gint64) v);
      return id;
    }
  return NULL;
}

/* The pending-table key of an id: the type is part of it, "1" is not 1. */
char *
_gg_jsonrpc_id_key (JsonNode *id)
{
  if (json_node_get_value_type (id) == G_TYPE_STRING)
    return g_strconcat ("s:", json_node_get_string (id), NULL);
  return g_strdup_printf ("i:%" G_GINT64_FORMAT, json_node_get_int (id));
}
