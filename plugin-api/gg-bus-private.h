/* gg-bus-private.h: the bus's state, shared by gg-bus.c (targets, front
 * ends, shutdown) and gg-bus-models.c (model factories, the default
 * model), and what gg-plugin.c needs to undo the registrations of a
 * plugin whose setup failed; not API, not exported.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-bus.h"

G_BEGIN_DECLS

struct _GgBus {
  GObject parent_instance;

  GPtrArray *targets;          /* GgTarget, in the order they were added */
  GHashTable *model_types;     /* type name -> its factory (gg-bus-models.c) */
  JsonNode *default_model;     /* the spec "system" stands for, or NULL */
  GPtrArray *frontends;        /* GgFrontend, in registration order */

  guint hold_count;
  gboolean shutting_down;
  GTask *shutdown_task;
  GSource *shutdown_timeout;
};

void  _gg_bus_models_init            (GgBus      *self);
void  _gg_bus_models_clear           (GgBus      *self);

guint _gg_bus_get_n_frontends        (GgBus      *self);
void  _gg_bus_truncate_frontends     (GgBus      *self,
                                      guint       n);
void  _gg_bus_unregister_model_type  (GgBus      *self,
                                      const char *type);

G_END_DECLS
