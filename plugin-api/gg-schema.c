/* gg-schema.c: GgSchema, compiling (checking) a JSON Schema and its errors.
 * Validation is in gg-schema-validate.c, formats in gg-schema-format.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-json-private.h"
#include "gg-schema-private.h"

typedef struct {
  char *path;
  char *schema_path;
} GgSchemaErrorPrivate;

static void
gg_schema_error_private_init (GgSchemaErrorPrivate *priv)
{
  priv->path = NULL;
  priv->schema_path = NULL;
}

static void
gg_schema_error_private_copy (const GgSchemaErrorPrivate *src,
                              GgSchemaErrorPrivate       *dest)
{
  dest->path = g_strdup (src->path);
  dest->schema_path = g_strdup (src->schema_path);
}

static void
gg_schema_error_private_clear (GgSchemaErrorPrivate *priv)
{
  g_clear_pointer (&priv->path, g_free);
  g_clear_pointer (&priv->schema_path, g_free);
}

/**
 * gg_schema_error_quark:
 *
 * The error domain of JSON Schema errors, %GG_SCHEMA_ERROR.
 *
 * Returns: the #GQuark of the domain
 *
 * Since: 1.0
 */
G_DEFINE_EXTENDED_ERROR (GgSchemaError, gg_schema_error)

G_DEFINE_FINAL_TYPE (GgSchema, gg_schema, G_TYPE_OBJECT)

void
_gg_schema_set_error (GError    **error,
                      gint        code,
                      const char *path,
                      const char *schema_path,
                      const char *message)
{
  GError *e;
  GgSchemaErrorPrivate *priv;

  if (error == NULL)
    return;
  e = g_error_new_literal (GG_SCHEMA_ERROR, code, message);
  priv = gg_schema_error_get_private (e);
  if (priv != NULL)
    {
      priv->path = g_strdup (path);
      priv->schema_path = g_strdup (schema_path);
    }
  g_propagate_error (error, e);
}

/**
 * gg_schema_error_get_path:
 * @error: a #GG_SCHEMA_ERROR
 *
 * Gets where in the instance validation failed.
 *
 * Returns: (transfer none) (nullable): the JSON pointer into the instance where
 *   validation failed ("#" for the root, "#/party/0/name"), or %NULL for
 *   errors about the schema itself and for other domains
 *
 * Since: 1.0
 */
const char *
gg_schema_error_get_path (const GError *error)
{
  GgSchemaErrorPrivate *priv;

  if (error == NULL || error->domain != GG_SCHEMA_ERROR)
    return NULL;
  priv = gg_schema_error_get_private (error);
  return priv != NULL ? priv->path : NULL;
}

/**
 * gg_schema_error_get_schema_path:
 * @error: a #GG_SCHEMA_ERROR
 *
 * Gets the schema keyword validation failed at.
 *
 * Returns: (transfer none) (nullable): the JSON pointer to the schema keyword at fault
 *   ("#/properties/name/minLength"; through a $ref it points into the
 *   referenced schema), or %NULL for other domains
 *
 * Since: 1.0
 */
const char *
gg_schema_error_get_schema_path (const GError *error)
{
  GgSchemaErrorPrivate *priv;

  if (error == NULL || error->domain != GG_SCHEMA_ERROR)
    return NULL;
  priv = gg_schema_error_get_private (error);
  return priv != NULL ? priv->schema_path : NULL;
}

void
_gg_schema_pointer_append (GString    *pointer,
                           const char *token)
{
  g_string_append_c (pointer, '/');
  for (const char *p = token; *p != '\0'; p++)
    {
      if (*p == '~')
        g_string_append_len (pointer, "~0", 2);
      else if (*p == '/')
        g_string_append_len (pointer, "~1", 2);
      else
        g_string_append_c (pointer, *p);
    }
}

static void
gg_schema_ref_free (gpointer data)
{
  GgSchemaRef *ref = data;

  g_free (ref->pointer);
  g_free (ref);
}

static void
gg_schema_finalize (GObject *object)
{
  GgSchema *self = GG_SCHEMA (object);

  g_clear_pointer (&self->regexes, g_hash_table_unref);
  g_clear_pointer (&self->refs, g_hash_table_unref);
  g_clear_pointer (&self->root, json_node_unref);

  G_OBJECT_CLASS (gg_schema_parent_class)->finalize (object);
}

static void
gg_schema_class_init (GgSchemaClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_schema_finalize;
}

static void
gg_schema_init (GgSchema *self)
{
  self->regexes = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) g_regex_unref);
  self->refs = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, gg_schema_ref_free);
}

/* Compiling */

typedef struct {
  GgSchema   *self;
  GHashTable *visited;  /* JsonObject * already checked */
  GPtrArray  *pending;  /* GgSchemaRef * whose targets still need checking */
} Compiler;

static gboolean compile_node (Compiler   *c,
                              JsonNode   *node,
                              GString    *spath,
                              guint       depth,
                              GError    **error);

G_GNUC_PRINTF (3, 4)
static gboolean
schema_error (GError    **error,
              GString    *spath,
              const char *format,
              ...)
{
  g_autofree char *what = NULL;
  g_autofree char *message = NULL;
  g_autofree char *where = g_strconcat ("#", spath->str, NULL);
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  message = g_strdup_printf ("invalid schema at %s: %s", where, what);
  _gg_schema_set_error (error, GG_SCHEMA_ERROR_INVALID_SCHEMA, NULL, where, message);
  return FALSE;
}

static gboolean
is_schema (JsonNode *node)
{
  return JSON_NODE_HOLDS_OBJECT (node) ||
         (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN);
}

static gboolean
is_string (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
}

static gboolean
is_type_name (const char *name)
{
  static const char *const names[] = {
    "null", "boolean", "object", "array", "number", "string", "integer",
  };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (name, names[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Compiles @node found at @spath + "/" + @token (+ "/" + @token2). */
static gboolean
compile_child (Compiler   *c,
               JsonNode   *node,
               GString    *spath,
               const char *token,
               const char *token2,
               guint       depth,
               GError    **error)
{
  gsize len = spath->len;
  gboolean ok;

  _gg_schema_pointer_append (spath, token);
  if (token2 != NULL)
    _gg_schema_pointer_append (spath, token2);
  ok = compile_node (c, node, spath, depth + 1, error);
  g_string_truncate (spath, len);
  return ok;
}

static gboolean
compile_schema_map (Compiler   *c,
                    JsonNode   *value,
                    GString    *spath,
                    const char *keyword,
                    gboolean    patterns,
                    guint       depth,
                    GError    **error);

static gboolean
compile_regex (Compiler   *c,
               const char *pattern,
               GString    *spath,
               const char *keyword,
               GError    **error)
{
  g_autoptr(GError) local_error = NULL;
  GRegex *regex;

  if (g_hash_table_contains (c->self->regexes, pattern))
    return TRUE;
  /* ECMA-262 '$' matches only at the very end. */
  regex = g_regex_new (pattern, G_REGEX_DOLLAR_ENDONLY, 0, &local_error);
  if (regex == NULL)
    {
      gsize len = spath->len;
      _gg_schema_pointer_append (spath, keyword);
      schema_error (error, spath, "invalid regular expression: %s", local_error->message);
      g_string_truncate (spath, len);
      return FALSE;
    }
  g_hash_table_insert (c->self->regexes, (gpointer) pattern, regex);
  return TRUE;
}

static gboolean
compile_schema_map (Compiler   *c,
                    JsonNode   *value,
                    GString    *spath,
                    const char *keyword,
                    gboolean    patterns,
                    guint       depth,
                    GError    **error)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  json_object_iter_init_ordered (&iter, json_node_get_object (value));
  while (json_object_iter_next_ordered (&iter, &name, &member))
    {
      if (patterns)
        {
          gsize len = spath->len;
          gboolean ok;

          _gg_schema_pointer_append (spath, keyword);
          ok = compile_regex (c, name, spath, name, error);
          g_string_truncate (spath, len);
          if (!ok)
            return FALSE;
        }
      if (!compile_child (c, member, spath, keyword, name, depth, error))
        return FALSE;
    }
  return TRUE;
}

/* Resolves a local reference: "#", or "#" followed by a JSON pointer
 * (RFC 6901, with URI %-escapes). */
static GgSchemaRef *
resolve_ref (GgSchema   *self,
             const char *ref,
             const char **why)
{
  g_autofree char *decoded = NULL;
  g_auto(GStrv) tokens = NULL;
  g_autoptr(GString) pointer = g_string_new ("#");
  JsonNode *node = self->root;
  GgSchemaRef *result;

  if (ref[0] != '#')
    {
      *why = "only local references (\"#...\") are supported";
      return NULL;
    }
  decoded = g_uri_unescape_string (ref + 1, NULL);
  if (decoded == NULL)
    {
      *why = "bad %-escape";
      return NULL;
    }
  if (decoded[0] != '\0' && decoded[0] != '/')
    {
      *why = "not a JSON pointer (anchors are not supported)";
      return NULL;
    }

  if (decoded[0] == '/')
    tokens = g_strsplit (decoded + 1, "/", -1);
  for (guint i = 0; tokens != NULL && tokens[i] != NULL; i++)
    {
      GString *token = g_string_new (NULL);
      g_autofree char *tok = NULL;

      for (const char *p = tokens[i]; *p != '\0'; p++)
        {
          if (*p != '~')
            g_string_append_c (token, *p);
          else if (p[1] == '0' || p[1] == '1')
            g_string_append_c (token, *++p == '0' ? '~' : '/');
          else
            {
              g_string_free (token, TRUE);
              *why = "bad '~' escape in JSON pointer";
              return NULL;
            }
        }
      tok = g_string_free (token, FALSE);

      if (JSON_NODE_HOLDS_OBJECT (node))
        node = json_object_get_member (json_node_get_object (node), tok);
      else if (JSON_NODE_HOLDS_ARRAY (node))
        {
          JsonArray *array = json_node_get_array (node);
          guint64 index;

          if (!g_ascii_string_to_unsigned (tok, 10, 0, G_MAXUINT, &index, NULL) ||
              (tok[0] == '0' && tok[1] != '\0') || index >= json_array_get_length (array))
            node = NULL;
          else
            node = json_array_get_element (array, (guint) index);
        }
      else
        node = NULL;
      if (node == NULL)
        {
          *why = "it points to nothing";
          return NULL;
        }
      _gg_schema_pointer_append (pointer, tok);
    }

  if (!is_schema (node))
    {
      *why = "it does not point to a schema";
      return NULL;
    }
  result = g_new0 (GgSchemaRef, 1);
  result->target = node;
  result->pointer = g_string_free (g_steal_pointer (&pointer), FALSE);
  return result;
}

static gboolean
is_count (JsonNode *node)
{
  if (!_gg_json_node_is_integral (node))
    return FALSE;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return json_node_get_int (node) >= 0;
  return json_node_get_double (node) >= 0;
}

static gboolean
compile_keyword (Compiler   *c,
                 const char *kw,
                 JsonNode   *value,
                 GString    *spath,
                 guint       depth,
                 GError    **error)
{
  gsize len = spath->len;
  const char *what = NULL;

#define IS(k) (strcmp (kw, (k)) == 0)

  if (IS ("type"))
    {
      if (is_string (value))
        {
          if (!is_type_name (json_node_get_string (value)))
            what = "unknown type";
        }
      else if (JSON_NODE_HOLDS_ARRAY (value))
        {
          JsonArray *types = json_node_get_array (value);
          if (json_array_get_length (types) == 0)
            what = "must not be empty";
          for (guint i = 0; i < json_array_get_length (types) && what == NULL; i++)
            {
              JsonNode *t = json_array_get_element (types, i);
              if (!is_string (t) || !is_type_name (json_node_get_string (t)))
                what = "unknown type";
            }
        }
      else
        what = "must be a string or an array of strings";
    }
  else if (IS ("properties") || IS ("patternProperties") || IS ("$defs") ||
           IS ("definitions") || IS ("dependentSchemas"))
    {
      if (!JSON_NODE_HOLDS_OBJECT (value))
        what = "must be an object";
      else
        return compile_schema_map (c, value, spath, kw, IS ("patternProperties"), depth, error);
    }
  else if (IS ("additionalProperties") || IS ("additionalItems") || IS ("not") ||
           IS ("contains") || IS ("propertyNames") || IS ("if") || IS ("then") ||
           IS ("else"))
    {
      return compile_child (c, value, spath, kw, NULL, depth, error);
    }
  else if (IS ("items") && !JSON_NODE_HOLDS_ARRAY (value))
    {
      return compile_child (c, value, spath, kw, NULL, depth, error);
    }
  else if (IS ("items") || IS ("prefixItems") || IS ("allOf") || IS ("anyOf") || IS ("oneOf"))
    {
      JsonArray *array;

      if (!JSON_NODE_HOLDS_ARRAY (value))
        what = "must be an array of schemas";
      else
        {
          array = json_node_get_array (value);
          if (json_array_get_length (array) == 0 && !IS ("items"))
            what = "must not be empty";
          for (guint i = 0; what == NULL && i < json_array_get_length (array); i++)
            {
              char index[16];
              g_snprintf (index, sizeof index, "%u", i);
              if (!compile_child (c, json_array_get_element (array, i), spath, kw, index,
                                  depth, error))
                return FALSE;
            }
        }
    }
  else if (IS ("required"))
    {
      if (!JSON_NODE_HOLDS_ARRAY (value))
        what = "must be an array of strings";
      else
        {
          JsonArray *array = json_node_get_array (value);
          for (guint i = 0; i < json_array_get_length (array); i++)
            if (!is_string (json_array_get_element (array, i)))
              what = "must be an array of strings";
        }
    }
  else if (IS ("dependencies") || IS ("dependentRequired"))
    {
      if (!JSON_NODE_HOLDS_OBJECT (value))
        what = "must be an object";
      else
        {
          JsonObjectIter iter;
          const char *name;
          JsonNode *member;

          json_object_iter_init_ordered (&iter, json_node_get_object (value));
          while (what == NULL && json_object_iter_next_ordered (&iter, &name, &member))
            {
              if (JSON_NODE_HOLDS_ARRAY (member))
                {
                  JsonArray *array = json_node_get_array (member);
                  for (guint i = 0; i < json_array_get_length (array); i++)
                    if (!is_string (json_array_get_element (array, i)))
                      what = "must map names to arrays of strings";
                }
              else if (IS ("dependencies"))
                {
                  if (!compile_child (c, member, spath, kw, name, depth, error))
                    return FALSE;
                }
              else
                what = "must map names to arrays of strings";
            }
        }
    }
  else if (IS ("enum"))
    {
      if (!JSON_NODE_HOLDS_ARRAY (value))
        what = "must be an array";
    }
  else if (IS ("pattern"))
    {
      if (!is_string (value))
        what = "must be a string";
      else
        return compile_regex (c, json_node_get_string (value), spath, kw, error);
    }
  else if (IS ("format"))
    {
      if (!is_string (value))
        what = "must be a string";
    }
  else if (IS ("minimum") || IS ("maximum") || IS ("exclusiveMinimum") ||
           IS ("exclusiveMaximum"))
    {
      if (!_gg_json_node_is_number (value))
        what = "must be a number";
    }
  else if (IS ("multipleOf"))
    {
      if (!_gg_json_node_is_number (value) ||
          (json_node_get_value_type (value) == G_TYPE_INT64 ? json_node_get_int (value) <= 0
                                                            : !(json_node_get_double (value) > 0)))
        what = "must be a number greater than 0";
    }
  else if (IS ("minLength") || IS ("maxLength") || IS ("minItems") || IS ("maxItems") ||
           IS ("minProperties") || IS ("maxProperties"))
    {
      if (!is_count (value))
        what = "must be a non-negative integer";
    }
  else if (IS ("uniqueItems"))
    {
      if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_BOOLEAN)
        what = "must be a boolean";
    }
  else if (IS ("$ref"))
    {
      const char *ref, *why = NULL;
      GgSchemaRef *resolved;

      if (!is_string (value))
        what = "must be a string";
      else if (!g_hash_table_contains (c->self->refs, (ref = json_node_get_string (value))))
        {
          resolved = resolve_ref (c->self, ref, &why);
          if (resolved == NULL)
            {
              _gg_schema_pointer_append (spath, kw);
              schema_error (error, spath, "cannot resolve \"%s\": %s", ref, why);
              g_string_truncate (spath, len);
              return FALSE;
            }
          g_hash_table_insert (c->self->refs, (gpointer) ref, resolved);
          g_ptr_array_add (c->pending, resolved);
        }
    }
#undef IS

  if (what != NULL)
    {
      _gg_schema_pointer_append (spath, kw);
      schema_error (error, spath, "%s: %s", kw, what);
      g_string_truncate (spath, len);
      return FALSE;
    }
  return TRUE;
}

static gboolean
compile_node (Compiler *c,
              JsonNode *node,
              GString  *spath,
              guint     depth,
              GError  **error)
{
  JsonObject *object;
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  if (!is_schema (node))
    return schema_error (error, spath, "a schema must be an object or a boolean");
  if (depth > GG_SCHEMA_MAX_DEPTH)
    return schema_error (error, spath, "schema nested too deeply");
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return TRUE;

  object = json_node_get_object (node);
  if (!g_hash_table_add (c->visited, object))
    return TRUE;

  json_object_iter_init_ordered (&iter, object);
  while (json_object_iter_next_ordered (&iter, &name, &value))
    if (!compile_keyword (c, name, value, spath, depth, error))
      return FALSE;
  return TRUE;
}

/**
 * gg_schema_new:
 * @schema: a JSON Schema (an object or a boolean)
 * @error: return location for a %GG_SCHEMA_ERROR_INVALID_SCHEMA
 *
 * Compiles @schema: checks every keyword the validator understands
 * (types, regular expressions, counts, subschemas), resolves every local
 * `$ref` and compiles the patterns. Understood: type, enum, const,
 * properties, required, additionalProperties, patternProperties,
 * propertyNames, min/maxProperties, dependencies, dependentRequired,
 * dependentSchemas, items (schema and draft-7 array form),
 * prefixItems, additionalItems, contains, min/maxItems, uniqueItems,
 * minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf,
 * minLength, maxLength (in code points), pattern (GRegex, unanchored,
 * '$' only at the end), format (date-time, date, time, uuid asserted;
 * others ignored), allOf, anyOf, oneOf, not, if/then/else, $defs,
 * definitions and local `$ref` ("#", "#/$defs/x", JSON pointers with ~0,
 * ~1 and %-escapes). Other keywords ($id, $anchor, $dynamicRef,
 * unevaluated*, ...) are ignored; a `$ref` that is not local is refused. A
 * `$schema` naming draft-04 to draft-07 selects draft-7 `$ref` semantics
 * (siblings of `$ref` are ignored); otherwise 2020-12 semantics apply.
 * The schema is copied; later changes to @schema have no effect.
 *
 * Returns: (transfer full): the compiled schema, or %NULL with an error
 *   whose gg_schema_error_get_schema_path() names the bad keyword
 *
 * Since: 1.0
 */
GgSchema *
gg_schema_new (JsonNode *schema,
               GError  **error)
{
  g_autoptr(GgSchema) self = NULL;
  g_autoptr(GHashTable) visited = NULL;
  g_autoptr(GPtrArray) pending = NULL;
  g_autoptr(GString) spath = g_string_new (NULL);
  Compiler c;

  g_return_val_if_fail (schema != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = g_object_new (GG_TYPE_SCHEMA, NULL);
  self->root = gg_json_copy (schema);
  json_node_seal (self->root);

  if (JSON_NODE_HOLDS_OBJECT (self->root))
    {
      JsonNode *member = json_object_get_member (json_node_get_object (self->root), "$schema");
      const char *dialect = member != NULL && is_string (member) ? json_node_get_string (member) : "";

      self->draft7 = strstr (dialect, "draft-07") != NULL || strstr (dialect, "draft-06") != NULL ||
                     strstr (dialect, "draft-04") != NULL;
    }

  visited = g_hash_table_new (NULL, NULL);
  pending = g_ptr_array_new ();
  c.self = self;
  c.visited = visited;
  c.pending = pending;

  if (!compile_node (&c, self->root, spath, 0, error))
    return NULL;

  /* Targets reached only through $ref (e.g. under an unknown keyword). */
  for (guint i = 0; i < pending->len; i++)
    {
      GgSchemaRef *ref = g_ptr_array_index (pending, i);

      g_string_assign (spath, ref->pointer + 1);
      if (!compile_node (&c, ref->target, spath, 0, error))
        return NULL;
    }
  return g_steal_pointer (&self);
}

/**
 * gg_schema_get_root:
 * @self: a #GgSchema
 *
 * Gets the schema document.
 *
 * Returns: (transfer none): the schema document, sealed (immutable)
 *
 * Since: 1.0
 */
JsonNode *
gg_schema_get_root (GgSchema *self)
{
  g_return_val_if_fail (GG_IS_SCHEMA (self), NULL);

  return self->root;
}
