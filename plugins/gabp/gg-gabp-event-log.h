/* gg-gabp-event-log.h: a GABP mod's events in order, and the recent ones
 * kept (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

#define GG_GABP_EVENT_LOG_SIZE 256
#define GG_GABP_GAP_CHANNEL    "gamegate/gap"

typedef struct _GgGabpEventLog GgGabpEventLog;

typedef void (*GgGabpEventEmit) (const char *channel,
                                 guint64     seq,
                                 JsonNode   *payload,
                                 gpointer    user_data);

GgGabpEventLog *gg_gabp_event_log_new         (void);
void            gg_gabp_event_log_free        (GgGabpEventLog *self);
void            gg_gabp_event_log_new_session (GgGabpEventLog *self);
void            gg_gabp_event_log_add         (GgGabpEventLog  *self,
                                               const char      *id,
                                               const char      *channel,
                                               guint64          seq,
                                               JsonNode        *payload,
                                               GgGabpEventEmit  emit,
                                               gpointer         user_data);
JsonNode       *gg_gabp_event_log_since       (GgGabpEventLog *self,
                                               guint64         cursor,
                                               const char     *channel,
                                               guint           limit);

G_END_DECLS
