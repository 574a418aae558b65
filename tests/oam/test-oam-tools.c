/* test-oam-tools.c: tool/call (every reply form of oam spec section 7),
 * tool timeouts, tool/cancel, a client that never answers, late and
 * unknown responses.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "oam-test.h"

static char *
text_of (const char *line)
{
  const char *start = strstr (line, "\"text\":\"");
  const char *end;

  g_assert_nonnull (start);
  start += strlen ("\"text\":\"");
  end = strstr (start, "\",\"toolCalls\"");
  g_assert_nonnull (end);
  return g_strndup (start, end - start);
}

static void
run_reply (OamClient  *client,
           guint       n,
           const char *reply,
           const char *model_sees)
{
  g_autofree char *respond = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"session/respond\",\"params\":{\"session\":\"g\",\"prompt\":\"open\"}}", n);
  g_autofree char *call = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":\"t-%u\",\"method\":\"tool/call\",\"params\":{\"session\":\"g\",\"requestId\":%u,\"call\":{\"id\":\"c1\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}}}}", n - 1, n);
  g_autofree char *answer = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":\"t-%u\",%s}", n - 1, reply);
  g_autofree char *line = NULL;
  g_autofree char *text = NULL;

  oam_send (client, respond);
  oam_expect (client, call);
  oam_send (client, answer);
  line = oam_recv (client);
  text = text_of (line);
  g_assert_cmpstr (text, ==, model_sees);
}

static void
test_reply_forms (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);

  oam_play (client, "tool-call-reply-forms");
  run_reply (client, 2, "\"result\":{\"output\":\"The gate opened.\"}", "saw The gate opened.");
  run_reply (client, 3, "\"result\":{\"output\":{\"opened\":true}}", "saw {\\\"opened\\\":true}");
  run_reply (client, 4, "\"result\":{\"output\":\"Chain jammed.\",\"isError\":true}", "saw Error: Chain jammed.");
  run_reply (client, 5, "\"error\":{\"code\":-32000,\"message\":\"Gate subsystem offline\"}", "saw Error: Gate subsystem offline");
  run_reply (client, 6, "\"result\":{\"opened\":true}", "saw {\\\"opened\\\":true}");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

static void
test_records (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);

  oam_play (client, "tool-call-records");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

/* A client that never answers: the tool times out, the model sees the
 * error, the client gets tool/cancel and a late answer is ignored. */
static void
test_timeout (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);

  oam_play (client, "tool-call-timeout");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

/* The tool's own timeoutSeconds wins over the session's; --tool-timeout
 * sets the default. */
static void
test_tool_timeout_precedence (void)
{
  const char *args[] = { "--tool-timeout", "0.1", NULL };
  g_autoptr(OamClient) client = oam_client_new (args, NULL);

  oam_play (client, "tool-call-timeout-precedence");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"method\":\"tool/call\",");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"method\":\"tool/cancel\",\"params\":{\"session\":\"g\",\"requestId\":2,\"id\":\"t-1\",\"callId\":\"c1\",\"reason\":\"Error: Tool 'open_gate' timed out after 0.1s.\"}}");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"session\":\"g\",\"text\":\"saw Error: Tool 'open_gate' timed out after 0.1s.\",");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

/* Cancelling a turn while a tool/call is outstanding sends tool/cancel. */
static void
test_cancel_outstanding (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *third = NULL;

  oam_play (client, "tool-cancel");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"method\":\"tool/call\",");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/cancel\",\"params\":{\"session\":\"g\"}}");
  first = oam_recv (client);
  second = oam_recv (client);
  third = oam_recv (client);
  g_assert_cmpstr (first, ==, "{\"jsonrpc\":\"2.0\",\"method\":\"tool/cancel\",\"params\":{\"session\":\"g\",\"requestId\":2,\"id\":\"t-1\",\"callId\":\"c1\",\"reason\":\"Error: The turn was cancelled.\"}}");
  g_assert_cmpstr (second, ==, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"session\":\"g\",\"cancelled\":1}}");
  g_assert_cmpstr (third, ==, "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32009,\"message\":\"The request was cancelled\",\"data\":{\"code\":\"cancelled\"}}}");
  /* The late answer is ignored. */
  oam_play (client, "tool-cancel-late-answer");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

/* Tool replies bypass the queue: a turn waiting for its tool is answered
 * while later requests of the same session wait behind it. */
static void
test_reply_bypasses_queue (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);

  oam_play (client, "tool-call-bypasses-queue");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"method\":\"tool/call\",");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"result\":{\"output\":\"ok\"}}");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"session\":\"g\",\"text\":\"saw ok\",");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"session\":\"g\",\"text\":\"second\",");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

/* The input ends while a tool/call is outstanding: the turn still gets its
 * answer (the tool failed) and the process exits 0. */
static void
test_input_ends_during_tool_call (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);
  g_autofree char *rest = NULL;

  oam_play (client, "tool-call-input-ends");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"method\":\"tool/call\",");
  g_assert_cmpint (oam_client_finish (client, &rest), ==, 0);
  g_assert_true (g_str_has_prefix (rest, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"session\":\"g\",\"text\":\"saw Error: "));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/oam/tool/call/reply-forms", test_reply_forms);
  g_test_add_func ("/oam/tool/call/records", test_records);
  g_test_add_func ("/oam/tool/call/timeout", test_timeout);
  g_test_add_func ("/oam/tool/call/timeout-precedence", test_tool_timeout_precedence);
  g_test_add_func ("/oam/tool/cancel", test_cancel_outstanding);
  g_test_add_func ("/oam/tool/call/bypasses-queue", test_reply_bypasses_queue);
  g_test_add_func ("/oam/tool/call/input-ends", test_input_ends_during_tool_call);
  return g_test_run ();
}
