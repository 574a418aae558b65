/* gb-mcp-http-private.h: what the two halves of the Streamable HTTP
 * transport share: the endpoint with its session table (gb-mcp-http.c) and
 * the HTTP side of each session, its exchanges and streams
 * (gb-mcp-http-exchange.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <libsoup/soup.h>

#include "gb-mcp-event-store.h"
#include "gb-mcp-private.h"
#include "gb-mcp-session-table.h"

G_BEGIN_DECLS

struct _GbMcpHttp
{
  GbMcpServer       *server;      /* not owned: it owns us */
  SoupServer        *soup;
  GSocketService    *service;     /* accepts the connections soup serves */
  guint              port;
  GbMcpSessionTable *sessions;
  GHashTable        *live;        /* Exchange whose HTTP message is not finished */
  gint64             idle_us;
  GbMcpHttpSettings  settings;
  guint              disconnect_id;
  gboolean           closing;
};

typedef struct _Exchange Exchange;

/* The HTTP side of one session (its transport_data). */
typedef struct {
  GbMcpHttp       *http;
  GbMcpEventStore *store;
  GPtrArray       *gets;    /* Exchange: GET streams, oldest first */
  GPtrArray       *posts;   /* Exchange: POSTs waiting for their answer */
} HttpSession;

/* One POST (a request, until it is answered) or one GET (a connection
 * carrying a stream). */
struct _Exchange {
  grefcount          ref_count;
  GbMcpHttp         *http;       /* NULL once the message finished */
  SoupServerMessage *msg;
  GbMcpEventStream  *stream;     /* POST: its request's, once it streams; GET: the one it carries */
  gboolean           sse_ok;
  gboolean           streaming;  /* SSE headers set */
  gboolean           paused;
  gboolean           done;       /* the HTTP answer is complete, or the connection is gone */
  gboolean           in_handler;
  GSource           *hangup;     /* while streaming: notices the client closing */
};

/* The GSocketConnection behind a request: object data of the remote
 * address the transport handed to libsoup with it (see on_incoming()). */
#define GB_MCP_HTTP_CONNECTION_KEY "gb-mcp-http-connection"

/* gb-mcp-http-exchange.c */
GbMcpSession *gb_mcp_http_session_new         (GbMcpHttp *http,
                                               char      *id);
gboolean      gb_mcp_http_session_resumable   (GbMcpSession *session);
/* Registered in @http's live exchanges until libsoup finishes @msg. */
Exchange     *gb_mcp_http_exchange_new        (GbMcpHttp         *http,
                                               SoupServerMessage *msg);
Exchange     *gb_mcp_http_exchange_ref        (Exchange *exchange);
void          gb_mcp_http_exchange_unref      (Exchange *exchange);
void          gb_mcp_http_exchange_start_sse  (Exchange *exchange);
void          gb_mcp_http_exchange_append     (Exchange   *exchange,
                                               const char *text,
                                               gsize       length);
/* Ends the SSE answer of a connection (not the stream it carried). */
void          gb_mcp_http_exchange_end        (Exchange *exchange);
/* @exchange's request answers on an SSE stream of its own from now on. */
void          gb_mcp_http_open_request_stream (GbMcpSession *session,
                                               Exchange     *exchange);
/* The priming event (an id, `retry`), for clients that can resume. */
void          gb_mcp_http_stream_prime        (GbMcpSession *session,
                                               Exchange     *exchange);
void          gb_mcp_http_set_json            (SoupServerMessage *msg,
                                               guint              status,
                                               JsonNode          *message);

/* gb-mcp-http.c */
void          gb_mcp_http_forget_exchange     (GbMcpHttp *http,
                                               Exchange  *exchange);

G_END_DECLS
