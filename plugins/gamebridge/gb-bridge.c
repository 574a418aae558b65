/* gb-bridge.c: the bridge behind `gamegate mcp`'s tools: the resolved
 * options, one HTTP session for every game, the launcher, and the HTTP
 * targets it put on the bus (one per port, made on first use).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-bridge.h"
#include "gb-mcp-server.h"
#include "gb-resources.h"

#define STOP_ALL_GRACE_MS 1500

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
  gb_image_limits_init (&self->image_limits);
  self->resource_interval_ms = GB_RESOURCES_DEFAULT_INTERVAL_MS;
  return self;
}

void
gb_bridge_free (GbBridge *self)
{
  GHashTableIter iter;
  gpointer value;

  gb_resources_detach (self);
  g_clear_pointer (&self->watches, g_hash_table_unref);
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
  gb_connector_set_image_limits (connector, &self->image_limits);
  target = gb_http_target_new (connector);
  g_signal_connect (target, "tools-changed", G_CALLBACK (on_tools_changed), self);
  g_hash_table_insert (self->targets, GUINT_TO_POINTER (port), target);
  if (!gg_bus_add_target_full (self->bus, GG_TARGET (target), "mcp", &error))
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

/* ---- resolving what a tool names ------------------------------------------ */

/**
 * gb_bridge_resolve_port:
 * @self: the bridge
 * @args: a tool's arguments
 * @inner: (nullable): call_tool's inner arguments
 *
 * Returns: the port a tool names: `port` at the top, else inside the
 *   arguments, else --port (itself GAME_BRIDGE_PORT, else 7777)
 */
guint
gb_bridge_resolve_port (GbBridge   *self,
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

/**
 * gb_bridge_resolve_target:
 * @self: the bridge
 * @args: a tool's arguments
 * @inner: (nullable): call_tool's inner arguments
 * @error: return location for a BridgeUsageError
 *
 * Returns: (transfer full): the target a tool names: `instance` (any bus
 *   target) or the port's HTTP target (made on first use)
 */
GgTarget *
gb_bridge_resolve_target (GbBridge    *self,
                          JsonObject  *args,
                          JsonObject  *inner,
                          GError     **error)
{
  const char *instance = json_object_get_string_member_with_default (args, "instance", NULL);
  GgTarget *target;
  guint64 port;

  if (instance == NULL)
    return g_object_ref (GG_TARGET (gb_bridge_ensure_target (self, gb_bridge_resolve_port (self, args, inner))));
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

/**
 * gb_bridge_forget_if_offline:
 * @self: the bridge
 * @target: the target a call failed on
 * @error: why
 *
 * Drops the HTTP target of a port where no game answers any more, unless
 * this bridge launched it (a launched game's target lives until its stop).
 */
void
gb_bridge_forget_if_offline (GbBridge     *self,
                             GgTarget     *target,
                             const GError *error)
{
  if (GB_IS_HTTP_TARGET (target) && g_error_matches (error, GB_ERROR, GB_ERROR_GAME_OFFLINE) &&
      !gb_launcher_owns (self->launcher, gb_connector_get_port (gb_http_target_get_connector (GB_HTTP_TARGET (target)))))
    gb_bridge_forget_target (self, gb_connector_get_port (gb_http_target_get_connector (GB_HTTP_TARGET (target))));
}
