/* gg-tool-invocation.c: one tool call an agent turn hands to its executor.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-tool-invocation.h"
#include "gg-tool-invocation-private.h"
#include "gg-json.h"

struct _GgToolInvocation {
  GObject parent_instance;

  JsonObject *call;   /* {id, name, arguments} */
  JsonObject *tool;   /* the definition, or NULL */
  GCancellable *cancellable; /* created on demand: most calls never need one */
  char *abandon_reason;
  gboolean answered;

  GgToolInvocationReturnFunc func;
  gpointer func_data;
};

G_DEFINE_FINAL_TYPE (GgToolInvocation, gg_tool_invocation, G_TYPE_OBJECT)

static void
gg_tool_invocation_finalize (GObject *object)
{
  GgToolInvocation *self = GG_TOOL_INVOCATION (object);

  g_clear_pointer (&self->call, json_object_unref);
  g_clear_pointer (&self->tool, json_object_unref);
  g_clear_object (&self->cancellable);
  g_free (self->abandon_reason);
  G_OBJECT_CLASS (gg_tool_invocation_parent_class)->finalize (object);
}

static void
gg_tool_invocation_class_init (GgToolInvocationClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_tool_invocation_finalize;
}

static void
gg_tool_invocation_init (GgToolInvocation *self)
{
}

/*
 * _gg_tool_invocation_new:
 * @call: `{"id","name","arguments"}`; referenced
 * @tool: (nullable): the tool's definition; referenced
 * @func: receives the first answer
 * @user_data: data for @func
 *
 * Returns: (transfer full): a new invocation waiting for its answer
 */
GgToolInvocation *
_gg_tool_invocation_new (JsonObject                 *call,
                         JsonObject                 *tool,
                         GgToolInvocationReturnFunc  func,
                         gpointer                    user_data)
{
  GgToolInvocation *self = g_object_new (GG_TYPE_TOOL_INVOCATION, NULL);

  self->call = json_object_ref (call);
  self->tool = tool != NULL ? json_object_ref (tool) : NULL;
  self->func = func;
  self->func_data = user_data;
  return self;
}

/*
 * _gg_tool_invocation_abandon:
 * @self: a #GgToolInvocation
 * @reason: why the turn stopped waiting ("Error: The turn was cancelled.")
 *
 * Stops waiting: cancels the invocation's cancellable and makes any later
 * answer a no-op. Does nothing once the invocation is finished.
 */
void
_gg_tool_invocation_abandon (GgToolInvocation *self,
                             const char       *reason)
{
  g_return_if_fail (GG_IS_TOOL_INVOCATION (self));

  if (self->answered || self->abandon_reason != NULL)
    return;
  self->abandon_reason = g_strdup (reason != NULL ? reason : "Error: The tool call was abandoned.");
  self->func = NULL;
  self->func_data = NULL;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
}

/*
 * _gg_tool_output_to_model_text:
 * @output: (nullable): the executor's output
 * @is_error: whether it is an error output
 *
 * Returns: (transfer full): what the model sees: a string as is, any other
 *   value as compact JSON, errors prefixed with "Error: "
 */
char *
_gg_tool_output_to_model_text (JsonNode *output,
                               gboolean  is_error)
{
  g_autofree char *text = NULL;

  if (output != NULL && JSON_NODE_HOLDS_VALUE (output) &&
      json_node_get_value_type (output) == G_TYPE_STRING)
    text = g_strdup (json_node_get_string (output));
  else if (output != NULL)
    text = gg_json_to_string (output);
  else
    text = g_strdup ("null");

  if (is_error)
    return g_strconcat ("Error: ", text, NULL);
  return g_steal_pointer (&text);
}

/**
 * gg_tool_invocation_get_call_id:
 * @self: a #GgToolInvocation
 *
 * Gets the call's id.
 *
 * Returns: (transfer none): the call's id ("call_1")
 *
 * Since: 1.0
 */
const char *
gg_tool_invocation_get_call_id (GgToolInvocation *self)
{
  g_return_val_if_fail (GG_IS_TOOL_INVOCATION (self), NULL);
  return json_object_get_string_member_with_default (self->call, "id", "");
}

/**
 * gg_tool_invocation_get_name:
 * @self: a #GgToolInvocation
 *
 * Gets the name of the tool called.
 *
 * Returns: (transfer none): the tool's name
 *
 * Since: 1.0
 */
const char *
gg_tool_invocation_get_name (GgToolInvocation *self)
{
  g_return_val_if_fail (GG_IS_TOOL_INVOCATION (self), NULL);
  return json_object_get_string_member_with_default (self->call, "name", "");
}

/**
 * gg_tool_invocation_get_arguments:
 * @self: a #GgToolInvocation
 *
 * Gets the call's arguments.
 *
 * Returns: (transfer none): the arguments the model chose (an object)
 *
 * Since: 1.0
 */
JsonNode *
gg_tool_invocation_get_arguments (GgToolInvocation *self)
{
  g_return_val_if_fail (GG_IS_TOOL_INVOCATION (self), NULL);
  return json_object_get_member (self->call, "arguments");
}

/**
 * gg_tool_invocation_get_call:
 * @self: a #GgToolInvocation
 *
 * Gets the call as the model made it.
 *
 * Returns: (transfer none): the whole call `{"id","name","arguments"}`, as
 *   reported in events; do not modify it
 *
 * Since: 1.0
 */
JsonObject *
gg_tool_invocation_get_call (GgToolInvocation *self)
{
  g_return_val_if_fail (GG_IS_TOOL_INVOCATION (self), NULL);
  return self->call;
}

/**
 * gg_tool_invocation_get_tool:
 * @self: a #GgToolInvocation
 *
 * Gets the definition of the tool called.
 *
 * Returns: (transfer none) (nullable): the tool's definition as given to the
 *   turn; do not modify it
 *
 * Since: 1.0
 */
JsonObject *
gg_tool_invocation_get_tool (GgToolInvocation *self)
{
  g_return_val_if_fail (GG_IS_TOOL_INVOCATION (self), NULL);
  return self->tool;
}

/**
 * gg_tool_invocation_get_cancellable:
 * @self: a #GgToolInvocation
 *
 * Gets the cancellable of the call.
 *
 * Returns: (transfer none): cancelled when the turn stops waiting for this
 *   call (timeout, cancellation); already cancelled if it has
 *
 * Since: 1.0
 */
GCancellable *
gg_tool_invocation_get_cancellable (GgToolInvocation *self)
{
  g_return_val_if_fail (GG_IS_TOOL_INVOCATION (self), NULL);
  if (self->cancellable == NULL)
    {
      self->cancellable = g_cancellable_new ();
      if (self->abandon_reason != NULL)
        g_cancellable_cancel (self->cancellable);
    }
  return self->cancellable;
}

/**
 * gg_tool_invocation_get_abandon_reason:
 * @self: a #GgToolInvocation
 *
 * Gets why the turn abandoned the call.
 *
 * Returns: (transfer none) (nullable): why the turn stopped waiting
 *   ("Error: Tool 'open_gate' timed out after 120s."), or %NULL
 *
 * Since: 1.0
 */
const char *
gg_tool_invocation_get_abandon_reason (GgToolInvocation *self)
{
  g_return_val_if_fail (GG_IS_TOOL_INVOCATION (self), NULL);
  return self->abandon_reason;
}

/**
 * gg_tool_invocation_is_finished:
 * @self: a #GgToolInvocation
 *
 * Tells whether the call is over.
 *
 * Returns: %TRUE once answered or abandoned; later answers are ignored
 *
 * Since: 1.0
 */
gboolean
gg_tool_invocation_is_finished (GgToolInvocation *self)
{
  g_return_val_if_fail (GG_IS_TOOL_INVOCATION (self), TRUE);
  return self->answered || self->abandon_reason != NULL;
}

/**
 * gg_tool_invocation_return_output:
 * @self: a #GgToolInvocation
 * @output: (nullable): the output: a string node for text, any JSON value
 *   otherwise; borrowed (copied if kept)
 * @is_error: whether @output is an error the model should see as such
 *
 * Answers the call. Only the first answer counts; an answer after the turn
 * stopped waiting is ignored.
 *
 * Since: 1.0
 */
void
gg_tool_invocation_return_output (GgToolInvocation *self,
                                  JsonNode         *output,
                                  gboolean          is_error)
{
  g_autoptr(JsonNode) null_node = NULL;
  GgToolInvocationReturnFunc func;
  gpointer func_data;

  g_return_if_fail (GG_IS_TOOL_INVOCATION (self));

  if (self->answered)
    {
      g_debug ("Tool call %s answered twice; ignoring the second answer",
               gg_tool_invocation_get_call_id (self));
      return;
    }
  self->answered = TRUE;
  if (self->abandon_reason != NULL)
    {
      g_debug ("Tool call %s answered after it was abandoned; ignoring it",
               gg_tool_invocation_get_call_id (self));
      return;
    }

  if (output == NULL)
    output = null_node = json_node_new (JSON_NODE_NULL);

  func = self->func;
  func_data = self->func_data;
  self->func = NULL;
  self->func_data = NULL;
  if (func != NULL)
    {
      g_object_ref (self);
      func (self, output, is_error, func_data);
      g_object_unref (self);
    }
}

/**
 * gg_tool_invocation_return_error:
 * @self: a #GgToolInvocation
 * @message: the error text; the model sees "Error: @message"
 *
 * Answers the call with an error output (the same as
 * gg_tool_invocation_return_output() with a string and @is_error).
 *
 * Since: 1.0
 */
void
gg_tool_invocation_return_error (GgToolInvocation *self,
                                 const char       *message)
{
  g_autoptr(JsonNode) node = NULL;

  g_return_if_fail (GG_IS_TOOL_INVOCATION (self));
  node = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (node, message != NULL ? message : "");
  gg_tool_invocation_return_output (self, node, TRUE);
}
