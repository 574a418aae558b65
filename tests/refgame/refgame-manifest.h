/* refgame-manifest.h: who the reference game is, and its GET /tools manifest.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define RG_GAME_NAME     "Crate Stacker"
#define RG_GAME_VERSION  PACKAGE_VERSION
#define RG_GAME_PROTOCOL 1

/* @screenshot: (nullable): the `screenshot` member, JSON */
char *rg_manifest_json (const char *screenshot);

G_END_DECLS
