/* gg-gabp-catalog.h: every bus target's tools as GABP tool descriptors,
 * under the names of gg-gabp-names.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

#define GG_TYPE_GABP_CATALOG (gg_gabp_catalog_get_type ())
G_DECLARE_FINAL_TYPE (GgGabpCatalog, gg_gabp_catalog, GG, GABP_CATALOG, GObject)

void           gg_gabp_catalog_build_async  (GgBus               *bus,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
GgGabpCatalog *gg_gabp_catalog_build_finish (GAsyncResult  *result,
                                             GError       **error);
JsonArray     *gg_gabp_catalog_get_tools    (GgGabpCatalog *self);
gboolean       gg_gabp_catalog_lookup       (GgGabpCatalog  *self,
                                             const char     *gabp_name,
                                             const char    **target_id,
                                             const char    **tool);

G_END_DECLS
