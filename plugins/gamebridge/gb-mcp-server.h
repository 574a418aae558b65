/* gb-mcp-server.h: the MCP protocol side of the gamebridge plugin
 * (revision 2025-11-25), over stdio or Streamable HTTP, serving the tools of
 * a provider. Plugin-internal: the contract between the MCP transport code
 * (gb-mcp-*.c) and the game bridge logic (gb-bridge-*.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

/* One tools/call as the provider sees it: who asked, and how to talk back
 * while the call runs. */
typedef struct _GbMcpCall GbMcpCall;

/* `notifications/progress` for the request's `_meta.progressToken`; does
 * nothing when the client asked for no progress. @total <= 0 = unknown. */
void gb_mcp_call_report_progress (GbMcpCall  *call,
                                  double      progress,
                                  double      total,
                                  const char *message);
/* `notifications/message` to the client that made this call, if its
 * logging/setLevel lets @level ("debug", "info", "warning", "error") through. */
void gb_mcp_call_log             (GbMcpCall  *call,
                                  const char *level,
                                  const char *message);

/**
 * GbMcpToolsProvider:
 * @list_tools: (transfer full): the tools to advertise now, as MCP Tool
 *   objects `[{"name","description","inputSchema", …}]`
 * @call_tool_async: run one tool; @cancellable is cancelled by
 *   `notifications/cancelled` or when the client goes away
 * @call_tool_finish: (transfer full): an MCP CallToolResult
 *   `{"content":[…], "structuredContent"?, "isError"?}`; a %G_IO_ERROR_NOT_FOUND
 *   error means "unknown tool" (answered -32602), any other error becomes
 *   a result with `isError: true` and the error's message as text
 */
typedef struct {
  JsonArray  *(*list_tools)       (gpointer provider);
  void        (*call_tool_async)  (gpointer             provider,
                                   const char          *name,
                                   JsonObject          *arguments,
                                   GbMcpCall           *call,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data);
  JsonObject *(*call_tool_finish) (gpointer       provider,
                                   GAsyncResult  *result,
                                   GError       **error);
} GbMcpToolsProvider;

/* The limits of the Streamable HTTP transport (`[gamebridge]` keys
 * http-max-sessions, sse-replay-events and sse-retry-ms). */
#define GB_MCP_HTTP_DEFAULT_MAX_SESSIONS  256
#define GB_MCP_HTTP_DEFAULT_REPLAY_EVENTS 256
#define GB_MCP_HTTP_DEFAULT_RETRY_MS      1000

/**
 * GbMcpHttpSettings:
 * @max_sessions: sessions kept at once; when full, a new client ends the
 *   least recently used one that has no request in flight
 * @replay_events: events each SSE stream keeps for a client that resumes
 *   with Last-Event-ID
 * @retry_ms: the `retry` announced on SSE streams (how long a client waits
 *   before it reconnects)
 */
typedef struct {
  guint max_sessions;
  guint replay_events;
  guint retry_ms;
} GbMcpHttpSettings;
/**
 * GbMcpResourcesProvider:
 * @list_resources: (transfer full): the resources now, as MCP Resource
 *   objects `[{"uri","name","description"?,"mimeType"?}]`
 * @list_templates: (transfer full): MCP ResourceTemplate objects
 *   `[{"uriTemplate","name","description"?,"mimeType"?}]`
 * @read_async: read one resource; @cancellable is cancelled by
 *   `notifications/cancelled` or when the client goes away
 * @read_finish: (transfer full): the `contents` array
 *   `[{"uri","mimeType"?,"text"|"blob"}]`; a %G_IO_ERROR_NOT_FOUND error is
 *   answered -32002 (resource not found), any other -32603 with its message
 * @subscribe: start watching @uri for the first subscriber (%FALSE with a
 *   %G_IO_ERROR_NOT_FOUND error for a resource that cannot exist)
 * @unsubscribe: the last subscriber of @uri is gone
 */
typedef struct {
  JsonArray  *(*list_resources) (gpointer provider);
  JsonArray  *(*list_templates) (gpointer provider);
  void        (*read_async)     (gpointer             provider,
                                 const char          *uri,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data);
  JsonArray  *(*read_finish)    (gpointer       provider,
                                 GAsyncResult  *result,
                                 GError       **error);
  gboolean    (*subscribe)      (gpointer     provider,
                                 const char  *uri,
                                 GError     **error);
  void        (*unsubscribe)    (gpointer     provider,
                                 const char  *uri);
} GbMcpResourcesProvider;

#define GB_TYPE_MCP_SERVER (gb_mcp_server_get_type ())
G_DECLARE_FINAL_TYPE (GbMcpServer, gb_mcp_server, GB, MCP_SERVER, GObject)

/* Signal `client-gone` (): for the stdio transport, the client closed stdin
 * (after every request it sent was answered). */

GbMcpServer *gb_mcp_server_new                  (const char               *server_name,
                                                 const char               *server_version,
                                                 const char               *instructions,
                                                 const GbMcpToolsProvider *provider,
                                                 gpointer                  provider_data);
/* One client on a pair of streams (stdio): newline-delimited JSON-RPC. */
void         gb_mcp_server_serve_stdio           (GbMcpServer *self,
                                                  GIOStream   *stdio);
/* Streamable HTTP on 127.0.0.1:@port (0 = any), one endpoint `/mcp`, several
 * clients with their own `Mcp-Session-Id`; a foreign Origin gets 403. */
gboolean     gb_mcp_server_listen_http           (GbMcpServer  *self,
                                                  guint         port,
                                                  GError      **error);
guint        gb_mcp_server_get_http_port         (GbMcpServer *self);
/* Before or while listening; a session keeps the replay limit it began with. */
void         gb_mcp_server_set_http_settings     (GbMcpServer             *self,
                                                  const GbMcpHttpSettings *settings);
/* `notifications/tools/list_changed` to every client. */
void         gb_mcp_server_notify_tools_changed  (GbMcpServer *self);
/* `notifications/message` to every client whose level lets it through. */
void         gb_mcp_server_log                   (GbMcpServer *self,
                                                  const char  *level,
                                                  const char  *logger,
                                                  JsonNode    *data);
/* Serves the `resources` capability (with subscribe and listChanged)
 * from @provider; before any client initialized. */
void         gb_mcp_server_set_resources_provider (GbMcpServer                  *self,
                                                   const GbMcpResourcesProvider *provider,
                                                   gpointer                      provider_data);
/* `notifications/resources/updated` to every client subscribed to @uri. */
void         gb_mcp_server_notify_resource_updated (GbMcpServer *self,
                                                    const char  *uri);
/* `notifications/resources/list_changed` to every client. */
void         gb_mcp_server_notify_resources_changed (GbMcpServer *self);
/* Cancel running calls, answer what can be answered, close every client. */
void         gb_mcp_server_close                 (GbMcpServer *self);

G_END_DECLS
