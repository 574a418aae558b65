/* gb-mcp-private.h: what the MCP server, its sessions and its transports
 * (gb-mcp-*.c) share. Not part of the contract with the bridge logic.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gb-mcp-server.h"

G_BEGIN_DECLS

#define GB_MCP_LATEST_PROTOCOL_VERSION "2025-11-25"
/* The largest JSON-RPC message accepted, on stdio and over HTTP. */
#define GB_MCP_MAX_MESSAGE_SIZE (4 * 1024 * 1024)
/* tools/list page size. */
#define GB_MCP_TOOLS_PAGE_SIZE 100
/* MCP-specific JSON-RPC code for transport-level errors. */
#define GB_MCP_ERROR_TRANSPORT (-32000)

gboolean     gb_mcp_protocol_version_supported (const char *version);

/* RFC 5424 levels as MCP names them, least severe first; -1 if unknown. */
int          gb_mcp_log_level_from_name        (const char *name);

/* gb-mcp-message.c: one incoming JSON-RPC message, validated. */
typedef enum {
  GB_MCP_MESSAGE_REQUEST,
  GB_MCP_MESSAGE_NOTIFICATION,
  GB_MCP_MESSAGE_RESPONSE,
} GbMcpMessageKind;

typedef struct {
  GbMcpMessageKind  kind;
  JsonNode         *root;
  const char       *method;  /* borrowed from root; NULL for a response */
  JsonObject       *params;  /* borrowed from root; NULL when absent */
  JsonNode         *id;      /* borrowed from root; NULL for a notification */
} GbMcpMessage;

/* NULL for bad input, with @error_response set to the whole JSON-RPC error
 * message to send back. */
GbMcpMessage *gb_mcp_message_parse            (const char  *data,
                                               gsize        length,
                                               JsonNode   **error_response);
void          gb_mcp_message_free             (GbMcpMessage *message);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GbMcpMessage, gb_mcp_message_free)
/* Whole messages; @id and @params are copied/referenced (nullable). */
JsonNode     *gb_mcp_message_new_result       (JsonNode   *id,
                                               JsonObject *result);
JsonNode     *gb_mcp_message_new_error        (JsonNode   *id,
                                               int         code,
                                               const char *message);
JsonNode     *gb_mcp_message_new_notification (const char *method,
                                               JsonObject *params);
/* Key of an id in a table: "s:abc" or "i:1", so "1" and 1 differ. */
char         *gb_mcp_message_id_key           (JsonNode   *id);
/* @object's member @name if it is a string, else NULL (@object nullable). */
const char   *gb_mcp_string_member            (JsonObject *object,
                                               const char *name);

typedef struct _GbMcpHttp GbMcpHttp;

/* gb-mcp-session.c: one client: its negotiated state and its running calls. */
typedef struct _GbMcpSession GbMcpSession;

typedef struct {
  /* A notification about the request behind @exchange (NULL: a message not
   * tied to any request). The transport decides where it can go. */
  void (*send)    (GbMcpSession *session,
                   gpointer      exchange,
                   JsonNode     *message);
  /* Ends the request behind @exchange with @response, or with no response
   * at all (NULL: the client cancelled it). Called exactly once for every
   * request the transport dispatched. */
  void (*finish)  (GbMcpSession *session,
                   gpointer      exchange,
                   JsonNode     *response);
  /* The session ended (server closing, client gone): release the client. */
  void (*close)   (GbMcpSession *session);
} GbMcpTransport;

struct _GbMcpSession {
  grefcount             ref_count;
  GbMcpServer          *server;          /* not owned; NULL once removed */
  const GbMcpTransport *transport;
  gpointer              transport_data;
  GDestroyNotify        transport_destroy;
  char                 *id;              /* Mcp-Session-Id; NULL on stdio */
  char                 *protocol_version;
  char                 *client_name;
  gboolean              initialized;     /* initialize answered */
  gboolean              client_ready;    /* notifications/initialized seen */
  gboolean              closed;
  int                   log_level;
  gint64                last_activity;   /* monotonic µs */
  GHashTable           *calls;           /* id key -> GbMcpCall, unanswered */
  GHashTable           *subscriptions;   /* resource URIs; NULL until one (gb-mcp-resources.c) */
};

GbMcpSession *gb_mcp_session_new        (GbMcpServer          *server,
                                         const GbMcpTransport *transport,
                                         gpointer              transport_data,
                                         GDestroyNotify        transport_destroy);
GbMcpSession *gb_mcp_session_ref        (GbMcpSession *session);
void          gb_mcp_session_unref      (GbMcpSession *session);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GbMcpSession, gb_mcp_session_unref)
/* Sends through the transport unless the session is closed. */
void          gb_mcp_session_send       (GbMcpSession *session,
                                         gpointer      exchange,
                                         JsonNode     *message);
void          gb_mcp_session_finish     (GbMcpSession *session,
                                         gpointer      exchange,
                                         JsonNode     *response);
/* gb_mcp_session_finish() with a result (NULL: `{}`) or an error for @id. */
void          gb_mcp_session_reply      (GbMcpSession *session,
                                         gpointer      exchange,
                                         JsonNode     *id,
                                         JsonObject   *result);
void          gb_mcp_session_reply_error (GbMcpSession *session,
                                          gpointer      exchange,
                                          JsonNode     *id,
                                          int           code,
                                          const char   *message);
/* A notifications/message if @level passes the session's logging level. */
void          gb_mcp_session_log        (GbMcpSession *session,
                                         gpointer      exchange,
                                         const char   *level,
                                         const char   *logger,
                                         JsonNode     *data);
/* Answers every running call with an error naming @why, cancels it, closes
 * the transport and leaves the server. */
void          gb_mcp_session_close      (GbMcpSession *session,
                                         const char   *why);

/* gb-mcp-call.c: one tools/call in flight. */
GbMcpCall    *gb_mcp_call_new           (GbMcpSession *session,
                                         const char   *tool,
                                         JsonNode     *id,
                                         JsonNode     *progress_token,
                                         gpointer      exchange);
GbMcpCall    *gb_mcp_call_ref           (GbMcpCall *call);
void          gb_mcp_call_unref         (GbMcpCall *call);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GbMcpCall, gb_mcp_call_unref)
GCancellable *gb_mcp_call_get_cancellable (GbMcpCall *call);
const char   *gb_mcp_call_get_key       (GbMcpCall *call);
/* Ends the call once: sends @response (NULL: nothing) and forgets it. */
void          gb_mcp_call_answer        (GbMcpCall *call,
                                         JsonNode  *response);
gboolean      gb_mcp_call_is_answered   (GbMcpCall *call);
JsonNode     *gb_mcp_call_get_id        (GbMcpCall *call);

/* gb-mcp-server.c */
/* Handles one validated message of @session; a request's answer goes to
 * @exchange through the transport. */
void          gb_mcp_server_dispatch    (GbMcpServer  *self,
                                         GbMcpSession *session,
                                         GbMcpMessage *message,
                                         gpointer      exchange);
void          gb_mcp_server_add_session    (GbMcpServer  *self,
                                            GbMcpSession *session);
void          gb_mcp_server_remove_session (GbMcpServer  *self,
                                            GbMcpSession *session);
void          gb_mcp_server_emit_client_gone (GbMcpServer *self);
gboolean      gb_mcp_server_is_closed   (GbMcpServer *self);
/* The HTTP transport, NULL before gb_mcp_server_listen_http(). */
GbMcpHttp    *gb_mcp_server_get_http    (GbMcpServer *self);

/* The tools provider (always set). */
const GbMcpToolsProvider *gb_mcp_server_get_tools (GbMcpServer *self,
                                                   gpointer    *provider_data);
/* The resources provider, NULL when none was set. */
const GbMcpResourcesProvider *gb_mcp_server_get_resources (GbMcpServer *self,
                                                           gpointer    *provider_data);
/* Whether any session but @except is subscribed to @uri. */
gboolean      gb_mcp_server_has_subscriber (GbMcpServer  *self,
                                            const char   *uri,
                                            GbMcpSession *except);
/* The initialized sessions now (referenced), safe to send through. */
GPtrArray    *gb_mcp_server_list_sessions (GbMcpServer *self);

/* gb-mcp-tools.c: tools/list and tools/call. */
void          gb_mcp_tools_list           (GbMcpServer  *server,
                                           GbMcpSession *session,
                                           GbMcpMessage *message,
                                           gpointer      exchange);
void          gb_mcp_tools_call           (GbMcpServer  *server,
                                           GbMcpSession *session,
                                           GbMcpMessage *message,
                                           gpointer      exchange);

/* gb-mcp-resources.c: resources/list, resources/templates/list,
 * resources/read, resources/subscribe and resources/unsubscribe. */
void          gb_mcp_resources_list       (GbMcpServer  *server,
                                           GbMcpSession *session,
                                           GbMcpMessage *message,
                                           gpointer      exchange);
void          gb_mcp_resources_templates  (GbMcpServer  *server,
                                           GbMcpSession *session,
                                           GbMcpMessage *message,
                                           gpointer      exchange);
void          gb_mcp_resources_read       (GbMcpServer  *server,
                                           GbMcpSession *session,
                                           GbMcpMessage *message,
                                           gpointer      exchange);
void          gb_mcp_resources_subscribe  (GbMcpServer  *server,
                                           GbMcpSession *session,
                                           GbMcpMessage *message,
                                           gpointer      exchange);
void          gb_mcp_resources_unsubscribe (GbMcpServer  *server,
                                            GbMcpSession *session,
                                            GbMcpMessage *message,
                                            gpointer      exchange);
/* A session that ends gives up its subscriptions. */
void          gb_mcp_resources_session_gone (GbMcpServer  *server,
                                             GbMcpSession *session);

/* gb-mcp-stdio.c */
GbMcpSession *gb_mcp_stdio_start        (GbMcpServer *server,
                                         GIOStream   *stdio);

/* gb-mcp-http.c */
GbMcpHttp    *gb_mcp_http_new           (GbMcpServer *server);
gboolean      gb_mcp_http_listen        (GbMcpHttp *http,
                                         guint      port,
                                         GError   **error);
guint         gb_mcp_http_get_port      (GbMcpHttp *http);
/* An HTTP session unused this long (default 1 h), with no call running and
 * no stream open, is forgotten: its id then gets 404. So is the least
 * recently used one without a request in flight when a new client comes to
 * a full table (GbMcpHttpSettings.max_sessions). */
void          gb_mcp_http_set_session_idle_timeout (GbMcpHttp *http,
                                                    gint64     idle_us);
void          gb_mcp_http_set_settings  (GbMcpHttp               *http,
                                         const GbMcpHttpSettings *settings);
/* Closes every HTTP session and stops listening. */
void          gb_mcp_http_close         (GbMcpHttp *http);
void          gb_mcp_http_free          (GbMcpHttp *http);

/* gb-mcp-http-checks.c */
gboolean      gb_mcp_http_origin_allowed (const char *origin);
gboolean      gb_mcp_http_host_allowed   (const char *host);
void          gb_mcp_http_parse_accept   (const char *accept,
                                          gboolean   *json_ok,
                                          gboolean   *sse_ok);

G_END_DECLS
