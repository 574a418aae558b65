/* test-mcp-http-sessions.c: the bounded session table of the Streamable
 * HTTP transport. Clients that leave without DELETE (the official SDK's
 * close() sends none) must not lock new ones out: a new client at a full
 * table ends the least recently used session without a request in flight,
 * whose client then gets 404; a session with a request in flight is never
 * ended; only when every one has one is a new client refused (503). And
 * the connections of clients that went are closed, not kept, a dropped GET
 * stream included.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "mcp-http-test.h"

#define PING "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"
#define HANG "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"hang\"}}"
#define CANCEL "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}"
#define NOT_FOUND "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000," \
                  "\"message\":\"Not Found: unknown or expired session; initialize a new one\"}}"

static void
set_max_sessions (Fixture *fx,
                  guint    max_sessions)
{
  GbMcpHttpSettings settings = { max_sessions, 0, 0 };

  gb_mcp_server_set_http_settings (fx->server, &settings);
}

static guint
ping (Fixture    *fx,
      const char *id,
      char      **body)
{
  g_autoptr(Pending) pong = request (fx, "POST", id, PING, NULL);

  if (body != NULL)
    *body = body_of (pong);
  return status_of (pong);
}

static void
wait_calls (Fixture *fx,
            guint    n)
{
  while (fx->fake.n_calls < n)
    g_main_context_iteration (NULL, TRUE);
}

/* The one used least recently goes, whatever the order they came in. */
static void
test_least_recent_goes (Fixture *fx, gconstpointer data)
{
  g_autofree char *a = NULL, *b = NULL, *c = NULL, *d = NULL, *gone = NULL;

  set_max_sessions (fx, 3);
  a = open_session (fx);
  b = open_session (fx);
  c = open_session (fx);
  g_assert_cmpuint (ping (fx, a, NULL), ==, 200);
  d = open_session (fx);
  g_assert_cmpuint (ping (fx, b, &gone), ==, 404);
  g_assert_cmpstr (gone, ==, NOT_FOUND);
  g_assert_cmpuint (ping (fx, a, NULL), ==, 200);
  g_assert_cmpuint (ping (fx, c, NULL), ==, 200);
  g_assert_cmpuint (ping (fx, d, NULL), ==, 200);
}

/* The least recent one has a call running: the next one goes instead; when
 * all have, a new client is refused. */
static void
test_busy_session_stays (Fixture *fx, gconstpointer data)
{
  g_autofree char *a = NULL, *b = NULL, *c = NULL;
  g_autoptr(Pending) hang_a = NULL;
  g_autoptr(Pending) hang_c = NULL;
  g_autoptr(Pending) refused = NULL;
  g_autofree char *text = NULL;

  set_max_sessions (fx, 2);
  a = open_session (fx);
  hang_a = start (fx, "POST", NULL, a, HANG, NULL);
  wait_calls (fx, 1);
  b = open_session (fx);
  c = open_session (fx);
  g_assert_cmpuint (ping (fx, b, NULL), ==, 404);
  g_assert_cmpuint (ping (fx, a, NULL), ==, 200);
  g_assert_false (hang_a->done);

  hang_c = start (fx, "POST", NULL, c, HANG, NULL);
  wait_calls (fx, 2);
  refused = request (fx, "POST", NULL, INIT_BODY, NULL);
  text = body_of (refused);
  g_assert_cmpuint (status_of (refused), ==, 503);
  g_assert_null (header_of (refused, "Mcp-Session-Id"));
  g_assert_cmpstr (text, ==, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,\"message\":"
                             "\"Service Unavailable: too many sessions (the limit is 2, each with a request "
                             "in flight)\"}}");

  /* Answered, a goes as the least recent one. */
  {
    g_autoptr(Pending) cancel = request (fx, "POST", a, CANCEL, NULL);
    g_autofree char *d = NULL;

    wait_for (hang_a);
    d = open_session (fx);
    g_assert_cmpuint (ping (fx, a, NULL), ==, 404);
    g_assert_cmpuint (ping (fx, d, NULL), ==, 200);
    g_assert_false (hang_c->done);
  }
  {
    g_autoptr(Pending) cancel = request (fx, "POST", c, CANCEL, NULL);
    wait_for (hang_c);
  }
}

/* An open GET stream is no request in flight: the session goes, and its
 * stream ends. */
static void
test_listening_session_goes (Fixture *fx, gconstpointer data)
{
  g_autofree char *a = NULL, *b = NULL;
  Stream *get;

  set_max_sessions (fx, 1);
  a = open_session (fx);
  get = stream_open (fx, "GET", a, NULL, NULL);
  stream_read_until (get, "data:\n\n");
  b = open_session (fx);
  stream_read_to_end (get);
  g_assert_cmpstr (get->seen->str, ==, ": gamegate MCP event stream\n\nid: 1-0\nretry: 1000\ndata:\n\n");
  g_assert_cmpuint (ping (fx, a, NULL), ==, 404);
  g_assert_cmpuint (ping (fx, b, NULL), ==, 200);
  stream_free (get);
}

/* Many clients that never DELETE: each new one is served. */
static void
test_many_leavers (Fixture *fx, gconstpointer data)
{
  set_max_sessions (fx, 8);
  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *id = open_session (fx);

      g_assert_cmpuint (ping (fx, id, NULL), ==, 200);
    }
}

/* A client that drops its GET stream has gone: its session is idle, so it
 * expires (were the stream thought open, it never would). */
static void
test_dropped_stream_expires (Fixture *fx, gconstpointer data)
{
  g_autofree char *listening = open_session (fx);
  g_autofree char *dropped = open_session (fx);
  Stream *kept = stream_open (fx, "GET", listening, NULL, NULL);
  Stream *gone = stream_open (fx, "GET", dropped, NULL, NULL);

  stream_read_until (kept, "data:\n\n");
  stream_read_until (gone, "data:\n\n");
  stream_drop (gone);
  iterate_for (50);
  gb_mcp_http_set_session_idle_timeout (gb_mcp_server_get_http (fx->server), 20 * G_TIME_SPAN_MILLISECOND);
  iterate_for (60);
  g_assert_cmpuint (ping (fx, dropped, NULL), ==, 404);
  g_assert_cmpuint (ping (fx, listening, NULL), ==, 200);
  stream_free (gone);
  gb_mcp_server_close (fx->server);
  stream_read_to_end (kept);
  stream_free (kept);
}

static guint
count_fds (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  while (dir != NULL && g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

/* Clients that close their connections, kept alive or not: the server
 * keeps none of them (libsoup 3.2's own listener kept every one whose
 * client closed it while idle). */
static void
test_connections_released (Fixture *fx, gconstpointer data)
{
  guint before, after;
  g_autofree char *warm = open_session (fx);

  soup_session_abort (fx->client);
  iterate_for (50);
  before = count_fds ();
  for (guint i = 0; i < 100; i++)
    {
      g_autofree char *id = open_session (fx);

      g_assert_cmpuint (ping (fx, id, NULL), ==, 200);
      soup_session_abort (fx->client);
    }
  iterate_for (200);
  after = count_fds ();
  g_test_message ("file descriptors: %u before, %u after 100 clients", before, after);
  g_assert_cmpuint (after, <=, before + 4);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/gamebridge/mcp-http/sessions/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("least-recent-goes", test_least_recent_goes);
  ADD ("busy-session-stays", test_busy_session_stays);
  ADD ("listening-session-goes", test_listening_session_goes);
  ADD ("many-leavers", test_many_leavers);
  ADD ("dropped-stream-expires", test_dropped_stream_expires);
  ADD ("connections-released", test_connections_released);
  return g_test_run ();
}
