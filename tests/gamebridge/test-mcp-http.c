/* test-mcp-http.c: the MCP server over Streamable HTTP, driven in process
 * with a libsoup client: sessions, pagination, JSON and SSE answers, progress,
 * cancellation, two clients, the GET stream, expiry.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "mcp-http-test.h"

/* ---- tests --------------------------------------------------------------- */

static void
test_handshake (Fixture *fx, gconstpointer data)
{
  g_autoptr(Pending) init = request (fx, "POST", NULL, INIT_BODY, NULL);
  g_autoptr(Pending) note = NULL;
  g_autoptr(Pending) list = NULL;
  g_autoptr(JsonNode) tools = NULL;
  g_autofree char *text = body_of (init);
  const char *id = header_of (init, "Mcp-Session-Id");

  g_assert_cmpuint (status_of (init), ==, 200);
  g_assert_cmpstr (header_of (init, "Content-Type"), ==, "application/json");
  g_assert_cmpstr (text, ==,
                   "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\","
                   "\"capabilities\":{\"tools\":{\"listChanged\":true},\"logging\":{}},"
                   "\"serverInfo\":{\"name\":\"test-server\",\"version\":\"1.2.3\"},"
                   "\"instructions\":\"Use the tools.\"}}");
  g_assert_nonnull (id);
  g_assert_cmpuint (strlen (id), ==, 32);
  g_assert_cmpuint (strspn (id, "0123456789abcdef"), ==, 32);

  note = request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                  (const char *[]) { "MCP-Protocol-Version", "2025-11-25", NULL });
  g_assert_cmpuint (status_of (note), ==, 202);
  g_assert_cmpuint (g_bytes_get_size (note->body), ==, 0);
  list = request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
                  (const char *[]) { "MCP-Protocol-Version", "2025-11-25", NULL });
  g_assert_cmpuint (status_of (list), ==, 200);
  tools = json_of (list);
  g_assert_cmpstr (member_string (tools, "result.tools.0.name"), ==, "echo");
  g_assert_cmpstr (member_string (tools, "result.tools.3.name"), ==, "hang");
}

static void
test_pagination (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session (fx);
  g_autoptr(Pending) first = request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}", NULL);
  g_autoptr(JsonNode) page = json_of (first);
  g_autofree char *next = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\","
                                           "\"params\":{\"cursor\":\"%s\"}}",
                                           member_string (page, "result.nextCursor"));
  g_autoptr(Pending) second = request (fx, "POST", id, next, NULL);
  g_autoptr(JsonNode) page2 = json_of (second);

  g_assert_cmpuint (json_array_get_length (json_node_get_array (gg_json_path_get (page, "result.tools", NULL))), ==, 100);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (gg_json_path_get (page2, "result.tools", NULL))), ==, 20);
  g_assert_false (json_object_has_member (json_node_get_object (gg_json_path_get (page2, "result", NULL)), "nextCursor"));
}

static void
test_session_errors (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session (fx);
  const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
  g_autoptr(Pending) missing = request (fx, "POST", NULL, ping, NULL);
  g_autoptr(Pending) unknown = request (fx, "POST", "0123456789abcdef0123456789abcdef", ping, NULL);
  g_autoptr(Pending) ok = request (fx, "POST", id, ping, NULL);
  g_autoptr(Pending) get_missing = request (fx, "GET", NULL, NULL, NULL);
  g_autoptr(Pending) get_unknown = request (fx, "GET", "nope", NULL, NULL);
  g_autoptr(Pending) del_missing = request (fx, "DELETE", NULL, NULL, NULL);
  g_autoptr(Pending) del = NULL;
  g_autoptr(Pending) after = NULL;
  g_autoptr(Pending) del_again = NULL;
  g_autoptr(JsonNode) error = json_of (missing);

  g_assert_cmpuint (status_of (missing), ==, 400);
  g_assert_cmpint (member_int (error, "error.code"), ==, -32000);
  g_assert_cmpuint (status_of (unknown), ==, 404);
  g_assert_cmpuint (status_of (ok), ==, 200);
  g_assert_cmpuint (status_of (get_missing), ==, 400);
  g_assert_cmpuint (status_of (get_unknown), ==, 404);
  g_assert_cmpuint (status_of (del_missing), ==, 400);
  del = request (fx, "DELETE", id, NULL, NULL);
  g_assert_cmpuint (status_of (del), ==, 204);
  after = request (fx, "POST", id, ping, NULL);
  g_assert_cmpuint (status_of (after), ==, 404);
  del_again = request (fx, "DELETE", id, NULL, NULL);
  g_assert_cmpuint (status_of (del_again), ==, 404);
}

static void
test_protocol_header (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session (fx);
  const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
  g_autoptr(Pending) bad = request (fx, "POST", id, ping,
                                    (const char *[]) { "MCP-Protocol-Version", "1999-01-01", NULL });
  g_autoptr(Pending) old = request (fx, "POST", id, ping,
                                    (const char *[]) { "MCP-Protocol-Version", "2025-03-26", NULL });
  g_autoptr(Pending) bad_get = request (fx, "GET", id, NULL,
                                        (const char *[]) { "MCP-Protocol-Version", "x", NULL });
  g_autoptr(Pending) bad_init = request (fx, "POST", NULL, INIT_BODY,
                                         (const char *[]) { "MCP-Protocol-Version", "2030-01-01", NULL });

  g_assert_cmpuint (status_of (bad), ==, 400);
  g_assert_cmpuint (status_of (old), ==, 200);
  g_assert_cmpuint (status_of (bad_get), ==, 400);
  g_assert_cmpuint (status_of (bad_init), ==, 400);
  g_assert_null (header_of (bad_init, "Mcp-Session-Id"));
}

static void
test_call (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session (fx);
  g_autoptr(Pending) echo =
    request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"echo\",\"arguments\":{\"x\":1}}}", NULL);
  g_autoptr(Pending) unknown =
    request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"nosuch\"}}", NULL);
  g_autoptr(Pending) discover =
    request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"server/discover\"}", NULL);
  g_autoptr(Pending) echo_json =
    request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"echo\",\"arguments\":{\"x\":2}}}",
             (const char *[]) { "Accept", "application/json", NULL });
  g_autofree char *echo_text = body_of (echo);
  g_autoptr(JsonNode) error = answer_of (unknown);
  g_autoptr(JsonNode) not_found = json_of (discover);
  g_autoptr(JsonNode) result_json = json_of (echo_json);

  /* The tool answers after its handler returned: an SSE stream of its own,
   * primed for a resume, then the response. */
  g_assert_cmpstr (header_of (echo, "Content-Type"), ==, "text/event-stream");
  g_assert_cmpstr (echo_text, ==,
                   "id: 1-0\nretry: 1000\ndata:\n\n"
                   "id: 1-1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":"
                   "[{\"type\":\"text\",\"text\":\"{\\\"x\\\":1}\"}],\"structuredContent\":{\"x\":1}}}\n\n");
  g_assert_cmpstr (header_of (unknown, "Content-Type"), ==, "text/event-stream");
  g_assert_cmpint (member_int (error, "error.code"), ==, -32602);
  /* Answered within the handler: JSON. */
  g_assert_cmpstr (header_of (discover, "Content-Type"), ==, "application/json");
  g_assert_cmpint (member_int (not_found, "error.code"), ==, -32601);
  /* A client that takes JSON only. */
  g_assert_cmpstr (header_of (echo_json, "Content-Type"), ==, "application/json");
  g_assert_cmpint (member_int (result_json, "result.structuredContent.x"), ==, 2);
}

static void
test_progress_sse (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session (fx);
  g_autoptr(Pending) level =
    request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/setLevel\","
                             "\"params\":{\"level\":\"warning\"}}", NULL);
  g_autoptr(Pending) call =
    request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                             "{\"name\":\"progress\",\"_meta\":{\"progressToken\":7}}}", NULL);
  g_autoptr(GPtrArray) events = events_of (call);
  guint progress = 0, logs = 0;

  g_assert_cmpuint (status_of (level), ==, 200);
  g_assert_cmpuint (status_of (call), ==, 200);
  g_assert_cmpstr (header_of (call, "Content-Type"), ==, "text/event-stream");
  g_assert_cmpuint (events->len, ==, 5);
  for (guint i = 0; i < events->len - 1; i++)
    {
      const char *method = member_string (events->pdata[i], "method");
      if (strcmp (method, "notifications/progress") == 0)
        {
          g_assert_cmpint (member_int (events->pdata[i], "params.progressToken"), ==, 7);
          progress++;
        }
      else
        {
          g_assert_cmpstr (method, ==, "notifications/message");
          g_assert_cmpstr (member_string (events->pdata[i], "params.level"), ==, "warning");
          logs++;
        }
    }
  g_assert_cmpuint (progress, ==, 3);
  g_assert_cmpuint (logs, ==, 1);
  g_assert_cmpint (member_int (events->pdata[4], "id"), ==, 2);
  g_assert_cmpstr (member_string (events->pdata[4], "result.content.0.type"), ==, "text");

  /* A client that takes JSON only gets the answer as JSON. */
  {
    g_autoptr(Pending) json_only =
      request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
                               "{\"name\":\"progress\",\"_meta\":{\"progressToken\":8}}}",
               (const char *[]) { "Accept", "application/json", NULL });
    g_autoptr(JsonNode) reply = json_of (json_only);
    g_assert_cmpstr (header_of (json_only, "Content-Type"), ==, "application/json");
    g_assert_cmpint (member_int (reply, "id"), ==, 3);
  }
}

static void
test_cancel (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session (fx);
  g_autoptr(Pending) hang =
    start (fx, "POST", NULL, id, "{\"jsonrpc\":\"2.0\",\"id\":\"h\",\"method\":\"tools/call\","
                                 "\"params\":{\"name\":\"hang\"}}", NULL);
  g_autoptr(Pending) cancel = NULL;

  while (fx->fake.n_calls == 0)
    g_main_context_iteration (NULL, TRUE);
  cancel = request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                                    "\"params\":{\"requestId\":\"h\"}}", NULL);
  g_assert_cmpuint (status_of (cancel), ==, 202);
  wait_for (hang);
  /* No JSON-RPC response for a cancelled request: its stream (opened, as
   * the call was still running) ends after its priming event. */
  g_assert_cmpuint (status_of (hang), ==, 200);
  {
    g_autofree char *text = body_of (hang);
    g_assert_cmpstr (text, ==, "id: 1-0\nretry: 1000\ndata:\n\n");
  }
  while (fx->fake.n_cancelled == 0)
    g_main_context_iteration (NULL, TRUE);

  /* A client that takes JSON only gets 202 and no body. */
  {
    g_autoptr(Pending) json_hang =
      start (fx, "POST", NULL, id, "{\"jsonrpc\":\"2.0\",\"id\":\"j\",\"method\":\"tools/call\","
                                   "\"params\":{\"name\":\"hang\"}}",
             (const char *[]) { "Accept", "application/json", NULL });
    g_autoptr(Pending) json_cancel = NULL;

    while (fx->fake.n_calls < 2)
      g_main_context_iteration (NULL, TRUE);
    json_cancel = request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                                           "\"params\":{\"requestId\":\"j\"}}", NULL);
    wait_for (json_hang);
    g_assert_cmpuint (status_of (json_hang), ==, 202);
    g_assert_cmpuint (g_bytes_get_size (json_hang->body), ==, 0);
  }
}

static void
test_two_clients (Fixture *fx, gconstpointer data)
{
  g_autofree char *a = open_session (fx);
  g_autofree char *b = open_session (fx);
  g_autoptr(Pending) hang_a =
    start (fx, "POST", NULL, a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                                "\"params\":{\"name\":\"hang\"}}", NULL);
  g_autoptr(Pending) echo_b = NULL;
  g_autoptr(Pending) cancel_b = NULL;
  g_autoptr(Pending) del_a = NULL;
  g_autoptr(Pending) ping_b = NULL;
  g_autoptr(JsonNode) reply = NULL;

  g_assert_cmpstr (a, !=, b);
  while (fx->fake.n_calls == 0)
    g_main_context_iteration (NULL, TRUE);
  /* Same id in the other session: independent. */
  echo_b = request (fx, "POST", b, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                                   "\"params\":{\"name\":\"echo\",\"arguments\":{\"who\":\"b\"}}}", NULL);
  reply = answer_of (echo_b);
  g_assert_cmpstr (member_string (reply, "result.structuredContent.who"), ==, "b");
  /* b cannot cancel a's call. */
  cancel_b = request (fx, "POST", b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                                     "\"params\":{\"requestId\":1}}", NULL);
  g_assert_cmpuint (fx->fake.n_cancelled, ==, 0);
  g_assert_false (hang_a->done);
  /* Ending a answers and cancels its call; b lives on. */
  del_a = request (fx, "DELETE", a, NULL, NULL);
  g_assert_cmpuint (status_of (del_a), ==, 204);
  wait_for (hang_a);
  {
    g_autoptr(JsonNode) closed = answer_of (hang_a);
    g_assert_cmpint (member_int (closed, "error.code"), ==, -32603);
  }
  while (fx->fake.n_cancelled == 0)
    g_main_context_iteration (NULL, TRUE);
  ping_b = request (fx, "POST", b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}", NULL);
  g_assert_cmpuint (status_of (ping_b), ==, 200);
}

static void
test_get_stream (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session (fx);
  Stream *stream = stream_open (fx, "GET", id, NULL, NULL);

  g_assert_cmpuint (soup_message_get_status (stream->msg), ==, 200);
  g_assert_cmpstr (soup_message_headers_get_content_type (soup_message_get_response_headers (stream->msg), NULL),
                   ==, "text/event-stream");
  stream_read_until (stream, ": gamegate MCP event stream");

  gb_mcp_server_notify_tools_changed (fx->server);
  stream_read_until (stream, "notifications/tools/list_changed");
  {
    g_autoptr(JsonNode) data_node = json_from_string ("\"hello\"", NULL);
    gb_mcp_server_log (fx->server, "debug", "bridge", data_node);   /* below info: filtered */
    gb_mcp_server_log (fx->server, "error", "bridge", data_node);
  }
  stream_read_until (stream, "\"level\":\"error\"");
  g_assert_null (strstr (stream->seen->str, "\"debug\""));
  g_assert_nonnull (strstr (stream->seen->str,
                            "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n"));

  /* A JSON-only client's call progress goes to the GET stream. */
  {
    g_autoptr(Pending) call =
      request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":"
                               "{\"name\":\"progress\",\"_meta\":{\"progressToken\":\"gp\"}}}",
               (const char *[]) { "Accept", "application/json", NULL });
    g_assert_cmpuint (status_of (call), ==, 200);
    stream_read_until (stream, "\"progressToken\":\"gp\"");
  }

  /* Closing the server ends the stream. */
  gb_mcp_server_close (fx->server);
  stream_read_to_end (stream);
  stream_free (stream);
}

static void
test_expiry (Fixture *fx, gconstpointer data)
{
  g_autofree char *idle = open_session (fx);
  g_autofree char *busy = open_session (fx);
  const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
  g_autoptr(Pending) hang =
    start (fx, "POST", NULL, busy, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                                   "\"params\":{\"name\":\"hang\"}}", NULL);
  g_autoptr(Pending) gone = NULL;
  g_autoptr(Pending) alive = NULL;
  g_autoptr(Pending) cancel = NULL;

  while (fx->fake.n_calls == 0)
    g_main_context_iteration (NULL, TRUE);
  gb_mcp_http_set_session_idle_timeout (gb_mcp_server_get_http (fx->server), 20 * G_TIME_SPAN_MILLISECOND);
  iterate_for (60);
  /* The idle one is forgotten; the one with a running call is not. */
  gone = request (fx, "POST", idle, ping, NULL);
  g_assert_cmpuint (status_of (gone), ==, 404);
  alive = request (fx, "POST", busy, ping, NULL);
  g_assert_cmpuint (status_of (alive), ==, 200);
  cancel = request (fx, "POST", busy, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                                      "\"params\":{\"requestId\":1}}", NULL);
  wait_for (hang);
}

static void
test_close_answers (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session (fx);
  g_autoptr(Pending) hang =
    start (fx, "POST", NULL, id, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\","
                                 "\"params\":{\"name\":\"hang\"}}", NULL);
  g_autoptr(JsonNode) reply = NULL;
  g_autoptr(GError) error = NULL;

  while (fx->fake.n_calls == 0)
    g_main_context_iteration (NULL, TRUE);
  gb_mcp_server_close (fx->server);
  wait_for (hang);
  reply = answer_of (hang);
  g_assert_cmpint (member_int (reply, "id"), ==, 5);
  g_assert_cmpint (member_int (reply, "error.code"), ==, -32603);
  while (fx->fake.n_cancelled == 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (gb_mcp_server_get_http_port (fx->server), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func, data) \
  g_test_add ("/gamebridge/mcp-http/" path, Fixture, data, fixture_set_up, func, fixture_tear_down)
  ADD ("handshake", test_handshake, NULL);
  ADD ("pagination", test_pagination, GUINT_TO_POINTER (120));
  ADD ("session-errors", test_session_errors, NULL);
  ADD ("protocol-header", test_protocol_header, NULL);
  ADD ("call", test_call, NULL);
  ADD ("progress-sse", test_progress_sse, NULL);
  ADD ("cancel", test_cancel, NULL);
  ADD ("two-clients", test_two_clients, NULL);
  ADD ("get-stream", test_get_stream, NULL);
  ADD ("expiry", test_expiry, NULL);
  ADD ("close-answers", test_close_answers, NULL);
  return g_test_run ();
}
