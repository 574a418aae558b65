/* gg-a2g-prompt.h: the model input of one decide entry (gg-a2g-prompt.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-a2g-entry.h"

G_BEGIN_DECLS

const char *gg_a2g_prompt_instructions (void);
char       *gg_a2g_prompt_new          (GgA2gEntry    *entry,
                                        GgA2gManifest *manifest,
                                        GgA2gContext  *context,
                                        JsonObject    *situation,
                                        GPtrArray     *memory,
                                        gint64        *out_tokens);

G_END_DECLS
