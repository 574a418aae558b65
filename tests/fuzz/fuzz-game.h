/* fuzz-game.h: a game on the bus for the protocol-level fuzz targets: a
 * GgTarget with a few tools (echo, fail, slow, emit), a state and events,
 * every answer given from the main loop, never from a clock.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

#define FUZZ_TYPE_GAME (fuzz_game_get_type ())
G_DECLARE_FINAL_TYPE (FuzzGame, fuzz_game, FUZZ, GAME, GObject)

FuzzGame *fuzz_game_new (const char *id);

G_END_DECLS
