/* gg-gabp-client.h: the bridge side of one GABP connection: connects to a
 * mod with backoff, says hello, matches responses to requests, reconnects.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-gabp-codec.h"

G_BEGIN_DECLS

typedef enum {
  GG_GABP_CLIENT_STOPPED,
  GG_GABP_CLIENT_CONNECTING,
  GG_GABP_CLIENT_HANDSHAKING,
  GG_GABP_CLIENT_READY,
} GgGabpClientState;

#define GG_TYPE_GABP_CLIENT (gg_gabp_client_get_type ())
G_DECLARE_FINAL_TYPE (GgGabpClient, gg_gabp_client, GG, GABP_CLIENT, GObject)

/* Signals: `ready` (JsonObject *welcome), `disconnected` (GError *why),
 * `event` (channel, guint64 seq, JsonNode *payload),
 * `handshake-failed` (GError *why). */
GgGabpClient     *gg_gabp_client_new              (GgGabpSchemas *schemas,
                                                   const char    *host,
                                                   guint16        port,
                                                   const char    *token);
void              gg_gabp_client_set_endpoint     (GgGabpClient *self,
                                                   const char   *host,
                                                   guint16       port,
                                                   const char   *token);
void              gg_gabp_client_set_backoff      (GgGabpClient *self,
                                                   guint         initial_ms,
                                                   guint         max_ms);
void              gg_gabp_client_set_timeout      (GgGabpClient *self,
                                                   guint         timeout_ms);
void              gg_gabp_client_set_max_message_size (GgGabpClient *self,
                                                   gsize         max_size);
void              gg_gabp_client_start            (GgGabpClient *self);
void              gg_gabp_client_stop             (GgGabpClient *self);
void              gg_gabp_client_reconnect_now    (GgGabpClient *self);
GgGabpClientState gg_gabp_client_get_state        (GgGabpClient *self);
JsonObject       *gg_gabp_client_get_welcome      (GgGabpClient *self);
gboolean          gg_gabp_client_supports         (GgGabpClient *self,
                                                   const char   *method);
guint             gg_gabp_client_get_session_count (GgGabpClient *self);
void              gg_gabp_client_call_async       (GgGabpClient        *self,
                                                   const char          *method,
                                                   JsonObject          *params,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
JsonNode         *gg_gabp_client_call_finish      (GgGabpClient  *self,
                                                   GAsyncResult  *result,
                                                   GError       **error);

G_END_DECLS
