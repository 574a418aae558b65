/* gg-schema-validate.c: validating instances against a compiled GgSchema.
 *
 * The schema was checked by gg_schema_new(), so keyword values have the
 * right JSON types here. Validation stops at the first failure; inside
 * anyOf / oneOf / not / if the failures of branches are not reported
 * ("quiet"), only the combinator's own.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "gg-json-private.h"
#include "gg-schema-private.h"

typedef struct {
  GgSchema *self;
  GString  *ipath;      /* JSON pointer into the instance, without '#' */
  GString  *spath;      /* JSON pointer into the schema, without '#' */
  guint     depth;
  guint     ref_chain;  /* $refs followed at the current instance location */
  guint     evaluations;
  guint     quiet;
  gboolean  fatal;      /* a limit was hit: stop everything */
  GError   *error;
} Validator;

static gboolean validate (Validator *v,
                          JsonNode  *schema,
                          JsonNode  *instance);

G_GNUC_PRINTF (3, 4)
static gboolean
fail (Validator  *v,
      const char *keyword,
      const char *format,
      ...)
{
  g_autofree char *what = NULL;
  g_autofree char *message = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GString) spath = NULL;
  va_list args;

  if (v->quiet > 0 || v->error != NULL)
    return FALSE;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);

  path = g_strconcat ("#", v->ipath->str, NULL);
  spath = g_string_new ("#");
  g_string_append_len (spath, v->spath->str, (gssize) v->spath->len);
  if (keyword != NULL)
    _gg_schema_pointer_append (spath, keyword);
  message = g_strdup_printf ("%s: %s", path, what);
  _gg_schema_set_error (&v->error, GG_SCHEMA_ERROR_INVALID, path, spath->str, message);
  return FALSE;
}

/* Limits: reported even when quiet, and they end the validation. */
static gboolean
fail_fatal (Validator  *v,
            const char *what)
{
  g_autofree char *path = g_strconcat ("#", v->ipath->str, NULL);
  g_autofree char *spath = g_strconcat ("#", v->spath->str, NULL);
  g_autofree char *message = g_strdup_printf ("%s: schema %s: %s", path, spath, what);

  if (!v->fatal)
    {
      g_clear_error (&v->error);
      _gg_schema_set_error (&v->error, GG_SCHEMA_ERROR_INVALID_SCHEMA, path, spath, message);
      v->fatal = TRUE;
    }
  return FALSE;
}

static const char *
instance_type (JsonNode *node)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      return "object";
    case JSON_NODE_ARRAY:
      return "array";
    case JSON_NODE_NULL:
      return "null";
    case JSON_NODE_VALUE:
    default:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_BOOLEAN:
          return "boolean";
        case G_TYPE_STRING:
          return "string";
        case G_TYPE_INT64:
        case G_TYPE_DOUBLE:
          return "number";
        default:
          return "unknown";
        }
    }
}

static gboolean
type_matches (const char *type,
              JsonNode   *instance)
{
  const char *actual = instance_type (instance);

  if (strcmp (type, actual) == 0)
    return TRUE;
  return strcmp (type, "integer") == 0 && _gg_json_node_is_integral (instance);
}

static gboolean
check_type (Validator *v,
            JsonNode  *type,
            JsonNode  *instance)
{
  g_autoptr(GString) names = NULL;

  if (JSON_NODE_HOLDS_VALUE (type))
    {
      if (type_matches (json_node_get_string (type), instance))
        return TRUE;
      return fail (v, "type", "must be %s", json_node_get_string (type));
    }

  names = g_string_new (NULL);
  {
    JsonArray *types = json_node_get_array (type);
    for (guint i = 0; i < json_array_get_length (types); i++)
      {
        const char *t = json_node_get_string (json_array_get_element (types, i));
        if (type_matches (t, instance))
          return TRUE;
        if (i > 0)
          g_string_append (names, " or ");
        g_string_append (names, t);
      }
  }
  return fail (v, "type", "must be %s", names->str);
}

/* Counts are non-negative integers, possibly written as 5.0 or 1e300. */
static guint64
get_count (JsonNode *node)
{
  double d;

  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return (guint64) json_node_get_int (node);
  d = json_node_get_double (node);
  return d >= 18446744073709551615.0 ? G_MAXUINT64 : (guint64) d;
}

static gboolean
is_multiple_of (JsonNode *instance,
                JsonNode *divisor)
{
  double x, m, q;

  if (json_node_get_value_type (instance) == G_TYPE_INT64 &&
      json_node_get_value_type (divisor) == G_TYPE_INT64)
    return json_node_get_int (instance) % json_node_get_int (divisor) == 0;

  x = json_node_get_double (instance);
  m = json_node_get_double (divisor);
  q = x / m;
  if (!isfinite (q))
    return FALSE;
  /* Tolerate the rounding of decimal fractions: 0.0075 / 0.0001. */
  return fabs (q - nearbyint (q)) <= 1e-9 * fmax (1.0, fabs (q));
}

static gboolean
check_number (Validator  *v,
              JsonObject *schema,
              JsonNode   *instance)
{
  static const struct {
    const char *keyword;
    int         bad_sign;   /* fail when compare(instance, limit) has this sign */
    gboolean    or_equal;
    const char *message;
  } limits[] = {
    { "minimum", -1, FALSE, "must be >= %s" },
    { "maximum", 1, FALSE, "must be <= %s" },
    { "exclusiveMinimum", -1, TRUE, "must be > %s" },
    { "exclusiveMaximum", 1, TRUE, "must be < %s" },
  };
  JsonNode *m;

  for (guint i = 0; i < G_N_ELEMENTS (limits); i++)
    {
      JsonNode *limit = json_object_get_member (schema, limits[i].keyword);
      int cmp;

      if (limit == NULL)
        continue;
      cmp = _gg_json_number_compare (instance, limit);
      if ((cmp < 0 ? -1 : cmp > 0 ? 1 : 0) == limits[i].bad_sign || (limits[i].or_equal && cmp == 0))
        {
          g_autofree char *text = gg_json_to_string (limit);
          return fail (v, limits[i].keyword, limits[i].message, text);
        }
    }

  m = json_object_get_member (schema, "multipleOf");
  if (m != NULL && !is_multiple_of (instance, m))
    {
      g_autofree char *text = gg_json_to_string (m);
      return fail (v, "multipleOf", "must be a multiple of %s", text);
    }
  return TRUE;
}

static gboolean
check_string (Validator  *v,
              JsonObject *schema,
              JsonNode   *instance)
{
  const char *str = json_node_get_string (instance);
  JsonNode *node;

  if (!json_object_has_member (schema, "minLength") &&
      !json_object_has_member (schema, "maxLength") &&
      !json_object_has_member (schema, "pattern") && !json_object_has_member (schema, "format"))
    return TRUE;
  /* Parsed documents are always valid UTF-8; hand-built ones might not be,
   * and neither GRegex nor code point counting may see that. */
  if (str == NULL || !g_utf8_validate (str, -1, NULL))
    return fail (v, NULL, "must be a valid UTF-8 string");

  node = json_object_get_member (schema, "minLength");
  if (node != NULL || json_object_has_member (schema, "maxLength"))
    {
      guint64 length = (guint64) g_utf8_strlen (str, -1);

      if (node != NULL && length < get_count (node))
        return fail (v, "minLength", "must be at least %" G_GUINT64_FORMAT " characters",
                     get_count (node));
      node = json_object_get_member (schema, "maxLength");
      if (node != NULL && length > get_count (node))
        return fail (v, "maxLength", "must be at most %" G_GUINT64_FORMAT " characters",
                     get_count (node));
    }

  node = json_object_get_member (schema, "pattern");
  if (node != NULL)
    {
      const char *pattern = json_node_get_string (node);
      GRegex *regex = g_hash_table_lookup (v->self->regexes, pattern);

      if (!g_regex_match (regex, str, 0, NULL))
        return fail (v, "pattern", "must match the pattern \"%s\"", pattern);
    }

  node = json_object_get_member (schema, "format");
  if (node != NULL && !_gg_schema_format_check (json_node_get_string (node), str))
    return fail (v, "format", "must be a valid %s", json_node_get_string (node));
  return TRUE;
}

/* Validates @instance, element/member @token of the current instance, with
 * @schema found at spath + "/" + @keyword (+ "/" + @keyword2). */
static gboolean
validate_child (Validator  *v,
                JsonNode   *schema,
                const char *keyword,
                const char *keyword2,
                JsonNode   *instance,
                const char *token)
{
  gsize ilen = v->ipath->len, slen = v->spath->len;
  guint ref_chain = v->ref_chain;
  gboolean ok;

  if (token != NULL)
    {
      _gg_schema_pointer_append (v->ipath, token);
      v->ref_chain = 0;
    }
  _gg_schema_pointer_append (v->spath, keyword);
  if (keyword2 != NULL)
    _gg_schema_pointer_append (v->spath, keyword2);
  ok = validate (v, schema, instance);
  g_string_truncate (v->ipath, ilen);
  g_string_truncate (v->spath, slen);
  v->ref_chain = ref_chain;
  return ok;
}

static gboolean
check_array (Validator  *v,
             JsonObject *schema,
             JsonNode   *instance)
{
  JsonArray *array = json_node_get_array (instance);
  guint n = json_array_get_length (array);
  JsonNode *node, *items, *prefix_node = NULL, *rest = NULL;
  const char *prefix_kw = NULL, *rest_kw = NULL;
  guint n_prefix = 0;

  node = json_object_get_member (schema, "minItems");
  if (node != NULL && n < get_count (node))
    return fail (v, "minItems", "must have at least %" G_GUINT64_FORMAT " items", get_count (node));
  node = json_object_get_member (schema, "maxItems");
  if (node != NULL && n > get_count (node))
    return fail (v, "maxItems", "must have at most %" G_GUINT64_FORMAT " items", get_count (node));

  node = json_object_get_member (schema, "uniqueItems");
  if (node != NULL && json_node_get_boolean (node))
    {
      /* Hashing keeps hostile arrays linear, not quadratic. */
      g_autoptr(GHashTable) seen = g_hash_table_new ((GHashFunc) _gg_json_hash,
                                                     (GEqualFunc) gg_json_equal);

      for (guint i = 0; i < n; i++)
        {
          JsonNode *element = json_array_get_element (array, i);
          gpointer first;

          if (g_hash_table_lookup_extended (seen, element, NULL, &first))
            return fail (v, "uniqueItems", "must not contain duplicates (items %u and %u are equal)",
                         GPOINTER_TO_UINT (first), i);
          g_hash_table_insert (seen, element, GUINT_TO_POINTER (i));
        }
    }

  /* prefixItems (2020-12) or the array form of items (draft 7) check the
   * first elements; items (2020-12, or the schema form) or additionalItems
   * (after an items array) the rest. */
  items = json_object_get_member (schema, "items");
  if ((node = json_object_get_member (schema, "prefixItems")) != NULL)
    {
      prefix_node = node;
      prefix_kw = "prefixItems";
    }
  else if (items != NULL && JSON_NODE_HOLDS_ARRAY (items))
    {
      prefix_node = items;
      prefix_kw = "items";
    }
  if (items != NULL && !JSON_NODE_HOLDS_ARRAY (items))
    {
      rest = items;
      rest_kw = "items";
    }
  else if (items != NULL && (node = json_object_get_member (schema, "additionalItems")) != NULL)
    {
      rest = node;
      rest_kw = "additionalItems";
    }

  if (prefix_node != NULL)
    {
      JsonArray *prefix = json_node_get_array (prefix_node);

      n_prefix = MIN (n, json_array_get_length (prefix));
      for (guint i = 0; i < n_prefix; i++)
        {
          char index[16];
          g_snprintf (index, sizeof index, "%u", i);
          if (!validate_child (v, json_array_get_element (prefix, i), prefix_kw, index,
                               json_array_get_element (array, i), index))
            return FALSE;
        }
    }
  if (rest != NULL)
    {
      for (guint i = n_prefix; i < n; i++)
        {
          char index[16];
          g_snprintf (index, sizeof index, "%u", i);
          if (!validate_child (v, rest, rest_kw, NULL, json_array_get_element (array, i), index))
            return FALSE;
        }
    }

  node = json_object_get_member (schema, "contains");
  if (node != NULL)
    {
      gboolean found = FALSE;

      v->quiet++;
      for (guint i = 0; i < n && !found && !v->fatal; i++)
        {
          char index[16];
          g_snprintf (index, sizeof index, "%u", i);
          found = validate_child (v, node, "contains", NULL, json_array_get_element (array, i),
                                  index);
        }
      v->quiet--;
      if (v->fatal)
        return FALSE;
      if (!found)
        return fail (v, "contains", "must contain an item matching the schema in contains");
    }
  return TRUE;
}

static gboolean
check_object (Validator  *v,
              JsonObject *schema,
              JsonNode   *instance)
{
  JsonObject *object = json_node_get_object (instance);
  JsonNode *node, *properties, *patterns, *additional;
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  node = json_object_get_member (schema, "minProperties");
  if (node != NULL && json_object_get_size (object) < get_count (node))
    return fail (v, "minProperties", "must have at least %" G_GUINT64_FORMAT " properties",
                 get_count (node));
  node = json_object_get_member (schema, "maxProperties");
  if (node != NULL && json_object_get_size (object) > get_count (node))
    return fail (v, "maxProperties", "must have at most %" G_GUINT64_FORMAT " properties",
                 get_count (node));

  node = json_object_get_member (schema, "required");
  if (node != NULL)
    {
      JsonArray *required = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (required); i++)
        {
          const char *key = json_node_get_string (json_array_get_element (required, i));
          if (!json_object_has_member (object, key))
            return fail (v, "required", "must have required property '%s'", key);
        }
    }

  properties = json_object_get_member (schema, "properties");
  patterns = json_object_get_member (schema, "patternProperties");
  additional = json_object_get_member (schema, "additionalProperties");
  json_object_iter_init_ordered (&iter, object);
  while (json_object_iter_next_ordered (&iter, &name, &member))
    {
      gboolean matched = FALSE;
      JsonNode *sub;

      if (properties != NULL &&
          (sub = json_object_get_member (json_node_get_object (properties), name)) != NULL)
        {
          matched = TRUE;
          if (!validate_child (v, sub, "properties", name, member, name))
            return FALSE;
        }
      if (patterns != NULL)
        {
          JsonObjectIter piter;
          const char *pattern;

          json_object_iter_init_ordered (&piter, json_node_get_object (patterns));
          while (json_object_iter_next_ordered (&piter, &pattern, &sub))
            {
              GRegex *regex = g_hash_table_lookup (v->self->regexes, pattern);
              if (!g_regex_match (regex, name, 0, NULL))
                continue;
              matched = TRUE;
              if (!validate_child (v, sub, "patternProperties", pattern, member, name))
                return FALSE;
            }
        }
      if (!matched && additional != NULL)
        {
          if (JSON_NODE_HOLDS_VALUE (additional) && !json_node_get_boolean (additional))
            return fail (v, "additionalProperties", "must not have additional property '%s'", name);
          if (!validate_child (v, additional, "additionalProperties", NULL, member, name))
            return FALSE;
        }
    }

  node = json_object_get_member (schema, "propertyNames");
  if (node != NULL)
    {
      json_object_iter_init_ordered (&iter, object);
      while (json_object_iter_next_ordered (&iter, &name, &member))
        {
          g_autoptr(JsonNode) key = json_node_init_string (json_node_alloc (), name);
          if (!validate_child (v, node, "propertyNames", NULL, key, name))
            return FALSE;
        }
    }

  /* dependencies (draft 7), dependentRequired and dependentSchemas. */
  {
    static const char *const keywords[] = { "dependencies", "dependentRequired", "dependentSchemas" };

    for (guint k = 0; k < G_N_ELEMENTS (keywords); k++)
      {
        node = json_object_get_member (schema, keywords[k]);
        if (node == NULL)
          continue;
        json_object_iter_init_ordered (&iter, json_node_get_object (node));
        while (json_object_iter_next_ordered (&iter, &name, &member))
          {
            if (!json_object_has_member (object, name))
              continue;
            if (JSON_NODE_HOLDS_ARRAY (member))
              {
                JsonArray *required = json_node_get_array (member);
                for (guint i = 0; i < json_array_get_length (required); i++)
                  {
                    const char *key = json_node_get_string (json_array_get_element (required, i));
                    if (!json_object_has_member (object, key))
                      return fail (v, keywords[k], "must have property '%s' when '%s' is present",
                                   key, name);
                  }
              }
            else if (!validate_child (v, member, keywords[k], name, instance, NULL))
              return FALSE;
          }
      }
  }
  return TRUE;
}

static gboolean
check_combinators (Validator  *v,
                   JsonObject *schema,
                   JsonNode   *instance)
{
  JsonNode *node;

  node = json_object_get_member (schema, "allOf");
  if (node != NULL)
    {
      JsonArray *all = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (all); i++)
        {
          char index[16];
          g_snprintf (index, sizeof index, "%u", i);
          if (!validate_child (v, json_array_get_element (all, i), "allOf", index, instance, NULL))
            return FALSE;
        }
    }

  node = json_object_get_member (schema, "anyOf");
  if (node != NULL)
    {
      JsonArray *any = json_node_get_array (node);
      gboolean matched = FALSE;

      v->quiet++;
      for (guint i = 0; i < json_array_get_length (any) && !matched && !v->fatal; i++)
        {
          char index[16];
          g_snprintf (index, sizeof index, "%u", i);
          matched = validate_child (v, json_array_get_element (any, i), "anyOf", index, instance,
                                    NULL);
        }
      v->quiet--;
      if (v->fatal)
        return FALSE;
      if (!matched)
        return fail (v, "anyOf", "must match at least one schema in anyOf");
    }

  node = json_object_get_member (schema, "oneOf");
  if (node != NULL)
    {
      JsonArray *one = json_node_get_array (node);
      guint matches = 0;

      v->quiet++;
      for (guint i = 0; i < json_array_get_length (one) && matches < 2 && !v->fatal; i++)
        {
          char index[16];
          g_snprintf (index, sizeof index, "%u", i);
          if (validate_child (v, json_array_get_element (one, i), "oneOf", index, instance, NULL))
            matches++;
        }
      v->quiet--;
      if (v->fatal)
        return FALSE;
      if (matches == 0)
        return fail (v, "oneOf", "must match exactly one schema in oneOf (matched none)");
      if (matches > 1)
        return fail (v, "oneOf", "must match exactly one schema in oneOf (matched several)");
    }

  node = json_object_get_member (schema, "not");
  if (node != NULL)
    {
      gboolean matched;

      v->quiet++;
      matched = validate_child (v, node, "not", NULL, instance, NULL);
      v->quiet--;
      if (v->fatal)
        return FALSE;
      if (matched)
        return fail (v, "not", "must not match the schema in not");
    }

  node = json_object_get_member (schema, "if");
  if (node != NULL)
    {
      gboolean matched;
      const char *branch;

      v->quiet++;
      matched = validate_child (v, node, "if", NULL, instance, NULL);
      v->quiet--;
      if (v->fatal)
        return FALSE;
      branch = matched ? "then" : "else";
      node = json_object_get_member (schema, branch);
      if (node != NULL && !validate_child (v, node, branch, NULL, instance, NULL))
        return FALSE;
    }
  return TRUE;
}

static gboolean
follow_ref (Validator  *v,
            JsonNode   *ref_node,
            JsonNode   *instance)
{
  GgSchemaRef *ref = g_hash_table_lookup (v->self->refs, json_node_get_string (ref_node));
  g_autofree char *saved = NULL;
  gboolean ok;

  if (v->ref_chain >= GG_SCHEMA_MAX_REF_CHAIN)
    return fail_fatal (v, "$ref chain too long (the schema loops without consuming input)");

  /* Errors inside point at the referenced schema. */
  saved = g_strndup (v->spath->str, v->spath->len);
  g_string_assign (v->spath, ref->pointer + 1);
  v->ref_chain++;
  ok = validate (v, ref->target, instance);
  v->ref_chain--;
  g_string_assign (v->spath, saved);
  return ok;
}

static gboolean
validate (Validator *v,
          JsonNode  *schema,
          JsonNode  *instance)
{
  JsonObject *object;
  JsonNode *node;
  gboolean ok = FALSE;

  if (v->fatal)
    return FALSE;
  if (++v->evaluations > GG_SCHEMA_MAX_EVALUATIONS)
    return fail_fatal (v, "validation takes too much work");
  if (v->depth >= GG_SCHEMA_MAX_DEPTH)
    return fail_fatal (v, "validation nested too deeply");

  if (!JSON_NODE_HOLDS_OBJECT (schema))
    {
      if (json_node_get_boolean (schema))
        return TRUE;
      return fail (v, NULL, "no value is allowed here");
    }

  v->depth++;
  object = json_node_get_object (schema);

  node = json_object_get_member (object, "$ref");
  if (node != NULL)
    {
      if (!follow_ref (v, node, instance))
        goto out;
      if (v->self->draft7)
        {
          ok = TRUE;
          goto out;
        }
    }

  node = json_object_get_member (object, "type");
  if (node != NULL && !check_type (v, node, instance))
    goto out;

  node = json_object_get_member (object, "const");
  if (node != NULL && !gg_json_equal (node, instance))
    {
      fail (v, "const", "must be equal to the constant");
      goto out;
    }

  node = json_object_get_member (object, "enum");
  if (node != NULL)
    {
      JsonArray *values = json_node_get_array (node);
      gboolean found = FALSE;

      for (guint i = 0; i < json_array_get_length (values) && !found; i++)
        found = gg_json_equal (json_array_get_element (values, i), instance);
      if (!found)
        {
          fail (v, "enum", "must be one of the allowed values");
          goto out;
        }
    }

  if (_gg_json_node_is_number (instance))
    {
      if (!check_number (v, object, instance))
        goto out;
    }
  else if (JSON_NODE_HOLDS_VALUE (instance) && json_node_get_value_type (instance) == G_TYPE_STRING)
    {
      if (!check_string (v, object, instance))
        goto out;
    }
  else if (JSON_NODE_HOLDS_ARRAY (instance))
    {
      if (!check_array (v, object, instance))
        goto out;
    }
  else if (JSON_NODE_HOLDS_OBJECT (instance))
    {
      if (!check_object (v, object, instance))
        goto out;
    }

  ok = check_combinators (v, object, instance);

out:
  v->depth--;
  return ok;
}

/**
 * gg_schema_validate:
 * @self: a #GgSchema
 * @instance: the JSON value to check
 * @error: return location for a %GG_SCHEMA_ERROR
 *
 * Checks @instance against the schema and reports the first problem as
 * %GG_SCHEMA_ERROR_INVALID, with a message such as
 * "#/party/0/name: must be at least 1 characters" and the paths available
 * through gg_schema_error_get_path() and
 * gg_schema_error_get_schema_path(). A schema that loops through `$ref`
 * without consuming input, or needs too much work, fails with
 * %GG_SCHEMA_ERROR_INVALID_SCHEMA instead of exhausting the stack.
 *
 * Returns: %TRUE if @instance is valid
 *
 * Since: 1.0
 */
gboolean
gg_schema_validate (GgSchema *self,
                    JsonNode *instance,
                    GError  **error)
{
  g_autoptr(GString) ipath = g_string_new (NULL);
  g_autoptr(GString) spath = g_string_new (NULL);
  Validator v = { 0, };

  g_return_val_if_fail (GG_IS_SCHEMA (self), FALSE);
  g_return_val_if_fail (instance != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  v.self = self;
  v.ipath = ipath;
  v.spath = spath;

  if (validate (&v, self->root, instance))
    return TRUE;

  if (v.error == NULL)
    _gg_schema_set_error (&v.error, GG_SCHEMA_ERROR_INVALID, "#", "#", "#: invalid");
  g_propagate_error (error, v.error);
  return FALSE;
}
