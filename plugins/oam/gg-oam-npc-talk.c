/* gg-oam-npc-talk.c: an NPC's turns: npc/talk (structured, text, the
 * plain-text retry and fallback lines, npc/event streaming), npc/bark and
 * the background compaction that keeps long conversations in context.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-oam-errors.h"
#include "gg-oam-npc.h"
#include "gg-oam-options.h"
#include "gg-oam-params.h"
#include "gg-oam-session.h"
#include "gg-oam-targets.h"
#include "gg-oam-tools.h"

#define SUMMARY_INSTRUCTIONS \
  "You summarize a conversation between a player and a game character in two or three sentences, " \
  "keeping names, facts and promises."
#define SUMMARY_PROMPT "Summarize the conversation so far."

/* ---- background compaction --------------------------------------------- */

static void
compact_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  GgOamOp *op = user_data;
  NpcOp *data = op->data;
  GgOamNpc *npc = data->npc;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) outcome = gg_agent_turn_run_finish (GG_AGENT_TURN (source), result, &error);
  const char *summary;

  if (outcome == NULL || !gg_oam_op_commit (op))
    {
      if (error != NULL)
        g_debug ("oam: compaction of NPC %s failed: %s", npc->id, error->message);
      gg_oam_op_return_result (op, NULL);
      return;
    }
  summary = json_object_get_string_member_with_default (outcome, "text", "");
  if (npc->summary != NULL && *npc->summary != '\0')
    {
      char *joined = g_strdup_printf ("%s %s", npc->summary, summary);
      g_free (npc->summary);
      npc->summary = joined;
    }
  else
    {
      g_free (npc->summary);
      npc->summary = g_strdup (summary);
    }
  /* Turns that finished meanwhile cannot exist: compaction is queued. */
  g_clear_pointer (&npc->history, json_array_unref);
  npc->history = json_array_ref (data->recent);
  npc->turns_since_compaction = 0;
  gg_oam_op_return_result (op, NULL);
}

static void
compact_run (GgOamOp *op)
{
  NpcOp *data = op->data;
  GgOamNpc *npc = data->npc;
  g_autoptr(GgAgentTurn) turn = NULL;
  GgAgentPolicy policy;
  guint split;

  if (g_cancellable_is_cancelled (op->cancellable))
    {
      gg_oam_op_return_result (op, NULL);
      return;
    }
  split = gg_oam_split_recent (npc->history, gg_oam_npc_option_int (npc, "keepRecentTurns"));
  if (split == 0)
    {
      gg_oam_op_return_result (op, NULL);
      return;
    }
  data->old = json_array_new ();
  data->recent = json_array_new ();
  for (guint i = 0; i < json_array_get_length (npc->history); i++)
    json_array_add_element (i < split ? data->old : data->recent,
                            json_node_copy (json_array_get_element (npc->history, i)));
  gg_agent_policy_init (&policy);
  policy.tool_choice = GG_TOOL_CHOICE_NONE;
  turn = gg_agent_turn_new (npc->model, SUMMARY_INSTRUCTIONS, data->old, NULL, SUMMARY_PROMPT, NULL, &policy);
  gg_agent_policy_clear (&policy);
  gg_agent_turn_run_async (turn, op->cancellable, compact_cb, op);
}

static void
maybe_compact (GgOamConnection *conn,
               GgOamNpc        *npc)
{
  gint64 after = gg_oam_npc_option_int (npc, "compactAfterTurns");

  if (after <= 0 || npc->turns_since_compaction < after)
    return;
  npc->turns_since_compaction = 0;
  /* Before anything already waiting, so a settling npc/state sees it. */
  gg_oam_queue_push_front (npc->queue, gg_oam_op_new (NULL, compact_run, gg_oam_npc_op_new (conn, npc, NULL, NULL),
                                                      (GDestroyNotify) gg_oam_npc_op_free));
}

/* ---- npc/talk ---------------------------------------------------------- */

static void
emit (NpcOp      *data,
      JsonObject *event)
{
  g_autoptr(JsonObject) params = gg_oam_turn_event_params ("npc", data->npc->id, data->request_id, event);

  gg_oam_connection_notify (data->conn, "npc/event", params);
}

static void
emit_emotion (NpcOp      *data,
              const char *emotion)
{
  g_autoptr(JsonObject) event = json_object_new ();

  json_object_set_string_member (event, "type", "emotion");
  json_object_set_string_member (event, "emotion", emotion);
  emit (data, event);
  g_free (data->emotion_sent);
  data->emotion_sent = g_strdup (emotion);
}

/* Brings the client's line to @line: a delta when it extends what was
 * shown, a reset otherwise. */
static void
sync_line (NpcOp      *data,
           const char *line)
{
  g_autoptr(JsonObject) event = json_object_new ();

  if (g_str_equal (data->shown->str, line))
    return;
  if (g_str_has_prefix (line, data->shown->str))
    {
      json_object_set_string_member (event, "type", "lineDelta");
      json_object_set_string_member (event, "delta", line + data->shown->len);
    }
  else
    {
      json_object_set_string_member (event, "type", "lineReset");
      json_object_set_string_member (event, "line", line);
    }
  g_string_assign (data->shown, line);
  emit (data, event);
}

/* A structured reply being generated: the emotion once the model has
 * moved past it (so it is whole) and it is one the NPC has, and the line
 * as it grows. */
static void
show_partial (NpcOp    *data,
              JsonNode *value)
{
  JsonObject *reply;
  JsonNode *emotion;
  JsonNode *line;

  if (!JSON_NODE_HOLDS_OBJECT (value))
    return;
  reply = json_node_get_object (value);
  emotion = json_object_get_member (reply, "emotion");
  if (emotion != NULL && JSON_NODE_HOLDS_VALUE (emotion) &&
      json_node_get_value_type (emotion) == G_TYPE_STRING)
    {
      g_autoptr(GList) members = json_object_get_members (reply);
      const char *name = json_node_get_string (emotion);
      JsonArray *allowed = json_object_get_array_member (data->npc->options, "emotions");
      gboolean whole = !g_str_equal (g_list_last (members)->data, "emotion");
      gboolean known = FALSE;

      for (guint i = 0; i < json_array_get_length (allowed) && !known; i++)
        known = g_str_equal (json_array_get_string_element (allowed, i), name);
      if (whole && known && g_strcmp0 (data->emotion_sent, name) != 0)
        emit_emotion (data, name);
    }
  line = json_object_get_member (reply, "line");
  if (line != NULL && JSON_NODE_HOLDS_VALUE (line) && json_node_get_value_type (line) == G_TYPE_STRING)
    sync_line (data, json_node_get_string (line));
}

static void
on_talk_event (JsonObject *event,
               gpointer    user_data)
{
  NpcOp *data = user_data;
  const char *type = json_object_get_string_member_with_default (event, "type", "");

  if (g_str_equal (type, "toolCallCompleted"))
    json_array_add_object_element (data->records,
                                   json_object_ref (json_object_get_object_member (event, "record")));
  if (!data->stream)
    return;
  if (g_str_equal (type, "toolCallStarted"))
    {
      g_autoptr(JsonObject) copy = json_object_new ();
      JsonObject *call = json_object_get_object_member (event, "call");
      const char *name = json_object_get_string_member_with_default (call, "name", "");

      json_object_set_string_member (copy, "type", "toolCallStarted");
      json_object_set_object_member (copy, "call", json_object_ref (call));
      if (gg_oam_npc_is_local_tool (data->npc, name))
        json_object_set_string_member (copy, "execution", "local");
      else
        {
          /* "client", or "target" with the game that runs it. */
          json_object_set_member (copy, "execution",
                                  json_node_copy (json_object_get_member (event, "execution")));
          if (json_object_has_member (event, "target"))
            json_object_set_member (copy, "target", json_node_copy (json_object_get_member (event, "target")));
        }
      emit (data, copy);
    }
  else if (g_str_equal (type, "toolCallCompleted"))
    emit (data, event);
  else if (g_str_equal (type, "partial") && data->structured)
    show_partial (data, json_object_get_member (event, "value"));
  else if (g_str_equal (type, "text") && !data->structured)
    {
      const char *text = json_object_get_string_member_with_default (event, "text", "");
      g_autofree char *emotion = NULL;
      g_autofree char *line = NULL;
      const char *p = text;

      while (g_ascii_isspace (*p))
        p++;
      /* Wait for the whole [emotion] tag before showing anything. */
      if (*p == '[' && strchr (p, ']') == NULL)
        return;
      gg_oam_npc_parse_text_reply (data->npc, text, &emotion, &line);
      if (data->emotion_sent == NULL)
        emit_emotion (data, emotion);
      sync_line (data, line);
    }
}

static void
npc_execute (GgToolInvocation *invocation,
             gpointer          user_data)
{
  NpcOp *data = user_data;

  if (gg_oam_npc_is_local_tool (data->npc, gg_tool_invocation_get_name (invocation)))
    {
      gg_oam_npc_run_local_tool (data->npc, invocation);
      g_object_unref (invocation);
      return;
    }
  gg_oam_tool_execute (invocation, data->tools);
}

static JsonObject *
usage_of (JsonObject *outcome)
{
  if (outcome != NULL && json_object_has_member (outcome, "usage"))
    return json_object_ref (json_object_get_object_member (outcome, "usage"));
  {
    JsonObject *usage = json_object_new ();

    json_object_set_int_member (usage, "inputTokens", 0);
    json_object_set_int_member (usage, "cachedInputTokens", 0);
    json_object_set_int_member (usage, "outputTokens", 0);
    json_object_set_int_member (usage, "totalTokens", 0);
    return usage;
  }
}

static void
talk_answer (GgOamOp    *op,
             const char *line,
             const char *emotion,
             JsonArray  *player_options,
             gboolean    ends,
             gboolean    is_fallback,
             JsonObject *outcome)
{
  NpcOp *data = op->data;
  JsonObject *object = gg_oam_npc_result (data->npc);

  if (data->stream)
    {
      /* What was shown may be stale: a later step, or the plain-text
       * retry after a structured attempt, chose another emotion. */
      if (data->emotion_sent == NULL || is_fallback || !g_str_equal (data->emotion_sent, emotion))
        emit_emotion (data, emotion);
      sync_line (data, line);
    }
  json_object_set_string_member (object, "line", line);
  json_object_set_string_member (object, "emotion", emotion);
  json_object_set_array_member (object, "playerOptions",
                                player_options != NULL ? json_array_ref (player_options) : json_array_new ());
  json_object_set_boolean_member (object, "endsConversation", ends);
  json_object_set_array_member (object, "toolCalls", json_array_ref (data->records));
  json_object_set_int_member (object, "relationship", data->npc->relationship);
  json_object_set_boolean_member (object, "isFallback", is_fallback);
  json_object_set_object_member (object, "usage", usage_of (outcome));
  if (data->warnings->len > 0)
    json_object_set_member (object, "warnings", gg_oam_warnings_to_json (data->warnings));
  gg_oam_op_return_result (op, gg_oam_npc_object_node (object));
}

static void start_talk_turn (GgOamOp *op);

static gboolean
is_blocked (const GError *error)
{
  return g_error_matches (error, GG_MODEL_ERROR, GG_MODEL_ERROR_GUARDRAIL_VIOLATION) ||
         g_error_matches (error, GG_MODEL_ERROR, GG_MODEL_ERROR_REFUSAL);
}

static void
talk_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  GgOamOp *op = user_data;
  NpcOp *data = op->data;
  GgOamNpc *npc = data->npc;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) outcome = gg_agent_turn_run_finish (GG_AGENT_TURN (source), result, &error);
  g_autoptr(GgOamConnection) conn = NULL;
  g_autoptr(GgOamNpc) hold = NULL;
  const char *format = gg_oam_npc_option_string (npc, "replyFormat");

  if (g_cancellable_is_cancelled (op->cancellable))
    {
      g_autoptr(GError) cancelled = gg_oam_error_cancelled ();
      gg_oam_op_return_error (op, cancelled);
      return;
    }
  if (outcome == NULL)
    {
      if (is_blocked (error) && data->structured && g_str_equal (format, "automatic"))
        {
          /* One plain-text retry with tools off; gathered tool results are
           * given to it in the prompt. */
          data->structured = FALSE;
          data->retrying = TRUE;
          start_talk_turn (op);
          return;
        }
      if (is_blocked (error) && gg_oam_npc_option_bool (npc, "fallbackOnGuardrail"))
        {
          /* The blocked exchange stays out of the history. */
          if (!gg_oam_op_commit (op))
            return;
          talk_answer (op, gg_oam_npc_next_fallback (npc),
                       json_object_get_string_member (npc->persona, "defaultEmotion"),
                       NULL, FALSE, TRUE, NULL);
          return;
        }
      gg_oam_op_return_error (op, error);
      return;
    }
  if (!gg_oam_op_commit (op))
    {
      g_autoptr(GError) cancelled = gg_oam_error_cancelled ();
      gg_oam_op_return_error (op, cancelled);
      return;
    }

  /* Answering frees the operation (and may start the next one). */
  conn = g_object_ref (data->conn);
  hold = g_object_ref (npc);
  gg_oam_append_entries (npc->history, gg_agent_turn_get_new_entries (GG_AGENT_TURN (source)));
  npc->turn_count++;
  npc->turns_since_compaction++;
  if (data->structured && json_object_has_member (outcome, "structured") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (outcome, "structured")))
    {
      JsonObject *reply = json_object_get_object_member (outcome, "structured");
      g_autoptr(JsonArray) options = NULL;
      const char *emotion, *line;
      gboolean ends;

      gg_oam_npc_reply_read (npc, reply, &emotion, &line, &options, &ends);
      talk_answer (op, line, emotion, options, ends, FALSE, outcome);
    }
  else
    {
      g_autofree char *emotion = NULL;
      g_autofree char *line = NULL;

      gg_oam_npc_parse_text_reply (npc, json_object_get_string_member_with_default (outcome, "text", ""),
                                   &emotion, &line);
      talk_answer (op, line, emotion, NULL, FALSE, FALSE, outcome);
    }
  maybe_compact (conn, hold);
}

static gboolean
talk_policy (NpcOp          *data,
             GgAgentPolicy  *policy,
             JsonArray      *tools,
             GError        **error)
{
  GgOamNpc *npc = data->npc;
  const char *grounding = gg_oam_npc_option_string (npc, "groundingTool");
  g_autoptr(JsonObject) wrapper = json_object_new ();

  gg_agent_policy_init (policy);
  policy->max_tool_rounds = gg_oam_npc_option_int (npc, "maxToolRounds");
  policy->max_tool_calls = gg_oam_npc_option_int (npc, "maxToolCalls");
  policy->tool_timeout_ms = (gint64) (json_object_get_double_member (npc->options, "toolTimeoutSeconds") * 1000.0);
  if (data->retrying)
    {
      policy->tool_choice = GG_TOOL_CHOICE_NONE;
      return TRUE;
    }
  if (gg_oam_param (data->params, "toolChoice") != NULL)
    {
      if (!gg_oam_parse_tool_choice (data->params, NULL, "toolChoice", &policy->tool_choice,
                                     &policy->forced_tool, error))
        return FALSE;
      if (policy->tool_choice == GG_TOOL_CHOICE_TOOL && !gg_oam_tools_has (tools, policy->forced_tool))
        {
          g_propagate_error (error, gg_oam_error_new (GG_OAM_INVALID_REQUEST, NULL,
                                                      "The NPC has no tool '%s'", policy->forced_tool));
          return FALSE;
        }
      return TRUE;
    }
  if (grounding != NULL)
    {
      policy->tool_choice = GG_TOOL_CHOICE_TOOL;
      policy->forced_tool = g_strdup (grounding);
      return TRUE;
    }
  json_object_set_member (wrapper, "toolChoice", json_node_copy (json_object_get_member (npc->options, "toolChoice")));
  return gg_oam_parse_tool_choice (wrapper, "options", "toolChoice", &policy->tool_choice,
                                   &policy->forced_tool, error);
}

static void
start_talk_turn (GgOamOp *op)
{
  NpcOp *data = op->data;
  GgOamNpc *npc = data->npc;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) own = gg_oam_npc_all_tools (npc);
  g_autoptr(JsonArray) tools = gg_oam_tools_with (own, data->target_tools, data->retrying ? NULL : data->warnings);
  g_autofree char *instructions = gg_oam_npc_instructions (npc, !data->structured);
  g_autofree char *prompt = gg_oam_npc_prompt (npc, data->line, data->context);
  g_autoptr(JsonNode) schema = data->structured ? gg_oam_npc_reply_schema (npc) : NULL;
  g_autoptr(JsonObject) context = json_object_new ();
  JsonNode *temperature = json_object_get_member (npc->options, "temperature");
  GgAgentPolicy policy;

  if (!talk_policy (data, &policy, tools, &error))
    {
      gg_agent_policy_clear (&policy);
      gg_oam_op_return_error (op, error);
      return;
    }
  if (data->retrying && json_array_get_length (data->records) > 0)
    {
      GString *text = g_string_new (prompt);

      g_string_append (text, "\nWhat your tools told you this turn:");
      for (guint i = 0; i < json_array_get_length (data->records); i++)
        {
          JsonObject *record = json_array_get_object_element (data->records, i);
          g_autofree char *output = gg_json_to_string (json_object_get_member (record, "output"));

          g_string_append_printf (text, "\n- %s: %s",
                                  json_object_get_string_member (json_object_get_object_member (record, "call"), "name"),
                                  output);
        }
      g_free (prompt);
      prompt = g_string_free (text, FALSE);
    }
  g_clear_object (&data->turn);
  data->turn = gg_agent_turn_new (npc->model, instructions, npc->history, data->retrying ? NULL : tools,
                                  prompt, schema, &policy);
  gg_agent_policy_clear (&policy);
  if (schema != NULL)
    {
      g_autoptr(JsonNode) accept = gg_oam_npc_reply_accept_schema ();
      gg_agent_turn_set_accept_schema (data->turn, accept);
    }
  gg_agent_turn_set_sampling (data->turn, NULL,
                              temperature != NULL && !JSON_NODE_HOLDS_NULL (temperature) ?
                              json_node_get_double (temperature) : -1.0,
                              gg_oam_npc_option_int (npc, "maximumResponseTokens"));
  gg_agent_turn_set_streaming (data->turn, data->stream);
  gg_agent_turn_set_event_func (data->turn, on_talk_event, data, NULL);
  json_object_set_string_member (context, "npc", npc->id);
  g_clear_pointer (&data->tools, gg_oam_tool_context_free);
  data->tools = gg_oam_tool_context_new (data->conn->bus, data->conn->peer, context, data->request_id);
  gg_agent_turn_set_executor (data->turn, npc_execute, data, NULL);
  gg_agent_turn_run_async (data->turn, op->cancellable, talk_cb, op);
}

static void
on_targets_resolved (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  GgOamOp *op = user_data;
  NpcOp *data = op->data;

  data->target_tools = gg_oam_targets_resolve_finish (result, data->warnings, NULL);
  start_talk_turn (op);
}

static void
talk_run (GgOamOp *op)
{
  NpcOp *data = op->data;

  if (g_cancellable_is_cancelled (op->cancellable))
    {
      g_autoptr(GError) cancelled = gg_oam_error_cancelled ();
      gg_oam_op_return_error (op, cancelled);
      return;
    }
  data->structured = !g_str_equal (gg_oam_npc_option_string (data->npc, "replyFormat"), "text");
  if (gg_oam_npc_targets (data->npc) != NULL)
    gg_oam_targets_resolve_async (gg_oam_npc_targets (data->npc), data->conn->bus, op->cancellable,
                                  on_targets_resolved, op);
  else
    start_talk_turn (op);
}

void
gg_oam_npc_talk (GgOamConnection  *conn,
                 GgJsonRpcRequest *request,
                 JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  static const char * const known[] = { "npc", "line", "context", "stream", "toolChoice", NULL };
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  GgOamNpc *npc = gg_oam_npc_lookup (conn, params, &error);
  GgToolChoiceKind kind = GG_TOOL_CHOICE_AUTO;
  g_autofree char *forced = NULL;
  const char *line;
  gboolean stream;
  NpcOp *data;

  gg_oam_warn_unknown (params, NULL, known, warnings);
  if (npc == NULL ||
      !gg_oam_param_string (params, NULL, "line", TRUE, &line, &error) ||
      !gg_oam_param_bool (params, NULL, "stream", FALSE, &stream, &error) ||
      !gg_oam_parse_tool_choice (params, NULL, "toolChoice", &kind, &forced, &error))
    {
      gg_oam_return_error (request, error);
      return;
    }
  data = gg_oam_npc_op_new (conn, npc, request, params);
  g_ptr_array_extend_and_steal (data->warnings, g_steal_pointer (&warnings));
  data->stream = stream;
  data->line = g_strdup (line);
  data->context = gg_oam_param_text (params, "context");
  gg_oam_npc_push (npc, request, talk_run, data);
}

/* ---- npc/bark ---------------------------------------------------------- */

typedef struct {
  GgOamConnection *conn;
  GgJsonRpcRequest *request;
  GCancellable *cancellable;
  char *npc;
} Bark;

static void
bark_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Bark *bark = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) outcome = gg_agent_turn_run_finish (GG_AGENT_TURN (source), result, &error);

  if (outcome != NULL && g_cancellable_is_cancelled (bark->cancellable))
    {
      g_clear_pointer (&outcome, json_object_unref);
      error = gg_oam_error_cancelled ();
    }
  if (outcome == NULL)
    gg_oam_return_error (g_steal_pointer (&bark->request), error);
  else
    {
      JsonObject *object = json_object_new ();

      json_object_set_string_member (object, "npc", bark->npc);
      json_object_set_string_member (object, "line", json_object_get_string_member_with_default (outcome, "text", ""));
      gg_oam_npc_return_object (g_steal_pointer (&bark->request), object);
    }
  gg_oam_connection_end_work (bark->conn, bark->cancellable);
  g_object_unref (bark->cancellable);
  g_object_unref (bark->conn);
  g_free (bark->npc);
  g_free (bark);
}

void
gg_oam_npc_bark (GgOamConnection  *conn,
                 GgJsonRpcRequest *request,
                 JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgAgentTurn) turn = NULL;
  g_autofree char *situation = gg_oam_param_text (params, "situation");
  g_autofree char *prompt = NULL;
  GgOamNpc *npc = gg_oam_npc_lookup (conn, params, &error);
  JsonObject *p;
  GString *instructions;
  GgAgentPolicy policy;
  Bark *bark;

  if (npc == NULL)
    {
      gg_oam_return_error (request, error);
      return;
    }
  p = npc->persona;
  instructions = g_string_new (NULL);
  g_string_append_printf (instructions, "You play %s", json_object_get_string_member (p, "name"));
  if (*json_object_get_string_member (p, "role") != '\0')
    g_string_append_printf (instructions, ", %s", json_object_get_string_member (p, "role"));
  g_string_append (instructions, ", a character in a video game.");
  if (*json_object_get_string_member (p, "personality") != '\0')
    g_string_append_printf (instructions, "\nPersonality: %s", json_object_get_string_member (p, "personality"));
  if (*json_object_get_string_member (p, "speakingStyle") != '\0')
    g_string_append_printf (instructions, "\nSpeaking style: %s", json_object_get_string_member (p, "speakingStyle"));
  g_string_append (instructions, "\nSay one short line to nobody in particular, in character. "
                   "Never say you are an AI.");
  prompt = situation != NULL ? g_strdup_printf ("Situation: %s", situation) : g_strdup ("Say something.");

  /* A one-off session: no history, memory or tools. */
  gg_agent_policy_init (&policy);
  policy.tool_choice = GG_TOOL_CHOICE_NONE;
  turn = gg_agent_turn_new (npc->model, instructions->str, NULL, NULL, prompt, NULL, &policy);
  g_string_free (instructions, TRUE);
  gg_agent_policy_clear (&policy);
  gg_agent_turn_set_sampling (turn, NULL, -1.0, gg_oam_npc_option_int (npc, "barkMaximumTokens"));
  bark = g_new0 (Bark, 1);
  bark->conn = g_object_ref (conn);
  bark->request = request;
  bark->cancellable = gg_oam_connection_begin_work (conn);
  bark->npc = g_strdup (npc->id);
  gg_agent_turn_run_async (turn, bark->cancellable, bark_cb, bark);
}

