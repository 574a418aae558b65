/* gb-launcher.c: launching game instances from the launch declaration
 * (spec section 3), and the table of those this bridge launched and still
 * tracks (each a GbLaunchedInstance: gb-launched-instance.c).
 *
 * A port is taken only when nothing is bound to it and nothing answers a
 * health check on it; a launch returns only once /health answers; a failed
 * launch carries the log path and the child's last output. Only children
 * this launcher spawned and still tracks are ever signalled.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>

#include "gb-connector.h"
#include "gb-errors.h"
#include "gb-launched-instance.h"
#include "gb-launcher.h"

#define READY_POLL_MS     100
#define KILL_WAIT_MS      1500

struct _GbLauncher {
  GObject parent_instance;

  SoupSession *session;
  GHashTable *instances;  /* port -> GbLaunchedInstance */
};

G_DEFINE_FINAL_TYPE (GbLauncher, gb_launcher, G_TYPE_OBJECT)

static void
gb_launcher_dispose (GObject *object)
{
  GbLauncher *self = GB_LAUNCHER (object);

  /* A safety net: the orderly path stops every instance before this. */
  if (self->instances != NULL)
    {
      GHashTableIter iter;
      GbLaunchedInstance *inst;

      g_hash_table_iter_init (&iter, self->instances);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &inst))
        gg_child_process_signal_group (gb_launched_instance_get_child (inst), SIGKILL);
      g_clear_pointer (&self->instances, g_hash_table_unref);
    }
  g_clear_object (&self->session);
  G_OBJECT_CLASS (gb_launcher_parent_class)->dispose (object);
}

static void
gb_launcher_class_init (GbLauncherClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = gb_launcher_dispose;
}

static void
gb_launcher_init (GbLauncher *self)
{
  self->instances = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) gb_launched_instance_unref);
}

GbLauncher *
gb_launcher_new (SoupSession *session)
{
  GbLauncher *self = g_object_new (GB_TYPE_LAUNCHER, NULL);

  self->session = g_object_ref (session);
  return self;
}

static void
forget (GbLauncher         *self,
        GbLaunchedInstance *inst)
{
  guint port = gb_launched_instance_get_port (inst);

  if (self != NULL && self->instances != NULL &&
      g_hash_table_lookup (self->instances, GUINT_TO_POINTER (port)) == inst)
    g_hash_table_remove (self->instances, GUINT_TO_POINTER (port));
}

/* ---- choosing a port ------------------------------------------------------ */

typedef struct {
  GbLaunchConfig *config;   /* borrowed for the launch: the caller keeps it alive */
  guint explicit_port;
  guint candidate;
  guint timeout_ms;
  GbLaunchProgress progress;
  gpointer progress_data;
  GbLaunchedInstance *inst;
  gint64 started;
  guint poll_source;
  GbConnector *probe;
  char *why;                /* the failure, once known */
} Launch;

static void
launch_free (Launch *launch)
{
  g_clear_handle_id (&launch->poll_source, g_source_remove);
  g_clear_pointer (&launch->inst, gb_launched_instance_unref);
  g_clear_object (&launch->probe);
  g_free (launch->why);
  g_free (launch);
}

static void try_candidate (GTask *task);
static void spawn (GTask *task, guint port);

static void
return_usage (GTask   *task,
              GError  *usage)
{
  g_task_return_error (task, usage);
  g_object_unref (task);
}

static void
on_candidate_health (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  GTask *task = user_data;
  Launch *launch = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) health = gb_connector_health_finish (GB_CONNECTOR (source), result, &error);
  gboolean silent = health == NULL && g_error_matches (error, GB_ERROR, GB_ERROR_GAME_OFFLINE);

  if (g_task_return_error_if_cancelled (task))
    {
      g_object_unref (task);
      return;
    }
  if (launch->explicit_port != 0 && !silent)
    {
      GError *usage = NULL;

      gb_error_usage (&usage, "Port %u is taken: something answers HTTP on it. Pick another port or "
                      "leave port out to let the bridge choose.", launch->candidate);
      return_usage (task, usage);
      return;
    }
  if (silent)
    {
      spawn (task, launch->candidate);
      return;
    }
  launch->candidate++;
  try_candidate (task);
}

/* The next port of the range that passes both checks, else an OS port. */
static void
try_candidate (GTask *task)
{
  GbLauncher *self = g_task_get_source_object (task);
  Launch *launch = g_task_get_task_data (task);
  guint last = launch->explicit_port != 0 ? launch->explicit_port : launch->config->port_last;

  while (launch->candidate <= last && !gg_loopback_port_is_bindable ((guint16) launch->candidate))
    {
      if (launch->explicit_port != 0)
        {
          GError *usage = NULL;

          gb_error_usage (&usage, "Port %u is taken: another process is bound to it. Pick another port or "
                          "leave port out to let the bridge choose.", launch->candidate);
          return_usage (task, usage);
          return;
        }
      launch->candidate++;
    }
  if (launch->candidate > last)
    {
      guint port = gg_loopback_port_pick_free (NULL);

      if (port == 0)
        {
          GError *usage = NULL;

          gb_error_usage (&usage, "No free port: the range %u-%u is taken and the system assigned none",
                          launch->config->port_first, launch->config->port_last);
          return_usage (task, usage);
          return;
        }
      g_debug ("Port range %u-%u exhausted; using port %u", launch->config->port_first,
               launch->config->port_last, port);
      spawn (task, port);
      return;
    }
  g_clear_object (&launch->probe);
  launch->probe = gb_connector_new (self->session, launch->candidate, 1000, NULL, NULL);
  gb_connector_health_async (launch->probe, 1000, g_task_get_cancellable (task), on_candidate_health, task);
}

/* ---- spawning and waiting for /health ----------------------------------- */

static void
fail_launch (GTask      *task,
             const char *why)
{
  Launch *launch = g_task_get_task_data (task);
  g_autofree char *text = gb_launched_instance_describe_failure (launch->inst, why);

  forget (g_task_get_source_object (task), launch->inst);
  g_task_return_new_error (task, GB_ERROR, GB_ERROR_USAGE, "BridgeUsageError: %s", text);
  g_object_unref (task);
}

static void
on_failed_exit (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  GTask *task = user_data;
  Launch *launch = g_task_get_task_data (task);

  gg_child_process_wait_finish (GG_CHILD_PROCESS (source), result, NULL);
  fail_launch (task, launch->why);
}

static void poll_ready (GTask *task);

static gboolean
on_ready_timer (gpointer user_data)
{
  Launch *launch = g_task_get_task_data (user_data);

  launch->poll_source = 0;
  poll_ready (user_data);
  return G_SOURCE_REMOVE;
}

static void
on_version (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  GTask *task = user_data;
  Launch *launch = g_task_get_task_data (task);
  g_autoptr(GbManifest) manifest = gb_connector_manifest_finish (GB_CONNECTOR (source), result, NULL);
  JsonObject *r = json_object_new ();
  GbLaunchedInstance *inst = launch->inst;

  json_object_set_int_member (r, "port", gb_launched_instance_get_port (inst));
  json_object_set_int_member (r, "pid", gg_child_process_get_pid (gb_launched_instance_get_child (inst)));
  if (manifest != NULL && manifest->game_name != NULL)
    json_object_set_string_member (r, "name", manifest->game_name);
  else if (gb_launched_instance_get_name (inst) != NULL)
    json_object_set_string_member (r, "name", gb_launched_instance_get_name (inst));
  else
    json_object_set_null_member (r, "name");
  if (manifest != NULL && manifest->game_version != NULL)
    json_object_set_string_member (r, "version", manifest->game_version);
  else
    json_object_set_null_member (r, "version");
  json_object_set_string_member (r, "cwd", gb_launched_instance_get_cwd (inst));
  json_object_set_int_member (r, "readyInMs", (g_get_monotonic_time () - launch->started) / 1000);
  json_object_set_string_member (r, "logFile", gb_launched_instance_get_log_file (inst));
  g_task_return_pointer (task, r, (GDestroyNotify) json_object_unref);
  g_object_unref (task);
}

static void
on_ready_health (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GTask *task = user_data;
  Launch *launch = g_task_get_task_data (task);
  GgChildProcess *child = gb_launched_instance_get_child (launch->inst);
  g_autoptr(JsonObject) health = gb_connector_health_finish (GB_CONNECTOR (source), result, NULL);
  gint64 elapsed = (g_get_monotonic_time () - launch->started) / 1000;

  if (health != NULL && !gg_child_process_has_exited (child))
    {
      gb_connector_manifest_async (launch->probe, FALSE, g_task_get_cancellable (task), on_version, task);
      return;
    }
  if (g_task_get_cancellable (task) != NULL && g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    {
      gg_child_process_signal_group (child, SIGKILL);
      forget (g_task_get_source_object (task), launch->inst);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Launch cancelled");
      g_object_unref (task);
      return;
    }
  /* Exited: reported once its last output was read. */
  if (gg_child_process_has_exited (child))
    {
      g_autofree char *why = gg_child_process_describe_exit (child);

      fail_launch (task, why);
      return;
    }
  if (elapsed >= launch->timeout_ms)
    {
      launch->why = g_strdup_printf ("GET /health did not answer within %ums", launch->timeout_ms);
      gg_child_process_signal_group (child, SIGKILL);
      gg_child_process_wait_async (child, KILL_WAIT_MS, NULL, on_failed_exit, task);
      return;
    }
  if (launch->progress != NULL)
    {
      g_autofree char *message = g_strdup_printf ("Waiting for the game on port %u to answer GET /health (%"
                                                  G_GINT64_FORMAT " ms)", gb_launched_instance_get_port (launch->inst),
                                                  elapsed);

      launch->progress ((double) elapsed, (double) launch->timeout_ms, message, launch->progress_data);
    }
  launch->poll_source = g_timeout_add (READY_POLL_MS, on_ready_timer, task);
}

static void
poll_ready (GTask *task)
{
  Launch *launch = g_task_get_task_data (task);

  gb_connector_health_async (launch->probe, 1000, g_task_get_cancellable (task), on_ready_health, task);
}

static void
spawn (GTask *task,
       guint  port)
{
  GbLauncher *self = g_task_get_source_object (task);
  Launch *launch = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  if (launch->progress != NULL)
    {
      g_autofree char *command = gb_launch_config_describe_command (launch->config, port);
      g_autofree char *message = g_strdup_printf ("Starting %s on port %u", command, port);

      launch->progress (0, launch->timeout_ms, message, launch->progress_data);
    }
  launch->inst = gb_launched_instance_spawn (launch->config, port, &error);
  if (gb_launched_instance_get_child (launch->inst) == NULL)
    {
      g_autofree char *why = g_strdup_printf ("cannot start the process: %s", error->message);

      fail_launch (task, why);
      return;
    }
  g_hash_table_replace (self->instances, GUINT_TO_POINTER (port), gb_launched_instance_ref (launch->inst));
  g_clear_object (&launch->probe);
  launch->probe = gb_connector_new (self->session, port, 1000, NULL, NULL);
  poll_ready (task);
}

/**
 * gb_launcher_launch_async:
 * @self: a launcher
 * @config: the launch declaration (kept alive by the caller until completion)
 * @port: 0 = choose from the declaration's range
 * @timeout_ms: 0 = the declaration's readyTimeoutMs
 * @progress: (nullable): called while the game starts
 * @progress_data: data for @progress
 * @cancellable: (nullable): cancels the launch (the child is killed)
 * @callback: called once /health answers or the launch failed
 * @user_data: data for @callback
 *
 * Launches one instance.
 */
void
gb_launcher_launch_async (GbLauncher          *self,
                          GbLaunchConfig      *config,
                          guint                port,
                          guint                timeout_ms,
                          GbLaunchProgress     progress,
                          gpointer             progress_data,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Launch *launch = g_new0 (Launch, 1);

  launch->config = config;
  launch->explicit_port = port;
  launch->candidate = port != 0 ? port : config->port_first;
  launch->timeout_ms = timeout_ms != 0 ? timeout_ms : config->ready_timeout_ms;
  launch->progress = progress;
  launch->progress_data = progress_data;
  launch->started = g_get_monotonic_time ();
  g_task_set_task_data (task, launch, (GDestroyNotify) launch_free);
  if (port != 0 && g_hash_table_contains (self->instances, GUINT_TO_POINTER (port)))
    {
      GError *usage = NULL;

      gb_error_usage (&usage, "This bridge already runs an instance on port %u", port);
      return_usage (task, usage);
      return;
    }
  try_candidate (task);
}

JsonObject *
gb_launcher_launch_finish (GbLauncher    *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

gboolean
gb_launcher_owns (GbLauncher *self,
                  guint       port)
{
  return g_hash_table_contains (self->instances, GUINT_TO_POINTER (port));
}

gint64
gb_launcher_get_pid (GbLauncher *self,
                     guint       port)
{
  GbLaunchedInstance *inst = g_hash_table_lookup (self->instances, GUINT_TO_POINTER (port));

  return inst != NULL ? gg_child_process_get_pid (gb_launched_instance_get_child (inst)) : 0;
}

GArray *
gb_launcher_list_ports (GbLauncher *self)
{
  GArray *ports = g_array_new (FALSE, FALSE, sizeof (guint));
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, self->instances);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      guint port = GPOINTER_TO_UINT (key);

      g_array_append_val (ports, port);
    }
  return ports;
}

JsonArray *
gb_launcher_get_log (GbLauncher *self,
                     guint       port,
                     guint       lines,
                     char      **out_log_file)
{
  GbLaunchedInstance *inst = g_hash_table_lookup (self->instances, GUINT_TO_POINTER (port));

  if (inst == NULL)
    return NULL;
  if (out_log_file != NULL)
    *out_log_file = g_strdup (gb_launched_instance_get_log_file (inst));
  return gb_launched_instance_get_log (inst, MIN (lines, GB_LOG_LINES));
}

/* ---- stopping ------------------------------------------------------------ */

static void
on_instance_stopped (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GbLaunchedInstance *inst = g_task_get_task_data (task);
  JsonObject *r = gb_launched_instance_stop_finish (result, NULL);

  if (json_object_get_boolean_member (r, "stopped"))
    forget (g_task_get_source_object (task), inst);
  g_task_return_pointer (task, r, (GDestroyNotify) json_object_unref);
}

/**
 * gb_launcher_stop_async:
 * @self: a launcher
 * @port: an instance this launcher started
 * @grace_ms: how long the clean close may take
 * @cancellable: (nullable): unused beyond the task
 * @callback: called with `{port, stopped, how}`
 * @user_data: data for @callback
 *
 * Closes cleanly, then terminates the process group. Refuses ports this
 * launcher does not track.
 */
void
gb_launcher_stop_async (GbLauncher          *self,
                        guint                port,
                        guint                grace_ms,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  GbLaunchedInstance *inst = g_hash_table_lookup (self->instances, GUINT_TO_POINTER (port));

  if (inst == NULL)
    {
      GError *usage = NULL;

      gb_error_usage (&usage, "The instance on port %u was not launched by this bridge, so the bridge will not "
                      "terminate it. Ask the game to close itself: call_tool with name \"close\" and port %u.",
                      port, port);
      return_usage (task, usage);
      return;
    }
  g_task_set_task_data (task, gb_launched_instance_ref (inst), (GDestroyNotify) gb_launched_instance_unref);
  gb_launched_instance_stop_async (inst, self->session, grace_ms, NULL, on_instance_stopped, task);
}

JsonObject *
gb_launcher_stop_finish (GbLauncher    *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
on_one_stopped (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  GTask *task = user_data;
  guint *pending = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) r = gb_launcher_stop_finish (GB_LAUNCHER (source), result, &error);

  if (r != NULL)
    g_debug ("Instance on port %" G_GINT64_FORMAT ": %s", json_object_get_int_member (r, "port"),
             json_object_get_string_member (r, "how"));
  if (--(*pending) == 0)
    g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

void
gb_launcher_stop_all_async (GbLauncher          *self,
                            guint                grace_ms,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, NULL, callback, user_data);
  g_autoptr(GArray) ports = gb_launcher_list_ports (self);
  guint *pending = g_new0 (guint, 1);

  g_task_set_task_data (task, pending, g_free);
  *pending = ports->len + 1;
  for (guint i = 0; i < ports->len; i++)
    gb_launcher_stop_async (self, g_array_index (ports, guint, i), grace_ms, NULL, on_one_stopped,
                            g_object_ref (task));
  if (--(*pending) == 0)
    g_task_return_boolean (task, TRUE);
}

void
gb_launcher_stop_all_finish (GbLauncher   *self,
                             GAsyncResult *result)
{
  g_task_propagate_boolean (G_TASK (result), NULL);
}
