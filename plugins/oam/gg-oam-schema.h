/* gg-oam-schema.h: JSON Schema -> the model's generation schema.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

JsonNode *gg_oam_schema_convert (JsonNode   *schema,
                                 const char *name,
                                 const char *warning_prefix,
                                 GPtrArray  *warnings,
                                 GError    **error);

G_END_DECLS
