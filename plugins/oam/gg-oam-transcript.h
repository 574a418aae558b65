/* gg-oam-transcript.h: FoundationModels transcripts <-> neutral entries.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

JsonNode *gg_oam_transcript_build (const char *instructions,
                                   JsonArray  *tools,
                                   JsonArray  *entries);
gboolean  gg_oam_transcript_parse (JsonNode   *history,
                                   const char *param,
                                   gboolean   *out_has_instructions,
                                   char      **out_instructions,
                                   JsonArray **out_tools,
                                   JsonArray **out_entries,
                                   GError    **error);

G_END_DECLS
