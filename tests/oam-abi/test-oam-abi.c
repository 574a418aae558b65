/* test-oam-abi.c: the C ABI's contract (gamegate-oam.h, issue 20), rule by
 * rule, through the library as an engine uses it: messages, threading,
 * tool calls answered from the callback, oam_call_blocking(). Its
 * lifetime rules are in test-oam-abi-lifetime.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "oam-abi-test.h"

#define PING(id) "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"ping\"}"
#define PONG(id) "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"result\":{}}"

/* A session whose scripted model has these steps (JSON text). */
static char *
create_session (const char *session,
                const char *steps,
                const char *extra)
{
  return g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":\"create-%s\",\"method\":\"session/create\","
                          "\"params\":{\"session\":\"%s\",%s\"model\":{\"type\":\"scripted\",\"steps\":%s}}}",
                          session, session, extra != NULL ? extra : "", steps);
}

/* NULL arguments and bad UTF-8 are the return value's; nothing else is. */
static void
test_arguments (void)
{
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  oam_bridge *bridge;
  g_autofree char *pong = NULL;

  g_assert_null (oam_bridge_create (NULL, rec));
  bridge = abi_bridge_new (rec);
  g_assert_cmpint (oam_bridge_send (NULL, PING ("1")), ==, OAM_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (oam_bridge_send (bridge, NULL), ==, OAM_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (oam_bridge_send (bridge, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xff\"}"), ==,
                   OAM_ERROR_INVALID_UTF8);
  g_assert_cmpint (oam_bridge_send (bridge, "\xc3"), ==, OAM_ERROR_INVALID_UTF8);
  g_assert_null (oam_call_blocking (NULL, PING ("1"), 0));
  g_assert_null (oam_call_blocking (bridge, NULL, 0));
  oam_string_free (NULL);
  oam_bridge_destroy (NULL);

  /* Refused messages never reached the bridge: the next answer is the
   * first line the callback sees. */
  abi_send (bridge, PING ("2"));
  abi_wait_count (rec, 1);
  pong = abi_line (rec, 0);
  g_assert_cmpstr (pong, ==, PONG ("2"));
  oam_bridge_destroy (bridge);
  g_assert_cmpuint (abi_count (rec), ==, 1);
}

/* One line of UTF-8 JSON without a newline each way; malformed JSON is a
 * -32700 through the callback; the strings given are borrowed only. */
static void
test_messages (void)
{
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  oam_bridge *bridge = abi_bridge_new (rec);
  char borrowed[64];
  g_autofree char *hello = NULL;
  g_autofree char *expected_hello = NULL;

  abi_send (bridge, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"1.0\"}}");
  abi_wait_match (rec, "\"id\":1,");
  abi_send (bridge, "not json");
  /* Pretty-printed: its newlines are JSON whitespace, it is one message. */
  abi_send (bridge, "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 3,\r\n  \"method\": \"ping\"\n}\n");
  /* Blank: ignored, as over stdio. */
  abi_send (bridge, "");
  abi_send (bridge, "  ");
  g_strlcpy (borrowed, PING ("\"\xc3\xa9t\xc3\xa9\""), sizeof borrowed);
  abi_send (bridge, borrowed);
  memset (borrowed, 'x', sizeof borrowed - 1);
  abi_wait_count (rec, 4);

  hello = abi_line (rec, 0);
  expected_hello = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"1.0\","
                                    "\"server\":{\"name\":\"gamegate\",\"version\":\"%s\"},", oam_version ());
  g_assert_true (g_str_has_prefix (hello, expected_hello));
  g_assert_cmpstr (oam_version (), ==, PACKAGE_VERSION);
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *line = abi_line (rec, i);

      g_assert_null (strchr (line, '\n'));
      g_assert_null (strchr (line, '\r'));
      g_assert_true (g_utf8_validate (line, -1, NULL));
    }
  {
    g_autofree char *parse = abi_line (rec, 1);
    g_autofree char *three = abi_line (rec, 2);
    g_autofree char *unicode = abi_line (rec, 3);

    g_assert_cmpstr (parse, ==, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
                     "\"message\":\"Parse error: unexpected word\",\"data\":{\"code\":\"parse_error\"}}}");
    g_assert_cmpstr (three, ==, PONG ("3"));
    g_assert_cmpstr (unicode, ==, PONG ("\"\xc3\xa9t\xc3\xa9\""));
  }
  oam_bridge_destroy (bridge);
  g_assert_cmpuint (abi_count (rec), ==, 4);
  g_assert_false (rec->overlapped);
}

/* Pipelining: create and respond back to back; a request's events before
 * its response; a long turn does not hold back later requests. */
static void
test_pipelining (void)
{
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  oam_bridge *bridge = abi_bridge_new (rec);
  g_autofree char *fast = create_session ("fast", "[{\"text\":\"Hmph.\",\"chunks\":2}]", NULL);
  g_autofree char *slow = create_session ("slow", "[{\"text\":\"late\",\"delayMs\":1500}]", NULL);
  guint created, delta, answered, slow_answer, ping;

  abi_send (bridge, slow);
  abi_send (bridge, "{\"jsonrpc\":\"2.0\",\"id\":\"turn-slow\",\"method\":\"session/respond\","
                    "\"params\":{\"session\":\"slow\",\"prompt\":\"hi\"}}");
  abi_send (bridge, fast);
  abi_send (bridge, "{\"jsonrpc\":\"2.0\",\"id\":\"turn-fast\",\"method\":\"session/respond\","
                    "\"params\":{\"session\":\"fast\",\"prompt\":\"hi\",\"stream\":true}}");
  abi_send (bridge, PING ("\"after\""));

  slow_answer = abi_wait_match (rec, "\"id\":\"turn-slow\"");
  created = abi_wait_match (rec, "\"id\":\"create-fast\"");
  delta = abi_wait_match (rec, "\"requestId\":\"turn-fast\",\"event\":{\"type\":\"text\"");
  answered = abi_wait_match (rec, "\"id\":\"turn-fast\"");
  ping = abi_wait_match (rec, PONG ("\"after\""));
  g_assert_cmpuint (created, <, delta);
  g_assert_cmpuint (delta, <, answered);
  /* The ping and the fast turn did not wait for the slow turn. */
  g_assert_cmpuint (ping, <, slow_answer);
  g_assert_cmpuint (answered, <, slow_answer);
  {
    g_autofree char *line = abi_line (rec, answered);

    g_assert_true (g_str_has_prefix (line, "{\"jsonrpc\":\"2.0\",\"id\":\"turn-fast\",\"result\":"
                                     "{\"session\":\"fast\",\"text\":\"Hmph.\","));
  }
  oam_bridge_destroy (bridge);
}

typedef struct {
  oam_bridge *bridge;
  guint thread;
  guint count;
} Sender;

static gpointer
send_pings (gpointer data)
{
  Sender *sender = data;

  for (guint i = 0; i < sender->count; i++)
    {
      g_autofree char *line = g_strdup_printf (PING ("\"t%u-%u\""), sender->thread, i);

      abi_send (sender->bridge, line);
    }
  return NULL;
}

/* Any thread may send; 8 at once: every request answered exactly once,
 * each thread's in the order it sent them; the callback one at a time, on
 * one thread of the bridge's. */
static void
test_threads (void)
{
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  oam_bridge *bridge = abi_bridge_new (rec);
  const guint n_threads = 8;
  const guint per_thread = abi_under_valgrind () ? 50 : 250;
  Sender senders[8];
  GThread *threads[8];
  guint next[8] = { 0 };

  for (guint t = 0; t < n_threads; t++)
    {
      senders[t] = (Sender) { bridge, t, per_thread };
      threads[t] = g_thread_new ("sender", send_pings, &senders[t]);
    }
  for (guint t = 0; t < n_threads; t++)
    g_thread_join (threads[t]);
  abi_wait_count (rec, n_threads * per_thread);

  for (guint i = 0; i < n_threads * per_thread; i++)
    {
      g_autofree char *line = abi_line (rec, i);
      guint t, n;

      g_assert_cmpint (sscanf (line, "{\"jsonrpc\":\"2.0\",\"id\":\"t%u-%u\",\"result\":{}}", &t, &n), ==, 2);
      g_assert_cmpuint (t, <, n_threads);
      g_assert_cmpuint (n, ==, next[t]);
      next[t]++;
    }
  oam_bridge_destroy (bridge);
  g_assert_cmpuint (abi_count (rec), ==, n_threads * per_thread);
  g_assert_false (rec->overlapped);
  g_assert_false (rec->thread_changed);
  g_assert_false (pthread_equal (rec->thread, pthread_self ()));
}

#define GUARD_TOOLS "\"instructions\":\"You are a castle guard.\",\"tools\":[{\"name\":\"open_gate\"," \
  "\"description\":\"Open a gate.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"gate\":" \
  "{\"type\":\"string\"}},\"required\":[\"gate\"]}}],\"options\":{\"toolChoice\":\"required\"},"
#define GUARD_STEPS "[{\"toolCalls\":[{\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"},\"id\":\"call_1\"}]}," \
  "{\"template\":\"Gate says: {toolOutput}\"}]"

/* The callback answers tool/call from inside itself: no deadlock, and the
 * turn's events and tool call come before its response. */
static void
test_tool_call_from_callback (void)
{
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  oam_bridge *bridge;
  g_autofree char *create = create_session ("guard", GUARD_STEPS, GUARD_TOOLS);
  guint started, call, completed, response;
  g_autofree char *call_line = NULL;
  g_autofree char *response_line = NULL;

  rec->tool_output = g_strdup ("{\"opened\":false,\"reason\":\"jammed\"}");
  bridge = abi_bridge_new (rec);
  abi_send (bridge, create);
  abi_send (bridge, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"session/respond\","
                    "\"params\":{\"session\":\"guard\",\"prompt\":\"Open the north gate.\",\"stream\":true}}");
  response = abi_wait_match (rec, "{\"jsonrpc\":\"2.0\",\"id\":7,");
  started = abi_wait_match (rec, "\"type\":\"toolCallStarted\"");
  call = abi_wait_match (rec, "\"method\":\"tool/call\"");
  completed = abi_wait_match (rec, "\"type\":\"toolCallCompleted\"");
  g_assert_cmpuint (started, <, call);
  g_assert_cmpuint (call, <, completed);
  g_assert_cmpuint (completed, <, response);
  call_line = abi_line (rec, call);
  g_assert_cmpstr (call_line, ==, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"method\":\"tool/call\",\"params\":"
                   "{\"session\":\"guard\",\"requestId\":7,\"call\":{\"id\":\"call_1\",\"name\":\"open_gate\","
                   "\"arguments\":{\"gate\":\"north\"}}}}");
  response_line = abi_line (rec, response);
  g_assert_true (g_str_has_prefix (response_line,
                                   "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"session\":\"guard\",\"text\":"
                                   "\"Gate says: {\\\"opened\\\":false,\\\"reason\\\":\\\"jammed\\\"}\","));
  oam_bridge_destroy (bridge);
  g_assert_false (rec->overlapped);
}

/* oam_call_blocking(): jsonrpc and id optional, the response returned (not
 * given to the callback), its events to the callback with its id. */
static void
test_blocking (void)
{
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  oam_bridge *bridge = abi_bridge_new (rec);
  g_autofree char *create = create_session ("a", "[{\"text\":\"One two\",\"chunks\":2},{\"text\":\"later\",\"delayMs\":300}]", NULL);
  g_autofree char *created = NULL;
  g_autofree char *pong = NULL;
  g_autofree char *own = NULL;
  g_autofree char *turn = NULL;
  g_autofree char *forever = NULL;

  pong = abi_call (bridge, "{\"method\":\"ping\"}", 10000);
  g_assert_cmpstr (pong, ==, PONG ("\"c-1\""));
  own = abi_call (bridge, "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"ping\"}", 10000);
  g_assert_cmpstr (own, ==, PONG ("42"));
  created = abi_call (bridge, create, 10000);
  g_assert_cmpstr (created, ==, "{\"jsonrpc\":\"2.0\",\"id\":\"create-a\",\"result\":{\"session\":\"a\",\"warnings\":[]}}");
  turn = abi_call (bridge, "{\"id\":\"turn\",\"method\":\"session/respond\",\"params\":{\"session\":\"a\","
                           "\"prompt\":\"hi\",\"stream\":true}}", 10000);
  g_assert_true (g_str_has_prefix (turn, "{\"jsonrpc\":\"2.0\",\"id\":\"turn\",\"result\":{\"session\":\"a\","
                                         "\"text\":\"One two\","));
  /* Its events came to the callback, before it returned. */
  g_assert_true (abi_has_match (rec, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":"
                                     "{\"session\":\"a\",\"requestId\":\"turn\",\"event\":{\"type\":\"text\""));
  /* 0 waits as long as it takes. */
  forever = abi_call (bridge, "{\"id\":\"forever\",\"method\":\"session/respond\",\"params\":{\"session\":\"a\","
                              "\"prompt\":\"again\"}}", 0);
  g_assert_true (g_str_has_prefix (forever, "{\"jsonrpc\":\"2.0\",\"id\":\"forever\",\"result\":"
                                            "{\"session\":\"a\",\"text\":\"later\","));
  oam_bridge_destroy (bridge);
  /* No response reached the callback, only the turn's events. */
  for (guint i = 0; i < abi_count (rec); i++)
    {
      g_autofree char *line = abi_line (rec, i);

      g_assert_true (g_str_has_prefix (line, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\","));
    }
}

/* On timeout: -32024, the request cancelled (the turn queued behind it
 * runs at once), its late answer never seen. */
static void
test_blocking_timeout (void)
{
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  oam_bridge *bridge = abi_bridge_new (rec);
  g_autofree char *create = create_session ("a", "[{\"text\":\"never\",\"delayMs\":600000},{\"text\":\"next\"}]", NULL);
  g_autofree char *created = abi_call (bridge, create, 10000);
  g_autofree char *timeout = NULL;
  g_autofree char *next = NULL;
  g_autofree char *decision = NULL;

  g_assert_true (g_str_has_prefix (created, "{\"jsonrpc\":\"2.0\",\"id\":\"create-a\",\"result\""));
  timeout = oam_call_blocking (bridge, "{\"id\":\"slow\",\"method\":\"session/respond\",\"params\":"
                                       "{\"session\":\"a\",\"prompt\":\"one\"}}", 200);
  g_assert_cmpstr (timeout, ==, "{\"jsonrpc\":\"2.0\",\"id\":\"slow\",\"error\":{\"code\":-32024,\"message\":"
                   "\"No response within 200 ms: the request was cancelled\",\"data\":{\"code\":\"timeout\"}}}");
  oam_string_free (g_steal_pointer (&timeout));
  /* Cancelled: the session is free for the next turn, which gets the next
   * step (the 10-minute one was the cancelled turn's). */
  next = abi_call (bridge, "{\"id\":\"next\",\"method\":\"session/respond\",\"params\":"
                           "{\"session\":\"a\",\"prompt\":\"two\"}}", 10000);
  g_assert_true (g_str_has_prefix (next, "{\"jsonrpc\":\"2.0\",\"id\":\"next\",\"result\":{\"session\":\"a\","
                                         "\"text\":\"next\","));
  /* Work without a session to cancel it by: a decision. */
  decision = oam_call_blocking (bridge, "{\"id\":9,\"method\":\"decision/decide\",\"params\":{\"situation\":\"x\","
                                        "\"options\":[\"a\",\"b\"],\"model\":{\"type\":\"scripted\",\"steps\":"
                                        "[{\"json\":{\"reasoning\":\"r\",\"optionID\":\"a\",\"confidence\":5},"
                                        "\"delayMs\":600000}]}}}", 100);
  g_assert_cmpstr (decision, ==, "{\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":-32024,\"message\":"
                   "\"No response within 100 ms: the request was cancelled\",\"data\":{\"code\":\"timeout\"}}}");
  oam_string_free (g_steal_pointer (&decision));
  g_free (abi_call (bridge, PING ("\"sync\""), 10000));
  oam_bridge_destroy (bridge);
  /* The late -32009s were dropped, not handed to the callback. */
  g_assert_cmpuint (abi_count (rec), ==, 0);
}

/* What oam_call_blocking() cannot send is answered at once. */
static void
test_blocking_errors (void)
{
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  oam_bridge *bridge;
  struct {
    const char *request;
    const char *response;
  } cases[] = {
    { "not json", "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error: "
      "JSON parse error at line 1, column 1: unexpected character\",\"data\":{\"code\":\"parse_error\"}}}" },
    { "\xff", "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error: the "
      "request is not valid UTF-8\",\"data\":{\"code\":\"parse_error\"}}}" },
    { "[1]", "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Invalid Request: not a "
      "JSON object\",\"data\":{\"code\":\"invalid_message\"}}}" },
    { "{\"id\":3}", "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32600,\"message\":\"Invalid Request: "
      "oam_call_blocking() sends requests: 'method' must be a string\",\"data\":{\"code\":\"invalid_message\"}}}" },
    { "{\"id\":1.5,\"method\":\"ping\"}", "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":"
      "\"Invalid Request: the id must be a string or an integer\",\"data\":{\"code\":\"invalid_message\"}}}" },
    { "{\"id\":9007199254740992,\"method\":\"ping\"}", "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
      "\"message\":\"Invalid Request: the id must be a string or an integer\",\"data\":{\"code\":\"invalid_message\"}}}" },
  };

  rec->blocking_on = g_strdup ("\"id\":\"trigger\"");
  bridge = abi_bridge_new (rec);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *response = abi_call (bridge, cases[i].request, 10000);

      g_assert_cmpstr (response, ==, cases[i].response);
    }
  /* From inside the callback it would wait for itself. */
  abi_send (bridge, PING ("\"trigger\""));
  abi_wait_count (rec, 1);
  oam_bridge_destroy (bridge);
  g_assert_cmpstr (rec->blocking_result, ==,
                   "{\"jsonrpc\":\"2.0\",\"id\":\"inside\",\"error\":{\"code\":-32600,\"message\":\"Invalid Request: "
                   "oam_call_blocking() cannot wait inside the bridge's callback (it would wait for itself): use "
                   "oam_bridge_send()\",\"data\":{\"code\":\"invalid_message\"}}}");
}

/* A host that sends faster than the bridge reads, for long: past the
 * queue's bound a message is answered -32603 at once, nothing grows. */
static void
test_queue_limit (void)
{
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  oam_bridge *bridge;
  g_autofree char *padding = g_strnfill (1024 * 1024, 'p');
  guint sent = 0;

  /* The bridge is held in its callback while the inbox fills. */
  rec->hold_on = g_strdup ("\"id\":\"hold\"");
  bridge = abi_bridge_new (rec);
  abi_send (bridge, PING ("\"hold\""));
  abi_wait_count (rec, 1);
  for (sent = 0; sent < 66; sent++)
    {
      g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"ping\",\"params\":"
                                               "{\"padding\":\"%s\"}}", sent, padding);

      abi_send (bridge, line);
    }
  abi_release (rec);
  abi_wait_match (rec, "{\"jsonrpc\":\"2.0\",\"id\":65,\"error\":{\"code\":-32603,\"message\":\"The bridge's input "
                       "queue is full (the limit is 67108864 bytes): the message was dropped\",\"data\":"
                       "{\"code\":\"internal_error\"}}}");
  /* The first 63 fit, and are answered. */
  abi_wait_match (rec, PONG ("62"));
  abi_wait_count (rec, 1 + 66);
  oam_bridge_destroy (bridge);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/oam-abi/arguments", test_arguments);
  g_test_add_func ("/oam-abi/messages", test_messages);
  g_test_add_func ("/oam-abi/pipelining", test_pipelining);
  g_test_add_func ("/oam-abi/threads", test_threads);
  g_test_add_func ("/oam-abi/tool-call-from-callback", test_tool_call_from_callback);
  g_test_add_func ("/oam-abi/blocking", test_blocking);
  g_test_add_func ("/oam-abi/blocking-timeout", test_blocking_timeout);
  g_test_add_func ("/oam-abi/blocking-errors", test_blocking_errors);
  g_test_add_func ("/oam-abi/queue-limit", test_queue_limit);
  return g_test_run ();
}
