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
#include "gg-test-exchange.h"
#include "gg-test-util.h"

#define READ_TIMEOUT_MS 10000
#define KEY_VAR "GG_E2E_TEST_API_KEY"
#define TEST_KEY "sk-e2e-7Hq2mZpW4vX9rT1yLk8sJd3fGc6bNa5e"

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
  /* Verbose: debug messages must not show the key either. */
  const char *args[] = { "oam", "--verbose", "--config", NULL, NULL };

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
  args[3] = e2e->config_path;
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

static void
play_send (const char *line,
           gpointer    e2e)
{
  send_line (e2e, line);
}

static char *
play_recv (gpointer e2e)
{
  return recv_line (e2e);
}

/* Plays tests/openai/exchanges/@name.txt against the running gamegate:
 * each `> ` line sent, each `< ` line expected exactly (normalized). */
static void
play (E2e        *e2e,
      const char *name)
{
  g_autoptr(GgTestExchange) exchange = gg_test_exchange_load ("openai", name);

  gg_test_exchange_play (exchange, play_send, play_recv, e2e);
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
  /* Nothing in these exchanges is worth a warning. */
  g_assert_null (strstr (gg_test_process_get_stderr (e2e->process), "-WARNING **"));
  g_assert_null (strstr (gg_test_process_get_stderr (e2e->process), "-CRITICAL **"));
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

/* A gg_test_wait_for() check: the fake server saw a request aborted. */
static gboolean
one_aborted (gpointer fake)
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
  play (e2e, "session-tool-round");

  /* What the server saw: the tool offered and required, then the call and
   * its result in the second request; the key as a bearer token. */
  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 2);
  sent = fake_openai_get_request (e2e->fake, 0);
  g_assert_true (json_object_get_boolean_member (sent, "stream"));
  g_assert_cmpstr (json_object_get_string_member (sent, "model"), ==, "fake-model");
  /* "required" with a single enabled tool names it. */
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json_object_get_object_member (sent, "tool_choice"), "function"), "name"), ==, "open_gate");
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
  g_assert_cmpstr (json_object_get_string_member (sent, "tool_choice"), ==, "auto");
  e2e_finish (e2e);
}

/* Dumps a request the server got, for failure messages. */
static char *
request_text (FakeOpenai *fake,
              guint       index)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, fake_openai_get_request (fake, index));
  return json_to_string (node, FALSE);
}

/* ---- a schema turn ------------------------------------------------------ */

static void
test_schema_turn (void)
{
  E2e *e2e = e2e_start (BASE_CONFIG);
  JsonObject *sent, *format, *json_schema, *schema;
  g_autofree char *dump = NULL;

  /* Strict mode made "bribe" required and nullable: null maps back to
   * "absent". */
  fake_openai_push_text (e2e->fake, "{\"reasoning\":\"The captain forbade it.\",\"choice\":\"refuse\",\"bribe\":null}");
  create_session (e2e, "\"instructions\":\"You are a castle guard.\",");
  play (e2e, "session-schema");

  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 1);
  sent = fake_openai_get_request (e2e->fake, 0);
  dump = request_text (e2e->fake, 0);
  g_test_message ("request: %s", dump);
  format = json_object_get_object_member (sent, "response_format");
  g_assert_nonnull (format);
  g_assert_cmpstr (json_object_get_string_member (format, "type"), ==, "json_schema");
  json_schema = json_object_get_object_member (format, "json_schema");
  g_assert_true (json_object_get_boolean_member (json_schema, "strict"));
  schema = json_object_get_object_member (json_schema, "schema");
  g_assert_false (json_object_get_boolean_member (schema, "additionalProperties"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (schema, "required")), ==, 3);
  e2e_finish (e2e);
}

/* ---- an NPC talk ----------------------------------------------------------- */

static void
test_npc_talk (void)
{
  E2e *e2e = e2e_start (BASE_CONFIG);
  JsonObject *sent;
  g_autofree char *dump = NULL;
  FakeReply *reply;

  /* The default toolChoice "explicit" forces the built-in respond_directly
   * tool first (there are no client tools), then the reply follows the
   * NPC's reply schema. */
  reply = fake_openai_push (e2e->fake);
  fake_reply_add_tool_call (reply, "call_rd1", "respond_directly", "{}");
  fake_openai_push_text (e2e->fake, "{\"emotion\":\"proud\",\"line\":\"Aye, finest iron in the valley.\",\"player_options\":[\"How much?\",\"Show me.\",\"Farewell.\"],\"ends_conversation\":false}");
  play (e2e, "npc-talk");

  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 2);
  sent = fake_openai_get_request (e2e->fake, 1);
  dump = request_text (e2e->fake, 1);
  g_test_message ("second request: %s", dump);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (sent, "response_format"), "type"), ==, "json_schema");

  /* A streamed talk: the line arrives as npc/event deltas taken out of the
   * JSON as it streams. */
  reply = fake_openai_push (e2e->fake);
  fake_reply_add_tool_call (reply, "call_rd2", "respond_directly", "{}");
  reply = fake_openai_push_text (e2e->fake, "{\"emotion\":\"amused\",\"line\":\"Forty gold, and cheap at that.\",\"player_options\":[\"Deal.\",\"Too much.\",\"Bye.\"],\"ends_conversation\":false}");
  reply->text_pieces = 8;
  play (e2e, "npc-talk-streamed");
  {
    /* Structured replies: however the line is split into lineDelta events
     * (today oam sends it whole once the reply is complete), the deltas
     * add up to the line. */
    g_autoptr(GString) shown = g_string_new (NULL);
    g_autofree char *line = NULL;

    for (;;)
      {
        g_autoptr(JsonNode) node = NULL;
        JsonObject *event;

        g_clear_pointer (&line, g_free);
        line = recv_line (e2e);
        if (!g_str_has_prefix (line, "{\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":3,\"event\":{\"type\":\"lineDelta\","))
          break;
        node = json_from_string (line, NULL);
        event = json_object_get_object_member (json_object_get_object_member (json_node_get_object (node), "params"), "event");
        g_string_append (shown, json_object_get_string_member (event, "delta"));
      }
    g_assert_cmpstr (shown->str, ==, "Forty gold, and cheap at that.");
    g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"npc\":\"gorm\",\"line\":\"Forty gold, and cheap at that.\",\"emotion\":\"amused\",\"playerOptions\":[\"Deal.\",\"Too much.\",\"Bye.\"],\"endsConversation\":false,\"toolCalls\":[],\"relationship\":0,\"isFallback\":false,\"usage\":{\"inputTokens\":60,\"cachedInputTokens\":30,\"outputTokens\":41,\"totalTokens\":101}}}");
  }
  /* The first exchange is in the history the model sees now. */
  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 4);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (fake_openai_get_request (e2e->fake, 3), "messages")), ==, 4);
  g_assert_true (json_object_get_boolean_member (fake_openai_get_request (e2e->fake, 3), "stream"));
  e2e_finish (e2e);
}

/* replyFormat "text": the model writes "[emotion] line" and the line
 * streams as it arrives. */
static void
test_npc_talk_text_stream (void)
{
  E2e *e2e = e2e_start (BASE_CONFIG);
  FakeReply *reply;

  reply = fake_openai_push (e2e->fake);
  fake_reply_add_tool_call (reply, "call_rd1", "respond_directly", "{}");
  reply = fake_openai_push_text (e2e->fake, "[amused] Forty gold, and cheap at that.");
  reply->text_pieces = 4;
  play (e2e, "npc-talk-text-stream");
#define NPC_EVENT(body) "{\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":2,\"event\":" body "}}"
  /* Pieces "[amused] F", "orty gold,", " and cheap", " at that.". */
  expect_line (e2e, NPC_EVENT ("{\"type\":\"emotion\",\"emotion\":\"amused\"}"));
  expect_line (e2e, NPC_EVENT ("{\"type\":\"lineDelta\",\"delta\":\"F\"}"));
  expect_line (e2e, NPC_EVENT ("{\"type\":\"lineDelta\",\"delta\":\"orty gold,\"}"));
  expect_line (e2e, NPC_EVENT ("{\"type\":\"lineDelta\",\"delta\":\" and cheap\"}"));
  expect_line (e2e, NPC_EVENT ("{\"type\":\"lineDelta\",\"delta\":\" at that.\"}"));
#undef NPC_EVENT
  expect_line (e2e, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"npc\":\"gorm\",\"line\":\"Forty gold, and cheap at that.\",\"emotion\":\"amused\",\"playerOptions\":[],\"endsConversation\":false,\"toolCalls\":[],\"relationship\":0,\"isFallback\":false,\"usage\":{\"inputTokens\":40,\"cachedInputTokens\":20,\"outputTokens\":17,\"totalTokens\":57}}}");
  /* Plain text: no response_format; streamed from the server. */
  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 2);
  g_assert_false (json_object_has_member (fake_openai_get_request (e2e->fake, 1), "response_format"));
  g_assert_true (json_object_get_boolean_member (fake_openai_get_request (e2e->fake, 1), "stream"));
  e2e_finish (e2e);
}

/* ---- a decision ------------------------------------------------------------ */

static void
test_decision (void)
{
  E2e *e2e = e2e_start (BASE_CONFIG);
  JsonObject *sent;
  g_autofree char *dump = NULL;

  fake_openai_push_text (e2e->fake, "{\"reasoning\":\"Snik is timid, so he avoids a fight.\",\"optionID\":\"flee\",\"confidence\":75}");
  play (e2e, "decision-decide");

  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 1);
  sent = fake_openai_get_request (e2e->fake, 0);
  dump = request_text (e2e->fake, 0);
  g_test_message ("request: %s", dump);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (sent, "response_format"), "type"), ==, "json_schema");
  e2e_finish (e2e);
}

/* decision/decideMany asks for three at once; the backend holds the
 * server to max-concurrent-requests (@data: 1 or 4). */
static void
test_decide_many_concurrency (gconstpointer data)
{
  guint limit = GPOINTER_TO_UINT (data);
  g_autofree char *config = g_strdup_printf (BASE_CONFIG "max-concurrent-requests=%u\n", limit);
  E2e *e2e = e2e_start (config);

  for (guint i = 0; i < 3; i++)
    {
      FakeReply *reply = fake_openai_push_text (e2e->fake, "{\"reasoning\":\"Outnumbered.\",\"optionID\":\"flee\",\"confidence\":60}");
      reply->delay_ms = 50;
    }
#define DECIDE_REQ "{\"situation\":\"Knights approach.\",\"options\":[\"flee\",\"fight\"]}"
  send_line (e2e, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"decision/decideMany\",\"params\":{\"requests\":[" DECIDE_REQ "," DECIDE_REQ "," DECIDE_REQ "],\"maxConcurrency\":3," OPENAI_MODEL "}}");
#undef DECIDE_REQ
#define DECIDED "{\"optionID\":\"flee\",\"reasoning\":\"Outnumbered.\",\"confidence\":60,\"toolCalls\":[],\"usage\":{\"inputTokens\":20,\"cachedInputTokens\":10,\"outputTokens\":16,\"totalTokens\":36},\"isFallback\":false}"
  expect_line (e2e, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"results\":[" DECIDED "," DECIDED "," DECIDED "]}}");
#undef DECIDED
  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 3);
  g_assert_cmpuint (fake_openai_get_max_pending (e2e->fake), ==, MIN (limit, 3));
  e2e_finish (e2e);
}

/* ---- cancellation mid-stream ----------------------------------------------- */

static void
test_cancel_mid_stream (void)
{
  E2e *e2e = e2e_start (BASE_CONFIG);
  FakeReply *reply;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;

  /* 40 deltas, 100 ms apart, and the response never ends: the stream is
   * still running when the cancel arrives. */
  reply = fake_openai_push_text (e2e->fake, "Long ago, before the walls were raised, the valley belonged to the wolves and the river.");
  reply->text_pieces = 40;
  reply->chunk_delay_ms = 100;
  reply->hang = TRUE;   /* never completes, however slow gamegate runs */
  create_session (e2e, "");
  play (e2e, "cancel-mid-stream");
  /* Deltas already on their way may come first. */
  do
    {
      g_clear_pointer (&first, g_free);
      first = recv_line (e2e);
    }
  while (g_str_has_prefix (first, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"guard\",\"requestId\":2,\"event\":{\"type\":\"text\","));
  second = recv_line (e2e);
  g_assert_cmpstr (first, ==, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"session\":\"guard\",\"cancelled\":1}}");
  g_assert_cmpstr (second, ==, "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32009,\"message\":\"The request was cancelled\",\"data\":{\"code\":\"cancelled\"}}}");
  /* The HTTP request was aborted, not left to run. */
  g_assert_true (gg_test_wait_for (one_aborted, e2e->fake, gg_test_timeout_ms (5000)));
  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 1);

  /* The session still works, and the cancelled turn left no trace. */
  fake_openai_push_text (e2e->fake, "Ask again.");
  play (e2e, "cancel-mid-stream-next-turn");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (fake_openai_get_request (e2e->fake, 1), "messages")), ==, 1);
  e2e_finish (e2e);
}

/* The engine quits while a model answer streams: the turn is cancelled
 * and answered first, then shutdown, and the HTTP request is aborted. */
static void
test_shutdown_mid_stream (void)
{
  E2e *e2e = e2e_start (BASE_CONFIG);
  FakeReply *reply;
  g_autofree char *line = NULL;

  reply = fake_openai_push_text (e2e->fake, "Long ago, before the walls were raised, the valley belonged to the wolves and the river.");
  reply->text_pieces = 40;
  reply->chunk_delay_ms = 100;
  reply->hang = TRUE;
  create_session (e2e, "");
  play (e2e, "cancel-shutdown-mid-stream");
  do
    {
      g_clear_pointer (&line, g_free);
      line = recv_line (e2e);
    }
  while (g_str_has_prefix (line, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"guard\",\"requestId\":2,\"event\":{\"type\":\"text\","));
  g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32009,\"message\":\"The request was cancelled\",\"data\":{\"code\":\"cancelled\"}}}");
  expect_line (e2e, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}");
  g_assert_true (gg_test_wait_for (one_aborted, e2e->fake, gg_test_timeout_ms (5000)));
  /* e2e_finish checks that it exits 0 with nothing more written. */
  e2e_finish (e2e);
}

/* npc/cancel while the NPC's reply streams in. */
static void
test_npc_cancel_mid_stream (void)
{
  E2e *e2e = e2e_start (BASE_CONFIG);
  FakeReply *reply;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;

  reply = fake_openai_push (e2e->fake);
  fake_reply_add_tool_call (reply, "call_rd1", "respond_directly", "{}");
  reply = fake_openai_push_text (e2e->fake, "[worried] The wolves came down from the hills last winter, and nobody has seen the shepherd since.");
  reply->text_pieces = 40;
  reply->chunk_delay_ms = 100;
  reply->hang = TRUE;
  play (e2e, "cancel-npc-mid-stream");
  do
    {
      g_clear_pointer (&first, g_free);
      first = recv_line (e2e);
    }
  while (g_str_has_prefix (first, "{\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"gorm\",\"requestId\":2,\"event\":{\"type\":\"lineDelta\","));
  second = recv_line (e2e);
  g_assert_cmpstr (first, ==, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"npc\":\"gorm\",\"cancelled\":1}}");
  g_assert_cmpstr (second, ==, "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32009,\"message\":\"The request was cancelled\",\"data\":{\"code\":\"cancelled\"}}}");
  g_assert_true (gg_test_wait_for (one_aborted, e2e->fake, gg_test_timeout_ms (5000)));
  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 2);
  e2e_finish (e2e);
}

/* ---- errors ---------------------------------------------------------------- */

#define NO_RETRIES BASE_CONFIG "retries=0\n"

static void
test_rate_limited (void)
{
  E2e *e2e = e2e_start (NO_RETRIES);
  FakeReply *reply;
  g_autofree char *line = NULL;

  reply = fake_openai_push_error (e2e->fake, 429, "{\"error\":{\"message\":\"Rate limit reached for requests\",\"type\":\"requests\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}");
  reply->retry_after = g_strdup ("7");
  create_session (e2e, "");
  send_line (e2e, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"guard\",\"prompt\":\"Hello\"}}");
  line = recv_line (e2e);
  /* retryAfter is an absolute time: compare up to it. */
  g_assert_true (g_str_has_prefix (line, "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32005,\"message\":\"The server is rate limiting requests: Rate limit reached for requests\",\"data\":{\"code\":\"rate_limited\",\"retryAfterSeconds\":7,\"retryAfter\":\""));
  {
    g_autoptr(GDateTime) before = g_date_time_new_now_utc ();
    g_autoptr(JsonNode) node = json_from_string (line, NULL);
    JsonObject *data = json_object_get_object_member (json_object_get_object_member (json_node_get_object (node), "error"), "data");
    g_autoptr(GDateTime) when = g_date_time_new_from_iso8601 (json_object_get_string_member (data, "retryAfter"), NULL);
    GTimeSpan ahead;

    g_assert_cmpuint (json_object_get_size (data), ==, 3);
    g_assert_nonnull (when);
    /* About seven seconds after the answer (which came just now). */
    ahead = g_date_time_difference (when, before);
    g_assert_cmpint (ahead, >, 0);
    g_assert_cmpint (ahead, <=, 8 * G_TIME_SPAN_SECOND);
  }
  /* retries=0: the backend did not try again, nor did the turn. */
  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 1);
  e2e_finish (e2e);
}

/* A rate limit on the step after a tool round: the backend waits as told
 * and tries the HTTP request again; the tool is not called again. */
static void
test_retry_after_tool_round (void)
{
  E2e *e2e = e2e_start (BASE_CONFIG "retries=1\n");
  FakeReply *reply;
  gint64 started;

  reply = fake_openai_push (e2e->fake);
  fake_reply_add_tool_call (reply, "call_1", "open_gate", "{\"gate\":\"east\"}");
  reply = fake_openai_push_error (e2e->fake, 429, "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}");
  reply->retry_after = g_strdup ("1");
  fake_openai_push_text (e2e->fake, "The east gate is open.");
  create_session (e2e, "\"tools\":[" GATE_TOOL "],");
  play (e2e, "error-rate-limited-after-tool");
  started = g_get_monotonic_time ();
  play (e2e, "error-rate-limited-after-tool-answer");
  /* Retry-After: 1 was honoured. */
  g_assert_cmpint (g_get_monotonic_time () - started, >=, 950 * 1000);
  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 3);
  e2e_finish (e2e);
}

/* A server failing for good: the backend's retries (2 by default) and the
 * turn's attempts (2 by default) multiply, then the turn fails. */
static void
test_persistent_server_error (void)
{
  E2e *e2e = e2e_start (BASE_CONFIG "retry-delay-ms=1\n");

  for (guint i = 0; i < 8; i++)
    fake_openai_push_error (e2e->fake, 500, "{\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\",\"param\":null,\"code\":null}}");
  create_session (e2e, "");
  play (e2e, "error-persistent");
  /* 3 HTTP requests per attempt (retries=2), 2 attempts (maxAttempts). */
  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 6);
  e2e_finish (e2e);
}

/* The server rejects the key (its 401 body quotes part of it): the error
 * names the URL and model but nothing of the key. */
static void
test_rejected_key (void)
{
  E2e *e2e = e2e_start (BASE_CONFIG);
  g_autofree char *expected = NULL;

  fake_openai_set_api_key (e2e->fake, "sk-some-other-key-0000000000");
  create_session (e2e, "");
  send_line (e2e, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"guard\",\"prompt\":\"Hello\"}}");
  expected = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32001,\"message\":\"Model 'fake-model' at %s is unavailable: the server rejected the API key\",\"data\":{\"code\":\"model_unavailable\",\"baseUrl\":\"%s\",\"model\":\"fake-model\"}}}", e2e->base_url, e2e->base_url);
  expect_line (e2e, expected);
  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 1);
  g_assert_cmpstr (fake_openai_get_authorization (e2e->fake, 0), ==, "Bearer " TEST_KEY);
  /* The masked form the server quoted. */
  g_assert_null (strstr (e2e->seen->str, "sk-e****"));
  g_assert_null (strstr (gg_test_process_get_stderr (e2e->process), "sk-e****"));
  e2e_finish (e2e);
}

#define DIES_TEXT "The bridge collapsed in the winter of the great flood."

static FakeReply *
push_dying (FakeOpenai *fake)
{
  FakeReply *reply = fake_openai_push_text (fake, DIES_TEXT);

  /* The role chunk and three deltas, then the connection is cut. */
  reply->text_pieces = 10;
  reply->drop_after = 4;
  return reply;
}

/* With one attempt per step the turn fails with generation_failed; the
 * backend does not retry itself once text was forwarded. */
static void
test_server_dies_mid_stream (void)
{
  E2e *e2e = e2e_start (BASE_CONFIG);

  push_dying (e2e->fake);
  create_session (e2e, "\"options\":{\"maxAttempts\":1},");
  play (e2e, "error-dies-mid-stream");
  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 1);

  /* The failed turn left no trace in the history. */
  fake_openai_push_text (e2e->fake, "Ask again.");
  play (e2e, "error-dies-mid-stream-next-turn");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (fake_openai_get_request (e2e->fake, 1), "messages")), ==, 1);
  e2e_finish (e2e);
}

/* With the default two attempts, the turn tries the step again: the text
 * streamed so far is reset and the second answer streams in full. */
static void
test_server_dies_then_recovers (void)
{
  E2e *e2e = e2e_start (BASE_CONFIG);
  FakeReply *reply;

  push_dying (e2e->fake);
  reply = fake_openai_push_text (e2e->fake, "It fell in the flood.");
  reply->text_pieces = 2;
  create_session (e2e, "");
  play (e2e, "error-dies-then-recovers");
  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 2);
  e2e_finish (e2e);
}

static void
test_connection_refused (void)
{
  E2e *e2e = e2e_start (BASE_CONFIG);
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GInetSocketAddress) any = NULL;
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *create = NULL;
  g_autofree char *expected = NULL;
  guint port;

  /* A port nothing listens on: bound, never listened, then closed. */
  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  any = G_INET_SOCKET_ADDRESS (g_inet_socket_address_new_from_string ("127.0.0.1", 0));
  g_socket_bind (socket, G_SOCKET_ADDRESS (any), FALSE, &error);
  g_assert_no_error (error);
  bound = g_socket_get_local_address (socket, &error);
  g_assert_no_error (error);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_socket_close (socket, NULL);

  create = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"guard\",\"model\":{\"type\":\"openai\",\"baseUrl\":\"http://127.0.0.1:%u/v1\",\"model\":\"qwen2.5-7b-instruct\"}}}", port);
  send_line (e2e, create);
  play (e2e, "error-connection-refused");
  expected = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32001,\"message\":\"Model 'qwen2.5-7b-instruct' at http://127.0.0.1:%u/v1 is unavailable: cannot connect to the server\",\"data\":{\"code\":\"model_unavailable\",\"baseUrl\":\"http://127.0.0.1:%u/v1\",\"model\":\"qwen2.5-7b-instruct\"}}}", port, port);
  expect_line (e2e, expected);
  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 0);
  e2e_finish (e2e);
}

/* ---- model/availability with an openai default model ----------------------- */

static void
test_availability (void)
{
  E2e *e2e = e2e_start ("[gateway]\ndefault-model=openai\n" BASE_CONFIG);
  g_autofree char *expected = NULL;

  send_line (e2e, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"model/availability\"}");
  expected = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"available\":true,\"variant\":\"fake-model\",\"baseUrl\":\"%s\"}}", e2e->base_url);
  expect_line (e2e, expected);
  g_assert_cmpuint (fake_openai_get_n_model_lists (e2e->fake), ==, 1);
  /* (The fake server answers GET /models only with the right key.) */

  /* The system model is the openai one: a session without a model uses it. */
  fake_openai_push_text (e2e->fake, "At your service.");
  play (e2e, "availability-default-model");
  g_assert_cmpuint (fake_openai_get_n_requests (e2e->fake), ==, 1);
  e2e_finish (e2e);
}

static void
test_availability_model_not_served (void)
{
  E2e *e2e = e2e_start ("[gateway]\ndefault-model=openai\n[model-openai]\nbase-url=@URL@\nmodel=llama-3-70b\napi-key-env=" KEY_VAR "\n");
  g_autofree char *expected = NULL;

  send_line (e2e, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"model/availability\"}");
  expected = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"available\":false,\"reason\":\"model_not_ready\",\"detail\":\"%s does not serve the model 'llama-3-70b'\",\"variant\":\"llama-3-70b\",\"baseUrl\":\"%s\"}}", e2e->base_url, e2e->base_url);
  expect_line (e2e, expected);
  e2e_finish (e2e);
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/openai/oam/session/tool-round", test_tool_round);
  g_test_add_func ("/openai/oam/session/schema", test_schema_turn);
  g_test_add_func ("/openai/oam/npc/talk", test_npc_talk);
  g_test_add_func ("/openai/oam/npc/talk-text-stream", test_npc_talk_text_stream);
  g_test_add_func ("/openai/oam/decision/decide", test_decision);
  g_test_add_data_func ("/openai/oam/decision/decide-many/limit-1", GUINT_TO_POINTER (1), test_decide_many_concurrency);
  g_test_add_data_func ("/openai/oam/decision/decide-many/limit-4", GUINT_TO_POINTER (4), test_decide_many_concurrency);
  g_test_add_func ("/openai/oam/cancel/mid-stream", test_cancel_mid_stream);
  g_test_add_func ("/openai/oam/cancel/shutdown-mid-stream", test_shutdown_mid_stream);
  g_test_add_func ("/openai/oam/cancel/npc-mid-stream", test_npc_cancel_mid_stream);
  g_test_add_func ("/openai/oam/error/rate-limited", test_rate_limited);
  g_test_add_func ("/openai/oam/error/rate-limited-after-tool", test_retry_after_tool_round);
  g_test_add_func ("/openai/oam/error/persistent", test_persistent_server_error);
  g_test_add_func ("/openai/oam/error/rejected-key", test_rejected_key);
  g_test_add_func ("/openai/oam/error/dies-mid-stream", test_server_dies_mid_stream);
  g_test_add_func ("/openai/oam/error/dies-then-recovers", test_server_dies_then_recovers);
  g_test_add_func ("/openai/oam/error/connection-refused", test_connection_refused);
  g_test_add_func ("/openai/oam/availability/default-model", test_availability);
  g_test_add_func ("/openai/oam/availability/not-served", test_availability_model_not_served);
  status = g_test_run ();
  g_clear_pointer (&duration_re, g_regex_unref);
  return status;
}
