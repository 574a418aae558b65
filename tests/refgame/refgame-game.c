/* refgame-game.c: frame clock, command queue and snapshot of the reference game.
 *
 * This is the "game thread" of the contract, run as a timeout on the one main
 * loop: HTTP handlers only enqueue, and each tick first applies every queued
 * command (publishing completedCommandId), then steps the simulation unless
 * paused.  So a command is never visible in the /state read that follows the
 * /command answering it, exactly like a real engine.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "refgame-game.h"
#include "refgame-sim.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
  guint64     id;
  char       *name;
  JsonObject *args;
} RgCommand;

struct _RgGame {
  RgGameOptions    options;
  RgSim           *sim;
  GQueue           queue;          /* RgCommand*, oldest first */
  guint64          frame;
  guint64          sim_frame;
  guint64          next_id;
  guint64          completed_id;
  gboolean         paused;
  gboolean         closing;
  guint            tick_id;
  RgGameCloseFunc  on_close;
  gpointer         user_data;
};

static void
command_free (RgCommand *cmd)
{
  g_free (cmd->name);
  json_object_unref (cmd->args);
  g_free (cmd);
}

/**
 * rg_game_new:
 * @options: tick period, failure switches and seed (copied)
 * @on_close: called once, from a tick, when the close command is applied
 * @user_data: for @on_close
 *
 * Returns: (transfer full): a game whose clock is not yet running.
 */
RgGame *
rg_game_new (const RgGameOptions *options,
             RgGameCloseFunc      on_close,
             gpointer             user_data)
{
  RgGame *game = g_new0 (RgGame, 1);

  game->options = *options;
  game->options.crash_on = g_strdup (options->crash_on);
  game->options.tick_ms = MAX (options->tick_ms, 1);
  game->sim = rg_sim_new (options->seed);
  g_queue_init (&game->queue);
  game->next_id = 1;
  game->on_close = on_close;
  game->user_data = user_data;
  return game;
}

void
rg_game_free (RgGame *game)
{
  if (game == NULL)
    return;
  g_clear_handle_id (&game->tick_id, g_source_remove);
  g_queue_clear_full (&game->queue, (GDestroyNotify) command_free);
  rg_sim_free (game->sim);
  g_free (game->options.crash_on);
  g_free (game);
}

static void
apply (RgGame    *game,
       RgCommand *cmd)
{
  g_autofree char *args_text = NULL;
  g_autoptr(JsonNode) args_node = json_node_init_object (json_node_alloc (), cmd->args);

  args_text = json_to_string (args_node, FALSE);
  printf ("refgame: frame %" G_GUINT64_FORMAT ": applying #%" G_GUINT64_FORMAT " %s %s\n",
          game->frame, cmd->id, cmd->name, args_text);

  if (game->options.crash_on != NULL && g_str_equal (cmd->name, game->options.crash_on))
    {
      fprintf (stderr, "refgame: --crash-on %s: aborting while applying command #%" G_GUINT64_FORMAT "\n",
               cmd->name, cmd->id);
      fflush (stdout);
      abort ();
    }

  if (g_str_equal (cmd->name, "pause"))
    {
      game->paused = TRUE;
      rg_sim_add_event (game->sim, "pause");
    }
  else if (g_str_equal (cmd->name, "resume"))
    {
      game->paused = FALSE;
      rg_sim_add_event (game->sim, "resume");
    }
  else if (g_str_equal (cmd->name, "close"))
    {
      rg_sim_add_event (game->sim, "close");
      game->closing = TRUE;
    }
  else
    rg_sim_apply (game->sim, cmd->name, cmd->args);
}

static gboolean
tick (gpointer user_data)
{
  RgGame *game = user_data;
  RgCommand *cmd;

  game->frame++;
  while (!game->closing && (cmd = g_queue_pop_head (&game->queue)) != NULL)
    {
      apply (game, cmd);
      game->completed_id = cmd->id;
      command_free (cmd);
    }
  if (!game->paused)
    {
      game->sim_frame++;
      rg_sim_step (game->sim);
    }

  if (game->closing)
    {
      game->tick_id = 0;
      game->on_close (game->user_data);
      return G_SOURCE_REMOVE;
    }
  if (game->options.freeze_after_frames >= 0 &&
      game->frame >= (guint64) game->options.freeze_after_frames)
    {
      printf ("refgame: frozen at frame %" G_GUINT64_FORMAT " (--freeze-after-frames)\n", game->frame);
      game->tick_id = 0;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

/**
 * rg_game_start:
 * @game: the game
 *
 * Starts the frame clock, unless the game is to be frozen from the start.
 */
void
rg_game_start (RgGame *game)
{
  g_return_if_fail (game->tick_id == 0);

  if (game->options.freeze_after_frames == 0)
    {
      printf ("refgame: frozen at frame 0 (--freeze)\n");
      return;
    }
  game->tick_id = g_timeout_add (game->options.tick_ms, tick, game);
}

RgSim *
rg_game_get_sim (RgGame *game)
{
  return game->sim;
}

guint64
rg_game_get_frame (RgGame *game)
{
  return game->frame;
}

/**
 * rg_game_enqueue:
 * @game: the game
 * @name: a known command name
 * @args: its typed arguments (a reference is taken)
 * @out_id: (out): the command id, when queued
 *
 * Queues a command for the next frame.
 *
 * Returns: %FALSE when the queue is full.
 */
gboolean
rg_game_enqueue (RgGame     *game,
                 const char *name,
                 JsonObject *args,
                 guint64    *out_id)
{
  RgCommand *cmd;

  if (g_queue_get_length (&game->queue) >= RG_QUEUE_MAX)
    return FALSE;
  cmd = g_new0 (RgCommand, 1);
  cmd->id = game->next_id++;
  cmd->name = g_strdup (name);
  cmd->args = json_object_ref (args);
  g_queue_push_tail (&game->queue, cmd);
  *out_id = cmd->id;
  return TRUE;
}

/**
 * rg_game_state_json:
 * @game: the game
 *
 * Returns: (transfer full): the /state snapshot.
 */
char *
rg_game_state_json (RgGame *game)
{
  GString *out = g_string_sized_new (1024);

  g_string_append_printf (out, "{\"frame\":%" G_GUINT64_FORMAT ",\"simFrame\":%" G_GUINT64_FORMAT,
                          game->frame, game->sim_frame);
  if (!game->options.no_completed_id)
    g_string_append_printf (out, ",\"completedCommandId\":%" G_GUINT64_FORMAT, game->completed_id);
  g_string_append_printf (out, ",\"paused\":%s,\"queued\":%u,\"ui\":",
                          game->paused ? "true" : "false", g_queue_get_length (&game->queue));
  rg_sim_write_ui (game->sim, game->paused, out);
  g_string_append (out, ",\"events\":");
  rg_sim_write_events (game->sim, out);
  g_string_append (out, ",\"game\":");
  rg_sim_write_game (game->sim, out);
  g_string_append_c (out, '}');
  return g_string_free (out, FALSE);
}
