/* gb-mcp-message.c: incoming JSON-RPC 2.0 messages checked once for both
 * transports, and the messages the server writes.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-mcp-private.h"

static const char * const supported_versions[] = {
  "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
};

/**
 * gb_mcp_protocol_version_supported:
 * @version: (nullable): an MCP revision
 *
 * Returns: %TRUE if this server speaks @version
 */
gboolean
gb_mcp_protocol_version_supported (const char *version)
{
  if (version == NULL)
    return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (supported_versions); i++)
    if (strcmp (version, supported_versions[i]) == 0)
      return TRUE;
  return FALSE;
}

static const char * const log_levels[] = {
  "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency",
};

/**
 * gb_mcp_log_level_from_name:
 * @name: (nullable): an RFC 5424 level name as MCP spells it
 *
 * Returns: its rank (0 = debug … 7 = emergency), -1 if unknown
 */
int
gb_mcp_log_level_from_name (const char *name)
{
  if (name == NULL)
    return -1;
  for (gsize i = 0; i < G_N_ELEMENTS (log_levels); i++)
    if (strcmp (name, log_levels[i]) == 0)
      return (int) i;
  return -1;
}

static JsonNode *
usable_id (JsonNode *node)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return NULL;
  if (json_node_get_value_type (node) == G_TYPE_STRING ||
      json_node_get_value_type (node) == G_TYPE_INT64)
    return node;
  return NULL;
}

/**
 * gb_mcp_message_parse:
 * @data: the raw message (need not be NUL-terminated)
 * @length: its length
 * @error_response: (out) (transfer full): the error to send back when the
 *   message is unusable
 *
 * Returns: (transfer full) (nullable): the message, or %NULL
 */
GbMcpMessage *
gb_mcp_message_parse (const char  *data,
                      gsize        length,
                      JsonNode   **error_response)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GbMcpMessage) message = NULL;
  JsonObject *obj;
  JsonNode *raw_id, *id, *version, *method, *params;

  *error_response = NULL;
  if (length > GB_MCP_MAX_MESSAGE_SIZE)
    {
      *error_response = gb_mcp_message_new_error (NULL, GG_JSONRPC_INVALID_REQUEST,
                                                  "Invalid Request: message exceeds the maximum size");
      return NULL;
    }
  root = gg_json_parse (data, (gssize) length, GG_JSON_DEFAULT_MAX_DEPTH, &error);
  if (root == NULL)
    {
      g_autofree char *text = g_strconcat ("Parse error: ", error->message, NULL);
      *error_response = gb_mcp_message_new_error (NULL, GG_JSONRPC_PARSE_ERROR, text);
      return NULL;
    }
  if (JSON_NODE_HOLDS_ARRAY (root))
    {
      *error_response = gb_mcp_message_new_error (NULL, GG_JSONRPC_INVALID_REQUEST,
                                                  "Invalid Request: batches are not supported");
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      *error_response = gb_mcp_message_new_error (NULL, GG_JSONRPC_INVALID_REQUEST,
                                                  "Invalid Request: not a JSON object");
      return NULL;
    }

  obj = json_node_get_object (root);
  raw_id = json_object_get_member (obj, "id");
  method = json_object_get_member (obj, "method");
  id = usable_id (raw_id);

  message = g_new0 (GbMcpMessage, 1);
  message->root = json_node_ref (root);

  /* A response: never answered, so two peers cannot loop on errors. */
  if (method == NULL && (json_object_has_member (obj, "result") ||
                         json_object_has_member (obj, "error")))
    {
      message->kind = GB_MCP_MESSAGE_RESPONSE;
      message->id = id;
      return g_steal_pointer (&message);
    }
  if (raw_id != NULL && id == NULL)
    {
      *error_response = gb_mcp_message_new_error (NULL, GG_JSONRPC_INVALID_REQUEST,
                                                  "Invalid Request: the id must be a string or an integer");
      return NULL;
    }
  version = json_object_get_member (obj, "jsonrpc");
  if (version == NULL || json_node_get_value_type (version) != G_TYPE_STRING ||
      g_strcmp0 (json_node_get_string (version), "2.0") != 0)
    {
      *error_response = gb_mcp_message_new_error (id, GG_JSONRPC_INVALID_REQUEST,
                                                  "Invalid Request: \"jsonrpc\" must be \"2.0\"");
      return NULL;
    }
  if (method == NULL || json_node_get_value_type (method) != G_TYPE_STRING)
    {
      *error_response = gb_mcp_message_new_error (id, GG_JSONRPC_INVALID_REQUEST,
                                                  "Invalid Request: \"method\" must be a string");
      return NULL;
    }
  params = json_object_get_member (obj, "params");
  if (params != NULL && JSON_NODE_HOLDS_NULL (params))
    params = NULL;
  if (params != NULL && !JSON_NODE_HOLDS_OBJECT (params))
    {
      *error_response = gb_mcp_message_new_error (id, GG_JSONRPC_INVALID_PARAMS,
                                                  "Invalid params: \"params\" must be an object");
      return NULL;
    }

  message->kind = id != NULL ? GB_MCP_MESSAGE_REQUEST : GB_MCP_MESSAGE_NOTIFICATION;
  message->method = json_node_get_string (method); /* borrowed: from message->root */
  message->params = params != NULL ? json_node_get_object (params) : NULL;
  message->id = id;
  return g_steal_pointer (&message);
}

/**
 * gb_mcp_message_free:
 * @message: (transfer full): a message
 */
void
gb_mcp_message_free (GbMcpMessage *message)
{
  if (message == NULL)
    return;
  g_clear_pointer (&message->root, json_node_unref);
  g_free (message);
}

static JsonObject *
envelope (JsonNode *id)
{
  JsonObject *obj = json_object_new ();

  json_object_set_string_member (obj, "jsonrpc", "2.0");
  if (id != NULL)
    json_object_set_member (obj, "id", json_node_copy (id));
  else
    json_object_set_null_member (obj, "id");
  return obj;
}

static JsonNode *
wrap (JsonObject *obj)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, obj);
  return node;
}

/**
 * gb_mcp_message_new_result:
 * @id: the request's id
 * @result: (transfer none): the result object
 *
 * Returns: (transfer full): a JSON-RPC response
 */
JsonNode *
gb_mcp_message_new_result (JsonNode   *id,
                           JsonObject *result)
{
  JsonObject *obj = envelope (id);

  json_object_set_object_member (obj, "result",
                                 result != NULL ? json_object_ref (result) : json_object_new ());
  return wrap (obj);
}

/**
 * gb_mcp_message_new_error:
 * @id: (nullable): the request's id, %NULL when it could not be read
 * @code: the JSON-RPC error code
 * @message: the error message
 *
 * Returns: (transfer full): a JSON-RPC error response
 */
JsonNode *
gb_mcp_message_new_error (JsonNode   *id,
                          int         code,
                          const char *message)
{
  JsonObject *obj = envelope (id);
  JsonObject *error = json_object_new ();

  json_object_set_int_member (error, "code", code);
  json_object_set_string_member (error, "message", message);
  json_object_set_object_member (obj, "error", error);
  return wrap (obj);
}

/**
 * gb_mcp_message_new_notification:
 * @method: the notification's method
 * @params: (nullable) (transfer none): its params
 *
 * Returns: (transfer full): a JSON-RPC notification
 */
JsonNode *
gb_mcp_message_new_notification (const char *method,
                                 JsonObject *params)
{
  JsonObject *obj = json_object_new ();

  json_object_set_string_member (obj, "jsonrpc", "2.0");
  json_object_set_string_member (obj, "method", method);
  if (params != NULL)
    json_object_set_object_member (obj, "params", json_object_ref (params));
  return wrap (obj);
}

/**
 * gb_mcp_message_id_key:
 * @id: a usable id (string or integer)
 *
 * Returns: (transfer full): the id's key in a table of calls
 */
char *
gb_mcp_message_id_key (JsonNode *id)
{
  if (json_node_get_value_type (id) == G_TYPE_STRING)
    return g_strconcat ("s:", json_node_get_string (id), NULL);
  return g_strdup_printf ("i:%" G_GINT64_FORMAT, json_node_get_int (id));
}

/**
 * gb_mcp_string_member:
 * @object: (nullable): an object, such as a message's params
 * @name: a member name
 *
 * Returns: (nullable) (transfer none): the member's string, or %NULL when
 *   @object is %NULL or the member is absent or not a string
 */
const char *
gb_mcp_string_member (JsonObject *object,
                      const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  if (node == NULL || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}
