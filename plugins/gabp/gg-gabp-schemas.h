/* gg-gabp-schemas.h: the official GABP JSON Schemas, loaded once and used
 * to validate every message gamegate sends or receives.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

#define GG_TYPE_GABP_SCHEMAS (gg_gabp_schemas_get_type ())
G_DECLARE_FINAL_TYPE (GgGabpSchemas, gg_gabp_schemas, GG, GABP_SCHEMAS, GObject)

char          *gg_gabp_schemas_find_dir     (void);
GgGabpSchemas *gg_gabp_schemas_new_from_dir (const char  *dir,
                                             GError     **error);
GgGabpSchemas *gg_gabp_schemas_get_default  (GError **error);
gboolean       gg_gabp_schemas_validate     (GgGabpSchemas *self,
                                             JsonNode      *message,
                                             const char    *request_method,
                                             gboolean      *envelope_ok,
                                             GError       **error);
gboolean       gg_gabp_schemas_has_method   (GgGabpSchemas *self,
                                             const char    *method);

G_END_DECLS
