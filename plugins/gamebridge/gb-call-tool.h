/* gb-call-tool.h: call_tool on a resolved target (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gb-bridge.h"

G_BEGIN_DECLS

void        gb_call_tool_async  (GbBridge            *bridge,
                                 GgTarget            *target,
                                 const char          *name,
                                 JsonObject          *arguments,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data);
JsonObject *gb_call_tool_finish (GAsyncResult  *result,
                                 GError       **error);

G_END_DECLS
