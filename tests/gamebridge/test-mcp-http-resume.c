/* test-mcp-http-resume.c: resumability and redelivery of the Streamable
 * HTTP transport (MCP 2025-11-25), as exact SSE: an id on every event,
 * unique in the session and naming its stream; the priming event with
 * `retry`; none of it for a 2025-06-18 client but the ids; a dropped
 * request stream resumed with GET and Last-Event-ID before and after its
 * answer; a connection taken over; the GET stream resumed; Last-Event-IDs
 * that are malformed, unknown, another session's, beyond a stream's replay
 * buffer or of a stream no longer kept.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-mcp-event-store.h"
#include "mcp-http-test.h"

/* `gate` with a progress token: one progress report at once, then its
 * answer when the test opens the gates. */
#define GATE_CALL(id) "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"tools/call\",\"params\":" \
                      "{\"name\":\"gate\",\"_meta\":{\"progressToken\":\"t\"}}}"
#define PROGRESS(n) "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"," \
                    "\"params\":{\"progressToken\":\"t\",\"progress\":" n ".0}}"
#define GATE_ANSWER(id) "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"result\":{\"content\":" \
                        "[{\"type\":\"text\",\"text\":\"{}\"}],\"structuredContent\":{}}}"
#define LIST_CHANGED "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}"
#define HELLO ": gamegate MCP event stream\n\n"
#define PRIME(id, retry) "id: " id "\nretry: " retry "\ndata:\n\n"
#define EVENT(id, data) "id: " id "\nevent: message\ndata: " data "\n\n"

static void
set_settings (Fixture *fx,
              guint    max_sessions,
              guint    replay_events,
              guint    retry_ms)
{
  GbMcpHttpSettings settings = { max_sessions, replay_events, retry_ms };

  gb_mcp_server_set_http_settings (fx->server, &settings);
}

static Pending *
resume (Fixture    *fx,
        const char *session_id,
        const char *last_event_id)
{
  return request (fx, "GET", session_id, NULL,
                  (const char *[]) { "Accept", "text/event-stream", "Last-Event-ID", last_event_id, NULL });
}

static void
assert_body (Pending    *pending,
             guint       status,
             const char *expected)
{
  g_autofree char *text = body_of (pending);

  g_assert_cmpuint (status_of (pending), ==, status);
  g_assert_cmpstr (text, ==, expected);
}

/* A `gate` call (id 1) on its own stream, read up to its first progress
 * event (id 1-1). */
static Stream *
start_gate (Fixture    *fx,
            const char *session_id)
{
  Stream *call = stream_open (fx, "POST", session_id, GATE_CALL ("1"), NULL);

  stream_read_until (call, "\"progress\":1.0}}\n\n");
  return call;
}

/* The GET stream and a request stream: ids "<stream>-<n>" through the
 * session, each stream primed with `retry`. */
static void
test_ids_and_priming (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = NULL;
  Stream *get, *call;

  set_settings (fx, 0, 0, 250);
  id = open_session (fx);
  get = stream_open (fx, "GET", id, NULL, NULL);
  stream_read_until (get, "data:\n\n");
  g_assert_cmpstr (get->seen->str, ==, HELLO PRIME ("1-0", "250"));
  gb_mcp_server_notify_tools_changed (fx->server);
  stream_read_until (get, "list_changed\"}\n\n");
  g_assert_cmpstr (get->seen->str, ==, HELLO PRIME ("1-0", "250") EVENT ("1-1", LIST_CHANGED));

  call = stream_open (fx, "POST", id, GATE_CALL ("5"), NULL);
  stream_read_until (call, "\"progress\":1.0}}\n\n");
  g_assert_cmpuint (fake_provider_open_gates (&fx->fake), ==, 1);
  stream_read_to_end (call);
  g_assert_cmpstr (call->seen->str, ==,
                   PRIME ("2-0", "250") EVENT ("2-1", PROGRESS ("1")) EVENT ("2-2", GATE_ANSWER ("5")));

  gb_mcp_server_notify_tools_changed (fx->server);
  stream_read_until (get, "id: 1-2\n");
  stream_free (call);
  gb_mcp_server_close (fx->server);
  stream_read_to_end (get);
  g_assert_cmpstr (get->seen->str, ==,
                   HELLO PRIME ("1-0", "250") EVENT ("1-1", LIST_CHANGED) EVENT ("1-2", LIST_CHANGED));
  stream_free (get);
}

/* A client of 2025-06-18 cannot resume: ids, but no priming event, and a
 * call answered late is answered as JSON. */
static void
test_older_client (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session_version (fx, "2025-06-18");
  g_autoptr(Pending) echo =
    request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"echo\",\"arguments\":{}}}", NULL);
  Stream *get = stream_open (fx, "GET", id, NULL, NULL);
  Stream *call;

  g_assert_cmpstr (header_of (echo, "Content-Type"), ==, "application/json");
  stream_read_until (get, HELLO);
  gb_mcp_server_notify_tools_changed (fx->server);
  stream_read_until (get, "list_changed\"}\n\n");
  g_assert_cmpstr (get->seen->str, ==, HELLO EVENT ("1-0", LIST_CHANGED));

  call = stream_open (fx, "POST", id, GATE_CALL ("2"), NULL);
  stream_read_until (call, "\"progress\":1.0}}\n\n");
  fake_provider_open_gates (&fx->fake);
  stream_read_to_end (call);
  g_assert_cmpstr (call->seen->str, ==, EVENT ("2-0", PROGRESS ("1")) EVENT ("2-1", GATE_ANSWER ("2")));
  stream_free (call);
  gb_mcp_server_close (fx->server);
  stream_read_to_end (get);
  stream_free (get);
}

/* The connection drops, the answer comes, the client resumes: it gets
 * what it missed (the answer) and the stream ends; from an earlier id,
 * more. */
static void
test_resume_after_answer (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session (fx);
  Stream *call = start_gate (fx, id);
  g_autoptr(Pending) resumed = NULL;
  g_autoptr(Pending) earlier = NULL;

  stream_drop (call);
  /* The drop does not cancel the call. */
  g_assert_cmpuint (fake_provider_open_gates (&fx->fake), ==, 1);
  iterate_for (20);
  g_assert_cmpuint (fx->fake.n_cancelled, ==, 0);

  resumed = resume (fx, id, "1-1");
  g_assert_cmpstr (header_of (resumed, "Content-Type"), ==, "text/event-stream");
  assert_body (resumed, 200, EVENT ("1-2", GATE_ANSWER ("1")));
  earlier = resume (fx, id, "1-0");
  assert_body (earlier, 200, EVENT ("1-1", PROGRESS ("1")) EVENT ("1-2", GATE_ANSWER ("1")));
  stream_free (call);
}

/* Resumed while the call still runs: a new priming event, then the answer
 * on the new connection. */
static void
test_resume_before_answer (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session (fx);
  Stream *call = start_gate (fx, id);
  Stream *resumed;

  stream_drop (call);
  resumed = stream_open (fx, "GET", id, NULL, (const char *[]) { "Last-Event-ID", "1-1", NULL });
  g_assert_cmpuint (soup_message_get_status (resumed->msg), ==, 200);
  stream_read_until (resumed, "data:\n\n");
  g_assert_cmpstr (resumed->seen->str, ==, PRIME ("1-2", "1000"));
  fake_provider_open_gates (&fx->fake);
  stream_read_to_end (resumed);
  g_assert_cmpstr (resumed->seen->str, ==, PRIME ("1-2", "1000") EVENT ("1-3", GATE_ANSWER ("1")));
  stream_free (resumed);
  stream_free (call);
}

/* A resume while the first connection looks alive takes the stream over:
 * the old answer ends, every later event goes to the new one only. */
static void
test_takeover (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session (fx);
  Stream *call = start_gate (fx, id);
  Stream *resumed;

  resumed = stream_open (fx, "GET", id, NULL, (const char *[]) { "Last-Event-ID", "1-1", NULL });
  stream_read_to_end (call);
  g_assert_cmpstr (call->seen->str, ==, PRIME ("1-0", "1000") EVENT ("1-1", PROGRESS ("1")));
  fake_provider_open_gates (&fx->fake);
  stream_read_to_end (resumed);
  g_assert_cmpstr (resumed->seen->str, ==, PRIME ("1-2", "1000") EVENT ("1-3", GATE_ANSWER ("1")));
  stream_free (resumed);
  stream_free (call);
}

/* The GET stream: what was sent while it had no connection is replayed,
 * and it goes on. */
static void
test_resume_get_stream (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session (fx);
  Stream *get = stream_open (fx, "GET", id, NULL, NULL);
  Stream *resumed;

  gb_mcp_server_notify_tools_changed (fx->server);
  gb_mcp_server_notify_tools_changed (fx->server);
  stream_read_until (get, "id: 1-2\n");
  stream_drop (get);
  gb_mcp_server_notify_tools_changed (fx->server);
  iterate_for (20);
  resumed = stream_open (fx, "GET", id, NULL, (const char *[]) { "Last-Event-ID", "1-1", NULL });
  stream_read_until (resumed, "data:\n\n");
  g_assert_cmpstr (resumed->seen->str, ==,
                   EVENT ("1-2", LIST_CHANGED) EVENT ("1-3", LIST_CHANGED) PRIME ("1-4", "1000"));
  gb_mcp_server_notify_tools_changed (fx->server);
  gb_mcp_server_close (fx->server);
  stream_read_to_end (resumed);
  g_assert_cmpstr (resumed->seen->str, ==,
                   EVENT ("1-2", LIST_CHANGED) EVENT ("1-3", LIST_CHANGED) PRIME ("1-4", "1000")
                   EVENT ("1-5", LIST_CHANGED));
  stream_free (resumed);
  stream_free (get);
}

/* Ids that cannot be resumed get a clear error, never a stream with a gap. */
static void
test_bad_ids (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session (fx);
  g_autofree char *other = open_session (fx);
  g_autoptr(Pending) echo =
    request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"echo\",\"arguments\":{}}}", NULL);
  const char *malformed[] = { "garbage", "1-", "-1", "0-0", "1-x", "+1-0", "1-0-0", "" };

  g_assert_cmpstr (header_of (echo, "Content-Type"), ==, "text/event-stream");
  for (guint i = 0; i < G_N_ELEMENTS (malformed); i++)
    {
      g_autoptr(Pending) bad = resume (fx, id, malformed[i]);

      assert_body (bad, 400, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,"
                             "\"message\":\"Bad Request: Last-Event-ID is not an event id of this server\"}}");
    }
  {
    g_autoptr(Pending) no_stream = resume (fx, id, "7-0");
    g_autoptr(Pending) no_event = resume (fx, id, "1-2");
    g_autoptr(Pending) foreign = resume (fx, other, "1-0");
    g_autoptr(Pending) no_session = resume (fx, "0123456789abcdef0123456789abcdef", "1-0");
    g_autoptr(Pending) good = resume (fx, id, "1-0");

    assert_body (no_stream, 400, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,"
                                 "\"message\":\"Bad Request: Last-Event-ID 7-0 names no event of this session\"}}");
    assert_body (no_event, 400, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,"
                                "\"message\":\"Bad Request: Last-Event-ID 1-2 names no event of this session\"}}");
    /* Another session's stream is never replayed. */
    assert_body (foreign, 400, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,"
                               "\"message\":\"Bad Request: Last-Event-ID 1-0 names no event of this session\"}}");
    g_assert_cmpuint (status_of (no_session), ==, 404);
    assert_body (good, 200, EVENT ("1-1", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":"
                                          "[{\"type\":\"text\",\"text\":\"{}\"}],\"structuredContent\":{}}}"));
  }
}

/* A stream keeps its last sse-replay-events events: an id before those is
 * refused (410), one within them replays the rest. */
static void
test_replay_limit (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = NULL;
  Stream *call;
  g_autoptr(Pending) too_old = NULL;
  g_autoptr(Pending) oldest = NULL;

  set_settings (fx, 0, 3, 0);
  id = open_session (fx);
  call = stream_open (fx, "POST", id,
                      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                      "{\"name\":\"gate\",\"arguments\":{\"reports\":6},\"_meta\":{\"progressToken\":\"t\"}}}",
                      NULL);
  stream_read_until (call, "\"progress\":6.0}}\n\n");
  stream_drop (call);
  /* Kept: progress 5 and 6, and the answer. */
  fake_provider_open_gates (&fx->fake);
  iterate_for (20);
  too_old = resume (fx, id, "1-3");
  assert_body (too_old, 410, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,"
                             "\"message\":\"Gone: the events after Last-Event-ID 1-3 are no longer kept "
                             "(a stream keeps its last 3; [gamebridge] sse-replay-events)\"}}");
  oldest = resume (fx, id, "1-4");
  assert_body (oldest, 200,
               EVENT ("1-5", PROGRESS ("5")) EVENT ("1-6", PROGRESS ("6"))
               EVENT ("1-7", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\","
                             "\"text\":\"{\\\"reports\\\":6}\"}],\"structuredContent\":{\"reports\":6}}}"));
  stream_free (call);
}

/* Streams with nothing more to send are kept for a late resume, the last
 * GB_MCP_EVENT_STORE_MAX_IDLE_STREAMS of them. */
static void
test_idle_streams_kept (Fixture *fx, gconstpointer data)
{
  g_autofree char *id = open_session (fx);
  g_autoptr(Pending) gone = NULL;
  g_autoptr(Pending) kept = NULL;

  for (guint i = 1; i <= GB_MCP_EVENT_STORE_MAX_IDLE_STREAMS + 2; i++)
    {
      g_autofree char *body = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"tools/call\","
                                               "\"params\":{\"name\":\"echo\",\"arguments\":{}}}", i);
      g_autoptr(Pending) echo = request (fx, "POST", id, body, NULL);

      g_assert_cmpstr (header_of (echo, "Content-Type"), ==, "text/event-stream");
    }
  gone = resume (fx, id, "2-0");
  assert_body (gone, 410, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,"
                          "\"message\":\"Gone: the stream of Last-Event-ID 2-0 is no longer kept\"}}");
  kept = resume (fx, id, "3-0");
  assert_body (kept, 200, EVENT ("3-1", "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":"
                                        "[{\"type\":\"text\",\"text\":\"{}\"}],\"structuredContent\":{}}}"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/gamebridge/mcp-http/resume/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("ids-and-priming", test_ids_and_priming);
  ADD ("older-client", test_older_client);
  ADD ("after-answer", test_resume_after_answer);
  ADD ("before-answer", test_resume_before_answer);
  ADD ("takeover", test_takeover);
  ADD ("get-stream", test_resume_get_stream);
  ADD ("bad-ids", test_bad_ids);
  ADD ("replay-limit", test_replay_limit);
  ADD ("idle-streams-kept", test_idle_streams_kept);
  return g_test_run ();
}
