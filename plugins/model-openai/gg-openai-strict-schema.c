/* gg-openai-strict-schema.c: generation schemas made acceptable to
 * `response_format: {"type": "json_schema", "strict": true}` and answers
 * mapped back.
 *
 * Strict mode wants every object closed (`additionalProperties: false`) with
 * every property required, and an object at the root. An optional property
 * therefore becomes a required one that may be null; on the way back the
 * nulls the model put in such properties are dropped again, so the caller
 * sees the shape its own schema describes. A root that is not an object is
 * wrapped in `{"value": …}` and unwrapped afterwards.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-openai-private.h"

#define MAX_DEPTH 64

static JsonNode *
take_object (JsonObject *object)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, object);
  return node;
}

/* json_node_copy() shares containers, and converting edits arrays such as
 * `type` and `enum` in place: the caller's schema must stay untouched. */
static JsonNode *
deep_copy (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *dest = json_object_new ();
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      json_object_iter_init_ordered (&iter, json_node_get_object (node));
      while (json_object_iter_next_ordered (&iter, &name, &member))
        json_object_set_member (dest, name, deep_copy (member));
      return take_object (dest);
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *source = json_node_get_array (node);
      JsonArray *dest = json_array_sized_new (json_array_get_length (source));

      for (guint i = 0; i < json_array_get_length (source); i++)
        json_array_add_element (dest, deep_copy (json_array_get_element (source, i)));
      JsonNode *copy = json_node_new (JSON_NODE_ARRAY);
      json_node_take_array (copy, dest);
      return copy;
    }
  return json_node_copy (node);
}

static GError *
schema_error (const char *path,
              const char *format,
              ...) G_GNUC_PRINTF (2, 3);

static GError *
schema_error (const char *path,
              const char *format,
              ...)
{
  g_autoptr(JsonObject) data = json_object_new ();
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  json_object_set_string_member (data, "schemaPath", path);
  return gg_model_error_new (GG_MODEL_ERROR_INVALID_SCHEMA, data, "%s: %s", path, message);
}

static gboolean
type_includes (JsonObject *schema,
               const char *type)
{
  JsonNode *node = json_object_get_member (schema, "type");

  if (node == NULL)
    return FALSE;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return g_str_equal (json_node_get_string (node), type);
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *types = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (types); i++)
        {
          JsonNode *t = json_array_get_element (types, i);
          if (JSON_NODE_HOLDS_VALUE (t) && json_node_get_value_type (t) == G_TYPE_STRING &&
              g_str_equal (json_node_get_string (t), type))
            return TRUE;
        }
    }
  return FALSE;
}

static gboolean
is_object_schema (JsonObject *schema)
{
  return type_includes (schema, "object") || json_object_has_member (schema, "properties");
}

static gboolean
array_has_null (JsonArray *array)
{
  for (guint i = 0; i < json_array_get_length (array); i++)
    if (JSON_NODE_HOLDS_NULL (json_array_get_element (array, i)))
      return TRUE;
  return FALSE;
}

/* Whether @schema (not following $ref) accepts null. */
static gboolean
allows_null (JsonNode *schema)
{
  JsonObject *object;
  JsonNode *member;

  if (schema == NULL || !JSON_NODE_HOLDS_OBJECT (schema))
    return schema != NULL && JSON_NODE_HOLDS_VALUE (schema) &&
           json_node_get_value_type (schema) == G_TYPE_BOOLEAN && json_node_get_boolean (schema);
  object = json_node_get_object (schema);
  if (type_includes (object, "null"))
    return TRUE;
  member = json_object_get_member (object, "const");
  if (member != NULL && JSON_NODE_HOLDS_NULL (member))
    return TRUE;
  member = json_object_get_member (object, "enum");
  if (member != NULL && JSON_NODE_HOLDS_ARRAY (member) && array_has_null (json_node_get_array (member)))
    return TRUE;
  for (int k = 0; k < 2; k++)
    {
      member = json_object_get_member (object, k == 0 ? "anyOf" : "oneOf");
      if (member != NULL && JSON_NODE_HOLDS_ARRAY (member))
        {
          JsonArray *branches = json_node_get_array (member);
          for (guint i = 0; i < json_array_get_length (branches); i++)
            if (allows_null (json_array_get_element (branches, i)))
              return TRUE;
        }
    }
  /* No type, no enum, no const, no combinator: anything goes. */
  return !json_object_has_member (object, "type") && !json_object_has_member (object, "enum") &&
         !json_object_has_member (object, "const") && !json_object_has_member (object, "$ref") &&
         !json_object_has_member (object, "anyOf") && !json_object_has_member (object, "oneOf") &&
         !json_object_has_member (object, "allOf") && !json_object_has_member (object, "properties");
}

/* Makes an already converted property schema accept null as well. */
static JsonNode *
make_nullable (JsonNode *schema)
{
  JsonObject *object;
  JsonNode *type;

  if (allows_null (schema))
    return schema;
  object = json_node_get_object (schema);
  type = json_object_get_member (object, "type");
  if (type != NULL && !json_object_has_member (object, "const") &&
      !json_object_has_member (object, "$ref") &&
      ((JSON_NODE_HOLDS_VALUE (type) && json_node_get_value_type (type) == G_TYPE_STRING) ||
       JSON_NODE_HOLDS_ARRAY (type)))
    {
      JsonNode *en = json_object_get_member (object, "enum");

      if (JSON_NODE_HOLDS_VALUE (type))
        {
          JsonArray *types = json_array_new ();
          json_array_add_string_element (types, json_node_get_string (type));
          json_array_add_string_element (types, "null");
          json_object_set_array_member (object, "type", types);
        }
      else
        json_array_add_string_element (json_node_get_array (type), "null");
      if (en != NULL && JSON_NODE_HOLDS_ARRAY (en))
        json_array_add_null_element (json_node_get_array (en));
      return schema;
    }
  if (gg_openai_get_array (object, "anyOf") != NULL && !json_object_has_member (object, "$ref"))
    {
      JsonObject *null_branch = json_object_new ();
      json_object_set_string_member (null_branch, "type", "null");
      json_array_add_object_element (gg_openai_get_array (object, "anyOf"), null_branch);
      return schema;
    }
  {
    JsonObject *wrapper = json_object_new ();
    JsonArray *branches = json_array_new ();
    JsonObject *null_branch = json_object_new ();

    json_object_set_string_member (null_branch, "type", "null");
    json_array_add_element (branches, schema);
    json_array_add_object_element (branches, null_branch);
    json_object_set_array_member (wrapper, "anyOf", branches);
    return take_object (wrapper);
  }
}

static JsonNode *convert (JsonNode *schema, const char *path, guint depth, GError **error);

static gboolean
names_contain (JsonArray  *names,
               const char *name)
{
  for (guint i = 0; names != NULL && i < json_array_get_length (names); i++)
    {
      JsonNode *n = json_array_get_element (names, i);
      if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING &&
          g_str_equal (json_node_get_string (n), name))
        return TRUE;
    }
  return FALSE;
}

/* allOf of objects folds into one object: strict mode has no allOf. */
static void
merge_all_of (JsonObject *dest,
              JsonArray  *branches)
{
  JsonObject *properties = gg_openai_get_object (dest, "properties");
  JsonArray *required = gg_openai_get_array (dest, "required");

  if (properties == NULL)
    {
      properties = json_object_new ();
      json_object_set_object_member (dest, "properties", properties);
    }
  if (required == NULL)
    {
      required = json_array_new ();
      json_object_set_array_member (dest, "required", required);
    }
  for (guint i = 0; i < json_array_get_length (branches); i++)
    {
      JsonObject *branch = json_array_get_object_element (branches, i);
      JsonObject *props = gg_openai_get_object (branch, "properties");
      JsonArray *req = gg_openai_get_array (branch, "required");
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      if (props != NULL)
        {
          json_object_iter_init_ordered (&iter, props);
          while (json_object_iter_next_ordered (&iter, &name, &member))
            json_object_set_member (properties, name, deep_copy (member));
        }
      for (guint k = 0; req != NULL && k < json_array_get_length (req); k++)
        {
          JsonNode *n = json_array_get_element (req, k);
          if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING &&
              !names_contain (required, json_node_get_string (n)))
            json_array_add_string_element (required, json_node_get_string (n));
        }
    }
  json_object_set_string_member (dest, "type", "object");
}

static gboolean
all_branches_are_objects (JsonArray *branches)
{
  for (guint i = 0; i < json_array_get_length (branches); i++)
    {
      JsonNode *b = json_array_get_element (branches, i);
      if (!JSON_NODE_HOLDS_OBJECT (b) || !is_object_schema (json_node_get_object (b)) ||
          json_object_has_member (json_node_get_object (b), "$ref"))
        return FALSE;
    }
  return TRUE;
}

static JsonNode *
convert_object (JsonObject  *source,
                const char  *path,
                guint        depth,
                GError     **error)
{
  g_autoptr(JsonObject) dest = json_object_new ();
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  json_object_iter_init_ordered (&iter, source);
  while (json_object_iter_next_ordered (&iter, &name, &member))
    {
      g_autofree char *sub = g_strdup_printf ("%s/%s", path, name);

      if (g_str_equal (name, "properties") || g_str_equal (name, "$defs") ||
          g_str_equal (name, "definitions"))
        {
          JsonObject *converted;
          JsonObjectIter inner;
          const char *key;
          JsonNode *value;

          if (!JSON_NODE_HOLDS_OBJECT (member))
            {
              g_propagate_error (error, schema_error (sub, "must be an object"));
              return NULL;
            }
          converted = json_object_new ();
          json_object_iter_init_ordered (&inner, json_node_get_object (member));
          while (json_object_iter_next_ordered (&inner, &key, &value))
            {
              g_autofree char *sub2 = g_strdup_printf ("%s/%s", sub, key);
              JsonNode *c = convert (value, sub2, depth + 1, error);
              if (c == NULL)
                {
                  json_object_unref (converted);
                  return NULL;
                }
              json_object_set_member (converted, key, c);
            }
          json_object_set_object_member (dest, name, converted);
        }
      else if (g_str_equal (name, "items") || g_str_equal (name, "not"))
        {
          JsonNode *c = convert (member, sub, depth + 1, error);
          if (c == NULL)
            return NULL;
          json_object_set_member (dest, name, c);
        }
      else if (g_str_equal (name, "anyOf") || g_str_equal (name, "oneOf") ||
               g_str_equal (name, "allOf"))
        {
          JsonArray *branches, *converted;

          if (!JSON_NODE_HOLDS_ARRAY (member))
            {
              g_propagate_error (error, schema_error (sub, "must be an array"));
              return NULL;
            }
          branches = json_node_get_array (member);
          converted = json_array_new ();
          for (guint i = 0; i < json_array_get_length (branches); i++)
            {
              g_autofree char *sub2 = g_strdup_printf ("%s/%u", sub, i);
              JsonNode *c = convert (json_array_get_element (branches, i), sub2, depth + 1, error);
              if (c == NULL)
                {
                  json_array_unref (converted);
                  return NULL;
                }
              json_array_add_element (converted, c);
            }
          /* Strict mode knows anyOf only; for generation oneOf is the same. */
          json_object_set_array_member (dest, g_str_equal (name, "oneOf") ? "anyOf" : name, converted);
        }
      else
        json_object_set_member (dest, name, deep_copy (member));
    }

  if (is_object_schema (dest))
    {
      JsonObject *properties = gg_openai_get_object (dest, "properties");
      JsonArray *required = gg_openai_get_array (dest, "required");
      JsonArray *all = json_array_new ();

      if (properties == NULL)
        {
          properties = json_object_new ();
          json_object_set_object_member (dest, "properties", properties);
        }
      {
        g_autoptr(GList) names = json_object_get_members (properties);
        for (GList *l = names; l != NULL; l = l->next)
          {
            const char *prop = l->data;
            json_array_add_string_element (all, prop);
            if (!names_contain (required, prop))
              {
                JsonNode *schema = json_node_ref (json_object_get_member (properties, prop));
                JsonNode *nullable;

                if (!JSON_NODE_HOLDS_OBJECT (schema))
                  {
                    g_autofree char *sub = g_strdup_printf ("%s/properties/%s", path, prop);
                    json_node_unref (schema);
                    json_array_unref (all);
                    g_propagate_error (error, schema_error (sub, "must be a schema object"));
                    return NULL;
                  }
                /* make_nullable() either edits @schema in place or wraps
                 * it, handing our reference to the wrapper. */
                nullable = make_nullable (schema);
                if (nullable == schema)
                  json_node_unref (schema);
                else
                  json_object_set_member (properties, prop, nullable);
              }
          }
      }
      json_object_set_array_member (dest, "required", all);
      json_object_set_boolean_member (dest, "additionalProperties", FALSE);
      if (!json_object_has_member (dest, "type"))
        json_object_set_string_member (dest, "type", "object");
    }
  return json_node_init_object (json_node_alloc (), dest);
}

static JsonNode *
convert (JsonNode    *schema,
         const char  *path,
         guint        depth,
         GError     **error)
{
  if (depth > MAX_DEPTH)
    {
      g_propagate_error (error, schema_error (path, "nested too deeply"));
      return NULL;
    }
  if (JSON_NODE_HOLDS_OBJECT (schema))
    {
      JsonObject *object = json_node_get_object (schema);
      JsonNode *all_of = json_object_get_member (object, "allOf");

      if (all_of != NULL && JSON_NODE_HOLDS_ARRAY (all_of) &&
          all_branches_are_objects (json_node_get_array (all_of)))
        {
          /* Fold the branches into one object first: strict mode has no allOf. */
          g_autoptr(JsonObject) merged = json_object_new ();
          JsonObjectIter iter;
          const char *name;
          JsonNode *member;

          json_object_iter_init_ordered (&iter, object);
          while (json_object_iter_next_ordered (&iter, &name, &member))
            if (!g_str_equal (name, "allOf"))
              json_object_set_member (merged, name, deep_copy (member));
          merge_all_of (merged, json_node_get_array (all_of));
          return convert_object (merged, path, depth, error);
        }
      return convert_object (object, path, depth, error);
    }
  if (JSON_NODE_HOLDS_VALUE (schema) && json_node_get_value_type (schema) == G_TYPE_BOOLEAN)
    return json_node_copy (schema);
  g_propagate_error (error, schema_error (path, "must be a schema object"));
  return NULL;
}

/**
 * gg_openai_strict_schema_wraps:
 * @schema: a generation schema
 *
 * Returns: whether strict mode needs @schema's root wrapped in `{"value": …}`
 *   (it is not a plain object)
 */
gboolean
gg_openai_strict_schema_wraps (JsonNode *schema)
{
  JsonObject *root;
  JsonNode *all_of;

  if (schema == NULL || !JSON_NODE_HOLDS_OBJECT (schema))
    return TRUE;
  root = json_node_get_object (schema);
  all_of = json_object_get_member (root, "allOf");
  if (type_includes (root, "null") || json_object_has_member (root, "anyOf") ||
      json_object_has_member (root, "oneOf") || json_object_has_member (root, "$ref"))
    return TRUE;
  return !(is_object_schema (root) ||
           (all_of != NULL && JSON_NODE_HOLDS_ARRAY (all_of) &&
            all_branches_are_objects (json_node_get_array (all_of))));
}

/**
 * gg_openai_strict_schema:
 * @schema: a generation schema (JSON Schema subset of the oam spec)
 * @out_wrapped: (out): set when the root was wrapped in `{"value": …}`
 * @error: return location for %GG_MODEL_ERROR_INVALID_SCHEMA
 *
 * Returns: (transfer full): the strict-mode schema, or %NULL with @error set
 */
JsonNode *
gg_openai_strict_schema (JsonNode  *schema,
                         gboolean  *out_wrapped,
                         GError   **error)
{
  g_autoptr(JsonNode) converted = NULL;
  JsonObject *root, *wrapper, *properties;
  JsonArray *required;

  *out_wrapped = FALSE;
  if (schema == NULL || !JSON_NODE_HOLDS_OBJECT (schema))
    {
      g_propagate_error (error, schema_error ("#", "must be a schema object"));
      return NULL;
    }
  converted = convert (schema, "#", 0, error);
  if (converted == NULL)
    return NULL;
  root = json_node_get_object (converted);
  if (!gg_openai_strict_schema_wraps (schema))
    return g_steal_pointer (&converted);

  /* Strict mode needs an object at the root: wrap, keeping the
   * definitions at the root where "#/$defs/…" references point. */
  wrapper = json_object_new ();
  json_object_set_string_member (wrapper, "type", "object");
  for (int k = 0; k < 2; k++)
    {
      const char *defs = k == 0 ? "$defs" : "definitions";
      JsonNode *node = json_object_dup_member (root, defs);
      if (node != NULL)
        {
          json_object_remove_member (root, defs);
          json_object_set_member (wrapper, defs, node);
        }
    }
  properties = json_object_new ();
  json_object_set_member (properties, "value", g_steal_pointer (&converted));
  json_object_set_object_member (wrapper, "properties", properties);
  required = json_array_new ();
  json_array_add_string_element (required, "value");
  json_object_set_array_member (wrapper, "required", required);
  json_object_set_boolean_member (wrapper, "additionalProperties", FALSE);
  *out_wrapped = TRUE;
  return take_object (wrapper);
}

/* ---- mapping answers back --------------------------------------------- */

/* Resolves a local reference ("#/$defs/Item") against @root. */
static JsonNode *
resolve_ref (JsonNode   *root,
             const char *ref)
{
  g_auto(GStrv) parts = NULL;
  JsonNode *node = root;

  if (ref == NULL || !g_str_has_prefix (ref, "#"))
    return NULL;
  if (ref[1] == '\0')
    return root;
  if (ref[1] != '/')
    return NULL;
  parts = g_strsplit (ref + 2, "/", 32);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_autofree char *key = NULL;
      GString *decoded = g_string_new (NULL);

      for (const char *p = parts[i]; *p != '\0'; p++)
        {
          if (p[0] == '~' && p[1] == '1')
            g_string_append_c (decoded, '/'), p++;
          else if (p[0] == '~' && p[1] == '0')
            g_string_append_c (decoded, '~'), p++;
          else
            g_string_append_c (decoded, *p);
        }
      key = g_string_free (decoded, FALSE);
      if (!JSON_NODE_HOLDS_OBJECT (node))
        return NULL;
      node = json_object_get_member (json_node_get_object (node), key);
      if (node == NULL)
        return NULL;
    }
  return node;
}

static const char *
instance_type (JsonNode *instance)
{
  switch (json_node_get_node_type (instance))
    {
    case JSON_NODE_OBJECT:
      return "object";
    case JSON_NODE_ARRAY:
      return "array";
    case JSON_NODE_NULL:
      return "null";
    case JSON_NODE_VALUE:
    default:
      switch (json_node_get_value_type (instance))
        {
        case G_TYPE_STRING:
          return "string";
        case G_TYPE_BOOLEAN:
          return "boolean";
        case G_TYPE_INT64:
          return "integer";
        default:
          return "number";
        }
    }
}

static gboolean
branch_fits (JsonNode *branch,
             JsonNode *instance)
{
  JsonObject *object;
  const char *type = instance_type (instance);

  if (!JSON_NODE_HOLDS_OBJECT (branch))
    return FALSE;
  object = json_node_get_object (branch);
  if (!json_object_has_member (object, "type"))
    return TRUE;
  return type_includes (object, type) ||
         (g_str_equal (type, "integer") && type_includes (object, "number"));
}

static void unmap (JsonNode *root, JsonNode *schema, JsonNode *instance, guint depth);

static void
unmap_object (JsonNode   *root,
              JsonObject *schema,
              JsonObject *instance,
              guint       depth)
{
  JsonObject *properties = gg_openai_get_object (schema, "properties");
  JsonArray *required = gg_openai_get_array (schema, "required");
  g_autoptr(GList) names = json_object_get_members (instance);

  if (properties == NULL)
    return;
  for (GList *l = names; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *value = json_object_get_member (instance, name);
      JsonNode *prop = json_object_get_member (properties, name);

      if (prop == NULL)
        continue;
      if (JSON_NODE_HOLDS_NULL (value) && !names_contain (required, name))
        {
          JsonNode *target = prop;
          if (JSON_NODE_HOLDS_OBJECT (prop) && json_object_has_member (json_node_get_object (prop), "$ref"))
            target = resolve_ref (root, gg_openai_get_string (
                                          json_node_get_object (prop), "$ref"));
          if (!allows_null (target))
            {
              json_object_remove_member (instance, name);
              continue;
            }
        }
      unmap (root, prop, value, depth + 1);
    }
}

static void
unmap (JsonNode *root,
       JsonNode *schema,
       JsonNode *instance,
       guint     depth)
{
  JsonObject *object;
  JsonNode *member;

  if (depth > MAX_DEPTH || schema == NULL || !JSON_NODE_HOLDS_OBJECT (schema))
    return;
  object = json_node_get_object (schema);

  member = json_object_get_member (object, "$ref");
  if (member != NULL && JSON_NODE_HOLDS_VALUE (member) &&
      json_node_get_value_type (member) == G_TYPE_STRING)
    {
      unmap (root, resolve_ref (root, json_node_get_string (member)), instance, depth + 1);
      return;
    }

  if (JSON_NODE_HOLDS_OBJECT (instance))
    {
      JsonNode *all_of = json_object_get_member (object, "allOf");

      unmap_object (root, object, json_node_get_object (instance), depth);
      if (all_of != NULL && JSON_NODE_HOLDS_ARRAY (all_of))
        {
          JsonArray *branches = json_node_get_array (all_of);
          for (guint i = 0; i < json_array_get_length (branches); i++)
            unmap (root, json_array_get_element (branches, i), instance, depth + 1);
        }
    }
  else if (JSON_NODE_HOLDS_ARRAY (instance))
    {
      JsonNode *items = json_object_get_member (object, "items");
      JsonArray *elements = json_node_get_array (instance);

      if (items != NULL)
        for (guint i = 0; i < json_array_get_length (elements); i++)
          unmap (root, items, json_array_get_element (elements, i), depth + 1);
    }

  for (int k = 0; k < 2; k++)
    {
      JsonNode *any = json_object_get_member (object, k == 0 ? "anyOf" : "oneOf");
      JsonNode *best = NULL;
      guint best_score = 0;

      if (any == NULL || !JSON_NODE_HOLDS_ARRAY (any))
        continue;
      /* The branch the answer took: of the fitting ones, the object branch
       * naming most of the answer's members. */
      for (guint i = 0; i < json_array_get_length (json_node_get_array (any)); i++)
        {
          JsonNode *branch = json_array_get_element (json_node_get_array (any), i);
          JsonNode *resolved = branch;
          guint score = 1;

          if (JSON_NODE_HOLDS_OBJECT (branch) &&
              json_object_has_member (json_node_get_object (branch), "$ref"))
            resolved = resolve_ref (root, gg_openai_get_string (
                                            json_node_get_object (branch), "$ref"));
          if (resolved == NULL || !branch_fits (resolved, instance))
            continue;
          if (JSON_NODE_HOLDS_OBJECT (instance))
            {
              JsonObject *props = gg_openai_get_object (json_node_get_object (resolved),
                                                                 "properties");
              g_autoptr(GList) names = json_object_get_members (json_node_get_object (instance));
              for (GList *l = names; l != NULL && props != NULL; l = l->next)
                if (json_object_has_member (props, l->data))
                  score++;
            }
          if (score > best_score)
            {
              best = resolved;
              best_score = score;
            }
        }
      if (best != NULL)
        unmap (root, best, instance, depth + 1);
    }
}

/**
 * gg_openai_strict_schema_unmap:
 * @schema: the generation schema the caller gave (not the strict one)
 * @answer: the parsed answer of a strict schema step; modified in place
 * @wrapped: what gg_openai_strict_schema() reported
 *
 * Drops the nulls strict mode forced into optional properties and unwraps
 * a wrapped root.
 *
 * Returns: (transfer full) (nullable): the answer in @schema's shape, or
 *   %NULL when a wrapped answer lacks its `value`
 */
JsonNode *
gg_openai_strict_schema_unmap (JsonNode *schema,
                               JsonNode *answer,
                               gboolean  wrapped)
{
  JsonNode *value = answer;

  if (wrapped)
    {
      if (!JSON_NODE_HOLDS_OBJECT (answer))
        return NULL;
      value = json_object_get_member (json_node_get_object (answer), "value");
      if (value == NULL)
        return NULL;
    }
  value = json_node_ref (value);
  unmap (schema, schema, value, 0);
  return value;
}
