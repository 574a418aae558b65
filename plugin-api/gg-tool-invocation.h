/* gg-tool-invocation.h: one tool call an agent turn hands to its executor.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined (GAMEGATE_INSIDE) && !defined (GAMEGATE_COMPILATION)
#error "Only <gamegate.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * GgToolInvocation:
 *
 * One tool call of an agent turn, handed to its #GgToolExecutor. Like
 * #GDBusMethodInvocation: the executor answers exactly once with
 * gg_tool_invocation_return_output() or gg_tool_invocation_return_error().
 * When the turn stops waiting (timeout, cancellation, turn over) the
 * invocation's cancellable is cancelled and
 * gg_tool_invocation_get_abandon_reason() says why; a later answer is
 * ignored.
 *
 * Since: 1.0
 */
#define GG_TYPE_TOOL_INVOCATION (gg_tool_invocation_get_type ())
G_DECLARE_FINAL_TYPE (GgToolInvocation, gg_tool_invocation, GG, TOOL_INVOCATION, GObject)

const char   *gg_tool_invocation_get_call_id        (GgToolInvocation *self);
const char   *gg_tool_invocation_get_name           (GgToolInvocation *self);
JsonNode     *gg_tool_invocation_get_arguments      (GgToolInvocation *self);
JsonObject   *gg_tool_invocation_get_call           (GgToolInvocation *self);
JsonObject   *gg_tool_invocation_get_tool           (GgToolInvocation *self);
GCancellable *gg_tool_invocation_get_cancellable    (GgToolInvocation *self);
const char   *gg_tool_invocation_get_abandon_reason (GgToolInvocation *self);
gboolean      gg_tool_invocation_is_finished        (GgToolInvocation *self);
void          gg_tool_invocation_return_output      (GgToolInvocation *self,
                                                     JsonNode         *output,
                                                     gboolean          is_error);
void          gg_tool_invocation_return_error       (GgToolInvocation *self,
                                                     const char       *message);

G_END_DECLS
