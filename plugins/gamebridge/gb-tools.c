/* gb-tools.c: the seven tools of spec section 4, as the GbMcpToolsProvider
 * the MCP side serves.
 *
 * Games are reached only through the bus: every live HTTP game is a
 * GbHttpTarget added to it, and any other plugin's target (a GABP mod) is
 * callable by its `instance` id. Composite tools registered on the bus are
 * resolved before anything a game offers.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-bridge.h"
#include "gb-mcp-server.h"
#include "gb-tools.h"

#define STOP_ALL_GRACE_MS 1500
#define DEFAULT_GRACE_MS  3000

static const struct {
  const char *name;
  const char *description;
  const char *schema;
} bridge_tools[] = {
  { "list_instances",
    "Find running game instances: registry entries plus a sweep of the scan range. Returns "
    "{registryDir, live[], stale[], notAGame[], free[]}.",
    "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}" },
  { "launch_instance",
    "Start a game instance from the project's launch declaration (gamebridge.json); returns once it answers "
    "GET /health: {port, pid, name, version, cwd, readyInMs, logFile}.",
    "{\"type\":\"object\",\"properties\":{\"port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535,"
    "\"description\":\"A port to use; omit to let the bridge choose\"},"
    "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":3600000,"
    "\"description\":\"How long to wait for the game to answer (default: readyTimeoutMs of the declaration)\"}},"
    "\"additionalProperties\":false}" },
  { "stop_instance",
    "Close an instance this bridge launched: its own close command first, then terminate it. "
    "Returns {port, stopped, how}.",
    "{\"type\":\"object\",\"properties\":{\"port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},"
    "\"graceMs\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":600000,"
    "\"description\":\"How long the clean close may take (default 3000)\"}},\"additionalProperties\":false}" },
  { "list_toolsets",
    "The instance's toolsets (from its manifest) plus bridge and passthrough.",
    "{\"type\":\"object\",\"properties\":{\"port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},"
    "\"instance\":{\"type\":\"string\",\"description\":\"A target id from list_instances (gabp:..., http:...)\"}},"
    "\"additionalProperties\":false}" },
  { "describe_toolset",
    "The exact JSON Schemas of one toolset's tools.",
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"minLength\":1},"
    "\"port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},\"instance\":{\"type\":\"string\"}},"
    "\"required\":[\"name\"],\"additionalProperties\":false}" },
  { "call_tool",
    "Call a tool by name (composite, the game's manifest, then passthrough as a raw command); waits until "
    "the command was applied and returns the state after it.",
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"minLength\":1},"
    "\"port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},"
    "\"instance\":{\"type\":\"string\",\"description\":\"A target id from list_instances, instead of port\"},"
    "\"arguments\":{\"type\":\"object\"}},\"required\":[\"name\"],\"additionalProperties\":false}" },
  { "instance_log",
    "The last lines (at most 200) of a launched instance's output.",
    "{\"type\":\"object\",\"properties\":{\"port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},"
    "\"lines\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":200}},\"additionalProperties\":false}" },
};

static char *find_launch_hint (GbOptions *options);

/* ---- the bridge ----------------------------------------------------------- */

GbBridge *
gb_bridge_new (GgBus      *bus,
               GbOptions  *options,
               GError    **error)
{
  g_autoptr(GArray) ports = NULL;
  g_autoptr(GbManifest) file_manifest = NULL;
  GbBridge *self;

  if (!options->no_scan)
    {
      ports = gb_scan_parse_range (options->scan_range, error);
      if (ports == NULL)
        return NULL;
    }
  if (options->manifest != NULL)
    {
      file_manifest = gb_manifest_load_file (options->manifest, error);
      if (file_manifest == NULL)
        return NULL;
    }
  self = g_new0 (GbBridge, 1);
  self->bus = g_object_ref (bus);
  self->options = *options;
  self->options.scan_range = g_strdup (options->scan_range);
  self->options.registry_dir = g_strdup (options->registry_dir);
  self->options.config = g_strdup (options->config);
  self->options.launch_hint = find_launch_hint (options);
  self->options.manifest = g_strdup (options->manifest);
  /* Discovery probes many ports at once; the default of 2 per host would serialize them. */
  self->session = soup_session_new_with_options ("max-conns", 256, "max-conns-per-host", 32, NULL);
  soup_session_set_proxy_resolver (self->session, NULL);   /* loopback, never through a proxy */
  self->launcher = gb_launcher_new (self->session);
  self->file_manifest = g_steal_pointer (&file_manifest);
  self->targets = g_hash_table_new_full (NULL, NULL, NULL, g_object_unref);
  self->scan_ports = g_steal_pointer (&ports);
  self->registry_dir = options->no_registry ? NULL : g_strdup (options->registry_dir);
  self->eager_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return self;
}

void
gb_bridge_free (GbBridge *self)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->targets);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    gg_bus_remove_target (self->bus, value);
  g_hash_table_unref (self->targets);
  g_object_run_dispose (G_OBJECT (self->launcher));
  g_object_unref (self->launcher);
  g_object_unref (self->session);
  g_clear_pointer (&self->file_manifest, gb_manifest_unref);
  g_clear_pointer (&self->scan_ports, g_array_unref);
  g_free (self->registry_dir);
  g_hash_table_unref (self->eager_names);
  gb_options_clear (&self->options);
  g_object_unref (self->bus);
  g_free (self);
}

/* The hint GameOffline shows: --launch-hint, else the launch declaration. */
static char *
find_launch_hint (GbOptions *options)
{
  g_autofree char *path = NULL;
  g_autoptr(GbLaunchConfig) config = NULL;

  if (options->launch_hint != NULL)
    return g_strdup (options->launch_hint);
  path = options->config != NULL ? g_strdup (options->config) : gb_launch_config_find (".");
  config = path != NULL ? gb_launch_config_load (path, NULL) : NULL;
  if (config == NULL)
    return NULL;
  if (config->command != NULL)
    return g_strdup (config->command);
  return g_strjoinv (" ", config->argv);
}

static void
on_tools_changed (GgTarget *target,
                  gpointer  user_data)
{
  GbBridge *self = user_data;

  if (self->options.eager && self->server != NULL)
    gb_mcp_server_notify_tools_changed (self->server);
}

/**
 * gb_bridge_ensure_target:
 * @self: the bridge
 * @port: a game port
 *
 * Returns: (transfer none): the target of @port, created and added to the bus
 *   on first use
 */
GbHttpTarget *
gb_bridge_ensure_target (GbBridge *self,
                         guint     port)
{
  GbHttpTarget *target = g_hash_table_lookup (self->targets, GUINT_TO_POINTER (port));
  g_autoptr(GbConnector) connector = NULL;
  g_autoptr(GError) error = NULL;

  if (target != NULL)
    return target;
  connector = gb_connector_new (self->session, port, (guint) self->options.timeout_ms, self->options.launch_hint,
                                self->file_manifest);
  target = gb_http_target_new (connector);
  g_signal_connect (target, "tools-changed", G_CALLBACK (on_tools_changed), self);
  g_hash_table_insert (self->targets, GUINT_TO_POINTER (port), target);
  if (!gg_bus_add_target (self->bus, GG_TARGET (target), &error))
    g_debug ("Target http:%u: %s", port, error->message);
  return target;
}

void
gb_bridge_forget_target (GbBridge *self,
                         guint     port)
{
  GbHttpTarget *target = g_hash_table_lookup (self->targets, GUINT_TO_POINTER (port));

  if (target == NULL)
    return;
  g_signal_handlers_disconnect_by_data (target, self);
  gg_bus_remove_target (self->bus, GG_TARGET (target));
  g_hash_table_remove (self->targets, GUINT_TO_POINTER (port));
}

static void
on_all_stopped (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;

  gb_launcher_stop_all_finish (GB_LAUNCHER (source), result);
  g_task_return_boolean (task, TRUE);
}

/* Every launched instance closed, then terminated if need be. */
void
gb_bridge_shutdown_async (GbBridge            *self,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  GTask *task = g_task_new (NULL, NULL, callback, user_data);

  gb_launcher_stop_all_async (self->launcher, STOP_ALL_GRACE_MS, on_all_stopped, task);
}

void
gb_bridge_shutdown_finish (GbBridge     *self,
                           GAsyncResult *result)
{
  g_task_propagate_boolean (G_TASK (result), NULL);
}

/* ---- the provider --------------------------------------------------------- */

static JsonObject *
schema_of (guint i)
{
  g_autoptr(JsonNode) node = gg_json_parse (bridge_tools[i].schema, -1, 16, NULL);

  return json_object_ref (json_node_get_object (node));
}

static JsonArray *
provider_list_tools (gpointer provider)
{
  GbBridge *self = provider;
  JsonArray *tools = json_array_new ();
  GHashTableIter iter;
  gpointer value;

  for (guint i = 0; i < G_N_ELEMENTS (bridge_tools); i++)
    {
      JsonObject *o = json_object_new ();

      json_object_set_string_member (o, "name", bridge_tools[i].name);
      json_object_set_string_member (o, "description", bridge_tools[i].description);
      json_object_set_object_member (o, "inputSchema", schema_of (i));
      json_array_add_object_element (tools, o);
    }
  if (!self->options.eager)
    return tools;

  /* --eager: every tool of every known game, flatly, first name wins. */
  g_hash_table_remove_all (self->eager_names);
  g_hash_table_iter_init (&iter, self->targets);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      GbManifest *manifest = gb_connector_peek_manifest (gb_http_target_get_connector (value));

      for (guint i = 0; manifest != NULL && i < manifest->toolsets->len; i++)
        {
          GbToolset *toolset = g_ptr_array_index (manifest->toolsets, i);

          for (guint j = 0; j < toolset->tools->len; j++)
            {
              GbTool *tool = g_ptr_array_index (toolset->tools, j);
              JsonObject *o;
              gboolean reserved = FALSE;

              for (guint k = 0; k < G_N_ELEMENTS (bridge_tools); k++)
                reserved |= g_str_equal (bridge_tools[k].name, tool->name);
              if (reserved || g_hash_table_contains (self->eager_names, tool->name))
                continue;
              g_hash_table_insert (self->eager_names, g_strdup (tool->name), g_strdup (toolset->name));
              o = gb_tool_to_json (tool);
              /* Flat tools take the port beside their own arguments. */
              if (json_object_has_member (json_object_get_object_member (o, "inputSchema"), "properties"))
                {
                  JsonObject *props = json_object_get_object_member (json_object_get_object_member (o, "inputSchema"),
                                                                     "properties");
                  if (!json_object_has_member (props, "port"))
                    {
                      JsonObject *port = json_object_new ();

                      json_object_set_string_member (port, "type", "integer");
                      json_object_set_string_member (port, "description", "The game's port (default: --port)");
                      json_object_set_object_member (props, "port", port);
                    }
                }
              json_array_add_object_element (tools, o);
            }
        }
    }
  return tools;
}

static JsonObject *
provider_call_tool_finish (gpointer       provider,
                           GAsyncResult  *result,
                           GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
provider_call_tool_async (gpointer             provider,
                          const char          *name,
                          JsonObject          *arguments,
                          GbMcpCall           *call,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  GbBridge *self = provider;
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  g_autoptr(JsonObject) args = arguments != NULL ? json_object_ref (arguments) : json_object_new ();
  GError *error = NULL;
  gint known = -1;

  /* The bus tap: what follows on the bus carries this request's id. */
  if (gg_bus_is_observed (self->bus) && cancellable != NULL)
    {
      g_autofree char *id = gg_bus_new_correlation (self->bus, "mcp");
      g_autoptr(JsonNode) payload = json_node_new (JSON_NODE_OBJECT);
      JsonObject *object = json_object_new ();
      GgBusRecord record = { .kind = "request", .plugin = "mcp", .name = "tools/call",
                             .correlation = id, .duration_us = -1, .payload = payload };

      json_object_set_string_member (object, "tool", name);
      json_object_set_object_member (object, "arguments", json_object_ref (args));
      json_node_take_object (payload, object);
      gg_bus_set_correlation (cancellable, "mcp", NULL, id);
      gg_bus_report (self->bus, &record);
    }

  for (guint i = 0; i < G_N_ELEMENTS (bridge_tools); i++)
    if (g_str_equal (bridge_tools[i].name, name))
      known = (gint) i;
  if (known < 0)
    {
      /* The flat list may have grown since the client last asked for it. */
      if (self->options.eager && !g_hash_table_contains (self->eager_names, name))
        json_array_unref (provider_list_tools (self));
      if (self->options.eager && g_hash_table_contains (self->eager_names, name))
        {
          gb_tools_run_eager (self, task, name, args);
          return;
        }
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "Unknown tool: %s", name);
      g_object_unref (task);
      return;
    }
  {
    g_autoptr(JsonObject) schema = schema_of ((guint) known);

    if (!gb_tools_check_arguments (schema, args, name, &error))
      {
        g_task_return_error (task, error);
        g_object_unref (task);
        return;
      }
  }
  gb_tools_dispatch (self, task, name, args, call);
}

static const GbMcpToolsProvider provider = {
  provider_list_tools,
  provider_call_tool_async,
  provider_call_tool_finish,
};

const GbMcpToolsProvider *
gb_tools_provider (void)
{
  return &provider;
}
