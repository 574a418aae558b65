/* refgame-game.h: the reference game's "game thread": a frame clock on the
 * main loop that drains a bounded command queue and steps the simulation.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define RG_QUEUE_MAX 64

typedef struct {
  guint    tick_ms;
  gint64   freeze_after_frames;   /* -1: never */
  char    *crash_on;              /* abort() when applying this command */
  gboolean no_completed_id;
  guint64  seed;
} RgGameOptions;

typedef struct _RgGame RgGame;
typedef struct _RgSim RgSim;

typedef void (*RgGameCloseFunc) (gpointer user_data);

RgGame   *rg_game_new            (const RgGameOptions *options,
                                  RgGameCloseFunc      on_close,
                                  gpointer             user_data);
void      rg_game_free           (RgGame              *game);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RgGame, rg_game_free)

void      rg_game_start          (RgGame              *game);
guint64   rg_game_get_frame      (RgGame              *game);
gboolean  rg_game_enqueue        (RgGame              *game,
                                  const char          *name,
                                  JsonObject          *args,
                                  guint64             *out_id);
char     *rg_game_state_json     (RgGame              *game);
/* (transfer none): what the frame shows. */
RgSim    *rg_game_get_sim        (RgGame              *game);

G_END_DECLS
