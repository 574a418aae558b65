/* gg-json-partial.c: the value shown by a JSON document cut short.
 *
 * A model streaming structured output sends its JSON text in pieces. One
 * linear scan finds the last point where the text so far ends a complete
 * piece of a value (inside a string: after a whole character or escape;
 * elsewhere: after a complete value or an opening bracket) and the brackets
 * open there. That prefix plus its closers then goes through the strict
 * gg_json_parse(), so partial values follow exactly the rules of the final
 * parse (numbers, escapes, UTF-8, depth).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-json-partial-private.h"
#include "gg-json-private.h"

typedef enum {
  EXPECT_VALUE,      /* top level, after '[' or ',' in an array, after ':' */
  EXPECT_KEY,        /* after '{' or ',' in an object */
  EXPECT_COLON,      /* after a key */
  AFTER_VALUE,       /* a value just ended */
} Want;

typedef struct {
  const char *text;
  gsize       length;
  guint       max_depth;
  GByteArray *stack;   /* '{' or '[' per open container */
  gsize       cut;     /* bytes of the last safe prefix, 0 when none */
  guint       cut_depth;
  gboolean    cut_in_string;
  gboolean    have_cut;
} Scan;

static void
mark (Scan    *s,
      gsize    pos,
      gboolean in_string)
{
  s->cut = pos;
  s->cut_depth = s->stack->len;
  s->cut_in_string = in_string;
  s->have_cut = TRUE;
}

/* The length of the UTF-8 sequence a lead byte starts, 0 when invalid. */
static guint
utf8_length (guchar c)
{
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    return 2;
  if (c >= 0xE0 && c <= 0xEF)
    return 3;
  if (c >= 0xF0 && c <= 0xF4)
    return 4;
  return 0;
}

/* Scans the string starting after its opening quote at *pos. A value
 * string marks a cut after each whole character or escape. Returns FALSE
 * on a syntax error; *closed tells whether the closing quote was seen. */
static gboolean
scan_string (Scan     *s,
             gsize    *pos,
             gboolean  is_value,
             gboolean *closed)
{
  gsize i = *pos;
  gboolean pending_high = FALSE;  /* a \uD800-\uDBFF waits for its pair */

  *closed = FALSE;
  while (i < s->length)
    {
      guchar c = (guchar) s->text[i];

      if (c == '"')
        {
          if (pending_high)
            return FALSE;
          *pos = i + 1;
          *closed = TRUE;
          return TRUE;
        }
      if (c < 0x20)
        return FALSE;
      if (c == '\\')
        {
          char e;

          if (i + 1 >= s->length)
            break;
          e = s->text[i + 1];
          if (e == 'u')
            {
              guint unit = 0;

              if (i + 6 > s->length)
                {
                  /* Check what is there so far, so garbage fails early. */
                  for (gsize k = i + 2; k < s->length; k++)
                    if (_gg_json_hex_value (s->text[k]) < 0)
                      return FALSE;
                  break;
                }
              for (gsize k = i + 2; k < i + 6; k++)
                {
                  int h = _gg_json_hex_value (s->text[k]);
                  if (h < 0)
                    return FALSE;
                  unit = unit * 16 + (guint) h;
                }
              i += 6;
              if (unit >= 0xD800 && unit <= 0xDBFF)
                {
                  if (pending_high)
                    return FALSE;
                  pending_high = TRUE;
                  continue;
                }
              if (unit >= 0xDC00 && unit <= 0xDFFF && !pending_high)
                return FALSE;
              pending_high = FALSE;
            }
          else if (strchr ("\"\\/bfnrt", e) != NULL && e != '\0')
            {
              if (pending_high)
                return FALSE;
              i += 2;
            }
          else
            return FALSE;
        }
      else
        {
          guint n = utf8_length (c);

          if (n == 0 || pending_high)
            return FALSE;
          if (i + n > s->length)
            {
              /* A character cut in two: valid so far? */
              if (g_utf8_get_char_validated (s->text + i, (gssize) (s->length - i)) != (gunichar) -2)
                return FALSE;
              break;
            }
          if (n > 1 && g_utf8_get_char_validated (s->text + i, n) >= (gunichar) -2)
            return FALSE;
          i += n;
        }
      if (is_value)
        mark (s, i, TRUE);
    }
  *pos = s->length;
  return TRUE;
}

/* A value just ended at @pos: the container (if any) now wants a comma or
 * its end. */
static void
value_done (Scan *s,
            Want *want,
            gsize pos)
{
  *want = AFTER_VALUE;
  mark (s, pos, FALSE);
}

static gboolean
scan (Scan *s)
{
  Want want = EXPECT_VALUE;
  gboolean top_done = FALSE;
  gboolean just_opened = FALSE;  /* only '{' or '[' since the last token */
  gsize i = 0;

  while (i < s->length)
    {
      char c = s->text[i];

      if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        {
          i++;
          continue;
        }
      if (top_done)
        return FALSE;  /* something after the document */
      if (just_opened && (c == '}' || c == ']'))
        goto close;
      just_opened = FALSE;

      switch (want)
        {
        case EXPECT_KEY:
          if (c != '"')
            return FALSE;
          {
            gboolean closed;

            i++;
            if (!scan_string (s, &i, FALSE, &closed))
              return FALSE;
            if (!closed)
              return TRUE;
            want = EXPECT_COLON;
          }
          continue;

        case EXPECT_COLON:
          if (c != ':')
            return FALSE;
          i++;
          want = EXPECT_VALUE;
          continue;

        case AFTER_VALUE:
          if (s->stack->len == 0)
            return FALSE;
          if (c == ',')
            {
              i++;
              want = s->stack->data[s->stack->len - 1] == '{' ? EXPECT_KEY : EXPECT_VALUE;
              continue;
            }
          if (c == '}' || c == ']')
            goto close;
          return FALSE;

        case EXPECT_VALUE:
        default:
          break;
        }

      /* A value starts at i. */
      if (c == '{' || c == '[')
        {
          guint8 open = (guint8) c;

          if (s->stack->len >= s->max_depth)
            return FALSE;
          g_byte_array_append (s->stack, &open, 1);
          i++;
          want = c == '{' ? EXPECT_KEY : EXPECT_VALUE;
          just_opened = TRUE;
          mark (s, i, FALSE);
          continue;
        }
      if (c == '"')
        {
          gboolean closed;

          i++;
          /* An empty string shows as soon as its quote opens. */
          mark (s, i, TRUE);
          if (!scan_string (s, &i, TRUE, &closed))
            return FALSE;
          if (!closed)
            return TRUE;
          value_done (s, &want, i);
          top_done = s->stack->len == 0;
          continue;
        }
      if (c == 't' || c == 'f' || c == 'n')
        {
          const char *word = c == 't' ? "true" : c == 'f' ? "false" : "null";
          gsize n = strlen (word);
          gsize have = MIN (n, s->length - i);

          if (strncmp (s->text + i, word, have) != 0)
            return FALSE;
          if (have < n)
            return TRUE;  /* an unfinished literal shows nothing */
          i += n;
          value_done (s, &want, i);
          top_done = s->stack->len == 0;
          continue;
        }
      if (c == '-' || (c >= '0' && c <= '9'))
        {
          while (i < s->length && strchr ("0123456789+-.eE", s->text[i]) != NULL && s->text[i] != '\0')
            i++;
          if (i == s->length)
            return TRUE;  /* more digits may follow */
          value_done (s, &want, i);
          top_done = s->stack->len == 0;
          continue;
        }
      return FALSE;

    close:
      {
        char open = (char) s->stack->data[s->stack->len - 1];

        if ((c == '}' && open != '{') || (c == ']' && open != '['))
          return FALSE;
        g_byte_array_set_size (s->stack, s->stack->len - 1);
        i++;
        value_done (s, &want, i);
        top_done = s->stack->len == 0;
      }
    }
  return TRUE;
}

JsonNode *
_gg_json_partial_parse (const char *text,
                        gsize       length,
                        guint       max_depth)
{
  g_autoptr(GByteArray) stack = g_byte_array_new ();
  g_autoptr(GString) closed = NULL;
  Scan s = { text, length, max_depth, stack, 0, 0, FALSE, FALSE };

  if (text == NULL || !scan (&s) || !s.have_cut)
    return NULL;
  closed = g_string_new_len (text, (gssize) s.cut);
  if (s.cut_in_string)
    g_string_append_c (closed, '"');
  for (guint d = s.cut_depth; d > 0; d--)
    g_string_append_c (closed, stack->data[d - 1] == '{' ? '}' : ']');
  return gg_json_parse (closed->str, (gssize) closed->len, max_depth, NULL);
}
