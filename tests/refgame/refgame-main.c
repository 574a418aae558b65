/* refgame-main.c: gamegate-refgame, the reference game of the gamebridge plugin.
 *
 * A small deterministic game ("Crate Stacker") serving the game-bridge HTTP
 * contract on 127.0.0.1:<--debug-port>, registering itself in the instance
 * registry, with switches that make it fail in the ways the bridge must
 * survive.  It is a game, not a plugin: it does not link libgamegate.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "refgame-commands.h"
#include "refgame-game.h"
#include "refgame-http.h"
#include "refgame-manifest.h"
#include "refgame-registry.h"

#define EXIT_USAGE 2
#define MAX_SAFE_INT G_GINT64_CONSTANT (9007199254740991)

typedef struct {
  gint     debug_port;
  gint     tick_ms;
  gint64   seed;
  gint64   freeze_after_frames;
  gboolean freeze;
  gboolean no_registry;
  gboolean no_tools;
  gboolean keep_alive;
  gboolean no_completed_id;
  char    *crash_on;
  gint     exit_code_at_start;
  char    *screenshot_size;
  gboolean no_screenshot;
  gboolean screenshot_ignores_size;
} Options;

static gboolean
on_signal (gpointer user_data)
{
  GMainLoop *loop = user_data;

  printf ("refgame: signal received, exiting\n");
  g_main_loop_quit (loop);
  return G_SOURCE_CONTINUE;
}

static void
on_close (gpointer user_data)
{
  printf ("refgame: close command applied, exiting\n");
  g_main_loop_quit (user_data);
}

static gboolean
check_options (const Options  *o,
               GError        **error)
{
  if (o->debug_port < 0 || o->debug_port > 65535)
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 "--debug-port N is required (0..65535; 0 picks a free port)");
  else if (o->tick_ms < 1 || o->tick_ms > 60000)
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--tick-ms must be 1..60000");
  else if (o->seed < 0 || o->seed > MAX_SAFE_INT)
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 "--seed must be 0..%" G_GINT64_FORMAT, MAX_SAFE_INT);
  else if (o->freeze_after_frames < -1)
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--freeze-after-frames must be >= 0");
  else if (o->crash_on != NULL && !g_strv_contains (rg_commands_known (), o->crash_on))
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 "--crash-on: unknown command '%s'", o->crash_on);
  else
    return TRUE;
  return FALSE;
}

int
main (int   argc,
      char *argv[])
{
  Options o = { .debug_port = -1, .tick_ms = 16, .seed = 1, .freeze_after_frames = -1,
                .exit_code_at_start = -1 };
  const GOptionEntry entries[] = {
    { "debug-port", 0, 0, G_OPTION_ARG_INT, &o.debug_port,
      "Serve the debug surface on 127.0.0.1:PORT (0: any free port, printed)", "PORT" },
    { "tick-ms", 0, 0, G_OPTION_ARG_INT, &o.tick_ms, "Milliseconds per frame (default 16)", "MS" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &o.seed, "Seed of the crate kinds (default 1)", "N" },
    { "no-registry", 0, 0, G_OPTION_ARG_NONE, &o.no_registry, "Do not write an instance registry entry", NULL },
    { "no-tools", 0, 0, G_OPTION_ARG_NONE, &o.no_tools, "Answer GET /tools with 404", NULL },
    { "keep-alive", 0, 0, G_OPTION_ARG_NONE, &o.keep_alive,
      "Keep HTTP connections alive even on a libsoup before 3.3 (it leaks each one a client closes while idle)",
      NULL },
    { "no-completed-id", 0, 0, G_OPTION_ARG_NONE, &o.no_completed_id,
      "Leave completedCommandId out of /state", NULL },
    { "freeze-after-frames", 0, 0, G_OPTION_ARG_INT64, &o.freeze_after_frames,
      "Stop the game clock after N frames (HTTP still answers)", "N" },
    { "freeze", 0, 0, G_OPTION_ARG_NONE, &o.freeze, "Never start the game clock", NULL },
    { "crash-on", 0, 0, G_OPTION_ARG_STRING, &o.crash_on, "abort() while applying command CMD", "CMD" },
    { "exit-code-at-start", 0, 0, G_OPTION_ARG_INT, &o.exit_code_at_start,
      "Print a few lines, then exit with status N before serving", "N" },
    { "screenshot-size", 0, 0, G_OPTION_ARG_STRING, &o.screenshot_size,
      "The frame GET /screenshot shows (default 640x480)", "WxH" },
    { "no-screenshot", 0, 0, G_OPTION_ARG_NONE, &o.no_screenshot, "Answer GET /screenshot with 404", NULL },
    { "screenshot-ignores-size", 0, 0, G_OPTION_ARG_NONE, &o.screenshot_ignores_size,
      "Serve the whole frame whatever width and height GET /screenshot asks for", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(RgGame) game = NULL;
  g_autoptr(RgHttp) http = NULL;
  g_autofree char *registry_path = NULL;
  RgGameOptions game_options = { 0 };
  RgScreenshotOptions screenshot = { RG_SCREENSHOT_DEFAULT_WIDTH, RG_SCREENSHOT_DEFAULT_HEIGHT, FALSE, FALSE };
  guint port = 0;
  guint sigint_id, sigterm_id;

  /* The launcher captures our output into a log: keep it line by line. */
  setvbuf (stdout, NULL, _IOLBF, 0);

  g_option_context_set_summary (context,
                                "Crate Stacker, the reference game of gamegate's gamebridge plugin.\n"
                                "Serves GET /health, /state, /command, /tools and /screenshot on 127.0.0.1.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "refgame: %s\n", error->message);
      g_free (o.crash_on);
      g_free (o.screenshot_size);
      return EXIT_USAGE;
    }

  if (o.exit_code_at_start >= 0)
    {
      printf ("refgame: %s %s starting\n", RG_GAME_NAME, RG_GAME_VERSION);
      printf ("refgame: loading assets\n");
      fprintf (stderr, "refgame: error: --exit-code-at-start %d: failing on purpose\n", o.exit_code_at_start);
      g_free (o.crash_on);
      g_free (o.screenshot_size);
      return o.exit_code_at_start & 0xff;
    }
  if (!check_options (&o, &error))
    {
      fprintf (stderr, "refgame: %s\n", error->message);
      g_free (o.crash_on);
      g_free (o.screenshot_size);
      return EXIT_USAGE;
    }
  if (o.screenshot_size != NULL &&
      !rg_screenshot_parse_size (o.screenshot_size, &screenshot.width, &screenshot.height, &error))
    {
      fprintf (stderr, "refgame: --screenshot-size: %s\n", error->message);
      g_free (o.crash_on);
      g_free (o.screenshot_size);
      return EXIT_USAGE;
    }
  g_clear_pointer (&o.screenshot_size, g_free);
  screenshot.disabled = o.no_screenshot;
  screenshot.ignore_size = o.screenshot_ignores_size;

  loop = g_main_loop_new (NULL, FALSE);
  /* Before anyone can learn our port, so a prompt SIGTERM still exits cleanly. */
  sigint_id = g_unix_signal_add (SIGINT, on_signal, loop);
  sigterm_id = g_unix_signal_add (SIGTERM, on_signal, loop);
  game_options.tick_ms = (guint) o.tick_ms;
  game_options.freeze_after_frames = o.freeze ? 0 : o.freeze_after_frames;
  game_options.crash_on = o.crash_on;
  game_options.no_completed_id = o.no_completed_id;
  game_options.seed = (guint64) o.seed;
  game = rg_game_new (&game_options, on_close, loop);
  g_clear_pointer (&o.crash_on, g_free);

  if (o.keep_alive)
    rg_http_keep_connections_alive ();
  http = rg_http_new (game, o.no_tools, &screenshot);
  if (!rg_http_listen (http, (guint) o.debug_port, &port, &error))
    {
      fprintf (stderr, "refgame: cannot listen on 127.0.0.1:%d: %s\n", o.debug_port, error->message);
      g_source_remove (sigint_id);
      g_source_remove (sigterm_id);
      return EXIT_FAILURE;
    }

  if (!o.no_registry)
    {
      registry_path = rg_registry_write (port, &error);
      if (registry_path == NULL)
        {
          /* A registry failure never breaks the game. */
          fprintf (stderr, "refgame: warning: no registry entry: %s\n", error->message);
          g_clear_error (&error);
        }
      else
        printf ("refgame: registered in %s\n", registry_path);
    }

  /* Last, so whoever waits for this line also finds the registry entry. */
  printf ("refgame: listening on 127.0.0.1:%u\n", port);

  rg_game_start (game);
  g_main_loop_run (loop);

  /* The normal exit path: stop serving, then deregister. */
  g_source_remove (sigint_id);
  g_source_remove (sigterm_id);
  rg_http_stop (http);
  g_clear_pointer (&http, rg_http_free);
  /* libsoup finishes closing client connections from idle callbacks. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  rg_registry_remove (registry_path);
  printf ("refgame: bye\n");
  return EXIT_SUCCESS;
}
