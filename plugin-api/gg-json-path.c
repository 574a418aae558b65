/* gg-json-path.c: dot paths into JSON documents ("player.gold",
 * "party.0.name").
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-json-private.h"

/* Array indices are plain decimal, no leading zeros, below this. */
#define MAX_INDEX_DIGITS 9

static gboolean
all_digits (const char *s)
{
  if (*s == '\0')
    return FALSE;
  for (; *s != '\0'; s++)
    if (*s < '0' || *s > '9')
      return FALSE;
  return TRUE;
}

/**
 * gg_json_path_split:
 * @path: a dot path
 * @error: return location for a %GG_JSON_ERROR_BAD_PATH
 *
 * Splits @path at each '.' and checks it. The rules shared by all path
 * functions: "" is the root (no segments); otherwise every segment is
 * non-empty valid UTF-8 (so no leading, trailing or doubled dots); there
 * is no escaping, so a key containing '.' cannot be named. A segment of
 * decimal digits is an array index on arrays and a member name on
 * objects; it must be canonical ("0", "12", never "01") and have at most
 * 9 digits. A segment of '-' and digits ("-1") is refused. A path has at
 * most %GG_JSON_DEFAULT_MAX_DEPTH segments: no document deeper than a
 * parse accepts can exist, so a longer path names nothing, and
 * gg_json_path_set() must not build one (%GG_JSON_ERROR_TOO_DEEP).
 *
 * Returns: (transfer full): the segments (empty for the root), or %NULL
 *
 * Since: 1.0
 */
char **
gg_json_path_split (const char *path,
                    GError    **error)
{
  g_auto(GStrv) segments = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  if (*path == '\0')
    return g_new0 (char *, 1);

  if (!g_utf8_validate (path, -1, NULL))
    {
      g_set_error_literal (error, GG_JSON_ERROR, GG_JSON_ERROR_BAD_PATH,
                           "path is not valid UTF-8");
      return NULL;
    }

  {
    guint dots = 0;

    /* One pass that stops at the bound: a hostile path is not walked to
     * its end, and no string function rescans its rest per segment. */
    for (const char *p = path; *p != '\0' && dots < GG_JSON_DEFAULT_MAX_DEPTH; p++)
      dots += *p == '.';
    if (dots >= GG_JSON_DEFAULT_MAX_DEPTH)
      {
        g_set_error (error, GG_JSON_ERROR, GG_JSON_ERROR_TOO_DEEP,
                     "the path has more than %d segments", GG_JSON_DEFAULT_MAX_DEPTH);
        return NULL;
      }
  }

  segments = g_strsplit (path, ".", -1);
  for (guint i = 0; segments[i] != NULL; i++)
    {
      const char *seg = segments[i];

      if (*seg == '\0')
        {
          g_set_error (error, GG_JSON_ERROR, GG_JSON_ERROR_BAD_PATH,
                       "'%s': empty path segment", path);
          return NULL;
        }
      if (seg[0] == '-' && all_digits (seg + 1))
        {
          g_set_error (error, GG_JSON_ERROR, GG_JSON_ERROR_BAD_PATH,
                       "'%s': negative index '%s'", path, seg);
          return NULL;
        }
      if (all_digits (seg))
        {
          if (seg[0] == '0' && seg[1] != '\0')
            {
              g_set_error (error, GG_JSON_ERROR, GG_JSON_ERROR_BAD_PATH,
                           "'%s': index '%s' has a leading zero", path, seg);
              return NULL;
            }
          if (strlen (seg) > MAX_INDEX_DIGITS)
            {
              g_set_error (error, GG_JSON_ERROR, GG_JSON_ERROR_BAD_PATH,
                           "'%s': index '%s' is too large", path, seg);
              return NULL;
            }
        }
    }
  return g_steal_pointer (&segments);
}

/* The path made of the first @n segments, for messages. */
static char *
prefix (char **segments,
        guint   n)
{
  GString *s = g_string_new (NULL);

  if (n == 0)
    return g_string_free (g_string_append (s, "(root)"), FALSE);
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append_c (s, '.');
      g_string_append (s, segments[i]);
    }
  return g_string_free (s, FALSE);
}

static gboolean
parse_index (const char *seg,
             guint      *index)
{
  if (!all_digits (seg))
    return FALSE;
  /* split() bounded it to 9 digits, so this cannot overflow. */
  *index = (guint) g_ascii_strtoull (seg, NULL, 10);
  return TRUE;
}

typedef enum {
  STEP_FOUND,
  STEP_MISSING,     /* a container, but nothing at that key or index */
  STEP_APPENDABLE,  /* an array and the index is its length */
  STEP_ERROR,
} StepResult;

/* Looks segment @i up in @node, which segments[0..i) named. */
static StepResult
step (JsonNode  *node,
      char     **segments,
      guint      i,
      JsonNode **child,
      GError   **error)
{
  const char *seg = segments[i];

  *child = NULL;
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      *child = json_object_get_member (json_node_get_object (node), seg);
      return *child != NULL ? STEP_FOUND : STEP_MISSING;
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      guint index, length = json_array_get_length (array);

      if (!parse_index (seg, &index))
        {
          g_autofree char *where = prefix (segments, i);
          g_set_error (error, GG_JSON_ERROR, GG_JSON_ERROR_NOT_FOUND,
                       "%s is an array; '%s' is not an index", where, seg);
          return STEP_ERROR;
        }
      if (index < length)
        {
          *child = json_array_get_element (array, index);
          return STEP_FOUND;
        }
      return index == length ? STEP_APPENDABLE : STEP_MISSING;
    }

  {
    g_autofree char *where = prefix (segments, i);
    g_set_error (error, GG_JSON_ERROR, GG_JSON_ERROR_NOT_CONTAINER,
                 "%s is not an object or array", where);
  }
  return STEP_ERROR;
}

static void
set_not_found (char  **segments,
               guint   i,
               GError **error)
{
  g_autofree char *where = prefix (segments, i + 1);
  g_set_error (error, GG_JSON_ERROR, GG_JSON_ERROR_NOT_FOUND, "%s: not found", where);
}

/**
 * gg_json_path_get:
 * @root: the document
 * @path: a dot path (see gg_json_path_split())
 * @error: return location for a %GG_JSON_ERROR
 *
 * Finds the value @path names. Errors: %GG_JSON_ERROR_BAD_PATH for a
 * malformed path, %GG_JSON_ERROR_NOT_CONTAINER when the path goes through
 * a scalar or null, %GG_JSON_ERROR_NOT_FOUND for a missing member, an
 * index out of range or a non-index segment on an array.
 *
 * Returns: (transfer none): the node inside @root, or %NULL
 *
 * Since: 1.0
 */
JsonNode *
gg_json_path_get (JsonNode   *root,
                  const char *path,
                  GError    **error)
{
  g_auto(GStrv) segments = NULL;
  JsonNode *node = root;

  g_return_val_if_fail (root != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);

  segments = gg_json_path_split (path, error);
  if (segments == NULL)
    return NULL;

  for (guint i = 0; segments[i] != NULL; i++)
    {
      JsonNode *child;

      switch (step (node, segments, i, &child, error))
        {
        case STEP_FOUND:
          node = child;
          break;
        case STEP_ERROR:
          return NULL;
        case STEP_MISSING:
        case STEP_APPENDABLE:
        default:
          set_not_found (segments, i, error);
          return NULL;
        }
    }
  return node;
}

/* json-glib can neither replace an array element nor safely re-type a
 * node in place, so the array is rebuilt with the new element. */
static void
replace_element (JsonNode *array_node,
                 guint     index,
                 JsonNode *value)
{
  JsonArray *old = json_node_get_array (array_node);
  guint n = json_array_get_length (old);
  JsonArray *array = json_array_sized_new (n);

  for (guint i = 0; i < n; i++)
    json_array_add_element (array, i == index ? gg_json_copy (value)
                                              : json_node_ref (json_array_get_element (old, i)));
  json_node_take_array (array_node, array);
}

/**
 * gg_json_path_set:
 * @root: the document, mutable
 * @path: a dot path (see gg_json_path_split())
 * @value: the value to store; the document gets a deep copy
 * @error: return location for a %GG_JSON_ERROR
 *
 * Stores @value at @path. Missing object members on the way are created
 * as empty objects; an index equal to an array's length appends (also on
 * the way, appending an empty object). Replacing an array element puts a
 * new #JsonArray into its node. The root itself ("") cannot be replaced
 * (%GG_JSON_ERROR_BAD_PATH). The document never grows deeper than
 * %GG_JSON_DEFAULT_MAX_DEPTH, the limit of parsing: a path of n segments
 * with a @value nesting more than the limit minus n levels is refused with
 * %GG_JSON_ERROR_TOO_DEEP, so every walk over a document stays bounded.
 * Errors: %GG_JSON_ERROR_BAD_PATH; %GG_JSON_ERROR_NOT_CONTAINER naming the
 * scalar or null the path would go through (nothing is replaced);
 * %GG_JSON_ERROR_NOT_FOUND for an index past the end or a non-index
 * segment on an array. On error @root is unchanged (creation only starts
 * once the rest of the path is known to be new, so it cannot fail).
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gg_json_path_set (JsonNode   *root,
                  const char *path,
                  JsonNode   *value,
                  GError    **error)
{
  g_auto(GStrv) segments = NULL;
  JsonNode *node = root;
  guint n, i;

  g_return_val_if_fail (root != NULL, FALSE);
  g_return_val_if_fail (!json_node_is_immutable (root), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (value != NULL, FALSE);

  segments = gg_json_path_split (path, error);
  if (segments == NULL)
    return FALSE;
  n = g_strv_length (segments);
  if (n == 0)
    {
      g_set_error_literal (error, GG_JSON_ERROR, GG_JSON_ERROR_BAD_PATH,
                           "the root cannot be replaced");
      return FALSE;
    }
  /* The root is one level; the value sits n levels down. */
  if (_gg_json_deeper_than (value, GG_JSON_DEFAULT_MAX_DEPTH - n))
    {
      g_set_error (error, GG_JSON_ERROR, GG_JSON_ERROR_TOO_DEEP,
                   "the value would nest deeper than %d levels", GG_JSON_DEFAULT_MAX_DEPTH);
      return FALSE;
    }

  for (i = 0; i + 1 < n; i++)
    {
      JsonNode *child;

      switch (step (node, segments, i, &child, error))
        {
        case STEP_FOUND:
          node = child;
          break;
        case STEP_MISSING:
          if (JSON_NODE_HOLDS_OBJECT (node))
            {
              JsonObject *object = json_node_get_object (node);
              json_object_set_object_member (object, segments[i], json_object_new ());
              node = json_object_get_member (object, segments[i]);
              break;
            }
          set_not_found (segments, i, error);
          return FALSE;
        case STEP_APPENDABLE:
          {
            JsonArray *array = json_node_get_array (node);
            json_array_add_object_element (array, json_object_new ());
            node = json_array_get_element (array, json_array_get_length (array) - 1);
          }
          break;
        case STEP_ERROR:
        default:
          return FALSE;
        }
    }

  {
    JsonNode *child;

    switch (step (node, segments, i, &child, error))
      {
      case STEP_FOUND:
        if (JSON_NODE_HOLDS_ARRAY (node))
          {
            guint index = 0;
            parse_index (segments[i], &index);
            replace_element (node, index, value);
            return TRUE;
          }
        G_GNUC_FALLTHROUGH;
      case STEP_MISSING:
        if (JSON_NODE_HOLDS_OBJECT (node))
          {
            json_object_set_member (json_node_get_object (node), segments[i],
                                    gg_json_copy (value));
            return TRUE;
          }
        set_not_found (segments, i, error);
        return FALSE;
      case STEP_APPENDABLE:
        json_array_add_element (json_node_get_array (node), gg_json_copy (value));
        return TRUE;
      case STEP_ERROR:
      default:
        return FALSE;
      }
  }
}

/**
 * gg_json_path_remove:
 * @root: the document, mutable
 * @path: a non-empty dot path (see gg_json_path_split())
 * @error: return location for a %GG_JSON_ERROR
 *
 * Removes the member or array element @path names; later elements of an
 * array move down by one. The root cannot be removed
 * (%GG_JSON_ERROR_BAD_PATH). Other errors as for gg_json_path_get().
 *
 * Returns: (transfer full): the removed value, or %NULL
 *
 * Since: 1.0
 */
JsonNode *
gg_json_path_remove (JsonNode   *root,
                     const char *path,
                     GError    **error)
{
  g_auto(GStrv) segments = NULL;
  JsonNode *node = root, *child = NULL;
  guint n, i;

  g_return_val_if_fail (root != NULL, NULL);
  g_return_val_if_fail (!json_node_is_immutable (root), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  segments = gg_json_path_split (path, error);
  if (segments == NULL)
    return NULL;
  n = g_strv_length (segments);
  if (n == 0)
    {
      g_set_error_literal (error, GG_JSON_ERROR, GG_JSON_ERROR_BAD_PATH,
                           "the root cannot be removed");
      return NULL;
    }

  for (i = 0; i < n; i++)
    {
      switch (step (node, segments, i, &child, error))
        {
        case STEP_FOUND:
          break;
        case STEP_ERROR:
          return NULL;
        case STEP_MISSING:
        case STEP_APPENDABLE:
        default:
          set_not_found (segments, i, error);
          return NULL;
        }
      if (i + 1 < n)
        node = child;
    }

  child = json_node_ref (child);
  if (JSON_NODE_HOLDS_OBJECT (node))
    json_object_remove_member (json_node_get_object (node), segments[n - 1]);
  else
    {
      guint index = 0;
      parse_index (segments[n - 1], &index);
      json_array_remove_element (json_node_get_array (node), index);
    }
  return child;
}
