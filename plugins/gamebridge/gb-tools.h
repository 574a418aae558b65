/* gb-tools.h: the tools provider of the gamebridge plugin (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gb-bridge.h"
#include "gb-mcp-server.h"

G_BEGIN_DECLS

/* The provider; its data is a GbBridge. */
const GbMcpToolsProvider *gb_tools_provider (void);

G_END_DECLS
