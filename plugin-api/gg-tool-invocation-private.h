/* gg-tool-invocation-private.h: what the agent turn needs of a
 * GgToolInvocation; not API, not exported.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-tool-invocation.h"

G_BEGIN_DECLS

/* Called once, on the first answer; never after abandonment. @output is
 * borrowed for the duration of the call. */
typedef void (*GgToolInvocationReturnFunc) (GgToolInvocation *invocation,
                                            JsonNode         *output,
                                            gboolean          is_error,
                                            gpointer          user_data);

GgToolInvocation *_gg_tool_invocation_new          (JsonObject                 *call,
                                                    JsonObject                 *tool,
                                                    GgToolInvocationReturnFunc  func,
                                                    gpointer                    user_data);
void              _gg_tool_invocation_abandon      (GgToolInvocation *self,
                                                    const char       *reason);
char             *_gg_tool_output_to_model_text    (JsonNode *output,
                                                    gboolean  is_error);

G_END_DECLS
