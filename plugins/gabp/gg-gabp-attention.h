/* gg-gabp-attention.h: GABS's execution gate: while a blocking attention
 * item is open, ordinary game tool calls are refused until it is acked.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

#define GG_TYPE_GABP_ATTENTION (gg_gabp_attention_get_type ())
G_DECLARE_FINAL_TYPE (GgGabpAttention, gg_gabp_attention, GG, GABP_ATTENTION, GObject)

GgGabpAttention *gg_gabp_attention_new          (void);
void             gg_gabp_attention_set_current  (GgGabpAttention *self,
                                                 JsonNode        *attention);
void             gg_gabp_attention_handle_event (GgGabpAttention *self,
                                                 const char      *channel,
                                                 JsonNode        *payload);
JsonObject      *gg_gabp_attention_get_current  (GgGabpAttention *self);
gboolean         gg_gabp_attention_is_blocking  (GgGabpAttention *self);
gboolean         gg_gabp_attention_tags_bypass  (JsonArray *tags);
gboolean         gg_gabp_attention_check        (GgGabpAttention *self,
                                                 const char      *tool,
                                                 JsonArray       *tags,
                                                 GError         **error);

G_END_DECLS
