/* gg-model-private.h: helpers of the model layer shared inside libgamegate;
 * not API, not exported.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-model.h"

G_BEGIN_DECLS

gsize       _gg_model_json_size      (JsonNode   *node);
const char *_gg_model_json_get_string (JsonObject *object,
                                       const char *name);
GError     *_gg_model_error_set_outside_schema (GError       *error);
gboolean    _gg_model_error_is_outside_schema  (const GError *error);

G_END_DECLS
