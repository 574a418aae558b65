/* gb-instance-tools.c: the tools about launched instances (spec sections 3
 * and 4): launch_instance (the launch declaration, progress while the game
 * starts, its target on the bus once it answers), stop_instance (and the
 * target forgotten) and instance_log.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-instance-tools.h"

typedef struct {
  GbBridge *bridge;
  GbLaunchConfig *config;
  GbMcpCall *call;
} LaunchCall;

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

/**
 * gb_instance_tools_launch_async:
 * @self: the bridge
 * @args: launch_instance's arguments (port?, timeoutMs?)
 * @call: (nullable): the MCP call, for progress and log messages
 * @cancellable: (nullable): cancels the launch (the child is killed)
 * @callback: called with `{port, pid, name, version, cwd, readyInMs, logFile}`
 * @user_data: data for @callback
 */
void
gb_instance_tools_launch_async (GbBridge            *self,
                                JsonObject          *args,
                                GbMcpCall           *call,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
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

/**
 * gb_instance_tools_stop_async:
 * @self: the bridge
 * @port: the instance's port
 * @grace_ms: how long its clean close may take
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with `{port, stopped, how}`
 * @user_data: data for @callback
 */
void
gb_instance_tools_stop_async (GbBridge            *self,
                              guint                port,
                              guint                grace_ms,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_task_data (task, self, NULL);
  gb_launcher_stop_async (self->launcher, port, grace_ms, cancellable, on_stopped, task);
}

/**
 * gb_instance_tools_log:
 * @self: the bridge
 * @port: the instance's port
 * @lines: how many lines at most
 * @error: return location for a BridgeUsageError
 *
 * Returns: (transfer full): `{port, logFile?, lines}`, or %NULL when this
 *   bridge did not launch the instance
 */
JsonObject *
gb_instance_tools_log (GbBridge  *self,
                       guint      port,
                       guint      lines,
                       GError   **error)
{
  g_autofree char *log_file = NULL;
  JsonArray *tail = gb_launcher_get_log (self->launcher, port, lines, &log_file);
  JsonObject *r;

  if (tail == NULL)
    {
      gb_error_usage (error, "No instance on port %u was launched by this bridge, so it has no log here", port);
      return NULL;
    }
  r = json_object_new ();
  json_object_set_int_member (r, "port", port);
  if (log_file != NULL)
    json_object_set_string_member (r, "logFile", log_file);
  json_object_set_array_member (r, "lines", tail);
  return r;
}
