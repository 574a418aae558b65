/* fuzz-mcp-http.c: raw bytes to gamegate's MCP endpoint over Streamable
 * HTTP (libsoup's request parsing, then gamegate's checks of Origin, Host,
 * Accept, session ids and bodies), over a real loopback connection to the
 * server in this process. The input is what the client writes; the
 * connection is then half-closed and the answer read to its end.
 *
 * libsoup 3.2.3 leaks a few bytes in soup_headers_parse_request() for a
 * request with `Content-Length: abc` (the content-length-abc seed):
 * tests/tools/lsan.supp names that function, and matching it needs whole
 * allocation stacks, hence fast_unwind_on_malloc=0 below.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "fuzz-game.h"
#include "gb-bridge.h"
#include "gb-mcp-server.h"
#include "gb-tools.h"

const char *__asan_default_options (void);
const char *
__asan_default_options (void)
{
  return "fast_unwind_on_malloc=0";
}

typedef struct {
  GSocketConnection *connection;
  GBytes *request;
  guint8 buffer[4096];
  GString *answer;
  gboolean done;
} Exchange;

static GbMcpServer *
server (void)
{
  static GbMcpServer *mcp;

  if (mcp == NULL)
    {
      g_autoptr(GError) error = NULL;
      GgBus *bus = gg_bus_new ();
      FuzzGame *game = fuzz_game_new ("fuzz:game");
      GbOptions options = { 0 };
      GbBridge *bridge;

      g_assert_true (gg_bus_add_target (bus, GG_TARGET (game), NULL));
      /* Port 1: nobody's game (nothing listens there, refused at once). */
      options.port = 1;
      options.no_scan = TRUE;
      options.no_registry = TRUE;
      options.timeout_ms = 200;
      options.config = (char *) "/nonexistent/gamebridge.json";
      bridge = gb_bridge_new (bus, &options, &error);
      g_assert_no_error (error);
      mcp = gb_mcp_server_new ("gamegate", PACKAGE_VERSION, "fuzz", gb_tools_provider (), bridge);
      bridge->server = mcp;
      if (!gb_mcp_server_listen_http (mcp, 0, &error))
        g_error ("the MCP endpoint cannot listen: %s", error->message);
    }
  return mcp;
}

/* Whether @answer holds a whole response (the connection stays open). */
static gboolean
answer_complete (GString *answer)
{
  const char *end = strstr (answer->str, "\r\n\r\n");
  g_autofree char *head = NULL;
  const char *length;
  gsize body;

  if (end == NULL)
    return FALSE;
  head = g_ascii_strdown (answer->str, end - answer->str);
  body = answer->len - (gsize) (end + 4 - answer->str);
  if (strstr (head, "text/event-stream") != NULL)
    return TRUE;   /* a stream: its start is the answer */
  if (strstr (head, "transfer-encoding: chunked") != NULL)
    return g_str_has_suffix (answer->str, "\r\n0\r\n\r\n");
  length = strstr (head, "content-length:");
  if (length == NULL)
    return TRUE;
  return body >= g_ascii_strtoull (length + 15, NULL, 10);
}

static void
read_done (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Exchange *x = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);

  if (n <= 0)
    {
      x->done = TRUE;
      return;
    }
  g_string_append_len (x->answer, (const char *) x->buffer, n);
  if (answer_complete (x->answer))
    {
      x->done = TRUE;
      return;
    }
  g_input_stream_read_async (G_INPUT_STREAM (source), x->buffer, sizeof x->buffer, G_PRIORITY_DEFAULT,
                             NULL, read_done, x);
}

static void
write_done (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Exchange *x = user_data;
  GInputStream *in = g_io_stream_get_input_stream (G_IO_STREAM (x->connection));

  (void) g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, NULL);
  /* Half-close: the request is all there is. */
  g_socket_shutdown (g_socket_connection_get_socket (x->connection), FALSE, TRUE, NULL);
  g_input_stream_read_async (in, x->buffer, sizeof x->buffer, G_PRIORITY_DEFAULT, NULL, read_done, x);
}

static void
connected (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Exchange *x = user_data;
  g_autoptr(GError) error = NULL;
  GOutputStream *out;

  x->connection = g_socket_client_connect_finish (G_SOCKET_CLIENT (source), result, &error);
  if (x->connection == NULL)
    g_error ("cannot reach the MCP endpoint: %s", error->message);
  out = g_io_stream_get_output_stream (G_IO_STREAM (x->connection));
  g_output_stream_write_all_async (out, g_bytes_get_data (x->request, NULL), g_bytes_get_size (x->request),
                                   G_PRIORITY_DEFAULT, NULL, write_done, x);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GSocketClient) client = NULL;
  g_autoptr(GInetAddress) loopback = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  Exchange x = { NULL, NULL, { 0 }, NULL, FALSE };
  guint port;

  fuzz_init ();
  port = gb_mcp_server_get_http_port (server ());
  x.request = g_bytes_new (data, size);
  x.answer = g_string_new (NULL);
  client = g_socket_client_new ();
  loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  address = g_inet_socket_address_new (loopback, (guint16) port);
  g_socket_client_connect_async (client, G_SOCKET_CONNECTABLE (address), NULL, connected, &x);
  /* An answer may wait on a call to a game: bounded by its timeout. */
  fuzz_wait_until (&x.done, 2000);
  if (x.answer->len > 0 && !g_str_has_prefix (x.answer->str, "HTTP/1."))
    g_error ("the endpoint answered something that is not HTTP: %.40s", x.answer->str);
  if (g_strcmp0 (g_getenv ("FUZZ_DUMP"), "1") == 0)
    g_printerr ("%s\n", x.answer->str);
  if (x.connection != NULL)
    g_io_stream_close (G_IO_STREAM (x.connection), NULL, NULL);
  g_clear_object (&x.connection);
  fuzz_drain ();
  g_bytes_unref (x.request);
  g_string_free (x.answer, TRUE);
  return 0;
}
