/* mcp-fake-provider.h: a GbMcpToolsProvider for the MCP tests.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gb-mcp-server.h"

G_BEGIN_DECLS

typedef struct {
  guint n_tools;       /* advertised tools: the fixed ones, then filler-NNN */
  guint n_cancelled;   /* `hang` calls that saw their cancellable fire */
  guint n_calls;
} FakeProvider;

extern const GbMcpToolsProvider fake_provider_vtable;

/* Tools: echo (returns its arguments), fail (a tool error), progress (3
 * progress reports and logs at debug/info/warning, then a result), hang
 * (runs until cancelled), filler-NNN (like echo). */
#define FAKE_PROVIDER_FIXED_TOOLS 4

G_END_DECLS
