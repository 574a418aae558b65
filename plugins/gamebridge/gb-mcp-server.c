/* gb-mcp-server.c: the MCP server object: lifecycle, tools/list pagination,
 * logging and cancellation, for every session whatever its transport; the
 * tools methods are in gb-mcp-tools.c, the resources methods in
 * gb-mcp-resources.c.
 *
 * Requests other than `initialize` and `ping` before `initialize` was
 * answered get -32600 (Invalid Request): the MCP specification defines no
 * code for it, and -32002 already means "resource not found" in MCP.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-mcp-private.h"

struct _GbMcpServer
{
  GObject             parent_instance;
  char               *name;
  char               *version;
  char               *instructions;
  GbMcpToolsProvider  provider;
  gpointer            provider_data;
  GbMcpResourcesProvider resources;
  gpointer            resources_data;
  gboolean            has_resources;
  GPtrArray          *sessions;   /* GbMcpSession, referenced */
  GbMcpHttp          *http;
  GbMcpHttpSettings   http_settings;
  gboolean            closed;
};

G_DEFINE_FINAL_TYPE (GbMcpServer, gb_mcp_server, G_TYPE_OBJECT)

enum {
  SIGNAL_CLIENT_GONE,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

/* ---- the methods --------------------------------------------------------- */

static void
handle_initialize (GbMcpServer  *self,
                   GbMcpSession *session,
                   GbMcpMessage *message,
                   gpointer      exchange)
{
  g_autoptr(JsonObject) result = json_object_new ();
  JsonObject *capabilities, *tools, *info;
  const char *asked = gb_mcp_string_member (message->params, "protocolVersion");
  JsonNode *client_info;

  if (session->initialized)
    {
      gb_mcp_session_reply_error (session, exchange, message->id, GG_JSONRPC_INVALID_REQUEST,
                   "Invalid Request: the session is already initialized");
      return;
    }
  if (asked == NULL)
    {
      gb_mcp_session_reply_error (session, exchange, message->id, GG_JSONRPC_INVALID_PARAMS,
                   "Invalid params: \"protocolVersion\" must be a string");
      return;
    }
  session->protocol_version = g_strdup (gb_mcp_protocol_version_supported (asked) ?
                                        asked : GB_MCP_LATEST_PROTOCOL_VERSION);
  client_info = json_object_get_member (message->params, "clientInfo");
  if (client_info != NULL && JSON_NODE_HOLDS_OBJECT (client_info))
    session->client_name = g_strdup (gb_mcp_string_member (json_node_get_object (client_info), "name"));
  g_debug ("MCP client %s: protocol %s (asked %s)",
           session->client_name != NULL ? session->client_name : "(unnamed)",
           session->protocol_version, asked);

  json_object_set_string_member (result, "protocolVersion", session->protocol_version);
  capabilities = json_object_new ();
  tools = json_object_new ();
  json_object_set_boolean_member (tools, "listChanged", TRUE);
  json_object_set_object_member (capabilities, "tools", tools);
  json_object_set_object_member (capabilities, "logging", json_object_new ());
  if (self->has_resources)
    {
      JsonObject *resources = json_object_new ();

      json_object_set_boolean_member (resources, "subscribe", TRUE);
      json_object_set_boolean_member (resources, "listChanged", TRUE);
      json_object_set_object_member (capabilities, "resources", resources);
    }
  json_object_set_object_member (result, "capabilities", capabilities);
  info = json_object_new ();
  json_object_set_string_member (info, "name", self->name);
  json_object_set_string_member (info, "version", self->version);
  json_object_set_object_member (result, "serverInfo", info);
  if (self->instructions != NULL)
    json_object_set_string_member (result, "instructions", self->instructions);

  session->initialized = TRUE;
  gb_mcp_session_reply (session, exchange, message->id, result);
}

static void
handle_set_level (GbMcpServer  *self,
                  GbMcpSession *session,
                  GbMcpMessage *message,
                  gpointer      exchange)
{
  int rank = gb_mcp_log_level_from_name (gb_mcp_string_member (message->params, "level"));

  if (rank < 0)
    {
      gb_mcp_session_reply_error (session, exchange, message->id, GG_JSONRPC_INVALID_PARAMS,
                   "Invalid params: \"level\" must be one of debug, info, notice, warning, "
                   "error, critical, alert, emergency");
      return;
    }
  session->log_level = rank;
  gb_mcp_session_reply (session, exchange, message->id, NULL);
}

static void
handle_cancelled (GbMcpServer  *self,
                  GbMcpSession *session,
                  GbMcpMessage *message)
{
  JsonNode *id = message->params != NULL ?
                 json_object_get_member (message->params, "requestId") : NULL;
  g_autofree char *key = NULL;
  GbMcpCall *call;

  if (id == NULL || (json_node_get_value_type (id) != G_TYPE_STRING &&
                     json_node_get_value_type (id) != G_TYPE_INT64))
    return;
  key = gb_mcp_message_id_key (id);
  call = g_hash_table_lookup (session->calls, key);
  /* Unknown or finished: the race the protocol allows; nothing to do. */
  if (call == NULL)
    return;
  g_debug ("MCP: request %s cancelled by the client", key);
  gb_mcp_call_ref (call);
  gb_mcp_call_answer (call, NULL);
  g_cancellable_cancel (gb_mcp_call_get_cancellable (call));
  gb_mcp_call_unref (call);
}

typedef void (*MethodFunc) (GbMcpServer *, GbMcpSession *, GbMcpMessage *, gpointer);

static const struct {
  const char *name;
  MethodFunc  func;
} methods[] = {
  { "initialize", handle_initialize },
  { "ping", NULL },
  { "tools/list", gb_mcp_tools_list },
  { "tools/call", gb_mcp_tools_call },
  { "logging/setLevel", handle_set_level },
  { "resources/list", gb_mcp_resources_list },
  { "resources/templates/list", gb_mcp_resources_templates },
  { "resources/read", gb_mcp_resources_read },
  { "resources/subscribe", gb_mcp_resources_subscribe },
  { "resources/unsubscribe", gb_mcp_resources_unsubscribe },
};

/**
 * gb_mcp_server_dispatch:
 * @self: a server
 * @session: the session @message came in on
 * @message: a validated message
 * @exchange: (nullable): the transport's handle, passed back when answering
 *
 * Handles one message. Every request is answered through @session's
 * transport exactly once (or not at all if the client cancels it).
 */
void
gb_mcp_server_dispatch (GbMcpServer  *self,
                        GbMcpSession *session,
                        GbMcpMessage *message,
                        gpointer      exchange)
{
  g_autoptr(GbMcpServer) hold = g_object_ref (self);
  g_autoptr(GbMcpSession) hold_session = gb_mcp_session_ref (session);

  session->last_activity = g_get_monotonic_time ();
  switch (message->kind)
    {
    case GB_MCP_MESSAGE_RESPONSE:
      /* This server sends no requests: nothing waits for a response. */
      g_debug ("MCP: unexpected response dropped");
      return;
    case GB_MCP_MESSAGE_NOTIFICATION:
      if (strcmp (message->method, "notifications/cancelled") == 0)
        handle_cancelled (self, session, message);
      else if (strcmp (message->method, "notifications/initialized") == 0)
        session->client_ready = TRUE;
      else
        g_debug ("MCP: notification %s ignored", message->method);
      return;
    case GB_MCP_MESSAGE_REQUEST:
    default:
      break;
    }

  if (self->closed || session->closed)
    {
      gb_mcp_session_reply_error (session, exchange, message->id, GG_JSONRPC_INTERNAL_ERROR,
                   "The server is shutting down");
      return;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (methods); i++)
    {
      if (strcmp (message->method, methods[i].name) != 0)
        continue;
      if (methods[i].func == NULL)
        gb_mcp_session_reply (session, exchange, message->id, NULL);
      else if (!session->initialized && methods[i].func != handle_initialize)
        gb_mcp_session_reply_error (session, exchange, message->id, GG_JSONRPC_INVALID_REQUEST,
                     "Invalid Request: the session is not initialized; send initialize first");
      else
        methods[i].func (self, session, message, exchange);
      return;
    }
  /* Also `server/discover`, so newer clients fall back to initialize. */
  {
    g_autofree char *text = g_strdup_printf ("Method not found: %s", message->method);
    gb_mcp_session_reply_error (session, exchange, message->id, GG_JSONRPC_METHOD_NOT_FOUND, text);
  }
}

/* ---- sessions ------------------------------------------------------------ */

/**
 * gb_mcp_server_add_session:
 * @self: a server
 * @session: a new session (referenced)
 */
void
gb_mcp_server_add_session (GbMcpServer  *self,
                           GbMcpSession *session)
{
  g_ptr_array_add (self->sessions, gb_mcp_session_ref (session));
}

/**
 * gb_mcp_server_remove_session:
 * @self: a server
 * @session: a session that ended
 */
void
gb_mcp_server_remove_session (GbMcpServer  *self,
                              GbMcpSession *session)
{
  session->server = NULL;
  gb_mcp_resources_session_gone (self, session);
  g_ptr_array_remove_fast (self->sessions, session);
}

/**
 * gb_mcp_server_emit_client_gone:
 * @self: a server
 *
 * Emits `client-gone`: a stdio client closed its input and every request
 * it sent was answered.
 */
void
gb_mcp_server_emit_client_gone (GbMcpServer *self)
{
  g_signal_emit (self, signals[SIGNAL_CLIENT_GONE], 0);
}

/**
 * gb_mcp_server_is_closed:
 * @self: a server
 *
 * Returns: %TRUE after gb_mcp_server_close()
 */
gboolean
gb_mcp_server_is_closed (GbMcpServer *self)
{
  return self->closed;
}

/**
 * gb_mcp_server_get_http:
 * @self: a server
 *
 * Returns: (transfer none) (nullable): the HTTP transport, if listening
 */
GbMcpHttp *
gb_mcp_server_get_http (GbMcpServer *self)
{
  return self->http;
}

/* ---- public API ---------------------------------------------------------- */

/**
 * gb_mcp_server_new:
 * @server_name: `serverInfo.name`
 * @server_version: `serverInfo.version`
 * @instructions: (nullable): the `instructions` for the model
 * @provider: the tools' vtable (copied)
 * @provider_data: passed to every @provider function (not owned)
 *
 * Returns: (transfer full): a server serving nobody yet
 */
GbMcpServer *
gb_mcp_server_new (const char               *server_name,
                   const char               *server_version,
                   const char               *instructions,
                   const GbMcpToolsProvider *provider,
                   gpointer                  provider_data)
{
  GbMcpServer *self;

  g_return_val_if_fail (server_name != NULL, NULL);
  g_return_val_if_fail (server_version != NULL, NULL);
  g_return_val_if_fail (provider != NULL && provider->list_tools != NULL &&
                        provider->call_tool_async != NULL &&
                        provider->call_tool_finish != NULL, NULL);

  self = g_object_new (GB_TYPE_MCP_SERVER, NULL);
  self->name = g_strdup (server_name);
  self->version = g_strdup (server_version);
  self->instructions = g_strdup (instructions);
  self->provider = *provider;
  self->provider_data = provider_data;
  return self;
}

/**
 * gb_mcp_server_serve_stdio:
 * @self: a server
 * @stdio: the client's streams: its requests come in on the input
 *
 * Serves one client with newline-delimited JSON-RPC on @stdio.
 */
void
gb_mcp_server_serve_stdio (GbMcpServer *self,
                           GIOStream   *stdio)
{
  g_autoptr(GbMcpSession) session = NULL;

  g_return_if_fail (GB_IS_MCP_SERVER (self));
  g_return_if_fail (G_IS_IO_STREAM (stdio));
  g_return_if_fail (!self->closed);

  session = gb_mcp_stdio_start (self, stdio);
}

/**
 * gb_mcp_server_listen_http:
 * @self: a server
 * @port: the TCP port on 127.0.0.1, 0 for any free one
 * @error: where to report a failure to listen
 *
 * Serves Streamable HTTP at `http://127.0.0.1:port/mcp`.
 *
 * Returns: %TRUE once listening
 */
gboolean
gb_mcp_server_listen_http (GbMcpServer  *self,
                           guint         port,
                           GError      **error)
{
  g_return_val_if_fail (GB_IS_MCP_SERVER (self), FALSE);
  g_return_val_if_fail (!self->closed, FALSE);

  if (self->http == NULL)
    {
      self->http = gb_mcp_http_new (self);
      gb_mcp_http_set_settings (self->http, &self->http_settings);
    }
  return gb_mcp_http_listen (self->http, port, error);
}

/**
 * gb_mcp_server_set_http_settings:
 * @self: a server
 * @settings: the limits of the HTTP transport (copied; a zero field keeps
 *   its default)
 */
void
gb_mcp_server_set_http_settings (GbMcpServer             *self,
                                 const GbMcpHttpSettings *settings)
{
  g_return_if_fail (GB_IS_MCP_SERVER (self));
  g_return_if_fail (settings != NULL);

  self->http_settings.max_sessions = settings->max_sessions > 0 ? settings->max_sessions
                                                                : GB_MCP_HTTP_DEFAULT_MAX_SESSIONS;
  self->http_settings.replay_events = settings->replay_events > 0 ? settings->replay_events
                                                                  : GB_MCP_HTTP_DEFAULT_REPLAY_EVENTS;
  self->http_settings.retry_ms = settings->retry_ms > 0 ? settings->retry_ms : GB_MCP_HTTP_DEFAULT_RETRY_MS;
  if (self->http != NULL)
    gb_mcp_http_set_settings (self->http, &self->http_settings);
}

/**
 * gb_mcp_server_get_http_port:
 * @self: a server
 *
 * Returns: the port HTTP listens on, 0 when not listening
 */
guint
gb_mcp_server_get_http_port (GbMcpServer *self)
{
  g_return_val_if_fail (GB_IS_MCP_SERVER (self), 0);
  return self->http != NULL ? gb_mcp_http_get_port (self->http) : 0;
}

/* Sending may close a session (a dead client): walk a copy. */
static GPtrArray *
snapshot_sessions (GbMcpServer *self)
{
  GPtrArray *sessions = g_ptr_array_new_with_free_func ((GDestroyNotify) gb_mcp_session_unref);

  for (guint i = 0; i < self->sessions->len; i++)
    g_ptr_array_add (sessions, gb_mcp_session_ref (self->sessions->pdata[i]));
  return sessions;
}

GPtrArray *
gb_mcp_server_list_sessions (GbMcpServer *self)
{
  return snapshot_sessions (self);
}

/**
 * gb_mcp_server_set_resources_provider:
 * @self: a server
 * @provider: the resources' vtable (copied)
 * @provider_data: passed to every @provider function (not owned)
 */
void
gb_mcp_server_set_resources_provider (GbMcpServer                  *self,
                                      const GbMcpResourcesProvider *provider,
                                      gpointer                      provider_data)
{
  g_return_if_fail (GB_IS_MCP_SERVER (self));
  g_return_if_fail (provider != NULL && provider->list_resources != NULL && provider->list_templates != NULL &&
                    provider->read_async != NULL && provider->read_finish != NULL &&
                    provider->subscribe != NULL && provider->unsubscribe != NULL);

  self->resources = *provider;
  self->resources_data = provider_data;
  self->has_resources = TRUE;
}

const GbMcpToolsProvider *
gb_mcp_server_get_tools (GbMcpServer *self,
                         gpointer    *provider_data)
{
  *provider_data = self->provider_data;
  return &self->provider;
}

const GbMcpResourcesProvider *
gb_mcp_server_get_resources (GbMcpServer *self,
                             gpointer    *provider_data)
{
  *provider_data = self->resources_data;
  return self->has_resources ? &self->resources : NULL;
}

gboolean
gb_mcp_server_has_subscriber (GbMcpServer  *self,
                              const char   *uri,
                              GbMcpSession *except)
{
  for (guint i = 0; i < self->sessions->len; i++)
    {
      GbMcpSession *session = self->sessions->pdata[i];

      if (session != except && session->subscriptions != NULL &&
          g_hash_table_contains (session->subscriptions, uri))
        return TRUE;
    }
  return FALSE;
}

/**
 * gb_mcp_server_notify_tools_changed:
 * @self: a server
 *
 * Sends `notifications/tools/list_changed` to every initialized client.
 */
void
gb_mcp_server_notify_tools_changed (GbMcpServer *self)
{
  g_autoptr(JsonNode) message = NULL;
  g_autoptr(GPtrArray) sessions = NULL;

  g_return_if_fail (GB_IS_MCP_SERVER (self));

  message = gb_mcp_message_new_notification ("notifications/tools/list_changed", NULL);
  sessions = snapshot_sessions (self);
  for (guint i = 0; i < sessions->len; i++)
    {
      GbMcpSession *session = sessions->pdata[i];
      if (session->initialized)
        gb_mcp_session_send (session, NULL, message);
    }
}

/**
 * gb_mcp_server_log:
 * @self: a server
 * @level: an RFC 5424 level name
 * @logger: (nullable): who logs
 * @data: (transfer none): what to log (any JSON)
 *
 * Sends `notifications/message` to every client whose level lets it through.
 */
void
gb_mcp_server_log (GbMcpServer *self,
                   const char  *level,
                   const char  *logger,
                   JsonNode    *data)
{
  g_autoptr(GPtrArray) sessions = NULL;

  g_return_if_fail (GB_IS_MCP_SERVER (self));
  g_return_if_fail (gb_mcp_log_level_from_name (level) >= 0);

  sessions = snapshot_sessions (self);
  for (guint i = 0; i < sessions->len; i++)
    gb_mcp_session_log (sessions->pdata[i], NULL, level, logger, data);
}

/**
 * gb_mcp_server_close:
 * @self: a server
 *
 * Answers running calls with an error and cancels them, flushes and closes
 * every client and stops listening. Idempotent.
 */
void
gb_mcp_server_close (GbMcpServer *self)
{
  g_autoptr(GbMcpServer) hold = NULL;

  g_return_if_fail (GB_IS_MCP_SERVER (self));

  if (self->closed)
    return;
  hold = g_object_ref (self);
  self->closed = TRUE;
  while (self->sessions->len > 0)
    gb_mcp_session_close (self->sessions->pdata[self->sessions->len - 1],
                          "The server is shutting down");
  if (self->http != NULL)
    gb_mcp_http_close (self->http);
}

/* ---- GObject ------------------------------------------------------------- */

static void
gb_mcp_server_dispose (GObject *object)
{
  GbMcpServer *self = GB_MCP_SERVER (object);

  gb_mcp_server_close (self);
  g_clear_pointer (&self->http, gb_mcp_http_free);
  G_OBJECT_CLASS (gb_mcp_server_parent_class)->dispose (object);
}

static void
gb_mcp_server_finalize (GObject *object)
{
  GbMcpServer *self = GB_MCP_SERVER (object);

  g_ptr_array_unref (self->sessions);
  g_free (self->name);
  g_free (self->version);
  g_free (self->instructions);
  G_OBJECT_CLASS (gb_mcp_server_parent_class)->finalize (object);
}

static void
gb_mcp_server_class_init (GbMcpServerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = gb_mcp_server_dispose;
  object_class->finalize = gb_mcp_server_finalize;

  /**
   * GbMcpServer::client-gone:
   *
   * A stdio client closed its input and every request it sent was answered.
   */
  signals[SIGNAL_CLIENT_GONE] =
    g_signal_new ("client-gone", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
gb_mcp_server_init (GbMcpServer *self)
{
  self->sessions = g_ptr_array_new_with_free_func ((GDestroyNotify) gb_mcp_session_unref);
  self->http_settings.max_sessions = GB_MCP_HTTP_DEFAULT_MAX_SESSIONS;
  self->http_settings.replay_events = GB_MCP_HTTP_DEFAULT_REPLAY_EVENTS;
  self->http_settings.retry_ms = GB_MCP_HTTP_DEFAULT_RETRY_MS;
}
