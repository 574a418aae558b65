/* gb-toolsets.c: list_toolsets and describe_toolset (spec section 4) on a
 * target already resolved: an HTTP game's manifest toolsets, the
 * composites that suit it, bridge and passthrough; another plugin's target's
 * tools grouped by their first tag, plus the bridge toolset. Either says
 * whether the target serves screenshots (gamegate's extension): an HTTP game
 * as its /health or /tools said, else as GET /screenshot answers a small
 * probe; another plugin's target by a screenshot tool in its list.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-screenshot-http.h"
#include "gb-screenshot.h"
#include "gb-toolsets.h"

static JsonObject *
copy_object (JsonObject *o)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), o);
  g_autoptr(JsonNode) copy = gg_json_copy (node);

  return json_object_ref (json_node_get_object (copy));
}

typedef struct {
  GbBridge *bridge;
  GgTarget *target;
  char *name;   /* describe_toolset */
  GbManifest *manifest;
} Toolsets;

static void
return_object (GTask      *task,
               JsonObject *object)
{
  g_task_return_pointer (task, object, (GDestroyNotify) json_object_unref);
  g_object_unref (task);
}

static void
return_error (GTask  *task,
              GError *error)
{
  g_task_return_error (task, error);
  g_object_unref (task);
}

static void
toolsets_free (Toolsets *t)
{
  g_clear_object (&t->target);
  g_free (t->name);
  g_clear_pointer (&t->manifest, gb_manifest_unref);
  g_free (t);
}

static JsonObject *
toolset_summary (GbToolset *toolset)
{
  JsonObject *o = json_object_new ();
  JsonArray *tools = json_array_new ();

  json_object_set_string_member (o, "name", toolset->name);
  json_object_set_string_member (o, "description", toolset->description);
  for (guint i = 0; i < toolset->tools->len; i++)
    json_array_add_string_element (tools, ((GbTool *) g_ptr_array_index (toolset->tools, i))->name);
  json_object_set_array_member (o, "tools", tools);
  return o;
}

/* The composites that suit @game_name, as a toolset. */
static GbToolset *
composite_toolset (GbBridge   *self,
                   const char *game_name)
{
  g_autoptr(GPtrArray) composites = gg_bus_list_composite_tools (self->bus);
  GbToolset *toolset = g_new0 (GbToolset, 1);

  toolset->name = g_strdup ("composite");
  toolset->description = g_strdup ("Tools that chain several commands or wait for what /command cannot report. "
                                   "They shadow a game command of the same name.");
  toolset->tools = g_ptr_array_new_with_free_func ((GDestroyNotify) gb_tool_free);
  for (guint i = 0; i < composites->len; i++)
    {
      GgCompositeTool *c = g_ptr_array_index (composites, i);
      GbTool *tool;

      if (!gg_composite_tool_applies_to (c, game_name))
        continue;
      tool = g_new0 (GbTool, 1);
      tool->name = g_strdup (gg_composite_tool_get_name (c));
      tool->description = g_strdup (gg_composite_tool_get_description (c));
      tool->command = g_strdup (tool->name);
      tool->toolset = g_strdup ("composite");
      tool->input_schema = copy_object (gg_composite_tool_get_input_schema (c));
      g_ptr_array_add (toolset->tools, tool);
    }
  return toolset;
}

static JsonObject *
passthrough_json (GbManifest *manifest)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "name", "passthrough");
  json_object_set_string_member (o, "description",
                                 manifest->passthrough_description != NULL && *manifest->passthrough_description
                                 ? manifest->passthrough_description
                                 : "Any other name given to call_tool is sent to the game as a raw command.");
  if (manifest->passthrough_examples != NULL)
    json_object_set_array_member (o, "examples", json_array_ref (manifest->passthrough_examples));
  return o;
}

static const char *
screenshot_word (Toolsets *t)
{
  switch (gb_connector_get_screenshot_support (gb_http_target_get_connector (GB_HTTP_TARGET (t->target))))
    {
    case 1:
      return "available";
    case 0:
      return "unavailable";
    default:
      return "unknown";
    }
}

static void
describe (GTask      *task,
          GbManifest *manifest)
{
  Toolsets *t = g_task_get_task_data (task);
  guint port = gb_connector_get_port (gb_http_target_get_connector (GB_HTTP_TARGET (t->target)));
  GbToolset *bridge = gb_bridge_toolset_get ();
  g_autoptr(GbToolset) composites = composite_toolset (t->bridge, manifest->game_name);
  JsonObject *r = json_object_new ();

  json_object_set_int_member (r, "port", port);
  if (t->name == NULL)
    {
      JsonArray *sets = json_array_new ();

      if (manifest->game_name != NULL)
        json_object_set_string_member (r, "game", manifest->game_name);
      if (manifest->game_version != NULL)
        json_object_set_string_member (r, "version", manifest->game_version);
      json_object_set_string_member (r, "manifest", manifest->source);
      json_object_set_string_member (r, "status", g_str_equal (manifest->source, "fallback") ? "live-no-manifest" : "live");
      for (guint i = 0; i < manifest->toolsets->len; i++)
        json_array_add_object_element (sets, toolset_summary (g_ptr_array_index (manifest->toolsets, i)));
      if (composites->tools->len > 0)
        json_array_add_object_element (sets, toolset_summary (composites));
      json_array_add_object_element (sets, toolset_summary (bridge));
      json_array_add_object_element (sets, passthrough_json (manifest));
      json_object_set_array_member (r, "toolsets", sets);
      json_object_set_string_member (r, "screenshot", screenshot_word (t));
      if (g_str_equal (manifest->source, "fallback"))
        json_object_set_string_member (r, "note", "This game publishes no command list (GET /tools answered 404): "
                                       "work through raw_command and read the state with get_state.");
    }
  else
    {
      const GbToolset *set = gb_manifest_find_toolset (manifest, t->name);
      JsonArray *tools = json_array_new ();

      if (set == NULL && g_str_equal (t->name, "bridge"))
        set = bridge;
      else if (set == NULL && g_str_equal (t->name, "composite"))
        set = composites;
      if (set == NULL && g_str_equal (t->name, "passthrough"))
        {
          json_array_unref (tools);
          json_object_set_string_member (r, "toolset", "passthrough");
          json_object_set_object_member (r, "passthrough", passthrough_json (manifest));
          return_object (task, r);
          return;
        }
      if (set == NULL)
        {
          g_autoptr(JsonArray) names = gb_manifest_toolset_names (manifest);
          g_autofree char *list = NULL;
          GError *error = NULL;
          JsonNode *n;

          json_array_add_string_element (names, "bridge");
          json_array_add_string_element (names, "passthrough");
          if (composites->tools->len > 0)
            json_array_add_string_element (names, "composite");
          n = json_node_init_array (json_node_alloc (), names);
          list = gg_json_to_string (n);
          json_node_unref (n);
          json_array_unref (tools);
          json_object_unref (r);
          gb_error_usage (&error, "No toolset '%.100s' on port %u; it has %s", t->name, port, list);
          return_error (task, error);
          return;
        }
      json_object_set_string_member (r, "toolset", set->name);
      json_object_set_string_member (r, "description", set->description);
      for (guint i = 0; i < set->tools->len; i++)
        json_array_add_object_element (tools, gb_tool_to_json (g_ptr_array_index (set->tools, i)));
      json_object_set_array_member (r, "tools", tools);
    }
  return_object (task, r);
}

/* The probe's answer is on the connector now; an error means nothing more. */
static void
on_probed (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  GTask *task = user_data;
  Toolsets *t = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GbScreenshot) shot = gb_screenshot_http_finish (result, &error);

  if (shot == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      return_error (task, g_steal_pointer (&error));
      return;
    }
  if (shot == NULL)
    g_debug ("list_toolsets: the screenshot probe failed: %s", error->message);
  describe (task, t->manifest);
}

static void
on_toolsets_manifest (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  GTask *task = user_data;
  Toolsets *t = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GbManifest) manifest = gb_connector_manifest_finish (GB_CONNECTOR (source), result, &error);

  if (manifest == NULL)
    {
      gb_bridge_forget_if_offline (t->bridge, t->target, error);
      return_error (task, error);
      return;
    }
  if (t->name == NULL && gb_connector_get_screenshot_support (GB_CONNECTOR (source)) < 0)
    {
      /* Neither /health nor /tools said: a small frame tells. */
      GbScreenshotRequest probe = { .width = 16, .height = 16 };

      t->manifest = g_steal_pointer (&manifest);
      gb_screenshot_http_async (GB_CONNECTOR (source), &probe, g_task_get_cancellable (task), on_probed, task);
      return;
    }
  describe (task, manifest);
}

static void
on_toolsets_health (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  GTask *task = user_data;
  Toolsets *t = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonObject) health = gb_connector_health_finish (GB_CONNECTOR (source), result, &error);

  if (health == NULL)
    {
      gb_bridge_forget_if_offline (t->bridge, t->target, error);
      return_error (task, error);
      return;
    }
  gb_connector_manifest_async (GB_CONNECTOR (source), FALSE, g_task_get_cancellable (task), on_toolsets_manifest,
                               task);
}

/* A target of another plugin: its tools grouped by their first tag. */
static void
on_target_tools (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GTask *task = user_data;
  Toolsets *t = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonArray) tools = gg_target_list_tools_finish (GG_TARGET (source), result, &error);
  JsonObject *r, *groups;
  JsonArray *sets;
  g_autoptr(GList) names = NULL;

  if (tools == NULL)
    {
      return_error (task, error);
      return;
    }
  groups = json_object_new ();
  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonNode *tn = json_array_get_element (tools, i);
      JsonObject *tool, *entry;
      const char *set = "tools";
      JsonNode *tags;

      if (!JSON_NODE_HOLDS_OBJECT (tn))
        continue;
      tool = json_node_get_object (tn);
      tags = json_object_get_member (tool, "tags");
      if (tags != NULL && JSON_NODE_HOLDS_ARRAY (tags) && json_array_get_length (json_node_get_array (tags)) > 0 &&
          json_node_get_value_type (json_array_get_element (json_node_get_array (tags), 0)) == G_TYPE_STRING)
        set = json_array_get_string_element (json_node_get_array (tags), 0);
      if (t->name != NULL && !g_str_equal (t->name, set))
        continue;
      if (!json_object_has_member (groups, set))
        json_object_set_array_member (groups, set, json_array_new ());
      entry = json_object_new ();
      json_object_set_string_member (entry, "name", json_object_get_string_member_with_default (tool, "name", ""));
      json_object_set_string_member (entry, "description",
                                     json_object_get_string_member_with_default (tool, "description", ""));
      if (json_object_has_member (tool, "parameters"))
        json_object_set_member (entry, "inputSchema", json_node_copy (json_object_get_member (tool, "parameters")));
      json_array_add_object_element (json_object_get_array_member (groups, set), entry);
    }
  /* The bridge toolset works here too (gb-call-tool.c), all but close. */
  if (t->name == NULL || g_str_equal (t->name, "bridge"))
    {
      GbToolset *bridge = gb_bridge_toolset_get ();
      JsonArray *entries = json_array_new ();

      for (guint i = 0; i < bridge->tools->len; i++)
        {
          GbTool *tool = g_ptr_array_index (bridge->tools, i);
          JsonObject *entry;

          if (g_str_equal (tool->name, "close"))
            continue;
          entry = json_object_new ();
          json_object_set_string_member (entry, "name", tool->name);
          json_object_set_string_member (entry, "description", tool->description);
          json_object_set_object_member (entry, "inputSchema", copy_object (tool->input_schema));
          json_array_add_object_element (entries, entry);
        }
      if (!json_object_has_member (groups, "bridge"))
        json_object_set_array_member (groups, "bridge", entries);
      else
        json_array_unref (entries);
    }
  r = json_object_new ();
  json_object_set_string_member (r, "instance", gg_target_get_id (t->target));
  sets = json_array_new ();
  names = json_object_get_members (groups);
  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonObject *set = json_object_new ();

      json_object_set_string_member (set, "name", l->data);
      json_object_set_array_member (set, "tools", json_array_ref (json_object_get_array_member (groups, l->data)));
      json_array_add_object_element (sets, set);
    }
  json_object_unref (groups);
  json_object_set_array_member (r, "toolsets", sets);
  if (t->name == NULL)
    json_object_set_string_member (r, "screenshot", gb_screenshot_find_tool (tools) != NULL ? "available"
                                                                                         : "unavailable");
  return_object (task, r);
}

/**
 * gb_toolsets_async:
 * @bridge: the bridge
 * @target: the target the call names, resolved once by the caller
 * @name: (nullable): %NULL for list_toolsets, else describe_toolset's toolset
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the result object
 * @user_data: data for @callback
 */
void
gb_toolsets_async (GbBridge            *bridge,
                   GgTarget            *target,
                   const char          *name,
                   GCancellable        *cancellable,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  Toolsets *t = g_new0 (Toolsets, 1);

  t->bridge = bridge;
  t->target = g_object_ref (target);
  t->name = g_strdup (name);
  g_task_set_task_data (task, t, (GDestroyNotify) toolsets_free);
  if (GB_IS_HTTP_TARGET (t->target))
    /* Health first: a frame gone backwards (a relaunch) drops a stale manifest. */
    gb_connector_health_async (gb_http_target_get_connector (GB_HTTP_TARGET (t->target)), 0,
                               cancellable, on_toolsets_health, task);
  else
    gg_target_list_tools_async (t->target, cancellable, on_target_tools, task);
}

JsonObject *
gb_toolsets_finish (GAsyncResult  *result,
                    GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}
