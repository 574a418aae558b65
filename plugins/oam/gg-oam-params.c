/* gg-oam-params.c: typed access to request params. `null` members count as
 * absent (spec section 1); every mistake is a -32602 whose message names the
 * parameter by its full dotted name.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "gg-oam-errors.h"
#include "gg-oam-params.h"

/**
 * gg_oam_param:
 * @object: (nullable): the params object
 * @name: a member name
 *
 * Returns: (transfer none) (nullable): the member, or %NULL when it is
 *   absent or `null`
 */
JsonNode *
gg_oam_param (JsonObject *object,
              const char *name)
{
  JsonNode *node;

  if (object == NULL)
    return NULL;
  node = json_object_get_member (object, name);
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return NULL;
  return node;
}

/**
 * gg_oam_param_name:
 * @prefix: (nullable): the enclosing parameter ("options")
 * @name: the member
 *
 * Returns: (transfer full): "options.toolChoice", or just @name
 */
char *
gg_oam_param_name (const char *prefix,
                   const char *name)
{
  if (prefix == NULL || *prefix == '\0')
    return g_strdup (name);
  return g_strdup_printf ("%s.%s", prefix, name);
}

/**
 * gg_oam_invalid_params:
 * @format: printf-style detail, naming the parameter
 *
 * Returns: (transfer full): a -32602 error "Invalid params: …"
 */
GError *
gg_oam_invalid_params (const char *format,
                       ...)
{
  g_autofree char *detail = NULL;
  va_list args;

  va_start (args, format);
  detail = g_strdup_vprintf (format, args);
  va_end (args);
  return gg_oam_error_new (GG_OAM_INVALID_PARAMS, NULL, "Invalid params: %s", detail);
}

static gboolean
type_error (const char *prefix,
            const char *name,
            const char *what,
            GError    **error)
{
  g_autofree char *full = gg_oam_param_name (prefix, name);

  g_propagate_error (error, gg_oam_invalid_params ("'%s' must be %s", full, what));
  return FALSE;
}

static gboolean
missing (const char *prefix,
         const char *name,
         GError    **error)
{
  g_autofree char *full = gg_oam_param_name (prefix, name);

  g_propagate_error (error, gg_oam_invalid_params ("'%s' is required", full));
  return FALSE;
}

/**
 * gg_oam_param_string:
 * @object: (nullable): the params object
 * @prefix: (nullable): the enclosing parameter, for messages
 * @name: the member
 * @required: whether absence is an error
 * @out: (out) (transfer none): the string, or %NULL when absent
 * @error: return location for a -32602 error
 */
gboolean
gg_oam_param_string (JsonObject  *object,
                     const char  *prefix,
                     const char  *name,
                     gboolean     required,
                     const char **out,
                     GError     **error)
{
  JsonNode *node = gg_oam_param (object, name);

  *out = NULL;
  if (node == NULL)
    return required ? missing (prefix, name, error) : TRUE;
  if (json_node_get_value_type (node) != G_TYPE_STRING)
    return type_error (prefix, name, "a string", error);
  *out = json_node_get_string (node);
  return TRUE;
}

/**
 * gg_oam_is_valid_id:
 * @id: a client-chosen id
 *
 * Returns: whether @id has 1–128 printable characters
 */
gboolean
gg_oam_is_valid_id (const char *id)
{
  glong length;

  if (id == NULL || !g_utf8_validate (id, -1, NULL))
    return FALSE;
  length = g_utf8_strlen (id, -1);
  if (length < 1 || length > 128)
    return FALSE;
  for (const char *p = id; *p != '\0'; p = g_utf8_next_char (p))
    if (!g_unichar_isprint (g_utf8_get_char (p)))
      return FALSE;
  return TRUE;
}

/**
 * gg_oam_param_id:
 *
 * Like gg_oam_param_string(), and the string must be a valid id (1–128
 * printable characters).
 */
gboolean
gg_oam_param_id (JsonObject  *object,
                 const char  *prefix,
                 const char  *name,
                 gboolean     required,
                 const char **out,
                 GError     **error)
{
  if (!gg_oam_param_string (object, prefix, name, required, out, error))
    return FALSE;
  if (*out != NULL && !gg_oam_is_valid_id (*out))
    {
      *out = NULL;
      return type_error (prefix, name, "1-128 printable characters", error);
    }
  return TRUE;
}

/**
 * gg_oam_param_bool:
 * @default_value: the value when absent
 */
gboolean
gg_oam_param_bool (JsonObject *object,
                   const char *prefix,
                   const char *name,
                   gboolean    default_value,
                   gboolean   *out,
                   GError    **error)
{
  JsonNode *node = gg_oam_param (object, name);

  *out = default_value;
  if (node == NULL)
    return TRUE;
  if (json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return type_error (prefix, name, "a boolean", error);
  *out = json_node_get_boolean (node);
  return TRUE;
}

/**
 * gg_oam_param_int:
 * @min: the smallest value accepted
 * @max: the largest value accepted
 * @default_value: the value when absent
 *
 * Accepts integers, and doubles with an integral value in range.
 */
gboolean
gg_oam_param_int (JsonObject *object,
                  const char *prefix,
                  const char *name,
                  gint64      min,
                  gint64      max,
                  gint64      default_value,
                  gint64     *out,
                  GError    **error)
{
  JsonNode *node = gg_oam_param (object, name);
  g_autofree char *full = gg_oam_param_name (prefix, name);
  gint64 value;

  *out = default_value;
  if (node == NULL)
    return TRUE;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    value = json_node_get_int (node);
  else if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    {
      double d = json_node_get_double (node);

      if (!isfinite (d) || d != floor (d) || d < (double) min || d > (double) max)
        goto bad;
      value = (gint64) d;
    }
  else
    goto bad;
  if (value < min || value > max)
    goto bad;
  *out = value;
  return TRUE;

bad:
  if (max == G_MAXINT64)
    g_propagate_error (error, gg_oam_invalid_params ("'%s' must be an integer >= %" G_GINT64_FORMAT,
                                                     full, min));
  else
    g_propagate_error (error, gg_oam_invalid_params ("'%s' must be an integer from %" G_GINT64_FORMAT
                                                     " to %" G_GINT64_FORMAT, full, min, max));
  return FALSE;
}

/**
 * gg_oam_param_double:
 * @min: the smallest value accepted
 * @max: the largest value accepted (use INFINITY for none)
 * @default_value: the value when absent
 */
gboolean
gg_oam_param_double (JsonObject *object,
                     const char *prefix,
                     const char *name,
                     double      min,
                     double      max,
                     double      default_value,
                     double     *out,
                     GError    **error)
{
  JsonNode *node = gg_oam_param (object, name);
  g_autofree char *full = gg_oam_param_name (prefix, name);
  double value;

  *out = default_value;
  if (node == NULL)
    return TRUE;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    value = (double) json_node_get_int (node);
  else if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    value = json_node_get_double (node);
  else
    return type_error (prefix, name, "a number", error);
  if (!isfinite (value) || value < min || value > max)
    {
      if (isinf (max))
        g_propagate_error (error, gg_oam_invalid_params ("'%s' must be a finite number >= %g",
                                                         full, min));
      else
        g_propagate_error (error, gg_oam_invalid_params ("'%s' must be a number from %g to %g",
                                                         full, min, max));
      return FALSE;
    }
  *out = value;
  return TRUE;
}

/**
 * gg_oam_param_seconds:
 * @default_ms: the value when absent, in milliseconds
 * @out_ms: (out): the timeout in milliseconds, 0 = forever
 *
 * Reads a `…TimeoutSeconds` parameter: a finite number from 0 to 86400.
 * Converted without ever casting an unchecked client number.
 */
gboolean
gg_oam_param_seconds (JsonObject *object,
                      const char *prefix,
                      const char *name,
                      gint64      default_ms,
                      gint64     *out_ms,
                      GError    **error)
{
  double seconds;

  *out_ms = default_ms;
  if (gg_oam_param (object, name) == NULL)
    return TRUE;
  if (!gg_oam_param_double (object, prefix, name, 0.0, GG_OAM_MAX_TIMEOUT_SECONDS, 0.0,
                            &seconds, error))
    return FALSE;
  *out_ms = (gint64) llround (seconds * 1000.0);
  /* A tiny positive timeout must not turn into "forever". */
  if (*out_ms == 0 && seconds > 0.0)
    *out_ms = 1;
  return TRUE;
}

/**
 * gg_oam_param_object:
 * @out: (out) (transfer none): the object, or %NULL when absent
 */
gboolean
gg_oam_param_object (JsonObject  *object,
                     const char  *prefix,
                     const char  *name,
                     gboolean     required,
                     JsonObject **out,
                     GError     **error)
{
  JsonNode *node = gg_oam_param (object, name);

  *out = NULL;
  if (node == NULL)
    return required ? missing (prefix, name, error) : TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return type_error (prefix, name, "an object", error);
  *out = json_node_get_object (node);
  return TRUE;
}

/**
 * gg_oam_param_array:
 * @out: (out) (transfer none): the array, or %NULL when absent
 */
gboolean
gg_oam_param_array (JsonObject  *object,
                    const char  *prefix,
                    const char  *name,
                    gboolean     required,
                    JsonArray  **out,
                    GError     **error)
{
  JsonNode *node = gg_oam_param (object, name);

  *out = NULL;
  if (node == NULL)
    return required ? missing (prefix, name, error) : TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return type_error (prefix, name, "an array", error);
  *out = json_node_get_array (node);
  return TRUE;
}

/**
 * gg_oam_param_strv:
 * @out: (out) (transfer full): the strings, or %NULL when absent
 *
 * Reads an array of strings.
 */
gboolean
gg_oam_param_strv (JsonObject  *object,
                   const char  *prefix,
                   const char  *name,
                   char      ***out,
                   GError     **error)
{
  JsonArray *array;
  g_autoptr(GStrvBuilder) builder = NULL;

  *out = NULL;
  if (!gg_oam_param_array (object, prefix, name, FALSE, &array, error))
    return FALSE;
  if (array == NULL)
    return TRUE;
  builder = g_strv_builder_new ();
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);

      if (json_node_get_value_type (item) != G_TYPE_STRING)
        {
          g_autofree char *full = gg_oam_param_name (prefix, name);

          g_propagate_error (error, gg_oam_invalid_params ("'%s[%u]' must be a string", full, i));
          return FALSE;
        }
      g_strv_builder_add (builder, json_node_get_string (item));
    }
  *out = g_strv_builder_end (builder);
  return TRUE;
}

/**
 * gg_oam_param_text:
 * @object: (nullable): the params object
 * @name: a member holding a string or any JSON
 *
 * Reads a "string or JSON" parameter (`situation`, `context`).
 *
 * Returns: (transfer full) (nullable): the string itself, compact JSON for
 *   anything else, or %NULL when absent
 */
char *
gg_oam_param_text (JsonObject *object,
                   const char *name)
{
  JsonNode *node = gg_oam_param (object, name);

  if (node == NULL)
    return NULL;
  if (json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  return gg_json_to_string (node);
}

/**
 * gg_oam_warn_unknown:
 * @object: (nullable): the params (or a nested object)
 * @prefix: (nullable): its name, for the warning
 * @known: %NULL-terminated member names the method reads
 * @warnings: where "unknown parameter 'x' ignored" lines are added
 */
void
gg_oam_warn_unknown (JsonObject         *object,
                     const char         *prefix,
                     const char * const *known,
                     GPtrArray          *warnings)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  if (object == NULL)
    return;
  json_object_iter_init_ordered (&iter, object);
  while (json_object_iter_next_ordered (&iter, &name, &value))
    {
      if (g_strv_contains (known, name))
        continue;
      g_autofree char *full = gg_oam_param_name (prefix, name);
      g_ptr_array_add (warnings, g_strdup_printf ("unknown parameter '%s' ignored", full));
    }
}

/**
 * gg_oam_warnings_to_json:
 * @warnings: strings
 *
 * Returns: (transfer full): a JSON array of @warnings
 */
JsonNode *
gg_oam_warnings_to_json (GPtrArray *warnings)
{
  JsonArray *array = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  for (guint i = 0; warnings != NULL && i < warnings->len; i++)
    json_array_add_string_element (array, g_ptr_array_index (warnings, i));
  json_node_take_array (node, array);
  return node;
}

/**
 * gg_oam_object_string:
 * @object: (nullable): any object, also one the client made
 * @name: a member
 * @default_value: (nullable): what to return when it is not a string
 *
 * Unlike json_object_get_string_member_with_default(), never complains
 * about a member of another type.
 */
const char *
gg_oam_object_string (JsonObject *object,
                      const char *name,
                      const char *default_value)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  if (node == NULL || json_node_get_value_type (node) != G_TYPE_STRING)
    return default_value;
  return json_node_get_string (node);
}

/**
 * gg_oam_object_bool:
 * @object: (nullable): any object
 * @name: a member
 * @default_value: what to return when it is not a boolean
 */
gboolean
gg_oam_object_bool (JsonObject *object,
                    const char *name,
                    gboolean    default_value)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  if (node == NULL || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return default_value;
  return json_node_get_boolean (node);
}
