/* gb-launcher.c: launching game instances from the launch declaration and
 * reaping them (spec section 3).
 *
 * A port is taken only when nothing is bound to it and nothing answers a
 * health check on it; a launch returns only once /health answers; a failed
 * launch carries the log path and the child's last output. Each child leads
 * its own process group, so a stop reaches whatever it started: the game's
 * own `close` first, then SIGTERM, then SIGKILL of the group. Only children
 * this launcher spawned and still tracks are ever signalled.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "gb-bridge.h"

#define READY_POLL_MS     100
#define TERM_WAIT_MS      1500
#define KILL_WAIT_MS      1500
#define EOF_WAIT_MS       500
#define MAX_LINE          8192

typedef struct {
  GbLauncher *launcher;   /* weak: the launcher owns every instance */
  guint port;
  GSubprocess *proc;
  gint64 pid;
  char *log_file;
  GOutputStream *log;
  GString *log_pending;
  gboolean log_writing;
  GQueue lines;
  GDataInputStream *out;
  GCancellable *cancellable;
  gboolean exited;
  gboolean eof;
  int wait_status;
  char *name;
  char *cwd;
  char *command_text;
  GList *waiters;         /* GTask: exit waits */
} Instance;

struct _GbLauncher {
  GObject parent_instance;

  SoupSession *session;
  GHashTable *instances;  /* port -> Instance */
};

G_DEFINE_FINAL_TYPE (GbLauncher, gb_launcher, G_TYPE_OBJECT)

static Instance *
instance_ref (Instance *inst)
{
  return g_rc_box_acquire (inst);
}

static void
instance_clear (Instance *inst)
{
  g_clear_object (&inst->proc);
  g_free (inst->log_file);
  g_clear_object (&inst->log);
  if (inst->log_pending != NULL)
    g_string_free (inst->log_pending, TRUE);
  g_queue_clear_full (&inst->lines, g_free);
  g_clear_object (&inst->out);
  g_clear_object (&inst->cancellable);
  g_free (inst->name);
  g_free (inst->cwd);
  g_free (inst->command_text);
}

static void
instance_unref (Instance *inst)
{
  g_rc_box_release_full (inst, (GDestroyNotify) instance_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Instance, instance_unref)

/* The group is ours only while we track the child: never signal after reaping. */
static void
signal_group (Instance *inst,
              int       signum)
{
  if (inst->pid > 0 && kill (-(pid_t) inst->pid, signum) != 0 && errno != ESRCH)
    g_debug ("kill(-%" G_GINT64_FORMAT ", %d): %s", inst->pid, signum, g_strerror (errno));
}

static void
gb_launcher_dispose (GObject *object)
{
  GbLauncher *self = GB_LAUNCHER (object);

  /* A safety net: the orderly path stops every instance before this. */
  if (self->instances != NULL)
    {
      GHashTableIter iter;
      Instance *inst;

      g_hash_table_iter_init (&iter, self->instances);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &inst))
        {
          if (!inst->exited)
            signal_group (inst, SIGKILL);
          g_cancellable_cancel (inst->cancellable);
          inst->launcher = NULL;
        }
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
  self->instances = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) instance_unref);
}

GbLauncher *
gb_launcher_new (SoupSession *session)
{
  GbLauncher *self = g_object_new (GB_TYPE_LAUNCHER, NULL);

  self->session = g_object_ref (session);
  return self;
}

/* ---- output: log file and the last lines -------------------------------- */

static void log_flush (Instance *inst);

static void
on_log_written (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(Instance) inst = user_data;
  g_autoptr(GError) error = NULL;

  inst->log_writing = FALSE;
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message (_("Instance log %s: %s"), inst->log_file, error->message);
      return;
    }
  log_flush (inst);
}

static void
log_flush (Instance *inst)
{
  GBytes *bytes;

  if (inst->log_writing || inst->log == NULL || inst->log_pending->len == 0)
    return;
  bytes = g_string_free_to_bytes (inst->log_pending);
  inst->log_pending = g_string_new (NULL);
  inst->log_writing = TRUE;
  g_object_set_data_full (G_OBJECT (inst->log), "bytes", bytes, (GDestroyNotify) g_bytes_unref);
  g_output_stream_write_all_async (inst->log, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                   G_PRIORITY_DEFAULT, NULL, on_log_written, instance_ref (inst));
}

static void
add_line (Instance   *inst,
          const char *line)
{
  g_autofree char *valid = g_utf8_make_valid (line, -1);

  if (strlen (valid) > MAX_LINE)
    valid[MAX_LINE] = '\0';
  g_string_append (inst->log_pending, valid);
  g_string_append_c (inst->log_pending, '\n');
  g_queue_push_tail (&inst->lines, g_steal_pointer (&valid));
  while (inst->lines.length > GB_LOG_LINES)
    g_free (g_queue_pop_head (&inst->lines));
  log_flush (inst);
}

static void
on_line (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(Instance) inst = user_data;
  g_autoptr(GError) error = NULL;
  gsize len;
  g_autofree char *line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (source), result, &len, &error);

  if (line == NULL)
    {
      inst->eof = TRUE;
      return;
    }
  add_line (inst, line);
  g_data_input_stream_read_line_async (inst->out, G_PRIORITY_DEFAULT, inst->cancellable, on_line,
                                       instance_ref (inst));
}

/* ---- exit --------------------------------------------------------------- */

static void
complete_waiters (Instance *inst)
{
  GList *waiters = g_steal_pointer (&inst->waiters);

  for (GList *l = waiters; l != NULL; l = l->next)
    {
      GTask *task = l->data;
      guint *timer = g_task_get_task_data (task);

      g_clear_handle_id (timer, g_source_remove);
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
    }
  g_list_free (waiters);
}

static void
on_exited (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(Instance) inst = user_data;

  if (!g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL))
    return;
  inst->exited = TRUE;
  inst->wait_status = g_subprocess_get_status (G_SUBPROCESS (source));
  g_debug ("Instance on port %u (pid %" G_GINT64_FORMAT ") exited", inst->port, inst->pid);
  /* Whatever the leader left behind in its group goes with it. */
  signal_group (inst, SIGTERM);
  complete_waiters (inst);
}

static gboolean
on_wait_timeout (gpointer user_data)
{
  GTask *task = user_data;
  Instance *inst = g_object_get_data (G_OBJECT (task), "instance");
  guint *timer = g_task_get_task_data (task);

  *timer = 0;
  inst->waiters = g_list_remove (inst->waiters, task);
  g_task_return_boolean (task, FALSE);
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

/* Completes TRUE when the child exited, FALSE after @ms. */
static void
wait_exit (Instance            *inst,
           guint                ms,
           GAsyncReadyCallback  callback,
           gpointer             user_data)
{
  GTask *task = g_task_new (NULL, NULL, callback, user_data);
  guint *timer = g_new0 (guint, 1);

  g_task_set_task_data (task, timer, g_free);
  g_object_set_data_full (G_OBJECT (task), "instance", instance_ref (inst), (GDestroyNotify) instance_unref);
  if (inst->exited)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  *timer = g_timeout_add (ms, on_wait_timeout, task);
  inst->waiters = g_list_prepend (inst->waiters, task);
}

static char *
describe_exit (Instance *inst)
{
  if (WIFEXITED (inst->wait_status))
    return g_strdup_printf ("the process exited with code %d", WEXITSTATUS (inst->wait_status));
  if (WIFSIGNALED (inst->wait_status))
    return g_strdup_printf ("the process was killed by signal %d (%s)", WTERMSIG (inst->wait_status),
                            g_strsignal (WTERMSIG (inst->wait_status)));
  return g_strdup ("the process ended");
}

static void
forget (GbLauncher *self,
        Instance   *inst)
{
  g_cancellable_cancel (inst->cancellable);
  if (self != NULL && g_hash_table_lookup (self->instances, GUINT_TO_POINTER (inst->port)) == inst)
    g_hash_table_remove (self->instances, GUINT_TO_POINTER (inst->port));
}

/* ---- choosing a port ------------------------------------------------------ */

/* Nothing bound to the port: we can bind it ourselves. With SO_REUSEADDR,
 * as the game's own listener will have it: a listening socket still blocks
 * the bind, but the TIME_WAIT left by a game that just closed on this port
 * does not, so a freshly stopped instance's port is free again at once. */
static gboolean
port_bindable (guint port)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                            G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, port);

  return socket != NULL && g_socket_bind (socket, address, TRUE, NULL);
}

static guint
os_assigned_port (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                            G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  if (socket == NULL || !g_socket_bind (socket, address, FALSE, NULL))
    return 0;
  bound = g_socket_get_local_address (socket, NULL);
  return bound != NULL ? g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)) : 0;
}

typedef struct {
  GbLaunchConfig *config;   /* borrowed for the launch: the caller keeps it alive */
  guint explicit_port;
  guint candidate;
  guint timeout_ms;
  GbLaunchProgress progress;
  gpointer progress_data;
  Instance *inst;
  gint64 started;
  guint poll_source;
  GbConnector *probe;
} Launch;

static void
launch_free (Launch *launch)
{
  g_clear_handle_id (&launch->poll_source, g_source_remove);
  g_clear_pointer (&launch->inst, instance_unref);
  g_clear_object (&launch->probe);
  g_free (launch);
}

static void try_candidate (GTask *task);
static void spawn (GTask *task, guint port);

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
  if (launch->explicit_port != 0)
    {
      if (!silent)
        {
          GError *usage = NULL;

          gb_error_usage (&usage, "Port %u is taken: something answers HTTP on it. Pick another port or "
                          "leave port out to let the bridge choose.", launch->candidate);
          g_task_return_error (task, usage);
          g_object_unref (task);
          return;
        }
      spawn (task, launch->candidate);
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

  while (launch->candidate <= last && !port_bindable (launch->candidate))
    {
      if (launch->explicit_port != 0)
        {
          GError *usage = NULL;

          gb_error_usage (&usage, "Port %u is taken: another process is bound to it. Pick another port or "
                          "leave port out to let the bridge choose.", launch->candidate);
          g_task_return_error (task, usage);
          g_object_unref (task);
          return;
        }
      launch->candidate++;
    }
  if (launch->candidate > last)
    {
      guint port = os_assigned_port ();

      if (port == 0)
        {
          GError *usage = NULL;

          gb_error_usage (&usage, "No free port: the range %u-%u is taken and the system assigned none",
                          launch->config->port_first, launch->config->port_last);
          g_task_return_error (task, usage);
          g_object_unref (task);
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
child_setup (gpointer user_data)
{
  /* Lead a process group, so a stop reaches the whole tree. */
  setpgid (0, 0);
}

static void
fail_launch (GTask      *task,
             const char *why)
{
  Launch *launch = g_task_get_task_data (task);
  Instance *inst = launch->inst;
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "Launch failed on port %u: %s.\nCommand: %s\nWorking directory: %s\nFull log: %s\n\n"
                          "Last output:\n", inst->port, why, inst->command_text, inst->cwd,
                          inst->log_file != NULL ? inst->log_file : "(none)");
  /* The last 20 lines are enough to see why; the log has the rest. */
  for (GList *l = g_list_nth (inst->lines.head, inst->lines.length > 20 ? inst->lines.length - 20 : 0);
       l != NULL; l = l->next)
    g_string_append_printf (text, "%s\n", (const char *) l->data);
  if (inst->lines.length == 0)
    g_string_append (text, "(nothing)\n");
  g_task_return_new_error (task, GB_ERROR, GB_ERROR_USAGE, "BridgeUsageError: %s", text->str);
  g_string_free (text, TRUE);
  g_object_unref (task);
}

static void
on_failed_exit (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  GTask *task = user_data;
  Launch *launch = g_task_get_task_data (task);
  const char *timed_out = g_object_get_data (G_OBJECT (task), "why");
  g_autofree char *why = timed_out != NULL ? g_strdup (timed_out) : describe_exit (launch->inst);

  g_task_propagate_boolean (G_TASK (result), NULL);
  forget (g_task_get_source_object (task), launch->inst);
  fail_launch (task, why);
}

static gboolean
on_eof_grace (gpointer user_data)
{
  GTask *task = user_data;
  Launch *launch = g_task_get_task_data (task);
  g_autofree char *why = NULL;

  launch->poll_source = 0;
  why = describe_exit (launch->inst);
  forget (g_task_get_source_object (task), launch->inst);
  fail_launch (task, why);
  return G_SOURCE_REMOVE;
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
  Instance *inst = launch->inst;

  json_object_set_int_member (r, "port", inst->port);
  json_object_set_int_member (r, "pid", inst->pid);
  if (manifest != NULL && manifest->game_name != NULL)
    json_object_set_string_member (r, "name", manifest->game_name);
  else if (inst->name != NULL)
    json_object_set_string_member (r, "name", inst->name);
  else
    json_object_set_null_member (r, "name");
  if (manifest != NULL && manifest->game_version != NULL)
    json_object_set_string_member (r, "version", manifest->game_version);
  else
    json_object_set_null_member (r, "version");
  json_object_set_string_member (r, "cwd", inst->cwd);
  json_object_set_int_member (r, "readyInMs", (g_get_monotonic_time () - launch->started) / 1000);
  json_object_set_string_member (r, "logFile", inst->log_file);
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
  g_autoptr(JsonObject) health = gb_connector_health_finish (GB_CONNECTOR (source), result, NULL);
  gint64 elapsed = (g_get_monotonic_time () - launch->started) / 1000;

  if (health != NULL && !launch->inst->exited)
    {
      gb_connector_manifest_async (launch->probe, FALSE, g_task_get_cancellable (task), on_version, task);
      return;
    }
  if (g_task_get_cancellable (task) != NULL && g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    {
      signal_group (launch->inst, SIGKILL);
      forget (g_task_get_source_object (task), launch->inst);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Launch cancelled");
      g_object_unref (task);
      return;
    }
  if (launch->inst->exited)
    {
      /* Let the reader drain what the child wrote last. */
      if (launch->inst->eof)
        on_eof_grace (task);
      else
        launch->poll_source = g_timeout_add (EOF_WAIT_MS, on_eof_grace, task);
      return;
    }
  if (elapsed >= launch->timeout_ms)
    {
      g_autofree char *why = g_strdup_printf ("GET /health did not answer within %ums", launch->timeout_ms);

      g_object_set_data_full (G_OBJECT (task), "why", g_steal_pointer (&why), g_free);
      signal_group (launch->inst, SIGKILL);
      wait_exit (launch->inst, KILL_WAIT_MS, on_failed_exit, task);
      return;
    }
  if (launch->progress != NULL)
    {
      g_autofree char *message = g_strdup_printf ("Waiting for the game on port %u to answer GET /health (%"
                                                  G_GINT64_FORMAT " ms)", launch->inst->port, elapsed);

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

static char **
substituted_argv (GbLaunchConfig *config,
                  guint           port)
{
  GPtrArray *argv = g_ptr_array_new ();

  if (config->command != NULL)
    {
      g_ptr_array_add (argv, g_strdup ("/bin/sh"));
      g_ptr_array_add (argv, g_strdup ("-c"));
      g_ptr_array_add (argv, gb_substitute_port (config->command, port));
    }
  else
    for (guint i = 0; config->argv[i] != NULL; i++)
      g_ptr_array_add (argv, gb_substitute_port (config->argv[i], port));
  g_ptr_array_add (argv, NULL);
  return (char **) g_ptr_array_free (argv, FALSE);
}

static GOutputStream *
open_log (guint    port,
          char   **out_path)
{
  g_autofree char *dir = g_build_filename (g_get_tmp_dir (), "game-bridge-logs", NULL);
  g_autofree char *name = g_strdup_printf ("instance-%u-%" G_GINT64_FORMAT ".log", port,
                                           g_get_real_time () / 1000);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  GFileOutputStream *stream;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    g_message (_("Cannot create %s: %s"), dir, g_strerror (errno));
  stream = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_PRIVATE, NULL, &error);
  if (stream == NULL)
    {
      g_message (_("Cannot open the instance log %s: %s"), path, error->message);
      return NULL;
    }
  *out_path = g_steal_pointer (&path);
  return G_OUTPUT_STREAM (stream);
}

static void
spawn (GTask *task,
       guint  port)
{
  GbLauncher *self = g_task_get_source_object (task);
  Launch *launch = g_task_get_task_data (task);
  GbLaunchConfig *config = launch->config;
  g_autoptr(GSubprocessLauncher) sl = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                                 G_SUBPROCESS_FLAGS_STDERR_MERGE);
  g_auto(GStrv) argv = substituted_argv (config, port);
  g_autoptr(GError) error = NULL;
  Instance *inst = g_rc_box_new0 (Instance);
  GInputStream *stdout_pipe;
  const char *identifier;

  inst->launcher = self;
  inst->port = port;
  inst->cancellable = g_cancellable_new ();
  inst->log_pending = g_string_new (NULL);
  g_queue_init (&inst->lines);
  inst->name = g_strdup (config->name);
  inst->cwd = g_strdup (config->cwd);
  inst->command_text = gb_launch_config_describe_command (config, port);
  inst->log = open_log (port, &inst->log_file);
  launch->inst = inst;

  g_subprocess_launcher_set_cwd (sl, config->cwd);
  for (guint i = 0; config->env != NULL && config->env[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (config->env[i], "=", 2);

      g_subprocess_launcher_setenv (sl, kv[0], kv[1] != NULL ? kv[1] : "", TRUE);
    }
  g_subprocess_launcher_set_child_setup (sl, child_setup, NULL, NULL);
  if (launch->progress != NULL)
    {
      g_autofree char *message = g_strdup_printf ("Starting %s on port %u", inst->command_text, port);

      launch->progress (0, launch->timeout_ms, message, launch->progress_data);
    }
  inst->proc = g_subprocess_launcher_spawnv (sl, (const char * const *) argv, &error);
  if (inst->proc == NULL)
    {
      g_autofree char *why = g_strdup_printf ("cannot start the process: %s", error->message);

      fail_launch (task, why);
      return;
    }
  /* GIO reaps children from its worker thread: a child that already exited
   * has no identifier any more (and nothing left to signal). */
  identifier = g_subprocess_get_identifier (inst->proc);
  inst->pid = identifier != NULL ? g_ascii_strtoll (identifier, NULL, 10) : 0;
  g_hash_table_replace (self->instances, GUINT_TO_POINTER (port), instance_ref (inst));
  g_debug ("Launched %s (pid %" G_GINT64_FORMAT ") on port %u, log %s", inst->command_text, inst->pid, port,
           inst->log_file);

  stdout_pipe = g_subprocess_get_stdout_pipe (inst->proc);
  inst->out = g_data_input_stream_new (stdout_pipe);
  g_data_input_stream_set_newline_type (inst->out, G_DATA_STREAM_NEWLINE_TYPE_ANY);
  g_data_input_stream_read_line_async (inst->out, G_PRIORITY_DEFAULT, inst->cancellable, on_line,
                                       instance_ref (inst));
  g_subprocess_wait_async (inst->proc, inst->cancellable, on_exited, instance_ref (inst));

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
      g_task_return_error (task, usage);
      g_object_unref (task);
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
  Instance *inst = g_hash_table_lookup (self->instances, GUINT_TO_POINTER (port));

  return inst != NULL ? inst->pid : 0;
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
  Instance *inst = g_hash_table_lookup (self->instances, GUINT_TO_POINTER (port));
  JsonArray *out;
  guint skip;

  if (inst == NULL)
    return NULL;
  out = json_array_new ();
  lines = MIN (lines, GB_LOG_LINES);
  skip = inst->lines.length > lines ? inst->lines.length - lines : 0;
  for (GList *l = g_list_nth (inst->lines.head, skip); l != NULL; l = l->next)
    json_array_add_string_element (out, l->data);
  if (out_log_file != NULL)
    *out_log_file = g_strdup (inst->log_file);
  return out;
}

/* ---- stopping ------------------------------------------------------------ */

typedef struct {
  Instance *inst;
  guint grace_ms;
  int stage;          /* 0 close, 1 SIGTERM, 2 SIGKILL */
  GbConnector *connector;
} Stop;

static void
stop_free (Stop *stop)
{
  instance_unref (stop->inst);
  g_clear_object (&stop->connector);
  g_free (stop);
}

static void
stop_done (GTask      *task,
           gboolean    stopped,
           const char *how)
{
  Stop *stop = g_task_get_task_data (task);
  JsonObject *r = json_object_new ();

  json_object_set_int_member (r, "port", stop->inst->port);
  json_object_set_boolean_member (r, "stopped", stopped);
  json_object_set_string_member (r, "how", how);
  if (stopped)
    forget (stop->inst->launcher, stop->inst);
  g_task_return_pointer (task, r, (GDestroyNotify) json_object_unref);
  g_object_unref (task);
}

static void
on_stop_wait (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  Stop *stop = g_task_get_task_data (task);
  gboolean exited = g_task_propagate_boolean (G_TASK (result), NULL);

  if (exited)
    {
      stop_done (task, TRUE, stop->stage == 0 ? "closed cleanly" : "terminated after the clean close timed out");
      return;
    }
  stop->stage++;
  if (stop->stage == 1)
    {
      signal_group (stop->inst, SIGTERM);
      wait_exit (stop->inst, TERM_WAIT_MS, on_stop_wait, task);
    }
  else if (stop->stage == 2)
    {
      signal_group (stop->inst, SIGKILL);
      wait_exit (stop->inst, KILL_WAIT_MS, on_stop_wait, task);
    }
  else
    stop_done (task, FALSE, "would not die");
}

static void
on_close_sent (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  /* The answer does not matter: the exit (or its absence) decides. */
  g_autoptr(JsonNode) root = gb_connector_get_finish (GB_CONNECTOR (source), result, NULL, NULL);
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
  Instance *inst = g_hash_table_lookup (self->instances, GUINT_TO_POINTER (port));
  Stop *stop;

  if (inst == NULL)
    {
      GError *usage = NULL;

      gb_error_usage (&usage, "The instance on port %u was not launched by this bridge, so the bridge will not "
                      "terminate it. Ask the game to close itself: call_tool with name \"close\" and port %u.",
                      port, port);
      g_task_return_error (task, usage);
      g_object_unref (task);
      return;
    }
  stop = g_new0 (Stop, 1);
  stop->inst = instance_ref (inst);
  stop->grace_ms = grace_ms;
  g_task_set_task_data (task, stop, (GDestroyNotify) stop_free);
  if (!inst->exited)
    {
      stop->connector = gb_connector_new (self->session, port, MAX (grace_ms, 100), NULL, NULL);
      gb_connector_get_async (stop->connector, "/command?cmd=close", MAX (grace_ms, 100), NULL, on_close_sent, NULL);
    }
  wait_exit (inst, grace_ms, on_stop_wait, task);
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
