/* gb-toolsets.h: list_toolsets and describe_toolset on a resolved target (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gb-bridge.h"

G_BEGIN_DECLS

/* @name: NULL for list_toolsets, the toolset for describe_toolset. */
void        gb_toolsets_async  (GbBridge            *bridge,
                                GgTarget            *target,
                                const char          *name,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data);
JsonObject *gb_toolsets_finish (GAsyncResult  *result,
                                GError       **error);

G_END_DECLS
