/* gb-mcp-call.c: one tools/call in flight: the handle the provider reports
 * progress and logs through, answered exactly once.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-mcp-private.h"

struct _GbMcpCall
{
  grefcount     ref_count;
  GbMcpSession *session;
  char         *tool;
  char         *key;
  JsonNode     *id;
  JsonNode     *progress_token;  /* nullable */
  gpointer      exchange;        /* the transport's, until answered */
  GCancellable *cancellable;
  double        last_progress;
  gboolean      answered;
};

/**
 * gb_mcp_call_new:
 * @session: the session the request came in on
 * @tool: the tool's name
 * @id: the request's id
 * @progress_token: (nullable): the request's `_meta.progressToken`
 * @exchange: (nullable): the transport's handle on the request
 *
 * Returns: (transfer full): a running call, registered in @session
 */
GbMcpCall *
gb_mcp_call_new (GbMcpSession *session,
                 const char   *tool,
                 JsonNode     *id,
                 JsonNode     *progress_token,
                 gpointer      exchange)
{
  GbMcpCall *call = g_new0 (GbMcpCall, 1);

  g_ref_count_init (&call->ref_count);
  call->session = gb_mcp_session_ref (session);
  call->tool = g_strdup (tool);
  call->id = json_node_copy (id);
  call->key = gb_mcp_message_id_key (id);
  call->progress_token = progress_token != NULL ? json_node_copy (progress_token) : NULL;
  call->exchange = exchange;
  call->cancellable = g_cancellable_new ();
  call->last_progress = -G_MAXDOUBLE;
  g_hash_table_insert (session->calls, call->key, gb_mcp_call_ref (call));
  return call;
}

/**
 * gb_mcp_call_ref:
 * @call: a call
 *
 * Returns: (transfer full): @call
 */
GbMcpCall *
gb_mcp_call_ref (GbMcpCall *call)
{
  g_ref_count_inc (&call->ref_count);
  return call;
}

/**
 * gb_mcp_call_unref:
 * @call: (transfer full): a call
 */
void
gb_mcp_call_unref (GbMcpCall *call)
{
  if (call == NULL || !g_ref_count_dec (&call->ref_count))
    return;
  gb_mcp_session_unref (call->session);
  g_free (call->tool);
  g_free (call->key);
  json_node_unref (call->id);
  g_clear_pointer (&call->progress_token, json_node_unref);
  g_object_unref (call->cancellable);
  g_free (call);
}

/**
 * gb_mcp_call_get_cancellable:
 * @call: a call
 *
 * Returns: (transfer none): what cancels the provider's work
 */
GCancellable *
gb_mcp_call_get_cancellable (GbMcpCall *call)
{
  return call->cancellable;
}

/**
 * gb_mcp_call_get_key:
 * @call: a call
 *
 * Returns: (transfer none): the key of its id in the session's table
 */
const char *
gb_mcp_call_get_key (GbMcpCall *call)
{
  return call->key;
}

/**
 * gb_mcp_call_get_id:
 * @call: a call
 *
 * Returns: (transfer none): the request's id
 */
JsonNode *
gb_mcp_call_get_id (GbMcpCall *call)
{
  return call->id;
}

/**
 * gb_mcp_call_is_answered:
 * @call: a call
 *
 * Returns: %TRUE once the call was answered or cancelled
 */
gboolean
gb_mcp_call_is_answered (GbMcpCall *call)
{
  return call->answered;
}

/**
 * gb_mcp_call_answer:
 * @call: a call
 * @response: (nullable) (transfer none): the response; %NULL sends none
 *
 * Ends the call: it leaves the session's table and later reports are
 * dropped. Does nothing the second time.
 */
void
gb_mcp_call_answer (GbMcpCall *call,
                    JsonNode  *response)
{
  g_autoptr(GbMcpCall) hold = gb_mcp_call_ref (call);
  gpointer exchange = call->exchange;

  if (call->answered)
    return;
  call->answered = TRUE;
  call->exchange = NULL;
  /* Out of the table first, so a transport that waits for the last call
   * (stdio at end of input) sees it gone. */
  g_hash_table_remove (call->session->calls, call->key);
  gb_mcp_session_finish (call->session, exchange, response);
}

/**
 * gb_mcp_call_report_progress:
 * @call: a running call
 * @progress: how far it got; must grow from one report to the next
 * @total: the end of the scale, <= 0 if unknown
 * @message: (nullable): what is happening
 *
 * Sends `notifications/progress` when the client asked for progress with
 * a `_meta.progressToken`. A report that does not move forward is dropped,
 * as the protocol requires progress to increase.
 */
void
gb_mcp_call_report_progress (GbMcpCall  *call,
                             double      progress,
                             double      total,
                             const char *message)
{
  g_autoptr(JsonObject) params = NULL;
  g_autoptr(JsonNode) notification = NULL;

  g_return_if_fail (call != NULL);

  if (call->answered || call->progress_token == NULL || call->session->closed ||
      !(progress > call->last_progress))
    return;
  call->last_progress = progress;
  params = json_object_new ();
  json_object_set_member (params, "progressToken", json_node_copy (call->progress_token));
  json_object_set_double_member (params, "progress", progress);
  if (total > 0)
    json_object_set_double_member (params, "total", total);
  if (message != NULL)
    json_object_set_string_member (params, "message", message);
  notification = gb_mcp_message_new_notification ("notifications/progress", params);
  gb_mcp_session_send (call->session, call->exchange, notification);
}

/**
 * gb_mcp_call_log:
 * @call: a running call
 * @level: an RFC 5424 level name ("debug", "info", "warning", "error", …)
 * @message: the text
 *
 * Sends `notifications/message` (logger: the tool's name) to the client
 * that made the call, if its logging level lets @level through.
 */
void
gb_mcp_call_log (GbMcpCall  *call,
                 const char *level,
                 const char *message)
{
  g_autoptr(JsonNode) data = NULL;

  g_return_if_fail (call != NULL);
  g_return_if_fail (gb_mcp_log_level_from_name (level) >= 0);
  g_return_if_fail (message != NULL);

  if (call->answered)
    return;
  data = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (data, message);
  gb_mcp_session_log (call->session, call->exchange, level, call->tool, data);
}
