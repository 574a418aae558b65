/* gg-bus-private.h: what gg-plugin.c needs to undo the registrations of a
 * plugin whose setup failed; not API, not exported.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-bus.h"

G_BEGIN_DECLS

guint _gg_bus_get_n_frontends        (GgBus      *self);
void  _gg_bus_truncate_frontends     (GgBus      *self,
                                      guint       n);
void  _gg_bus_unregister_model_type  (GgBus      *self,
                                      const char *type);

G_END_DECLS
