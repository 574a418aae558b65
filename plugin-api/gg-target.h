/* gg-target.h: one running game the gateway can drive.
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

#define GG_TARGET_ERROR (gg_target_error_quark ())
GQuark gg_target_error_quark (void);

/**
 * GgTargetError:
 * @GG_TARGET_ERROR_UNREACHABLE: the game does not answer (not running,
 *   crashed)
 * @GG_TARGET_ERROR_TIMEOUT: the game did not answer in time
 * @GG_TARGET_ERROR_TOOL_NOT_FOUND: no tool of that name
 * @GG_TARGET_ERROR_INVALID_ARGUMENTS: the arguments do not fit the tool's
 *   parameters
 * @GG_TARGET_ERROR_TOOL_FAILED: the game ran the tool and reported a failure
 * @GG_TARGET_ERROR_BLOCKED: the game refuses calls right now (attention
 *   gate)
 * @GG_TARGET_ERROR_PROTOCOL: the game answered something the connector
 *   cannot read
 *
 * Errors of the %GG_TARGET_ERROR domain, for calls into a running game.
 *
 * Since: 1.0
 */
typedef enum {
  GG_TARGET_ERROR_UNREACHABLE,
  GG_TARGET_ERROR_TIMEOUT,
  GG_TARGET_ERROR_TOOL_NOT_FOUND,
  GG_TARGET_ERROR_INVALID_ARGUMENTS,
  GG_TARGET_ERROR_TOOL_FAILED,
  GG_TARGET_ERROR_BLOCKED,
  GG_TARGET_ERROR_PROTOCOL,
} GgTargetError;

/**
 * GgTarget:
 *
 * One running game instance on the bus, whatever connects it (gamebridge's
 * HTTP connector, a GABP mod): its tools, its state and its events.
 *
 * Since: 1.0
 */
#define GG_TYPE_TARGET (gg_target_get_type ())
G_DECLARE_INTERFACE (GgTarget, gg_target, GG, TARGET, GObject)

/**
 * GgTargetInterface:
 * @get_id: a stable id, `<connector>:<name>` (`http:7820`, `gabp:rimworld`)
 * @get_info: (transfer full): a JSON object describing the instance
 *   (`id`, `kind`, `name`, `status`, connector-specific members)
 * @list_tools_async: fetch the tool list `[{"name","description","parameters","tags"?}]`
 * @call_tool_async: run one tool; the result is the tool's JSON output
 * @get_state_async: read the game's state as JSON
 *
 * Signals: `tools-changed` (), `event` (channel, seq, payload) in order per
 * channel, `status-changed` ().
 *
 * Since: 1.0
 */
struct _GgTargetInterface {
  GTypeInterface g_iface;

  const char *(*get_id)           (GgTarget *self);
  JsonObject *(*get_info)         (GgTarget *self);
  void        (*list_tools_async) (GgTarget            *self,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data);
  JsonArray  *(*list_tools_finish)(GgTarget      *self,
                                   GAsyncResult  *result,
                                   GError       **error);
  void        (*call_tool_async)  (GgTarget            *self,
                                   const char          *name,
                                   JsonObject          *arguments,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data);
  JsonNode   *(*call_tool_finish) (GgTarget      *self,
                                   GAsyncResult  *result,
                                   GError       **error);
  void        (*get_state_async)  (GgTarget            *self,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data);
  JsonNode   *(*get_state_finish) (GgTarget      *self,
                                   GAsyncResult  *result,
                                   GError       **error);
  /*< private >*/
  gpointer padding[8];
};

const char *gg_target_get_id            (GgTarget *self);
JsonObject *gg_target_get_info          (GgTarget *self);
void        gg_target_list_tools_async  (GgTarget            *self,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data);
JsonArray  *gg_target_list_tools_finish (GgTarget      *self,
                                         GAsyncResult  *result,
                                         GError       **error);
void        gg_target_call_tool_async   (GgTarget            *self,
                                         const char          *name,
                                         JsonObject          *arguments,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data);
JsonNode   *gg_target_call_tool_finish  (GgTarget      *self,
                                         GAsyncResult  *result,
                                         GError       **error);
void        gg_target_get_state_async   (GgTarget            *self,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data);
JsonNode   *gg_target_get_state_finish  (GgTarget      *self,
                                         GAsyncResult  *result,
                                         GError       **error);
void        gg_target_emit_event        (GgTarget   *self,
                                         const char *channel,
                                         guint64     seq,
                                         JsonNode   *payload);
void        gg_target_emit_tools_changed  (GgTarget *self);
void        gg_target_emit_status_changed (GgTarget *self);

G_END_DECLS
