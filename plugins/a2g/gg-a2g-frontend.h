/* gg-a2g-frontend.h: `gamegate a2g` and the daemon's A2G listener.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

#include "gg-a2g-settings.h"

G_BEGIN_DECLS

#define GG_A2G_TYPE_FRONTEND (gg_a2g_frontend_get_type ())
G_DECLARE_FINAL_TYPE (GgA2gFrontend, gg_a2g_frontend, GG, A2G_FRONTEND, GObject)

GgA2gFrontend *gg_a2g_frontend_new (GgBus         *bus,
                                    GgA2gSettings *settings);

G_END_DECLS
