/* test-openai-oam.c: the model-openai backend end to end: the built
 * `gamegate oam` runs as a child process and is driven over real pipes the
 * way a game engine drives it, while the fake OpenAI-compatible server runs
 * in this process on the same main loop (every wait for a line from
 * gamegate iterates it, so the server answers while the test waits).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "fake-openai-server.h"
#include "gg-test-util.h"

#define READ_TIMEOUT_MS 10000
#define KEY_VAR "GG_E2E_TEST_API_KEY"
#define TEST_KEY "sk-e2e-7Hq2mZpW4vX9rT1yLk8sJd3fGc6bNa5e"

#define STEP(i, r, mode, tools) "{\"index\":" #i ",\"completedToolRounds\":" #r ",\"toolCallingMode\":\"" mode "\",\"enabledTools\":[" tools "],\"trimmedEntries\":0}"
#define GATE_TOOL "{\"name\":\"open_gate\",\"description\":\"Ask the game engine to open a named gate. Returns whether it opened.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"gate\":{\"type\":\"string\"}},\"required\":[\"gate\"]}}"
#define OPENAI_MODEL "\"model\":{\"type\":\"openai\"}"

/* One `gamegate oam` with its own configuration file, and the fake server
 * it talks to. Everything gamegate wrote is kept to check for the key. */
typedef struct {
  FakeOpenai *fake;
  char *base_url;
  char *dir;
  char *config_path;
  GgTestProcess *process;
  GString *seen;
} E2e;

static GRegex *duration_re;

/* Durations vary between runs. */
static char *
normalize (const char *line)
{
  if (duration_re == NULL)
    duration_re = g_regex_new ("\"durationSeconds\":[0-9.eE+-]+", 0, 0, NULL);
  return g_regex_replace_literal (duration_re, line, -1, 0, "\"durationSeconds\":0", 0, NULL);
}

/* @config: the whole configuration file; "@URL@" stands for the fake
 * server's base URL. */
static E2e *
e2e_start (const char *config)
{
  E2e *e2e = g_new0 (E2e, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = g_string_new (config);
  const char *env[] = { KEY_VAR "=" TEST_KEY, NULL };
  const char *args[] = { "oam", "--config", NULL, NULL };

  e2e->fake = fake_openai_new ();
  fake_openai_set_api_key (e2e->fake, TEST_KEY);
  e2e->base_url = fake_openai_get_base_url (e2e->fake);
  e2e->seen = g_string_new (NULL);
  e2e->dir = g_dir_make_tmp ("gg-openai-oam-XXXXXX", &error);
  g_assert_no_error (error);
  e2e->config_path = g_build_filename (e2e->dir, "gamegate.conf", NULL);
  g_string_replace (text, "@URL@", e2e->base_url, 0);
  g_file_set_contents (e2e->config_path, text->str, -1, &error);
  g_assert_no_error (error);
  args[2] = e2e->config_path;
  e2e->process = gg_test_process_spawn (args, env, &error);
  g_assert_no_error (error);
  return e2e;
}

#define BASE_CONFIG \
  "[model-openai]\nbase-url=@URL@\nmodel=fake-model\napi-key-env=" KEY_VAR "\n"

static void
send_line (E2e        *e2e,
           const char *line)
{
  g_autoptr(GError) error = NULL;

  gg_test_process_write_line (e2e->process, line, &error);
  g_assert_no_error (error);
}

static char *
recv_line (E2e *e2e)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *line = gg_test_process_read_line (e2e->process,
                                                     gg_test_timeout_ms (READ_TIMEOUT_MS), &error);

  g_assert_no_error (error);
  if (line == NULL)
    g_error ("gamegate oam closed its output; stderr:\n%s", gg_test_process_get_stderr (e2e->process));
  g_string_append_printf (e2e->seen, "%s\n", line);
  return normalize (line);
}

static void
expect_line (E2e        *e2e,
             const char *expected)
{
  g_autofree char *line = recv_line (e2e);

  g_assert_cmpstr (line, ==, expected);
}

/* The API key must never leave gamegate: not in a message to the engine,
 * not on stderr. */
static void
check_no_key (E2e *e2e)
{
  const char *err = gg_test_process_get_stderr (e2e->process);

  g_assert_null (strstr (e2e->seen->str, TEST_KEY));
  g_assert_null (strstr (err, TEST_KEY));
  /* Nor a recognizable part of it. */
  g_assert_null (strstr (e2e->seen->str, "7Hq2mZpW4vX9"));
  g_assert_null (strstr (err, "7Hq2mZpW4vX9"));
}

/* Closes stdin, expects a clean exit with nothing more written, and frees
 * everything. */
static void
e2e_finish (E2e *e2e)
{
  g_autofree char *rest = NULL;
  int status = -1;

  gg_test_process_close_stdin (e2e->process);
  rest = gg_test_process_read_stdout (e2e->process, gg_test_timeout_ms (READ_TIMEOUT_MS));
  g_assert_true (gg_test_process_wait (e2e->process, gg_test_timeout_ms (READ_TIMEOUT_MS), &status));
  g_string_append (e2e->seen, rest);
  check_no_key (e2e);
  g_assert_cmpstr (rest, ==, "");
  g_assert_cmpint (status, ==, 0);

  g_clear_pointer (&e2e->process, gg_test_process_free);
  g_clear_pointer (&e2e->fake, fake_openai_free);
  g_unlink (e2e->config_path);
  g_rmdir (e2e->dir);
  g_free (e2e->config_path);
  g_free (e2e->dir);
  g_free (e2e->base_url);
  g_string_free (e2e->seen, TRUE);
  g_free (e2e);
}

static gboolean
on_poll_timeout (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs the main loop (and so the fake server) until @check holds. */
static gboolean
wait_for (gboolean (*check) (FakeOpenai *), FakeOpenai *fake, guint timeout_ms)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add (timeout_ms, on_poll_timeout, &timed_out);

  while (!check (fake) && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (id);
  return check (fake);
}

static gboolean
one_aborted (FakeOpenai *fake)
{
  return fake_openai_get_n_aborted (fake) >= 1;
}

static void
create_session (E2e        *e2e,
                const char *extra)
{
  g_autofree char *create = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"guard\",%s" OPENAI_MODEL "}}", extra);

  send_line (e2e, create);
  expect_line (e2e, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"session\":\"guard\",\"warnings\":[]}}");
}

/* ---- a session turn with a client tool round ---------------------------- */

static void
test_tool_round (void)
{
  E2e *e2e = e2e_start (BASE_CONFIG);
  FakeReply *reply;
  JsonObject *sent;
  JsonArray *messages;
  JsonObject *tool_message;

  reply = fake_openai_push (e2e->fake);
  fake_reply_add_tool_call (reply, "call_NYH7", "open_gate", "{\"gate\": \"north\"}");
  reply->arg_fragments = 6;
  reply = fake_openai_push_text (e2e->fake, "The north gate remains shut because the portcullis chain is jammed.");
  reply->text_pieces = 3;

  create_session (e2e, "\"instructions\":\"You are a castle guard in a game. Use tools to act. Reply in one sentence.\","
                       "\"tools\":[" GATE_TOOL "],\"options\":{\"toolChoice\":\"required\"},");
  send_line (e2e, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/respond\",\"params\":{\"session\":\"guard\",\"prompt\":\"Please open the north gate.\",\"stream\":true}}");
  expect_line (e2e, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"guard\",\"requestId\":3,\"event\":{\"type\":\"modelStep\",\"step\":" STEP (0, 0, "required", "\"open_gate\"") "}}}");
  expect_line (e2e, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"guard\",\"requestId\":3,\"event\":{\"type\":\"toolCallStarted\",\"call\":{\"id\":\"call_NYH7\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}},\"execution\":\"client\"}}}");
  expect_line (e2e, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"method\":\"tool/call\",\"params\":{\"session\":\"guard\",\"requestId\":3,\"call\":{\"id\":\"call_NYH7\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}}}}");
  send_line (e2e, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"result\":{\"output\":{\"opened\":false,\"reason\":\"the portcullis chain is jammed\"}}}");
  expect_line (e2e, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"guard\",\"requestId\":3,\"event\":{\"type\":\"toolCallCompleted\",\"record\":{\"call\":{\"id\":\"call_NYH7\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}},\"output\":{\"opened\":false,\"reason\":\"the portcullis chain is jammed\"},\"isError\":false,\"durationSeconds\":0}}}}");
  expect_line (e2e, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"guard\",\"requestId\":3,\"event\":{\"type\":\"modelStep\",\"step\":" STEP (1, 1, "allowed", "\"open_gate\"") "}}}");
  /* 67 characters in 3 pieces of 23. */
  expect_line (e2e, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"guard\",\"requestId\":3,\"event\":{\"type\":\"text\",\"delta\":\"The north gate remains \",\"text\":\"The north gate remains \",\"isReset\":false}}}");
  expect_line (e2e, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"guard\",\"requestId\":3,\"event\":{\"type\":\"text\",\"delta\":\"shut because the portcu\",\"text\":\"The north gate remains shut because the portcu\",\"isReset\":false}}}");
  expect_line (e2e, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"guard\",\"requestId\":3,\"event\":{\"type\":\"text\",\"delta\":\"llis chain is jammed.\",\"text\":\"The north gate remains shut because the portcullis chain is jammed.\",\"isReset\":false}}}");
  /* Usage is the fake server's: 10 + 5 per message prompt tokens, half of
   * them cached, summed over both steps. */
  expect_line (e2e, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"session\":\"guard\",\"text\":\"The north gate remains shut because the portcullis chain is jammed.\",\"toolCalls\":[{\"call\":{\"id\":\"call_NYH7\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}},\"output\":{\"opened\":false,\"reason\":\"the portcullis chain is jammed\"},\"isError\":false,\"durationSeconds\":0}],\"usage\":{\"inputTokens\":50,\"cachedInputTokens\":25,\"outputTokens\":24,\"totalTokens\":74},\"steps\":[" STEP (0, 0, "required", "\"open_gate\"") "," STEP (1, 1, "allowed", "\"open_gate\"") "]}}");

  /* What the server saw: the tool offered and required, then the call and
   * its result in the second request; the key as a bearer token. */
  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 2);
  sent = fake_openai_get_request (e2e->fake, 0);
  g_assert_true (json_object_get_boolean_member (sent, "stream"));
  g_assert_cmpstr (json_object_get_string_member (sent, "model"), ==, "fake-model");
  g_assert_cmpstr (json_object_get_string_member (sent, "tool_choice"), ==, "required");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (sent, "tools")), ==, 1);
  g_assert_cmpstr (fake_openai_get_authorization (e2e->fake, 0), ==, "Bearer " TEST_KEY);
  sent = fake_openai_get_request (e2e->fake, 1);
  messages = json_object_get_array_member (sent, "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 4);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 0), "role"), ==, "system");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 1), "role"), ==, "user");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "role"), ==, "assistant");
  tool_message = json_array_get_object_element (messages, 3);
  g_assert_cmpstr (json_object_get_string_member (tool_message, "role"), ==, "tool");
  g_assert_cmpstr (json_object_get_string_member (tool_message, "tool_call_id"), ==, "call_NYH7");
  g_assert_cmpstr (json_object_get_string_member (tool_message, "content"), ==, "{\"opened\":false,\"reason\":\"the portcullis chain is jammed\"}");
  e2e_finish (e2e);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/openai/oam/session/tool-round", test_tool_round);
  return g_test_run ();
}
