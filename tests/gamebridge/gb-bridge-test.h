/* gb-bridge-test.h: what the `gamegate mcp` bridge test programs share.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "gb-mcp-client.h"
#include "refgame-driver.h"

G_BEGIN_DECLS

#define LAUNCH_CONFIG GG_TOP_BUILDDIR "/tests/refgame/gamebridge.json"

char *port_args (guint port);
const char *str (JsonObject *o,
                 const char *member);

G_END_DECLS
