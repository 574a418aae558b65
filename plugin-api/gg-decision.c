/* gg-decision.c: the decision operation shared by oam (decision/decide)
 * and a2g (/v1/decide): one option out of N through a model constrained
 * by an output schema, with the reason generated before the option and
 * the confidence after it, so that the model reasons before it picks.
 *
 * One option needs no model: it is the answer, confidence 100. An answer
 * outside the schema (not JSON, a missing member, an option that is not
 * one of the ids) can be asked for again (GgDecisionFormat.schema_retries)
 * with a fresh turn; other model errors end the decision at once.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "gg-decision.h"
#include "gg-model-private.h"

struct _GgDecision
{
  GObject parent_instance;

  GgModel *model;
  char *instructions;
  char *prompt;
  JsonArray *options;
  char *reason_key;
  char *option_key;
  gint64 reason_max_length;
  guint schema_retries;
  JsonNode *schema;
  JsonArray *tools;
  GgAgentPolicy policy;
  gboolean has_policy;
  double temperature;
  GgDecisionTurnFunc turn_func;
  gpointer turn_data;
  GDestroyNotify turn_destroy;
  gboolean running;
};

G_DEFINE_FINAL_TYPE (GgDecision, gg_decision, G_TYPE_OBJECT)

static void
gg_decision_finalize (GObject *object)
{
  GgDecision *self = GG_DECISION (object);

  if (self->turn_destroy != NULL)
    self->turn_destroy (self->turn_data);
  g_clear_object (&self->model);
  g_free (self->instructions);
  g_free (self->prompt);
  json_array_unref (self->options);
  g_free (self->reason_key);
  g_free (self->option_key);
  g_clear_pointer (&self->schema, json_node_unref);
  g_clear_pointer (&self->tools, json_array_unref);
  if (self->has_policy)
    gg_agent_policy_clear (&self->policy);
  G_OBJECT_CLASS (gg_decision_parent_class)->finalize (object);
}

static void
gg_decision_class_init (GgDecisionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_decision_finalize;
}

static void
gg_decision_init (GgDecision *self)
{
  self->temperature = -1;
}

/**
 * gg_decision_result_free:
 * @result: (transfer full) (nullable): a result
 *
 * Frees @result and everything it holds.
 *
 * Since: 1.0
 */
void
gg_decision_result_free (GgDecisionResult *result)
{
  if (result == NULL)
    return;
  g_free (result->option);
  g_free (result->reason);
  g_clear_pointer (&result->tool_calls, json_array_unref);
  g_clear_pointer (&result->usage, json_object_unref);
  g_free (result);
}

/**
 * gg_decision_schema:
 * @options: the option ids (strings)
 * @format: the answer's member names
 *
 * Builds the output schema a decision constrains the model with; the
 * reason comes first so that the model reasons before it picks.
 *
 * Returns: (transfer full): the output schema of a decision:
 *   `{reason, option: enum(@options), confidence: integer 0..100}`,
 *   members in that order, all required, nothing else allowed
 *
 * Since: 1.0
 */
JsonNode *
gg_decision_schema (JsonArray              *options,
                    const GgDecisionFormat *format)
{
  JsonObject *schema = json_object_new ();
  JsonObject *properties = json_object_new ();
  JsonObject *reason = json_object_new ();
  JsonObject *option = json_object_new ();
  JsonObject *confidence = json_object_new ();
  JsonArray *required = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  g_return_val_if_fail (options != NULL && format != NULL, NULL);

  json_object_set_string_member (reason, "type", "string");
  json_object_set_string_member (reason, "description", "One sentence explaining the choice");
  if (format->reason_max_length > 0)
    json_object_set_int_member (reason, "maxLength", format->reason_max_length);
  json_object_set_string_member (option, "type", "string");
  json_object_set_string_member (option, "description", "The id of the chosen option");
  json_object_set_array_member (option, "enum", json_array_ref (options));
  json_object_set_string_member (confidence, "type", "integer");
  json_object_set_string_member (confidence, "description", "How sure you are, 0 to 100");
  json_object_set_int_member (confidence, "minimum", 0);
  json_object_set_int_member (confidence, "maximum", 100);
  json_object_set_object_member (properties, format->reason_key, reason);
  json_object_set_object_member (properties, format->option_key, option);
  json_object_set_object_member (properties, "confidence", confidence);
  json_array_add_string_element (required, format->reason_key);
  json_array_add_string_element (required, format->option_key);
  json_array_add_string_element (required, "confidence");
  json_object_set_string_member (schema, "type", "object");
  json_object_set_string_member (schema, "title", "Decision");
  json_object_set_object_member (schema, "properties", properties);
  json_object_set_array_member (schema, "required", required);
  json_object_set_boolean_member (schema, "additionalProperties", FALSE);
  json_node_take_object (node, schema);
  return node;
}

/**
 * gg_decision_new:
 * @model: the model to ask; referenced
 * @instructions: (nullable): the system instructions
 * @prompt: the user prompt (the situation and the options)
 * @options: the option ids, at least one, no duplicates; referenced
 * @format: the answer's shape (copied)
 *
 * Makes a decision of one of @options through @model; set it up with the
 * gg_decision_set_*() calls, then run it once with gg_decision_run_async().
 *
 * Returns: (transfer full): a decision, not started
 *
 * Since: 1.0
 */
GgDecision *
gg_decision_new (GgModel                *model,
                 const char             *instructions,
                 const char             *prompt,
                 JsonArray              *options,
                 const GgDecisionFormat *format)
{
  GgDecision *self;

  g_return_val_if_fail (GG_IS_MODEL (model), NULL);
  g_return_val_if_fail (prompt != NULL && options != NULL && format != NULL, NULL);
  g_return_val_if_fail (json_array_get_length (options) > 0, NULL);

  self = g_object_new (GG_TYPE_DECISION, NULL);
  self->model = g_object_ref (model);
  self->instructions = g_strdup (instructions);
  self->prompt = g_strdup (prompt);
  self->options = json_array_ref (options);
  self->reason_key = g_strdup (format->reason_key);
  self->option_key = g_strdup (format->option_key);
  self->reason_max_length = format->reason_max_length;
  self->schema_retries = format->schema_retries;
  return self;
}

/**
 * gg_decision_set_tools:
 * @self: a decision, not started
 * @tools: (nullable): tool definitions the model may call first; referenced
 * @policy: (nullable): the turn's tool policy (copied)
 *
 * Lets the model call tools (grounding) before it decides.
 *
 * Since: 1.0
 */
void
gg_decision_set_tools (GgDecision          *self,
                       JsonArray           *tools,
                       const GgAgentPolicy *policy)
{
  g_return_if_fail (GG_IS_DECISION (self) && !self->running);

  g_clear_pointer (&self->tools, json_array_unref);
  if (tools != NULL)
    self->tools = json_array_ref (tools);
  if (self->has_policy)
    gg_agent_policy_clear (&self->policy);
  self->has_policy = policy != NULL;
  if (policy != NULL)
    gg_agent_policy_copy (&self->policy, policy);
}

/**
 * gg_decision_set_temperature:
 * @self: a decision, not started
 * @temperature: the sampling temperature, negative for the model's default
 *
 * Sets the sampling temperature of the decision's model turns.
 *
 * Since: 1.0
 */
void
gg_decision_set_temperature (GgDecision *self,
                             double      temperature)
{
  g_return_if_fail (GG_IS_DECISION (self));
  self->temperature = temperature;
}

/**
 * gg_decision_set_turn_func:
 * @self: a decision, not started
 * @func: (nullable): called with each turn before it runs
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data with the decision
 *
 * Sets a function that sets up each model turn (a tool executor, an event
 * function) before it runs.
 *
 * Since: 1.0
 */
void
gg_decision_set_turn_func (GgDecision         *self,
                           GgDecisionTurnFunc  func,
                           gpointer            user_data,
                           GDestroyNotify      destroy)
{
  g_return_if_fail (GG_IS_DECISION (self));

  if (self->turn_destroy != NULL)
    self->turn_destroy (self->turn_data);
  self->turn_func = func;
  self->turn_data = user_data;
  self->turn_destroy = destroy;
}

/**
 * gg_decision_is_forced:
 * @self: a decision
 *
 * Tells whether the decision needs no model call.
 *
 * Returns: whether there is one option only (answered without the model)
 *
 * Since: 1.0
 */
gboolean
gg_decision_is_forced (GgDecision *self)
{
  g_return_val_if_fail (GG_IS_DECISION (self), FALSE);
  return json_array_get_length (self->options) == 1;
}

typedef struct {
  guint attempt;
} Run;

static void start_turn (GTask *task);

static void
on_turn_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GgDecision *self = g_task_get_source_object (task);
  Run *run = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) outcome = gg_agent_turn_run_finish (GG_AGENT_TURN (source), result, &error);
  JsonNode *structured_node = NULL;
  JsonObject *structured;
  GgDecisionResult *decision;
  JsonNode *member;

  if (outcome != NULL)
    structured_node = json_object_get_member (outcome, "structured");
  structured = structured_node != NULL && JSON_NODE_HOLDS_OBJECT (structured_node) ?
               json_node_get_object (structured_node) : NULL;
  if (outcome != NULL && structured == NULL)
    error = _gg_model_error_set_outside_schema (gg_model_error_new (GG_MODEL_ERROR_GENERATION_FAILED, NULL,
                                                                    "The model gave no decision"));
  if (error != NULL)
    {
      /* Answers outside the schema, as GgAgentTurn marks them. */
      if (_gg_model_error_is_outside_schema (error) && run->attempt <= self->schema_retries &&
          !g_cancellable_is_cancelled (g_task_get_cancellable (task)))
        {
          start_turn (g_steal_pointer (&task));
          return;
        }
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  decision = g_new0 (GgDecisionResult, 1);
  member = json_object_get_member (structured, self->option_key);
  decision->option = g_strdup (member != NULL && JSON_NODE_HOLDS_VALUE (member) &&
                               json_node_get_value_type (member) == G_TYPE_STRING ?
                               json_node_get_string (member) : "");
  member = json_object_get_member (structured, self->reason_key);
  decision->reason = g_strdup (member != NULL && JSON_NODE_HOLDS_VALUE (member) &&
                               json_node_get_value_type (member) == G_TYPE_STRING ?
                               json_node_get_string (member) : "");
  member = json_object_get_member (structured, "confidence");
  decision->confidence = 50;
  if (member != NULL && JSON_NODE_HOLDS_VALUE (member) && json_node_get_value_type (member) == G_TYPE_INT64)
    decision->confidence = CLAMP (json_node_get_int (member), 0, 100);
  else if (member != NULL && JSON_NODE_HOLDS_VALUE (member) && json_node_get_value_type (member) == G_TYPE_DOUBLE)
    decision->confidence = (gint64) CLAMP (llround (json_node_get_double (member)), 0, 100);
  if (json_object_has_member (outcome, "toolCalls") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (outcome, "toolCalls")))
    decision->tool_calls = json_array_ref (json_object_get_array_member (outcome, "toolCalls"));
  if (json_object_has_member (outcome, "usage") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (outcome, "usage")))
    decision->usage = json_object_ref (json_object_get_object_member (outcome, "usage"));
  decision->attempts = run->attempt;
  g_task_return_pointer (task, decision, (GDestroyNotify) gg_decision_result_free);
}

static void
start_turn (GTask *task)
{
  GgDecision *self = g_task_get_source_object (task);
  Run *run = g_task_get_task_data (task);
  g_autoptr(GgAgentTurn) turn = NULL;

  run->attempt++;
  turn = gg_agent_turn_new (self->model, self->instructions, NULL, self->tools, self->prompt, self->schema,
                            self->has_policy ? &self->policy : NULL);
  gg_agent_turn_set_sampling (turn, NULL, self->temperature, 0);
  if (self->turn_func != NULL)
    self->turn_func (turn, self->turn_data);
  gg_agent_turn_run_async (turn, g_task_get_cancellable (task), on_turn_done, task);
}

/**
 * gg_decision_run_async:
 * @self: a decision, run once
 * @cancellable: (nullable): cancels the model call
 * @callback: called with the result
 * @user_data: data for @callback
 *
 * Decides: at once for one option, else through the model. A single
 * option completes on the next main-loop iteration.
 *
 * Since: 1.0
 */
void
gg_decision_run_async (GgDecision          *self,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (GG_IS_DECISION (self) && !self->running);

  self->running = TRUE;
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, gg_decision_run_async);
  g_task_set_check_cancellable (task, FALSE);
  g_task_set_task_data (task, g_new0 (Run, 1), g_free);
  if (gg_decision_is_forced (self))
    {
      GgDecisionResult *decision = g_new0 (GgDecisionResult, 1);

      decision->option = g_strdup (json_array_get_string_element (self->options, 0));
      decision->reason = g_strdup ("");
      decision->confidence = 100;
      decision->forced = TRUE;
      g_task_return_pointer (task, decision, (GDestroyNotify) gg_decision_result_free);
      g_object_unref (task);
      return;
    }
  {
    GgDecisionFormat format = {
      .reason_key = self->reason_key,
      .option_key = self->option_key,
      .reason_max_length = self->reason_max_length,
    };
    self->schema = gg_decision_schema (self->options, &format);
  }
  start_turn (task);
}

/**
 * gg_decision_run_finish:
 * @self: the decision
 * @result: the result given to the callback
 * @error: the model's error (%GG_MODEL_ERROR), for an answer outside the
 *   schema after its retries %GG_MODEL_ERROR_GENERATION_FAILED
 *
 * Finishes gg_decision_run_async().
 *
 * Returns: (transfer full): the decision, or %NULL with @error set
 *
 * Since: 1.0
 */
GgDecisionResult *
gg_decision_run_finish (GgDecision    *self,
                        GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
