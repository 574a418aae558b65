/* gb-mcp-http.c: the Streamable HTTP transport (MCP 2025-11-25) on libsoup 3:
 * one endpoint `/mcp` on 127.0.0.1, sessions named by `Mcp-Session-Id`.
 *
 * POST carries one JSON-RPC message. A request answered at once is answered
 * as application/json. One still running when its handler returns, or one
 * that sends progress or log notifications, gets an SSE stream (when the
 * client accepts text/event-stream): for a 2025-11-25 client it opens with a
 * priming event (an id, `retry`, empty data), so that a client whose
 * connection drops resumes it with GET and Last-Event-ID and gets what it
 * missed, the response included (gb-mcp-event-store.c). A dropped
 * connection never cancels the request. GET opens an SSE stream for
 * messages not tied to a request, or resumes one; DELETE ends the session.
 *
 * The session table is bounded (GbMcpHttpSettings.max_sessions): a new
 * client at a full table ends the least recently used session with no
 * request in flight, whose client then gets 404 and initializes again.
 * Header-only checks (path, Origin, method, size) run before the body is
 * read. Browsers are kept out by Origin and Host (DNS rebinding). The
 * transport accepts its connections itself, one request each (libsoup 3.2
 * leaks the ones its own listener accepts: see on_incoming()).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <netinet/tcp.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <libsoup/soup.h>

#include "gb-mcp-http-private.h"

/* Sessions nobody used for this long, with nothing open, are forgotten. */
#define DEFAULT_SESSION_IDLE_US (G_TIME_SPAN_HOUR)

/* An HTTP-level failure, with a JSON-RPC error body as clients expect. */
static void
set_error (SoupServerMessage *msg,
           guint              status,
           int                code,
           const char        *text)
{
  g_autoptr(JsonNode) error = gb_mcp_message_new_error (NULL, code, text);
  gb_mcp_http_set_json (msg, status, error);
}

/* Stops listening and drops every connection. */
static void
disconnect (GbMcpHttp *http)
{
  if (http->service != NULL)
    {
      g_socket_service_stop (http->service);
      g_socket_listener_close (G_SOCKET_LISTENER (http->service));
    }
  soup_server_disconnect (http->soup);
}

static gboolean
disconnect_cb (gpointer user_data)
{
  GbMcpHttp *http = user_data;

  http->disconnect_id = 0;
  disconnect (http);
  return G_SOURCE_REMOVE;
}

/**
 * gb_mcp_http_forget_exchange:
 * @http: the transport
 * @exchange: one whose HTTP message libsoup finished
 */
void
gb_mcp_http_forget_exchange (GbMcpHttp *http,
                             Exchange  *exchange)
{
  g_hash_table_remove (http->live, exchange);   /* may free it */
  /* Closing waited for the last answer to go out. */
  if (http->closing && g_hash_table_size (http->live) == 0)
    {
      g_clear_handle_id (&http->disconnect_id, g_source_remove);
      http->disconnect_id = g_idle_add (disconnect_cb, http);
    }
}

/* ---- the session table --------------------------------------------------- */

static gboolean
has_request_in_flight (GbMcpSession *session)
{
  HttpSession *hs = session->transport_data;

  return hs->posts->len > 0 || g_hash_table_size (session->calls) > 0;
}

static gboolean
has_open_get (GbMcpSession *session)
{
  HttpSession *hs = session->transport_data;

  for (guint i = hs->gets->len; i > 0; i--)
    {
      Exchange *exchange = hs->gets->pdata[i - 1];

      if (!exchange->done)
        return TRUE;
      g_ptr_array_remove_index (hs->gets, i - 1);
    }
  return FALSE;
}

static gboolean
may_expire (GbMcpSession *session)
{
  return !has_request_in_flight (session) && !has_open_get (session);
}

/* Its client will get 404 and initialize again; a request in flight would
 * lose its answer. */
static gboolean
may_evict (GbMcpSession *session)
{
  return !has_request_in_flight (session);
}

static void
expire_idle_sessions (GbMcpHttp *http)
{
  g_autoptr(GPtrArray) idle = gb_mcp_session_table_expired (http->sessions, http->idle_us, may_expire);

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
  session = gb_mcp_session_table_lookup (http->sessions, id);
  if (session == NULL)
    {
      set_error (msg, SOUP_STATUS_NOT_FOUND, GB_MCP_ERROR_TRANSPORT,
                 "Not Found: unknown or expired session; initialize a new one");
      return NULL;
    }
  gb_mcp_session_table_touch (http->sessions, session);
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

  /* A connection handed over as a stream serves one request: a SoupServer
   * keeps one alive only if it has a listener of its own (see on_incoming).
   * Said, so that no client sends a second request into a closing one. */
  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Connection", "close");
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
  GbMcpSession *session;

  expire_idle_sessions (http);
  if (gb_mcp_session_table_size (http->sessions) >= http->settings.max_sessions)
    {
      /* Clients that leave without DELETE must not lock the others out. */
      GbMcpSession *oldest = gb_mcp_session_table_least_recent (http->sessions, may_evict);

      if (oldest == NULL)
        {
          g_autofree char *text =
            g_strdup_printf ("Service Unavailable: too many sessions (the limit is %u, "
                             "each with a request in flight)", http->settings.max_sessions);
          set_error (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, GB_MCP_ERROR_TRANSPORT, text);
          return NULL;
        }
      g_debug ("MCP HTTP: %u sessions, the least recently used one ends for a new client",
               gb_mcp_session_table_size (http->sessions));
      gb_mcp_session_close (oldest, "The session ended for a new client");
    }
  id = gg_secure_token_hex (16, &error);
  if (id == NULL)
    {
      g_warning (_("MCP over HTTP: cannot make a session id: %s"), error->message);
      set_error (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, GB_MCP_ERROR_TRANSPORT,
                 "Internal Server Error: cannot make a session id");
      return NULL;
    }
  session = gb_mcp_http_session_new (http, g_steal_pointer (&id));
  gb_mcp_session_table_add (http->sessions, session);
  gb_mcp_server_add_session (http->server, session);
  /* The table and the server hold it now. */
  gb_mcp_session_unref (session);
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
      gb_mcp_http_set_json (msg, SOUP_STATUS_BAD_REQUEST, error_response);
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

  exchange = gb_mcp_http_exchange_new (http, msg);
  exchange->sse_ok = sse_ok;
  g_ptr_array_add (((HttpSession *) session->transport_data)->posts, gb_mcp_http_exchange_ref (exchange));
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
  /* Still running: a stream the client can resume, should the connection
   * drop before the answer. */
  if (!exchange->done && exchange->stream == NULL && exchange->sse_ok && !session->closed &&
      gb_mcp_http_session_resumable (session))
    gb_mcp_http_open_request_stream (session, exchange);
  exchange->in_handler = FALSE;
  /* A JSON answer waits paused; a stream goes out as it is written. */
  if (!exchange->done && !exchange->streaming)
    {
      exchange->paused = TRUE;
      soup_server_message_pause (msg);
    }
  gb_mcp_http_exchange_unref (exchange);
}

/* The stream a Last-Event-ID names, with what it sent after that event in
 * @replay; sets the HTTP error when it cannot go on from there. */
static GbMcpEventStream *
find_resumed_stream (HttpSession       *hs,
                     SoupServerMessage *msg,
                     const char        *last_event_id,
                     GString           *replay)
{
  GbMcpEventStream *stream = NULL;
  g_autofree char *text = NULL;

  switch (gb_mcp_event_store_resume (hs->store, last_event_id, &stream, replay))
    {
    case GB_MCP_EVENT_RESUME_OK:
      return stream;
    case GB_MCP_EVENT_RESUME_MALFORMED:
      set_error (msg, SOUP_STATUS_BAD_REQUEST, GB_MCP_ERROR_TRANSPORT,
                 "Bad Request: Last-Event-ID is not an event id of this server");
      return NULL;
    case GB_MCP_EVENT_RESUME_UNKNOWN:
      text = g_strdup_printf ("Bad Request: Last-Event-ID %s names no event of this session",
                              last_event_id);
      set_error (msg, SOUP_STATUS_BAD_REQUEST, GB_MCP_ERROR_TRANSPORT, text);
      return NULL;
    case GB_MCP_EVENT_RESUME_GONE_STREAM:
      text = g_strdup_printf ("Gone: the stream of Last-Event-ID %s is no longer kept", last_event_id);
      set_error (msg, SOUP_STATUS_GONE, GB_MCP_ERROR_TRANSPORT, text);
      return NULL;
    case GB_MCP_EVENT_RESUME_GONE_EVENTS:
    default:
      text = g_strdup_printf ("Gone: the events after Last-Event-ID %s are no longer kept "
                              "(a stream keeps its last %u; [gamebridge] sse-replay-events)",
                              last_event_id, gb_mcp_event_store_get_max_events (hs->store));
      set_error (msg, SOUP_STATUS_GONE, GB_MCP_ERROR_TRANSPORT, text);
      return NULL;
    }
}

static void
handle_get (GbMcpHttp         *http,
            SoupServerMessage *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *last_event_id = soup_message_headers_get_one (headers, "Last-Event-ID");
  g_autoptr(GString) replay = g_string_new (NULL);
  GbMcpEventStream *stream;
  GbMcpSession *session;
  HttpSession *hs;
  Exchange *exchange, *previous;
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
  hs = session->transport_data;
  if (last_event_id != NULL)
    {
      stream = find_resumed_stream (hs, msg, last_event_id, replay);
      if (stream == NULL)
        return;
      /* A connection we still think carries it is one the client gave up:
       * each message goes out on one connection only. */
      previous = gb_mcp_event_stream_get_sink (stream);
      if (previous != NULL)
        gb_mcp_http_exchange_end (previous);
    }
  else
    stream = gb_mcp_event_store_open (hs->store, TRUE);

  exchange = gb_mcp_http_exchange_new (http, msg);
  exchange->sse_ok = TRUE;
  exchange->stream = gb_mcp_event_stream_ref (stream);
  gb_mcp_event_stream_set_sink (stream, exchange);
  gb_mcp_http_exchange_start_sse (exchange);
  if (last_event_id == NULL)
    /* A comment, so the client sees the headers at once. */
    gb_mcp_http_exchange_append (exchange, hello, strlen (hello));
  if (replay->len > 0)
    gb_mcp_http_exchange_append (exchange, replay->str, replay->len);
  if (gb_mcp_event_stream_is_finished (stream))
    gb_mcp_http_exchange_end (exchange);
  else
    gb_mcp_http_stream_prime (session, exchange);
  exchange->in_handler = FALSE;
  g_ptr_array_add (hs->gets, exchange);
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

/* libsoup 3.2's own listener (soup_server_listen()) leaks every connection
 * it accepts: the socket always, and all of it when the client closes a
 * kept-alive connection while it is idle (fixed in libsoup 3.3, commit
 * d20c6601). Clients that come and go, as agents do, would grow the daemon
 * and then run it out of file descriptors. Connections handed over as
 * streams are released, so the transport accepts them itself; the price is
 * one connection per request (a SoupServer without a listener keeps none
 * alive), a TCP handshake on loopback. */
static gboolean
on_incoming (GSocketService    *service,
             GSocketConnection *connection,
             GObject           *source_object,
             gpointer           user_data)
{
  GbMcpHttp *http = user_data;
  GSocket *socket = g_socket_connection_get_socket (connection);
  g_autoptr(GSocketAddress) local = g_socket_get_local_address (socket, NULL);
  g_autoptr(GSocketAddress) remote = g_socket_get_remote_address (socket, NULL);

  /* As libsoup's listener does: SSE events go out as they are written. */
  g_socket_set_option (socket, IPPROTO_TCP, TCP_NODELAY, TRUE, NULL);
  /* For the exchanges, to notice a client that hangs up (libsoup keeps
   * the address as long as the connection). */
  if (remote != NULL)
    g_object_set_data_full (G_OBJECT (remote), GB_MCP_HTTP_CONNECTION_KEY, g_object_ref (connection),
                            g_object_unref);
  if (http->closing || local == NULL || remote == NULL ||
      !soup_server_accept_iostream (http->soup, G_IO_STREAM (connection), local, remote, NULL))
    g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  return TRUE;
}

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
  http->sessions = gb_mcp_session_table_new ();
  http->settings = (GbMcpHttpSettings) { GB_MCP_HTTP_DEFAULT_MAX_SESSIONS, GB_MCP_HTTP_DEFAULT_REPLAY_EVENTS,
                                         GB_MCP_HTTP_DEFAULT_RETRY_MS };
  http->idle_us = DEFAULT_SESSION_IDLE_US;
  http->live = g_hash_table_new_full (NULL, NULL, (GDestroyNotify) gb_mcp_http_exchange_unref, NULL);
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
gb_mcp_http_listen (GbMcpHttp  *http,
                    guint       port,
                    GError    **error)
{
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GSocketAddress) local = NULL;
  g_autoptr(GSocketService) service = NULL;

  if (port > G_MAXUINT16)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "Invalid port %u", port);
      return FALSE;
    }
  if (http->service != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS, "Already listening on port %u", http->port);
      return FALSE;
    }
  address = g_inet_socket_address_new (loopback, (guint16) port);
  service = g_socket_service_new ();
  /* libsoup's own listener takes the system's largest backlog too. */
  g_socket_listener_set_backlog (G_SOCKET_LISTENER (service), SOMAXCONN);
  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (service), address, G_SOCKET_TYPE_STREAM,
                                      G_SOCKET_PROTOCOL_TCP, NULL, &local, error))
    return FALSE;
  http->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local));
  g_signal_connect (service, "incoming", G_CALLBACK (on_incoming), http);
  g_socket_service_start (service);
  http->service = g_steal_pointer (&service);
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
 * gb_mcp_http_set_settings:
 * @http: the transport
 * @settings: its limits (copied)
 *
 * A smaller session limit takes effect with the next new client; a session
 * keeps the replay limit it started with.
 */
void
gb_mcp_http_set_settings (GbMcpHttp               *http,
                          const GbMcpHttpSettings *settings)
{
  http->settings = *settings;
  http->settings.max_sessions = MAX (http->settings.max_sessions, 1);
  http->settings.replay_events = MAX (http->settings.replay_events, 1);
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
  gb_mcp_session_table_remove_all (http->sessions);
  http->port = 0;
  if (http->closing)
    return;
  http->closing = TRUE;
  if (g_hash_table_size (http->live) == 0)
    disconnect (http);
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
  disconnect (http);
  g_clear_object (&http->service);
  gb_mcp_session_table_free (http->sessions);
  g_object_unref (http->soup);
  g_free (http);
}
