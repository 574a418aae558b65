/* gg-bus-models.c: the bus's model factories (one per model `type` a
 * plugin registers), the default model "system" stands for, and making a
 * model from a spec: a name, `{"type": …}`, or "system" (a stand-in that
 * fails every step with model_unavailable when none is configured).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-bus.h"
#include "gg-bus-observer-private.h"
#include "gg-bus-private.h"
#include "gg-model-private.h"
#include "gg-model-unavailable-private.h"

typedef struct {
  GgModelFactory factory;
  gpointer user_data;
  GDestroyNotify destroy;
} ModelType;

static void
model_type_free (gpointer data)
{
  ModelType *type = data;

  if (type->destroy != NULL)
    type->destroy (type->user_data);
  g_free (type);
}

/** _gg_bus_models_init: @self: a bus being made */
void
_gg_bus_models_init (GgBus *self)
{
  self->model_types = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, model_type_free);
}

/** _gg_bus_models_clear: @self: a bus being disposed */
void
_gg_bus_models_clear (GgBus *self)
{
  g_clear_pointer (&self->model_types, g_hash_table_unref);
  g_clear_pointer (&self->default_model, json_node_unref);
}

/**
 * gg_bus_register_model_type:
 * @self: a #GgBus
 * @type: the `type` of model values this factory makes ("scripted")
 * @factory: the factory
 * @user_data: data for @factory
 * @destroy: (nullable): frees @user_data when the bus goes away
 * @error: return location for a #GError
 *
 * Registers a model backend. A type already registered, or the reserved
 * name "system", fails with %G_IO_ERROR_EXISTS.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gg_bus_register_model_type (GgBus          *self,
                            const char     *type,
                            GgModelFactory  factory,
                            gpointer        user_data,
                            GDestroyNotify  destroy,
                            GError        **error)
{
  g_return_val_if_fail (GG_IS_BUS (self), FALSE);
  g_return_val_if_fail (type != NULL && *type != '\0', FALSE);
  g_return_val_if_fail (factory != NULL, FALSE);

  if (g_str_equal (type, "system") || g_hash_table_contains (self->model_types, type))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   "Model type '%s' is already registered", type);
      return FALSE;
    }

  ModelType *entry = g_new0 (ModelType, 1);
  entry->factory = factory;
  entry->user_data = user_data;
  entry->destroy = destroy;
  g_hash_table_insert (self->model_types, g_strdup (type), entry);
  return TRUE;
}

/**
 * gg_bus_has_model_type:
 * @self: a #GgBus
 * @type: a model type name
 *
 * Tells whether a model backend registered @type.
 *
 * Returns: %TRUE when a backend registered @type
 *
 * Since: 1.0
 */
gboolean
gg_bus_has_model_type (GgBus      *self,
                       const char *type)
{
  g_return_val_if_fail (GG_IS_BUS (self), FALSE);
  return type != NULL && g_hash_table_contains (self->model_types, type);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b,
                 gpointer      user_data)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/**
 * gg_bus_list_model_types:
 * @self: a #GgBus
 *
 * Lists the model types backends registered.
 *
 * Returns: (transfer full): the registered model types, sorted
 *
 * Since: 1.0
 */
char **
gg_bus_list_model_types (GgBus *self)
{
  g_return_val_if_fail (GG_IS_BUS (self), NULL);

  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autofree const char **keys =
    (const char **) g_hash_table_get_keys_as_array (self->model_types, NULL);
  for (const char **k = keys; *k != NULL; k++)
    g_strv_builder_add (builder, *k);
  char **types = g_strv_builder_end (builder);
  g_qsort_with_data (types, g_strv_length (types), sizeof (char *), compare_strings, NULL);
  return types;
}

/* Model values come as "type" strings or {"type": …} objects; this returns
 * the object form, or NULL with @error set. */
static JsonObject *
normalize_model_spec (JsonNode  *spec,
                      GError   **error)
{
  if (JSON_NODE_HOLDS_VALUE (spec) && json_node_get_value_type (spec) == G_TYPE_STRING)
    {
      JsonObject *object = json_object_new ();
      json_object_set_string_member (object, "type", json_node_get_string (spec));
      return object;
    }
  if (JSON_NODE_HOLDS_OBJECT (spec))
    {
      JsonObject *object = json_node_get_object (spec);
      JsonNode *type = json_object_get_member (object, "type");
      if (type != NULL && JSON_NODE_HOLDS_VALUE (type) &&
          json_node_get_value_type (type) == G_TYPE_STRING)
        return json_object_ref (object);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "model.type: must be a string");
      return NULL;
    }
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "model: must be a string or an object with a 'type'");
  return NULL;
}

/**
 * gg_bus_set_default_model:
 * @self: a #GgBus
 * @spec: (nullable): the model value `"system"` stands for, or %NULL for none
 *
 * Sets the configured default model (`[gateway] default-model`).
 *
 * Since: 1.0
 */
void
gg_bus_set_default_model (GgBus    *self,
                          JsonNode *spec)
{
  g_return_if_fail (GG_IS_BUS (self));

  g_clear_pointer (&self->default_model, json_node_unref);
  if (spec != NULL)
    self->default_model = json_node_copy (spec);
}

/**
 * gg_bus_get_default_model:
 * @self: a #GgBus
 *
 * Gets the model spec set with gg_bus_set_default_model().
 *
 * Returns: (transfer none) (nullable): the model value `"system"` stands for
 *
 * Since: 1.0
 */
JsonNode *
gg_bus_get_default_model (GgBus *self)
{
  g_return_val_if_fail (GG_IS_BUS (self), NULL);
  return self->default_model;
}

/**
 * gg_bus_create_model:
 * @self: a #GgBus
 * @spec: (nullable): a model value: `"system"` (also for %NULL and
 *   `{"type": "system"}`), a type name such as `"scripted"`, or an object
 *   `{"type": …, …}`
 * @error: return location for a #GError
 *
 * Makes a fresh model for one session. `"system"` resolves to the configured
 * default; with none configured (or its backend missing) it is a model that
 * reports itself unavailable and fails every step with
 * %GG_MODEL_ERROR_MODEL_UNAVAILABLE, so sessions can still be created.
 * A malformed value fails with %G_IO_ERROR_INVALID_ARGUMENT and an unknown
 * type with %G_IO_ERROR_NOT_SUPPORTED, their messages naming the member.
 *
 * Returns: (transfer full): a new #GgModel, or %NULL with @error set
 *
 * Since: 1.0
 */
GgModel *
gg_bus_create_model (GgBus     *self,
                     JsonNode  *spec,
                     GError   **error)
{
  g_autoptr(JsonNode) system_spec = NULL;
  gboolean is_system;

  g_return_val_if_fail (GG_IS_BUS (self), NULL);

  /* "system", {"type": "system"} and no value at all mean the default;
   * "system" is reserved, no backend can register it. */
  is_system = spec == NULL || JSON_NODE_HOLDS_NULL (spec) ||
              (JSON_NODE_HOLDS_VALUE (spec) &&
               json_node_get_value_type (spec) == G_TYPE_STRING &&
               g_str_equal (json_node_get_string (spec), "system")) ||
              (JSON_NODE_HOLDS_OBJECT (spec) &&
               g_strcmp0 (_gg_model_json_get_string (json_node_get_object (spec), "type"), "system") == 0);
  if (is_system)
    {
      if (self->default_model == NULL)
        return gg_unavailable_model_new ("system",
                                         "No default model is configured ([gateway] default-model)");
      spec = self->default_model;
    }

  g_autoptr(JsonObject) object = normalize_model_spec (spec, error);
  if (object == NULL)
    return NULL;

  const char *type = json_object_get_string_member (object, "type");
  ModelType *entry = g_hash_table_lookup (self->model_types, type);
  if (entry == NULL)
    {
      if (is_system)
        {
          g_autofree char *reason =
            g_strdup_printf ("The default model's type '%s' is not provided by any loaded plugin", type);
          return gg_unavailable_model_new ("system", reason);
        }
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "model.type: unknown model type '%s'", type);
      return NULL;
    }

  GgModel *model = entry->factory (object, entry->user_data, error);
  if (model != NULL)
    _gg_bus_mark_owned (self, model);
  if (model == NULL && error != NULL && *error == NULL)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                 "model: the '%s' backend could not create a model", type);
  return model;
}

/* Front ends ----------------------------------------------------------- */

/* Undoing a failed plugin setup ---------------------------------------- */

void
_gg_bus_unregister_model_type (GgBus      *self,
                               const char *type)
{
  g_hash_table_remove (self->model_types, type);
}
