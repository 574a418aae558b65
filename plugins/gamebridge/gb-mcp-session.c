/* gb-mcp-session.c: one MCP client, whatever carries it: what it negotiated,
 * its logging level and its running calls.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-mcp-private.h"

/**
 * gb_mcp_session_new:
 * @server: the server the session belongs to (not referenced)
 * @transport: how to reach the client
 * @transport_data: (transfer full): the transport's state for this client
 * @transport_destroy: frees @transport_data with the session
 *
 * Returns: (transfer full): a session, not yet initialized
 */
GbMcpSession *
gb_mcp_session_new (GbMcpServer          *server,
                    const GbMcpTransport *transport,
                    gpointer              transport_data,
                    GDestroyNotify        transport_destroy)
{
  GbMcpSession *session = g_new0 (GbMcpSession, 1);

  g_ref_count_init (&session->ref_count);
  session->server = server;
  session->transport = transport;
  session->transport_data = transport_data;
  session->transport_destroy = transport_destroy;
  /* Until the client says otherwise: what an operator wants to see. */
  session->log_level = gb_mcp_log_level_from_name ("info");
  session->last_activity = g_get_monotonic_time ();
  session->calls = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                          (GDestroyNotify) gb_mcp_call_unref);
  return session;
}

/**
 * gb_mcp_session_ref:
 * @session: a session
 *
 * Returns: (transfer full): @session
 */
GbMcpSession *
gb_mcp_session_ref (GbMcpSession *session)
{
  g_ref_count_inc (&session->ref_count);
  return session;
}

/**
 * gb_mcp_session_unref:
 * @session: (transfer full): a session
 */
void
gb_mcp_session_unref (GbMcpSession *session)
{
  if (session == NULL || !g_ref_count_dec (&session->ref_count))
    return;
  g_hash_table_unref (session->calls);
  g_clear_pointer (&session->subscriptions, g_hash_table_unref);
  if (session->transport_destroy != NULL)
    session->transport_destroy (session->transport_data);
  g_free (session->id);
  g_free (session->protocol_version);
  g_free (session->client_name);
  g_free (session);
}

/**
 * gb_mcp_session_send:
 * @session: a session
 * @exchange: (nullable): the request the message is about
 * @message: (transfer none): a notification
 */
void
gb_mcp_session_send (GbMcpSession *session,
                     gpointer      exchange,
                     JsonNode     *message)
{
  if (session->closed)
    return;
  session->transport->send (session, exchange, message);
}

/**
 * gb_mcp_session_finish:
 * @session: a session
 * @exchange: (nullable): the request being answered
 * @response: (nullable) (transfer none): its response; %NULL for none
 */
void
gb_mcp_session_finish (GbMcpSession *session,
                       gpointer      exchange,
                       JsonNode     *response)
{
  session->last_activity = g_get_monotonic_time ();
  session->transport->finish (session, exchange, response);
}

/**
 * gb_mcp_session_reply:
 * @session: a session
 * @exchange: (nullable): the request being answered
 * @id: (transfer none): its id
 * @result: (nullable) (transfer none): the result; %NULL for `{}`
 */
void
gb_mcp_session_reply (GbMcpSession *session,
                      gpointer      exchange,
                      JsonNode     *id,
                      JsonObject   *result)
{
  g_autoptr(JsonNode) response = gb_mcp_message_new_result (id, result);

  gb_mcp_session_finish (session, exchange, response);
}

/**
 * gb_mcp_session_reply_error:
 * @session: a session
 * @exchange: (nullable): the request being answered
 * @id: (nullable) (transfer none): its id
 * @code: a JSON-RPC error code
 * @message: the error's message
 */
void
gb_mcp_session_reply_error (GbMcpSession *session,
                            gpointer      exchange,
                            JsonNode     *id,
                            int           code,
                            const char   *message)
{
  g_autoptr(JsonNode) response = gb_mcp_message_new_error (id, code, message);

  gb_mcp_session_finish (session, exchange, response);
}

/**
 * gb_mcp_session_log:
 * @session: a session
 * @exchange: (nullable): the request the message is about
 * @level: an RFC 5424 level name
 * @logger: (nullable): who logs
 * @data: (transfer none): what to log
 *
 * Sends `notifications/message` if the client's logging level lets @level
 * through. Nothing goes out before the session is initialized.
 */
void
gb_mcp_session_log (GbMcpSession *session,
                    gpointer      exchange,
                    const char   *level,
                    const char   *logger,
                    JsonNode     *data)
{
  g_autoptr(JsonObject) params = NULL;
  g_autoptr(JsonNode) message = NULL;
  int rank = gb_mcp_log_level_from_name (level);

  g_return_if_fail (rank >= 0);

  if (session->closed || !session->initialized || rank < session->log_level)
    return;
  params = json_object_new ();
  json_object_set_string_member (params, "level", level);
  if (logger != NULL)
    json_object_set_string_member (params, "logger", logger);
  json_object_set_member (params, "data", data != NULL ? json_node_copy (data)
                                                       : json_node_new (JSON_NODE_NULL));
  message = gb_mcp_message_new_notification ("notifications/message", params);
  gb_mcp_session_send (session, exchange, message);
}

/**
 * gb_mcp_session_close:
 * @session: a session
 * @why: what running calls are told
 *
 * Answers every running call with an error, cancels its work, closes the
 * transport and removes the session from its server. Idempotent.
 */
void
gb_mcp_session_close (GbMcpSession *session,
                      const char   *why)
{
  g_autoptr(GbMcpSession) hold = gb_mcp_session_ref (session);
  g_autoptr(GPtrArray) calls = NULL;

  if (session->closed)
    return;
  {

  GHashTableIter iter;
  gpointer value;

  /* Answering a call removes it from the table: walk a copy. */
  calls = g_ptr_array_new_with_free_func ((GDestroyNotify) gb_mcp_call_unref);
  g_hash_table_iter_init (&iter, session->calls);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (calls, gb_mcp_call_ref (value));
  for (guint i = 0; i < calls->len; i++)
    {
      GbMcpCall *call = calls->pdata[i];
      g_autoptr(JsonNode) response =
        gb_mcp_message_new_error (gb_mcp_call_get_id (call), GG_JSONRPC_INTERNAL_ERROR, why);

      gb_mcp_call_answer (call, response);
      g_cancellable_cancel (gb_mcp_call_get_cancellable (call));
    }
  }

  session->closed = TRUE;
  session->transport->close (session);
  if (session->server != NULL)
    gb_mcp_server_remove_session (session->server, session);
}
