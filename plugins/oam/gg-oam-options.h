/* gg-oam-options.h: turn options (toolChoice, rounds, sampling, timeouts).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

typedef struct {
  GgAgentPolicy policy;
  JsonNode *sampling;
  double temperature;   /* < 0: model default */
  gint64 max_tokens;    /* 0: none */
} GgOamTurnOptions;

void     gg_oam_turn_options_init      (GgOamTurnOptions *options,
                                        gint64            tool_timeout_ms);
void     gg_oam_turn_options_copy      (GgOamTurnOptions       *dest,
                                        const GgOamTurnOptions *src);
void     gg_oam_turn_options_clear     (GgOamTurnOptions *options);
gboolean gg_oam_parse_tool_choice      (JsonObject        *object,
                                        const char        *prefix,
                                        const char        *name,
                                        GgToolChoiceKind  *kind,
                                        char             **forced,
                                        GError           **error);
gboolean gg_oam_parse_sampling         (JsonObject  *object,
                                        const char  *prefix,
                                        const char  *name,
                                        JsonNode   **out,
                                        GError     **error);
gboolean gg_oam_turn_options_parse     (GgOamTurnOptions *options,
                                        JsonObject       *object,
                                        const char       *prefix,
                                        GPtrArray        *warnings,
                                        GError          **error);
gboolean gg_oam_policy_parse_overrides (GgAgentPolicy *policy,
                                        JsonObject    *params,
                                        gboolean      *out_choice_overridden,
                                        GError       **error);
void     gg_oam_turn_apply_options     (GgAgentTurn            *turn,
                                        const GgOamTurnOptions *options);

G_END_DECLS
