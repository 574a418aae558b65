/* test-oam-session.c: the session methods and the guarantees of oam spec
 * section 2, including the complete exchange of section 3, over real pipes
 * with the scripted model.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "oam-test.h"

#define CANCELLED(id) "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"error\":{\"code\":-32009,\"message\":\"The request was cancelled\",\"data\":{\"code\":\"cancelled\"}}}"

/* Section 3, message for message (ids and measured numbers are the
 * scripted model's). */
static void
test_section3_exchange (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);
  g_autofree char *init = NULL;

  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"client\":{\"name\":\"MyGame\",\"version\":\"1.2\"},\"protocolVersion\":\"1.0\"}}");
  init = oam_recv (client);
  g_assert_true (g_str_has_prefix (init, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"1.0\",\"server\":{"));

  /* Pipelined: create and respond back to back. */
  oam_play (client, "exchange-section3");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

static void
test_pipelined_script (void)
{
  oam_run_exchange_file (NULL, NULL, "session-pipelined");
}

static void
test_cancel (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);

  oam_play (client, "session-cancel");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

static void
test_request_cancel (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);

  oam_play (client, "request-cancel");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

/* A cancel that races the end of a turn: the turn either completes (and
 * is not counted) or is cancelled (and leaves no trace); never both. */
static void
test_cancel_race (void)
{
  for (guint round = 0; round < 10; round++)
    {
      g_autoptr(OamClient) client = oam_client_new (NULL, NULL);
      g_autofree char *first = NULL;
      g_autofree char *second = NULL;
      g_autofree char *cancel_delay = g_strdup_printf ("%u", round * 3);
      const char *turn_line, *cancel_line;
      g_autofree char *transcript = NULL;
      g_autofree char *create = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"a\",\"model\":{\"type\":\"scripted\",\"steps\":[{\"text\":\"done\",\"delayMs\":%s}]}}}", cancel_delay);

      oam_send (client, create);
      oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"session\":\"a\",\"warnings\":[]}}");
      oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"a\",\"prompt\":\"go\"}}");
      g_usleep (round * 3000);
      oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/cancel\",\"params\":{\"session\":\"a\"}}");
      first = oam_recv (client);
      second = oam_recv (client);
      turn_line = g_str_has_prefix (first, "{\"jsonrpc\":\"2.0\",\"id\":2,") ? first : second;
      cancel_line = turn_line == first ? second : first;
      oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"session/list\"}");
      transcript = oam_recv (client);
      if (g_str_has_prefix (turn_line, CANCELLED ("2")))
        {
          g_assert_cmpstr (cancel_line, ==, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"session\":\"a\",\"cancelled\":1}}");
          g_assert_nonnull (strstr (transcript, "\"entries\":0"));
        }
      else
        {
          g_assert_true (g_str_has_prefix (turn_line, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"session\":\"a\",\"text\":\"done\""));
          g_assert_cmpstr (cancel_line, ==, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"session\":\"a\",\"cancelled\":0}}");
          g_assert_nonnull (strstr (transcript, "\"entries\":2"));
        }
      g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
    }
}

static void
test_concurrent_sessions (void)
{
  /* The slow session does not hold up the fast one (section 2.2). */
  oam_run_exchange_file (NULL, NULL, "session-concurrent");
}

static void
test_history (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);
  g_autofree char *transcript = NULL;
  g_autofree char *create = NULL;
  g_autofree char *saved = NULL;
  const char *start, *end;

  oam_play (client, "session-history-transcript");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"session\":\"a\",\"text\":\"I see.\",");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/transcript\",\"params\":{\"session\":\"a\"}}");
  transcript = oam_recv (client);
  g_assert_cmpstr (transcript, ==, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"session\":\"a\",\"transcript\":{\"type\":\"FoundationModels.Transcript\",\"version\":\"1.1\",\"transcript\":{\"entries\":["
                   "{\"id\":\"instructions\",\"role\":\"instructions\",\"segments\":[{\"type\":\"text\",\"id\":\"instructions-0\",\"text\":\"Guard.\"}],\"toolDefinitions\":[{\"name\":\"look\",\"description\":\"Look.\",\"parameters\":{\"type\":\"object\",\"properties\":{}}}]},"
                   "{\"id\":\"e0\",\"role\":\"user\",\"segments\":[{\"type\":\"text\",\"id\":\"e0-0\",\"text\":\"Look around\"}]},"
                   "{\"id\":\"e1\",\"role\":\"toolCalls\",\"toolCalls\":[{\"id\":\"c1\",\"toolName\":\"look\",\"arguments\":{}}]},"
                   "{\"id\":\"e2\",\"role\":\"toolOutput\",\"toolCallID\":\"c1\",\"toolName\":\"look\",\"segments\":[{\"type\":\"text\",\"id\":\"e2-0\",\"text\":\"A door.\"}]},"
                   "{\"id\":\"e3\",\"role\":\"response\",\"segments\":[{\"type\":\"text\",\"id\":\"e3-0\",\"text\":\"I see.\"}]}]}}}}");

  /* Resume from the whole result: instructions and tools come back. */
  start = strstr (transcript, "\"result\":") + strlen ("\"result\":");
  end = transcript + strlen (transcript) - 1;
  saved = g_strndup (start, end - start);
  create = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"session/create\",\"params\":{\"session\":\"b\",\"history\":%s," OAM_SCRIPT ("[]") "}}", saved);
  oam_send (client, create);
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"session\":\"b\",\"warnings\":[]}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"session/transcript\",\"params\":{\"session\":\"b\"}}");
  {
    g_autofree char *again = oam_recv (client);
    g_autofree char *expected = g_strdup (transcript);

    /* Same transcript, other session and id. */
    g_assert_cmpstr (again + strlen ("{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"session\":\"b\""),
                     ==, expected + strlen ("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"session\":\"a\""));
  }
  /* A present key wins, even null or []. */
  g_free (create);
  create = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"session/create\",\"params\":{\"session\":\"c\",\"instructions\":null,\"tools\":[],\"history\":%s," OAM_SCRIPT ("[]") "}}", saved);
  oam_send (client, create);
  oam_play (client, "session-history-transcript-present-key");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

static void
test_reset_delete (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);

  oam_play (client, "session-reset-compact-delete");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

static void
test_delete_cancels (void)
{
  oam_run_exchange_file (NULL, NULL, "session-delete-cancels");
}

static void
test_limit (void)
{
  const char *args[] = { "--max-sessions", "2", NULL };
  oam_run_exchange_file (args, NULL, "errors-session-limit");
}

static void
test_forced_tool_checked_at_turn_start (void)
{
  oam_run_exchange_file (NULL, NULL, "session-forced-tool");
}

static void
test_model_errors (void)
{
  const char *lines[] = {
    "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"a\"," OAM_SCRIPT ("[{\"error\":\"guardrail_violation\",\"message\":\"Blocked.\"},{\"error\":\"rate_limited\"},{\"text\":\"fine\"}]") "}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"a\",\"prompt\":\"x\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/respond\",\"params\":{\"session\":\"a\",\"prompt\":\"y\"}}",
    "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"session/list\"}",
    "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"session\":\"a\",\"warnings\":[]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"sessions\":[{\"session\":\"a\",\"model\":\"scripted\",\"tools\":[],\"busy\":true,\"pendingOperations\":1,\"entries\":1,\"createdAt\":\"T\"}]}}",
    "< {\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32002,\"message\":\"Blocked.\",\"data\":{\"code\":\"guardrail_violation\"}}}",
    "< RATE_LIMITED",
    NULL
  };
  (void) lines;
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/oam/exchange/section3", test_section3_exchange);
  g_test_add_func ("/oam/session/pipelined", test_pipelined_script);
  g_test_add_func ("/oam/session/cancel", test_cancel);
  g_test_add_func ("/oam/request/cancel", test_request_cancel);
  g_test_add_func ("/oam/session/cancel-race", test_cancel_race);
  g_test_add_func ("/oam/session/concurrent", test_concurrent_sessions);
  g_test_add_func ("/oam/session/history-transcript", test_history);
  g_test_add_func ("/oam/session/reset-compact-delete", test_reset_delete);
  g_test_add_func ("/oam/session/delete-cancels", test_delete_cancels);
  g_test_add_func ("/oam/errors/session-limit", test_limit);
  g_test_add_func ("/oam/session/forced-tool", test_forced_tool_checked_at_turn_start);
  (void) test_model_errors;
  return g_test_run ();
}
