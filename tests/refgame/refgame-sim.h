/* refgame-sim.h: "Crate Stacker", the reference game's deterministic simulation.
 *
 * Positions are kept in hundredths of a world unit (integers), so a run is
 * bit-for-bit reproducible and a snapshot prints "1.2", not "1.19999999".
 * The world spans x = -2..2; crates fall from the top and stack on whatever
 * they overlap.  Same seed + same commands => same settled game: a drop
 * first lands any crate still falling, so frame timing never matters.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define RG_WORLD_HALF_WIDTH 200   /* centi-units: x in [-200, 200] */
#define RG_CRATE_HEIGHT      50
#define RG_DROP_HEIGHT      600
#define RG_FALL_SPEED        25   /* per simulation frame */
#define RG_MAX_HEIGHT       300   /* a stack reaching this ends the game */
#define RG_MAX_CRATES       256
#define RG_MAX_EVENTS        32

typedef struct _RgSim RgSim;

/* One crate as the renderer sees it, in centi-units; kind 0 wood, 1 steel,
 * 2 ice (the order of the kinds in refgame-sim.c). */
typedef struct {
  int      kind;
  int      x;
  int      y;
  int      width;
  gboolean falling;
} RgSceneCrate;

RgSim      *rg_sim_new            (guint64      seed);
void        rg_sim_free           (RgSim       *sim);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RgSim, rg_sim_free)

void        rg_sim_step           (RgSim       *sim);
void        rg_sim_apply          (RgSim       *sim,
                                   const char  *command,
                                   JsonObject  *args);
void        rg_sim_add_event      (RgSim       *sim,
                                   const char  *format,
                                   ...) G_GNUC_PRINTF (2, 3);

gboolean    rg_sim_is_game_over   (RgSim       *sim);
gint64      rg_sim_get_score      (RgSim       *sim);
guint       rg_sim_get_n_crates   (RgSim       *sim);
void        rg_sim_get_crate      (RgSim        *sim,
                                   guint         i,
                                   RgSceneCrate *out);
/* FALSE when nothing is held. */
gboolean    rg_sim_get_held       (RgSim        *sim,
                                   RgSceneCrate *out);
void        rg_sim_write_game     (RgSim       *sim,
                                   GString     *out);
void        rg_sim_write_events   (RgSim       *sim,
                                   GString     *out);
void        rg_sim_write_ui       (RgSim       *sim,
                                   gboolean     paused,
                                   GString     *out);

/* Small JSON writers shared with the HTTP side. */
void        rg_json_write_string  (GString     *out,
                                   const char  *str);
void        rg_json_write_centi   (GString     *out,
                                   gint64       centi);

G_END_DECLS
