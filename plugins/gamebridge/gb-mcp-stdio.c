/* gb-mcp-stdio.c: the stdio transport: one client, one JSON-RPC message per
 * line on a pair of streams (GgFramedStream). Every message, answer or
 * notification, goes out on the one output in order.
 *
 * The JSON-RPC checks are gb-mcp-message.c's, shared with HTTP, rather than
 * GgJsonRpcPeer's: a cancelled MCP request must get no response at all,
 * while GgJsonRpcPeer answers every request it dispatched.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-mcp-private.h"

typedef struct {
  GbMcpServer    *server;        /* not owned: the server outlives its sessions' use */
  GbMcpSession   *session;       /* not owned: it owns us */
  GgFramedStream *stream;
  GIOStream      *io;
  gboolean        input_closed;
  gboolean        gone;          /* client-gone is on its way */
} Stdio;

static void
stdio_free (gpointer data)
{
  Stdio *stdio = data;

  g_signal_handlers_disconnect_by_data (stdio->stream, stdio);
  g_object_unref (stdio->stream);
  g_object_unref (stdio->io);
  g_free (stdio);
}

static void
write_message (Stdio    *stdio,
               JsonNode *message)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = gg_json_to_string (message);

  if (!gg_framed_stream_send (stdio->stream, text, strlen (text), &error))
    g_debug ("MCP stdio: cannot send: %s", error->message);
}

static void
flush_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GbMcpSession) session = user_data;
  g_autoptr(GError) error = NULL;
  GbMcpServer *server = session->server;

  if (!gg_framed_stream_flush_finish (GG_FRAMED_STREAM (source), result, &error))
    g_debug ("MCP stdio: flush failed: %s", error->message);
  if (server == NULL)
    return;
  g_object_ref (server);
  gb_mcp_session_close (session, "The client went away");
  gb_mcp_server_emit_client_gone (server);
  g_object_unref (server);
}

/* At end of input, once the last call is answered and written out, the
 * client is gone. */
static void
maybe_gone (GbMcpSession *session)
{
  Stdio *stdio = session->transport_data;

  if (!stdio->input_closed || stdio->gone || session->closed ||
      g_hash_table_size (session->calls) > 0)
    return;
  stdio->gone = TRUE;
  gg_framed_stream_flush_async (stdio->stream, NULL, flush_done_cb, gb_mcp_session_ref (session));
}

static void
stdio_send (GbMcpSession *session,
            gpointer      exchange,
            JsonNode     *message)
{
  write_message (session->transport_data, message);
}

static void
stdio_finish (GbMcpSession *session,
              gpointer      exchange,
              JsonNode     *response)
{
  if (response != NULL && !session->closed)
    write_message (session->transport_data, response);
  maybe_gone (session);
}

typedef struct {
  GgFramedStream *stream;
  GIOStream      *io;
  guint           ticks;
} Closing;

static void
closing_free (gpointer data)
{
  Closing *closing = data;

  g_object_unref (closing->stream);
  g_object_unref (closing->io);
  g_free (closing);
}

/* The framed stream closes the streams itself once its cancelled read has
 * come back and the output is written; it must live until then, after the
 * session that owned it is gone. Bounded: a stuck write is given up. */
static gboolean
closing_tick (gpointer data)
{
  Closing *closing = data;

  if (g_io_stream_is_closed (closing->io) || ++closing->ticks > 500)
    return G_SOURCE_REMOVE;
  return G_SOURCE_CONTINUE;
}

static void
stdio_close (GbMcpSession *session)
{
  Stdio *stdio = session->transport_data;
  Closing *closing = g_new0 (Closing, 1);

  /* Writes what is queued, then closes both directions. */
  gg_framed_stream_close (stdio->stream);
  closing->stream = g_object_ref (stdio->stream);
  closing->io = g_object_ref (stdio->io);
  g_timeout_add_full (G_PRIORITY_DEFAULT, 10, closing_tick, closing, closing_free);
}

static const GbMcpTransport stdio_transport = {
  stdio_send,
  stdio_finish,
  stdio_close,
};

static void
on_message (GgFramedStream *stream,
            GBytes         *body,
            gpointer        user_data)
{
  Stdio *stdio = user_data;
  g_autoptr(GbMcpSession) session = gb_mcp_session_ref (stdio->session);
  g_autoptr(GbMcpMessage) message = NULL;
  g_autoptr(JsonNode) error_response = NULL;
  gsize length;
  const char *data = g_bytes_get_data (body, &length);

  if (session->closed || session->server == NULL)
    return;
  message = gb_mcp_message_parse (data != NULL ? data : "", length, &error_response);
  if (message == NULL)
    {
      write_message (stdio, error_response);
      return;
    }
  gb_mcp_server_dispatch (session->server, session, message, NULL);
}

static void
on_framing_error (GgFramedStream *stream,
                  const GError   *error,
                  gpointer        user_data)
{
  Stdio *stdio = user_data;

  g_debug ("MCP stdio: %s", error->message);
  /* The sender of an oversized request would otherwise wait forever. */
  if (g_error_matches (error, GG_FRAMING_ERROR, GG_FRAMING_ERROR_TOO_LARGE))
    {
      g_autoptr(JsonNode) response =
        gb_mcp_message_new_error (NULL, GG_JSONRPC_INVALID_REQUEST,
                                  "Invalid Request: message exceeds the maximum size");
      write_message (stdio, response);
    }
}

static void
on_closed (GgFramedStream *stream,
           const GError   *error,
           gpointer        user_data)
{
  Stdio *stdio = user_data;
  g_autoptr(GbMcpSession) session = gb_mcp_session_ref (stdio->session);

  if (error != NULL)
    g_debug ("MCP stdio: input failed: %s", error->message);
  stdio->input_closed = TRUE;
  maybe_gone (session);
}

/**
 * gb_mcp_stdio_start:
 * @server: the server
 * @io: the client's streams
 *
 * Starts serving one client on @io; the session joins @server.
 *
 * Returns: (transfer full): the session
 */
GbMcpSession *
gb_mcp_stdio_start (GbMcpServer *server,
                    GIOStream   *io)
{
  Stdio *stdio = g_new0 (Stdio, 1);
  GbMcpSession *session;

  stdio->server = server;
  stdio->io = g_object_ref (io);
  stdio->stream = gg_framed_stream_new_for_io_stream (io, GG_FRAMING_NEWLINE);
  gg_framed_stream_set_max_message_size (stdio->stream, GB_MCP_MAX_MESSAGE_SIZE);
  session = gb_mcp_session_new (server, &stdio_transport, stdio, stdio_free);
  stdio->session = session;
  g_signal_connect (stdio->stream, "message", G_CALLBACK (on_message), stdio);
  g_signal_connect (stdio->stream, "framing-error", G_CALLBACK (on_framing_error), stdio);
  g_signal_connect (stdio->stream, "closed", G_CALLBACK (on_closed), stdio);
  gb_mcp_server_add_session (server, session);
  gg_framed_stream_start (stdio->stream);
  return session;
}
