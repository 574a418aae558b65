/* gb-bridge-toolset.h: the `bridge` toolset every conforming game gets
 * (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gb-manifest.h"

G_BEGIN_DECLS

GbToolset    *gb_bridge_toolset_get    (void);
gboolean      gb_bridge_toolset_has    (const char *name);

G_END_DECLS
