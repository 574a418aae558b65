/* gb-instances.h: list_instances, the discovery of spec sections 2 and 4
 * (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gb-bridge.h"

G_BEGIN_DECLS

/* list_instances: `{registryDir, live[], stale[], notAGame[], free[]}`. */
void          gb_instances_list_async  (GbBridge            *self,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data);
JsonObject   *gb_instances_list_finish (GbBridge      *self,
                                        GAsyncResult  *result,
                                        GError       **error);

G_END_DECLS
