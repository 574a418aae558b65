/* gg-json-build.c: strict JSON straight into a json-glib tree, in one pass.
 *
 * json-glib's own parser runs a GScanner, a GObject and a callback per
 * token: on the JSON-RPC peers' per-message path it was half of a `ping`'s
 * cost. This builder validates RFC 8259 and builds the same tree as
 * json-glib would from the same text (members in order, a repeated key's
 * last value in the first one's place, integers as gint64, other numbers
 * as doubles) without either. It does not explain errors: anything it does
 * not accept (not strict JSON, invalid UTF-8, `\u0000`, a lone surrogate, a
 * number beyond a double, nesting past the limit) gives NULL, and the
 * caller takes its slower path, which says why (gg_json_parse(), the
 * peers' json-glib parse of lenient input).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gg-json-private.h"

typedef struct {
  const char *p;
  const char *end;
  GString *scratch;        /* the string being read, unescaped */
} Builder;

static inline void
skip_space (Builder *b)
{
  while (b->p < b->end && (*b->p == ' ' || *b->p == '\n' || *b->p == '\r' || *b->p == '\t'))
    b->p++;
}

static gboolean
read_hex4 (Builder *b,
           guint   *value)
{
  if (!_gg_json_read_hex4 (b->p, (gsize) (b->end - b->p), value))
    return FALSE;
  b->p += 4;
  return TRUE;
}

/* b->p is on the opening quote; leaves it past the closing one, the text
 * (valid UTF-8: the whole input was checked) in b->scratch. */
static gboolean
read_string (Builder *b)
{
  const char *run;

  g_string_truncate (b->scratch, 0);
  run = ++b->p;
  for (;;)
    {
      guchar c;

      if (b->p >= b->end)
        return FALSE;
      c = (guchar) *b->p;
      if (c == '"')
        {
          g_string_append_len (b->scratch, run, b->p - run);
          b->p++;
          return TRUE;
        }
      if (c < 0x20)
        return FALSE;
      if (c != '\\')
        {
          b->p++;
          continue;
        }
      g_string_append_len (b->scratch, run, b->p - run);
      if (++b->p >= b->end)
        return FALSE;
      switch (*b->p++)
        {
        case '"': g_string_append_c (b->scratch, '"'); break;
        case '\\': g_string_append_c (b->scratch, '\\'); break;
        case '/': g_string_append_c (b->scratch, '/'); break;
        case 'b': g_string_append_c (b->scratch, '\b'); break;
        case 'f': g_string_append_c (b->scratch, '\f'); break;
        case 'n': g_string_append_c (b->scratch, '\n'); break;
        case 'r': g_string_append_c (b->scratch, '\r'); break;
        case 't': g_string_append_c (b->scratch, '\t'); break;
        case 'u':
          {
            guint cp, low;

            if (!read_hex4 (b, &cp) || cp == 0 || (cp >= 0xDC00 && cp <= 0xDFFF))
              return FALSE;
            if (cp >= 0xD800 && cp <= 0xDBFF)
              {
                if (b->end - b->p < 2 || b->p[0] != '\\' || b->p[1] != 'u')
                  return FALSE;
                b->p += 2;
                if (!read_hex4 (b, &low) || low < 0xDC00 || low > 0xDFFF)
                  return FALSE;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
              }
            g_string_append_unichar (b->scratch, cp);
          }
          break;
        default:
          return FALSE;
        }
      run = b->p;
    }
}

static inline gboolean
is_digit (char c)
{
  return c >= '0' && c <= '9';
}

/* A number by RFC 8259's grammar: integers fitting gint64 as such, every
 * other one as the double it reads as (g_ascii_strtod()). */
static JsonNode *
read_number (Builder *b)
{
  const char *start = b->p;
  gboolean negative = FALSE, integral = TRUE, overflow = FALSE;
  guint64 magnitude = 0;

  if (*b->p == '-')
    {
      negative = TRUE;
      b->p++;
    }
  if (b->p >= b->end || !is_digit (*b->p))
    return NULL;
  if (*b->p == '0')
    {
      b->p++;
      if (b->p < b->end && is_digit (*b->p))
        return NULL;
    }
  else
    {
      guint64 limit = negative ? (guint64) G_MAXINT64 + 1 : (guint64) G_MAXINT64;

      while (b->p < b->end && is_digit (*b->p))
        {
          guint d = (guint) (*b->p++ - '0');

          if (magnitude > (limit - d) / 10)
            overflow = TRUE;
          else
            magnitude = magnitude * 10 + d;
        }
    }
  if (b->p < b->end && *b->p == '.')
    {
      integral = FALSE;
      if (++b->p >= b->end || !is_digit (*b->p))
        return NULL;
      while (b->p < b->end && is_digit (*b->p))
        b->p++;
    }
  if (b->p < b->end && (*b->p == 'e' || *b->p == 'E'))
    {
      integral = FALSE;
      b->p++;
      if (b->p < b->end && (*b->p == '+' || *b->p == '-'))
        b->p++;
      if (b->p >= b->end || !is_digit (*b->p))
        return NULL;
      while (b->p < b->end && is_digit (*b->p))
        b->p++;
    }

  if (integral && !overflow)
    {
      JsonNode *node = json_node_new (JSON_NODE_VALUE);

      json_node_set_int (node, negative ? (gint64) (0 - magnitude) : (gint64) magnitude);
      return node;
    }
  {
    g_autofree char *copy = g_strndup (start, (gsize) (b->p - start));
    double value = g_ascii_strtod (copy, NULL);
    JsonNode *node;

    if (!isfinite (value))
      return NULL;
    node = json_node_new (JSON_NODE_VALUE);
    json_node_set_double (node, value);
    return node;
  }
}

static gboolean
read_literal (Builder    *b,
              const char *word,
              gsize       length)
{
  if ((gsize) (b->end - b->p) < length || memcmp (b->p, word, length) != 0)
    return FALSE;
  b->p += length;
  return TRUE;
}

/* A scalar, or a new empty container (the caller fills it). */
static JsonNode *
read_value_start (Builder *b)
{
  JsonNode *node;

  switch (*b->p)
    {
    case '{':
      b->p++;
      return _gg_json_node_take_object (json_object_new ());
    case '[':
      b->p++;
      return _gg_json_node_take_array (json_array_new ());
    case '"':
      if (!read_string (b))
        return NULL;
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_string (node, b->scratch->str);
      return node;
    case 't':
    case 'f':
      {
        gboolean value = *b->p == 't';

        if (!read_literal (b, value ? "true" : "false", value ? 4 : 5))
          return NULL;
        node = json_node_new (JSON_NODE_VALUE);
        json_node_set_boolean (node, value);
        return node;
      }
    case 'n':
      if (!read_literal (b, "null", 4))
        return NULL;
      return json_node_new (JSON_NODE_NULL);
    default:
      return read_number (b);
    }
}

static inline gboolean
is_container (JsonNode *node)
{
  return JSON_NODE_HOLDS_OBJECT (node) || JSON_NODE_HOLDS_ARRAY (node);
}

/* Reads an object's key and its colon; b->p is on the quote. */
static gboolean
read_key (Builder *b)
{
  if (b->p >= b->end || *b->p != '"' || !read_string (b))
    return FALSE;
  skip_space (b);
  if (b->p >= b->end || *b->p != ':')
    return FALSE;
  b->p++;
  skip_space (b);
  return b->p < b->end;
}

/**
 * _gg_json_build:
 * @data: (array length=length): the JSON text
 * @length: its length in bytes
 * @max_depth: the deepest nesting accepted (`[]` is depth 1)
 *
 * Returns: (transfer full) (nullable): the value @data holds, as json-glib
 *   would build it, or %NULL when @data is not one strict RFC 8259 value
 *   (see the file's comment) within @max_depth
 */
JsonNode *
_gg_json_build (const char *data,
                gsize       length,
                guint       max_depth)
{
  g_autoptr(GString) key = NULL;
  g_autoptr(GPtrArray) open = NULL;    /* JsonNode: the containers being filled (borrowed) */
  Builder b = { data, data + length, NULL };
  JsonNode *root = NULL;
  JsonNode *node;

  if (data == NULL || !g_utf8_validate_len (data, length, NULL))
    return NULL;
  b.scratch = g_string_sized_new (64);
  key = g_string_sized_new (32);
  open = g_ptr_array_new ();

  skip_space (&b);
  if (b.p >= b.end || (root = read_value_start (&b)) == NULL)
    goto fail;
  if (is_container (root))
    {
      if (max_depth < 1)
        goto fail;
      g_ptr_array_add (open, root);
    }

  while (open->len > 0)
    {
      JsonNode *top = g_ptr_array_index (open, open->len - 1);
      gboolean is_object = JSON_NODE_HOLDS_OBJECT (top);
      gboolean empty = is_object ? json_object_get_size (json_node_get_object (top)) == 0
                                 : json_array_get_length (json_node_get_array (top)) == 0;

      /* Where a container was just opened, or a value ended: a close, a
       * comma, or (first in a container) the first member. */
      skip_space (&b);
      if (b.p >= b.end)
        goto fail;
      if (*b.p == (is_object ? '}' : ']'))
        {
          b.p++;
          g_ptr_array_set_size (open, open->len - 1);
          continue;
        }
      if (!empty)
        {
          if (*b.p != ',')
            goto fail;
          b.p++;
          skip_space (&b);
          if (b.p >= b.end)
            goto fail;
        }
      if (is_object)
        {
          if (!read_key (&b))
            goto fail;
          g_string_assign (key, b.scratch->str);
        }
      if ((node = read_value_start (&b)) == NULL)
        goto fail;
      /* As json-glib's parser does; its setters do not. */
      json_node_set_parent (node, top);
      if (is_object)
        json_object_set_member (json_node_get_object (top), key->str, node);
      else
        json_array_add_element (json_node_get_array (top), node);
      if (is_container (node))
        {
          if (open->len >= max_depth)
            goto fail;
          g_ptr_array_add (open, node);
        }
    }
  skip_space (&b);
  if (b.p != b.end)
    goto fail;
  g_string_free (b.scratch, TRUE);
  return root;

fail:
  g_string_free (b.scratch, TRUE);
  g_clear_pointer (&root, json_node_unref);
  return NULL;
}
