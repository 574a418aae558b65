/* gg-json.c: compact output, value equality, hashing and deep copies.
 *
 * The walks here recurse, one C frame (a few dozen bytes) per level of
 * nesting. That is bounded, because no deeper document can exist in the
 * process: every JSON text is parsed with a depth limit
 * (GG_JSON_DEFAULT_MAX_DEPTH, 128, or less), a merge patch is never deeper
 * than its inputs, gg_json_path_set() refuses to build past the limit,
 * and code only wraps documents a few levels more (a message, an event).
 * json-glib's own freeing recurses the same way, so the bound, not an
 * iterative rewrite, is what keeps the stack safe. Measuring an untrusted
 * value's depth is iterative (_gg_json_deeper_than()).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "gg-json-private.h"

/**
 * gg_json_error_quark:
 *
 * The error domain of JSON parsing and paths, %GG_JSON_ERROR.
 *
 * Returns: the #GQuark of the domain
 *
 * Since: 1.0
 */
G_DEFINE_QUARK (gg-json-error-quark, gg_json_error)

/* Bytes that must be escaped: the control characters, '"' and '\\'. */
static inline gboolean
needs_escape (guchar c)
{
  return c < 0x20 || c == '"' || c == '\\';
}

static void
append_escaped (GString    *out,
                const char *str)
{
  static const char hex[] = "0123456789abcdef";
  const char *run = str;
  const char *p;

  g_string_append_c (out, '"');
  for (p = str; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      if (G_LIKELY (!needs_escape (c)))
        continue;
      g_string_append_len (out, run, p - run);
      run = p + 1;
      switch (c)
        {
        case '"': g_string_append_len (out, "\\\"", 2); break;
        case '\\': g_string_append_len (out, "\\\\", 2); break;
        case '\n': g_string_append_len (out, "\\n", 2); break;
        case '\r': g_string_append_len (out, "\\r", 2); break;
        case '\t': g_string_append_len (out, "\\t", 2); break;
        case '\b': g_string_append_len (out, "\\b", 2); break;
        case '\f': g_string_append_len (out, "\\f", 2); break;
        default:
          {
            char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xF] };
            g_string_append_len (out, esc, 6);
          }
          break;
        }
    }
  g_string_append_len (out, run, p - run);
  g_string_append_c (out, '"');
}

void
_gg_json_append_string (GString    *out,
                        const char *str)
{
  if (G_UNLIKELY (!g_utf8_validate (str, -1, NULL)))
    {
      /* Output must stay valid JSON even if a caller built a bad string. */
      g_autofree char *valid = g_utf8_make_valid (str, -1);
      append_escaped (out, valid);
      return;
    }
  append_escaped (out, str);
}

static void
append_int (GString *out,
            gint64   v)
{
  char buf[24];
  char *p = buf + sizeof buf;
  guint64 u = v < 0 ? (guint64) 0 - (guint64) v : (guint64) v;

  do
    {
      *--p = (char) ('0' + u % 10);
      u /= 10;
    }
  while (u != 0);
  if (v < 0)
    *--p = '-';
  g_string_append_len (out, p, buf + sizeof buf - p);
}

static void
append_double (GString  *out,
               double    d,
               gboolean  mark_doubles)
{
  static const char *const formats[] = { "%.15g", "%.16g", "%.17g" };
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (d))
    {
      /* JSON has no infinities or NaN. */
      g_string_append_len (out, "null", 4);
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_ascii_formatd (buf, sizeof buf, formats[i], d);
      if (g_ascii_strtod (buf, NULL) == d)
        break;
    }
  g_string_append (out, buf);
  /* Keep it a double when read back: "1.0", not "1". */
  if (mark_doubles && strpbrk (buf, ".e") == NULL)
    g_string_append_len (out, ".0", 2);
}

void
_gg_json_append (GString  *out,
                 JsonNode *node)
{
  _gg_json_append_full (out, node, TRUE);
}

void
_gg_json_append_full (GString  *out,
                      JsonNode *node,
                      gboolean  mark_doubles)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;
        gboolean first = TRUE;

        g_string_append_c (out, '{');
        json_object_iter_init_ordered (&iter, json_node_get_object (node));
        while (json_object_iter_next_ordered (&iter, &name, &member))
          {
            if (!first)
              g_string_append_c (out, ',');
            first = FALSE;
            _gg_json_append_string (out, name);
            g_string_append_c (out, ':');
            _gg_json_append_full (out, member, mark_doubles);
          }
        g_string_append_c (out, '}');
      }
      break;

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);

        g_string_append_c (out, '[');
        for (guint i = 0; i < n; i++)
          {
            if (i > 0)
              g_string_append_c (out, ',');
            _gg_json_append_full (out, json_array_get_element (array, i), mark_doubles);
          }
        g_string_append_c (out, ']');
      }
      break;

    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_INT64:
          append_int (out, json_node_get_int (node));
          break;
        case G_TYPE_DOUBLE:
          append_double (out, json_node_get_double (node), mark_doubles);
          break;
        case G_TYPE_BOOLEAN:
          if (json_node_get_boolean (node))
            g_string_append_len (out, "true", 4);
          else
            g_string_append_len (out, "false", 5);
          break;
        case G_TYPE_STRING:
          {
            const char *str = json_node_get_string (node);
            if (str != NULL)
              _gg_json_append_string (out, str);
            else
              g_string_append_len (out, "null", 4);
          }
          break;
        default:
          g_string_append_len (out, "null", 4);
          break;
        }
      break;

    case JSON_NODE_NULL:
    default:
      g_string_append_len (out, "null", 4);
      break;
    }
}

/**
 * gg_json_to_string:
 * @node: a JSON node
 *
 * Serialises @node compactly: no whitespace, members in insertion order,
 * integers as plain digits, doubles in the shortest form that reads back
 * to the same value and always with a '.' or exponent (`0.1`, `1.0`,
 * `1e+20`; non-finite doubles become `null`), strings with '"', '\\' and
 * control characters escaped (`\n`, `\t`, ... or `\u00XX`) and '/' and
 * non-ASCII left as they are.
 *
 * Returns: (transfer full): the text
 *
 * Since: 1.0
 */
char *
gg_json_to_string (JsonNode *node)
{
  GString *out;

  g_return_val_if_fail (node != NULL, NULL);

  out = g_string_sized_new (64);
  _gg_json_append (out, node);
  return g_string_free (out, FALSE);
}

/**
 * gg_json_object_to_string:
 * @object: a JSON object
 *
 * Like gg_json_to_string() for an object.
 *
 * Returns: (transfer full): the text
 *
 * Since: 1.0
 */
char *
gg_json_object_to_string (JsonObject *object)
{
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (object != NULL, NULL);

  node = json_node_init_object (json_node_alloc (), object);
  return gg_json_to_string (node);
}

gboolean
_gg_json_node_is_number (JsonNode *node)
{
  GType t;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  t = json_node_get_value_type (node);
  return t == G_TYPE_INT64 || t == G_TYPE_DOUBLE;
}

gboolean
_gg_json_node_is_integral (JsonNode *node)
{
  double d;

  if (!_gg_json_node_is_number (node))
    return FALSE;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return TRUE;
  d = json_node_get_double (node);
  return isfinite (d) && d == floor (d);
}

/* Exact comparison of two numbers, either of which may be gint64 or
 * gdouble. Returns <0, 0, >0. NaN compares equal to nothing and sorts
 * high, which never happens for parsed JSON. */
int
_gg_json_number_compare (JsonNode *a,
                         JsonNode *b)
{
  gboolean ai = json_node_get_value_type (a) == G_TYPE_INT64;
  gboolean bi = json_node_get_value_type (b) == G_TYPE_INT64;

  if (ai && bi)
    {
      gint64 x = json_node_get_int (a), y = json_node_get_int (b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
  if (!ai && !bi)
    {
      double x = json_node_get_double (a), y = json_node_get_double (b);
      return x < y ? -1 : x > y ? 1 : x == y ? 0 : 1;
    }
  {
    /* One integer, one double: compare without losing the integer's low
     * bits, which a plain conversion to double would. */
    gint64 i = ai ? json_node_get_int (a) : json_node_get_int (b);
    double d = ai ? json_node_get_double (b) : json_node_get_double (a);
    int r;

    if (isnan (d))
      r = -1;
    else if (d >= 9223372036854775808.0)
      r = -1;
    else if (d < -9223372036854775808.0)
      r = 1;
    else
      {
        double fl = floor (d);
        gint64 di = (gint64) fl;

        if (i < di)
          r = -1;
        else if (i > di)
          r = 1;
        else
          r = fl == d ? 0 : -1;
      }
    return ai ? r : -r;
  }
}

/**
 * gg_json_equal:
 * @a: (nullable): a JSON node
 * @b: (nullable): a JSON node
 *
 * JSON value equality: numbers compare by value (`1` equals `1.0`),
 * objects by their members whatever the order, arrays element by element
 * in order, strings byte for byte. Two %NULL pointers are equal.
 *
 * Returns: whether @a and @b are the same JSON value
 *
 * Since: 1.0
 */
gboolean
gg_json_equal (JsonNode *a,
               JsonNode *b)
{
  JsonNodeType ta, tb;

  if (a == b)
    return TRUE;
  if (a == NULL || b == NULL)
    return FALSE;

  ta = json_node_get_node_type (a);
  tb = json_node_get_node_type (b);
  if (ta != tb)
    return FALSE;

  switch (ta)
    {
    case JSON_NODE_NULL:
      return TRUE;

    case JSON_NODE_OBJECT:
      {
        JsonObject *oa = json_node_get_object (a);
        JsonObject *ob = json_node_get_object (b);
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;

        if (oa == ob)
          return TRUE;
        if (json_object_get_size (oa) != json_object_get_size (ob))
          return FALSE;
        json_object_iter_init (&iter, oa);
        while (json_object_iter_next (&iter, &name, &member))
          {
            JsonNode *other = json_object_get_member (ob, name);
            if (other == NULL || !gg_json_equal (member, other))
              return FALSE;
          }
        return TRUE;
      }

    case JSON_NODE_ARRAY:
      {
        JsonArray *aa = json_node_get_array (a);
        JsonArray *ab = json_node_get_array (b);
        guint n = json_array_get_length (aa);

        if (aa == ab)
          return TRUE;
        if (n != json_array_get_length (ab))
          return FALSE;
        for (guint i = 0; i < n; i++)
          if (!gg_json_equal (json_array_get_element (aa, i), json_array_get_element (ab, i)))
            return FALSE;
        return TRUE;
      }

    case JSON_NODE_VALUE:
    default:
      if (_gg_json_node_is_number (a) && _gg_json_node_is_number (b))
        return _gg_json_number_compare (a, b) == 0;
      if (json_node_get_value_type (a) != json_node_get_value_type (b))
        return FALSE;
      if (json_node_get_value_type (a) == G_TYPE_BOOLEAN)
        return json_node_get_boolean (a) == json_node_get_boolean (b);
      if (json_node_get_value_type (a) == G_TYPE_STRING)
        return g_strcmp0 (json_node_get_string (a), json_node_get_string (b)) == 0;
      return FALSE;
    }
}

/* A hash consistent with gg_json_equal(): numbers hash by their value as
 * a double (so 1 and 1.0 collide, as they must), objects independently
 * of member order. */
guint
_gg_json_hash (JsonNode *node)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;
        guint h = 0x9e3779b9u;

        json_object_iter_init (&iter, json_node_get_object (node));
        while (json_object_iter_next (&iter, &name, &member))
          h += g_str_hash (name) * 31u ^ _gg_json_hash (member);
        return h;
      }

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);
        guint h = 0x85ebca6bu + n;

        for (guint i = 0; i < n; i++)
          h = h * 33u ^ _gg_json_hash (json_array_get_element (array, i));
        return h;
      }

    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_INT64:
        case G_TYPE_DOUBLE:
          {
            double d = json_node_get_value_type (node) == G_TYPE_INT64
                         ? (double) json_node_get_int (node) : json_node_get_double (node);
            guint64 bits;

            if (d == 0)
              d = 0;  /* -0.0 equals 0 */
            /* The bit pattern, not g_double_hash(): that one hashes
             * (guint) d, putting every number in [0, 1) in one bucket. */
            memcpy (&bits, &d, sizeof bits);
            return (guint) (bits ^ (bits >> 32));
          }
        case G_TYPE_STRING:
          return json_node_get_string (node) != NULL ? g_str_hash (json_node_get_string (node)) : 1;
        case G_TYPE_BOOLEAN:
          return json_node_get_boolean (node) ? 3 : 2;
        default:
          return 4;
        }

    case JSON_NODE_NULL:
    default:
      return 5;
    }
}

JsonNode *
_gg_json_node_take_object (JsonObject *object)
{
  JsonNode *node = json_node_init (json_node_alloc (), JSON_NODE_OBJECT);
  json_node_take_object (node, object);
  return node;
}

JsonNode *
_gg_json_node_take_array (JsonArray *array)
{
  JsonNode *node = json_node_init (json_node_alloc (), JSON_NODE_ARRAY);
  json_node_take_array (node, array);
  return node;
}

/**
 * gg_json_copy:
 * @node: a JSON value
 *
 * Copies @node deeply: unlike json_node_copy(), the copy shares no object or
 * array with @node, so changing one never changes the other.
 *
 * Returns: (transfer full): a mutable copy of @node
 *
 * Since: 1.0
 */
JsonNode *
gg_json_copy (JsonNode *node)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *copy = json_object_new ();
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;

        json_object_iter_init_ordered (&iter, json_node_get_object (node));
        while (json_object_iter_next_ordered (&iter, &name, &member))
          json_object_set_member (copy, name, gg_json_copy (member));
        return _gg_json_node_take_object (copy);
      }

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);
        JsonArray *copy = json_array_sized_new (n);

        for (guint i = 0; i < n; i++)
          json_array_add_element (copy, gg_json_copy (json_array_get_element (array, i)));
        return _gg_json_node_take_array (copy);
      }

    case JSON_NODE_VALUE:
      {
        JsonNode *copy = json_node_init (json_node_alloc (), JSON_NODE_VALUE);
        g_auto(GValue) v = G_VALUE_INIT;

        json_node_get_value (node, &v);
        json_node_set_value (copy, &v);
        return copy;
      }

    case JSON_NODE_NULL:
    default:
      return json_node_init_null (json_node_alloc ());
    }
}

typedef struct {
  JsonNode *node;
  guint depth;   /* levels of containers above @node */
} DepthItem;

gboolean
_gg_json_deeper_than (JsonNode *node,
                      guint     limit)
{
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (DepthItem));
  DepthItem item = { node, 0 };

  if (node == NULL)
    return FALSE;
  g_array_append_val (stack, item);
  while (stack->len > 0)
    {
      guint depth;

      item = g_array_index (stack, DepthItem, stack->len - 1);
      g_array_set_size (stack, stack->len - 1);
      if (!JSON_NODE_HOLDS_OBJECT (item.node) && !JSON_NODE_HOLDS_ARRAY (item.node))
        continue;
      depth = item.depth + 1;
      if (depth > limit)
        return TRUE;
      if (JSON_NODE_HOLDS_OBJECT (item.node))
        {
          JsonObjectIter iter;
          JsonNode *child;

          json_object_iter_init (&iter, json_node_get_object (item.node));
          while (json_object_iter_next (&iter, NULL, &child))
            if (JSON_NODE_HOLDS_OBJECT (child) || JSON_NODE_HOLDS_ARRAY (child))
              {
                DepthItem next = { child, depth };
                g_array_append_val (stack, next);
              }
        }
      else
        {
          JsonArray *array = json_node_get_array (item.node);

          for (guint i = 0; i < json_array_get_length (array); i++)
            {
              JsonNode *child = json_array_get_element (array, i);

              if (JSON_NODE_HOLDS_OBJECT (child) || JSON_NODE_HOLDS_ARRAY (child))
                {
                  DepthItem next = { child, depth };
                  g_array_append_val (stack, next);
                }
            }
        }
    }
  return FALSE;
}
