/* gg-oam-session-ops.c: the queued session operations besides turns:
 * session/reset, setInstructions, setContextNote, setTools and compact.
 * They run in arrival order with the session's turns.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-oam-errors.h"
#include "gg-oam-params.h"
#include "gg-oam-session.h"
#include "gg-oam-tools.h"

#define DEFAULT_SUMMARY_INSTRUCTIONS \
  "You summarize conversations. Write a short summary of the conversation so far, " \
  "keeping names, facts, promises and open questions."
#define SUMMARY_PROMPT "Summarize the conversation so far in a few sentences."
/* ---- queued settings --------------------------------------------------- */

static gboolean
start_or_cancel (GgOamOp *op)
{
  if (gg_oam_op_commit (op))
    return TRUE;
  {
    g_autoptr(GError) cancelled = gg_oam_error_cancelled ();
    gg_oam_op_return_error (op, cancelled);
  }
  return FALSE;
}

static void
reset_run (GgOamOp *op)
{
  SessionOp *data = op->data;

  if (!start_or_cancel (op))
    return;
  g_clear_pointer (&data->session->history, json_array_unref);
  data->session->history = json_array_new ();
  g_clear_pointer (&data->session->context_note, g_free);
  gg_oam_op_return_result (op, gg_oam_session_result (data->session));
}

static void
set_instructions_run (GgOamOp *op)
{
  SessionOp *data = op->data;
  const char *value = NULL;

  if (!start_or_cancel (op))
    return;
  gg_oam_param_string (data->params, NULL, "instructions", FALSE, &value, NULL);
  g_free (data->session->instructions);
  data->session->instructions = g_strdup (value);
  gg_oam_op_return_result (op, gg_oam_session_result (data->session));
}

static void
set_context_note_run (GgOamOp *op)
{
  SessionOp *data = op->data;
  const char *value = NULL;

  if (!start_or_cancel (op))
    return;
  gg_oam_param_string (data->params, NULL, "note", FALSE, &value, NULL);
  g_free (data->session->context_note);
  data->session->context_note = g_strdup (value);
  gg_oam_op_return_result (op, gg_oam_session_result (data->session));
}

static void
set_tools_run (GgOamOp *op)
{
  SessionOp *data = op->data;
  JsonArray *tools = NULL;
  JsonNode *node;

  if (!start_or_cancel (op))
    return;
  gg_oam_param_array (data->params, NULL, "tools", FALSE, &tools, NULL);
  g_clear_pointer (&data->session->tools, json_array_unref);
  data->session->tools = gg_oam_tools_parse (tools, "tools", NULL, NULL);
  node = gg_oam_session_result (data->session);
  json_object_set_member (json_node_get_object (node), "warnings",
                          gg_oam_warnings_to_json (data->warnings));
  gg_oam_op_return_result (op, node);
}

static void
queue_simple (GgOamConnection  *conn,
              GgJsonRpcRequest *request,
              JsonObject       *params,
              GgOamOpFunc       run,
              const char       *required_member,
              gboolean          string_value)
{
  g_autoptr(GError) error = NULL;
  GgOamSession *session = gg_oam_session_lookup (conn, params, &error);
  SessionOp *data;

  if (session == NULL)
    goto fail;
  if (required_member != NULL)
    {
      const char *value;

      if (!json_object_has_member (params, required_member))
        {
          error = gg_oam_invalid_params ("'%s' is required", required_member);
          goto fail;
        }
      if (string_value && !gg_oam_param_string (params, NULL, required_member, FALSE, &value, &error))
        goto fail;
    }
  data = gg_oam_session_op_new (conn, session, request, params);
  if (run == set_tools_run)
    {
      JsonArray *tools;
      g_autoptr(JsonArray) parsed = NULL;

      if (!gg_oam_param_array (params, NULL, "tools", FALSE, &tools, &error) ||
          (parsed = gg_oam_tools_parse (tools, "tools", data->warnings, &error)) == NULL)
        {
          gg_oam_session_op_free (data);
          goto fail;
        }
    }
  gg_oam_session_push (session, request, run, data);
  return;

fail:
  gg_oam_return_error (request, error);
}

void
gg_oam_session_reset (GgOamConnection *conn, GgJsonRpcRequest *request, JsonObject *params)
{
  queue_simple (conn, request, params, reset_run, NULL, FALSE);
}

void
gg_oam_session_set_instructions (GgOamConnection *conn, GgJsonRpcRequest *request, JsonObject *params)
{
  queue_simple (conn, request, params, set_instructions_run, "instructions", TRUE);
}

void
gg_oam_session_set_context_note (GgOamConnection *conn, GgJsonRpcRequest *request, JsonObject *params)
{
  queue_simple (conn, request, params, set_context_note_run, "note", TRUE);
}

void
gg_oam_session_set_tools (GgOamConnection *conn, GgJsonRpcRequest *request, JsonObject *params)
{
  queue_simple (conn, request, params, set_tools_run, "tools", FALSE);
}

/* ---- session/compact --------------------------------------------------- */

static void
compact_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  GgOamOp *op = user_data;
  SessionOp *data = op->data;
  GgOamSession *session = data->session;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) outcome = gg_agent_turn_run_finish (GG_AGENT_TURN (source), result, &error);
  const char *summary;
  char *note;
  JsonNode *node;

  if (!gg_oam_op_commit (op))
    {
      g_autoptr(GError) cancelled = gg_oam_error_cancelled ();
      gg_oam_op_return_error (op, cancelled);
      return;
    }
  if (outcome == NULL)
    {
      gg_oam_op_return_error (op, error);
      return;
    }
  summary = json_object_get_string_member_with_default (outcome, "text", "");
  note = session->context_note != NULL && *session->context_note != '\0' ?
         g_strdup_printf ("%s\n\nSummary of the earlier conversation: %s", session->context_note, summary) :
         g_strdup_printf ("Summary of the earlier conversation: %s", summary);
  g_free (session->context_note);
  session->context_note = note;
  g_clear_pointer (&session->history, json_array_unref);
  session->history = json_array_ref (data->recent);

  node = gg_oam_session_result (session);
  json_object_set_string_member (json_node_get_object (node), "summary", summary);
  gg_oam_op_return_result (op, node);
}

/* Splits @history before its last @keep turns (a turn starts at a user
 * entry). Returns the index of the first kept entry. */
guint
gg_oam_split_recent (JsonArray *history,
                     gint64     keep)
{
  guint n = json_array_get_length (history);
  gint64 seen = 0;

  if (keep == 0)
    return n;
  for (guint i = n; i > 0; i--)
    {
      JsonObject *entry = json_array_get_object_element (history, i - 1);

      if (g_strcmp0 (json_object_get_string_member_with_default (entry, "role", ""), "user") == 0 &&
          ++seen == keep)
        return i - 1;
    }
  return 0;
}

static void
compact_run (GgOamOp *op)
{
  SessionOp *data = op->data;
  GgOamSession *session = data->session;
  g_autoptr(JsonArray) old = json_array_new ();
  g_autoptr(GgAgentTurn) turn = NULL;
  const char *instructions = NULL;
  gint64 keep = 2;
  GgAgentPolicy policy;
  guint split;

  if (g_cancellable_is_cancelled (op->cancellable))
    {
      g_autoptr(GError) cancelled = gg_oam_error_cancelled ();
      gg_oam_op_return_error (op, cancelled);
      return;
    }
  gg_oam_param_int (data->params, NULL, "keepRecentTurns", 0, G_MAXINT32, 2, &keep, NULL);
  gg_oam_param_string (data->params, NULL, "summaryInstructions", FALSE, &instructions, NULL);
  split = gg_oam_split_recent (session->history, keep);
  if (split == 0)
    {
      JsonNode *node;

      op->committed = TRUE;
      node = gg_oam_session_result (session);
      json_object_set_null_member (json_node_get_object (node), "summary");
      gg_oam_op_return_result (op, node);
      return;
    }
  data->recent = json_array_new ();
  for (guint i = 0; i < json_array_get_length (session->history); i++)
    json_array_add_element (i < split ? old : data->recent,
                            json_node_copy (json_array_get_element (session->history, i)));

  gg_agent_policy_init (&policy);
  policy.tool_choice = GG_TOOL_CHOICE_NONE;
  turn = gg_agent_turn_new (session->model, instructions != NULL ? instructions : DEFAULT_SUMMARY_INSTRUCTIONS,
                            old, NULL, SUMMARY_PROMPT, NULL, &policy);
  gg_agent_policy_clear (&policy);
  gg_agent_turn_run_async (turn, op->cancellable, compact_cb, op);
}

void
gg_oam_session_compact (GgOamConnection  *conn,
                        GgJsonRpcRequest *request,
                        JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  GgOamSession *session = gg_oam_session_lookup (conn, params, &error);
  const char *instructions;
  gint64 keep;

  if (session == NULL ||
      !gg_oam_param_int (params, NULL, "keepRecentTurns", 0, G_MAXINT32, 2, &keep, &error) ||
      !gg_oam_param_string (params, NULL, "summaryInstructions", FALSE, &instructions, &error))
    {
      gg_oam_return_error (request, error);
      return;
    }
  gg_oam_session_push (session, request, compact_run, gg_oam_session_op_new (conn, session, request, params));
}

