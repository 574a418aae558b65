/* gg-json-tree.c: the json-glib tree of a document that gg_json_parse()'s
 * strict scan has accepted, built straight from its text.
 *
 * json-glib's own parser tokenises through a GScanner and was most of the
 * cost of parsing a request (a decide body of 16 entities: about a third
 * of the service's instructions). The text is known to be valid RFC 8259
 * here (strings terminated, escapes and surrogate pairs well formed, no
 * \u0000, numbers finite, nesting within the limit), so this builder
 * checks nothing again: it walks the text once, iteratively (an explicit
 * stack, as deep as the limit allows), and makes the very tree json-glib
 * would: integers that fit a gint64 as G_TYPE_INT64, every other number
 * as a double, a repeated member replacing the earlier one's value in its
 * place, every node's parent set. fuzz-json-tree holds it to json-glib's
 * tree on any input.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "gg-json-private.h"

typedef struct {
  JsonNode *node;   /* an object or array being filled */
  char     *name;   /* an object's member whose value is being read */
} Frame;

typedef struct {
  const char *p;
  const char *end;
  GString    *scratch;  /* the string just read */
} Reader;

static void
skip_space (Reader *r)
{
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
    r->p++;
}

/* Four hex digits the scan has checked. */
static guint
hex4 (const char *p)
{
  guint value = 0;

  _gg_json_read_hex4 (p, 4, &value);
  return value;
}

/* At a '"': reads the string into r->scratch (valid: it ends before end). */
static const char *
read_string (Reader *r)
{
  const char *q = ++r->p;

  g_string_truncate (r->scratch, 0);
  for (;;)
    {
      const char *run = q;

      while (*q != '"' && *q != '\\')
        q++;
      g_string_append_len (r->scratch, run, q - run);
      if (*q == '"')
        break;
      q++;
      switch (*q++)
        {
        case 'b': g_string_append_c (r->scratch, '\b'); break;
        case 'f': g_string_append_c (r->scratch, '\f'); break;
        case 'n': g_string_append_c (r->scratch, '\n'); break;
        case 'r': g_string_append_c (r->scratch, '\r'); break;
        case 't': g_string_append_c (r->scratch, '\t'); break;
        case 'u':
          {
            gunichar c = hex4 (q);

            q += 4;
            if (c >= 0xD800 && c <= 0xDBFF)
              {
                /* The scan saw the low surrogate that must follow. */
                c = 0x10000 + ((c - 0xD800) << 10) + (hex4 (q + 2) - 0xDC00);
                q += 6;
              }
            g_string_append_unichar (r->scratch, c);
          }
          break;
        default:   /* '"', '\\', '/' */
          g_string_append_c (r->scratch, q[-1]);
          break;
        }
    }
  r->p = q + 1;
  return r->scratch->str;
}

/* A number: a gint64 when it is an integer that fits, else a double. */
static JsonNode *
read_number (Reader *r)
{
  const char *start = r->p;
  gboolean integer = TRUE;
  char buffer[64];
  g_autofree char *long_text = NULL;
  const char *text;
  gsize length;

  while (r->p < r->end && (g_ascii_isdigit (*r->p) || *r->p == '-' || *r->p == '+' || *r->p == '.' ||
                           *r->p == 'e' || *r->p == 'E'))
    {
      if (*r->p == '.' || *r->p == 'e' || *r->p == 'E')
        integer = FALSE;
      r->p++;
    }
  length = (gsize) (r->p - start);
  if (length < sizeof buffer)
    {
      memcpy (buffer, start, length);
      buffer[length] = '\0';
      text = buffer;
    }
  else
    text = long_text = g_strndup (start, length);
  if (integer)
    {
      gint64 value;

      errno = 0;
      value = g_ascii_strtoll (text, NULL, 10);
      if (errno == 0)
        return json_node_init_int (json_node_alloc (), value);
    }
  return json_node_init_double (json_node_alloc (), g_ascii_strtod (text, NULL));
}

/* Puts @value (transfer full) where the innermost open container wants it. */
static void
place (GArray    *stack,
       JsonNode **root,
       JsonNode  *value)
{
  Frame *top;

  if (stack->len == 0)
    {
      *root = value;
      return;
    }
  top = &g_array_index (stack, Frame, stack->len - 1);
  /* As json-glib's parser does: a caller may walk up with
   * json_node_get_parent(). */
  json_node_set_parent (value, top->node);
  if (JSON_NODE_HOLDS_ARRAY (top->node))
    json_array_add_element (json_node_get_array (top->node), value);
  else
    {
      json_object_set_member (json_node_get_object (top->node), top->name, value);
      g_clear_pointer (&top->name, g_free);
    }
}

/**
 * _gg_json_tree_build:
 * @data: a document gg_json_parse()'s strict scan accepted
 * @length: its length in bytes
 *
 * Returns: (transfer full): its tree, as json-glib's parser makes it
 */
JsonNode *
_gg_json_tree_build (const char *data,
                     gsize       length)
{
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (Frame));
  g_autoptr(GString) scratch = g_string_sized_new (64);
  Reader r = { data, data + length, scratch };
  JsonNode *root = NULL;

  do
    {
      skip_space (&r);
      switch (*r.p)
        {
        case '{':
        case '[':
          {
            Frame frame = { NULL, NULL };

            if (*r.p == '{')
              {
                frame.node = json_node_new (JSON_NODE_OBJECT);
                json_node_take_object (frame.node, json_object_new ());
              }
            else
              {
                frame.node = json_node_new (JSON_NODE_ARRAY);
                json_node_take_array (frame.node, json_array_new ());
              }
            r.p++;
            g_array_append_val (stack, frame);
          }
          break;
        case '}':
        case ']':
          {
            JsonNode *done = g_array_index (stack, Frame, stack->len - 1).node;

            r.p++;
            g_array_remove_index (stack, stack->len - 1);
            place (stack, &root, done);
          }
          break;
        case ',':
          r.p++;
          break;
        case '"':
          {
            Frame *top = stack->len > 0 ? &g_array_index (stack, Frame, stack->len - 1) : NULL;
            const char *text = read_string (&r);

            if (top != NULL && JSON_NODE_HOLDS_OBJECT (top->node) && top->name == NULL)
              {
                /* A member's name, then its ':'. */
                top->name = g_strndup (text, scratch->len);
                skip_space (&r);
                r.p++;
              }
            else
              place (stack, &root, json_node_init_string (json_node_alloc (), text));
          }
          break;
        case 't':
          r.p += 4;
          place (stack, &root, json_node_init_boolean (json_node_alloc (), TRUE));
          break;
        case 'f':
          r.p += 5;
          place (stack, &root, json_node_init_boolean (json_node_alloc (), FALSE));
          break;
        case 'n':
          r.p += 4;
          place (stack, &root, json_node_init_null (json_node_alloc ()));
          break;
        default:
          place (stack, &root, read_number (&r));
          break;
        }
    }
  while (stack->len > 0);
  return root;
}
