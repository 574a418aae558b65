/* test-mcp-stdio.c: the MCP server over its stdio transport, driven in
 * process through a socketpair, one JSON-RPC message per line.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <sys/socket.h>

#include "gb-mcp-server.h"
#include "gg-test-util.h"
#include "mcp-fake-provider.h"

typedef struct {
  FakeProvider    fake;
  GbMcpServer    *server;
  GIOStream      *server_io;
  GIOStream      *client_io;
  GgFramedStream *client;
  GQueue          inbox;       /* JsonNode */
  gboolean        client_closed;
  guint           gone;
} Fixture;

static GIOStream *
io_for_fd (int fd)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocket) socket = g_socket_new_from_fd (fd, &error);

  g_assert_no_error (error);
  return G_IO_STREAM (g_socket_connection_factory_create_connection (socket));
}

static void
on_client_message (GgFramedStream *stream,
                   GBytes         *body,
                   gpointer        user_data)
{
  Fixture *fx = user_data;
  g_autoptr(GError) error = NULL;
  gsize length;
  const char *data = g_bytes_get_data (body, &length);
  JsonNode *node = gg_json_parse (data, (gssize) length, 128, &error);

  g_assert_no_error (error);
  g_queue_push_tail (&fx->inbox, node);
}

static void
on_client_closed (GgFramedStream *stream,
                  const GError   *error,
                  gpointer        user_data)
{
  Fixture *fx = user_data;
  fx->client_closed = TRUE;
}

static void
on_gone (GbMcpServer *server,
         gpointer     user_data)
{
  Fixture *fx = user_data;
  fx->gone++;
}

static void
fixture_set_up (Fixture       *fx,
                gconstpointer  data)
{
  int fds[2];

  fx->fake.n_tools = GPOINTER_TO_UINT (data) != 0 ? GPOINTER_TO_UINT (data) : FAKE_PROVIDER_FIXED_TOOLS;
  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), ==, 0);
  fx->server_io = io_for_fd (fds[0]);
  fx->client_io = io_for_fd (fds[1]);
  fx->server = gb_mcp_server_new ("test-server", "1.2.3", "Use the tools.",
                                  &fake_provider_vtable, &fx->fake);
  g_signal_connect (fx->server, "client-gone", G_CALLBACK (on_gone), fx);
  gb_mcp_server_serve_stdio (fx->server, fx->server_io);
  fx->client = gg_framed_stream_new_for_io_stream (fx->client_io, GG_FRAMING_NEWLINE);
  g_signal_connect (fx->client, "message", G_CALLBACK (on_client_message), fx);
  g_signal_connect (fx->client, "closed", G_CALLBACK (on_client_closed), fx);
  gg_framed_stream_start (fx->client);
}

static void
fixture_tear_down (Fixture       *fx,
                   gconstpointer  data)
{
  gb_mcp_server_close (fx->server);
  g_clear_object (&fx->server);
  g_signal_handlers_disconnect_by_data (fx->client, fx);
  gg_framed_stream_close (fx->client);
  g_clear_object (&fx->client);
  /* Let the closes finish. */
  for (int i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);
  g_clear_object (&fx->server_io);
  g_clear_object (&fx->client_io);
  g_queue_clear_full (&fx->inbox, (GDestroyNotify) json_node_unref);
}

static void
send_text (Fixture    *fx,
           const char *text)
{
  g_autoptr(GError) error = NULL;

  gg_framed_stream_send (fx->client, text, strlen (text), &error);
  g_assert_no_error (error);
}

static gboolean
has_message_or_closed (gpointer data)
{
  Fixture *fx = data;

  return !g_queue_is_empty (&fx->inbox) || fx->client_closed;
}

/* The next message from the server (transfer full), or NULL after @ms. */
static JsonNode *
next_message_within (Fixture *fx,
                     guint    ms)
{
  gg_test_wait_for (has_message_or_closed, fx, ms);
  return g_queue_pop_head (&fx->inbox);
}

static JsonNode *
next_message (Fixture *fx)
{
  JsonNode *node = next_message_within (fx, 5000);
  g_assert_nonnull (node);
  return node;
}

static char *
next_text (Fixture *fx)
{
  g_autoptr(JsonNode) node = next_message (fx);
  return gg_json_to_string (node);
}

static void
assert_next (Fixture    *fx,
             const char *expected)
{
  g_autofree char *text = next_text (fx);
  g_autoptr(JsonNode) want = json_from_string (expected, NULL);
  g_autoptr(JsonNode) got = json_from_string (text, NULL);

  if (!gg_json_equal (want, got))
    g_error ("expected %s\n     got %s", expected, text);
}

static void
initialize (Fixture *fx)
{
  g_autoptr(JsonNode) reply = NULL;

  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                 "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                 "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
  reply = next_message (fx);
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

static const char *
member_string (JsonNode   *node,
               const char *path)
{
  g_autoptr(GError) error = NULL;
  JsonNode *member = gg_json_path_get (node, path, &error);

  g_assert_no_error (error);
  return json_node_get_string (member);
}

static gint64
member_int (JsonNode   *node,
            const char *path)
{
  g_autoptr(GError) error = NULL;
  JsonNode *member = gg_json_path_get (node, path, &error);

  g_assert_no_error (error);
  return json_node_get_int (member);
}

/* ---- tests --------------------------------------------------------------- */

static void
test_handshake (Fixture *fx, gconstpointer data)
{
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                 "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                 "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
  {
    g_autofree char *text = next_text (fx);
    g_assert_cmpstr (text, ==,
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\","
                     "\"capabilities\":{\"tools\":{\"listChanged\":true},\"logging\":{}},"
                     "\"serverInfo\":{\"name\":\"test-server\",\"version\":\"1.2.3\"},"
                     "\"instructions\":\"Use the tools.\"}}");
  }
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}");
  assert_next (fx, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"result\":{}}");
  /* A second initialize is refused. */
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":"
                 "{\"protocolVersion\":\"2025-11-25\"}}");
  {
    g_autoptr(JsonNode) reply = next_message (fx);
    g_assert_cmpint (member_int (reply, "error.code"), ==, -32600);
  }
}

static void
test_versions (Fixture *fx, gconstpointer data)
{
  const char *asked = data;
  g_autofree char *request =
    g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                     "{\"protocolVersion\":\"%s\",\"capabilities\":{}}}", asked);
  g_autoptr(JsonNode) reply = NULL;
  const char *expected = strcmp (asked, "2099-01-01") == 0 ? "2025-11-25" : asked;

  fx->fake.n_tools = FAKE_PROVIDER_FIXED_TOOLS;
  send_text (fx, request);
  reply = next_message (fx);
  g_assert_cmpstr (member_string (reply, "result.protocolVersion"), ==, expected);
}

static void
test_before_initialize (Fixture *fx, gconstpointer data)
{
  g_autoptr(JsonNode) reply = NULL;

  /* ping is allowed, server/discover is unknown at once, the rest waits
   * for initialize. */
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
  assert_next (fx, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"server/discover\",\"params\":{}}");
  assert_next (fx, "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32601,"
                   "\"message\":\"Method not found: server/discover\"}}");
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}");
  reply = next_message (fx);
  g_assert_cmpint (member_int (reply, "error.code"), ==, -32600);
  g_clear_pointer (&reply, json_node_unref);
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\",\"params\":{}}");
  reply = next_message (fx);
  g_assert_cmpint (member_int (reply, "error.code"), ==, -32602);
  g_clear_pointer (&reply, json_node_unref);
  initialize (fx);
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}");
  reply = next_message (fx);
  g_assert_cmpint (json_array_get_length (json_node_get_array (gg_json_path_get (reply, "result.tools", NULL))), ==, 4);
}

static void
test_hostile (Fixture *fx, gconstpointer data)
{
  static const struct {
    const char *in;
    int code;
  } cases[] = {
    { "{", -32700 },
    { "not json", -32700 },
    { "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", -32600 },
    { "42", -32600 },
    { "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", -32600 },
    { "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", -32600 },
    { "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", -32600 },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}", -32600 },
    { "{\"jsonrpc\":\"2.0\",\"id\":1}", -32600 },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":[1]}", -32602 },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{}}", -32602 },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":[]}}", -32602 },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"loud\"}}", -32602 },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":\"bm9wZQ==\"}}", -32602 },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":\"%%%\"}}", -32602 },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":7}}", -32602 },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":\"Z2ItbWNwOjk5OTk=\"}}", -32602 },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"nope\"}", -32601 },
  };
  g_autoptr(GString) deep = g_string_new (NULL);

  initialize (fx);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) reply = NULL;

      send_text (fx, cases[i].in);
      reply = next_message (fx);
      if (member_int (reply, "error.code") != cases[i].code)
        g_error ("%s: got %" G_GINT64_FORMAT, cases[i].in, member_int (reply, "error.code"));
    }
  /* Too deep, not UTF-8, too large: each gets an error, and the session lives on. */
  for (int i = 0; i < 1000; i++)
    g_string_append_c (deep, '[');
  send_text (fx, deep->str);
  {
    g_autoptr(JsonNode) reply = next_message (fx);
    g_assert_cmpint (member_int (reply, "error.code"), ==, -32700);
  }
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}");
  {
    g_autoptr(JsonNode) reply = next_message (fx);
    g_assert_cmpint (member_int (reply, "error.code"), ==, -32700);
  }
  {
    gsize size = 5 * 1024 * 1024;
    g_autofree char *huge = g_malloc (size + 1);
    g_autoptr(JsonNode) reply = NULL;

    memset (huge, ' ', size);
    huge[0] = '"';
    huge[size - 1] = '"';
    huge[size] = '\0';
    send_text (fx, huge);
    reply = next_message (fx);
    g_assert_cmpint (member_int (reply, "error.code"), ==, -32600);
  }
  /* Responses and unknown notifications get nothing back. */
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}");
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}");
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":77}}");
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"}");
  assert_next (fx, "{\"jsonrpc\":\"2.0\",\"id\":10,\"result\":{}}");
}

static void
test_pagination (Fixture *fx, gconstpointer data)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *cursor = NULL;
  int pages = 0;

  initialize (fx);
  do
    {
      g_autoptr(JsonNode) reply = NULL;
      g_autofree char *request = NULL;
      JsonObject *result;
      JsonArray *tools;

      if (cursor == NULL)
        request = g_strdup ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
      else
        request = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\","
                                   "\"params\":{\"cursor\":\"%s\"}}", cursor);
      send_text (fx, request);
      reply = next_message (fx);
      result = json_object_get_object_member (json_node_get_object (reply), "result");
      g_assert_nonnull (result);
      tools = json_object_get_array_member (result, "tools");
      for (guint i = 0; i < json_array_get_length (tools); i++)
        g_ptr_array_add (names, g_strdup (json_object_get_string_member (
                                            json_array_get_object_element (tools, i), "name")));
      g_clear_pointer (&cursor, g_free);
      if (json_object_has_member (result, "nextCursor"))
        cursor = g_strdup (json_object_get_string_member (result, "nextCursor"));
      pages++;
    }
  while (cursor != NULL);
  g_assert_cmpint (pages, ==, 3);
  g_assert_cmpuint (names->len, ==, 250);
  g_assert_cmpstr (names->pdata[0], ==, "echo");
  g_assert_cmpstr (names->pdata[249], ==, "filler-249");
}

static void
test_call (Fixture *fx, gconstpointer data)
{
  g_autoptr(JsonNode) reply = NULL;

  initialize (fx);
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                 "\"params\":{\"name\":\"echo\",\"arguments\":{\"x\":1}}}");
  assert_next (fx, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\","
                   "\"text\":\"{\\\"x\\\":1}\"}],\"structuredContent\":{\"x\":1}}}");
  /* Absent arguments are an empty object. */
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}");
  reply = next_message (fx);
  g_assert_cmpstr (member_string (reply, "result.content.0.text"), ==, "{}");
  g_clear_pointer (&reply, json_node_unref);
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"fail\"}}");
  assert_next (fx, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\","
                   "\"text\":\"the tool failed on purpose\"}],\"isError\":true}}");
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"nosuch\"}}");
  assert_next (fx, "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32602,"
                   "\"message\":\"Invalid params: Unknown tool: nosuch\"}}");
}

static void
test_cancel (Fixture *fx, gconstpointer data)
{
  g_autoptr(JsonNode) extra = NULL;

  initialize (fx);
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":\"h\",\"method\":\"tools/call\",\"params\":{\"name\":\"hang\"}}");
  /* The same id while it runs is refused. */
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":\"h\",\"method\":\"tools/call\",\"params\":{\"name\":\"hang\"}}");
  {
    g_autoptr(JsonNode) reply = next_message (fx);
    g_assert_cmpint (member_int (reply, "error.code"), ==, -32600);
  }
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                 "\"params\":{\"requestId\":\"h\",\"reason\":\"bored\"}}");
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
  /* The next message is the ping's answer: none for the cancelled call. */
  assert_next (fx, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}");
  extra = next_message_within (fx, 100);
  g_assert_null (extra);
  g_assert_cmpuint (fx->fake.n_cancelled, ==, 1);
}

static void
test_progress_and_logging (Fixture *fx, gconstpointer data)
{
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  guint progress = 0, logs = 0;

  initialize (fx);
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"info\"}}");
  assert_next (fx, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                 "{\"name\":\"progress\",\"arguments\":{},\"_meta\":{\"progressToken\":\"tok\"}}}");
  for (;;)
    {
      JsonNode *message = next_message (fx);
      JsonObject *obj = json_node_get_object (message);

      g_ptr_array_add (seen, message);
      if (json_object_has_member (obj, "id"))
        break;
      if (g_strcmp0 (json_object_get_string_member (obj, "method"), "notifications/progress") == 0)
        {
          progress++;
          g_assert_cmpstr (member_string (message, "params.progressToken"), ==, "tok");
          g_assert_cmpfloat (json_node_get_double (gg_json_path_get (message, "params.progress", NULL)), ==, progress);
          g_assert_cmpfloat (json_node_get_double (gg_json_path_get (message, "params.total", NULL)), ==, 3);
        }
      else
        {
          g_assert_cmpstr (json_object_get_string_member (obj, "method"), ==, "notifications/message");
          g_assert_cmpstr (member_string (message, "params.logger"), ==, "progress");
          g_assert_cmpstr (member_string (message, "params.level"), !=, "debug");
          logs++;
        }
    }
  g_assert_cmpuint (progress, ==, 3);
  g_assert_cmpuint (logs, ==, 2);   /* info and warning; debug filtered */

  /* No token, level error: no notifications at all. */
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"error\"}}");
  assert_next (fx, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}");
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"progress\"}}");
  {
    g_autoptr(JsonNode) reply = next_message (fx);
    g_assert_cmpint (member_int (reply, "id"), ==, 4);
  }
  /* Server-wide log and list_changed reach the client. */
  {
    g_autoptr(JsonNode) data_node = json_from_string ("{\"a\":1}", NULL);
    gb_mcp_server_log (fx->server, "warning", "bridge", data_node);   /* filtered */
    gb_mcp_server_log (fx->server, "critical", "bridge", data_node);
    assert_next (fx, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":"
                     "{\"level\":\"critical\",\"logger\":\"bridge\",\"data\":{\"a\":1}}}");
  }
  gb_mcp_server_notify_tools_changed (fx->server);
  assert_next (fx, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
}

static void
test_client_gone (Fixture *fx, gconstpointer data)
{
  initialize (fx);
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"progress\"}}");
  /* Half-close once the request is out: the answer still comes, then
   * client-gone. */
  while (gg_framed_stream_get_pending_output (fx->client) > 0)
    g_main_context_iteration (NULL, TRUE);
  g_socket_shutdown (g_socket_connection_get_socket (G_SOCKET_CONNECTION (fx->client_io)),
                     FALSE, TRUE, NULL);
  for (;;)
    {
      /* Its log notifications (default level info) come first. */
      g_autoptr(JsonNode) reply = next_message (fx);
      if (json_object_has_member (json_node_get_object (reply), "id"))
        {
          g_assert_cmpint (member_int (reply, "id"), ==, 1);
          break;
        }
    }
  while (fx->gone == 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (fx->gone, ==, 1);
}

static void
test_close_answers (Fixture *fx, gconstpointer data)
{
  g_autoptr(JsonNode) reply = NULL;

  initialize (fx);
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"hang\"}}");
  /* The call is running once a later ping is answered. */
  send_text (fx, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
  g_clear_pointer (&reply, json_node_unref);
  reply = next_message (fx);
  g_assert_cmpint (member_int (reply, "id"), ==, 2);
  gb_mcp_server_close (fx->server);
  g_clear_pointer (&reply, json_node_unref);
  reply = next_message (fx);
  g_assert_cmpint (member_int (reply, "id"), ==, 1);
  g_assert_cmpint (member_int (reply, "error.code"), ==, -32603);
  while (!fx->client_closed)
    g_main_context_iteration (NULL, TRUE);
  while (fx->fake.n_cancelled == 0)
    g_main_context_iteration (NULL, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func, data) \
  g_test_add ("/gamebridge/mcp-stdio/" path, Fixture, data, fixture_set_up, func, fixture_tear_down)
  ADD ("handshake", test_handshake, NULL);
  ADD ("version/2025-11-25", test_versions, "2025-11-25");
  ADD ("version/2025-06-18", test_versions, "2025-06-18");
  ADD ("version/2025-03-26", test_versions, "2025-03-26");
  ADD ("version/2024-11-05", test_versions, "2024-11-05");
  ADD ("version/unknown", test_versions, "2099-01-01");
  ADD ("before-initialize", test_before_initialize, NULL);
  ADD ("hostile", test_hostile, NULL);
  ADD ("pagination", test_pagination, GUINT_TO_POINTER (250));
  ADD ("call", test_call, NULL);
  ADD ("cancel", test_cancel, NULL);
  ADD ("progress-and-logging", test_progress_and_logging, NULL);
  ADD ("client-gone", test_client_gone, NULL);
  ADD ("close-answers", test_close_answers, NULL);
  return g_test_run ();
}
