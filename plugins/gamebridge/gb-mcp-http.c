/* gb-mcp-http.c: the Streamable HTTP transport (MCP 2025-11-25) on libsoup 3:
 * one endpoint `/mcp` on 127.0.0.1, sessions named by `Mcp-Session-Id`.
 *
 * POST carries one JSON-RPC message. A request is answered as
 * application/json, or as an SSE stream once the call sends progress or log
 * notifications first (when the client accepts text/event-stream). GET opens
 * an SSE stream for messages not tied to a request; DELETE ends the session.
 * Header-only checks (path, Origin, method, size) run before the body is
 * read. Browsers are kept out by Origin and Host (DNS rebinding).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>
#include <libsoup/soup.h>

#include "gb-mcp-private.h"

/* Sessions nobody used for this long, with nothing open, are forgotten. */
#define DEFAULT_SESSION_IDLE_US (G_TIME_SPAN_HOUR)
#define MAX_SESSIONS 256

struct _GbMcpHttp
{
  GbMcpServer *server;      /* not owned: it owns us */
  SoupServer  *soup;
  guint        port;
  GHashTable  *sessions;    /* Mcp-Session-Id -> GbMcpSession (referenced) */
  GHashTable  *live;        /* Exchange whose HTTP message is not finished */
  gint64       idle_us;
  guint        disconnect_id;
  gboolean     closing;
};

typedef struct _Exchange Exchange;

/* The HTTP side of one session. */
typedef struct {
  GbMcpHttp *http;
  GPtrArray *streams;       /* Exchange: open GET streams, oldest first */
  GPtrArray *posts;         /* Exchange: POSTs waiting for their answer */
} HttpSession;

/* One POST waiting for its answer, or one GET stream. */
struct _Exchange {
  grefcount          ref_count;
  GbMcpHttp         *http;       /* NULL once the message finished */
  SoupServerMessage *msg;
  gboolean           sse_ok;
  gboolean           streaming;  /* SSE headers set */
  gboolean           paused;
  gboolean           done;       /* answered, or the connection is gone */
  gboolean           in_handler;
};

static void on_exchange_finished (SoupServerMessage *msg,
                                  gpointer           user_data);
static Exchange *exchange_ref (Exchange *exchange);

static Exchange *
exchange_new (GbMcpHttp         *http,
              SoupServerMessage *msg)
{
  Exchange *exchange = g_new0 (Exchange, 1);

  g_ref_count_init (&exchange->ref_count);
  exchange->http = http;
  exchange->msg = g_object_ref (msg);
  exchange->in_handler = TRUE;
  /* Kept until libsoup is done with the message, so closing can wait. */
  g_hash_table_add (http->live, exchange_ref (exchange));
  g_signal_connect (msg, "finished", G_CALLBACK (on_exchange_finished), exchange);
  return exchange;
}

static Exchange *
exchange_ref (Exchange *exchange)
{
  g_ref_count_inc (&exchange->ref_count);
  return exchange;
}

static void
exchange_unref (Exchange *exchange)
{
  if (!g_ref_count_dec (&exchange->ref_count))
    return;
  g_signal_handlers_disconnect_by_data (exchange->msg, exchange);
  g_object_unref (exchange->msg);
  g_free (exchange);
}

/* Lets libsoup write what was just set or appended. */
static void
exchange_push (Exchange *exchange)
{
  if (exchange->paused)
    {
      exchange->paused = FALSE;
      soup_server_message_unpause (exchange->msg);
    }
  else if (exchange->streaming && !exchange->in_handler)
    soup_server_message_unpause (exchange->msg);
}

static void
start_stream (Exchange *exchange)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (exchange->msg);

  soup_server_message_set_status (exchange->msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_headers_replace (headers, "Content-Type", "text/event-stream");
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  exchange->streaming = TRUE;
}

static void
stream_append (Exchange *exchange,
               JsonNode *message)
{
  g_autofree char *text = gg_json_to_string (message);
  g_autofree char *event = g_strdup_printf ("event: message\ndata: %s\n\n", text);
  SoupMessageBody *body = soup_server_message_get_response_body (exchange->msg);

  soup_message_body_append (body, SOUP_MEMORY_COPY, event, strlen (event));
  exchange_push (exchange);
}

static void
stream_end (Exchange *exchange)
{
  soup_message_body_complete (soup_server_message_get_response_body (exchange->msg));
  exchange->done = TRUE;
  exchange_push (exchange);
}

static void
set_json (SoupServerMessage *msg,
          guint              status,
          JsonNode          *message)
{
  g_autofree char *text = gg_json_to_string (message);
  gsize length = strlen (text);

  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE,
                                    g_steal_pointer (&text), length);
}

/* An HTTP-level failure, with a JSON-RPC error body as clients expect. */
static void
set_error (SoupServerMessage *msg,
           guint              status,
           int                code,
           const char        *text)
{
  g_autoptr(JsonNode) error = gb_mcp_message_new_error (NULL, code, text);
  set_json (msg, status, error);
}

static gboolean
disconnect_cb (gpointer user_data)
{
  GbMcpHttp *http = user_data;

  http->disconnect_id = 0;
  soup_server_disconnect (http->soup);
  return G_SOURCE_REMOVE;
}

static void
on_exchange_finished (SoupServerMessage *msg,
                      gpointer           user_data)
{
  Exchange *exchange = user_data;
  GbMcpHttp *http = exchange->http;

  /* Whatever we had still to say cannot be said any more. */
  exchange->done = TRUE;
  if (http == NULL)
    return;
  exchange->http = NULL;
  g_hash_table_remove (http->live, exchange);   /* may free it */
  /* Closing waited for the last answer to go out. */
  if (http->closing && g_hash_table_size (http->live) == 0)
    {
      g_clear_handle_id (&http->disconnect_id, g_source_remove);
      http->disconnect_id = g_idle_add (disconnect_cb, http);
    }
}

/* ---- the transport ------------------------------------------------------- */

static Exchange *
live_stream (HttpSession *hs)
{
  for (guint i = hs->streams->len; i > 0; i--)
    {
      Exchange *exchange = hs->streams->pdata[i - 1];
      if (!exchange->done)
        return exchange;
      g_ptr_array_remove_index (hs->streams, i - 1);
    }
  return NULL;
}

static void
http_send (GbMcpSession *session,
           gpointer      exchange_ptr,
           JsonNode     *message)
{
  HttpSession *hs = session->transport_data;
  Exchange *exchange = exchange_ptr;

  if (exchange != NULL && !exchange->done && exchange->sse_ok)
    {
      if (!exchange->streaming)
        start_stream (exchange);
      stream_append (exchange, message);
      return;
    }
  /* Not tied to a request, or its client takes JSON only: the GET stream,
   * if the client opened one; otherwise the message is dropped. */
  exchange = live_stream (hs);
  if (exchange != NULL)
    stream_append (exchange, message);
}

static void
http_finish (GbMcpSession *session,
             gpointer      exchange_ptr,
             JsonNode     *response)
{
  HttpSession *hs = session->transport_data;
  Exchange *exchange = exchange_ptr;

  g_return_if_fail (exchange != NULL);

  if (!exchange->done)
    {
      if (exchange->streaming)
        {
          if (response != NULL)
            stream_append (exchange, response);
          stream_end (exchange);
        }
      else
        {
          if (response != NULL)
            set_json (exchange->msg, SOUP_STATUS_OK, response);
          else
            soup_server_message_set_status (exchange->msg, SOUP_STATUS_ACCEPTED, NULL);
          exchange->done = TRUE;
          exchange_push (exchange);
        }
    }
  if (g_ptr_array_remove (hs->posts, exchange) == FALSE)
    g_debug ("MCP HTTP: answer for an unknown exchange");
}

static void
http_close (GbMcpSession *session)
{
  HttpSession *hs = session->transport_data;
  GbMcpHttp *http = hs->http;

  while (hs->streams->len > 0)
    {
      Exchange *exchange = hs->streams->pdata[0];
      if (!exchange->done)
        stream_end (exchange);
      g_ptr_array_remove_index (hs->streams, 0);
    }
  /* Calls were answered before; a POST still open is one being dispatched. */
  if (http != NULL && session->id != NULL)
    g_hash_table_remove (http->sessions, session->id);
}

static const GbMcpTransport http_transport = {
  http_send,
  http_finish,
  http_close,
};

static void
http_session_free (gpointer data)
{
  HttpSession *hs = data;

  g_ptr_array_unref (hs->streams);
  g_ptr_array_unref (hs->posts);
  g_free (hs);
}

/* ---- checks -------------------------------------------------------------- */

static void
expire_idle_sessions (GbMcpHttp *http)
{
  g_autoptr(GPtrArray) idle = g_ptr_array_new_with_free_func ((GDestroyNotify) gb_mcp_session_unref);
  gint64 now = g_get_monotonic_time ();
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, http->sessions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      GbMcpSession *session = value;
      HttpSession *hs = session->transport_data;

      if (now - session->last_activity > http->idle_us && hs->posts->len == 0 &&
          live_stream (hs) == NULL && g_hash_table_size (session->calls) == 0)
        g_ptr_array_add (idle, gb_mcp_session_ref (session));
    }
  for (guint i = 0; i < idle->len; i++)
    gb_mcp_session_close (idle->pdata[i], "The session expired");
}

/* The session a request names; sets the HTTP error when there is none. */
static GbMcpSession *
lookup_session (GbMcpHttp         *http,
                SoupServerMessage *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *id = soup_message_headers_get_one (headers, "Mcp-Session-Id");
  GbMcpSession *session;

  if (id == NULL)
    {
      set_error (msg, SOUP_STATUS_BAD_REQUEST, GB_MCP_ERROR_TRANSPORT,
                 "Bad Request: the Mcp-Session-Id header is required");
      return NULL;
    }
  expire_idle_sessions (http);
  session = g_hash_table_lookup (http->sessions, id);
  if (session == NULL)
    {
      set_error (msg, SOUP_STATUS_NOT_FOUND, GB_MCP_ERROR_TRANSPORT,
                 "Not Found: unknown or expired session; initialize a new one");
      return NULL;
    }
  return session;
}

/* ---- handlers ------------------------------------------------------------ */

static void
on_got_chunk (SoupServerMessage *msg,
              GBytes            *chunk,
              gpointer           user_data)
{
  gsize total = GPOINTER_TO_SIZE (g_object_get_data (G_OBJECT (msg), "gb-mcp-size"));

  total = MIN (total + g_bytes_get_size (chunk), (gsize) GB_MCP_MAX_MESSAGE_SIZE + 1);
  g_object_set_data (G_OBJECT (msg), "gb-mcp-size", GSIZE_TO_POINTER (total));
  if (total > GB_MCP_MAX_MESSAGE_SIZE)
    {
      /* Keep reading, stop keeping: the request is refused anyway. */
      SoupMessageBody *body = soup_server_message_get_request_body (msg);
      soup_message_body_set_accumulate (body, FALSE);
      soup_message_body_truncate (body);
    }
}

static void
early_handler (SoupServer        *soup,
               SoupServerMessage *msg,
               const char        *path,
               GHashTable        *query,
               gpointer           user_data)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *method = soup_server_message_get_method (msg);

  if (strcmp (path, "/mcp") != 0)
    {
      set_error (msg, SOUP_STATUS_NOT_FOUND, GB_MCP_ERROR_TRANSPORT,
                 "Not Found: the MCP endpoint is /mcp");
      return;
    }
  if (!gb_mcp_http_origin_allowed (soup_message_headers_get_one (headers, "Origin")))
    {
      set_error (msg, SOUP_STATUS_FORBIDDEN, GB_MCP_ERROR_TRANSPORT,
                 "Forbidden: Origin not allowed");
      return;
    }
  if (!gb_mcp_http_host_allowed (soup_message_headers_get_one (headers, "Host")))
    {
      set_error (msg, SOUP_STATUS_FORBIDDEN, GB_MCP_ERROR_TRANSPORT,
                 "Forbidden: Host not allowed");
      return;
    }
  if (strcmp (method, "POST") != 0 && strcmp (method, "GET") != 0 &&
      strcmp (method, "DELETE") != 0)
    {
      soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                    "Allow", "GET, POST, DELETE");
      set_error (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, GB_MCP_ERROR_TRANSPORT,
                 "Method Not Allowed");
      return;
    }
  if (soup_message_headers_get_content_length (headers) > GB_MCP_MAX_MESSAGE_SIZE)
    {
      set_error (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, GB_MCP_ERROR_TRANSPORT,
                 "Payload Too Large: a message is limited to 4 MiB");
      return;
    }
  g_signal_connect (msg, "got-chunk", G_CALLBACK (on_got_chunk), NULL);
}

static gboolean
check_protocol_header (SoupServerMessage *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *version = soup_message_headers_get_one (headers, "MCP-Protocol-Version");

  if (version != NULL && !gb_mcp_protocol_version_supported (version))
    {
      g_autofree char *text =
        g_strdup_printf ("Bad Request: unsupported MCP-Protocol-Version (supported: %s)",
                         "2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05");
      set_error (msg, SOUP_STATUS_BAD_REQUEST, GB_MCP_ERROR_TRANSPORT, text);
      return FALSE;
    }
  return TRUE;
}

static gboolean
is_json_content (SoupMessageHeaders *headers)
{
  const char *type = soup_message_headers_get_content_type (headers, NULL);
  return type != NULL && g_ascii_strcasecmp (type, "application/json") == 0;
}

static GbMcpSession *
new_session (GbMcpHttp *http,
             SoupServerMessage *msg)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  HttpSession *hs;
  GbMcpSession *session;

  expire_idle_sessions (http);
  if (g_hash_table_size (http->sessions) >= MAX_SESSIONS)
    {
      set_error (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, GB_MCP_ERROR_TRANSPORT,
                 "Service Unavailable: too many sessions");
      return NULL;
    }
  id = gg_secure_token_hex (16, &error);
  if (id == NULL)
    {
      g_warning (_("MCP over HTTP: cannot make a session id: %s"), error->message);
      set_error (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, GB_MCP_ERROR_TRANSPORT,
                 "Internal Server Error: cannot make a session id");
      return NULL;
    }
  hs = g_new0 (HttpSession, 1);
  hs->http = http;
  hs->streams = g_ptr_array_new_with_free_func ((GDestroyNotify) exchange_unref);
  hs->posts = g_ptr_array_new_with_free_func ((GDestroyNotify) exchange_unref);
  session = gb_mcp_session_new (http->server, &http_transport, hs, http_session_free);
  session->id = g_steal_pointer (&id);
  g_hash_table_insert (http->sessions, session->id, session);
  gb_mcp_server_add_session (http->server, session);
  return session;
}

static void
handle_post (GbMcpHttp         *http,
             SoupServerMessage *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  g_autoptr(GbMcpMessage) message = NULL;
  g_autoptr(JsonNode) error_response = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GbMcpSession) session = NULL;
  Exchange *exchange;
  gboolean json_ok, sse_ok, created = FALSE;

  if (!is_json_content (headers))
    {
      set_error (msg, SOUP_STATUS_UNSUPPORTED_MEDIA_TYPE, GB_MCP_ERROR_TRANSPORT,
                 "Unsupported Media Type: the body must be application/json");
      return;
    }
  gb_mcp_http_parse_accept (soup_message_headers_get_list (headers, "Accept"), &json_ok, &sse_ok);
  if (!json_ok && !sse_ok)
    {
      set_error (msg, SOUP_STATUS_NOT_ACCEPTABLE, GB_MCP_ERROR_TRANSPORT,
                 "Not Acceptable: accept application/json and text/event-stream");
      return;
    }
  if (GPOINTER_TO_SIZE (g_object_get_data (G_OBJECT (msg), "gb-mcp-size")) > GB_MCP_MAX_MESSAGE_SIZE)
    {
      set_error (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, GB_MCP_ERROR_TRANSPORT,
                 "Payload Too Large: a message is limited to 4 MiB");
      return;
    }
  if (!check_protocol_header (msg))
    return;

  bytes = soup_message_body_flatten (body);
  message = gb_mcp_message_parse (g_bytes_get_data (bytes, NULL) != NULL ?
                                  g_bytes_get_data (bytes, NULL) : "",
                                  g_bytes_get_size (bytes), &error_response);
  if (message == NULL)
    {
      set_json (msg, SOUP_STATUS_BAD_REQUEST, error_response);
      return;
    }

  if (soup_message_headers_get_one (headers, "Mcp-Session-Id") == NULL &&
      message->kind == GB_MCP_MESSAGE_REQUEST && strcmp (message->method, "initialize") == 0)
    {
      session = new_session (http, msg);
      if (session == NULL)
        return;
      gb_mcp_session_ref (session);
      created = TRUE;
    }
  else
    {
      session = lookup_session (http, msg);
      if (session == NULL)
        return;
      gb_mcp_session_ref (session);
    }

  if (message->kind != GB_MCP_MESSAGE_REQUEST)
    {
      gb_mcp_server_dispatch (http->server, session, message, NULL);
      soup_server_message_set_status (msg, SOUP_STATUS_ACCEPTED, NULL);
      return;
    }

  exchange = exchange_new (http, msg);
  exchange->sse_ok = sse_ok;
  g_ptr_array_add (((HttpSession *) session->transport_data)->posts, exchange_ref (exchange));
  if (created)
    soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                  "Mcp-Session-Id", session->id);
  gb_mcp_server_dispatch (http->server, session, message, exchange);
  if (created && !session->initialized)
    {
      /* A failed initialize leaves no session behind. */
      soup_message_headers_remove (soup_server_message_get_response_headers (msg),
                                   "Mcp-Session-Id");
      gb_mcp_session_close (session, "The session was not initialized");
    }
  exchange->in_handler = FALSE;
  if (!exchange->done)
    {
      exchange->paused = TRUE;
      soup_server_message_pause (msg);
    }
  exchange_unref (exchange);
}

static void
handle_get (GbMcpHttp         *http,
            SoupServerMessage *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  GbMcpSession *session;
  HttpSession *hs;
  Exchange *exchange;
  gboolean json_ok, sse_ok;
  static const char hello[] = ": gamegate MCP event stream\n\n";

  gb_mcp_http_parse_accept (soup_message_headers_get_list (headers, "Accept"), &json_ok, &sse_ok);
  if (!sse_ok)
    {
      set_error (msg, SOUP_STATUS_NOT_ACCEPTABLE, GB_MCP_ERROR_TRANSPORT,
                 "Not Acceptable: GET /mcp serves text/event-stream");
      return;
    }
  if (!check_protocol_header (msg))
    return;
  session = lookup_session (http, msg);
  if (session == NULL)
    return;
  session->last_activity = g_get_monotonic_time ();
  hs = session->transport_data;
  exchange = exchange_new (http, msg);
  exchange->sse_ok = TRUE;
  start_stream (exchange);
  /* A comment, so the client sees the headers at once. */
  soup_message_body_append (soup_server_message_get_response_body (msg),
                            SOUP_MEMORY_STATIC, hello, strlen (hello));
  exchange->in_handler = FALSE;
  g_ptr_array_add (hs->streams, exchange);
}

static void
handle_delete (GbMcpHttp         *http,
               SoupServerMessage *msg)
{
  GbMcpSession *session;

  if (!check_protocol_header (msg))
    return;
  session = lookup_session (http, msg);
  if (session == NULL)
    return;
  gb_mcp_session_close (session, "The client ended the session");
  soup_server_message_set_status (msg, SOUP_STATUS_NO_CONTENT, NULL);
}

static void
handler (SoupServer        *soup,
         SoupServerMessage *msg,
         const char        *path,
         GHashTable        *query,
         gpointer           user_data)
{
  GbMcpHttp *http = user_data;
  const char *method = soup_server_message_get_method (msg);

  if (http->server == NULL || gb_mcp_server_is_closed (http->server))
    {
      set_error (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, GB_MCP_ERROR_TRANSPORT,
                 "Service Unavailable: the server is shutting down");
      return;
    }
  if (strcmp (method, "POST") == 0)
    handle_post (http, msg);
  else if (strcmp (method, "GET") == 0)
    handle_get (http, msg);
  else
    handle_delete (http, msg);
}

/* ---- API ----------------------------------------------------------------- */

/**
 * gb_mcp_http_new:
 * @server: the server (not referenced; it owns the result)
 *
 * Returns: (transfer full): the HTTP transport, not listening yet
 */
GbMcpHttp *
gb_mcp_http_new (GbMcpServer *server)
{
  GbMcpHttp *http = g_new0 (GbMcpHttp, 1);

  http->server = server;
  http->sessions = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                          (GDestroyNotify) gb_mcp_session_unref);
  http->idle_us = DEFAULT_SESSION_IDLE_US;
  http->live = g_hash_table_new_full (NULL, NULL, (GDestroyNotify) exchange_unref, NULL);
  http->soup = soup_server_new ("server-header", "gamegate-mcp ", NULL);
  soup_server_add_early_handler (http->soup, NULL, early_handler, http, NULL);
  soup_server_add_handler (http->soup, NULL, handler, http, NULL);
  return http;
}

/**
 * gb_mcp_http_listen:
 * @http: the transport
 * @port: a port on 127.0.0.1, 0 for any
 * @error: where to report failure
 *
 * Returns: %TRUE once listening
 */
gboolean
gb_mcp_http_listen (GbMcpHttp *http,
                    guint      port,
                    GError   **error)
{
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GSList) listeners = NULL;
  g_autoptr(GSocketAddress) local = NULL;

  if (port > G_MAXUINT16)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "Invalid port %u", port);
      return FALSE;
    }
  address = g_inet_socket_address_new (loopback, (guint16) port);
  if (!soup_server_listen (http->soup, address, 0, error))
    return FALSE;
  listeners = soup_server_get_listeners (http->soup);
  local = listeners != NULL ? g_socket_get_local_address (listeners->data, error) : NULL;
  if (local == NULL)
    return FALSE;
  http->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local));
  return TRUE;
}

/**
 * gb_mcp_http_set_session_idle_timeout:
 * @http: the transport
 * @idle_us: how long an unused session with nothing open lives (µs)
 */
void
gb_mcp_http_set_session_idle_timeout (GbMcpHttp *http,
                                      gint64     idle_us)
{
  http->idle_us = MAX (idle_us, 0);
}

/**
 * gb_mcp_http_get_port:
 * @http: the transport
 *
 * Returns: the port listened on, 0 if none
 */
guint
gb_mcp_http_get_port (GbMcpHttp *http)
{
  return http->port;
}

/**
 * gb_mcp_http_close:
 * @http: the transport
 *
 * Stops serving: new requests get 503, and the connections are dropped once
 * the answers the server gave while closing are out (at most 2 s). The
 * server closed the sessions before.
 */
void
gb_mcp_http_close (GbMcpHttp *http)
{
  g_hash_table_remove_all (http->sessions);
  http->port = 0;
  if (http->closing)
    return;
  http->closing = TRUE;
  if (g_hash_table_size (http->live) == 0)
    soup_server_disconnect (http->soup);
  else
    http->disconnect_id = g_timeout_add_seconds (2, disconnect_cb, http);
}

/**
 * gb_mcp_http_free:
 * @http: (transfer full): the transport
 */
void
gb_mcp_http_free (GbMcpHttp *http)
{
  GHashTableIter iter;
  gpointer key;

  g_clear_handle_id (&http->disconnect_id, g_source_remove);
  g_hash_table_iter_init (&iter, http->live);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    ((Exchange *) key)->http = NULL;
  g_hash_table_unref (http->live);
  soup_server_disconnect (http->soup);
  g_hash_table_unref (http->sessions);
  g_object_unref (http->soup);
  g_free (http);
}
