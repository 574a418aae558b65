/* fuzz-http-game.h: a fake HTTP game on 127.0.0.1 inside the fuzz target's
 * own process, for the gamebridge targets: GET /health, /tools, /state
 * and /command answer with whatever status and body the target set for
 * them (the fuzzer's bytes, or a well-formed game's).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  FUZZ_HTTP_HEALTH,
  FUZZ_HTTP_TOOLS,
  FUZZ_HTTP_STATE,
  FUZZ_HTTP_COMMAND,
  FUZZ_HTTP_N_PATHS,
} FuzzHttpPath;

/* The process's one fake game, listening from the first call on. */
guint fuzz_http_game_port   (void);
/* What @path answers from now on (@body copied). */
void  fuzz_http_game_set    (FuzzHttpPath path,
                             guint        status,
                             const char  *body,
                             gsize        length);
/* A well-formed game's answers (the reference game's, frozen at frame 0). */
void  fuzz_http_game_reset  (void);
/* Requests served since the last reset. */
guint fuzz_http_game_served (void);

G_END_DECLS
