/* gb-resources.h: each game instance's state, log and screenshot as MCP
 * resources (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gb-bridge.h"
#include "gb-mcp-server.h"

G_BEGIN_DECLS

/* `[gamebridge] resource-update-interval-ms`: how often a subscribed
 * resource is looked at, so at most one update per interval. */
#define GB_RESOURCES_DEFAULT_INTERVAL_MS 500
#define GB_RESOURCES_MIN_INTERVAL_MS     16
#define GB_RESOURCES_MAX_INTERVAL_MS     60000

/* The provider; its data is a GbBridge. */
const GbMcpResourcesProvider *gb_resources_provider (void);
/* Follows the bus's HTTP targets (resources/list_changed); until detach,
 * which also stops every watch. */
void gb_resources_attach (GbBridge *bridge);
void gb_resources_detach (GbBridge *bridge);

G_END_DECLS
