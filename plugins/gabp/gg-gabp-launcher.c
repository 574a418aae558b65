/* gg-gabp-launcher.c: launches a game with its mod.
 *
 * The mod learns where to listen and which token to expect from its
 * environment, exactly as under GABS: inherited GABP_* and GABS_* variables
 * are removed first so that a gamegate started from a GABS-launched shell
 * cannot leak a stale token, then GABP_SERVER_PORT, GABP_TOKEN (32 bytes
 * from getrandom, as hex; new for every launch) and GABS_GAME_ID are set.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "gg-gabp-launcher.h"

struct _GgGabpLauncher
{
  GObject parent_instance;

  char        *game_id;
  GStrv        argv;
  guint16      configured_port;
  guint16      port;
  char        *token;
  GSubprocess *process;
  GCancellable *cancellable;
  GQueue       stop_tasks;
  guint        kill_id;
};

enum { SIGNAL_EXITED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (GgGabpLauncher, gg_gabp_launcher, G_TYPE_OBJECT)

static void
wipe_token (GgGabpLauncher *self)
{
  if (self->token != NULL)
    memset (self->token, 0, strlen (self->token));
  g_clear_pointer (&self->token, g_free);
}

static void
gg_gabp_launcher_dispose (GObject *object)
{
  GgGabpLauncher *self = GG_GABP_LAUNCHER (object);

  /* A game we started does not outlive us. */
  if (self->process != NULL)
    g_subprocess_force_exit (self->process);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->process);
  g_clear_handle_id (&self->kill_id, g_source_remove);
  G_OBJECT_CLASS (gg_gabp_launcher_parent_class)->dispose (object);
}

static void
gg_gabp_launcher_finalize (GObject *object)
{
  GgGabpLauncher *self = GG_GABP_LAUNCHER (object);

  g_free (self->game_id);
  g_strfreev (self->argv);
  wipe_token (self);
  G_OBJECT_CLASS (gg_gabp_launcher_parent_class)->finalize (object);
}

static void
gg_gabp_launcher_class_init (GgGabpLauncherClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = gg_gabp_launcher_dispose;
  object_class->finalize = gg_gabp_launcher_finalize;
  signals[SIGNAL_EXITED] =
    g_signal_new ("exited", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_INT);
}

static void
gg_gabp_launcher_init (GgGabpLauncher *self)
{
  g_queue_init (&self->stop_tasks);
}

/**
 * gg_gabp_launcher_new:
 * @game_id: the game's id (GABS_GAME_ID)
 * @argv: the command to run
 * @port: the port the mod is to listen on; 0 picks a free one per launch
 *
 * Returns: (transfer full): a launcher; nothing runs until
 *   gg_gabp_launcher_launch()
 */
GgGabpLauncher *
gg_gabp_launcher_new (const char         *game_id,
                      const char * const *argv,
                      guint16             port)
{
  GgGabpLauncher *self = g_object_new (GG_TYPE_GABP_LAUNCHER, NULL);

  self->game_id = g_strdup (game_id);
  self->argv = g_strdupv ((char **) argv);
  self->configured_port = port;
  return self;
}

/**
 * gg_gabp_launcher_build_environ:
 * @base: the environment to start from
 * @port: GABP_SERVER_PORT
 * @token: GABP_TOKEN
 * @game_id: GABS_GAME_ID
 *
 * Returns: (transfer full): @base without GABP_* and GABS_*, plus the
 *   three variables
 */
char **
gg_gabp_launcher_build_environ (const char * const *base,
                                guint16             port,
                                const char         *token,
                                const char         *game_id)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autofree char *port_var = g_strdup_printf ("GABP_SERVER_PORT=%u", port);
  g_autofree char *token_var = g_strconcat ("GABP_TOKEN=", token, NULL);
  g_autofree char *game_var = g_strconcat ("GABS_GAME_ID=", game_id, NULL);

  for (gsize i = 0; base != NULL && base[i] != NULL; i++)
    if (!g_str_has_prefix (base[i], "GABP_") && !g_str_has_prefix (base[i], "GABS_"))
      g_strv_builder_add (builder, base[i]);
  g_strv_builder_add (builder, port_var);
  g_strv_builder_add (builder, token_var);
  g_strv_builder_add (builder, game_var);
  memset (token_var, 0, strlen (token_var));
  return g_strv_builder_end (builder);
}

/**
 * gg_gabp_pick_free_port:
 * @error: return location for a #GError
 *
 * Asks the kernel for a free TCP port on 127.0.0.1.
 *
 * Returns: the port, or 0
 */
guint16
gg_gabp_pick_free_port (GError **error)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                            G_SOCKET_PROTOCOL_TCP, error);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  if (socket == NULL || !g_socket_bind (socket, address, FALSE, error))
    return 0;
  bound = g_socket_get_local_address (socket, error);
  if (bound == NULL)
    return 0;
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

static void
finish_stop_tasks (GgGabpLauncher *self)
{
  GTask *task;

  g_clear_handle_id (&self->kill_id, g_source_remove);
  while ((task = g_queue_pop_head (&self->stop_tasks)) != NULL)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
    }
}

static void
on_wait_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  GgGabpLauncher *self = user_data;
  GSubprocess *process = G_SUBPROCESS (source);
  g_autoptr(GError) error = NULL;
  int status;

  if (!g_subprocess_wait_finish (process, result, &error))
    return;  /* cancelled: the launcher is gone */
  if (self->process != process)
    return;
  status = g_subprocess_get_status (process);
  g_clear_object (&self->process);
  g_message ("game %s exited (wait status %d)", self->game_id, status);
  finish_stop_tasks (self);
  g_signal_emit (self, signals[SIGNAL_EXITED], 0, status);
}

/**
 * gg_gabp_launcher_launch:
 * @self: a launcher whose game is not running
 * @error: return location for a #GError
 *
 * Starts the game with a new token (and a new port unless one was
 * configured).
 *
 * Returns: %TRUE when the process started
 */
gboolean
gg_gabp_launcher_launch (GgGabpLauncher  *self,
                         GError         **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_auto(GStrv) base = g_get_environ ();
  g_auto(GStrv) env = NULL;
  int stdout_fd;

  if (self->process != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY, "game %s is already running", self->game_id);
      return FALSE;
    }
  self->port = self->configured_port != 0 ? self->configured_port : gg_gabp_pick_free_port (error);
  if (self->port == 0)
    return FALSE;
  wipe_token (self);
  self->token = gg_secure_token_hex (32, error);
  if (self->token == NULL)
    return FALSE;

  env = gg_gabp_launcher_build_environ ((const char * const *) base, self->port, self->token, self->game_id);
  /* stdin from /dev/null and stdout into our stderr (the journal): in
   * `gamegate mcp` stdin and stdout carry protocol messages. */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  stdout_fd = dup (STDERR_FILENO);
  if (stdout_fd >= 0)
    g_subprocess_launcher_take_stdout_fd (launcher, stdout_fd);
  g_subprocess_launcher_set_environ (launcher, env);
  for (gsize i = 0; env[i] != NULL; i++)
    memset (env[i], 0, strlen (env[i]));
  self->process = g_subprocess_launcher_spawnv (launcher, (const char * const *) self->argv, error);
  if (self->process == NULL)
    {
      g_prefix_error (error, "cannot launch game %s: ", self->game_id);
      return FALSE;
    }
  if (self->cancellable == NULL)
    self->cancellable = g_cancellable_new ();
  g_subprocess_wait_async (self->process, self->cancellable, on_wait_done, self);
  g_message ("launched game %s (pid %s) with its mod on port %u", self->game_id,
             g_subprocess_get_identifier (self->process), self->port);
  return TRUE;
}

/** gg_gabp_launcher_is_running: Returns: %TRUE while the game runs. */
gboolean
gg_gabp_launcher_is_running (GgGabpLauncher *self)
{
  return self->process != NULL;
}

/** gg_gabp_launcher_get_port: Returns: the mod's port of the current launch. */
guint16
gg_gabp_launcher_get_port (GgGabpLauncher *self)
{
  return self->port;
}

/** gg_gabp_launcher_get_token: Returns: (nullable): the current launch's token. */
const char *
gg_gabp_launcher_get_token (GgGabpLauncher *self)
{
  return self->token;
}

static gboolean
on_kill_timeout (gpointer user_data)
{
  GgGabpLauncher *self = user_data;

  self->kill_id = 0;
  if (self->process != NULL)
    g_subprocess_force_exit (self->process);
  return G_SOURCE_REMOVE;
}

/**
 * gg_gabp_launcher_stop_async:
 * @self: a launcher
 * @grace_ms: how long to wait after SIGTERM before SIGKILL
 * @callback: called once the game has exited
 * @user_data: for @callback
 */
void
gg_gabp_launcher_stop_async (GgGabpLauncher      *self,
                             guint                grace_ms,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  GTask *task = g_task_new (self, NULL, callback, user_data);

  if (self->process == NULL)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  g_queue_push_tail (&self->stop_tasks, task);
  g_subprocess_send_signal (self->process, SIGTERM);
  if (self->kill_id == 0)
    self->kill_id = g_timeout_add (grace_ms, on_kill_timeout, self);
}

/** gg_gabp_launcher_stop_finish: Returns: %TRUE once the game is gone. */
gboolean
gg_gabp_launcher_stop_finish (GgGabpLauncher  *self,
                              GAsyncResult    *result,
                              GError         **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}
