/* gb-mcp-tools.c: the MCP server's tools methods, tools/list (paginated
 * with an opaque cursor) and tools/call (handed to the tools provider, its
 * answer or failure made a CallToolResult); gb-mcp-server.c dispatches to
 * them as to the resources methods of gb-mcp-resources.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-mcp-private.h"

/* The cursor is opaque to clients: base64 of "gb-mcp:<offset>". */
static char *
cursor_encode (guint offset)
{
  g_autofree char *text = g_strdup_printf ("gb-mcp:%u", offset);
  return g_base64_encode ((const guchar *) text, strlen (text));
}

static gboolean
cursor_decode (const char *cursor,
               guint      *offset)
{
  g_autofree guchar *raw = NULL;
  g_autofree char *text = NULL;
  gsize length = 0;
  guint64 value;

  if (strlen (cursor) == 0 || strlen (cursor) > 64 ||
      strspn (cursor, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") !=
      strlen (cursor))
    return FALSE;
  raw = g_base64_decode (cursor, &length);
  text = g_strndup ((const char *) raw, length);
  if (strlen (text) != length || !g_str_has_prefix (text, "gb-mcp:") ||
      !g_ascii_string_to_unsigned (text + strlen ("gb-mcp:"), 10, 0, G_MAXUINT, &value, NULL))
    return FALSE;
  *offset = (guint) value;
  return TRUE;
}

void
gb_mcp_tools_list (GbMcpServer  *server,
                   GbMcpSession *session,
                   GbMcpMessage *message,
                   gpointer      exchange)
{
  g_autoptr(JsonArray) all = NULL;
  g_autoptr(JsonObject) result = json_object_new ();
  JsonArray *page;
  JsonNode *cursor = message->params != NULL ?
                     json_object_get_member (message->params, "cursor") : NULL;
  guint offset = 0, length, end;
  const GbMcpToolsProvider *provider;
  gpointer provider_data;

  if (cursor != NULL && !JSON_NODE_HOLDS_NULL (cursor))
    {
      if (json_node_get_value_type (cursor) != G_TYPE_STRING ||
          !cursor_decode (json_node_get_string (cursor), &offset))
        {
          gb_mcp_session_reply_error (session, exchange, message->id, GG_JSONRPC_INVALID_PARAMS,
                       "Invalid params: unknown cursor");
          return;
        }
    }

  provider = gb_mcp_server_get_tools (server, &provider_data);
  all = provider->list_tools (provider_data);
  length = all != NULL ? json_array_get_length (all) : 0;
  if (offset > length)
    {
      /* A cursor from before the list shrank reads as a bad one: the
       * client starts over, as after tools/list_changed. */
      gb_mcp_session_reply_error (session, exchange, message->id, GG_JSONRPC_INVALID_PARAMS,
                   "Invalid params: unknown cursor");
      return;
    }
  end = MIN (length, offset + GB_MCP_TOOLS_PAGE_SIZE);
  page = json_array_sized_new (end - offset);
  for (guint i = offset; i < end; i++)
    json_array_add_element (page, json_node_copy (json_array_get_element (all, i)));
  json_object_set_array_member (result, "tools", page);
  if (end < length)
    {
      g_autofree char *next = cursor_encode (end);
      json_object_set_string_member (result, "nextCursor", next);
    }
  gb_mcp_session_reply (session, exchange, message->id, result);
}

static JsonObject *
error_result (const char *text)
{
  JsonObject *result = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonObject *item = json_object_new ();

  json_object_set_string_member (item, "type", "text");
  json_object_set_string_member (item, "text", text);
  json_array_add_object_element (content, item);
  json_object_set_array_member (result, "content", content);
  json_object_set_boolean_member (result, "isError", TRUE);
  return result;
}

typedef struct {
  GbMcpServer *server;
  GbMcpCall   *call;
} CallData;

static void
call_done_cb (GObject      *source,
              GAsyncResult *res,
              gpointer      user_data)
{
  CallData *data = user_data;
  g_autoptr(GbMcpServer) server = data->server;
  g_autoptr(GbMcpCall) call = data->call;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonNode) response = NULL;
  gpointer provider_data;
  const GbMcpToolsProvider *provider = gb_mcp_server_get_tools (server, &provider_data);

  g_free (data);
  result = provider->call_tool_finish (provider_data, res, &error);
  /* Cancelled by the client, or answered when the server closed. */
  if (gb_mcp_call_is_answered (call))
    return;

  if (result != NULL)
    {
      if (!json_object_has_member (result, "content"))
        json_object_set_array_member (result, "content", json_array_new ());
      response = gb_mcp_message_new_result (gb_mcp_call_get_id (call), result);
    }
  else if (error != NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      g_autofree char *text = g_strconcat ("Invalid params: ", error->message, NULL);
      response = gb_mcp_message_new_error (gb_mcp_call_get_id (call),
                                           GG_JSONRPC_INVALID_PARAMS, text);
    }
  else
    {
      g_autoptr(JsonObject) failed =
        error_result (error != NULL ? error->message : "The tool returned no result");
      response = gb_mcp_message_new_result (gb_mcp_call_get_id (call), failed);
    }
  gb_mcp_call_answer (call, response);
}

void
gb_mcp_tools_call (GbMcpServer  *server,
                   GbMcpSession *session,
                   GbMcpMessage *message,
                   gpointer      exchange)
{
  g_autoptr(JsonObject) no_arguments = NULL;
  g_autofree char *key = gb_mcp_message_id_key (message->id);
  const char *name = gb_mcp_string_member (message->params, "name");
  JsonNode *arguments = message->params != NULL ?
                        json_object_get_member (message->params, "arguments") : NULL;
  JsonNode *meta = message->params != NULL ?
                   json_object_get_member (message->params, "_meta") : NULL;
  JsonNode *token = NULL;
  CallData *data;
  gpointer provider_data;
  const GbMcpToolsProvider *provider = gb_mcp_server_get_tools (server, &provider_data);

  if (name == NULL)
    {
      gb_mcp_session_reply_error (session, exchange, message->id, GG_JSONRPC_INVALID_PARAMS,
                   "Invalid params: \"name\" must be a string");
      return;
    }
  if (arguments != NULL && JSON_NODE_HOLDS_NULL (arguments))
    arguments = NULL;
  if (arguments != NULL && !JSON_NODE_HOLDS_OBJECT (arguments))
    {
      gb_mcp_session_reply_error (session, exchange, message->id, GG_JSONRPC_INVALID_PARAMS,
                   "Invalid params: \"arguments\" must be an object");
      return;
    }
  if (g_hash_table_contains (session->calls, key))
    {
      gb_mcp_session_reply_error (session, exchange, message->id, GG_JSONRPC_INVALID_REQUEST,
                   "Invalid Request: a request with this id is still running");
      return;
    }
  if (meta != NULL && JSON_NODE_HOLDS_OBJECT (meta))
    {
      token = json_object_get_member (json_node_get_object (meta), "progressToken");
      if (token != NULL && json_node_get_value_type (token) != G_TYPE_STRING &&
          json_node_get_value_type (token) != G_TYPE_INT64)
        token = NULL;
    }
  if (arguments == NULL)
    no_arguments = json_object_new ();

  data = g_new0 (CallData, 1);
  data->server = g_object_ref (server);
  data->call = gb_mcp_call_new (session, name, message->id, token, exchange);
  provider->call_tool_async (provider_data, name,
                             arguments != NULL ? json_node_get_object (arguments) : no_arguments,
                             data->call, gb_mcp_call_get_cancellable (data->call),
                             call_done_cb, data);
}
