/* gg-target.c: the GgTarget interface.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-bus-observer-private.h"
#include "gg-target.h"

/**
 * gg_target_error_quark:
 *
 * The error domain of calls into a game, %GG_TARGET_ERROR.
 *
 * Returns: the #GQuark of the domain
 *
 * Since: 1.0
 */
G_DEFINE_QUARK (gg-target-error-quark, gg_target_error)

G_DEFINE_INTERFACE (GgTarget, gg_target, G_TYPE_OBJECT)

enum {
  SIGNAL_TOOLS_CHANGED,
  SIGNAL_EVENT,
  SIGNAL_STATUS_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
gg_target_default_init (GgTargetInterface *iface)
{
  /**
   * GgTarget::tools-changed:
   *
   * The target's tool list changed; fetch it again.
   *
   * Since: 1.0
   */
  signals[SIGNAL_TOOLS_CHANGED] =
    g_signal_new ("tools-changed", G_TYPE_FROM_INTERFACE (iface), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /**
   * GgTarget::event:
   * @self: the target
   * @channel: the event channel
   * @seq: the sequence number within @channel
   * @payload: (transfer none): the event's JSON payload; valid during the
   *   emission only, so copy what you keep and do not modify it
   *
   * An event from the game, emitted in order per channel.
   *
   * Since: 1.0
   */
  signals[SIGNAL_EVENT] =
    g_signal_new ("event", G_TYPE_FROM_INTERFACE (iface), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                  G_TYPE_STRING, G_TYPE_UINT64,
                  JSON_TYPE_NODE | G_SIGNAL_TYPE_STATIC_SCOPE);

  /**
   * GgTarget::status-changed:
   *
   * gg_target_get_info() would now report another `status`.
   *
   * Since: 1.0
   */
  signals[SIGNAL_STATUS_CHANGED] =
    g_signal_new ("status-changed", G_TYPE_FROM_INTERFACE (iface), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

/**
 * gg_target_get_id:
 * @self: a #GgTarget
 *
 * Gets the target's id, unique on the bus.
 *
 * Returns: (transfer none): the stable id, `<connector>:<name>`
 *
 * Since: 1.0
 */
const char *
gg_target_get_id (GgTarget *self)
{
  g_return_val_if_fail (GG_IS_TARGET (self), NULL);
  return GG_TARGET_GET_IFACE (self)->get_id (self);
}

/**
 * gg_target_get_info:
 * @self: a #GgTarget
 *
 * Describes the instance (`id`, `kind`, `name`, `status` and members of its
 * connector).
 *
 * Returns: (transfer full): a JSON object describing the instance
 *
 * Since: 1.0
 */
JsonObject *
gg_target_get_info (GgTarget *self)
{
  GgTargetInterface *iface;

  g_return_val_if_fail (GG_IS_TARGET (self), NULL);

  iface = GG_TARGET_GET_IFACE (self);
  if (iface->get_info != NULL)
    return iface->get_info (self);

  JsonObject *info = json_object_new ();
  json_object_set_string_member (info, "id", gg_target_get_id (self));
  return info;
}

/* Answers an async call a target does not implement. */
static void
report_unsupported (GgTarget            *self,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data,
                    gpointer             source_tag,
                    const char          *what)
{
  g_task_report_new_error (self, callback, user_data, source_tag,
                           G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           "Target '%s' does not support %s",
                           gg_target_get_id (self), what);
}

/**
 * gg_target_list_tools_async:
 * @self: a #GgTarget
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the list is known
 * @user_data: data for @callback
 *
 * Fetches the target's tools.
 *
 * Since: 1.0
 */
void
gg_target_list_tools_async (GgTarget            *self,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_return_if_fail (GG_IS_TARGET (self));

  GgTargetInterface *iface = GG_TARGET_GET_IFACE (self);
  if (iface->list_tools_async == NULL)
    {
      report_unsupported (self, callback, user_data,
                               gg_target_list_tools_async, "listing tools");
      return;
    }
  iface->list_tools_async (self, cancellable, callback, user_data);
}

/**
 * gg_target_list_tools_finish:
 * @self: a #GgTarget
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Finishes gg_target_list_tools_async().
 *
 * Returns: (transfer full): `[{"name","description","parameters","tags"?}]`,
 *   or %NULL with @error set
 *
 * Since: 1.0
 */
JsonArray *
gg_target_list_tools_finish (GgTarget      *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (GG_IS_TARGET (self), NULL);

  if (g_async_result_is_tagged (result, gg_target_list_tools_async))
    return g_task_propagate_pointer (G_TASK (result), error);
  return GG_TARGET_GET_IFACE (self)->list_tools_finish (self, result, error);
}

/**
 * gg_target_call_tool_async:
 * @self: a #GgTarget
 * @name: the tool's name
 * @arguments: (nullable): the tool's arguments; the target references or
 *   copies what it keeps, so do not modify them while the call runs
 * @cancellable: (nullable): stops waiting for the game's answer
 * @callback: called with the tool's result
 * @user_data: data for @callback
 *
 * Runs one tool of the game. A target that cannot call tools fails with
 * %G_IO_ERROR_NOT_SUPPORTED.
 *
 * Since: 1.0
 */
void
gg_target_call_tool_async (GgTarget            *self,
                           const char          *name,
                           JsonObject          *arguments,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_return_if_fail (GG_IS_TARGET (self));
  g_return_if_fail (name != NULL);

  GgTargetInterface *iface = GG_TARGET_GET_IFACE (self);

  /* The bus tap: only when the target is on an observed bus. */
  if (_gg_bus_any_observer ())
    {
      g_autoptr(GgBus) bus = _gg_bus_ref_observing (self);

      if (bus != NULL)
        {
          GgBusPending *pending = _gg_bus_pending_new (bus, "tool-result", gg_target_get_id (self),
                                                       name, cancellable, callback, user_data);
          g_autoptr(JsonNode) payload = arguments != NULL ? json_node_init_object (json_node_alloc (), arguments) : NULL;

          _gg_bus_pending_report_start (pending, "tool-call", payload);
          _gg_bus_pending_wrap (pending, &callback, &user_data);
        }
    }

  if (iface->call_tool_async == NULL)
    {
      report_unsupported (self, callback, user_data,
                               gg_target_call_tool_async, "tool calls");
      return;
    }
  iface->call_tool_async (self, name, arguments, cancellable, callback, user_data);
}

/**
 * gg_target_call_tool_finish:
 * @self: a #GgTarget
 * @result: the #GAsyncResult
 * @error: return location for a #GError (%GG_TARGET_ERROR and others)
 *
 * Finishes gg_target_call_tool_async().
 *
 * Returns: (transfer full): the tool's JSON output, or %NULL with @error set
 *
 * Since: 1.0
 */
JsonNode *
gg_target_call_tool_finish (GgTarget      *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  GgBusPending *pending;
  GError *local_error = NULL;
  JsonNode *output;

  g_return_val_if_fail (GG_IS_TARGET (self), NULL);

  if (G_LIKELY ((pending = _gg_bus_pending_lookup (result)) == NULL))
    {
      if (g_async_result_is_tagged (result, gg_target_call_tool_async))
        return g_task_propagate_pointer (G_TASK (result), error);
      return GG_TARGET_GET_IFACE (self)->call_tool_finish (self, result, error);
    }

  if (g_async_result_is_tagged (result, gg_target_call_tool_async))
    output = g_task_propagate_pointer (G_TASK (result), &local_error);
  else
    output = GG_TARGET_GET_IFACE (self)->call_tool_finish (self, result, &local_error);
  _gg_bus_pending_report_result (pending, local_error, output);
  if (local_error != NULL)
    g_propagate_error (error, local_error);
  return output;
}

/**
 * gg_target_get_state_async:
 * @self: a #GgTarget
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the state
 * @user_data: data for @callback
 *
 * Reads the game's state.
 *
 * Since: 1.0
 */
void
gg_target_get_state_async (GgTarget            *self,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_return_if_fail (GG_IS_TARGET (self));

  GgTargetInterface *iface = GG_TARGET_GET_IFACE (self);
  if (iface->get_state_async == NULL)
    {
      report_unsupported (self, callback, user_data,
                               gg_target_get_state_async, "reading state");
      return;
    }
  iface->get_state_async (self, cancellable, callback, user_data);
}

/**
 * gg_target_get_state_finish:
 * @self: a #GgTarget
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Finishes gg_target_get_state_async().
 *
 * Returns: (transfer full): the state, or %NULL with @error set
 *
 * Since: 1.0
 */
JsonNode *
gg_target_get_state_finish (GgTarget      *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (GG_IS_TARGET (self), NULL);

  if (g_async_result_is_tagged (result, gg_target_get_state_async))
    return g_task_propagate_pointer (G_TASK (result), error);
  return GG_TARGET_GET_IFACE (self)->get_state_finish (self, result, error);
}

/**
 * gg_target_emit_event:
 * @self: a #GgTarget
 * @channel: the event channel
 * @seq: the event's sequence number in @channel
 * @payload: the event's payload
 *
 * For connectors: reports an event of the game. Emit events of one channel
 * in order; the bus forwards them as they come.
 *
 * Since: 1.0
 */
void
gg_target_emit_event (GgTarget   *self,
                      const char *channel,
                      guint64     seq,
                      JsonNode   *payload)
{
  g_return_if_fail (GG_IS_TARGET (self));
  g_return_if_fail (channel != NULL);
  g_return_if_fail (payload != NULL);

  g_signal_emit (self, signals[SIGNAL_EVENT], 0, channel, seq, payload);
}

/**
 * gg_target_emit_tools_changed:
 * @self: a #GgTarget
 *
 * For connectors: emits #GgTarget::tools-changed after the game's tool
 * list changed, so consumers fetch it again.
 *
 * Since: 1.0
 */
void
gg_target_emit_tools_changed (GgTarget *self)
{
  g_return_if_fail (GG_IS_TARGET (self));
  g_signal_emit (self, signals[SIGNAL_TOOLS_CHANGED], 0);
}

/**
 * gg_target_emit_status_changed:
 * @self: a #GgTarget
 *
 * For connectors: emits #GgTarget::status-changed after the `status` that
 * gg_target_get_info() reports changed.
 *
 * Since: 1.0
 */
void
gg_target_emit_status_changed (GgTarget *self)
{
  g_return_if_fail (GG_IS_TARGET (self));
  g_signal_emit (self, signals[SIGNAL_STATUS_CHANGED], 0);
}
