/* gb-mcp-http-exchange.c: the HTTP side of an MCP session over Streamable
 * HTTP: its exchanges (a POST waiting for its answer, a GET carrying an SSE
 * stream), how messages reach them as JSON or as SSE events kept for a
 * resume (gb-mcp-event-store.c), and the session's GbMcpTransport. The
 * endpoint, its handlers and the session table are gb-mcp-http.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "gb-mcp-http-private.h"

/* The first revision with resumable streams (priming events). */
#define RESUMABLE_PROTOCOL_VERSION "2025-11-25"

static void on_exchange_finished (SoupServerMessage *msg,
                                  gpointer           user_data);

Exchange *
gb_mcp_http_exchange_new (GbMcpHttp         *http,
                          SoupServerMessage *msg)
{
  Exchange *exchange = g_new0 (Exchange, 1);

  g_ref_count_init (&exchange->ref_count);
  exchange->http = http;
  exchange->msg = g_object_ref (msg);
  exchange->in_handler = TRUE;
  /* Kept until libsoup is done with the message, so closing can wait. */
  g_hash_table_add (http->live, gb_mcp_http_exchange_ref (exchange));
  g_signal_connect (msg, "finished", G_CALLBACK (on_exchange_finished), exchange);
  return exchange;
}

Exchange *
gb_mcp_http_exchange_ref (Exchange *exchange)
{
  g_ref_count_inc (&exchange->ref_count);
  return exchange;
}

/* The connection no longer carries its stream. */
static void
exchange_release_stream (Exchange *exchange)
{
  if (exchange->stream != NULL && gb_mcp_event_stream_get_sink (exchange->stream) == exchange)
    gb_mcp_event_stream_set_sink (exchange->stream, NULL);
}

static void
exchange_unwatch (Exchange *exchange)
{
  if (exchange->hangup != NULL)
    {
      g_source_destroy (exchange->hangup);
      g_clear_pointer (&exchange->hangup, g_source_unref);
    }
}

void
gb_mcp_http_exchange_unref (Exchange *exchange)
{
  if (!g_ref_count_dec (&exchange->ref_count))
    return;
  exchange_unwatch (exchange);
  exchange_release_stream (exchange);
  g_clear_pointer (&exchange->stream, gb_mcp_event_stream_unref);
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

/* A client that closes its side of a streaming answer has gone: libsoup
 * reads nothing while it writes, so it would learn of it only from a
 * failed write, and the connection of every agent that left without a
 * word would stay open until its session ends. The stream itself stays,
 * for a resume. */
static gboolean
on_hangup (GSocket      *socket,
           GIOCondition  condition,
           gpointer      user_data)
{
  Exchange *exchange = user_data;
  char byte;
  gssize n = recv (g_socket_get_fd (socket), &byte, 1, MSG_PEEK | MSG_DONTWAIT);

  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
    return G_SOURCE_CONTINUE;
  g_clear_pointer (&exchange->hangup, g_source_unref);
  /* n > 0: the client sends more (nothing this endpoint expects); that is
   * libsoup's to read once the answer is done. */
  if (n <= 0)
    {
      g_debug ("MCP HTTP: the client closed a streaming answer");
      gb_mcp_http_exchange_end (exchange);
    }
  return G_SOURCE_REMOVE;
}

static void
exchange_watch (Exchange *exchange)
{
  GSocketAddress *remote = soup_server_message_get_remote_address (exchange->msg);
  GSocketConnection *connection = remote != NULL ?
                                  g_object_get_data (G_OBJECT (remote), GB_MCP_HTTP_CONNECTION_KEY) : NULL;

  if (connection == NULL || exchange->hangup != NULL)
    return;
  exchange->hangup = g_socket_create_source (g_socket_connection_get_socket (connection),
                                             G_IO_IN | G_IO_HUP | G_IO_ERR, NULL);
  g_source_set_callback (exchange->hangup, G_SOURCE_FUNC (on_hangup), exchange, NULL);
  g_source_attach (exchange->hangup, NULL);
}

void
gb_mcp_http_exchange_start_sse (Exchange *exchange)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (exchange->msg);

  soup_server_message_set_status (exchange->msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_headers_replace (headers, "Content-Type", "text/event-stream");
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  exchange->streaming = TRUE;
  exchange_watch (exchange);
}

void
gb_mcp_http_exchange_append (Exchange   *exchange,
                             const char *text,
                             gsize       length)
{
  SoupMessageBody *body = soup_server_message_get_response_body (exchange->msg);

  soup_message_body_append (body, SOUP_MEMORY_COPY, text, length);
  exchange_push (exchange);
}

/* Ends the SSE answer of a connection (not the stream it carried). */
void
gb_mcp_http_exchange_end (Exchange *exchange)
{
  exchange_release_stream (exchange);
  exchange_unwatch (exchange);
  if (exchange->done)
    return;
  soup_message_body_complete (soup_server_message_get_response_body (exchange->msg));
  exchange->done = TRUE;
  exchange_push (exchange);
}

void
gb_mcp_http_set_json (SoupServerMessage *msg,
                      guint              status,
                      JsonNode          *message)
{
  g_autofree char *text = gg_json_to_string (message);
  gsize length = strlen (text);

  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE,
                                    g_steal_pointer (&text), length);
}

static void
on_exchange_finished (SoupServerMessage *msg,
                      gpointer           user_data)
{
  Exchange *exchange = user_data;
  GbMcpHttp *http = exchange->http;

  /* Whatever we had still to say cannot be said on it any more; a stream
   * keeps its events for the client's resume. */
  exchange->done = TRUE;
  exchange_release_stream (exchange);
  exchange_unwatch (exchange);
  if (http == NULL)
    return;
  exchange->http = NULL;
  gb_mcp_http_forget_exchange (http, exchange);   /* may free it */
}

/* ---- streams ------------------------------------------------------------- */

gboolean
gb_mcp_http_session_resumable (GbMcpSession *session)
{
  return g_strcmp0 (session->protocol_version, RESUMABLE_PROTOCOL_VERSION) >= 0;
}

/* Keeps @message as @stream's next event and sends it on the connection
 * carrying the stream, if there is one. */
static void
stream_emit (GbMcpEventStream *stream,
             JsonNode         *message)
{
  g_autofree char *data = gg_json_to_string (message);
  g_autofree char *event = gb_mcp_event_stream_add (stream, data);
  Exchange *sink = gb_mcp_event_stream_get_sink (stream);

  if (sink != NULL && !sink->done)
    gb_mcp_http_exchange_append (sink, event, strlen (event));
}

/* The priming event, for clients that can resume. */
void
gb_mcp_http_stream_prime (GbMcpSession *session,
                          Exchange     *exchange)
{
  HttpSession *hs = session->transport_data;
  g_autofree char *event = NULL;

  if (!gb_mcp_http_session_resumable (session) || hs->http == NULL)
    return;
  event = gb_mcp_event_stream_prime (exchange->stream, hs->http->settings.retry_ms);
  gb_mcp_http_exchange_append (exchange, event, strlen (event));
}

/* @exchange's request answers on a stream of its own from now on. */
void
gb_mcp_http_open_request_stream (GbMcpSession *session,
                                 Exchange     *exchange)
{
  HttpSession *hs = session->transport_data;

  exchange->stream = gb_mcp_event_stream_ref (gb_mcp_event_store_open (hs->store, FALSE));
  gb_mcp_event_stream_set_sink (exchange->stream, exchange);
  gb_mcp_http_exchange_start_sse (exchange);
  gb_mcp_http_stream_prime (session, exchange);
}

/* ---- the transport ------------------------------------------------------- */

static void
http_send (GbMcpSession *session,
           gpointer      exchange_ptr,
           JsonNode     *message)
{
  HttpSession *hs = session->transport_data;
  Exchange *exchange = exchange_ptr;
  GbMcpEventStream *stream;

  if (exchange != NULL && exchange->sse_ok && (exchange->stream != NULL || !exchange->done))
    {
      if (exchange->stream == NULL)
        gb_mcp_http_open_request_stream (session, exchange);
      stream_emit (exchange->stream, message);
      return;
    }
  /* Not tied to a request, or its client takes JSON only: the GET stream,
   * if the client opened one; otherwise the message is dropped. */
  stream = gb_mcp_event_store_standalone (hs->store);
  if (stream != NULL)
    stream_emit (stream, message);
}

static void
http_finish (GbMcpSession *session,
             gpointer      exchange_ptr,
             JsonNode     *response)
{
  HttpSession *hs = session->transport_data;
  Exchange *exchange = exchange_ptr;

  g_return_if_fail (exchange != NULL);

  if (hs->http != NULL)
    gb_mcp_session_table_touch (hs->http->sessions, session);
  if (exchange->stream != NULL)
    {
      /* Kept with the stream: a client that lost the connection gets it on
       * resuming. No response (cancelled) just ends the stream. */
      Exchange *sink;

      if (response != NULL)
        stream_emit (exchange->stream, response);
      gb_mcp_event_stream_finish (exchange->stream);
      sink = gb_mcp_event_stream_get_sink (exchange->stream);
      if (sink != NULL)
        gb_mcp_http_exchange_end (sink);
    }
  else if (!exchange->done)
    {
      if (response != NULL)
        gb_mcp_http_set_json (exchange->msg, SOUP_STATUS_OK, response);
      else
        soup_server_message_set_status (exchange->msg, SOUP_STATUS_ACCEPTED, NULL);
      exchange->done = TRUE;
      exchange_push (exchange);
    }
  if (g_ptr_array_remove (hs->posts, exchange) == FALSE)
    g_debug ("MCP HTTP: answer for an unknown exchange");
}

static void
http_close (GbMcpSession *session)
{
  HttpSession *hs = session->transport_data;
  GbMcpHttp *http = hs->http;

  while (hs->gets->len > 0)
    {
      gb_mcp_http_exchange_end (hs->gets->pdata[0]);
      g_ptr_array_remove_index (hs->gets, 0);
    }
  /* Calls were answered before; a POST still open is one being dispatched. */
  if (http != NULL && session->id != NULL)
    gb_mcp_session_table_remove (http->sessions, session);
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

  g_ptr_array_unref (hs->gets);
  g_ptr_array_unref (hs->posts);
  gb_mcp_event_store_free (hs->store);
  g_free (hs);
}

/**
 * gb_mcp_http_session_new:
 * @http: the transport
 * @id: (transfer full): its Mcp-Session-Id
 *
 * Returns: (transfer full): a new session of @http's server, with the HTTP
 *   transport and an event store of its own
 */
GbMcpSession *
gb_mcp_http_session_new (GbMcpHttp *http,
                         char      *id)
{
  HttpSession *hs = g_new0 (HttpSession, 1);
  GbMcpSession *session;

  hs->http = http;
  hs->store = gb_mcp_event_store_new (http->settings.replay_events);
  hs->gets = g_ptr_array_new_with_free_func ((GDestroyNotify) gb_mcp_http_exchange_unref);
  hs->posts = g_ptr_array_new_with_free_func ((GDestroyNotify) gb_mcp_http_exchange_unref);
  session = gb_mcp_session_new (http->server, &http_transport, hs, http_session_free);
  session->id = id;
  return session;
}
