/* gg-json-parse.c: strict JSON parsing with limits.
 *
 * json-glib's parser is lenient (comments, single quotes, hex and
 * leading-zero numbers, raw control characters, silently wrapped 64-bit
 * integers) and recursive, so every document first goes through a strict,
 * iterative RFC 8259 scan here that also enforces the depth limit. Only
 * documents that pass are built into json-glib's tree, by gg-json-tree.c
 * (json-glib's own parser is what it replaced, measured to matter).
 *
 * gg_json_parse_salvage() reads what a refused document shows before its
 * first error, so that a protocol can answer a broken message by its id.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "gg-json-partial-private.h"
#include "gg-json-private.h"

#define MAX_DEPTH_LIMIT 4096

typedef struct {
  gsize start, end;
} Span;

typedef struct {
  const char *data;
  gsize       length;
  gsize       pos;
  gsize       token_start; /* where the token being read began */
  /* Salvaging: numbers beyond a double's range are read on, each noted. */
  gboolean    tolerate_range;
  GArray     *out_of_range;  /* Span */
} Scanner;

static void
scanner_error (Scanner    *s,
               GError    **error,
               GgJsonError code,
               const char *what)
{
  guint line = 1, column = 1;

  for (gsize i = 0; i < s->pos && i < s->length; i++)
    {
      if (s->data[i] == '\n')
        {
          line++;
          column = 1;
        }
      else if (((guchar) s->data[i] & 0xC0) != 0x80)
        column++;
    }
  g_set_error (error, GG_JSON_ERROR, code,
               "JSON parse error at line %u, column %u: %s", line, column, what);
}

/* The value of a hex digit, -1 for anything else. */
int
_gg_json_hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* The four hex digits of a \u escape at @p (@available bytes there). */
gboolean
_gg_json_read_hex4 (const char *p,
                    gsize       available,
                    guint      *value)
{
  guint v = 0;

  if (available < 4)
    return FALSE;
  for (int i = 0; i < 4; i++)
    {
      int h = _gg_json_hex_value (p[i]);

      if (h < 0)
        return FALSE;
      v = (v << 4) | (guint) h;
    }
  *value = v;
  return TRUE;
}

static gboolean
scan_hex4 (Scanner *s,
           guint   *value)
{
  if (!_gg_json_read_hex4 (s->data + s->pos, s->length - s->pos, value))
    return FALSE;
  s->pos += 4;
  return TRUE;
}

/* s->pos is on the opening quote; leaves it past the closing one. */
static gboolean
scan_string (Scanner *s,
             GError **error)
{
  s->pos++;
  for (;;)
    {
      guchar c;

      if (s->pos >= s->length)
        {
          scanner_error (s, error, GG_JSON_ERROR_PARSE, "unterminated string");
          return FALSE;
        }
      c = (guchar) s->data[s->pos];
      if (c == '"')
        {
          s->pos++;
          return TRUE;
        }
      if (c < 0x20)
        {
          scanner_error (s, error, GG_JSON_ERROR_PARSE,
                         "control character in string (must be escaped)");
          return FALSE;
        }
      if (c != '\\')
        {
          s->pos++;
          continue;
        }

      s->pos++;
      if (s->pos >= s->length)
        {
          scanner_error (s, error, GG_JSON_ERROR_PARSE, "unterminated string");
          return FALSE;
        }
      c = (guchar) s->data[s->pos++];
      if (strchr ("\"\\/bfnrt", c) != NULL && c != '\0')
        continue;
      if (c != 'u')
        {
          s->pos--;
          scanner_error (s, error, GG_JSON_ERROR_PARSE, "invalid escape in string");
          return FALSE;
        }
      {
        guint cp, low;

        if (!scan_hex4 (s, &cp))
          {
            scanner_error (s, error, GG_JSON_ERROR_PARSE,
                           "\\u must be followed by four hex digits");
            return FALSE;
          }
        if (cp == 0)
          {
            /* Strings are C strings here: a NUL would silently truncate. */
            scanner_error (s, error, GG_JSON_ERROR_PARSE,
                           "\\u0000 is not supported in strings");
            return FALSE;
          }
        if (cp >= 0xDC00 && cp <= 0xDFFF)
          {
            scanner_error (s, error, GG_JSON_ERROR_PARSE, "lone low surrogate in string");
            return FALSE;
          }
        if (cp >= 0xD800 && cp <= 0xDBFF)
          {
            if (s->length - s->pos < 2 || s->data[s->pos] != '\\' ||
                s->data[s->pos + 1] != 'u')
              {
                scanner_error (s, error, GG_JSON_ERROR_PARSE,
                               "high surrogate not followed by a low surrogate");
                return FALSE;
              }
            s->pos += 2;
            if (!scan_hex4 (s, &low) || low < 0xDC00 || low > 0xDFFF)
              {
                scanner_error (s, error, GG_JSON_ERROR_PARSE,
                               "high surrogate not followed by a low surrogate");
                return FALSE;
              }
          }
      }
    }
}

static gboolean
is_digit (char c)
{
  return c >= '0' && c <= '9';
}

/* A number past a double's range at @start: an error, or when salvaging
 * noted and read on. */
static gboolean
out_of_range (Scanner *s,
              gsize    start,
              GError **error)
{
  if (s->tolerate_range)
    {
      Span span = { start, s->pos };

      if (s->out_of_range == NULL)
        s->out_of_range = g_array_new (FALSE, FALSE, sizeof (Span));
      g_array_append_val (s->out_of_range, span);
      return TRUE;
    }
  s->pos = start;
  scanner_error (s, error, GG_JSON_ERROR_PARSE, "number out of range");
  return FALSE;
}

static gboolean
scan_number (Scanner *s,
             GError **error)
{
  gsize start = s->pos, int_start;
  gboolean negative = FALSE, integral = TRUE;
  gsize n_digits;

  if (s->data[s->pos] == '-')
    {
      negative = TRUE;
      s->pos++;
    }
  int_start = s->pos;
  if (s->pos >= s->length || !is_digit (s->data[s->pos]))
    {
      scanner_error (s, error, GG_JSON_ERROR_PARSE, "invalid number");
      return FALSE;
    }
  if (s->data[s->pos] == '0')
    {
      s->pos++;
      if (s->pos < s->length && is_digit (s->data[s->pos]))
        {
          scanner_error (s, error, GG_JSON_ERROR_PARSE, "leading zero in number");
          return FALSE;
        }
    }
  else
    {
      while (s->pos < s->length && is_digit (s->data[s->pos]))
        s->pos++;
    }
  n_digits = s->pos - int_start;

  if (s->pos < s->length && s->data[s->pos] == '.')
    {
      integral = FALSE;
      s->pos++;
      if (s->pos >= s->length || !is_digit (s->data[s->pos]))
        {
          scanner_error (s, error, GG_JSON_ERROR_PARSE, "digit expected after '.'");
          return FALSE;
        }
      while (s->pos < s->length && is_digit (s->data[s->pos]))
        s->pos++;
    }
  if (s->pos < s->length && (s->data[s->pos] == 'e' || s->data[s->pos] == 'E'))
    {
      integral = FALSE;
      s->pos++;
      if (s->pos < s->length && (s->data[s->pos] == '+' || s->data[s->pos] == '-'))
        s->pos++;
      if (s->pos >= s->length || !is_digit (s->data[s->pos]))
        {
          scanner_error (s, error, GG_JSON_ERROR_PARSE, "digit expected in exponent");
          return FALSE;
        }
      while (s->pos < s->length && is_digit (s->data[s->pos]))
        s->pos++;
    }

  if (integral)
    {
      /* json-glib wraps integers outside gint64; remember them so they can
       * be handed over as doubles instead. */
      if (n_digits >= 19)
        {
          guint64 limit = negative ? (guint64) G_MAXINT64 + 1 : (guint64) G_MAXINT64;
          guint64 v = 0;
          gboolean big = FALSE;

          for (gsize i = int_start; i < s->pos; i++)
            {
              guint d = (guint) (s->data[i] - '0');
              if (v > (limit - d) / 10)
                {
                  big = TRUE;
                  break;
                }
              v = v * 10 + d;
            }
          /* Past about 309 digits even a double cannot hold it: refused
           * like 1e400 rather than handed over as infinity. */
          if (big && n_digits > 300)
            {
              g_autofree char *copy = g_strndup (s->data + start, s->pos - start);

              if (!isfinite (g_ascii_strtod (copy, NULL)))
                return out_of_range (s, start, error);
            }
        }
    }
  else if (s->pos - start > 300 || memchr (s->data + start, 'e', s->pos - start) ||
           memchr (s->data + start, 'E', s->pos - start))
    {
      g_autofree char *copy = g_strndup (s->data + start, s->pos - start);
      double d = g_ascii_strtod (copy, NULL);

      if (!isfinite (d))
        return out_of_range (s, start, error);
    }
  return TRUE;
}

enum {
  S_VALUE,
  S_VALUE_OR_CLOSE,
  S_KEY,
  S_KEY_OR_CLOSE,
  S_COLON,
  S_AFTER,
};

/* The strict, iterative pass. The stack holds one byte per open container. */
static gboolean
scan_document (Scanner *s,
               guint    max_depth,
               GError **error)
{
  g_autoptr(GByteArray) stack = g_byte_array_new ();
  int state = S_VALUE;

  for (;;)
    {
      char c;

      while (s->pos < s->length &&
             (s->data[s->pos] == ' ' || s->data[s->pos] == '\t' ||
              s->data[s->pos] == '\n' || s->data[s->pos] == '\r'))
        s->pos++;
      if (s->pos >= s->length)
        break;
      c = s->data[s->pos];
      s->token_start = s->pos;

      switch (state)
        {
        case S_VALUE_OR_CLOSE:
          if (c == ']')
            {
              g_byte_array_set_size (stack, stack->len - 1);
              s->pos++;
              state = S_AFTER;
              break;
            }
          G_GNUC_FALLTHROUGH;
        case S_VALUE:
          if (c == '[' || c == '{')
            {
              guint8 b = (guint8) c;
              if (stack->len >= max_depth)
                {
                  g_autofree char *msg =
                    g_strdup_printf ("nesting deeper than %u levels", max_depth);
                  scanner_error (s, error, GG_JSON_ERROR_TOO_DEEP, msg);
                  return FALSE;
                }
              g_byte_array_append (stack, &b, 1);
              s->pos++;
              state = c == '[' ? S_VALUE_OR_CLOSE : S_KEY_OR_CLOSE;
            }
          else if (c == '"')
            {
              if (!scan_string (s, error))
                return FALSE;
              state = S_AFTER;
            }
          else if (c == '-' || is_digit (c))
            {
              if (!scan_number (s, error))
                return FALSE;
              state = S_AFTER;
            }
          else
            {
              static const char *const literals[] = { "true", "false", "null" };
              gboolean found = FALSE;

              for (guint i = 0; i < G_N_ELEMENTS (literals); i++)
                {
                  gsize n = strlen (literals[i]);
                  if (s->length - s->pos >= n && memcmp (s->data + s->pos, literals[i], n) == 0)
                    {
                      s->pos += n;
                      found = TRUE;
                      break;
                    }
                }
              if (!found)
                {
                  scanner_error (s, error, GG_JSON_ERROR_PARSE,
                                 c == ']' || c == '}' || c == ',' ?
                                 "value expected" : "unexpected character");
                  return FALSE;
                }
              state = S_AFTER;
            }
          break;

        case S_KEY_OR_CLOSE:
          if (c == '}')
            {
              g_byte_array_set_size (stack, stack->len - 1);
              s->pos++;
              state = S_AFTER;
              break;
            }
          G_GNUC_FALLTHROUGH;
        case S_KEY:
          if (c != '"')
            {
              scanner_error (s, error, GG_JSON_ERROR_PARSE, "string expected as object key");
              return FALSE;
            }
          if (!scan_string (s, error))
            return FALSE;
          state = S_COLON;
          break;

        case S_COLON:
          if (c != ':')
            {
              scanner_error (s, error, GG_JSON_ERROR_PARSE, "':' expected after object key");
              return FALSE;
            }
          s->pos++;
          state = S_VALUE;
          break;

        case S_AFTER:
        default:
          if (stack->len == 0)
            {
              scanner_error (s, error, GG_JSON_ERROR_PARSE, "trailing data after the JSON value");
              return FALSE;
            }
          {
            char top = (char) stack->data[stack->len - 1];
            if (c == ',')
              {
                s->pos++;
                state = top == '[' ? S_VALUE : S_KEY;
              }
            else if ((c == ']' && top == '[') || (c == '}' && top == '{'))
              {
                g_byte_array_set_size (stack, stack->len - 1);
                s->pos++;
              }
            else
              {
                scanner_error (s, error, GG_JSON_ERROR_PARSE,
                               top == '[' ? "',' or ']' expected" : "',' or '}' expected");
                return FALSE;
              }
          }
          break;
        }
    }

  if (state != S_AFTER || stack->len != 0)
    {
      /* Cut short between tokens: none of them is broken. */
      s->token_start = s->length;
      scanner_error (s, error, GG_JSON_ERROR_PARSE,
                     s->length == 0 ? "empty input" : "unexpected end of input");
      return FALSE;
    }
  return TRUE;
}

/* What gg_json_parse() and gg_json_parse_salvage() do first: @length and
 * @max_depth made concrete, @s set over the text. */
static void
scanner_init (Scanner    *s,
              const char *data,
              gssize     *length,
              guint      *max_depth)
{
  if (*length < 0)
    *length = (gssize) strlen (data);
  if (*max_depth == 0)
    *max_depth = GG_JSON_DEFAULT_MAX_DEPTH;
  /* json-glib and the helpers here recurse once per level. */
  *max_depth = MIN (*max_depth, MAX_DEPTH_LIMIT);
  s->data = data != NULL ? data : "";
  s->length = (gsize) *length;
}

/**
 * gg_json_parse:
 * @data: the JSON text
 * @length: its length in bytes, or -1 if NUL-terminated
 * @max_depth: the deepest nesting of arrays and objects accepted (a scalar
 *   is depth 0, `[]` depth 1); 0 selects %GG_JSON_DEFAULT_MAX_DEPTH, and
 *   anything above 4096 counts as 4096
 * @error: return location for a %GG_JSON_ERROR
 *
 * Parses one JSON value strictly by RFC 8259: valid UTF-8 only, no
 * comments, no trailing commas, no leading zeros, no raw control
 * characters in strings, nothing after the value. `\u0000` is refused
 * (strings are C strings). Integers outside gint64 become doubles.
 * Nesting is checked before any recursion, so hostile input cannot
 * exhaust the stack.
 *
 * Returns: (transfer full): a new mutable node, or %NULL with
 *   %GG_JSON_ERROR_PARSE or %GG_JSON_ERROR_TOO_DEEP
 *
 * Since: 1.0
 */
JsonNode *
gg_json_parse (const char *data,
               gssize      length,
               guint       max_depth,
               GError    **error)
{
  Scanner s = { 0, };
  const char *end;

  g_return_val_if_fail (data != NULL || length == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  scanner_init (&s, data, &length, &max_depth);

  /* Also refuses embedded NUL bytes. */
  if (!g_utf8_validate_len (s.data, s.length, &end))
    {
      s.pos = (gsize) (end - s.data);
      scanner_error (&s, error, GG_JSON_ERROR_PARSE,
                     end < s.data + s.length && *end == '\0' ? "NUL byte in input"
                                                             : "invalid UTF-8");
      return NULL;
    }

  if (!scan_document (&s, max_depth, error))
    return NULL;

  /* The tree, built from the text the scan accepted (gg-json-tree.c
   * reads an integer beyond gint64 as a double, as json-glib would). */
  return _gg_json_tree_build (s.data, s.length);
}

/**
 * gg_json_parse_salvage:
 * @data: JSON text that gg_json_parse() refused
 * @length: its length in bytes, or -1 if NUL-terminated
 * @max_depth: as for gg_json_parse()
 * @complete: (out) (optional): set to %TRUE when all of @data was read,
 *   only numbers beyond a double's range being replaced
 *
 * Reads what @data shows before its first error, by gg_json_parse()'s
 * rules: the text up to the token that breaks it (invalid UTF-8 included),
 * with open arrays and objects closed and an incomplete member left out;
 * a number beyond a double's range reads as `null`. A protocol uses it
 * to answer a message it cannot parse by the id the message shows, never
 * to act on the message.
 *
 * Returns: (transfer full) (nullable): the value shown, or %NULL when no
 *   value begins before the error
 *
 * Since: 1.0
 */
JsonNode *
gg_json_parse_salvage (const char *data,
                       gssize      length,
                       guint       max_depth,
                       gboolean   *complete)
{
  Scanner s = { 0, };
  g_autoptr(GString) readable = NULL;
  g_autoptr(GError) error = NULL;
  const char *end;
  gsize cut, last = 0;
  gboolean read_all;

  if (complete != NULL)
    *complete = FALSE;
  g_return_val_if_fail (data != NULL || length == 0, NULL);
  scanner_init (&s, data, &length, &max_depth);
  /* Only what is valid UTF-8 (and before any NUL byte) is read. */
  g_utf8_validate_len (s.data, (gsize) length, &end);
  s.length = (gsize) (end - s.data);
  s.tolerate_range = TRUE;
  read_all = scan_document (&s, max_depth, &error) && s.length == (gsize) length;
  /* The token that broke it is left out whole: a string cut at a bad
   * escape must not pass for the whole string. */
  cut = read_all || error == NULL ? s.length : s.token_start;

  readable = g_string_sized_new (cut);
  for (guint i = 0; s.out_of_range != NULL && i < s.out_of_range->len; i++)
    {
      const Span *span = &g_array_index (s.out_of_range, Span, i);

      if (span->end > cut)
        break;
      g_string_append_len (readable, s.data + last, (gssize) (span->start - last));
      g_string_append (readable, "null");
      last = span->end;
    }
  g_string_append_len (readable, s.data + last, (gssize) (cut - last));
  g_clear_pointer (&s.out_of_range, g_array_unref);
  if (complete != NULL)
    *complete = read_all;
  /* Whole, a number at its end is whole too; cut short, it may not be. */
  if (read_all)
    return gg_json_parse (readable->str, (gssize) readable->len, max_depth, NULL);
  return _gg_json_partial_parse (readable->str, readable->len, max_depth);
}
