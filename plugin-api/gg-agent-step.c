/* gg-agent-step.c: one agent turn's model steps (tool choice, trimming,
 * retries) and tool rounds (limits, parallel calls, timeouts).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "gg-agent-turn-private.h"
#include "gg-json.h"
#include "gg-model-private.h"
#include "gg-tool-invocation-private.h"
#include "gg-bus-observer-private.h"

static void run_attempt (GgAgentTurn *self);

/* ---- which tools a step sees ------------------------------------------- */

static JsonObject *
respond_directly_definition (void)
{
  JsonObject *tool = json_object_new ();
  JsonObject *parameters = json_object_new ();

  json_object_set_string_member (tool, "name", GG_RESPOND_DIRECTLY_TOOL);
  json_object_set_string_member (tool, "description",
                                 "Answer the user directly, without calling any other tool.");
  json_object_set_string_member (parameters, "type", "object");
  json_object_set_object_member (parameters, "properties", json_object_new ());
  json_object_set_boolean_member (parameters, "additionalProperties", FALSE);
  json_object_set_object_member (tool, "parameters", parameters);
  return tool;
}

/* What the model is shown of a definition: no execution or timeout. */
static JsonObject *
model_tool (JsonObject *definition)
{
  JsonObject *tool = json_object_new ();
  JsonNode *member;

  json_object_set_string_member (tool, "name", _gg_model_json_get_string (definition, "name"));
  member = json_object_get_member (definition, "description");
  if (member != NULL && JSON_NODE_HOLDS_VALUE (member))
    json_object_set_member (tool, "description", json_node_copy (member));
  member = json_object_get_member (definition, "parameters");
  if (member != NULL && JSON_NODE_HOLDS_OBJECT (member))
    json_object_set_member (tool, "parameters", json_node_copy (member));
  else
    {
      JsonObject *parameters = json_object_new ();
      json_object_set_string_member (parameters, "type", "object");
      json_object_set_object_member (parameters, "properties", json_object_new ());
      json_object_set_object_member (tool, "parameters", parameters);
    }
  return tool;
}

/* Who runs a call, as its definition says: the front end's client unless
 * the definition names another kind ("target", with the bus target id). */
static void
set_execution (JsonObject *event,
               JsonObject *definition)
{
  const char *execution = NULL, *target = NULL;

  if (definition != NULL)
    {
      execution = json_object_get_string_member_with_default (definition, "execution", NULL);
      target = json_object_get_string_member_with_default (definition, "target", NULL);
    }
  json_object_set_string_member (event, "execution", execution != NULL ? execution : "client");
  if (target != NULL)
    json_object_set_string_member (event, "target", target);
}

static gboolean
tool_enabled (GgAgentTurn *self,
              const char  *name)
{
  return self->policy.enabled_tools == NULL ||
         g_strv_contains ((const char * const *) self->policy.enabled_tools, name);
}

static void
show_tool (GgAgentTurn *self,
           const char  *name,
           JsonObject  *definition,
           JsonObject  *shown,
           gsize        bytes)
{
  g_hash_table_insert (self->visible, (gpointer) name, definition);
  /* Brackets, then a comma before every tool but the first. */
  self->request_tools_bytes += bytes + (json_array_get_length (self->request_tools) > 0 ? 1 : 2);
  json_array_add_object_element (self->request_tools, shown);
}

/* Made once per turn: every step shows the same definitions. */
static void
show_cached_tool (GgAgentTurn *self,
                  const char  *name,
                  JsonObject  *definition)
{
  JsonObject *tool = g_hash_table_lookup (self->model_tools, name);

  if (tool == NULL)
    {
      g_autoptr(JsonNode) node = NULL;

      tool = model_tool (definition);
      node = json_node_init_object (json_node_alloc (), tool);
      /* Keyed by the definition's own name string, alive as long as the turn. */
      g_hash_table_insert (self->model_tools, (gpointer) name, tool);
      g_hash_table_insert (self->model_tool_bytes, (gpointer) name, GSIZE_TO_POINTER (_gg_model_json_size (node)));
    }
  show_tool (self, name, definition, json_object_ref (tool),
             GPOINTER_TO_SIZE (g_hash_table_lookup (self->model_tool_bytes, name)));
}

static void
choose_tools (GgAgentTurn *self)
{
  gboolean first = json_array_get_length (self->steps) == 0;
  GgToolChoiceKind choice = self->policy.tool_choice;

  g_clear_pointer (&self->visible, g_hash_table_unref);
  g_clear_pointer (&self->request_tools, json_array_unref);
  self->visible = g_hash_table_new (g_str_hash, g_str_equal);
  self->request_tools = json_array_new ();
  self->request_tools_bytes = 0;

  if (self->completed_rounds >= self->policy.max_tool_rounds || self->force_none)
    self->mode = GG_TOOL_MODE_NONE;
  else if (!first)
    self->mode = GG_TOOL_MODE_ALLOWED;
  else if (choice == GG_TOOL_CHOICE_NONE)
    self->mode = GG_TOOL_MODE_NONE;
  else if (choice == GG_TOOL_CHOICE_AUTO)
    self->mode = GG_TOOL_MODE_ALLOWED;
  else
    self->mode = GG_TOOL_MODE_REQUIRED;

  if (self->mode == GG_TOOL_MODE_NONE)
    return;

  if (first && choice == GG_TOOL_CHOICE_TOOL)
    {
      JsonObject *definition = g_hash_table_lookup (self->tool_index, self->policy.forced_tool);

      /* run_async() checked the name. */
      show_cached_tool (self, _gg_model_json_get_string (definition, "name"), definition);
      return;
    }

  for (guint i = 0; i < json_array_get_length (self->tools); i++)
    {
      JsonNode *node = json_array_get_element (self->tools, i);
      JsonObject *definition;
      const char *name;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      definition = json_node_get_object (node);
      name = _gg_model_json_get_string (definition, "name");
      /* Only the first definition of a name counts (the index holds it). */
      if (name == NULL || g_hash_table_lookup (self->tool_index, name) != definition ||
          !tool_enabled (self, name))
        continue;
      show_cached_tool (self, name, definition);
    }

  if (first && choice == GG_TOOL_CHOICE_EXPLICIT &&
      !g_hash_table_contains (self->visible, GG_RESPOND_DIRECTLY_TOOL))
    {
      /* The built-in has no definition of the caller's: NULL marks it. */
      JsonObject *builtin = respond_directly_definition ();
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), builtin);

      show_tool (self, GG_RESPOND_DIRECTLY_TOOL, NULL, builtin, _gg_model_json_size (node));
    }
}

/* ---- context budget ---------------------------------------------------- */

static gboolean
is_user_entry (JsonObject *entry)
{
  return g_strcmp0 (_gg_model_json_get_string (entry, "role"), "user") == 0;
}

/* Tokens estimated as (bytes + 3) / 4 of what the model is shown. Hides the
 * oldest whole turns while that is over budget; never the current turn. */
static gboolean
fit_context (GgAgentTurn  *self,
             GError      **error)
{
  gint64 context = gg_model_get_context_size (self->model);
  gint64 budget = context - self->policy.reserved_response_tokens;
  gsize bytes = self->new_bytes;
  gsize history_bytes = 0;
  gint64 tokens;

  if (self->instructions != NULL)
    bytes += strlen (self->instructions);
  bytes += self->request_tools_bytes;
  for (guint i = self->trim_start; i < self->history->len; i++)
    history_bytes += g_array_index (self->history_bytes, gsize, i);

  tokens = (gint64) ((bytes + history_bytes + 3) / 4);
  if (tokens > budget && self->policy.trim_history && self->trim_start < self->history->len)
    {
      guint cut = self->trim_start + 1;

      /* Whole turns go, oldest first, until the rest fits: the cut is the
       * first turn's start (a user entry) at or past the first entry from
       * which the rest would fit. Found by the sizes first, so that a long
       * session's roles are not read on every step. */
      history_bytes -= g_array_index (self->history_bytes, gsize, self->trim_start);
      while (cut < self->history->len && (gint64) ((bytes + history_bytes + 3) / 4) > budget)
        history_bytes -= g_array_index (self->history_bytes, gsize, cut++);
      while (cut < self->history->len && !is_user_entry (g_ptr_array_index (self->history, cut)))
        history_bytes -= g_array_index (self->history_bytes, gsize, cut++);
      self->trim_start = cut;
      tokens = (gint64) ((bytes + history_bytes + 3) / 4);
    }

  if (tokens > budget)
    {
      g_set_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_CONTEXT_SIZE_EXCEEDED,
                   "The conversation needs about %" G_GINT64_FORMAT " tokens, more than the %"
                   G_GINT64_FORMAT " the model's context of %" G_GINT64_FORMAT
                   " leaves after reserving %" G_GINT64_FORMAT " for the answer",
                   tokens, MAX (budget, 0), context, self->policy.reserved_response_tokens);
      return FALSE;
    }
  return TRUE;
}

/* ---- model steps ------------------------------------------------------- */

static JsonObject *
step_object (GgAgentTurn *self)
{
  JsonObject *step = json_object_new ();
  JsonArray *names = json_array_new ();

  for (guint i = 0; i < json_array_get_length (self->request_tools); i++)
    {
      JsonObject *tool = json_array_get_object_element (self->request_tools, i);
      json_array_add_string_element (names, json_object_get_string_member (tool, "name"));
    }
  json_object_set_int_member (step, "index", json_array_get_length (self->steps));
  json_object_set_int_member (step, "completedToolRounds", self->completed_rounds);
  json_object_set_string_member (step, "toolCallingMode", gg_tool_mode_to_string (self->mode));
  json_object_set_array_member (step, "enabledTools", names);
  json_object_set_int_member (step, "trimmedEntries", self->trim_start);
  return step;
}

/* Starts the next model step: tools, budget, `modelStep`, inference. */
void
_gg_agent_turn_start_step (GgAgentTurn *self)
{
  g_autoptr(GError) error = NULL;
  JsonObject *step;
  JsonObject *event;

  choose_tools (self);
  if (!fit_context (self, &error))
    {
      _gg_agent_turn_fail (self, g_steal_pointer (&error));
      return;
    }

  step = step_object (self);
  json_array_add_object_element (self->steps, json_object_ref (step));
  event = json_object_new ();
  json_object_set_string_member (event, "type", "modelStep");
  json_object_set_object_member (event, "step", step);
  _gg_agent_turn_emit (self, event);
  if (self->state != TURN_RUNNING)
    return;

  self->attempt = 1;
  run_attempt (self);
}

static gboolean
is_transient (const GError *error)
{
  return g_error_matches (error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED) ||
         g_error_matches (error, GG_MODEL_ERROR, GG_MODEL_ERROR_BUSY);
}

/* Model errors reach the caller in the oam vocabulary. */
static GError *
as_model_error (GError *error)
{
  GError *mapped;

  if (error == NULL)
    return gg_model_error_new (GG_MODEL_ERROR_GENERATION_FAILED, NULL,
                               "The model failed without saying why");
  if (error->domain == GG_MODEL_ERROR)
    return error;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    mapped = gg_model_error_new (GG_MODEL_ERROR_CANCELLED, NULL, "The turn was cancelled");
  else
    mapped = gg_model_error_new (GG_MODEL_ERROR_GENERATION_FAILED, NULL, "%s", error->message);
  g_error_free (error);
  return mapped;
}

static void
on_step_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GgAgentTurn) self = user_data;
  GError *error = NULL;
  GgModelReply *reply;

  reply = gg_model_step_finish (GG_MODEL (source), result, &error);
  if (self->state != TURN_RUNNING)
    {
      /* Cancelled meanwhile: the outcome is already decided. */
      gg_model_reply_free (reply);
      g_clear_error (&error);
      return;
    }

  if (reply == NULL)
    {
      error = as_model_error (error);
      if (is_transient (error) && !self->tool_ran &&
          self->attempt < MAX (self->policy.max_attempts, 1))
        {
          g_debug ("Model step failed (%s); trying again", error->message);
          g_error_free (error);
          self->attempt++;
          run_attempt (self);
          return;
        }
      _gg_agent_turn_fail (self, error);
      return;
    }

  self->usage.input_tokens += reply->usage.input_tokens;
  self->usage.cached_input_tokens += reply->usage.cached_input_tokens;
  self->usage.output_tokens += reply->usage.output_tokens;

  if (reply->tool_calls != NULL && json_array_get_length (reply->tool_calls) > 0)
    {
      if (self->mode == GG_TOOL_MODE_NONE)
        {
          gg_model_reply_free (reply);
          _gg_agent_turn_fail (self, gg_model_error_new (GG_MODEL_ERROR_GENERATION_FAILED, NULL,
                                                         "The model called a tool while tools were disabled"));
          return;
        }
      _gg_agent_turn_run_round (self, reply->tool_calls);
      gg_model_reply_free (reply);
      return;
    }
  _gg_agent_turn_answer (self, reply);
}

static void
run_attempt (GgAgentTurn *self)
{
  g_autoptr(GgModelRequest) request = gg_model_request_new ();

  request->instructions = g_strdup (self->instructions);
  for (guint i = self->trim_start; i < self->history->len; i++)
    json_array_add_object_element (request->transcript,
                                   json_object_ref (g_ptr_array_index (self->history, i)));
  for (guint i = 0; i < json_array_get_length (self->new_entries); i++)
    json_array_add_object_element (request->transcript,
                                   json_object_ref (json_array_get_object_element (self->new_entries, i)));
  request->tools = json_array_ref (self->request_tools);
  request->tool_mode = self->mode;
  if (self->output_schema != NULL)
    {
      request->output_schema = json_node_ref (self->output_schema);
      request->schema_name = g_strdup ("Response");
    }
  request->sampling = self->sampling != NULL ? json_node_ref (self->sampling) : NULL;
  request->temperature = self->temperature;
  request->max_tokens = self->max_tokens;
  request->stream = self->stream;

  self->step_streamed = FALSE;
  gg_model_step_async (self->model, request, _gg_agent_turn_on_delta, self,
                       self->cancellable, on_step_done, g_object_ref (self));
}

/* ---- tool rounds ------------------------------------------------------- */

void
_gg_round_call_free (GgRoundCall *rc)
{
  _gg_agent_clear_source (&rc->timeout);
  if (rc->invocation != NULL)
    _gg_tool_invocation_abandon (rc->invocation, "Error: The turn was cancelled.");
  g_clear_object (&rc->invocation);
  g_clear_pointer (&rc->call, json_object_unref);
  g_free (rc->reject);
  g_free (rc->model_text);
  g_free (rc);
}

/* Stops waiting for every call still outstanding. */
void
_gg_agent_turn_abandon_round (GgAgentTurn *self,
                              const char  *reason)
{
  for (guint i = 0; i < self->round->len; i++)
    {
      GgRoundCall *rc = g_ptr_array_index (self->round, i);
      g_autoptr(GgToolInvocation) invocation = g_steal_pointer (&rc->invocation);

      if (rc->done)
        continue;
      rc->done = TRUE;
      _gg_agent_clear_source (&rc->timeout);
      if (invocation != NULL)
        _gg_tool_invocation_abandon (invocation, reason);
    }
}

static void
round_done (GgAgentTurn *self)
{
  JsonObject *entry = json_object_new ();
  JsonArray *calls = json_array_new ();

  for (guint i = 0; i < self->round->len; i++)
    {
      GgRoundCall *rc = g_ptr_array_index (self->round, i);
      json_array_add_object_element (calls, json_object_ref (rc->call));
    }
  json_object_set_string_member (entry, "role", "assistant");
  json_object_set_array_member (entry, "toolCalls", calls);
  _gg_agent_turn_add_entry (self, entry);

  for (guint i = 0; i < self->round->len; i++)
    {
      GgRoundCall *rc = g_ptr_array_index (self->round, i);

      entry = json_object_new ();
      json_object_set_string_member (entry, "role", "tool");
      json_object_set_string_member (entry, "callId", json_object_get_string_member (rc->call, "id"));
      json_object_set_string_member (entry, "name", json_object_get_string_member (rc->call, "name"));
      json_object_set_string_member (entry, "output", rc->model_text);
      _gg_agent_turn_add_entry (self, entry);
    }

  self->completed_rounds++;
  _gg_agent_turn_start_step (self);
}

static void
complete_call (GgRoundCall *rc,
               JsonNode    *output,
               gboolean     is_error)
{
  GgAgentTurn *self = rc->turn;
  JsonObject *record;
  JsonObject *event;
  gint64 elapsed_us;

  if (rc->done)
    return;
  rc->done = TRUE;
  _gg_agent_clear_source (&rc->timeout);
  g_clear_object (&rc->invocation);
  if (self->state != TURN_RUNNING)
    return;

  rc->model_text = _gg_tool_output_to_model_text (output, is_error);
  elapsed_us = rc->started_us != 0 ? g_get_monotonic_time () - rc->started_us : 0;

  record = json_object_new ();
  json_object_set_object_member (record, "call", json_object_ref (rc->call));
  json_object_set_member (record, "output", gg_json_copy (output));
  json_object_set_boolean_member (record, "isError", is_error);
  /* Milliseconds are all a duration needs, and keep the JSON short. */
  json_object_set_double_member (record, "durationSeconds", (double) ((elapsed_us + 500) / 1000) / 1000.0);
  json_array_add_object_element (self->records, json_object_ref (record));

  event = json_object_new ();
  json_object_set_string_member (event, "type", "toolCallCompleted");
  json_object_set_object_member (event, "record", record);
  _gg_agent_turn_emit (self, event);

  self->outstanding--;
  if (!self->dispatching && self->outstanding == 0 && self->state == TURN_RUNNING)
    round_done (self);
}

static void
complete_with_error (GgRoundCall *rc,
                     const char  *message)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);

  json_node_set_string (node, message);
  complete_call (rc, node, TRUE);
}

static void
on_invocation_return (GgToolInvocation *invocation,
                      JsonNode         *output,
                      gboolean          is_error,
                      gpointer          user_data)
{
  complete_call (user_data, output, is_error);
}

/* "120", "0.5", "0.05": the shortest form a person would write. */
static char *
format_seconds (gint64 ms)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%.6g", (double) ms / 1000.0));
}

static gboolean
on_call_timeout (gpointer user_data)
{
  GgRoundCall *rc = user_data;
  g_autoptr(GgToolInvocation) invocation = g_steal_pointer (&rc->invocation);
  g_autofree char *seconds = format_seconds (rc->timeout_ms);
  g_autofree char *message = NULL;
  g_autofree char *reason = NULL;

  _gg_agent_clear_source (&rc->timeout);
  message = g_strdup_printf ("Tool '%s' timed out after %ss.",
                             json_object_get_string_member (rc->call, "name"), seconds);
  reason = g_strconcat ("Error: ", message, NULL);
  /* The executor learns first that nobody waits any more (oam: tool/cancel),
   * then the model gets the error output and the turn goes on. */
  if (invocation != NULL)
    _gg_tool_invocation_abandon (invocation, reason);
  complete_with_error (rc, message);
  return G_SOURCE_REMOVE;
}

static gint64
call_timeout_ms (GgAgentTurn *self,
                 JsonObject  *definition)
{
  JsonNode *node = definition != NULL ? json_object_get_member (definition, "timeoutSeconds") : NULL;

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node))
    {
      GType type = json_node_get_value_type (node);

      if (type == G_TYPE_INT64 || type == G_TYPE_DOUBLE)
        {
          double seconds = json_node_get_double (node);

          /* oam allows 0 (forever) to one day; anything else was refused
           * by the front end, so keep the policy rather than guess. */
          /* A positive timeout stays one, however small: 0 means forever. */
          if (isfinite (seconds) && seconds >= 0 && seconds <= 86400)
            return seconds > 0 ? MAX ((gint64) (seconds * 1000.0 + 0.5), 1) : 0;
        }
    }
  return MAX (self->policy.tool_timeout_ms, 0);
}

static void
start_call (GgAgentTurn *self,
            GgRoundCall *rc)
{
  GgToolInvocation *invocation;

  rc->started_us = g_get_monotonic_time ();
  rc->timeout_ms = call_timeout_ms (self, rc->tool);
  self->tool_ran = TRUE;
  invocation = _gg_tool_invocation_new (rc->call, rc->tool, on_invocation_return, rc);
  rc->invocation = g_object_ref (invocation);
  /* The bus tap: the call reports the correlation of the turn's request. */
  if (_gg_bus_any_observer () && gg_bus_get_correlation (self->cancellable, NULL, NULL) != NULL)
    gg_bus_copy_correlation (self->cancellable, gg_tool_invocation_get_cancellable (invocation));
  if (rc->timeout_ms > 0)
    rc->timeout = _gg_agent_turn_attach (self, g_timeout_source_new ((guint) MIN (rc->timeout_ms, G_MAXUINT)),
                                         on_call_timeout, rc, NULL);
  if (self->executor != NULL)
    self->executor (invocation, self->executor_data);
  else
    {
      gg_tool_invocation_return_error (invocation, "No tool executor is available.");
      g_object_unref (invocation);
    }
}

static JsonObject *
make_call (GgAgentTurn *self,
           JsonObject  *given,
           const char  *name)
{
  JsonObject *call = json_object_new ();
  const char *id = _gg_model_json_get_string (given, "id");
  JsonNode *arguments = given != NULL ? json_object_get_member (given, "arguments") : NULL;

  if (id != NULL && *id != '\0')
    json_object_set_string_member (call, "id", id);
  else
    {
      g_autofree char *generated = g_strdup_printf ("call_%u", ++self->next_call_id);
      json_object_set_string_member (call, "id", generated);
    }
  json_object_set_string_member (call, "name", name);
  if (arguments != NULL && !JSON_NODE_HOLDS_NULL (arguments))
    json_object_set_member (call, "arguments", gg_json_copy (arguments));
  else
    json_object_set_object_member (call, "arguments", json_object_new ());
  return call;
}

/* One tool round: every call of the step, run in parallel. */
void
_gg_agent_turn_run_round (GgAgentTurn *self,
                          JsonArray   *tool_calls)
{
  g_autoptr(GgAgentTurn) hold = g_object_ref (self);

  g_ptr_array_set_size (self->round, 0);
  self->respond_directly = FALSE;

  for (guint i = 0; i < json_array_get_length (tool_calls); i++)
    {
      JsonNode *node = json_array_get_element (tool_calls, i);
      JsonObject *given = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *name = _gg_model_json_get_string (given, "name");
      GgRoundCall *rc;

      if (name == NULL)
        name = "";
      if (g_strcmp0 (name, GG_RESPOND_DIRECTLY_TOOL) == 0 &&
          g_hash_table_contains (self->visible, name) &&
          g_hash_table_lookup (self->visible, name) == NULL)
        {
          /* Not a tool: the model's way of saying it will answer now. */
          self->respond_directly = TRUE;
          continue;
        }

      rc = g_new0 (GgRoundCall, 1);
      rc->turn = self;
      rc->call = make_call (self, given, name);
      rc->tool = g_hash_table_lookup (self->visible, name); /* borrowed: from self->tools, kept all turn */
      if (rc->tool == NULL)
        rc->reject = g_strdup_printf ("Unknown tool '%s'.", name);
      else if (!JSON_NODE_HOLDS_OBJECT (json_object_get_member (rc->call, "arguments")))
        /* Executors and clients are promised an object; a backend that
         * does not constrain its model may produce anything. */
        rc->reject = g_strdup_printf ("The arguments of tool '%s' must be a JSON object.", name);
      else if (self->calls_made >= self->policy.max_tool_calls)
        rc->reject = g_strdup_printf ("Too many tool calls in this turn (limit %" G_GINT64_FORMAT ").",
                                      self->policy.max_tool_calls);
      else
        self->calls_made++;
      g_ptr_array_add (self->round, rc);
    }

  if (self->respond_directly)
    self->force_none = TRUE;
  if (self->round->len == 0)
    {
      _gg_agent_turn_start_step (self);
      return;
    }

  for (guint i = 0; i < self->round->len && self->state == TURN_RUNNING; i++)
    {
      GgRoundCall *rc = g_ptr_array_index (self->round, i);
      JsonObject *event = json_object_new ();

      json_object_set_string_member (event, "type", "toolCallStarted");
      json_object_set_object_member (event, "call", json_object_ref (rc->call));
      set_execution (event, rc->tool);
      _gg_agent_turn_emit (self, event);
    }

  /* Executors may answer at once; the round goes on only after all calls
   * were handed out. */
  self->outstanding = self->round->len;
  self->dispatching = TRUE;
  for (guint i = 0; i < self->round->len && self->state == TURN_RUNNING; i++)
    {
      GgRoundCall *rc = g_ptr_array_index (self->round, i);

      if (rc->reject != NULL)
        complete_with_error (rc, rc->reject);
    }
  for (guint i = 0; i < self->round->len && self->state == TURN_RUNNING; i++)
    {
      GgRoundCall *rc = g_ptr_array_index (self->round, i);

      if (rc->reject == NULL)
        start_call (self, rc);
    }
  self->dispatching = FALSE;

  if (self->state == TURN_RUNNING && self->outstanding == 0)
    round_done (self);
}
