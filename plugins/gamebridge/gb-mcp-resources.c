/* gb-mcp-resources.c: the MCP `resources` capability, for every session
 * whatever its transport: resources/list and resources/templates/list from
 * the provider, resources/read as a request in flight (cancelled and
 * answered on close like a tools/call), and each session's subscriptions.
 *
 * The provider watches a URI while any session is subscribed to it; its
 * updates go out as `notifications/resources/updated` to the subscribed
 * sessions only, through the transport's path for messages tied to no
 * request (on HTTP, the session's GET stream).
 *
 * A URI that cannot exist is -32002 (resource not found, with the URI in
 * the error's data), as the MCP specification says.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-mcp-private.h"

#define GB_MCP_ERROR_RESOURCE_NOT_FOUND (-32002)
/* The longest URI accepted. */
#define MAX_URI_LENGTH 2048
/* Subscriptions one session may hold. */
#define MAX_SUBSCRIPTIONS 256

/* -32002 with {"uri"} as its data. */
static JsonNode *
not_found (JsonNode   *id,
           const char *uri,
           const char *why)
{
  JsonNode *response = gb_mcp_message_new_error (id, GB_MCP_ERROR_RESOURCE_NOT_FOUND, why);
  JsonObject *error = json_object_get_object_member (json_node_get_object (response), "error");
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "uri", uri);
  json_object_set_object_member (error, "data", data);
  return response;
}

static const GbMcpResourcesProvider *
provider_of (GbMcpServer  *server,
             GbMcpSession *session,
             GbMcpMessage *message,
             gpointer      exchange,
             gpointer     *data)
{
  const GbMcpResourcesProvider *provider = gb_mcp_server_get_resources (server, data);

  if (provider == NULL)
    {
      g_autofree char *text = g_strdup_printf ("Method not found: %s", message->method);

      gb_mcp_session_reply_error (session, exchange, message->id, GG_JSONRPC_METHOD_NOT_FOUND, text);
    }
  return provider;
}

/* `uri`, a string of 1..MAX_URI_LENGTH bytes, or an error answered. */
static const char *
uri_param (GbMcpSession *session,
           GbMcpMessage *message,
           gpointer      exchange)
{
  JsonNode *node = message->params != NULL ? json_object_get_member (message->params, "uri") : NULL;
  const char *uri;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING ||
      *(uri = json_node_get_string (node)) == '\0' || strlen (uri) > MAX_URI_LENGTH)
    {
      g_autofree char *text = g_strdup_printf ("Invalid params: \"uri\" must be a string of 1..%d bytes",
                                               MAX_URI_LENGTH);

      gb_mcp_session_reply_error (session, exchange, message->id, GG_JSONRPC_INVALID_PARAMS, text);
      return NULL;
    }
  return uri;
}

/* One page: the lists are bounded by what the bridge knows, so a cursor
 * never comes from this server; one that does is refused. */
static gboolean
no_cursor (GbMcpSession *session,
           GbMcpMessage *message,
           gpointer      exchange)
{
  JsonNode *cursor = message->params != NULL ? json_object_get_member (message->params, "cursor") : NULL;

  if (cursor == NULL || JSON_NODE_HOLDS_NULL (cursor))
    return TRUE;
  gb_mcp_session_reply_error (session, exchange, message->id, GG_JSONRPC_INVALID_PARAMS, "Invalid params: unknown cursor");
  return FALSE;
}

void
gb_mcp_resources_list (GbMcpServer  *server,
                       GbMcpSession *session,
                       GbMcpMessage *message,
                       gpointer      exchange)
{
  gpointer data;
  const GbMcpResourcesProvider *provider = provider_of (server, session, message, exchange, &data);
  g_autoptr(JsonObject) result = NULL;

  if (provider == NULL || !no_cursor (session, message, exchange))
    return;
  result = json_object_new ();
  json_object_set_array_member (result, "resources", provider->list_resources (data));
  gb_mcp_session_reply (session, exchange, message->id, result);
}

void
gb_mcp_resources_templates (GbMcpServer  *server,
                            GbMcpSession *session,
                            GbMcpMessage *message,
                            gpointer      exchange)
{
  gpointer data;
  const GbMcpResourcesProvider *provider = provider_of (server, session, message, exchange, &data);
  g_autoptr(JsonObject) result = NULL;

  if (provider == NULL || !no_cursor (session, message, exchange))
    return;
  result = json_object_new ();
  json_object_set_array_member (result, "resourceTemplates", provider->list_templates (data));
  gb_mcp_session_reply (session, exchange, message->id, result);
}

typedef struct {
  GbMcpServer *server;
  GbMcpCall   *call;
  char        *uri;
} ReadData;

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  ReadData *data = user_data;
  g_autoptr(GbMcpServer) server = data->server;
  g_autoptr(GbMcpCall) call = data->call;
  g_autofree char *uri = data->uri;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) contents = NULL;
  g_autoptr(JsonNode) response = NULL;
  gpointer provider_data;
  const GbMcpResourcesProvider *provider = gb_mcp_server_get_resources (server, &provider_data);

  g_free (data);
  contents = provider->read_finish (provider_data, result, &error);
  if (gb_mcp_call_is_answered (call))
    return;
  if (contents != NULL)
    {
      g_autoptr(JsonObject) r = json_object_new ();

      json_object_set_array_member (r, "contents", g_steal_pointer (&contents));
      response = gb_mcp_message_new_result (gb_mcp_call_get_id (call), r);
    }
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    response = not_found (gb_mcp_call_get_id (call), uri, error->message);
  else
    response = gb_mcp_message_new_error (gb_mcp_call_get_id (call), GG_JSONRPC_INTERNAL_ERROR,
                                         error != NULL ? error->message : "The resource could not be read");
  gb_mcp_call_answer (call, response);
}

void
gb_mcp_resources_read (GbMcpServer  *server,
                       GbMcpSession *session,
                       GbMcpMessage *message,
                       gpointer      exchange)
{
  gpointer provider_data;
  const GbMcpResourcesProvider *provider = provider_of (server, session, message, exchange, &provider_data);
  g_autofree char *key = NULL;
  const char *uri;
  ReadData *data;

  if (provider == NULL || (uri = uri_param (session, message, exchange)) == NULL)
    return;
  key = gb_mcp_message_id_key (message->id);
  if (g_hash_table_contains (session->calls, key))
    {
      gb_mcp_session_reply_error (session, exchange, message->id, GG_JSONRPC_INVALID_REQUEST,
                   "Invalid Request: a request with this id is still running");
      return;
    }
  data = g_new0 (ReadData, 1);
  data->server = g_object_ref (server);
  data->call = gb_mcp_call_new (session, "resources/read", message->id, NULL, exchange);
  data->uri = g_strdup (uri);
  provider->read_async (provider_data, uri, gb_mcp_call_get_cancellable (data->call), on_read, data);
}

void
gb_mcp_resources_subscribe (GbMcpServer  *server,
                            GbMcpSession *session,
                            GbMcpMessage *message,
                            gpointer      exchange)
{
  gpointer data;
  const GbMcpResourcesProvider *provider = provider_of (server, session, message, exchange, &data);
  g_autoptr(GError) error = NULL;
  const char *uri;

  if (provider == NULL || (uri = uri_param (session, message, exchange)) == NULL)
    return;
  if (session->subscriptions == NULL)
    session->subscriptions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (g_hash_table_contains (session->subscriptions, uri))
    {
      gb_mcp_session_reply (session, exchange, message->id, NULL);
      return;
    }
  if (g_hash_table_size (session->subscriptions) >= MAX_SUBSCRIPTIONS)
    {
      gb_mcp_session_reply_error (session, exchange, message->id, GG_JSONRPC_INVALID_PARAMS,
                   "Invalid params: too many subscriptions (at most 256 per session)");
      return;
    }
  /* The provider watches a URI once, whoever asks first. */
  if (!gb_mcp_server_has_subscriber (server, uri, session) && !provider->subscribe (data, uri, &error))
    {
      g_autoptr(JsonNode) response = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND)
        ? not_found (message->id, uri, error->message)
        : gb_mcp_message_new_error (message->id, GG_JSONRPC_INTERNAL_ERROR, error->message);

      gb_mcp_session_finish (session, exchange, response);
      return;
    }
  g_hash_table_add (session->subscriptions, g_strdup (uri));
  gb_mcp_session_reply (session, exchange, message->id, NULL);
}

void
gb_mcp_resources_unsubscribe (GbMcpServer  *server,
                              GbMcpSession *session,
                              GbMcpMessage *message,
                              gpointer      exchange)
{
  gpointer data;
  const GbMcpResourcesProvider *provider = provider_of (server, session, message, exchange, &data);
  const char *uri;

  if (provider == NULL || (uri = uri_param (session, message, exchange)) == NULL)
    return;
  /* Unsubscribing from what was never subscribed is no error. */
  if (session->subscriptions != NULL && g_hash_table_remove (session->subscriptions, uri) &&
      !gb_mcp_server_has_subscriber (server, uri, session))
    provider->unsubscribe (data, uri);
  gb_mcp_session_reply (session, exchange, message->id, NULL);
}

void
gb_mcp_resources_session_gone (GbMcpServer  *server,
                               GbMcpSession *session)
{
  gpointer data;
  const GbMcpResourcesProvider *provider = gb_mcp_server_get_resources (server, &data);
  g_autoptr(GHashTable) subscriptions = g_steal_pointer (&session->subscriptions);
  GHashTableIter iter;
  gpointer uri;

  if (provider == NULL || subscriptions == NULL)
    return;
  g_hash_table_iter_init (&iter, subscriptions);
  while (g_hash_table_iter_next (&iter, &uri, NULL))
    if (!gb_mcp_server_has_subscriber (server, uri, session))
      provider->unsubscribe (data, uri);
}

/**
 * gb_mcp_server_notify_resource_updated:
 * @self: a server
 * @uri: the resource that changed
 *
 * Sends `notifications/resources/updated` to every session subscribed to
 * @uri.
 */
void
gb_mcp_server_notify_resource_updated (GbMcpServer *self,
                                       const char  *uri)
{
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(JsonNode) message = NULL;

  g_return_if_fail (GB_IS_MCP_SERVER (self));

  json_object_set_string_member (params, "uri", uri);
  message = gb_mcp_message_new_notification ("notifications/resources/updated", params);
  sessions = gb_mcp_server_list_sessions (self);
  for (guint i = 0; i < sessions->len; i++)
    {
      GbMcpSession *session = sessions->pdata[i];

      if (session->subscriptions != NULL && g_hash_table_contains (session->subscriptions, uri))
        gb_mcp_session_send (session, NULL, message);
    }
}

/**
 * gb_mcp_server_notify_resources_changed:
 * @self: a server
 *
 * Sends `notifications/resources/list_changed` to every initialized client.
 */
void
gb_mcp_server_notify_resources_changed (GbMcpServer *self)
{
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(JsonNode) message = NULL;

  g_return_if_fail (GB_IS_MCP_SERVER (self));

  message = gb_mcp_message_new_notification ("notifications/resources/list_changed", NULL);
  sessions = gb_mcp_server_list_sessions (self);
  for (guint i = 0; i < sessions->len; i++)
    {
      GbMcpSession *session = sessions->pdata[i];

      if (session->initialized)
        gb_mcp_session_send (session, NULL, message);
    }
}
