/* gg-gabp-launcher.c: launches a game with its mod.
 *
 * The mod learns where to listen and which token to expect from its
 * environment, exactly as under GABS: inherited GABP_* and GABS_* variables
 * are removed first so that a gamegate started from a GABS-launched shell
 * cannot leak a stale token, then GABP_SERVER_PORT, GABP_TOKEN (32 bytes
 * from getrandom, as hex; new for every launch) and GABS_GAME_ID are set.
 * The game runs as a GgChildProcess: it leads its own process group, so a
 * stop (SIGTERM, then SIGKILL after the grace time) reaches whatever the
 * game started too.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-gabp-launcher.h"

struct _GgGabpLauncher
{
  GObject parent_instance;

  char        *game_id;
  GStrv        argv;
  guint16      configured_port;
  guint16      port;
  char        *token;
  GgChildProcess *process;
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

  /* A game we started does not outlive us: disposing of it kills its group. */
  if (self->process != NULL)
    g_signal_handlers_disconnect_by_data (self->process, self);
  g_clear_object (&self->process);
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

static void
on_game_exited (GgChildProcess *process,
                int             status,
                gpointer        user_data)
{
  GgGabpLauncher *self = user_data;
  g_autoptr(GgChildProcess) gone = g_steal_pointer (&self->process);

  g_signal_handlers_disconnect_by_data (gone, self);
  g_message ("game %s exited (wait status %d)", self->game_id, status);
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
  g_auto(GStrv) base = g_get_environ ();
  g_auto(GStrv) env = NULL;

  if (self->process != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY, "game %s is already running", self->game_id);
      return FALSE;
    }
  self->port = self->configured_port != 0 ? self->configured_port : gg_loopback_port_pick_free (error);
  if (self->port == 0)
    return FALSE;
  wipe_token (self);
  self->token = gg_secure_token_hex (32, error);
  if (self->token == NULL)
    return FALSE;

  env = gg_gabp_launcher_build_environ ((const char * const *) base, self->port, self->token, self->game_id);
  /* stdin from /dev/null and stdout into our stderr (the journal): in
   * `gamegate mcp` stdin and stdout carry protocol messages. */
  self->process = gg_child_process_spawn ((const char * const *) self->argv, (const char * const *) env, NULL,
                                          GG_CHILD_PROCESS_NONE, error);
  for (gsize i = 0; env[i] != NULL; i++)
    memset (env[i], 0, strlen (env[i]));
  if (self->process == NULL)
    {
      g_prefix_error (error, "cannot launch game %s: ", self->game_id);
      return FALSE;
    }
  g_signal_connect (self->process, "exited", G_CALLBACK (on_game_exited), self);
  g_message ("launched game %s (pid %" G_GINT64_FORMAT ") with its mod on port %u", self->game_id,
             gg_child_process_get_pid (self->process), self->port);
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

static void
on_stopped (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  GgChildStopHow how = gg_child_process_stop_finish (GG_CHILD_PROCESS (source), result, &error);

  if (how == GG_CHILD_STOP_WOULD_NOT_DIE)
    g_warning ("game %s: %s", GG_GABP_LAUNCHER (g_task_get_source_object (task))->game_id,
               error != NULL ? error->message : "still there after SIGKILL");
  g_task_return_boolean (task, how != GG_CHILD_STOP_WOULD_NOT_DIE);
}

/**
 * gg_gabp_launcher_stop_async:
 * @self: a launcher
 * @grace_ms: how long to wait after SIGTERM before SIGKILL
 * @callback: called once the game (its whole process group) has exited
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
  /* A GABP mod has no close request: SIGTERM at once, SIGKILL after grace. */
  gg_child_process_stop_async (self->process, 0, grace_ms, NULL, on_stopped, task);
}

/** gg_gabp_launcher_stop_finish: Returns: %TRUE once the game is gone. */
gboolean
gg_gabp_launcher_stop_finish (GgGabpLauncher  *self,
                              GAsyncResult    *result,
                              GError         **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}
