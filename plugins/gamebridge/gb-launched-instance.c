/* gb-launched-instance.c: one game instance this bridge launched and still
 * tracks (spec section 3): the child process (its own process group, from
 * plugin-api's GgChildProcess), the log file its output goes to for its
 * whole life, the message of a failed launch, and the stop: the game's own
 * `close` first, then SIGTERM, then SIGKILL of the group.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>

#include <glib/gi18n-lib.h>

#include "gb-connector.h"
#include "gb-errors.h"
#include "gb-launched-instance.h"

#define TERM_WAIT_MS  1500

struct _GbLaunchedInstance {
  guint port;
  GgChildProcess *child;
  char *log_file;
  GOutputStream *log;
  GString *log_pending;
  gboolean log_writing;
  char *name;
  char *cwd;
  char *command_text;
};

static void
instance_clear (GbLaunchedInstance *self)
{
  if (self->child != NULL)
    g_signal_handlers_disconnect_by_data (self->child, self);
  g_clear_object (&self->child);
  g_free (self->log_file);
  g_clear_object (&self->log);
  g_string_free (self->log_pending, TRUE);
  g_free (self->name);
  g_free (self->cwd);
  g_free (self->command_text);
}

GbLaunchedInstance *
gb_launched_instance_ref (GbLaunchedInstance *self)
{
  return g_rc_box_acquire (self);
}

void
gb_launched_instance_unref (GbLaunchedInstance *self)
{
  g_rc_box_release_full (self, (GDestroyNotify) instance_clear);
}

/* ---- the log file -------------------------------------------------------- */

static void log_flush (GbLaunchedInstance *self);

static void
on_log_written (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GbLaunchedInstance) self = user_data;
  g_autoptr(GError) error = NULL;

  self->log_writing = FALSE;
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message (_("Instance log %s: %s"), self->log_file, error->message);
      return;
    }
  log_flush (self);
}

static void
log_flush (GbLaunchedInstance *self)
{
  GBytes *bytes;

  if (self->log_writing || self->log == NULL || self->log_pending->len == 0)
    return;
  bytes = g_string_free_to_bytes (self->log_pending);
  self->log_pending = g_string_new (NULL);
  self->log_writing = TRUE;
  g_object_set_data_full (G_OBJECT (self->log), "bytes", bytes, (GDestroyNotify) g_bytes_unref);
  g_output_stream_write_all_async (self->log, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                   G_PRIORITY_DEFAULT, NULL, on_log_written, gb_launched_instance_ref (self));
}

static void
on_line (GgChildProcess *child,
         const char     *line,
         gpointer        user_data)
{
  GbLaunchedInstance *self = user_data;

  g_string_append (self->log_pending, line);
  g_string_append_c (self->log_pending, '\n');
  log_flush (self);
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

/* ---- spawning -------------------------------------------------------------- */

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

/**
 * gb_launched_instance_spawn:
 * @config: the launch declaration
 * @port: the port the game is to listen on
 * @error: return location for a #GError
 *
 * Starts the game of @config on @port, its output into a new log file.
 * When the process cannot start, the instance is still returned (with its
 * command and log for the failure message) and @error says why.
 *
 * Returns: (transfer full): the instance; its child is %NULL when @error is set
 */
GbLaunchedInstance *
gb_launched_instance_spawn (GbLaunchConfig  *config,
                            guint            port,
                            GError         **error)
{
  GbLaunchedInstance *self = g_rc_box_new0 (GbLaunchedInstance);
  g_auto(GStrv) argv = substituted_argv (config, port);
  g_auto(GStrv) env = g_get_environ ();

  self->port = port;
  self->log_pending = g_string_new (NULL);
  self->name = g_strdup (config->name);
  self->cwd = g_strdup (config->cwd);
  self->command_text = gb_launch_config_describe_command (config, port);
  self->log = open_log (port, &self->log_file);
  for (guint i = 0; config->env != NULL && config->env[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (config->env[i], "=", 2);

      env = g_environ_setenv (env, kv[0], kv[1] != NULL ? kv[1] : "", TRUE);
    }
  self->child = gg_child_process_spawn ((const char * const *) argv, (const char * const *) env, config->cwd,
                                        GG_CHILD_PROCESS_CAPTURE_OUTPUT, error);
  if (self->child != NULL)
    {
      g_signal_connect (self->child, "line", G_CALLBACK (on_line), self);
      g_debug ("Launched %s (pid %" G_GINT64_FORMAT ") on port %u, log %s", self->command_text,
               gg_child_process_get_pid (self->child), port, self->log_file);
    }
  return self;
}

guint
gb_launched_instance_get_port (GbLaunchedInstance *self)
{
  return self->port;
}

/* Returns: (transfer none) (nullable): the process; NULL if it never started. */
GgChildProcess *
gb_launched_instance_get_child (GbLaunchedInstance *self)
{
  return self->child;
}

const char *
gb_launched_instance_get_log_file (GbLaunchedInstance *self)
{
  return self->log_file;
}

const char *
gb_launched_instance_get_name (GbLaunchedInstance *self)
{
  return self->name;
}

const char *
gb_launched_instance_get_cwd (GbLaunchedInstance *self)
{
  return self->cwd;
}

const char *
gb_launched_instance_get_command (GbLaunchedInstance *self)
{
  return self->command_text;
}

JsonArray *
gb_launched_instance_get_log (GbLaunchedInstance *self,
                              guint               lines)
{
  JsonArray *out = json_array_new ();
  g_auto(GStrv) tail = self->child != NULL ? gg_child_process_get_tail (self->child, lines) : NULL;

  for (guint i = 0; tail != NULL && tail[i] != NULL; i++)
    json_array_add_string_element (out, tail[i]);
  return out;
}

char *
gb_launched_instance_describe_failure (GbLaunchedInstance *self,
                                       const char         *why)
{
  GString *text = g_string_new (NULL);
  /* The last 20 lines are enough to see why; the log has the rest. */
  g_auto(GStrv) tail = self->child != NULL ? gg_child_process_get_tail (self->child, 20) : NULL;

  g_string_append_printf (text, "Launch failed on port %u: %s.\nCommand: %s\nWorking directory: %s\nFull log: %s\n\n"
                          "Last output:\n", self->port, why, self->command_text, self->cwd,
                          self->log_file != NULL ? self->log_file : "(none)");
  for (guint i = 0; tail != NULL && tail[i] != NULL; i++)
    g_string_append_printf (text, "%s\n", tail[i]);
  if (tail == NULL || tail[0] == NULL)
    g_string_append (text, "(nothing)\n");
  return g_string_free (text, FALSE);
}

/* ---- stopping -------------------------------------------------------------- */

typedef struct {
  GbLaunchedInstance *instance;
  GbConnector *connector;
} Stop;

static void
stop_free (Stop *stop)
{
  gb_launched_instance_unref (stop->instance);
  g_clear_object (&stop->connector);
  g_free (stop);
}

static void
on_close_sent (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  /* The answer does not matter: the exit (or its absence) decides. */
  g_autoptr(JsonNode) root = gb_connector_get_finish (GB_CONNECTOR (source), result, NULL, NULL);
}

static void
on_child_stopped (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Stop *stop = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  GgChildStopHow how = gg_child_process_stop_finish (GG_CHILD_PROCESS (source), result, &error);
  JsonObject *r = json_object_new ();

  json_object_set_int_member (r, "port", stop->instance->port);
  json_object_set_boolean_member (r, "stopped", how != GG_CHILD_STOP_WOULD_NOT_DIE);
  json_object_set_string_member (r, "how", how == GG_CHILD_STOP_EXITED ? "closed cleanly"
                                           : how == GG_CHILD_STOP_WOULD_NOT_DIE ? "would not die"
                                           : "terminated after the clean close timed out");
  g_task_return_pointer (task, r, (GDestroyNotify) json_object_unref);
}

void
gb_launched_instance_stop_async (GbLaunchedInstance  *self,
                                 SoupSession         *session,
                                 guint                grace_ms,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  Stop *stop = g_new0 (Stop, 1);

  stop->instance = gb_launched_instance_ref (self);
  g_task_set_task_data (task, stop, (GDestroyNotify) stop_free);
  if (!gg_child_process_has_exited (self->child))
    {
      stop->connector = gb_connector_new (session, self->port, MAX (grace_ms, 100), NULL, NULL);
      gb_connector_get_async (stop->connector, "/command?cmd=close", MAX (grace_ms, 100), NULL, on_close_sent, NULL);
    }
  /* A grace of 0 still gives the close its moment: SIGTERM follows at once. */
  gg_child_process_stop_async (self->child, MAX (grace_ms, 1), TERM_WAIT_MS, NULL, on_child_stopped, task);
}

JsonObject *
gb_launched_instance_stop_finish (GAsyncResult  *result,
                                  GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}
