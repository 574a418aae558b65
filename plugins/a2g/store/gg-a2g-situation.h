/* gg-a2g-situation.h: the situation context derived from one session's
 * telemetry (nearby, members, population), shared by the stores.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-a2g-store.h"

G_BEGIN_DECLS

JsonObject *gg_a2g_situation_build (GPtrArray  *entries,
                                    const char *entity,
                                    double      radius);

G_END_DECLS
