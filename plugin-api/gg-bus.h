/* gg-bus.h: the one registry and router of a gamegate process.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined (GAMEGATE_INSIDE) && !defined (GAMEGATE_COMPILATION)
#error "Only <gamegate.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "gg-bus-observer.h"
#include "gg-frontend.h"
#include "gg-model.h"
#include "gg-target.h"
#include "gg-tool-invocation.h"

G_BEGIN_DECLS

/**
 * GgBus:
 *
 * The one bus of a gamegate process: the targets (running games), the model
 * types and the front ends every plugin registers, and the orderly
 * shutdown. Plugins never call each other; everything crosses the bus.
 *
 * Since: 1.0
 */
#define GG_TYPE_BUS (gg_bus_get_type ())
G_DECLARE_FINAL_TYPE (GgBus, gg_bus, GG, BUS, GObject)

GgBus     *gg_bus_new                  (void);

/* Targets. Signals: `target-added` (GgTarget), `target-removed` (GgTarget),
 * `target-event` (GgTarget, channel, seq, payload) re-emitted from every
 * target in the order the target emitted them. */
gboolean   gg_bus_add_target           (GgBus     *self,
                                        GgTarget  *target,
                                        GError   **error);
gboolean   gg_bus_add_target_full      (GgBus       *self,
                                        GgTarget    *target,
                                        const char  *plugin,
                                        GError     **error);
void       gg_bus_remove_target        (GgBus    *self,
                                        GgTarget *target);
GgTarget  *gg_bus_lookup_target        (GgBus      *self,
                                        const char *id);
GPtrArray *gg_bus_list_targets         (GgBus *self);
void       gg_bus_run_tool_invocation  (GgBus            *self,
                                        GgToolInvocation *invocation);

/* Models. */
gboolean   gg_bus_register_model_type  (GgBus          *self,
                                        const char     *type,
                                        GgModelFactory  factory,
                                        gpointer        user_data,
                                        GDestroyNotify  destroy,
                                        GError        **error);
gboolean   gg_bus_has_model_type       (GgBus      *self,
                                        const char *type);
char     **gg_bus_list_model_types     (GgBus *self);
void       gg_bus_set_default_model    (GgBus    *self,
                                        JsonNode *spec);
JsonNode  *gg_bus_get_default_model    (GgBus *self);
GgModel   *gg_bus_create_model         (GgBus     *self,
                                        JsonNode  *spec,
                                        GError   **error);

/* Front ends, in registration order. */
gboolean    gg_bus_add_frontend        (GgBus       *self,
                                        GgFrontend  *frontend,
                                        GError     **error);
GgFrontend *gg_bus_lookup_frontend     (GgBus      *self,
                                        const char *name);
GPtrArray  *gg_bus_list_frontends      (GgBus *self);

/* Orderly shutdown: the host calls gg_bus_shutdown_async(), which emits
 * `shutdown`; handlers that need time (closing launched games) call
 * gg_bus_hold() and gg_bus_release() when done. */
void       gg_bus_hold                 (GgBus *self);
void       gg_bus_release              (GgBus *self);
gboolean   gg_bus_is_shutting_down     (GgBus *self);
void       gg_bus_shutdown_async       (GgBus               *self,
                                        guint                timeout_ms,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data);
gboolean   gg_bus_shutdown_finish      (GgBus         *self,
                                        GAsyncResult  *result,
                                        GError       **error);

G_END_DECLS
