/* gg-agent-turn.c: the tool-calling loop every front end shares: the
 * object, its policy, starting a turn, the answer and the outcome. The
 * model steps and tool rounds are in gg-agent-step.c, what a turn shows
 * while it runs (its text and partial events) in gg-agent-output.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "gg-agent-turn.h"
#include "gg-agent-turn-private.h"
#include "gg-json.h"
#include "gg-model-private.h"
#include "gg-tool-invocation-private.h"

G_DEFINE_FINAL_TYPE (GgAgentTurn, gg_agent_turn, G_TYPE_OBJECT)

/* ---- policy ------------------------------------------------------------ */

/**
 * gg_agent_policy_init:
 * @policy: an uninitialized #GgAgentPolicy
 *
 * Fills @policy with oam's defaults: toolChoice auto, 4 tool rounds, 12 tool
 * calls, 120 s per tool, 2 attempts, all tools, trimming on with 1024 tokens
 * reserved for the answer.
 *
 * Since: 1.0
 */
void
gg_agent_policy_init (GgAgentPolicy *policy)
{
  g_return_if_fail (policy != NULL);
  memset (policy, 0, sizeof *policy);
  policy->tool_choice = GG_TOOL_CHOICE_AUTO;
  policy->max_tool_rounds = 4;
  policy->max_tool_calls = 12;
  policy->tool_timeout_ms = 120000;
  policy->max_attempts = 2;
  policy->trim_history = TRUE;
  policy->reserved_response_tokens = 1024;
}

/**
 * gg_agent_policy_copy:
 * @dest: an uninitialized (or cleared) #GgAgentPolicy
 * @src: the policy to copy
 *
 * Deep-copies @src into @dest; release it with gg_agent_policy_clear().
 *
 * Since: 1.0
 */
void
gg_agent_policy_copy (GgAgentPolicy       *dest,
                      const GgAgentPolicy *src)
{
  g_return_if_fail (dest != NULL);
  g_return_if_fail (src != NULL);
  *dest = *src;
  dest->forced_tool = g_strdup (src->forced_tool);
  dest->enabled_tools = g_strdupv (src->enabled_tools);
}

/**
 * gg_agent_policy_clear:
 * @policy: a #GgAgentPolicy
 *
 * Frees what @policy owns and resets it to the defaults.
 *
 * Since: 1.0
 */
void
gg_agent_policy_clear (GgAgentPolicy *policy)
{
  g_return_if_fail (policy != NULL);
  g_free (policy->forced_tool);
  g_strfreev (policy->enabled_tools);
  gg_agent_policy_init (policy);
}

/* ---- object ------------------------------------------------------------ */

static void
gg_agent_turn_dispose (GObject *object)
{
  GgAgentTurn *self = GG_AGENT_TURN (object);

  _gg_agent_turn_abandon_round (self, "Error: The turn was cancelled.");
  if (self->cancellable != NULL && self->cancel_id != 0)
    g_cancellable_disconnect (self->cancellable, self->cancel_id);
  self->cancel_id = 0;
  g_clear_object (&self->cancellable);
  if (self->executor_destroy != NULL)
    g_clear_pointer (&self->executor_data, self->executor_destroy);
  self->executor = NULL;
  if (self->event_destroy != NULL)
    g_clear_pointer (&self->event_data, self->event_destroy);
  self->event_func = NULL;
  G_OBJECT_CLASS (gg_agent_turn_parent_class)->dispose (object);
}

static void
gg_agent_turn_finalize (GObject *object)
{
  GgAgentTurn *self = GG_AGENT_TURN (object);

  g_clear_object (&self->model);
  g_main_context_unref (self->context);
  g_free (self->instructions);
  g_ptr_array_unref (self->history);
  g_array_unref (self->history_bytes);
  g_clear_pointer (&self->tools, json_array_unref);
  g_hash_table_unref (self->tool_index);
  g_hash_table_unref (self->model_tools);
  g_hash_table_unref (self->model_tool_bytes);
  g_free (self->prompt);
  g_clear_pointer (&self->output_schema, json_node_unref);
  g_clear_pointer (&self->accept_schema, json_node_unref);
  gg_agent_policy_clear (&self->policy);
  g_clear_pointer (&self->sampling, json_node_unref);
  g_clear_object (&self->task);
  g_clear_error (&self->failure);
  g_clear_pointer (&self->result, json_object_unref);
  g_clear_object (&self->schema);
  g_clear_pointer (&self->new_entries, json_array_unref);
  g_clear_pointer (&self->steps, json_array_unref);
  g_clear_pointer (&self->records, json_array_unref);
  g_clear_pointer (&self->visible, g_hash_table_unref);
  g_clear_pointer (&self->request_tools, json_array_unref);
  g_string_free (self->shown, TRUE);
  g_string_free (self->partial_text, TRUE);
  g_clear_pointer (&self->partial, json_node_unref);
  g_ptr_array_unref (self->round);
  G_OBJECT_CLASS (gg_agent_turn_parent_class)->finalize (object);
}

static void
gg_agent_turn_class_init (GgAgentTurnClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = gg_agent_turn_dispose;
  object_class->finalize = gg_agent_turn_finalize;
}

static void
gg_agent_turn_init (GgAgentTurn *self)
{
  gg_agent_policy_init (&self->policy);
  self->context = g_main_context_ref_thread_default ();
  self->history = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  self->history_bytes = g_array_new (FALSE, FALSE, sizeof (gsize));
  self->tool_index = g_hash_table_new (g_str_hash, g_str_equal);
  self->model_tools = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) json_object_unref);
  self->model_tool_bytes = g_hash_table_new (g_str_hash, g_str_equal);
  self->temperature = -1.0;
  self->new_entries = json_array_new ();
  self->steps = json_array_new ();
  self->records = json_array_new ();
  self->shown = g_string_new (NULL);
  self->partial_text = g_string_new (NULL);
  self->round = g_ptr_array_new_with_free_func ((GDestroyNotify) _gg_round_call_free);
}

/* Attaches @source to the turn's main context; returns it (still owned by
 * the caller). */
GSource *
_gg_agent_turn_attach (GgAgentTurn    *self,
                       GSource        *source,
                       GSourceFunc     func,
                       gpointer        data,
                       GDestroyNotify  notify)
{
  g_source_set_callback (source, func, data, notify);
  g_source_attach (source, self->context);
  return source;
}

void
_gg_agent_clear_source (GSource **source)
{
  if (*source == NULL)
    return;
  g_source_destroy (*source);
  g_clear_pointer (source, g_source_unref);
}

/* The size the model pays for an entry: its compact JSON. */
gsize
_gg_agent_entry_bytes (JsonObject *entry)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), entry);

  return _gg_model_json_size (node);
}

/**
 * gg_agent_turn_new:
 * @model: the model to step; referenced
 * @instructions: (nullable): system instructions, context note appended
 * @history: (nullable): earlier transcript entries (see #GgModelRequest);
 *   the entries are referenced, not copied: do not modify them
 * @tools: (nullable): tool definitions
 *   `[{"name","description","parameters","timeoutSeconds"?}]`; referenced,
 *   do not modify it while the turn exists
 * @prompt: the user's prompt for this turn ("" allowed)
 * @output_schema: (nullable): generation schema of a structured answer; copied
 * @policy: (nullable): tool policy of this turn (copied); %NULL for the defaults
 *
 * Creates a turn that asks @model for an answer to @prompt, calling tools as
 * the policy allows.
 *
 * Returns: (transfer full): a turn, ready for gg_agent_turn_run_async()
 *
 * Since: 1.0
 */
GgAgentTurn *
gg_agent_turn_new (GgModel             *model,
                   const char          *instructions,
                   JsonArray           *history,
                   JsonArray           *tools,
                   const char          *prompt,
                   JsonNode            *output_schema,
                   const GgAgentPolicy *policy)
{
  GgAgentTurn *self;

  g_return_val_if_fail (GG_IS_MODEL (model), NULL);

  self = g_object_new (GG_TYPE_AGENT_TURN, NULL);
  self->model = g_object_ref (model);
  self->instructions = g_strdup (instructions);
  self->prompt = g_strdup (prompt != NULL ? prompt : "");
  if (output_schema != NULL)
    self->output_schema = gg_json_copy (output_schema);
  if (policy != NULL)
    {
      gg_agent_policy_clear (&self->policy);
      gg_agent_policy_copy (&self->policy, policy);
    }

  if (history != NULL)
    {
      guint n = json_array_get_length (history);

      for (guint i = 0; i < n; i++)
        {
          JsonNode *node = json_array_get_element (history, i);

          /* The transcript is ours to build: anything but an entry object is
           * not something a model could be shown. */
          if (!JSON_NODE_HOLDS_OBJECT (node))
            continue;
          g_ptr_array_add (self->history, json_object_ref (json_node_get_object (node)));
        }
      /* Sizes for trimming; a session's entries are measured once, not on
       * every turn. */
      _gg_agent_entry_sizes (G_OBJECT (model), self->history, self->history_bytes);
    }

  self->tools = tools != NULL ? json_array_ref (tools) : json_array_new ();
  for (guint i = 0; i < json_array_get_length (self->tools); i++)
    {
      JsonNode *node = json_array_get_element (self->tools, i);
      JsonObject *tool;
      const char *name;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      tool = json_node_get_object (node);
      name = _gg_model_json_get_string (tool, "name");
      if (name == NULL || *name == '\0' || g_hash_table_contains (self->tool_index, name))
        continue;
      g_hash_table_insert (self->tool_index, (gpointer) name, tool);
    }
  return self;
}

/**
 * gg_agent_turn_set_executor:
 * @self: a #GgAgentTurn
 * @executor: runs the turn's tool calls
 * @user_data: data for @executor
 * @destroy: (nullable): frees @user_data with the turn
 *
 * Without an executor every tool call gets an error output.
 *
 * Since: 1.0
 */
void
gg_agent_turn_set_executor (GgAgentTurn    *self,
                            GgToolExecutor  executor,
                            gpointer        user_data,
                            GDestroyNotify  destroy)
{
  g_return_if_fail (GG_IS_AGENT_TURN (self));
  if (self->executor_destroy != NULL)
    g_clear_pointer (&self->executor_data, self->executor_destroy);
  self->executor = executor;
  self->executor_data = user_data;
  self->executor_destroy = destroy;
}

/**
 * gg_agent_turn_set_event_func:
 * @self: a #GgAgentTurn
 * @func: receives every event of the turn, in order
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data with the turn
 *
 * Sets the function that receives the turn's events (see #GgAgentEventFunc);
 * call it before gg_agent_turn_run_async().
 *
 * Since: 1.0
 */
void
gg_agent_turn_set_event_func (GgAgentTurn      *self,
                              GgAgentEventFunc  func,
                              gpointer          user_data,
                              GDestroyNotify    destroy)
{
  g_return_if_fail (GG_IS_AGENT_TURN (self));
  if (self->event_destroy != NULL)
    g_clear_pointer (&self->event_data, self->event_destroy);
  self->event_func = func;
  self->event_data = user_data;
  self->event_destroy = destroy;
}

/**
 * gg_agent_turn_set_sampling:
 * @self: a #GgAgentTurn
 * @sampling: (nullable): `"greedy"`, `{"topK":n,"seed"?}`, `{"topP":p,"seed"?}`; copied
 * @temperature: sampling temperature, negative for the model's default
 * @max_tokens: answer length limit, 0 for none
 *
 * Sets how the model samples its answer; without a call the model's defaults
 * apply.
 *
 * Since: 1.0
 */
void
gg_agent_turn_set_sampling (GgAgentTurn *self,
                            JsonNode    *sampling,
                            double       temperature,
                            gint64       max_tokens)
{
  g_return_if_fail (GG_IS_AGENT_TURN (self));
  g_clear_pointer (&self->sampling, json_node_unref);
  self->sampling = sampling != NULL ? gg_json_copy (sampling) : NULL;
  self->temperature = temperature;
  self->max_tokens = max_tokens > 0 ? max_tokens : 0;
}

/**
 * gg_agent_turn_set_accept_schema:
 * @self: a #GgAgentTurn that has an output schema
 * @schema: (nullable): the schema a structured answer must match to be
 *   accepted; copied. %NULL (the default) accepts what matches the output
 *   schema
 *
 * The output schema is what the model is asked for; this is what the turn
 * holds the answer to. A caller that can use an answer which misses the
 * requested shape in a detail (an oam NPC reply with two player options
 * where three were asked for) accepts it here and normalises it itself,
 * rather than failing a good answer with %GG_MODEL_ERROR_GENERATION_FAILED.
 * Call before gg_agent_turn_run_async().
 *
 * Since: 1.0
 */
void
gg_agent_turn_set_accept_schema (GgAgentTurn *self,
                                 JsonNode    *schema)
{
  g_return_if_fail (GG_IS_AGENT_TURN (self));
  g_return_if_fail (self->state == TURN_IDLE);
  g_clear_pointer (&self->accept_schema, json_node_unref);
  self->accept_schema = schema != NULL ? gg_json_copy (schema) : NULL;
}

/**
 * gg_agent_turn_set_streaming:
 * @self: a #GgAgentTurn
 * @stream: whether the model should stream text deltas
 *
 * Text events are emitted either way; streaming only makes them finer.
 *
 * Since: 1.0
 */
void
gg_agent_turn_set_streaming (GgAgentTurn *self,
                             gboolean     stream)
{
  g_return_if_fail (GG_IS_AGENT_TURN (self));
  self->stream = !!stream;
}

/* ---- the transcript ----------------------------------------------------- */

void
_gg_agent_turn_add_entry (GgAgentTurn *self,
                          JsonObject  *entry)
{
  self->new_bytes += _gg_agent_entry_bytes (entry);
  json_array_add_object_element (self->new_entries, entry);
}

/* ---- outcome ----------------------------------------------------------- */

static gboolean
complete_in_idle (gpointer user_data)
{
  GgAgentTurn *self = user_data;
  GTask *task = g_steal_pointer (&self->task);

  if (self->cancellable != NULL && self->cancel_id != 0)
    g_cancellable_disconnect (self->cancellable, self->cancel_id);
  self->cancel_id = 0;
  self->state = TURN_DONE;

  if (self->succeeded)
    g_task_return_pointer (task, json_object_ref (self->result),
                           (GDestroyNotify) json_object_unref);
  else
    g_task_return_error (task, g_steal_pointer (&self->failure));
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

static void
finish (GgAgentTurn *self)
{
  self->state = TURN_FINISHING;
  /* Returned from an idle: a cancellation handler or an executor may be on
   * the stack, and the caller's callback may drop the last reference. */
  g_source_unref (_gg_agent_turn_attach (self, g_idle_source_new (), complete_in_idle,
                                       g_object_ref (self), g_object_unref));
}

/* Takes @error. Leaves nothing behind: no entries, no further events. */
void
_gg_agent_turn_fail (GgAgentTurn *self,
                     GError      *error)
{
  if (self->state != TURN_RUNNING)
    {
      g_error_free (error);
      return;
    }
  self->failure = error;
  self->state = TURN_FINISHING;
  _gg_agent_turn_abandon_round (self, "Error: The turn was cancelled.");
  json_array_unref (self->new_entries);
  self->new_entries = json_array_new ();
  finish (self);
}

static void
on_cancelled (GCancellable *cancellable,
              gpointer      user_data)
{
  GgAgentTurn *self = user_data;

  _gg_agent_turn_fail (self, gg_model_error_new (GG_MODEL_ERROR_CANCELLED, NULL,
                                                 "The turn was cancelled"));
}

static JsonNode *
usage_to_node (const GgUsage *usage)
{
  JsonObject *object = json_object_new ();
  JsonNode *node;

  json_object_set_int_member (object, "inputTokens", usage->input_tokens);
  json_object_set_int_member (object, "cachedInputTokens", usage->cached_input_tokens);
  json_object_set_int_member (object, "outputTokens", usage->output_tokens);
  json_object_set_int_member (object, "totalTokens", usage->input_tokens + usage->output_tokens);
  node = json_node_init_object (json_node_alloc (), object);
  json_object_unref (object);
  return node;
}

/* oam's error data for schema problems: where in the answer and where in
 * the schema (`data.path`, `data.schemaPath`). */
static JsonObject *
schema_error_data (const GError *error)
{
  JsonObject *data = json_object_new ();
  const char *path = gg_schema_error_get_path (error);
  const char *schema_path = gg_schema_error_get_schema_path (error);

  if (path != NULL)
    json_object_set_string_member (data, "path", path);
  if (schema_path != NULL)
    json_object_set_string_member (data, "schemaPath", schema_path);
  return data;
}

static GError *
schema_error (GgModelError  code,
              const char   *what,
              const GError *error)
{
  g_autoptr(JsonObject) data = schema_error_data (error);

  return gg_model_error_new (code, json_object_get_size (data) > 0 ? data : NULL,
                             "%s: %s", what, error->message);
}

/* A text or JSON reply: the turn's answer. Takes @reply. */
void
_gg_agent_turn_answer (GgAgentTurn  *self,
                       GgModelReply *reply)
{
  g_autoptr(GgModelReply) owned = reply;
  g_autoptr(JsonNode) structured = NULL;
  g_autofree char *text = NULL;
  JsonObject *entry;
  JsonObject *result;

  if (self->output_schema != NULL)
    {
      g_autoptr(GError) error = NULL;

      if (reply->json != NULL)
        structured = json_node_ref (reply->json);
      else
        {
          /* The model's text is untrusted input: parsed with the depth limit. */
          structured = gg_json_parse (reply->text != NULL ? reply->text : "", -1,
                                      GG_JSON_DEFAULT_MAX_DEPTH, &error);
          if (structured == NULL)
            {
              GError *outside = gg_model_error_new (GG_MODEL_ERROR_GENERATION_FAILED, NULL,
                                                    "The model's answer is not valid JSON%s%s",
                                                    error != NULL ? ": " : "",
                                                    error != NULL ? error->message : "");

              _gg_agent_turn_fail (self, _gg_model_error_set_outside_schema (outside));
              return;
            }
        }
      if (!gg_schema_validate (self->schema, structured, &error))
        {
          if (g_error_matches (error, GG_SCHEMA_ERROR, GG_SCHEMA_ERROR_INVALID_SCHEMA))
            _gg_agent_turn_fail (self, schema_error (GG_MODEL_ERROR_INVALID_SCHEMA,
                                                     "The output schema cannot be used", error));
          else
            _gg_agent_turn_fail (self, _gg_model_error_set_outside_schema (schema_error (
                                         GG_MODEL_ERROR_GENERATION_FAILED,
                                         "The model's answer does not match the schema", error)));
          return;
        }
      text = gg_json_to_string (structured);
    }
  else if (reply->text != NULL)
    text = g_strdup (reply->text);
  else if (reply->json != NULL)
    text = gg_json_to_string (reply->json);
  else
    text = g_strdup ("");

  /* Schema turns end their `partial` events with the answer; text events
   * add up to it, whatever the model streamed. */
  if (structured != NULL)
    _gg_agent_turn_emit_partial (self, json_node_ref (structured));
  else if (g_strcmp0 (self->shown->str, text) != 0)
    {
      if (self->shown->len == 0)
        _gg_agent_turn_emit_text (self, text, FALSE);
      else if (self->step_streamed && g_str_has_prefix (text, self->shown->str))
        _gg_agent_turn_emit_text (self, text + self->shown->len, FALSE);
      else
        _gg_agent_turn_emit_text (self, text, TRUE);
    }
  if (self->state != TURN_RUNNING)
    return;

  entry = json_object_new ();
  json_object_set_string_member (entry, "role", "assistant");
  json_object_set_string_member (entry, "text", text);
  _gg_agent_turn_add_entry (self, entry);

  result = json_object_new ();
  json_object_set_string_member (result, "text", text);
  if (structured != NULL)
    json_object_set_member (result, "structured", json_node_ref (structured));
  json_object_set_array_member (result, "toolCalls", json_array_ref (self->records));
  json_object_set_member (result, "usage", usage_to_node (&self->usage));
  json_object_set_array_member (result, "steps", json_array_ref (self->steps));
  self->result = result;
  self->succeeded = TRUE;
  finish (self);
}

/* ---- running ----------------------------------------------------------- */

static gboolean
start_in_idle (gpointer user_data)
{
  GgAgentTurn *self = user_data;

  if (self->state == TURN_RUNNING)
    _gg_agent_turn_start_step (self);
  return G_SOURCE_REMOVE;
}

/**
 * gg_agent_turn_run_async:
 * @self: a #GgAgentTurn, not run before
 * @cancellable: (nullable): cancels the turn: the model step stops,
 *   outstanding tool calls are abandoned, and the turn fails with
 *   %GG_MODEL_ERROR_CANCELLED without emitting anything further
 * @callback: called once the turn is over, after all its events
 * @user_data: data for @callback
 *
 * Runs the turn on the thread-default main context of the thread that
 * created it. Events, in order: `modelStep` before every inference (a retry
 * of a transient failure is the same step); `text` as the answer grows;
 * per tool round `toolCallStarted` for every call in call order, then
 * `toolCallCompleted` as each finishes. Calls that are not run (an unknown
 * tool, over the policy's max_tool_calls) are started and completed at once with an
 * error output; `respond_directly` is never reported.
 *
 * Since: 1.0
 */
void
gg_agent_turn_run_async (GgAgentTurn         *self,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  JsonObject *entry;

  g_return_if_fail (GG_IS_AGENT_TURN (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));
  g_return_if_fail (self->state == TURN_IDLE);

  /* The task has no cancellable: the turn reports its own cancellation
   * with the oam error, and never turns a finished answer into one. */
  self->task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (self->task, gg_agent_turn_run_async);
  self->state = TURN_RUNNING;

  if (self->policy.tool_choice == GG_TOOL_CHOICE_TOOL &&
      (self->policy.forced_tool == NULL ||
       !g_hash_table_contains (self->tool_index, self->policy.forced_tool)))
    {
      _gg_agent_turn_fail (self, g_error_new (G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                                              "Unknown tool '%s' in toolChoice",
                                              self->policy.forced_tool != NULL ? self->policy.forced_tool : ""));
      return;
    }

  if (self->output_schema != NULL)
    {
      g_autoptr(GError) error = NULL;

      self->schema = gg_schema_new (self->accept_schema != NULL ? self->accept_schema :
                                    self->output_schema, &error);
      if (self->schema == NULL)
        {
          _gg_agent_turn_fail (self, schema_error (GG_MODEL_ERROR_INVALID_SCHEMA,
                                                   "The output schema cannot be used", error));
          return;
        }
    }

  if (cancellable != NULL)
    {
      self->cancellable = g_object_ref (cancellable);
      /* Runs on_cancelled() at once if already cancelled. */
      self->cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (on_cancelled), self, NULL);
      if (self->state != TURN_RUNNING)
        return;
    }

  entry = json_object_new ();
  json_object_set_string_member (entry, "role", "user");
  json_object_set_string_member (entry, "text", self->prompt);
  _gg_agent_turn_add_entry (self, entry);

  /* Events start after run_async() returns, so the caller can set up. */
  g_source_unref (_gg_agent_turn_attach (self, g_idle_source_new (), start_in_idle,
                                       g_object_ref (self), g_object_unref));
}

/**
 * gg_agent_turn_run_finish:
 * @self: a #GgAgentTurn
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError: %GG_MODEL_ERROR, or
 *   %G_IO_ERROR_INVALID_ARGUMENT for a toolChoice naming an unknown tool
 *
 * Finishes a turn started with gg_agent_turn_run_async().
 *
 * Returns: (transfer full) (nullable): the oam `session/respond` result
 *   without `session`: `{text, structured?, toolCalls, usage, steps}`; its
 *   arrays are shared with the turn (events, new entries): add members to
 *   the object, but do not modify the arrays
 *
 * Since: 1.0
 */
JsonObject *
gg_agent_turn_run_finish (GgAgentTurn   *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (GG_IS_AGENT_TURN (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * gg_agent_turn_get_new_entries:
 * @self: a #GgAgentTurn
 *
 * Gets what the turn adds to the conversation.
 *
 * Returns: (transfer none) (nullable): the transcript entries to append to
 *   the history after a successful turn (the prompt, tool calls and outputs,
 *   the answer); %NULL unless the turn succeeded
 *
 * Since: 1.0
 */
JsonArray *
gg_agent_turn_get_new_entries (GgAgentTurn *self)
{
  g_return_val_if_fail (GG_IS_AGENT_TURN (self), NULL);
  return self->succeeded ? self->new_entries : NULL;
}
