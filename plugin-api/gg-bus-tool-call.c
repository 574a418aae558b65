/* gg-bus-tool-call.c: an agent turn's tool call run by a game on the bus.
 *
 * A front end whose tools live in a game rather than in its own client (an
 * oam NPC grounded on a GABP mod's inventory, say) hands the invocation
 * here: the definition names the bus target and the target's tool, the
 * call goes to the target, and its result or failure comes back as the
 * tool output the model sees. The target is looked up when the call is
 * made, not when the tool was defined, because games come and go.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-bus.h"
#include "gg-json.h"
#include "gg-tool-invocation.h"

typedef struct {
  GgToolInvocation *invocation;
  GgTarget *target;
  char *tool;
} TargetCall;

static void
target_call_free (TargetCall *call)
{
  g_object_unref (call->invocation);
  g_object_unref (call->target);
  g_free (call->tool);
  g_free (call);
}

static void
on_target_called (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  TargetCall *call = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) output = gg_target_call_tool_finish (GG_TARGET (source), result, &error);

  if (output != NULL)
    gg_tool_invocation_return_output (call->invocation, output, FALSE);
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* The turn gave up (timeout or cancel) when the call was cancelled;
       * it already told the model why, so only other failures answer.
       * The model is told which game failed, once. */
      const char *id = gg_target_get_id (call->target);
      gsize length = strlen (id);
      g_autofree char *message = strncmp (error->message, id, length) == 0 && error->message[length] == ':' ?
                                 g_strdup (error->message) : g_strdup_printf ("%s: %s", id, error->message);

      gg_tool_invocation_return_error (call->invocation, message);
    }
  target_call_free (call);
}

/**
 * gg_bus_run_tool_invocation:
 * @self: the bus
 * @invocation: (transfer full): a tool call whose definition names a bus
 *   target: the member `target` (a target id such as `gabp:shop`) and
 *   optionally `tool` (the target's tool; default: the call's own name)
 *
 * Runs @invocation on that target with the call's arguments and answers it
 * with the target's result. A target that is not on the bus, a definition
 * without `target`, arguments that are not an object and every failure of
 * the target become error outputs the model sees, never a failed turn.
 * Cancelling the invocation (the turn's timeout or cancel) cancels the
 * target call.
 *
 * Since: 1.0
 */
void
gg_bus_run_tool_invocation (GgBus            *self,
                            GgToolInvocation *invocation)
{
  JsonObject *definition;
  JsonNode *arguments;
  const char *target_id, *tool;
  GgTarget *target;
  TargetCall *call;

  g_return_if_fail (GG_IS_BUS (self));
  g_return_if_fail (GG_IS_TOOL_INVOCATION (invocation));

  definition = gg_tool_invocation_get_tool (invocation);
  target_id = definition != NULL ? json_object_get_string_member_with_default (definition, "target", NULL) : NULL;
  tool = definition != NULL ? json_object_get_string_member_with_default (definition, "tool", NULL) : NULL;
  if (tool == NULL)
    tool = gg_tool_invocation_get_name (invocation);
  arguments = gg_tool_invocation_get_arguments (invocation);

  if (target_id == NULL)
    gg_tool_invocation_return_error (invocation, "the tool names no target");
  else if ((target = gg_bus_lookup_target (self, target_id)) == NULL)
    {
      g_autofree char *message = g_strdup_printf ("%s is not on the bus (the game is not running "
                                                  "or not connected)", target_id);

      gg_tool_invocation_return_error (invocation, message);
    }
  else if (arguments != NULL && !JSON_NODE_HOLDS_OBJECT (arguments) && !JSON_NODE_HOLDS_NULL (arguments))
    gg_tool_invocation_return_error (invocation, "the arguments must be an object");
  else
    {
      g_autoptr(JsonObject) empty = json_object_new ();
      JsonObject *object = arguments != NULL && JSON_NODE_HOLDS_OBJECT (arguments) ?
                           json_node_get_object (arguments) : empty;

      call = g_new0 (TargetCall, 1);
      call->invocation = invocation;
      call->target = g_object_ref (target);
      call->tool = g_strdup (tool);
      gg_target_call_tool_async (target, call->tool, object, gg_tool_invocation_get_cancellable (invocation),
                                 on_target_called, call);
      return;
    }
  g_object_unref (invocation);
}
