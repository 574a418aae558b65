/* gg-gabp-session.h: one GABP bridge connected to gamegate's mod-side
 * server: authentication, tools of the bus, event subscriptions, a rate
 * limit.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-gabp-codec.h"

G_BEGIN_DECLS

/* A bridge subscribes to at most this many channels, each name at most
 * this many bytes; events/subscribe past either is -32602 and subscribes
 * none of its channels. */
#define GG_GABP_SESSION_MAX_SUBSCRIPTIONS   256
#define GG_GABP_SESSION_MAX_CHANNEL_LENGTH  256

#define GG_TYPE_GABP_SESSION (gg_gabp_session_get_type ())
G_DECLARE_FINAL_TYPE (GgGabpSession, gg_gabp_session, GG, GABP_SESSION, GObject)

/* Signals: `closed` (). */
GgGabpSession *gg_gabp_session_new           (GgGabpCodec *codec,
                                              GgBus       *bus,
                                              const char  *token,
                                              double       rate_per_second,
                                              guint        burst);
void           gg_gabp_session_start         (GgGabpSession *self);
void           gg_gabp_session_close         (GgGabpSession *self);
gboolean       gg_gabp_session_is_authenticated (GgGabpSession *self);
void           gg_gabp_session_forward_event (GgGabpSession *self,
                                              GgTarget      *target,
                                              const char    *channel,
                                              JsonNode      *payload);

G_END_DECLS
