/* gg-model-private.h: helpers of the model layer shared inside libgamegate;
 * not API, not exported.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-model.h"

G_BEGIN_DECLS

JsonNode *gg_model_json_deep_copy (JsonNode *node);

G_END_DECLS
