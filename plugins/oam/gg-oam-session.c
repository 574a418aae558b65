/* gg-oam-session.c: agent sessions and the session methods (spec section
 * 5). Handlers validate and do the order-sensitive part at once (create the
 * session, take a place in its queue); turns, resets, compactions and
 * settings then run one after another per session, and different sessions
 * run concurrently.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-oam-errors.h"
#include "gg-oam-params.h"
#include "gg-oam-schema.h"
#include "gg-oam-session.h"
#include "gg-oam-targets.h"
#include "gg-oam-tools.h"
#include "gg-oam-transcript.h"

G_DEFINE_FINAL_TYPE (GgOamSession, gg_oam_session, G_TYPE_OBJECT)

static void
gg_oam_session_finalize (GObject *object)
{
  GgOamSession *self = GG_OAM_SESSION (object);

  g_clear_pointer (&self->queue, gg_oam_queue_free);
  g_clear_pointer (&self->progress, json_array_unref);
  g_free (self->id);
  g_free (self->model_name);
  g_clear_object (&self->model);
  g_free (self->instructions);
  g_free (self->context_note);
  g_clear_pointer (&self->tools, json_array_unref);
  g_clear_pointer (&self->targets, json_array_unref);
  g_clear_pointer (&self->history, json_array_unref);
  gg_oam_turn_options_clear (&self->options);
  g_free (self->created_at);
  G_OBJECT_CLASS (gg_oam_session_parent_class)->finalize (object);
}

static void
gg_oam_session_class_init (GgOamSessionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_oam_session_finalize;
}

static void
gg_oam_session_init (GgOamSession *self)
{
  self->queue = gg_oam_queue_new ();
  self->history = json_array_new ();
  self->tools = json_array_new ();
}

/**
 * gg_oam_now_iso8601:
 *
 * Returns: (transfer full): the current UTC time, ISO 8601 with milliseconds
 */
char *
gg_oam_now_iso8601 (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *base = g_date_time_format (now, "%Y-%m-%dT%H:%M:%S");

  return g_strdup_printf ("%s.%03dZ", base, g_date_time_get_microsecond (now) / 1000);
}

/**
 * gg_oam_compose_instructions:
 * @instructions: (nullable): system instructions
 * @note: (nullable): the context note, appended
 *
 * Returns: (transfer full) (nullable): what the model gets as instructions
 */
char *
gg_oam_compose_instructions (const char *instructions,
                             const char *note)
{
  if (note == NULL || *note == '\0')
    return g_strdup (instructions);
  if (instructions == NULL || *instructions == '\0')
    return g_strdup (note);
  return g_strdup_printf ("%s\n\n%s", instructions, note);
}

/**
 * gg_oam_append_entries:
 * @history: a session's entries
 * @entries: (nullable): a finished turn's new entries, appended as copies
 */
void
gg_oam_append_entries (JsonArray *history,
                       JsonArray *entries)
{
  for (guint i = 0; entries != NULL && i < json_array_get_length (entries); i++)
    json_array_add_element (history, json_node_copy (json_array_get_element (entries, i)));
}

/**
 * gg_oam_turn_event_params:
 * @key: "session", "npc", …
 * @value: its id
 * @request_id: the id of the request running the turn
 * @event: the event
 *
 * Returns: (transfer full): `{key, requestId, event}`
 */
JsonObject *
gg_oam_turn_event_params (const char *key,
                          const char *value,
                          JsonNode   *request_id,
                          JsonObject *event)
{
  JsonObject *params = json_object_new ();

  if (key != NULL)
    json_object_set_string_member (params, key, value);
  json_object_set_member (params, "requestId", json_node_copy (request_id));
  json_object_set_object_member (params, "event", json_object_ref (event));
  return params;
}

/* ---- lookup ------------------------------------------------------------ */

GgOamSession *
gg_oam_session_lookup (GgOamConnection *conn,
                       JsonObject      *params,
                       GError         **error)
{
  const char *id;
  GgOamSession *session;

  if (!gg_oam_param_string (params, NULL, "session", TRUE, &id, error))
    return NULL;
  session = g_hash_table_lookup (conn->sessions, id);
  if (session == NULL)
    g_propagate_error (error, gg_oam_error_new_member (GG_OAM_SESSION_NOT_FOUND, "session", id,
                                                       "Session '%s' not found", id));
  return session;
}

JsonNode *
gg_oam_session_result (GgOamSession *session)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "session", session->id);
  json_node_take_object (node, object);
  return node;
}

static void
remove_session (GgOamConnection *conn,
                GgOamSession    *session)
{
  gg_oam_report_lifecycle (conn, "session/deleted", session->id, NULL, NULL);
  g_ptr_array_remove (conn->session_order, session);
  g_hash_table_remove (conn->sessions, session->id);
}

/**
 * gg_oam_sessions_cancel_all:
 * @conn: a connection
 *
 * Cancels every session's work and deletes the sessions (shutdown,
 * disconnect).
 */
void
gg_oam_sessions_cancel_all (GgOamConnection *conn)
{
  g_autoptr(GPtrArray) sessions = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < conn->session_order->len; i++)
    g_ptr_array_add (sessions, g_object_ref (g_ptr_array_index (conn->session_order, i)));
  for (guint i = 0; i < sessions->len; i++)
    {
      GgOamSession *session = g_ptr_array_index (sessions, i);

      gg_oam_queue_cancel (session->queue);
      remove_session (conn, session);
    }
}

/* ---- turn data --------------------------------------------------------- */


void
gg_oam_session_op_free (SessionOp *data)
{
  g_clear_object (&data->turn);
  g_clear_object (&data->session);
  g_clear_object (&data->conn);
  g_clear_pointer (&data->params, json_object_unref);
  g_clear_pointer (&data->request_id, json_node_unref);
  g_clear_pointer (&data->warnings, g_ptr_array_unref);
  g_clear_pointer (&data->schema, json_node_unref);
  g_clear_pointer (&data->recent, json_array_unref);
  g_free (data);
}

SessionOp *
gg_oam_session_op_new (GgOamConnection  *conn,
                       GgOamSession     *session,
                       GgJsonRpcRequest *request,
                       JsonObject       *params)
{
  SessionOp *data = g_new0 (SessionOp, 1);
  JsonNode *id = gg_jsonrpc_request_get_id (request);

  data->conn = g_object_ref (conn);
  data->session = g_object_ref (session);
  data->params = json_object_ref (params);
  data->request_id = id != NULL ? json_node_copy (id) : json_node_new (JSON_NODE_NULL);
  data->warnings = g_ptr_array_new_with_free_func (g_free);
  return data;
}

void
gg_oam_session_push (GgOamSession     *session,
                     GgJsonRpcRequest *request,
                     GgOamOpFunc       run,
                     SessionOp           *data)
{
  gg_oam_queue_push (session->queue, gg_oam_op_new (request, run, data,
                                                    (GDestroyNotify) gg_oam_session_op_free));
}

/* ---- session/create ---------------------------------------------------- */

static void
create_availability_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  GgOamOp *op = user_data;
  SessionOp *data = op->data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) availability = gg_model_availability_finish (GG_MODEL (source), result, &error);
  JsonNode *node = gg_oam_session_result (data->session);

  if (availability != NULL && json_object_has_member (availability, "available") &&
      !json_object_get_boolean_member_with_default (availability, "available", TRUE))
    g_ptr_array_add (data->warnings,
                     g_strdup_printf ("the model is unavailable (%s): turns fail with -32001 until it is ready",
                                      json_object_get_string_member_with_default (availability, "reason",
                                                                                  "unknown")));
  json_object_set_member (json_node_get_object (node), "warnings",
                          gg_oam_warnings_to_json (data->warnings));
  gg_oam_op_return_result (op, node);
}

/* The first operation of every session: answers session/create once the
 * model said whether it is available, so the answer precedes any event of
 * a pipelined turn. */
static void
create_run (GgOamOp *op)
{
  SessionOp *data = op->data;

  op->committed = TRUE;
  gg_model_availability_async (data->session->model, NULL, create_availability_cb, op);
}

static const char * const create_params[] = {
  "session", "instructions", "tools", "options", "history", "model", NULL
};

static void
session_create (GgOamConnection  *conn,
                GgJsonRpcRequest *request,
                JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GgOamSession) session = NULL;
  g_autoptr(JsonArray) history_tools = NULL;
  g_autoptr(JsonArray) history_entries = NULL;
  g_autofree char *history_instructions = NULL;
  g_autofree char *generated = NULL;
  gboolean history_has_instructions = FALSE;
  const char *id, *instructions;
  JsonObject *options;
  JsonArray *tools;
  SessionOp *data;

  gg_oam_warn_unknown (params, NULL, create_params, warnings);
  if (!gg_oam_param_id (params, NULL, "session", FALSE, &id, &error) ||
      !gg_oam_param_string (params, NULL, "instructions", FALSE, &instructions, &error) ||
      !gg_oam_param_array (params, NULL, "tools", FALSE, &tools, &error) ||
      !gg_oam_param_object (params, NULL, "options", FALSE, &options, &error))
    goto fail;
  if (id != NULL && g_hash_table_contains (conn->sessions, id))
    {
      error = gg_oam_error_new_member (GG_OAM_SESSION_EXISTS, "session", id,
                                       "Session '%s' already exists", id);
      goto fail;
    }
  if ((gint64) g_hash_table_size (conn->sessions) >= conn->settings.max_sessions)
    {
      error = gg_oam_error_limit (GG_OAM_SESSION_LIMIT, conn->settings.max_sessions,
                                  "Too many sessions (the limit is %" G_GINT64_FORMAT ")",
                                  conn->settings.max_sessions);
      goto fail;
    }

  session = g_object_new (GG_TYPE_OAM_SESSION, NULL);
  gg_oam_turn_options_init (&session->options, conn->settings.tool_timeout_ms);
  if (!gg_oam_turn_options_parse (&session->options, options, "options", warnings, &error) ||
      (session->targets = gg_oam_targets_parse (options, "options", &error)) == NULL)
    goto fail;

  if (gg_oam_param (params, "history") != NULL &&
      !gg_oam_transcript_parse (gg_oam_param (params, "history"), "history",
                                &history_has_instructions, &history_instructions,
                                &history_tools, &history_entries, &error))
    goto fail;

  /* A present key (even null or []) wins over the saved one. */
  if (json_object_has_member (params, "instructions") || !history_has_instructions)
    session->instructions = g_strdup (instructions);
  else
    session->instructions = g_steal_pointer (&history_instructions);
  if (json_object_has_member (params, "tools") || history_tools == NULL)
    {
      g_clear_pointer (&session->tools, json_array_unref);
      session->tools = gg_oam_tools_parse (tools, "tools", warnings, &error);
    }
  else
    {
      g_clear_pointer (&session->tools, json_array_unref);
      session->tools = gg_oam_tools_parse (history_tools, "history.tools", warnings, &error);
    }
  if (session->tools == NULL)
    goto fail;
  /* A forced tool must be one the session has, as for every tool choice
   * (or one its targets may offer: those are known when a turn starts). */
  if (session->options.policy.tool_choice == GG_TOOL_CHOICE_TOOL &&
      !gg_oam_tools_has (session->tools, session->options.policy.forced_tool) &&
      !gg_oam_targets_may_offer (session->targets, session->options.policy.forced_tool))
    {
      error = gg_oam_invalid_params ("'options.toolChoice': the session has no tool '%s'",
                                     session->options.policy.forced_tool);
      goto fail;
    }
  if (history_entries != NULL)
    gg_oam_append_entries (session->history, history_entries);

  session->model = gg_oam_connection_create_model (conn, params, &session->model_name, &error);
  if (session->model == NULL)
    goto fail;

  if (id == NULL)
    {
      do
        {
          g_free (generated);
          generated = g_strdup_printf ("s%" G_GUINT64_FORMAT, ++conn->next_session);
        }
      while (g_hash_table_contains (conn->sessions, generated));
      id = generated;
    }
  session->id = g_strdup (id);
  session->created_at = gg_oam_now_iso8601 ();
  g_hash_table_insert (conn->sessions, g_strdup (id), g_object_ref (session));
  g_ptr_array_add (conn->session_order, session);
  gg_oam_report_lifecycle (conn, "session/created", session->id, NULL, NULL);

  if (!g_str_equal (session->model_name, "system"))
    {
      /* Only the system model can be unavailable: answer at once. */
      g_autoptr(JsonNode) node = gg_oam_session_result (session);

      json_object_set_member (json_node_get_object (node), "warnings", gg_oam_warnings_to_json (warnings));
      gg_jsonrpc_request_return_result (request, node);
      return;
    }
  data = gg_oam_session_op_new (conn, session, request, params);
  g_ptr_array_extend_and_steal (data->warnings, g_steal_pointer (&warnings));
  gg_oam_session_push (session, request, create_run, data);
  return;

fail:
  gg_oam_return_error (request, error);
}

/* ---- session/respond --------------------------------------------------- */

/* Tool calls and outputs of the running turn, for in-progress transcripts. */
static void
track_progress (GgOamSession *session,
                JsonObject   *event)
{
  const char *type = gg_oam_object_string (event, "type", "");
  guint n;

  if (session->progress == NULL)
    return;
  n = json_array_get_length (session->progress);
  if (g_str_equal (type, "toolCallStarted"))
    {
      JsonObject *last = n > 0 ? json_array_get_object_element (session->progress, n - 1) : NULL;

      if (last == NULL || !json_object_has_member (last, "toolCalls"))
        {
          last = json_object_new ();
          json_object_set_string_member (last, "role", "assistant");
          json_object_set_array_member (last, "toolCalls", json_array_new ());
          json_array_add_object_element (session->progress, last);
        }
      json_array_add_object_element (json_object_get_array_member (last, "toolCalls"),
                                     json_object_ref (json_object_get_object_member (event, "call")));
    }
  else if (g_str_equal (type, "toolCallCompleted"))
    {
      JsonObject *record = json_object_get_object_member (event, "record");
      JsonObject *call = json_object_get_object_member (record, "call");
      JsonNode *output = json_object_get_member (record, "output");
      g_autofree char *text = output != NULL && json_node_get_value_type (output) == G_TYPE_STRING ?
                              g_strdup (json_node_get_string (output)) :
                              output != NULL ? gg_json_to_string (output) : g_strdup ("");
      JsonObject *entry = json_object_new ();

      json_object_set_string_member (entry, "role", "tool");
      json_object_set_string_member (entry, "callId", gg_oam_object_string (call, "id", ""));
      json_object_set_string_member (entry, "name", gg_oam_object_string (call, "name", ""));
      if (gg_oam_object_bool (record, "isError", FALSE))
        {
          g_autofree char *error = g_strdup_printf ("Error: %s", text);
          json_object_set_string_member (entry, "output", error);
        }
      else
        json_object_set_string_member (entry, "output", text);
      json_array_add_object_element (session->progress, entry);
    }
}

static void
on_turn_event (JsonObject *event,
               gpointer    user_data)
{
  SessionOp *data = user_data;
  g_autoptr(JsonObject) params = NULL;

  track_progress (data->session, event);
  if (!data->stream)
    return;
  params = gg_oam_turn_event_params ("session", data->session->id, data->request_id, event);
  gg_oam_connection_notify (data->conn, "session/event", params);
}

static const char * const result_order[] = {
  "text", "structured", "toolCalls", "usage", "steps", NULL
};

static void
respond_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  GgOamOp *op = user_data;
  SessionOp *data = op->data;
  GgOamSession *session = data->session;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) outcome = gg_agent_turn_run_finish (GG_AGENT_TURN (source), result, &error);
  JsonObject *object;
  JsonNode *node;
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  g_clear_pointer (&session->progress, json_array_unref);
  /* Cancelled before it took effect: no trace, whatever the turn did. */
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
  gg_oam_append_entries (session->history, gg_agent_turn_get_new_entries (GG_AGENT_TURN (source)));

  object = json_object_new ();
  json_object_set_string_member (object, "session", session->id);
  /* The spec's member order, then anything else the turn reported. */
  for (guint i = 0; result_order[i] != NULL; i++)
    if (json_object_has_member (outcome, result_order[i]))
      json_object_set_member (object, result_order[i],
                              json_node_copy (json_object_get_member (outcome, result_order[i])));
  json_object_iter_init_ordered (&iter, outcome);
  while (json_object_iter_next_ordered (&iter, &name, &value))
    if (!json_object_has_member (object, name))
      json_object_set_member (object, name, json_node_copy (value));
  if (data->warnings->len > 0)
    json_object_set_member (object, "warnings", gg_oam_warnings_to_json (data->warnings));
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, object);
  gg_oam_op_return_result (op, node);
}

/* Runs the turn with @tools: the session's own and its targets' now. */
static void
respond_start (GgOamOp   *op,
               JsonArray *tools)
{
  SessionOp *data = op->data;
  GgOamSession *session = data->session;
  g_autoptr(GError) error = NULL;
  g_autofree char *instructions = NULL;
  GgAgentPolicy policy;
  const char *prompt = NULL;
  g_autoptr(JsonObject) context = json_object_new ();

  if (g_cancellable_is_cancelled (op->cancellable))
    {
      g_autoptr(GError) cancelled = gg_oam_error_cancelled ();
      gg_oam_op_return_error (op, cancelled);
      return;
    }
  gg_agent_policy_copy (&policy, &session->options.policy);
  /* Checked now, so an earlier pipelined session/setTools counts. */
  if (!gg_oam_policy_parse_overrides (&policy, data->params, NULL, &error))
    goto fail;
  if (policy.tool_choice == GG_TOOL_CHOICE_TOOL && !gg_oam_tools_has (tools, policy.forced_tool))
    {
      error = gg_oam_invalid_params ("'%s': the session has no tool '%s'",
                                     gg_oam_param (data->params, "toolChoice") != NULL ?
                                     "toolChoice" : "options.toolChoice", policy.forced_tool);
      goto fail;
    }
  gg_oam_param_string (data->params, NULL, "prompt", TRUE, &prompt, NULL);

  instructions = gg_oam_compose_instructions (session->instructions, session->context_note);
  data->turn = gg_agent_turn_new (session->model, instructions, session->history, tools,
                                  prompt, data->schema, &policy);
  gg_agent_policy_clear (&policy);
  gg_oam_turn_apply_options (data->turn, &session->options);
  gg_agent_turn_set_streaming (data->turn, data->stream);
  gg_agent_turn_set_event_func (data->turn, on_turn_event, data, NULL);
  json_object_set_string_member (context, "session", session->id);
  gg_oam_turn_use_client_tools (data->turn, data->conn->bus, data->conn->peer, context, data->request_id);
  /* Reading the transcript during the turn shows its progress. */
  g_clear_pointer (&session->progress, json_array_unref);
  session->progress = json_array_new ();
  {
    JsonObject *entry = json_object_new ();

    json_object_set_string_member (entry, "role", "user");
    json_object_set_string_member (entry, "text", prompt);
    json_array_add_object_element (session->progress, entry);
  }
  gg_agent_turn_run_async (data->turn, op->cancellable, respond_cb, op);
  return;

fail:
  gg_agent_policy_clear (&policy);
  gg_oam_op_return_error (op, error);
}

static void
on_targets_resolved (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  GgOamOp *op = user_data;
  SessionOp *data = op->data;
  g_autoptr(JsonArray) offered = gg_oam_targets_resolve_finish (result, data->warnings, NULL);
  g_autoptr(JsonArray) tools = gg_oam_tools_with (data->session->tools, offered, data->warnings);

  respond_start (op, tools);
}

static void
respond_run (GgOamOp *op)
{
  SessionOp *data = op->data;

  if (json_array_get_length (data->session->targets) > 0 && !g_cancellable_is_cancelled (op->cancellable))
    gg_oam_targets_resolve_async (data->session->targets, data->conn->bus, op->cancellable,
                                  on_targets_resolved, op);
  else
    respond_start (op, data->session->tools);
}

static const char * const respond_params[] = {
  "session", "prompt", "schema", "stream", "toolChoice", "maxToolRounds", "maxToolCalls",
  "enabledTools", NULL
};

static void
session_respond (GgOamConnection  *conn,
                 GgJsonRpcRequest *request,
                 JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  GgOamSession *session;
  GgAgentPolicy probe;
  const char *prompt;
  gboolean stream;
  SessionOp *data;

  gg_agent_policy_init (&probe);
  session = gg_oam_session_lookup (conn, params, &error);
  if (session == NULL ||
      !gg_oam_param_string (params, NULL, "prompt", TRUE, &prompt, &error) ||
      !gg_oam_param_bool (params, NULL, "stream", FALSE, &stream, &error) ||
      /* Validate the overrides now; they are applied when the turn starts. */
      !gg_oam_policy_parse_overrides (&probe, params, NULL, &error))
    goto fail;
  if (gg_oam_param (params, "schema") != NULL && !JSON_NODE_HOLDS_OBJECT (gg_oam_param (params, "schema")))
    {
      error = gg_oam_invalid_params ("'schema' must be an object");
      goto fail;
    }

  data = gg_oam_session_op_new (conn, session, request, params);
  gg_oam_warn_unknown (params, NULL, respond_params, data->warnings);
  data->stream = stream;
  if (gg_oam_param (params, "schema") != NULL)
    {
      data->schema = gg_oam_schema_convert (gg_oam_param (params, "schema"), "Response", NULL,
                                            data->warnings, &error);
      if (data->schema == NULL)
        {
          gg_oam_session_op_free (data);
          goto fail;
        }
    }
  gg_agent_policy_clear (&probe);
  gg_oam_session_push (session, request, respond_run, data);
  return;

fail:
  gg_agent_policy_clear (&probe);
  gg_oam_return_error (request, error);
}

/* ---- immediate --------------------------------------------------------- */

static void
session_cancel (GgOamConnection  *conn,
                GgJsonRpcRequest *request,
                JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgOamSession) session = NULL;
  GgOamSession *found = gg_oam_session_lookup (conn, params, &error);
  JsonNode *node;
  guint count;

  if (found == NULL)
    {
      gg_oam_return_error (request, error);
      return;
    }
  session = g_object_ref (found);
  count = gg_oam_queue_cancel (session->queue);
  node = gg_oam_session_result (session);
  json_object_set_int_member (json_node_get_object (node), "cancelled", count);
  gg_jsonrpc_request_return_result (request, node);
  json_node_unref (node);
}

static void
session_delete (GgOamConnection  *conn,
                GgJsonRpcRequest *request,
                JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgOamSession) session = NULL;
  GgOamSession *found = gg_oam_session_lookup (conn, params, &error);
  JsonNode *node;

  if (found == NULL)
    {
      gg_oam_return_error (request, error);
      return;
    }
  session = g_object_ref (found);
  gg_oam_queue_cancel (session->queue);
  remove_session (conn, session);
  node = gg_oam_session_result (session);
  json_object_set_boolean_member (json_node_get_object (node), "deleted", TRUE);
  gg_jsonrpc_request_return_result (request, node);
  json_node_unref (node);
}

static void
session_list (GgOamConnection  *conn,
              GgJsonRpcRequest *request,
              JsonObject       *params)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  JsonObject *object = json_object_new ();
  JsonArray *sessions = json_array_new ();

  for (guint i = 0; i < conn->session_order->len; i++)
    {
      GgOamSession *session = g_ptr_array_index (conn->session_order, i);
      JsonObject *item = json_object_new ();
      JsonArray *entries = session->history;
      guint count = json_array_get_length (entries);

      if (session->progress != NULL)
        count += json_array_get_length (session->progress);
      json_object_set_string_member (item, "session", session->id);
      json_object_set_string_member (item, "model", session->model_name);
      if (session->instructions != NULL)
        json_object_set_string_member (item, "instructions", session->instructions);
      json_object_set_member (item, "tools", gg_oam_tools_to_json (session->tools));
      json_object_set_boolean_member (item, "busy", gg_oam_queue_is_busy (session->queue));
      json_object_set_int_member (item, "pendingOperations", gg_oam_queue_get_pending (session->queue));
      json_object_set_int_member (item, "entries", count);
      json_object_set_string_member (item, "createdAt", session->created_at);
      json_array_add_object_element (sessions, item);
    }
  json_object_set_array_member (object, "sessions", sessions);
  json_node_take_object (node, object);
  gg_jsonrpc_request_return_result (request, node);
}

static void
session_transcript (GgOamConnection  *conn,
                    GgJsonRpcRequest *request,
                    JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) entries = NULL;
  g_autoptr(JsonNode) node = NULL;
  GgOamSession *session = gg_oam_session_lookup (conn, params, &error);

  if (session == NULL)
    {
      gg_oam_return_error (request, error);
      return;
    }
  /* During a turn: the in-progress state. */
  entries = json_array_new ();
  gg_oam_append_entries (entries, session->history);
  gg_oam_append_entries (entries, session->progress);
  node = gg_oam_session_result (session);
  json_object_set_member (json_node_get_object (node), "transcript",
                          gg_oam_transcript_build (session->instructions, session->tools, entries));
  gg_jsonrpc_request_return_result (request, node);
}

/**
 * gg_oam_session_methods_register:
 * @conn: a connection
 *
 * Adds the session methods.
 */
void
gg_oam_session_methods_register (GgOamConnection *conn)
{
  gg_oam_connection_add_method (conn, "session/create", session_create);
  gg_oam_connection_add_method (conn, "session/respond", session_respond);
  gg_oam_connection_add_method (conn, "session/cancel", session_cancel);
  gg_oam_connection_add_method (conn, "session/reset", gg_oam_session_reset);
  gg_oam_connection_add_method (conn, "session/delete", session_delete);
  gg_oam_connection_add_method (conn, "session/list", session_list);
  gg_oam_connection_add_method (conn, "session/transcript", session_transcript);
  gg_oam_connection_add_method (conn, "session/setInstructions", gg_oam_session_set_instructions);
  gg_oam_connection_add_method (conn, "session/setContextNote", gg_oam_session_set_context_note);
  gg_oam_connection_add_method (conn, "session/setTools", gg_oam_session_set_tools);
  gg_oam_connection_add_method (conn, "session/compact", gg_oam_session_compact);
}
