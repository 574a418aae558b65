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

G_END_DECLS
