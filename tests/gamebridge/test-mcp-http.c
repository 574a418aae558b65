/* test-mcp-http.c: the MCP server over Streamable HTTP, driven in process
 * with a libsoup client: sessions, JSON and SSE answers, the GET stream,
 * and every HTTP error path.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "gb-mcp-server.h"
#include "gb-mcp-private.h"
#include "mcp-fake-provider.h"

typedef struct {
  FakeProvider  fake;
  GbMcpServer  *server;
  SoupSession  *client;
  char         *url;
} Fixture;

typedef struct {
  SoupMessage *msg;
  GBytes      *body;
  GError      *error;
  gboolean     done;
} Pending;

static void
pending_free (Pending *pending)
{
  g_clear_object (&pending->msg);
  g_clear_pointer (&pending->body, g_bytes_unref);
  g_clear_error (&pending->error);
  g_free (pending);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Pending, pending_free)

static void
fixture_set_up (Fixture       *fx,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fx->fake.n_tools = data != NULL ? GPOINTER_TO_UINT (data) : FAKE_PROVIDER_FIXED_TOOLS;
  fx->server = gb_mcp_server_new ("test-server", "1.2.3", "Use the tools.",
                                  &fake_provider_vtable, &fx->fake);
  g_assert_true (gb_mcp_server_listen_http (fx->server, 0, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gb_mcp_server_get_http_port (fx->server), >, 0);
  fx->url = g_strdup_printf ("http://127.0.0.1:%u/mcp", gb_mcp_server_get_http_port (fx->server));
  fx->client = soup_session_new ();
}

static void
iterate_for (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
}

static void
fixture_tear_down (Fixture       *fx,
                   gconstpointer  data)
{
  gb_mcp_server_close (fx->server);
  soup_session_abort (fx->client);
  iterate_for (50);
  g_clear_object (&fx->server);
  g_clear_object (&fx->client);
  iterate_for (20);
  g_free (fx->url);
}

static void
sent_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Pending *pending = user_data;

  pending->body = soup_session_send_and_read_finish (SOUP_SESSION (source), result, &pending->error);
  pending->done = TRUE;
}

/* Starts a request; @headers is a NULL-terminated name, value, … list
 * replacing the defaults (Accept both, Content-Type application/json). */
static Pending *
start (Fixture            *fx,
       const char         *method,
       const char         *url,
       const char         *session_id,
       const char         *body,
       const char * const *headers)
{
  Pending *pending = g_new0 (Pending, 1);
  SoupMessageHeaders *h;

  pending->msg = soup_message_new (method, url != NULL ? url : fx->url);
  h = soup_message_get_request_headers (pending->msg);
  soup_message_headers_replace (h, "Accept", "application/json, text/event-stream");
  if (session_id != NULL)
    soup_message_headers_replace (h, "Mcp-Session-Id", session_id);
  if (body != NULL)
    {
      g_autoptr(GBytes) bytes = g_bytes_new (body, strlen (body));
      soup_message_set_request_body_from_bytes (pending->msg, "application/json", bytes);
    }
  for (gsize i = 0; headers != NULL && headers[i] != NULL; i += 2)
    {
      if (headers[i + 1] == NULL)
        soup_message_headers_remove (h, headers[i]);
      else
        soup_message_headers_replace (h, headers[i], headers[i + 1]);
    }
  soup_session_send_and_read_async (fx->client, pending->msg, G_PRIORITY_DEFAULT, NULL,
                                    sent_cb, pending);
  return pending;
}

static void
wait_for (Pending *pending)
{
  while (!pending->done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (pending->error);
}

static Pending *
request (Fixture            *fx,
         const char         *method,
         const char         *session_id,
         const char         *body,
         const char * const *headers)
{
  Pending *pending = start (fx, method, NULL, session_id, body, headers);
  wait_for (pending);
  return pending;
}

static guint
status_of (Pending *pending)
{
  return soup_message_get_status (pending->msg);
}

static const char *
header_of (Pending    *pending,
           const char *name)
{
  return soup_message_headers_get_one (soup_message_get_response_headers (pending->msg), name);
}

static char *
body_of (Pending *pending)
{
  return g_strndup (g_bytes_get_data (pending->body, NULL), g_bytes_get_size (pending->body));
}

static JsonNode *
json_of (Pending *pending)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = body_of (pending);
  JsonNode *node = gg_json_parse (text, -1, 128, &error);

  g_assert_no_error (error);
  return node;
}

/* The `data:` of every SSE event in the body. */
static GPtrArray *
events_of (Pending *pending)
{
  g_autofree char *text = body_of (pending);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  for (char **line = lines; *line != NULL; line++)
    if (g_str_has_prefix (*line, "data: "))
      g_ptr_array_add (events, json_from_string (*line + 6, NULL));
  return events;
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

static const char *
member_string (JsonNode   *node,
               const char *path)
{
  g_autoptr(GError) error = NULL;
  JsonNode *member = gg_json_path_get (node, path, &error);

  g_assert_no_error (error);
  return json_node_get_string (member);
}

#define INIT_BODY "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":" \
                  "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}," \
                  "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"

/* A new initialized session; returns its id. */
static char *
open_session (Fixture *fx)
{
  g_autoptr(Pending) init = request (fx, "POST", NULL, INIT_BODY, NULL);
  g_autoptr(Pending) done = NULL;
  char *id;

  g_assert_cmpuint (status_of (init), ==, 200);
  id = g_strdup (header_of (init, "Mcp-Session-Id"));
  g_assert_nonnull (id);
  done = request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", NULL);
  g_assert_cmpuint (status_of (done), ==, 202);
  return id;
}

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
  g_autoptr(JsonNode) result = json_of (echo);
  g_autoptr(JsonNode) error = json_of (unknown);
  g_autoptr(JsonNode) not_found = json_of (discover);

  g_assert_cmpstr (header_of (echo, "Content-Type"), ==, "application/json");
  g_assert_cmpint (member_int (result, "result.structuredContent.x"), ==, 1);
  g_assert_cmpint (member_int (error, "error.code"), ==, -32602);
  g_assert_cmpint (member_int (not_found, "error.code"), ==, -32601);
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
  /* No JSON-RPC response for a cancelled request. */
  g_assert_cmpuint (status_of (hang), ==, 202);
  g_assert_cmpuint (g_bytes_get_size (hang->body), ==, 0);
  while (fx->fake.n_cancelled == 0)
    g_main_context_iteration (NULL, TRUE);
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
  reply = json_of (echo_b);
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
    g_autoptr(JsonNode) closed = json_of (hang_a);
    g_assert_cmpint (member_int (closed, "error.code"), ==, -32603);
  }
  while (fx->fake.n_cancelled == 0)
    g_main_context_iteration (NULL, TRUE);
  ping_b = request (fx, "POST", b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}", NULL);
  g_assert_cmpuint (status_of (ping_b), ==, 200);
}

typedef struct {
  GDataInputStream *lines;
  GString          *seen;
  gboolean          waiting;
} Stream;

static void
line_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Stream *stream = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source),
                                                                     result, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (line);
  g_string_append (stream->seen, line);
  g_string_append_c (stream->seen, '\n');
  stream->waiting = FALSE;
}

static void
read_until (Stream     *stream,
            const char *needle)
{
  while (strstr (stream->seen->str, needle) == NULL)
    {
      stream->waiting = TRUE;
      g_data_input_stream_read_line_async (stream->lines, G_PRIORITY_DEFAULT, NULL, line_cb, stream);
      while (stream->waiting)
        g_main_context_iteration (NULL, TRUE);
    }
}

static void
opened_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  GInputStream **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = soup_session_send_finish (SOUP_SESSION (source), result, &error);
  g_assert_no_error (error);
}

static void
test_get_stream (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session (fx);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", fx->url);
  g_autoptr(GInputStream) body = NULL;
  Stream stream = { NULL, g_string_new (NULL), FALSE };

  soup_message_headers_replace (soup_message_get_request_headers (msg), "Accept", "text/event-stream");
  soup_message_headers_replace (soup_message_get_request_headers (msg), "Mcp-Session-Id", id);
  soup_session_send_async (fx->client, msg, G_PRIORITY_DEFAULT, NULL, opened_cb, &body);
  while (body == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  g_assert_cmpstr (soup_message_headers_get_content_type (soup_message_get_response_headers (msg), NULL),
                   ==, "text/event-stream");
  stream.lines = g_data_input_stream_new (body);
  read_until (&stream, ": gamegate MCP event stream");

  gb_mcp_server_notify_tools_changed (fx->server);
  read_until (&stream, "notifications/tools/list_changed");
  {
    g_autoptr(JsonNode) data_node = json_from_string ("\"hello\"", NULL);
    gb_mcp_server_log (fx->server, "debug", "bridge", data_node);   /* below info: filtered */
    gb_mcp_server_log (fx->server, "error", "bridge", data_node);
  }
  read_until (&stream, "\"level\":\"error\"");
  g_assert_null (strstr (stream.seen->str, "\"debug\""));
  g_assert_nonnull (strstr (stream.seen->str,
                            "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n"));

  /* A JSON-only client's call progress goes to the GET stream. */
  {
    g_autoptr(Pending) call =
      request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":"
                               "{\"name\":\"progress\",\"_meta\":{\"progressToken\":\"gp\"}}}",
               (const char *[]) { "Accept", "application/json", NULL });
    g_assert_cmpuint (status_of (call), ==, 200);
    read_until (&stream, "\"progressToken\":\"gp\"");
  }

  /* Closing the server ends the stream. */
  gb_mcp_server_close (fx->server);
  g_object_unref (stream.lines);
  g_string_free (stream.seen, TRUE);
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
  reply = json_of (hang);
  g_assert_cmpint (member_int (reply, "id"), ==, 5);
  g_assert_cmpint (member_int (reply, "error.code"), ==, -32603);
  while (fx->fake.n_cancelled == 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (gb_mcp_server_get_http_port (fx->server), ==, 0);
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
  ADD ("handshake", test_handshake, NULL);
  ADD ("pagination", test_pagination, GUINT_TO_POINTER (120));
  ADD ("origin", test_origin, NULL);
  ADD ("host", test_host, NULL);
  ADD ("session-errors", test_session_errors, NULL);
  ADD ("protocol-header", test_protocol_header, NULL);
  ADD ("hostile", test_hostile, NULL);
  ADD ("too-large", test_too_large, NULL);
  ADD ("call", test_call, NULL);
  ADD ("progress-sse", test_progress_sse, NULL);
  ADD ("cancel", test_cancel, NULL);
  ADD ("two-clients", test_two_clients, NULL);
  ADD ("get-stream", test_get_stream, NULL);
  ADD ("expiry", test_expiry, NULL);
  ADD ("close-answers", test_close_answers, NULL);
  return g_test_run ();
}
