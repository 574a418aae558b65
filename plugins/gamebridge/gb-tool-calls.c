/* gb-tool-calls.c: what each of the seven tools does, and the resolution of
 * `port` (explicit -> inside arguments -> --port -> GAME_BRIDGE_PORT -> 7777)
 * and of call_tool's name (composite, manifest, passthrough).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-instances.h"
#include "gb-tools.h"

/* ---- results ------------------------------------------------------------- */

static JsonObject *
wrap (JsonNode *node)
{
  JsonObject *result = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonObject *text = json_object_new ();
  g_autofree char *json = gg_json_to_string (node);

  json_object_set_string_member (text, "type", "text");
  json_object_set_string_member (text, "text", json);
  json_array_add_object_element (content, text);
  json_object_set_array_member (result, "content", content);
  if (JSON_NODE_HOLDS_OBJECT (node))
    json_object_set_member (result, "structuredContent", json_node_copy (node));
  else
    {
      JsonObject *wrapped = json_object_new ();

      json_object_set_member (wrapped, "result", json_node_copy (node));
      json_object_set_object_member (result, "structuredContent", wrapped);
    }
  return result;
}

static void
return_node (GTask    *task,
             JsonNode *node)
{
  g_task_return_pointer (task, wrap (node), (GDestroyNotify) json_object_unref);
  json_node_unref (node);
  g_object_unref (task);
}

static void
return_object (GTask      *task,
               JsonObject *object)
{
  return_node (task, json_node_init_object (json_node_alloc (), object));
  json_object_unref (object);
}

static void
return_error (GTask  *task,
              GError *error)
{
  g_task_return_error (task, error);
  g_object_unref (task);
}

/* ---- resolution ------------------------------------------------------------ */

static guint
resolve_port (GbBridge   *self,
              JsonObject *args,
              JsonObject *inner)
{
  JsonNode *n = json_object_get_member (args, "port");

  if (n == NULL && inner != NULL)
    n = json_object_get_member (inner, "port");
  if (n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_INT64 &&
      json_node_get_int (n) >= 1 && json_node_get_int (n) <= 65535)
    return (guint) json_node_get_int (n);
  return (guint) self->options.port;
}

/* The target a call names: `instance` (any bus target) or `port`. */
static GgTarget *
resolve_target (GbBridge    *self,
                JsonObject  *args,
                JsonObject  *inner,
                GError     **error)
{
  const char *instance = json_object_get_string_member_with_default (args, "instance", NULL);
  GgTarget *target;
  guint64 port;

  if (instance == NULL)
    return g_object_ref (GG_TARGET (gb_bridge_ensure_target (self, resolve_port (self, args, inner))));
  if (g_str_has_prefix (instance, "http:") &&
      g_ascii_string_to_unsigned (instance + 5, 10, 1, 65535, &port, NULL))
    return g_object_ref (GG_TARGET (gb_bridge_ensure_target (self, (guint) port)));
  target = gg_bus_lookup_target (self->bus, instance);
  if (target == NULL)
    {
      gb_error_usage (error, "No instance '%.100s' is known; list_instances shows the live ones", instance);
      return NULL;
    }
  return g_object_ref (target);
}

static void
forget_if_offline (GbBridge     *self,
                   GgTarget     *target,
                   const GError *error)
{
  if (GB_IS_HTTP_TARGET (target) && g_error_matches (error, GB_ERROR, GB_ERROR_GAME_OFFLINE) &&
      !gb_launcher_owns (self->launcher, gb_connector_get_port (gb_http_target_get_connector (GB_HTTP_TARGET (target)))))
    gb_bridge_forget_target (self, gb_connector_get_port (gb_http_target_get_connector (GB_HTTP_TARGET (target))));
}

/* ---- call_tool --------------------------------------------------------------- */

typedef struct {
  GbBridge *bridge;
  GgTarget *target;
  char *name;
  JsonObject *arguments;
  GgCompositeTool *composite;
} Call;

static void
call_free (Call *c)
{
  g_clear_object (&c->target);
  g_free (c->name);
  g_clear_pointer (&c->arguments, json_object_unref);
  g_clear_pointer (&c->composite, gg_composite_tool_unref);
  g_free (c);
}

static void
on_target_call (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  GTask *task = user_data;
  Call *c = g_task_get_task_data (task);
  GError *error = NULL;
  JsonNode *node = gg_target_call_tool_finish (GG_TARGET (source), result, &error);

  if (node == NULL)
    {
      forget_if_offline (c->bridge, c->target, error);
      return_error (task, error);
      return;
    }
  if (!GB_IS_HTTP_TARGET (c->target))
    {
      JsonObject *r = json_object_new ();

      json_object_set_string_member (r, "instance", gg_target_get_id (c->target));
      json_object_set_string_member (r, "tool", c->name);
      json_object_set_string_member (r, "via", "target");
      json_object_set_member (r, "result", node);
      return_object (task, r);
      return;
    }
  return_node (task, node);
}

static void
on_composite_done (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  Call *c = g_task_get_task_data (task);
  GError *error = NULL;
  JsonNode *node = gg_composite_tool_call_finish (c->composite, result, &error);
  JsonObject *r;

  if (node == NULL)
    {
      return_error (task, error);
      return;
    }
  r = json_object_new ();
  if (GB_IS_HTTP_TARGET (c->target))
    json_object_set_int_member (r, "port",
                                gb_connector_get_port (gb_http_target_get_connector (GB_HTTP_TARGET (c->target))));
  else
    json_object_set_string_member (r, "instance", gg_target_get_id (c->target));
  json_object_set_string_member (r, "tool", c->name);
  json_object_set_string_member (r, "via", "composite");
  json_object_set_member (r, "result", node);
  return_object (task, r);
}

static void
run_call (GTask *task)
{
  Call *c = g_task_get_task_data (task);

  if (c->composite != NULL)
    gg_composite_tool_call_async (c->composite, c->target, c->arguments, g_task_get_cancellable (task),
                                  on_composite_done, task);
  else
    gg_target_call_tool_async (c->target, c->name, c->arguments, g_task_get_cancellable (task),
                               on_target_call, task);
}

static void
on_composite_manifest (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  GTask *task = user_data;
  Call *c = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GbManifest) manifest = gb_connector_manifest_finish (GB_CONNECTOR (source), result, &error);

  if (manifest == NULL)
    {
      forget_if_offline (c->bridge, c->target, error);
      return_error (task, error);
      return;
    }
  /* A composite that does not suit this game leaves the name to the game. */
  if (!gg_composite_tool_applies_to (c->composite, manifest->game_name))
    g_clear_pointer (&c->composite, gg_composite_tool_unref);
  run_call (task);
}

static void
start_call (GbBridge   *self,
            GTask      *task,
            const char *name,
            JsonObject *args,
            JsonObject *inner)
{
  Call *c = g_new0 (Call, 1);
  GError *error = NULL;

  c->bridge = self;
  c->name = g_strdup (name);
  g_task_set_task_data (task, c, (GDestroyNotify) call_free);
  c->target = resolve_target (self, args, inner, &error);
  if (c->target == NULL)
    {
      return_error (task, error);
      return;
    }
  if (inner != NULL)
    json_object_remove_member (inner, "port");
  c->arguments = inner != NULL ? json_object_ref (inner) : json_object_new ();
  c->composite = gg_bus_lookup_composite_tool (self->bus, name);
  if (c->composite != NULL && gg_composite_tool_get_only (c->composite) != NULL)
    {
      if (GB_IS_HTTP_TARGET (c->target))
        {
          gb_connector_manifest_async (gb_http_target_get_connector (GB_HTTP_TARGET (c->target)), FALSE,
                                       g_task_get_cancellable (task), on_composite_manifest, task);
          return;
        }
      else
        {
          g_autoptr(JsonObject) info = gg_target_get_info (c->target);

          if (!gg_composite_tool_applies_to (c->composite,
                                             json_object_get_string_member_with_default (info, "name", NULL)))
            g_clear_pointer (&c->composite, gg_composite_tool_unref);
        }
    }
  run_call (task);
}

static JsonObject *
copy_object (JsonObject *o)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), o);
  g_autoptr(JsonNode) copy = gg_json_copy (node);

  return json_object_ref (json_node_get_object (copy));
}

void
gb_tools_run_eager (GbBridge   *self,
                    GTask      *task,
                    const char *name,
                    JsonObject *arguments)
{
  g_autoptr(JsonObject) inner = copy_object (arguments);
  g_autoptr(JsonObject) args = json_object_new ();

  start_call (self, task, name, args, inner);
}

/* ---- list_toolsets / describe_toolset ----------------------------------------- */

typedef struct {
  GbBridge *bridge;
  GgTarget *target;
  char *name;   /* describe_toolset */
} Toolsets;

static void
toolsets_free (Toolsets *t)
{
  g_clear_object (&t->target);
  g_free (t->name);
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

static void
describe (GTask      *task,
          GbManifest *manifest)
{
  Toolsets *t = g_task_get_task_data (task);
  guint port = gb_connector_get_port (gb_http_target_get_connector (GB_HTTP_TARGET (t->target)));
  g_autoptr(GbToolset) bridge = gb_bridge_toolset ();
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
      forget_if_offline (t->bridge, t->target, error);
      return_error (task, error);
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
      forget_if_offline (t->bridge, t->target, error);
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
  return_object (task, r);
}

static void
start_toolsets (GbBridge   *self,
                GTask      *task,
                JsonObject *args,
                const char *name)
{
  Toolsets *t = g_new0 (Toolsets, 1);
  GError *error = NULL;

  t->bridge = self;
  t->name = g_strdup (name);
  g_task_set_task_data (task, t, (GDestroyNotify) toolsets_free);
  t->target = resolve_target (self, args, NULL, &error);
  if (t->target == NULL)
    return_error (task, error);
  else if (GB_IS_HTTP_TARGET (t->target))
    /* Health first: a frame gone backwards (a relaunch) drops a stale manifest. */
    gb_connector_health_async (gb_http_target_get_connector (GB_HTTP_TARGET (t->target)), 0,
                               g_task_get_cancellable (task), on_toolsets_health, task);
  else
    gg_target_list_tools_async (t->target, g_task_get_cancellable (task), on_target_tools, task);
}

/* ---- launch, stop, log, list ---------------------------------------------------- */

typedef struct {
  GbBridge *bridge;
  GbLaunchConfig *config;
  GbMcpCall *call;
} LaunchCall;

static void
launch_call_free (LaunchCall *l)
{
  g_clear_pointer (&l->config, gb_launch_config_free);
  g_free (l);
}

static void
on_launch_progress (double      elapsed,
                    double      total,
                    const char *message,
                    gpointer    user_data)
{
  LaunchCall *l = user_data;

  if (l->call != NULL)
    gb_mcp_call_report_progress (l->call, elapsed, total, message);
}

static void
on_launched (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  GTask *task = user_data;
  LaunchCall *l = g_task_get_task_data (task);
  GError *error = NULL;
  JsonObject *r = gb_launcher_launch_finish (GB_LAUNCHER (source), result, &error);
  GbHttpTarget *target;
  JsonObject *info;

  if (r == NULL)
    {
      return_error (task, error);
      return;
    }
  target = gb_bridge_ensure_target (l->bridge, (guint) json_object_get_int_member (r, "port"));
  info = json_object_new ();
  json_object_set_boolean_member (info, "launchedByThisBridge", TRUE);
  json_object_set_int_member (info, "pid", json_object_get_int_member (r, "pid"));
  json_object_set_string_member (info, "logFile", json_object_get_string_member (r, "logFile"));
  gb_http_target_set_info (target, info);
  json_object_unref (info);
  if (l->call != NULL)
    {
      g_autofree char *text = g_strdup_printf ("Launched port %" G_GINT64_FORMAT " (pid %" G_GINT64_FORMAT "), log %s",
                                               json_object_get_int_member (r, "port"),
                                               json_object_get_int_member (r, "pid"),
                                               json_object_get_string_member (r, "logFile"));

      gb_mcp_call_log (l->call, "info", text);
    }
  return_object (task, r);
}

static void
start_launch (GbBridge   *self,
              GTask      *task,
              JsonObject *args,
              GbMcpCall  *call)
{
  LaunchCall *l = g_new0 (LaunchCall, 1);
  g_autofree char *path = NULL;
  g_autofree char *cwd = g_get_current_dir ();
  GError *error = NULL;

  l->bridge = self;
  l->call = call;
  g_task_set_task_data (task, l, (GDestroyNotify) launch_call_free);
  path = self->options.config != NULL ? g_strdup (self->options.config) : gb_launch_config_find (cwd);
  if (path == NULL)
    {
      gb_error_usage (&error, "No launch declaration: no gamebridge.json or .gamebridge.json in %s or a parent "
                      "directory. Write one, or pass --config <file>.", cwd);
      return_error (task, error);
      return;
    }
  l->config = gb_launch_config_load (path, &error);
  if (l->config == NULL)
    {
      return_error (task, error);
      return;
    }
  gb_launcher_launch_async (self->launcher, l->config,
                            (guint) json_object_get_int_member_with_default (args, "port", 0),
                            (guint) json_object_get_int_member_with_default (args, "timeoutMs", 0),
                            on_launch_progress, l, g_task_get_cancellable (task), on_launched, task);
}

static void
on_stopped (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  GTask *task = user_data;
  GbBridge *self = g_task_get_task_data (task);
  GError *error = NULL;
  JsonObject *r = gb_launcher_stop_finish (GB_LAUNCHER (source), result, &error);

  if (r == NULL)
    {
      return_error (task, error);
      return;
    }
  if (json_object_get_boolean_member (r, "stopped"))
    gb_bridge_forget_target (self, (guint) json_object_get_int_member (r, "port"));
  return_object (task, r);
}

static void
on_listed (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  GTask *task = user_data;
  GError *error = NULL;
  JsonObject *r = gb_instances_list_finish (g_task_get_task_data (task), result, &error);

  if (r == NULL)
    return_error (task, error);
  else
    return_object (task, r);
}

/**
 * gb_tools_dispatch:
 * @self: the bridge
 * @task: (transfer full): completed with the CallToolResult
 * @name: one of the seven tools
 * @arguments: its arguments, already checked against its schema
 * @call: the MCP call (progress, logging)
 *
 * Runs one of the seven tools.
 */
void
gb_tools_dispatch (GbBridge   *self,
                   GTask      *task,
                   const char *name,
                   JsonObject *arguments,
                   GbMcpCall  *call)
{
  if (g_str_equal (name, "list_instances"))
    {
      g_task_set_task_data (task, self, NULL);
      gb_instances_list_async (self, g_task_get_cancellable (task), on_listed, task);
    }
  else if (g_str_equal (name, "launch_instance"))
    start_launch (self, task, arguments, call);
  else if (g_str_equal (name, "stop_instance"))
    {
      g_task_set_task_data (task, self, NULL);
      gb_launcher_stop_async (self->launcher, resolve_port (self, arguments, NULL),
                              (guint) json_object_get_int_member_with_default (arguments, "graceMs", 3000),
                              g_task_get_cancellable (task), on_stopped, task);
    }
  else if (g_str_equal (name, "list_toolsets"))
    start_toolsets (self, task, arguments, NULL);
  else if (g_str_equal (name, "describe_toolset"))
    start_toolsets (self, task, arguments, json_object_get_string_member (arguments, "name"));
  else if (g_str_equal (name, "call_tool"))
    {
      JsonNode *inner = json_object_get_member (arguments, "arguments");
      g_autoptr(JsonObject) copy = inner != NULL ? copy_object (json_node_get_object (inner)) : json_object_new ();

      start_call (self, task, json_object_get_string_member (arguments, "name"), arguments, copy);
    }
  else /* instance_log */
    {
      guint port = resolve_port (self, arguments, NULL);
      g_autofree char *log_file = NULL;
      JsonArray *lines = gb_launcher_get_log (self->launcher, port,
                                              (guint) json_object_get_int_member_with_default (arguments, "lines",
                                                                                               GB_LOG_LINES),
                                              &log_file);
      JsonObject *r;
      GError *error = NULL;

      if (lines == NULL)
        {
          gb_error_usage (&error, "No instance on port %u was launched by this bridge, so it has no log here", port);
          return_error (task, error);
          return;
        }
      r = json_object_new ();
      json_object_set_int_member (r, "port", port);
      if (log_file != NULL)
        json_object_set_string_member (r, "logFile", log_file);
      json_object_set_array_member (r, "lines", lines);
      return_object (task, r);
    }
}
