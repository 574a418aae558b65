/* gg-gabp-target.h: one connected GABP mod as a bus target.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-gabp-attention.h"
#include "gg-gabp-client.h"
#include "gg-gabp-event-log.h"

G_BEGIN_DECLS

#define GG_GABP_TARGET_RECENT_EVENTS GG_GABP_EVENT_LOG_SIZE

#define GG_TYPE_GABP_TARGET (gg_gabp_target_get_type ())
G_DECLARE_FINAL_TYPE (GgGabpTarget, gg_gabp_target, GG, GABP_TARGET, GObject)

GgGabpTarget    *gg_gabp_target_new           (const char   *name,
                                               GgGabpClient *client);
GgGabpClient    *gg_gabp_target_get_client    (GgGabpTarget *self);
GgGabpAttention *gg_gabp_target_get_attention (GgGabpTarget *self);
const char      *gg_gabp_target_get_status    (GgGabpTarget *self);
gboolean         gg_gabp_target_is_ready      (GgGabpTarget *self);
JsonNode        *gg_gabp_target_events_since  (GgGabpTarget *self,
                                               guint64       cursor,
                                               const char   *channel,
                                               guint         limit);

G_END_DECLS
