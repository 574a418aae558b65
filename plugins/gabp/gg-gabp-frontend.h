/* gg-gabp-frontend.h: `gamegate gabp` (one GABP bridge on stdio) and the
 * GABP listener of the daemon.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-gabp-server.h"

G_BEGIN_DECLS

#define GG_TYPE_GABP_FRONTEND (gg_gabp_frontend_get_type ())
G_DECLARE_FINAL_TYPE (GgGabpFrontend, gg_gabp_frontend, GG, GABP_FRONTEND, GObject)

GgGabpFrontend *gg_gabp_frontend_new        (GgGabpServer *server,
                                             gboolean      listen);
GgGabpServer   *gg_gabp_frontend_get_server (GgGabpFrontend *self);

G_END_DECLS
