/* gg-oam-targets.c: the `targets` option, a gamegate extension to oam.
 *
 * `"targets": [{"target": "gabp:shop", "tools": ["inventory/get"]}]` offers
 * the model tools that a game on the bus runs, next to the client's own.
 * Games come and go, so the option is resolved when each turn starts: the
 * target's tools at that moment (all of them, or the listed ones) become
 * tool definitions with `"execution": "target"`, under names valid for oam
 * (`inventory/get` is offered as `inventory.get`). A target that is not on
 * the bus then offers nothing and the turn runs with the other tools; the
 * turn's result says so in its warnings.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-oam-params.h"
#include "gg-oam-targets.h"
#include "gg-oam-tools.h"

#define MAX_TOOL_NAME 64

/**
 * gg_oam_targets_parse:
 * @options: (nullable): an `options` object
 * @prefix: its name for messages ("options")
 * @error: -32602 for a malformed option
 *
 * Returns: (transfer full) (nullable): the entries as
 *   `[{"target", "tools"?}]`, an empty array when the option is absent, or
 *   %NULL with @error set
 */
JsonArray *
gg_oam_targets_parse (JsonObject  *options,
                      const char  *prefix,
                      GError     **error)
{
  g_autoptr(JsonArray) out = json_array_new ();
  g_autofree char *param = gg_oam_param_name (prefix, "targets");
  JsonArray *targets = NULL;
  guint n;

  if (options == NULL)
    return g_steal_pointer (&out);
  if (!gg_oam_param_array (options, prefix, "targets", FALSE, &targets, error))
    return NULL;
  n = targets != NULL ? json_array_get_length (targets) : 0;
  if (n > GG_OAM_MAX_TARGETS)
    {
      g_propagate_error (error, gg_oam_invalid_params ("'%s': at most %d targets", param, GG_OAM_MAX_TARGETS));
      return NULL;
    }
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *item = g_strdup_printf ("%s[%u]", param, i);
      JsonNode *node = json_array_get_element (targets, i);
      JsonObject *entry, *normalized;
      const char *target;
      char **tools = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_propagate_error (error, gg_oam_invalid_params ("'%s' must be an object", item));
          return NULL;
        }
      entry = json_node_get_object (node);
      if (!gg_oam_param_string (entry, item, "target", TRUE, &target, error) ||
          !gg_oam_param_strv (entry, item, "tools", &tools, error))
        return NULL;
      if (*target == '\0')
        {
          g_strfreev (tools);
          g_propagate_error (error, gg_oam_invalid_params ("'%s.target' must not be empty", item));
          return NULL;
        }
      normalized = json_object_new ();
      json_object_set_string_member (normalized, "target", target);
      if (tools != NULL)
        {
          JsonArray *names = json_array_new ();

          for (guint j = 0; tools[j] != NULL; j++)
            json_array_add_string_element (names, tools[j]);
          json_object_set_array_member (normalized, "tools", names);
          g_strfreev (tools);
        }
      json_array_add_object_element (out, normalized);
    }
  return g_steal_pointer (&out);
}

/**
 * gg_oam_target_tool_name:
 * @tool: a target's tool name (`inventory/get`)
 *
 * Returns: (transfer full): the name oam offers it under: `/` becomes `.`,
 *   every other character oam does not allow becomes `_`, at most 64 bytes
 */
char *
gg_oam_target_tool_name (const char *tool)
{
  GString *name = g_string_new (NULL);

  for (const char *p = tool; *p != '\0' && name->len < MAX_TOOL_NAME; p++)
    {
      if (g_ascii_isalnum (*p) || *p == '_' || *p == '-' || *p == '.')
        g_string_append_c (name, *p);
      else
        g_string_append_c (name, *p == '/' ? '.' : '_');
    }
  if (name->len == 0)
    g_string_append_c (name, '_');
  return g_string_free (name, FALSE);
}

/**
 * gg_oam_targets_may_offer:
 * @targets: (nullable): parsed entries
 * @name: an oam tool name
 *
 * Returns: whether a turn may offer @name through @targets: it is a listed
 *   tool's oam name, or an entry lists no tools (all of a target's, known
 *   only when the turn starts)
 */
gboolean
gg_oam_targets_may_offer (JsonArray  *targets,
                          const char *name)
{
  for (guint i = 0; targets != NULL && i < json_array_get_length (targets); i++)
    {
      JsonObject *entry = json_array_get_object_element (targets, i);
      JsonArray *tools;

      if (!json_object_has_member (entry, "tools"))
        return TRUE;
      tools = json_object_get_array_member (entry, "tools");
      for (guint j = 0; j < json_array_get_length (tools); j++)
        {
          g_autofree char *offered = gg_oam_target_tool_name (json_array_get_string_element (tools, j));

          if (g_str_equal (offered, name))
            return TRUE;
        }
    }
  return FALSE;
}

/* ---- resolving, when a turn starts ------------------------------------- */

typedef struct {
  JsonArray *targets;
  guint pending;
  JsonArray **listed;    /* per entry: the target's tools, or NULL */
  GPtrArray *warnings;
} Resolve;

typedef struct {
  GTask *task;
  guint index;
} ResolveCall;

static void
resolve_free (Resolve *resolve)
{
  for (guint i = 0; i < json_array_get_length (resolve->targets); i++)
    g_clear_pointer (&resolve->listed[i], json_array_unref);
  g_free (resolve->listed);
  json_array_unref (resolve->targets);
  g_ptr_array_unref (resolve->warnings);
  g_free (resolve);
}

static gboolean
listed_in (JsonArray  *tools,
           const char *name)
{
  for (guint i = 0; i < json_array_get_length (tools); i++)
    if (g_strcmp0 (json_array_get_string_element (tools, i), name) == 0)
      return TRUE;
  return FALSE;
}

static JsonObject *
find_tool (JsonArray  *tools,
           const char *name)
{
  for (guint i = 0; tools != NULL && i < json_array_get_length (tools); i++)
    {
      JsonObject *tool = json_array_get_object_element (tools, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (tool, "name", NULL), name) == 0)
        return tool;
    }
  return NULL;
}

/* One target tool as an oam definition, checked like a client's. */
static JsonObject *
definition_for (const char *target_id,
                JsonObject *tool,
                const char *param,
                GPtrArray  *warnings)
{
  const char *tool_name = json_object_get_string_member_with_default (tool, "name", "");
  g_autofree char *name = gg_oam_target_tool_name (tool_name);
  g_autoptr(JsonObject) definition = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(GError) error = NULL;
  JsonNode *member;
  JsonObject *parsed;

  json_object_set_string_member (definition, "name", name);
  member = json_object_get_member (tool, "description");
  if (member != NULL && json_node_get_value_type (member) == G_TYPE_STRING)
    json_object_set_member (definition, "description", json_node_copy (member));
  member = json_object_get_member (tool, "parameters");
  if (member != NULL && JSON_NODE_HOLDS_OBJECT (member))
    json_object_set_member (definition, "parameters", json_node_copy (member));
  json_object_set_string_member (definition, "execution", "target");
  json_object_set_string_member (definition, "target", target_id);
  json_object_set_string_member (definition, "tool", tool_name);
  json_node_set_object (node, definition);

  parsed = gg_oam_tool_parse (node, param, NULL, NULL, &error);
  if (parsed == NULL)
    g_ptr_array_add (warnings, g_strdup_printf ("%s: %s's tool '%s' is not offered: %s", param, target_id,
                                                tool_name, error->message));
  return parsed;
}

static void
resolve_done (GTask *task)
{
  Resolve *resolve = g_task_get_task_data (task);
  g_autoptr(JsonArray) definitions = json_array_new ();
  g_autoptr(GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < json_array_get_length (resolve->targets); i++)
    {
      JsonObject *entry = json_array_get_object_element (resolve->targets, i);
      const char *target_id = json_object_get_string_member (entry, "target");
      JsonArray *wanted = json_object_has_member (entry, "tools") ?
                          json_object_get_array_member (entry, "tools") : NULL;
      JsonArray *listed = resolve->listed[i];
      g_autofree char *param = g_strdup_printf ("options.targets[%u]", i);

      if (listed == NULL)
        continue;   /* warned already */
      for (guint j = 0; wanted != NULL && j < json_array_get_length (wanted); j++)
        if (find_tool (listed, json_array_get_string_element (wanted, j)) == NULL)
          g_ptr_array_add (resolve->warnings, g_strdup_printf ("%s: %s has no tool '%s'", param, target_id,
                                                               json_array_get_string_element (wanted, j)));
      for (guint j = 0; j < json_array_get_length (listed); j++)
        {
          JsonObject *tool = json_array_get_object_element (listed, j);
          JsonObject *definition;
          const char *name;

          if (wanted != NULL && !listed_in (wanted, json_object_get_string_member_with_default (tool, "name", "")))
            continue;
          definition = definition_for (target_id, tool, param, resolve->warnings);
          if (definition == NULL)
            continue;
          name = json_object_get_string_member (definition, "name");
          if (g_hash_table_contains (names, name))
            {
              g_ptr_array_add (resolve->warnings, g_strdup_printf ("%s: a tool named '%s' is offered already; "
                                                                   "%s's is not", param, name, target_id));
              json_object_unref (definition);
              continue;
            }
          g_hash_table_add (names, g_strdup (name));
          json_array_add_object_element (definitions, definition);
        }
    }
  g_task_return_pointer (task, g_steal_pointer (&definitions), (GDestroyNotify) json_array_unref);
}

static void
on_tools_listed (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  ResolveCall *call = user_data;
  g_autoptr(GTask) task = call->task;
  Resolve *resolve = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  JsonArray *tools = gg_target_list_tools_finish (GG_TARGET (source), result, &error);

  if (tools == NULL)
    g_ptr_array_add (resolve->warnings,
                     g_strdup_printf ("options.targets[%u]: %s did not list its tools (they are not offered): %s",
                                      call->index, gg_target_get_id (GG_TARGET (source)), error->message));
  resolve->listed[call->index] = tools;
  g_free (call);
  if (--resolve->pending == 0)
    resolve_done (task);
}

/**
 * gg_oam_targets_resolve_async:
 * @targets: parsed entries (gg_oam_targets_parse())
 * @bus: the bus the targets are on
 * @cancellable: (nullable): the turn's cancellable
 *
 * Lists the tools of every target on the bus now.
 */
void
gg_oam_targets_resolve_async (JsonArray           *targets,
                              GgBus               *bus,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  Resolve *resolve = g_new0 (Resolve, 1);
  guint n = json_array_get_length (targets);

  g_task_set_source_tag (task, gg_oam_targets_resolve_async);
  resolve->targets = json_array_ref (targets);
  resolve->listed = g_new0 (JsonArray *, MAX (n, 1));
  resolve->warnings = g_ptr_array_new_with_free_func (g_free);
  resolve->pending = 1;   /* released below, once every call is out */
  g_task_set_task_data (task, resolve, (GDestroyNotify) resolve_free);

  for (guint i = 0; i < n; i++)
    {
      const char *target_id = json_object_get_string_member (json_array_get_object_element (targets, i), "target");
      GgTarget *target = gg_bus_lookup_target (bus, target_id);
      ResolveCall *call;

      if (target == NULL)
        {
          g_ptr_array_add (resolve->warnings,
                           g_strdup_printf ("options.targets[%u]: %s is not on the bus; its tools are not offered",
                                            i, target_id));
          continue;
        }
      call = g_new0 (ResolveCall, 1);
      call->task = g_object_ref (task);
      call->index = i;
      resolve->pending++;
      gg_target_list_tools_async (target, cancellable, on_tools_listed, call);
    }
  if (--resolve->pending == 0)
    resolve_done (task);
}

/**
 * gg_oam_targets_resolve_finish:
 * @warnings: (nullable): where what is not offered, and why, goes
 *
 * Returns: (transfer full): the target tools as normalized definitions
 */
JsonArray *
gg_oam_targets_resolve_finish (GAsyncResult  *result,
                               GPtrArray     *warnings,
                               GError       **error)
{
  Resolve *resolve = g_task_get_task_data (G_TASK (result));

  if (warnings != NULL)
    for (guint i = 0; i < resolve->warnings->len; i++)
      g_ptr_array_add (warnings, g_strdup (g_ptr_array_index (resolve->warnings, i)));
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * gg_oam_tools_with:
 * @tools: (nullable): normalized definitions
 * @extra: (nullable): more of them (resolved target tools)
 * @warnings: (nullable): where a name clash goes
 *
 * Returns: (transfer full): @tools then those of @extra whose names are not
 *   taken (the session's own tools win)
 */
JsonArray *
gg_oam_tools_with (JsonArray *tools,
                   JsonArray *extra,
                   GPtrArray *warnings)
{
  JsonArray *all = json_array_new ();

  for (guint i = 0; tools != NULL && i < json_array_get_length (tools); i++)
    json_array_add_object_element (all, json_object_ref (json_array_get_object_element (tools, i)));
  for (guint i = 0; extra != NULL && i < json_array_get_length (extra); i++)
    {
      JsonObject *tool = json_array_get_object_element (extra, i);
      const char *name = json_object_get_string_member (tool, "name");

      if (gg_oam_tools_has (tools, name))
        {
          if (warnings != NULL)
            g_ptr_array_add (warnings, g_strdup_printf ("%s of %s is not offered: the session has its own "
                                                        "tool '%s'", json_object_get_string_member (tool, "tool"),
                                                        json_object_get_string_member (tool, "target"), name));
          continue;
        }
      json_array_add_object_element (all, json_object_ref (tool));
    }
  return all;
}
