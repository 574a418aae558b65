/* gg-model-unavailable-private.h: what "system" is when no model is
 * configured: sessions can be created, every step fails with
 * model_unavailable. Not API.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-model.h"

G_BEGIN_DECLS

#define GG_TYPE_UNAVAILABLE_MODEL (gg_unavailable_model_get_type ())
G_DECLARE_FINAL_TYPE (GgUnavailableModel, gg_unavailable_model, GG, UNAVAILABLE_MODEL, GObject)

G_GNUC_INTERNAL
GgModel *gg_unavailable_model_new (const char *name,
                                   const char *reason);

G_END_DECLS
