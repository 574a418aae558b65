/* gg-composite-tool.c: composite tools registered on the bus.
 *
 * The registry lives on the bus object itself (qdata), so the bus needs no
 * knowledge of composites; front ends that offer tools (the MCP side of
 * gamebridge) list them and resolve them before a game's own commands.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-composite-tool.h"
#include "gg-json.h"

struct _GgCompositeTool {
  gatomicrefcount ref;
  char *name;
  char *description;
  JsonObject *input_schema;
  char **only;
  GgCompositeToolFunc func;
  gpointer user_data;
  GDestroyNotify destroy;
};

G_DEFINE_BOXED_TYPE (GgCompositeTool, gg_composite_tool, gg_composite_tool_ref, gg_composite_tool_unref)

#define REGISTRY_KEY "gg-composite-tools"

/**
 * gg_composite_tool_ref:
 * @tool: a tool
 *
 * Takes a reference on @tool.
 *
 * Returns: (transfer full): @tool
 *
 * Since: 1.0
 */
GgCompositeTool *
gg_composite_tool_ref (GgCompositeTool *tool)
{
  g_return_val_if_fail (tool != NULL, NULL);
  g_atomic_ref_count_inc (&tool->ref);
  return tool;
}

/**
 * gg_composite_tool_unref:
 * @tool: (transfer full): a tool
 *
 * Drops a reference on @tool; the last one frees it and calls the destroy
 * function given at registration.
 *
 * Since: 1.0
 */
void
gg_composite_tool_unref (GgCompositeTool *tool)
{
  g_return_if_fail (tool != NULL);
  if (!g_atomic_ref_count_dec (&tool->ref))
    return;
  if (tool->destroy != NULL)
    tool->destroy (tool->user_data);
  g_free (tool->name);
  g_free (tool->description);
  json_object_unref (tool->input_schema);
  g_strfreev (tool->only);
  g_free (tool);
}

static GHashTable *
registry (GgBus    *bus,
          gboolean  create)
{
  GHashTable *table = g_object_get_data (G_OBJECT (bus), REGISTRY_KEY);

  if (table == NULL && create)
    {
      table = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) gg_composite_tool_unref);
      g_object_set_data_full (G_OBJECT (bus), REGISTRY_KEY, table, (GDestroyNotify) g_hash_table_unref);
    }
  return table;
}

/**
 * gg_bus_add_composite_tool:
 * @bus: the bus
 * @name: the tool name (1..64 of `[A-Za-z0-9_.-]`), unique on the bus
 * @description: what it does, for the agent
 * @input_schema: (nullable): the JSON Schema of its arguments (copied);
 *   %NULL = an object with any members
 * @only: (nullable) (array zero-terminated=1): the game names it suits;
 *   %NULL = every game
 * @func: runs a call
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data when the tool is removed
 * @error: a %G_IO_ERROR_EXISTS or %G_IO_ERROR_INVALID_ARGUMENT error
 *
 * Registers a composite tool. On failure @destroy is called at once.
 *
 * Returns: %TRUE when registered
 *
 * Since: 1.0
 */
gboolean
gg_bus_add_composite_tool (GgBus               *bus,
                           const char          *name,
                           const char          *description,
                           JsonObject          *input_schema,
                           const char * const  *only,
                           GgCompositeToolFunc  func,
                           gpointer             user_data,
                           GDestroyNotify       destroy,
                           GError             **error)
{
  GHashTable *table;
  GgCompositeTool *tool;
  gsize len;

  g_return_val_if_fail (GG_IS_BUS (bus), FALSE);
  g_return_val_if_fail (func != NULL, FALSE);

  len = name != NULL ? strlen (name) : 0;
  if (len == 0 || len > 64 || strspn (name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != len)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Composite tool names are 1..64 characters of A-Z a-z 0-9 _ . -");
      goto fail;
    }
  table = registry (bus, TRUE);
  if (g_hash_table_contains (table, name))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS, "A composite tool named '%s' exists", name);
      goto fail;
    }
  tool = g_new0 (GgCompositeTool, 1);
  g_atomic_ref_count_init (&tool->ref);
  tool->name = g_strdup (name);
  tool->description = g_strdup (description != NULL ? description : "");
  if (input_schema != NULL)
    {
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), input_schema);
      g_autoptr(JsonNode) copy = gg_json_copy (node);

      tool->input_schema = json_object_ref (json_node_get_object (copy));
    }
  else
    {
      tool->input_schema = json_object_new ();
      json_object_set_string_member (tool->input_schema, "type", "object");
    }
  tool->only = only != NULL ? g_strdupv ((char **) only) : NULL;
  tool->func = func;
  tool->user_data = user_data;
  tool->destroy = destroy;
  g_hash_table_insert (table, tool->name, tool);
  return TRUE;

fail:
  if (destroy != NULL)
    destroy (user_data);
  return FALSE;
}

/**
 * gg_bus_remove_composite_tool:
 * @bus: the bus
 * @name: a registered name
 *
 * Unregisters a composite tool; calls in flight keep their reference and
 * finish.
 *
 * Returns: %TRUE if a tool of that name was removed
 *
 * Since: 1.0
 */
gboolean
gg_bus_remove_composite_tool (GgBus      *bus,
                              const char *name)
{
  GHashTable *table = registry (bus, FALSE);

  return table != NULL && name != NULL && g_hash_table_remove (table, name);
}

static gint
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp ((*(GgCompositeTool **) a)->name, (*(GgCompositeTool **) b)->name);
}

/**
 * gg_bus_list_composite_tools:
 * @bus: the bus
 *
 * Lists the composite tools registered on @bus.
 *
 * Returns: (transfer container) (element-type GgCompositeTool): every
 *   composite tool, sorted by name
 *
 * Since: 1.0
 */
GPtrArray *
gg_bus_list_composite_tools (GgBus *bus)
{
  GHashTable *table = registry (bus, FALSE);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_composite_tool_unref);
  GHashTableIter iter;
  gpointer value;

  if (table == NULL)
    return out;
  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (out, gg_composite_tool_ref (value));
  g_ptr_array_sort (out, compare_names);
  return out;
}

/**
 * gg_bus_lookup_composite_tool:
 * @bus: the bus
 * @name: a tool name
 *
 * Looks a composite tool up by name.
 *
 * Returns: (transfer full) (nullable): the tool
 *
 * Since: 1.0
 */
GgCompositeTool *
gg_bus_lookup_composite_tool (GgBus      *bus,
                              const char *name)
{
  GHashTable *table = registry (bus, FALSE);
  GgCompositeTool *tool = table != NULL && name != NULL ? g_hash_table_lookup (table, name) : NULL;

  return tool != NULL ? gg_composite_tool_ref (tool) : NULL;
}

/**
 * gg_composite_tool_get_name:
 * @tool: a tool
 *
 * Gets the name the tool was registered under.
 *
 * Returns: (transfer none): the tool name, unique on its bus
 *
 * Since: 1.0
 */
const char *
gg_composite_tool_get_name (GgCompositeTool *tool)
{
  return tool->name;
}

/**
 * gg_composite_tool_get_description:
 * @tool: a tool
 *
 * Gets the description the agent sees.
 *
 * Returns: (transfer none): what the tool does
 *
 * Since: 1.0
 */
const char *
gg_composite_tool_get_description (GgCompositeTool *tool)
{
  return tool->description;
}

/**
 * gg_composite_tool_get_input_schema:
 * @tool: a tool
 *
 * Gets the JSON Schema the tool's arguments must match (an object with any
 * members when none was given).
 *
 * Returns: (transfer none): the JSON Schema of its arguments
 *
 * Since: 1.0
 */
JsonObject *
gg_composite_tool_get_input_schema (GgCompositeTool *tool)
{
  return tool->input_schema;
}

/**
 * gg_composite_tool_get_only:
 * @tool: a tool
 *
 * Gets the names of the games the tool is offered for.
 *
 * Returns: (transfer none) (nullable): the game names it suits, %NULL = all
 *
 * Since: 1.0
 */
const char * const *
gg_composite_tool_get_only (GgCompositeTool *tool)
{
  return (const char * const *) tool->only;
}

/**
 * gg_composite_tool_applies_to:
 * @tool: a tool
 * @game_name: (nullable): the game's name, %NULL when unknown
 *
 * Tells whether the tool is offered for a game.
 *
 * Returns: %TRUE if @tool has no `only` list or names @game_name
 *
 * Since: 1.0
 */
gboolean
gg_composite_tool_applies_to (GgCompositeTool *tool,
                              const char      *game_name)
{
  if (tool->only == NULL)
    return TRUE;
  return game_name != NULL && g_strv_contains ((const char * const *) tool->only, game_name);
}

/**
 * gg_composite_tool_call_async:
 * @tool: a tool
 * @target: the instance the call is bound to
 * @arguments: (nullable): its arguments
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the result
 * @user_data: data for @callback
 *
 * Runs the tool's function for one call.
 *
 * Since: 1.0
 */
void
gg_composite_tool_call_async (GgCompositeTool     *tool,
                              GgTarget            *target,
                              JsonObject          *arguments,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (target, cancellable, callback, user_data);
  g_autoptr(JsonObject) args = arguments != NULL ? json_object_ref (arguments) : json_object_new ();

  g_task_set_source_tag (task, gg_composite_tool_call_async);
  g_task_set_task_data (task, gg_composite_tool_ref (tool), (GDestroyNotify) gg_composite_tool_unref);
  tool->func (target, args, cancellable, task, tool->user_data);
}

/**
 * gg_composite_tool_call_finish:
 * @tool: a tool
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes gg_composite_tool_call_async().
 *
 * Returns: (transfer full): the tool's JSON result
 *
 * Since: 1.0
 */
JsonNode *
gg_composite_tool_call_finish (GgCompositeTool  *tool,
                               GAsyncResult     *result,
                               GError          **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}
