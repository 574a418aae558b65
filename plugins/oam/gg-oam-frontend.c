/* gg-oam-frontend.c: `gamegate oam` (one client on stdin/stdout) and the
 * daemon's Unix socket, $XDG_RUNTIME_DIR/gamegate/oam.sock (0600 in a 0700
 * directory). Each connection has its own sessions, NPCs and worlds; a
 * disconnect cancels and frees only that client's work.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <gio/gunixsocketaddress.h>
#include <sys/stat.h>

#include "gg-oam-frontend.h"
#include "gg-oam-params.h"

struct _GgOamFrontend {
  GObject parent_instance;

  GgBus *bus;                   /* weak: the bus owns its front ends */
  GgOamSettings settings;
  char *socket_path;

  /* command-line overrides of `gamegate oam` */
  int opt_max_sessions;
  double opt_tool_timeout;
  gboolean opt_no_scripted;

  GSocketService *service;
  GPtrArray *connections;       /* GgOamConnection, daemon mode */
  GTask *stop_task;
};

static void frontend_iface_init (GgFrontendInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GgOamFrontend, gg_oam_frontend, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_FRONTEND, frontend_iface_init))

static void
gg_oam_frontend_dispose (GObject *object)
{
  GgOamFrontend *self = GG_OAM_FRONTEND (object);

  if (self->service != NULL)
    {
      g_socket_service_stop (self->service);
      g_socket_listener_close (G_SOCKET_LISTENER (self->service));
      g_clear_object (&self->service);
    }
  if (self->connections != NULL)
    for (guint i = 0; i < self->connections->len; i++)
      g_signal_handlers_disconnect_by_data (g_ptr_array_index (self->connections, i), self);
  g_clear_pointer (&self->connections, g_ptr_array_unref);
  if (self->bus != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->bus), (gpointer *) &self->bus);
  self->bus = NULL;
  G_OBJECT_CLASS (gg_oam_frontend_parent_class)->dispose (object);
}

static void
gg_oam_frontend_finalize (GObject *object)
{
  GgOamFrontend *self = GG_OAM_FRONTEND (object);

  gg_oam_settings_clear (&self->settings);
  g_free (self->socket_path);
  G_OBJECT_CLASS (gg_oam_frontend_parent_class)->finalize (object);
}

static void
gg_oam_frontend_class_init (GgOamFrontendClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = gg_oam_frontend_dispose;
  object_class->finalize = gg_oam_frontend_finalize;
}

static void
gg_oam_frontend_init (GgOamFrontend *self)
{
  self->connections = g_ptr_array_new_with_free_func (g_object_unref);
  self->opt_max_sessions = -1;
  self->opt_tool_timeout = -1.0;
}

/**
 * gg_oam_frontend_new:
 * @bus: the process bus
 * @settings: the [oam] settings (copied)
 * @socket_path: (nullable): the daemon socket; %NULL for the default
 *
 * Returns: (transfer full): the front end
 */
GgOamFrontend *
gg_oam_frontend_new (GgBus               *bus,
                     const GgOamSettings *settings,
                     const char          *socket_path)
{
  GgOamFrontend *self = g_object_new (GG_TYPE_OAM_FRONTEND, NULL);

  self->bus = bus;
  g_object_add_weak_pointer (G_OBJECT (bus), (gpointer *) &self->bus);
  gg_oam_settings_copy (&self->settings, settings);
  self->socket_path = g_strdup (socket_path);
  return self;
}

static const char *
frontend_get_name (GgFrontend *frontend)
{
  return "oam";
}

static const char *
frontend_get_summary (GgFrontend *frontend)
{
  return _("Serve the oam bridge protocol (game engines) on stdin/stdout");
}

static GOptionGroup *
frontend_get_option_group (GgFrontend *frontend)
{
  GgOamFrontend *self = GG_OAM_FRONTEND (frontend);
  GOptionEntry entries[] = {
    { "max-sessions", 0, 0, G_OPTION_ARG_INT, &self->opt_max_sessions,
      _("Maximum number of sessions (default 64)"), "N" },
    { "tool-timeout", 0, 0, G_OPTION_ARG_DOUBLE, &self->opt_tool_timeout,
      _("Seconds the client has to answer a tool call; 0 waits forever (default 120)"), "SECONDS" },
    { "no-scripted-models", 0, 0, G_OPTION_ARG_NONE, &self->opt_no_scripted,
      _("Refuse scripted models"), NULL },
    { NULL }
  };
  GOptionGroup *group = g_option_group_new ("oam", _("Options of gamegate oam:"),
                                            _("Show the oam options"), NULL, NULL);

  g_option_group_add_entries (group, entries);
  g_option_group_set_translation_domain (group, GETTEXT_PACKAGE);
  return group;
}

/* OAM_SCRIPT=steps.json: a JSON array of steps, or {"steps": [...]}. */
static gboolean
load_script (GgOamSettings *settings,
             GError       **error)
{
  const char *path = g_getenv ("OAM_SCRIPT");
  g_autofree char *contents = NULL;
  g_autoptr(JsonNode) root = NULL;
  gsize length;

  if (path == NULL || *path == '\0')
    return TRUE;
  if (!g_file_get_contents (path, &contents, &length, error))
    return FALSE;
  root = gg_json_parse (contents, (gssize) length, GG_JSON_DEFAULT_MAX_DEPTH, error);
  if (root == NULL)
    {
      g_prefix_error (error, "OAM_SCRIPT %s: ", path);
      return FALSE;
    }
  if (JSON_NODE_HOLDS_OBJECT (root) &&
      json_object_has_member (json_node_get_object (root), "steps"))
    {
      JsonNode *steps = json_object_get_member (json_node_get_object (root), "steps");

      json_node_unref (g_steal_pointer (&root));
      root = json_node_copy (steps);
    }
  if (!JSON_NODE_HOLDS_ARRAY (root))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("OAM_SCRIPT %s: expected a JSON array of steps"), path);
      return FALSE;
    }
  g_clear_pointer (&settings->script_steps, json_node_unref);
  settings->script_steps = g_steal_pointer (&root);
  return TRUE;
}

typedef struct {
  GgOamConnection *connection;
  GCancellable *cancellable;
  gulong cancel_id;
  gulong finished_id;
} StdioRun;

static void
stdio_run_free (StdioRun *run)
{
  if (run->cancel_id != 0)
    g_cancellable_disconnect (run->cancellable, run->cancel_id);
  if (run->finished_id != 0)
    g_signal_handler_disconnect (run->connection, run->finished_id);
  g_clear_object (&run->cancellable);
  g_clear_object (&run->connection);
  g_free (run);
}

static gboolean
complete_in_idle (gpointer user_data)
{
  GTask *task = user_data;

  g_task_return_boolean (task, TRUE);
  /* The reference the running front end held (see run_stdio_async). */
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

static void
on_stdio_finished (GgOamConnection *connection,
                   gpointer         user_data)
{
  GTask *task = user_data;

  /* Leave the signal emission before the connection can go away. */
  gg_oam_schedule (0, complete_in_idle, g_object_ref (task), g_object_unref);
}

static void
on_stdio_cancelled (GCancellable *cancellable,
                    gpointer      user_data)
{
  StdioRun *run = user_data;

  /* SIGINT/SIGTERM: cancel the turns with their proper errors, then finish. */
  gg_oam_connection_shutdown (run->connection);
}

static void
frontend_run_stdio_async (GgFrontend          *frontend,
                          GIOStream           *stdio,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  GgOamFrontend *self = GG_OAM_FRONTEND (frontend);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;
  GgOamSettings settings;
  StdioRun *run;

  g_task_set_source_tag (task, frontend_run_stdio_async);
  g_task_set_check_cancellable (task, FALSE);
  if (self->bus == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CLOSED, "The bus is gone");
      return;
    }
  gg_oam_settings_copy (&settings, &self->settings);
  if (self->opt_max_sessions >= 0)
    settings.max_sessions = self->opt_max_sessions;
  if (self->opt_tool_timeout >= 0.0)
    {
      if (!(self->opt_tool_timeout <= GG_OAM_MAX_TIMEOUT_SECONDS))
        {
          gg_oam_settings_clear (&settings);
          g_task_return_new_error (task, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                                   _("--tool-timeout must be from 0 to 86400 seconds"));
          return;
        }
      settings.tool_timeout_ms = (gint64) (self->opt_tool_timeout * 1000.0);
    }
  else if (self->opt_tool_timeout != -1.0)
    {
      gg_oam_settings_clear (&settings);
      g_task_return_new_error (task, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                               _("--tool-timeout must be from 0 to 86400 seconds"));
      return;
    }
  if (self->opt_no_scripted)
    settings.scripted_models = FALSE;
  if (!load_script (&settings, &error))
    {
      gg_oam_settings_clear (&settings);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  run = g_new0 (StdioRun, 1);
  run->connection = gg_oam_connection_new (self->bus, &settings, stdio);
  gg_oam_settings_clear (&settings);
  g_task_set_task_data (task, run, (GDestroyNotify) stdio_run_free);
  run->finished_id = g_signal_connect (run->connection, "finished",
                                       G_CALLBACK (on_stdio_finished), task);
  if (cancellable != NULL)
    {
      run->cancellable = g_object_ref (cancellable);
      run->cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (on_stdio_cancelled), run, NULL);
    }
  gg_oam_connection_start (run->connection);
  /* Held until the connection finished: complete_in_idle() drops it. */
  g_steal_pointer (&task);
}

/* ---- daemon ------------------------------------------------------------ */

static char *
default_socket_path (void)
{
  return g_build_filename (g_get_user_runtime_dir (), "gamegate", "oam.sock", NULL);
}

static gboolean
drop_connection (gpointer user_data)
{
  GgOamConnection *connection = user_data;
  GgOamFrontend *self = g_object_get_data (G_OBJECT (connection), "gg-oam-frontend");

  if (self != NULL && self->connections != NULL)
    {
      g_signal_handlers_disconnect_by_data (connection, self);
      g_ptr_array_remove (self->connections, connection);
      if (self->stop_task != NULL && self->connections->len == 0)
        {
          g_autoptr(GTask) task = g_steal_pointer (&self->stop_task);
          g_task_return_boolean (task, TRUE);
        }
    }
  return G_SOURCE_REMOVE;
}

static void
on_connection_finished (GgOamConnection *connection,
                        gpointer         user_data)
{
  gg_oam_schedule (0, drop_connection, g_object_ref (connection), g_object_unref);
}

static gboolean
on_incoming (GSocketService    *service,
             GSocketConnection *socket_connection,
             GObject           *source_object,
             gpointer           user_data)
{
  GgOamFrontend *self = user_data;
  GgOamConnection *connection;

  if (self->stop_task != NULL || self->bus == NULL)
    return TRUE;
  connection = gg_oam_connection_new (self->bus, &self->settings, G_IO_STREAM (socket_connection));
  connection->cancel_on_close = TRUE;
  g_object_set_data (G_OBJECT (connection), "gg-oam-frontend", self);
  g_signal_connect (connection, "finished", G_CALLBACK (on_connection_finished), self);
  g_ptr_array_add (self->connections, connection);
  g_debug ("oam: client connected (%u connected)", self->connections->len);
  gg_oam_connection_start (connection);
  return TRUE;
}

static gboolean
frontend_start_daemon (GgFrontend  *frontend,
                       GError     **error)
{
  GgOamFrontend *self = GG_OAM_FRONTEND (frontend);
  g_autofree char *path = self->socket_path != NULL ? g_strdup (self->socket_path)
                                                    : default_socket_path ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GSocketAddress) address = NULL;
  GStatBuf st;
  mode_t old_umask;
  gboolean ok;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved_errno = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("Cannot create %s: %s"), dir, g_strerror (saved_errno));
      return FALSE;
    }
  /* A stale socket from an earlier run. */
  if (g_lstat (path, &st) == 0 && S_ISSOCK (st.st_mode))
    g_unlink (path);

  address = g_unix_socket_address_new (path);
  self->service = g_socket_service_new ();
  /* Create the socket 0600 from the start rather than chmod it later. */
  old_umask = umask (0177);
  ok = g_socket_listener_add_address (G_SOCKET_LISTENER (self->service), address,
                                      G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT,
                                      NULL, NULL, error);
  umask (old_umask);
  if (!ok)
    {
      g_prefix_error (error, _("Cannot listen on %s: "), path);
      g_clear_object (&self->service);
      return FALSE;
    }
  g_chmod (path, 0600);
  g_free (self->socket_path);
  self->socket_path = g_steal_pointer (&path);
  g_signal_connect (self->service, "incoming", G_CALLBACK (on_incoming), self);
  g_socket_service_start (self->service);
  g_message (_("oam: listening on %s"), self->socket_path);
  return TRUE;
}

static void
frontend_stop_async (GgFrontend          *frontend,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  GgOamFrontend *self = GG_OAM_FRONTEND (frontend);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GPtrArray) connections = NULL;

  g_task_set_source_tag (task, frontend_stop_async);
  if (self->service != NULL)
    {
      g_socket_service_stop (self->service);
      g_socket_listener_close (G_SOCKET_LISTENER (self->service));
      g_clear_object (&self->service);
      if (self->socket_path != NULL)
        g_unlink (self->socket_path);
    }
  if (self->connections->len == 0 || self->stop_task != NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  self->stop_task = g_steal_pointer (&task);
  connections = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < self->connections->len; i++)
    g_ptr_array_add (connections, g_object_ref (g_ptr_array_index (self->connections, i)));
  for (guint i = 0; i < connections->len; i++)
    gg_oam_connection_shutdown (g_ptr_array_index (connections, i));
}

static void
frontend_iface_init (GgFrontendInterface *iface)
{
  iface->get_name = frontend_get_name;
  iface->get_summary = frontend_get_summary;
  iface->get_option_group = frontend_get_option_group;
  iface->run_stdio_async = frontend_run_stdio_async;
  iface->start_daemon = frontend_start_daemon;
  iface->stop_async = frontend_stop_async;
}
