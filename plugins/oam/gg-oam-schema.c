/* gg-oam-schema.c: turns a client's JSON Schema into the generation schema
 * a model can follow (spec section 9, "JSON Schema support"): local $refs
 * resolved, allOf of objects merged, properties kept in document order.
 * Constraints a model cannot enforce are moved into the description it sees
 * and reported as warnings; a schema that cannot be used at all fails with
 * -32007 naming where.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-oam-errors.h"
#include "gg-oam-params.h"
#include "gg-oam-schema.h"

/* $ref expansion depth: deep enough for real schemas, bounded for cycles. */
#define MAX_DEPTH 32

typedef struct {
  JsonObject *root;
  const char *warning_prefix;
  GPtrArray *warnings;
} Converter;

static const char * const unenforced_keywords[] = {
  "pattern", "format", "minLength", "maxLength", "multipleOf",
  "exclusiveMinimum", "exclusiveMaximum", "uniqueItems", "minProperties",
  "maxProperties", "patternProperties", "propertyNames", "contains",
  "minContains", "maxContains", "dependentRequired", "dependentSchemas",
  "not", "if", "then", "else", NULL
};

static const char * const known_types[] = {
  "object", "array", "string", "integer", "number", "boolean", "null", NULL
};

static GError *
invalid (const char *path,
         const char *keyword,
         const char *format,
         ...) G_GNUC_PRINTF (3, 4);

static GError *
invalid (const char *path,
         const char *keyword,
         const char *format,
         ...)
{
  g_autoptr(JsonObject) data = json_object_new ();
  g_autofree char *detail = NULL;
  g_autofree char *schema_path = keyword != NULL ? g_strdup_printf ("%s/%s", path, keyword)
                                                 : g_strdup (path);
  va_list args;

  va_start (args, format);
  detail = g_strdup_vprintf (format, args);
  va_end (args);
  json_object_set_string_member (data, "path", path);
  json_object_set_string_member (data, "schemaPath", schema_path);
  return gg_oam_error_new (GG_OAM_INVALID_SCHEMA, data, "Invalid schema at %s: %s",
                           schema_path, detail);
}

static void
warn (Converter  *conv,
      const char *path,
      const char *format,
      ...) G_GNUC_PRINTF (3, 4);

static void
warn (Converter  *conv,
      const char *path,
      const char *format,
      ...)
{
  g_autofree char *detail = NULL;
  va_list args;

  if (conv->warnings == NULL)
    return;
  va_start (args, format);
  detail = g_strdup_vprintf (format, args);
  va_end (args);
  if (conv->warning_prefix != NULL)
    g_ptr_array_add (conv->warnings, g_strdup_printf ("%s: %s: %s", conv->warning_prefix,
                                                      path, detail));
  else
    g_ptr_array_add (conv->warnings, g_strdup_printf ("%s: %s", path, detail));
}

static char *
escape_pointer (const char *name)
{
  g_autoptr(GString) out = g_string_new (NULL);

  for (const char *p = name; *p != '\0'; p++)
    {
      if (*p == '~')
        g_string_append (out, "~0");
      else if (*p == '/')
        g_string_append (out, "~1");
      else
        g_string_append_c (out, *p);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Resolves "#/$defs/x" or "#/definitions/x" (any local JSON pointer). */
static JsonNode *
resolve_ref (Converter  *conv,
             const char *ref,
             const char *path,
             GError    **error)
{
  g_auto(GStrv) parts = NULL;
  JsonNode *node;

  if (!g_str_has_prefix (ref, "#"))
    {
      g_propagate_error (error, invalid (path, "$ref", "only local references (#/…) are supported"));
      return NULL;
    }
  if (ref[1] == '\0')
    return NULL; /* the root; handled by the caller */
  if (ref[1] != '/')
    {
      g_propagate_error (error, invalid (path, "$ref", "malformed reference '%s'", ref));
      return NULL;
    }
  parts = g_strsplit (ref + 2, "/", -1);
  node = NULL;
  for (guint i = 0; parts[i] != NULL; i++)
    {
      JsonObject *object = node == NULL ? conv->root :
                           JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      g_autoptr(GString) key = g_string_new (NULL);

      for (const char *p = parts[i]; *p != '\0'; p++)
        {
          if (p[0] == '~' && p[1] == '0')
            g_string_append_c (key, '~'), p++;
          else if (p[0] == '~' && p[1] == '1')
            g_string_append_c (key, '/'), p++;
          else
            g_string_append_c (key, *p);
        }
      if (object == NULL || !json_object_has_member (object, key->str))
        {
          g_propagate_error (error, invalid (path, "$ref", "unresolved reference '%s'", ref));
          return NULL;
        }
      node = json_object_get_member (object, key->str);
    }
  return node;
}

static JsonNode *convert_node (Converter  *conv,
                               JsonNode   *node,
                               const char *path,
                               guint       depth,
                               GError    **error);

static void
append_description (JsonObject *out,
                    const char *text)
{
  const char *old = json_object_has_member (out, "description") &&
                    json_node_get_value_type (json_object_get_member (out, "description")) == G_TYPE_STRING ?
                    json_object_get_string_member (out, "description") : NULL;
  g_autofree char *joined = old != NULL && *old != '\0' ? g_strdup_printf ("%s (%s)", old, text)
                                                        : g_strdup (text);

  json_object_set_string_member (out, "description", joined);
}

static gboolean
check_type (JsonNode   *type,
            const char *path,
            GError    **error)
{
  if (json_node_get_value_type (type) == G_TYPE_STRING)
    {
      if (!g_strv_contains (known_types, json_node_get_string (type)))
        {
          g_propagate_error (error, invalid (path, "type", "unknown type '%s'",
                                             json_node_get_string (type)));
          return FALSE;
        }
      return TRUE;
    }
  if (JSON_NODE_HOLDS_ARRAY (type) && json_array_get_length (json_node_get_array (type)) > 0)
    {
      JsonArray *types = json_node_get_array (type);

      for (guint i = 0; i < json_array_get_length (types); i++)
        {
          JsonNode *item = json_array_get_element (types, i);

          if (json_node_get_value_type (item) != G_TYPE_STRING ||
              !g_strv_contains (known_types, json_node_get_string (item)))
            {
              g_propagate_error (error, invalid (path, "type", "'type' must name known types"));
              return FALSE;
            }
        }
      return TRUE;
    }
  g_propagate_error (error, invalid (path, "type", "'type' must be a string or a non-empty array"));
  return FALSE;
}

/* allOf of objects: properties and required lists merged into @out. */
static gboolean
merge_all_of (Converter  *conv,
              JsonObject *out,
              JsonArray  *all_of,
              const char *path,
              guint       depth,
              GError    **error)
{
  JsonObject *properties = json_object_has_member (out, "properties") ?
                           json_object_get_object_member (out, "properties") : NULL;
  JsonArray *required = json_object_has_member (out, "required") ?
                        json_object_get_array_member (out, "required") : NULL;

  for (guint i = 0; i < json_array_get_length (all_of); i++)
    {
      g_autofree char *sub_path = g_strdup_printf ("%s/allOf/%u", path, i);
      g_autoptr(JsonNode) sub = convert_node (conv, json_array_get_element (all_of, i), sub_path,
                                              depth + 1, error);
      JsonObject *sub_object;

      if (sub == NULL)
        return FALSE;
      sub_object = json_node_get_object (sub);
      if (g_strcmp0 (gg_oam_object_string (sub_object, "type", "object"),
                     "object") != 0)
        {
          g_propagate_error (error, invalid (sub_path, NULL, "allOf supports objects only"));
          return FALSE;
        }
      if (json_object_has_member (sub_object, "properties"))
        {
          JsonObjectIter iter;
          const char *name;
          JsonNode *value;

          if (properties == NULL)
            {
              properties = json_object_new ();
              json_object_set_object_member (out, "properties", properties);
            }
          json_object_iter_init_ordered (&iter, json_object_get_object_member (sub_object, "properties"));
          while (json_object_iter_next_ordered (&iter, &name, &value))
            json_object_set_member (properties, name, json_node_copy (value));
        }
      if (json_object_has_member (sub_object, "required"))
        {
          JsonArray *sub_required = json_object_get_array_member (sub_object, "required");

          if (required == NULL)
            {
              required = json_array_new ();
              json_object_set_array_member (out, "required", required);
            }
          for (guint j = 0; j < json_array_get_length (sub_required); j++)
            json_array_add_string_element (required, json_array_get_string_element (sub_required, j));
        }
    }
  if (!json_object_has_member (out, "type"))
    json_object_set_string_member (out, "type", "object");
  return TRUE;
}

static gboolean
convert_properties (Converter  *conv,
                    JsonObject *out,
                    JsonNode   *properties,
                    const char *path,
                    guint       depth,
                    GError    **error)
{
  JsonObject *converted = json_object_new ();
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  json_object_set_object_member (out, "properties", converted);
  if (!JSON_NODE_HOLDS_OBJECT (properties))
    {
      g_propagate_error (error, invalid (path, "properties", "'properties' must be an object"));
      return FALSE;
    }
  json_object_iter_init_ordered (&iter, json_node_get_object (properties));
  while (json_object_iter_next_ordered (&iter, &name, &value))
    {
      g_autofree char *escaped = escape_pointer (name);
      g_autofree char *sub_path = g_strdup_printf ("%s/properties/%s", path, escaped);
      JsonNode *sub = convert_node (conv, value, sub_path, depth + 1, error);

      if (sub == NULL)
        return FALSE;
      json_object_set_member (converted, name, sub);
    }
  return TRUE;
}

static gboolean
convert_subschemas (Converter  *conv,
                    JsonObject *out,
                    const char *keyword,
                    const char *out_keyword,
                    JsonNode   *list,
                    const char *path,
                    guint       depth,
                    GError    **error)
{
  JsonArray *converted = json_array_new ();

  json_object_set_array_member (out, out_keyword, converted);
  if (!JSON_NODE_HOLDS_ARRAY (list) || json_array_get_length (json_node_get_array (list)) == 0)
    {
      g_propagate_error (error, invalid (path, keyword, "'%s' must be a non-empty array", keyword));
      return FALSE;
    }
  for (guint i = 0; i < json_array_get_length (json_node_get_array (list)); i++)
    {
      g_autofree char *sub_path = g_strdup_printf ("%s/%s/%u", path, keyword, i);
      JsonNode *sub = convert_node (conv, json_array_get_element (json_node_get_array (list), i),
                                    sub_path, depth + 1, error);

      if (sub == NULL)
        return FALSE;
      json_array_add_element (converted, sub);
    }
  return TRUE;
}

static gboolean
is_number (JsonNode *node)
{
  GType type = json_node_get_value_type (node);

  return JSON_NODE_HOLDS_VALUE (node) && (type == G_TYPE_INT64 || type == G_TYPE_DOUBLE);
}

static gboolean
is_count (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64 &&
         json_node_get_int (node) >= 0;
}

static JsonNode *
convert_node (Converter  *conv,
              JsonNode   *node,
              const char *path,
              guint       depth,
              GError    **error)
{
  g_autoptr(JsonObject) out = json_object_new ();
  JsonObject *in;
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;
  JsonNode *result;

  if (depth > MAX_DEPTH)
    {
      g_propagate_error (error, invalid (path, NULL, "nested too deeply (recursive $ref?)"));
      return NULL;
    }
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN &&
      json_node_get_boolean (node))
    {
      /* `true` accepts anything; the closest a model can do is a string. */
      warn (conv, path, "schema 'true' is generated as a string");
      json_object_set_string_member (out, "type", "string");
      goto done;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_propagate_error (error, invalid (path, NULL, "a schema must be an object"));
      return NULL;
    }
  in = json_node_get_object (node);

  if (json_object_has_member (in, "$ref"))
    {
      JsonNode *ref = json_object_get_member (in, "$ref");
      JsonNode *target;
      g_autoptr(GError) local_error = NULL;

      if (json_node_get_value_type (ref) != G_TYPE_STRING)
        {
          g_propagate_error (error, invalid (path, "$ref", "'$ref' must be a string"));
          return NULL;
        }
      target = resolve_ref (conv, json_node_get_string (ref), path, &local_error);
      if (local_error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
      if (target == NULL)
        {
          g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);

          json_node_set_object (root, conv->root);
          result = convert_node (conv, root, path, depth + 1, error);
        }
      else
        result = convert_node (conv, target, path, depth + 1, error);
      if (result != NULL && json_object_has_member (in, "description") &&
          json_node_get_value_type (json_object_get_member (in, "description")) == G_TYPE_STRING)
        json_object_set_string_member (json_node_get_object (result), "description",
                                       json_object_get_string_member (in, "description"));
      return result;
    }

  json_object_iter_init_ordered (&iter, in);
  while (json_object_iter_next_ordered (&iter, &name, &value))
    {
      if (g_str_equal (name, "type"))
        {
          if (!check_type (value, path, error))
            return NULL;
          json_object_set_member (out, name, json_node_copy (value));
        }
      else if (g_str_equal (name, "description") || g_str_equal (name, "title"))
        {
          if (json_node_get_value_type (value) != G_TYPE_STRING)
            {
              g_propagate_error (error, invalid (path, name, "'%s' must be a string", name));
              return NULL;
            }
          if (g_str_equal (name, "description"))
            append_description (out, json_node_get_string (value));
          else
            json_object_set_member (out, name, json_node_copy (value));
        }
      else if (g_str_equal (name, "properties"))
        {
          if (!convert_properties (conv, out, value, path, depth, error))
            return NULL;
        }
      else if (g_str_equal (name, "required"))
        {
          if (!JSON_NODE_HOLDS_ARRAY (value))
            {
              g_propagate_error (error, invalid (path, name, "'required' must be an array of strings"));
              return NULL;
            }
          for (guint i = 0; i < json_array_get_length (json_node_get_array (value)); i++)
            if (json_node_get_value_type (json_array_get_element (json_node_get_array (value), i)) != G_TYPE_STRING)
              {
                g_propagate_error (error, invalid (path, name, "'required' must be an array of strings"));
                return NULL;
              }
          json_object_set_member (out, name, json_node_copy (value));
        }
      else if (g_str_equal (name, "additionalProperties"))
        {
          if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_BOOLEAN)
            json_object_set_member (out, name, json_node_copy (value));
          else
            warn (conv, path, "additionalProperties schemas are not supported and ignored");
        }
      else if (g_str_equal (name, "items"))
        {
          g_autofree char *sub_path = g_strdup_printf ("%s/items", path);
          JsonNode *sub = convert_node (conv, value, sub_path, depth + 1, error);

          if (sub == NULL)
            return NULL;
          json_object_set_member (out, name, sub);
        }
      else if (g_str_equal (name, "enum"))
        {
          if (!JSON_NODE_HOLDS_ARRAY (value) || json_array_get_length (json_node_get_array (value)) == 0)
            {
              g_propagate_error (error, invalid (path, name, "'enum' must be a non-empty array"));
              return NULL;
            }
          json_object_set_member (out, name, json_node_copy (value));
        }
      else if (g_str_equal (name, "const"))
        json_object_set_member (out, name, json_node_copy (value));
      else if (g_str_equal (name, "minimum") || g_str_equal (name, "maximum"))
        {
          if (!is_number (value))
            {
              g_propagate_error (error, invalid (path, name, "'%s' must be a number", name));
              return NULL;
            }
          json_object_set_member (out, name, json_node_copy (value));
        }
      else if (g_str_equal (name, "minItems") || g_str_equal (name, "maxItems"))
        {
          if (!is_count (value))
            {
              g_propagate_error (error, invalid (path, name, "'%s' must be a non-negative integer", name));
              return NULL;
            }
          json_object_set_member (out, name, json_node_copy (value));
        }
      else if (g_str_equal (name, "anyOf") || g_str_equal (name, "oneOf"))
        {
          if (!convert_subschemas (conv, out, name, "anyOf", value, path, depth, error))
            return NULL;
        }
      else if (g_str_equal (name, "allOf"))
        {
          if (!JSON_NODE_HOLDS_ARRAY (value))
            {
              g_propagate_error (error, invalid (path, name, "'allOf' must be an array"));
              return NULL;
            }
        }
      else if (g_strv_contains (unenforced_keywords, name))
        {
          g_autofree char *shown = JSON_NODE_HOLDS_VALUE (value) &&
                                   json_node_get_value_type (value) == G_TYPE_STRING ?
                                   g_strdup (json_node_get_string (value)) : gg_json_to_string (value);
          g_autofree char *note = g_strdup_printf ("%s: %s", name, shown);

          append_description (out, note);
          warn (conv, path, "%s '%s' is described to the model but not enforced", name, shown);
        }
      /* $defs, definitions, $schema, $id, $comment, default, examples…:
       * annotations the generation schema does not need. */
    }

  if (json_object_has_member (in, "allOf") &&
      !merge_all_of (conv, out, json_object_get_array_member (in, "allOf"), path, depth, error))
    return NULL;

  if (!json_object_has_member (out, "type") && !json_object_has_member (out, "anyOf") &&
      !json_object_has_member (out, "enum") && !json_object_has_member (out, "const"))
    {
      /* Infer what the keywords imply; a model needs a type. */
      if (json_object_has_member (out, "properties"))
        json_object_set_string_member (out, "type", "object");
      else if (json_object_has_member (out, "items"))
        json_object_set_string_member (out, "type", "array");
      else
        {
          g_propagate_error (error, invalid (path, NULL, "the schema has no type"));
          return NULL;
        }
    }

done:
  result = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (result, out);
  return result;
}

/**
 * gg_oam_schema_convert:
 * @schema: a JSON Schema
 * @name: (nullable): a title for the generation schema ("Response")
 * @warning_prefix: (nullable): what warnings start with (a tool name)
 * @warnings: (nullable): where warnings about unenforced constraints go
 * @error: return location for a -32007 error with `data.path` and
 *   `data.schemaPath`
 *
 * Returns: (transfer full): the generation schema, or %NULL
 */
JsonNode *
gg_oam_schema_convert (JsonNode   *schema,
                       const char *name,
                       const char *warning_prefix,
                       GPtrArray  *warnings,
                       GError    **error)
{
  Converter conv = { NULL, warning_prefix, warnings };
  JsonNode *result;

  if (schema == NULL || !JSON_NODE_HOLDS_OBJECT (schema))
    {
      g_propagate_error (error, invalid ("#", NULL, "a schema must be an object"));
      return NULL;
    }
  conv.root = json_node_get_object (schema);
  result = convert_node (&conv, schema, "#", 0, error);
  if (result != NULL && name != NULL)
    json_object_set_string_member (json_node_get_object (result), "title", name);
  return result;
}
