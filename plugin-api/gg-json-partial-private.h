/* gg-json-partial-private.h: reading JSON that is still being generated.
 * Not API, not exported (its test and fuzz target link libgamegate-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* Through the umbrella header: its test includes it from outside the library. */
#include "gamegate.h"

G_BEGIN_DECLS

/* The value that @length bytes of @text (a JSON document cut short) show so
 * far: open strings, arrays and objects closed; an incomplete key, member
 * or escape, a dangling number and an unfinished literal left out. NULL
 * when no value has begun, or when @text is not the beginning of a JSON
 * document no deeper than @max_depth. */
JsonNode *_gg_json_partial_parse (const char *text,
                                  gsize       length,
                                  guint       max_depth);

G_END_DECLS
