/* gb-state-tools.h: get_state and wait_for over any bus target
 * (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

gboolean    gb_state_tool_has    (const char *name);
void        gb_state_tool_async  (GgTarget            *target,
                                  const char          *name,
                                  JsonObject          *arguments,
                                  guint                default_timeout_ms,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data);
JsonObject *gb_state_tool_finish (GAsyncResult  *result,
                                  GError       **error);

G_END_DECLS
