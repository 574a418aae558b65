/* gg-gabp-server.h: gamegate as a GABP mod: a loopback listener that
 * offers every bus target's tools and events to GABP bridges.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-gabp-session.h"

G_BEGIN_DECLS

#define GG_GABP_SERVER_DEFAULT_MAX_CONNECTIONS 10
#define GG_GABP_SERVER_DEFAULT_RATE            200.0
#define GG_GABP_SERVER_DEFAULT_BURST           400

#define GG_TYPE_GABP_SERVER (gg_gabp_server_get_type ())
G_DECLARE_FINAL_TYPE (GgGabpServer, gg_gabp_server, GG, GABP_SERVER, GObject)

GgGabpServer  *gg_gabp_server_new                 (GgBus         *bus,
                                                   GgGabpSchemas *schemas);
void           gg_gabp_server_set_port            (GgGabpServer *self,
                                                   guint16       port);
void           gg_gabp_server_set_token           (GgGabpServer *self,
                                                   const char   *token);
void           gg_gabp_server_set_bridge_file     (GgGabpServer *self,
                                                   const char   *path);
void           gg_gabp_server_set_limits          (GgGabpServer *self,
                                                   guint         max_connections,
                                                   double        rate_per_second,
                                                   guint         burst,
                                                   gsize         max_message_size);
gboolean       gg_gabp_server_start               (GgGabpServer  *self,
                                                   GError       **error);
void           gg_gabp_server_stop                (GgGabpServer *self);
gboolean       gg_gabp_server_is_listening        (GgGabpServer *self);
guint16        gg_gabp_server_get_port            (GgGabpServer *self);
const char    *gg_gabp_server_get_token           (GgGabpServer *self);
gboolean       gg_gabp_server_ensure_token        (GgGabpServer  *self,
                                                   GError       **error);
guint          gg_gabp_server_get_session_count   (GgGabpServer *self);
GgGabpSession *gg_gabp_server_serve_stream        (GgGabpServer  *self,
                                                   GIOStream     *stream);
gboolean       gg_gabp_server_prepare_stdio       (GgGabpServer  *self,
                                                   GError       **error);
gboolean       gg_gabp_write_bridge_file          (const char  *path,
                                                   const char  *token,
                                                   guint16      port,
                                                   GError     **error);

G_END_DECLS
