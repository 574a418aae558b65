/* gg-tap-client.h: `gamegate tap` (host only).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-host.h"

G_BEGIN_DECLS

int gg_tap_run (GgHost *host,
                char  **argv);

G_END_DECLS
