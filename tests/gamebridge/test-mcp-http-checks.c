/* test-mcp-http-checks.c: the MCP Streamable HTTP server's request checks: Origin
 * and Host, hostile requests, bodies too large, and the checks on their own.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "mcp-http-test.h"

static void
test_origin (Fixture *fx, gconstpointer data)
{
  static const struct {
    const char *origin;
    guint status;
  } cases[] = {
    { "http://localhost", 200 },
    { "http://localhost:5173", 200 },
    { "https://127.0.0.1:8443", 200 },
    { "http://[::1]:3000", 200 },
    { "http://evil.example", 403 },
    { "http://localhost.evil.example", 403 },
    { "http://127.0.0.1.nip.io", 403 },
    { "null", 403 },
    { "file://localhost", 403 },
    { "http://user@localhost", 403 },
    { "", 403 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(Pending) reply =
        request (fx, "POST", NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
                 (const char *[]) { "Origin", cases[i].origin, NULL });
      guint want = cases[i].status == 200 ? 400 : 403; /* allowed: fails later for want of a session */

      if (status_of (reply) != want)
        g_error ("Origin %s: got %u", cases[i].origin, status_of (reply));
    }
}

static void
test_host (Fixture *fx, gconstpointer data)
{
  static const struct {
    const char *host;
    guint status;
  } cases[] = {
    { "127.0.0.1", 400 },
    { "localhost:7777", 400 },
    { "[::1]:7777", 400 },
    { "evil.example:7777", 403 },
    { "localhost@evil.example", 403 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(Pending) reply =
        request (fx, "POST", NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
                 (const char *[]) { "Host", cases[i].host, NULL });

      /* Allowed ones fail later, for want of a session. */
      if (status_of (reply) != cases[i].status)
        g_error ("Host %s: got %u", cases[i].host, status_of (reply));
    }
}

static void
test_hostile (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session (fx);
  const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
  static const struct {
    const char *body;
    int code;
  } bodies[] = {
    { "", -32700 },
    { "{", -32700 },
    { "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", -32600 },
    { "\"hi\"", -32600 },
    { "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}", -32600 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (bodies); i++)
    {
      g_autoptr(Pending) reply = request (fx, "POST", id, bodies[i].body, NULL);
      g_autoptr(JsonNode) error = NULL;

      g_assert_cmpuint (status_of (reply), ==, 400);
      error = json_of (reply);
      g_assert_cmpint (member_int (error, "error.code"), ==, bodies[i].code);
    }
  {
    g_autoptr(Pending) text = request (fx, "POST", id, ping,
                                       (const char *[]) { "Content-Type", "text/plain", NULL });
    g_autoptr(Pending) none = request (fx, "POST", id, ping,
                                       (const char *[]) { "Content-Type", NULL, NULL });
    g_autoptr(Pending) html = request (fx, "POST", id, ping,
                                       (const char *[]) { "Accept", "text/html", NULL });
    g_autoptr(Pending) json_only = request (fx, "POST", id, ping,
                                            (const char *[]) { "Accept", "application/json", NULL });
    g_autoptr(Pending) any = request (fx, "POST", id, ping,
                                      (const char *[]) { "Accept", NULL, NULL });
    g_autoptr(Pending) put = request (fx, "PUT", id, ping, NULL);
    g_autoptr(Pending) other = start (fx, "POST", "http://127.0.0.1:1/", NULL, ping, NULL);
    g_autoptr(Pending) get_json = request (fx, "GET", id, NULL,
                                           (const char *[]) { "Accept", "application/json", NULL });
    g_autofree char *wrong_path = g_strdup_printf ("http://127.0.0.1:%u/other",
                                                   gb_mcp_server_get_http_port (fx->server));
    g_autoptr(Pending) path = start (fx, "POST", wrong_path, id, ping, NULL);
    g_autofree char *sub_path = g_strdup_printf ("http://127.0.0.1:%u/mcp/x",
                                                 gb_mcp_server_get_http_port (fx->server));
    g_autoptr(Pending) sub = start (fx, "POST", sub_path, id, ping, NULL);

    wait_for (path);
    wait_for (sub);
    g_assert_cmpuint (status_of (text), ==, 415);
    g_assert_cmpuint (status_of (none), ==, 415);
    g_assert_cmpuint (status_of (html), ==, 406);
    g_assert_cmpuint (status_of (json_only), ==, 200);
    g_assert_cmpuint (status_of (any), ==, 200);
    g_assert_cmpuint (status_of (put), ==, 405);
    g_assert_cmpstr (header_of (put, "Allow"), ==, "GET, POST, DELETE");
    g_assert_cmpuint (status_of (get_json), ==, 406);
    g_assert_cmpuint (status_of (path), ==, 404);
    g_assert_cmpuint (status_of (sub), ==, 404);
    /* A client's response or notification is accepted with no body; a
     * failed initialize leaves no session; a notification needs one. */
    {
      g_autoptr(Pending) response = request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}", NULL);
      g_autoptr(Pending) bad_init = request (fx, "POST", NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}", NULL);
      g_autoptr(Pending) orphan = request (fx, "POST", NULL, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", NULL);
      g_autoptr(JsonNode) error = json_of (bad_init);

      g_assert_cmpuint (status_of (response), ==, 202);
      g_assert_cmpuint (status_of (bad_init), ==, 200);
      g_assert_cmpint (member_int (error, "error.code"), ==, -32602);
      g_assert_null (header_of (bad_init, "Mcp-Session-Id"));
      g_assert_cmpuint (status_of (orphan), ==, 400);
    }
    /* Nobody listens on port 1: the request fails, the test goes on. */
    while (!other->done)
      g_main_context_iteration (NULL, TRUE);
  }
}

static void
test_too_large (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session (fx);
  gsize size = 5 * 1024 * 1024;
  g_autofree char *huge = g_malloc (size + 1);

  memset (huge, ' ', size);
  huge[0] = '"';
  huge[size - 1] = '"';
  huge[size] = '\0';
  {
    g_autoptr(Pending) sized = request (fx, "POST", id, huge, NULL);
    g_assert_cmpuint (status_of (sized), ==, 413);
  }
  {
    /* Chunked: no Content-Length to refuse early. */
    Pending *chunked = g_new0 (Pending, 1);
    g_autoptr(Pending) hold = chunked;
    g_autoptr(GInputStream) stream = g_memory_input_stream_new_from_data (huge, size, NULL);
    g_autoptr(Pending) after = NULL;

    chunked->msg = soup_message_new ("POST", fx->url);
    soup_message_headers_replace (soup_message_get_request_headers (chunked->msg),
                                  "Mcp-Session-Id", id);
    soup_message_set_request_body (chunked->msg, "application/json", stream, -1);
    soup_session_send_and_read_async (fx->client, chunked->msg, G_PRIORITY_DEFAULT, NULL,
                                      sent_cb, chunked);
    wait_for (chunked);
    g_assert_cmpuint (status_of (chunked), ==, 413);
    /* The session still works. */
    after = request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", NULL);
    g_assert_cmpuint (status_of (after), ==, 200);
  }
}

static void
test_checks (void)
{
  static const struct {
    const char *accept;
    gboolean json, sse;
  } accepts[] = {
    { NULL, TRUE, TRUE },
    { "application/json, text/event-stream", TRUE, TRUE },
    { "application/json", TRUE, FALSE },
    { "text/event-stream", FALSE, TRUE },
    { "*/*", TRUE, TRUE },
    { "application/*;q=0.5", TRUE, FALSE },
    { "text/*", FALSE, TRUE },
    { "text/event-stream;q=0, application/json", TRUE, FALSE },
    { "text/html", FALSE, FALSE },
    { "", FALSE, FALSE },
    { ",,;;==", FALSE, FALSE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (accepts); i++)
    {
      gboolean json = -1, sse = -1;

      gb_mcp_http_parse_accept (accepts[i].accept, &json, &sse);
      if (json != accepts[i].json || sse != accepts[i].sse)
        g_error ("Accept %s: json %d sse %d", accepts[i].accept, json, sse);
    }
  g_assert_true (gb_mcp_http_origin_allowed (NULL));
  g_assert_true (gb_mcp_http_origin_allowed ("http://LOCALHOST:1"));
  g_assert_true (gb_mcp_http_origin_allowed ("https://[::1]"));
  g_assert_false (gb_mcp_http_origin_allowed ("http://[::2]"));
  g_assert_false (gb_mcp_http_origin_allowed ("http://localhost:1/path"));
  g_assert_false (gb_mcp_http_origin_allowed ("http://localhost?x"));
  g_assert_false (gb_mcp_http_origin_allowed ("ws://localhost"));
  g_assert_false (gb_mcp_http_origin_allowed ("http://127.0.0.2"));
  g_assert_false (gb_mcp_http_origin_allowed ("http://%00"));
  g_assert_true (gb_mcp_http_host_allowed (NULL));
  g_assert_true (gb_mcp_http_host_allowed ("127.0.0.1:7777"));
  g_assert_false (gb_mcp_http_host_allowed (""));
  g_assert_false (gb_mcp_http_host_allowed ("127.0.0.1:7777/x"));
  g_assert_false (gb_mcp_http_host_allowed ("user@127.0.0.1"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func, data) \
  g_test_add ("/gamebridge/mcp-http/" path, Fixture, data, fixture_set_up, func, fixture_tear_down)
  g_test_add_func ("/gamebridge/mcp-http/checks", test_checks);
  ADD ("origin", test_origin, NULL);
  ADD ("host", test_host, NULL);
  ADD ("hostile", test_hostile, NULL);
  ADD ("too-large", test_too_large, NULL);
  return g_test_run ();
}
