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
  GPtrArray *gates;    /* GTask: `gate` calls waiting for fake_provider_open_gates() */
} FakeProvider;

extern const GbMcpToolsProvider fake_provider_vtable;

/* Tools: echo (returns its arguments), fail (a tool error), progress (3
 * progress reports and logs at debug/info/warning, then a result), hang
 * (runs until cancelled), filler-NNN (like echo). Not listed: gate (reports
 * `arguments.reports` progress at once, default 1, then returns its
 * arguments once the test opens the gates, or fails when cancelled). */
#define FAKE_PROVIDER_FIXED_TOOLS 4

/* Ends every waiting `gate` call with its result; returns how many. */
guint fake_provider_open_gates (FakeProvider *fake);
/* Frees what the provider holds (cancels nothing). */
void  fake_provider_clear      (FakeProvider *fake);

G_END_DECLS
