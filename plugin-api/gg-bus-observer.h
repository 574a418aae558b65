/* gg-bus-observer.h: watching what crosses the bus (the bus tap): observers,
 * the records reporting sites hand them, and the correlation ids that tie a
 * tool call or model step to the front-end request that caused it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined (GAMEGATE_INSIDE) && !defined (GAMEGATE_COMPILATION)
#error "Only <gamegate.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _GgBus GgBus;

/**
 * GgBusRecord:
 * @kind: what happened: `request`, `tool-call`, `tool-result`,
 *   `target-event`, `model-step`, `model-result` or `lifecycle`
 * @plugin: (nullable): the plugin the record came from: the front end whose
 *   work it is, or for a target event the plugin that owns the target
 *   (gg_bus_add_target_full())
 * @target: (nullable): the target id (`gabp:shop`) the record is about
 * @session: (nullable): the session, NPC or connection it belongs to
 * @name: (nullable): the method, tool, event channel or lifecycle event
 * @correlation: (nullable): the id of the request that caused it
 * @duration_us: how long it took, for results; negative when not a result
 * @error: (nullable): the failure, or %NULL when it went well
 * @payload: (nullable): what it carried; the bus copies it, masks secrets
 *   (gg_json_mask_secrets()) and cuts it to a length
 *
 * One thing that crossed the bus, as a reporting site describes it to
 * gg_bus_report(). Observers receive it as a JSON object.
 *
 * Since: 1.0
 */
typedef struct {
  const char *kind;
  const char *plugin;
  const char *target;
  const char *session;
  const char *name;
  const char *correlation;
  gint64 duration_us;
  const GError *error;
  JsonNode *payload;
  /*< private >*/
  gpointer reserved[4];
} GgBusRecord;

/**
 * GgBusObserverFunc:
 * @bus: the bus
 * @record: (transfer none): the record: `kind`, `mono` (monotonic µs),
 *   `time` (UTC, ISO 8601 with ms), and those of `plugin`, `target`,
 *   `session`, `name`, `correlation`, `durationUs`, `ok`, `error`, `payload`
 *   that apply; valid during the call only
 * @user_data: data given to gg_bus_add_observer()
 *
 * Receives every record reported on @bus, synchronously, on the main loop's
 * thread. It must not block: queue what is slow.
 *
 * Since: 1.0
 */
typedef void (*GgBusObserverFunc) (GgBus      *bus,
                                   JsonObject *record,
                                   gpointer    user_data);

/**
 * GG_BUS_RECORD_PAYLOAD_MAX:
 *
 * The longest payload, in bytes of compact JSON, a record carries whole;
 * longer ones become the start of their text and `"truncated": true`.
 *
 * Since: 1.0
 */
#define GG_BUS_RECORD_PAYLOAD_MAX 1024

guint       gg_bus_add_observer        (GgBus             *self,
                                        GgBusObserverFunc  func,
                                        gpointer           user_data,
                                        GDestroyNotify     destroy);
void        gg_bus_remove_observer     (GgBus *self,
                                        guint  id);
gboolean    gg_bus_is_observed         (GgBus *self);
void        gg_bus_report              (GgBus             *self,
                                        const GgBusRecord *record);

char       *gg_bus_new_correlation     (GgBus      *self,
                                        const char *plugin);
void        gg_bus_set_correlation     (GCancellable *cancellable,
                                        const char   *plugin,
                                        const char   *session,
                                        const char   *id);
const char *gg_bus_get_correlation     (GCancellable  *cancellable,
                                        const char   **plugin,
                                        const char   **session);
void        gg_bus_copy_correlation    (GCancellable *from,
                                        GCancellable *to);

G_END_DECLS
