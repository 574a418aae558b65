/* refgame-registry.h: the game's self-registration entry (~/.game-bridge/instances/<pid>.json).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char     *rg_registry_dir     (void);
char     *rg_registry_write   (guint        port,
                               GError     **error);
void      rg_registry_remove  (const char  *path);

G_END_DECLS
