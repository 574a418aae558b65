/* gg-oam-frontend.h: the oam front end (stdio and Unix socket).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-oam-connection.h"

G_BEGIN_DECLS

#define GG_TYPE_OAM_FRONTEND (gg_oam_frontend_get_type ())
G_DECLARE_FINAL_TYPE (GgOamFrontend, gg_oam_frontend, GG, OAM_FRONTEND, GObject)

GgOamFrontend *gg_oam_frontend_new (GgBus               *bus,
                                    const GgOamSettings *settings,
                                    const char          *socket_path);

G_END_DECLS
