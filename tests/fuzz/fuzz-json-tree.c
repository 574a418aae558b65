/* fuzz-json-tree.c: the tree gg_json_parse() builds (gg-json-tree.c, from
 * the text its strict scan accepted) against the tree json-glib's own
 * parser builds from the same text, on any bytes: the same node types,
 * value types (gint64 or double), strings, numbers bit for bit, members
 * in the same order and each node's parent. An integer beyond gint64 is the one place
 * they differ on purpose (json-glib wraps it silently, gamegate reads a
 * double): a document with one is compared after json-glib reads it with
 * ".0" appended, as gg_json_parse() once handed it over.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <errno.h>
#include <string.h>

#include <gamegate.h>

#include "fuzz-common.h"

/* Whether @x's parent is @a exactly when @y's is @b. */
static gboolean
same_parent (JsonNode *x,
             JsonNode *a,
             JsonNode *y,
             JsonNode *b)
{
  return (json_node_get_parent (x) == a) == (json_node_get_parent (y) == b);
}

static gboolean
same_tree (JsonNode *a,
           JsonNode *b)
{
  if (json_node_get_node_type (a) != json_node_get_node_type (b))
    return FALSE;
  switch (json_node_get_node_type (a))
    {
    case JSON_NODE_NULL:
      return TRUE;
    case JSON_NODE_VALUE:
      if (json_node_get_value_type (a) != json_node_get_value_type (b))
        return FALSE;
      if (json_node_get_value_type (a) == G_TYPE_STRING)
        return strcmp (json_node_get_string (a), json_node_get_string (b)) == 0;
      if (json_node_get_value_type (a) == G_TYPE_INT64)
        return json_node_get_int (a) == json_node_get_int (b);
      if (json_node_get_value_type (a) == G_TYPE_BOOLEAN)
        return json_node_get_boolean (a) == json_node_get_boolean (b);
      {
        double x = json_node_get_double (a), y = json_node_get_double (b);

        return memcmp (&x, &y, sizeof x) == 0;
      }
    case JSON_NODE_ARRAY:
      {
        JsonArray *x = json_node_get_array (a), *y = json_node_get_array (b);

        if (json_array_get_length (x) != json_array_get_length (y))
          return FALSE;
        for (guint i = 0; i < json_array_get_length (x); i++)
          if (!same_parent (json_array_get_element (x, i), a, json_array_get_element (y, i), b) ||
              !same_tree (json_array_get_element (x, i), json_array_get_element (y, i)))
            return FALSE;
        return TRUE;
      }
    case JSON_NODE_OBJECT:
      {
        JsonObject *x = json_node_get_object (a), *y = json_node_get_object (b);
        JsonObjectIter i, j;
        const char *name_x, *name_y;
        JsonNode *member_x, *member_y;

        if (json_object_get_size (x) != json_object_get_size (y))
          return FALSE;
        json_object_iter_init_ordered (&i, x);
        json_object_iter_init_ordered (&j, y);
        while (json_object_iter_next_ordered (&i, &name_x, &member_x))
          if (!json_object_iter_next_ordered (&j, &name_y, &member_y) || strcmp (name_x, name_y) != 0 ||
              !same_parent (member_x, a, member_y, b) || !same_tree (member_x, member_y))
            return FALSE;
        return TRUE;
      }
    }
  return FALSE;
}

/* @text with ".0" after every integer literal of 19 digits or more that
 * is outside gint64 (outside strings), as json-glib must see it. */
static GString *
doubles_for_big_ints (const char *text,
                      gsize       length)
{
  GString *out = g_string_sized_new (length + 16);
  gboolean in_string = FALSE;

  for (gsize i = 0; i < length; i++)
    {
      char c = text[i];

      if (in_string)
        {
          g_string_append_c (out, c);
          if (c == '\\' && i + 1 < length)
            g_string_append_c (out, text[++i]);
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      if (c == '"')
        in_string = TRUE;
      if (c == '-' || g_ascii_isdigit (c))
        {
          gsize start = i, end = i + 1;

          while (end < length && g_ascii_isdigit (text[end]))
            end++;
          if (end < length && (text[end] == '.' || text[end] == 'e' || text[end] == 'E'))
            {
              /* Not an integer: its fraction and exponent go as they are
               * (their digits are no literal of their own). */
              while (end < length && (g_ascii_isdigit (text[end]) || text[end] == '.' || text[end] == 'e' ||
                                      text[end] == 'E' || text[end] == '+' || text[end] == '-'))
                end++;
              g_string_append_len (out, text + start, (gssize) (end - start));
              i = end - 1;
              continue;
            }
          g_string_append_len (out, text + start, (gssize) (end - start));
          i = end - 1;
          {
            g_autofree char *literal = g_strndup (text + start, end - start);

            errno = 0;
            g_ascii_strtoll (literal, NULL, 10);
            if (errno == ERANGE)
              g_string_append (out, ".0");
          }
          continue;
        }
      g_string_append_c (out, c);
    }
  return out;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GString) text = NULL;
  g_autoptr(GError) error = NULL;

  fuzz_init ();
  node = gg_json_parse ((const char *) data, (gssize) size, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (node == NULL)
    return 0;
  text = doubles_for_big_ints ((const char *) data, size);
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, text->str, (gssize) text->len, &error))
    g_error ("json-glib refuses what gg_json_parse accepted: %s", error->message);
  if (!same_tree (node, json_parser_get_root (parser)))
    {
      g_autofree char *ours = gg_json_to_string (node);
      g_autofree char *theirs = gg_json_to_string (json_parser_get_root (parser));

      g_error ("gg_json_parse's tree is not json-glib's:\n%s\n%s", ours, theirs);
    }
  return 0;
}
