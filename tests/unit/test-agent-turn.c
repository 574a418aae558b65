/* test-agent-turn.c: the shared tool-calling loop: plain answers, one tool round
 * and its events, usage, request fields, hostile model output and the
 * main context it runs in.
 * Driven by the fake model of tests/common/gg-test-model.h and by the real
 * scripted model plugin, through the helpers of agent-turn-test.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "agent-turn-test.h"

static void
test_text_answer (void)
{
  g_autoptr(GgModel) model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"text\":\"Hello there\"}]}");
  g_autoptr(GgAgentTurn) turn = turn_new (model, NULL, "Hi", NULL);
  const char *events[] = {
    "{\"type\":\"modelStep\",\"step\":{\"index\":0,\"completedToolRounds\":0,\"toolCallingMode\":\"allowed\","
    "\"enabledTools\":[],\"trimmedEntries\":0}}",
    "{\"type\":\"text\",\"delta\":\"Hello there\",\"text\":\"Hello there\",\"isReset\":false}",
    NULL
  };

  run_reset ();
  g_assert_null (gg_agent_turn_get_new_entries (turn));
  run_turn (turn, NULL);
  assert_events (events);
  /* "Hi" = 2 bytes -> 1 token in; "Hello there" = 11 bytes -> 3 out. */
  assert_result ("{\"text\":\"Hello there\",\"toolCalls\":[],\"usage\":{\"inputTokens\":1,\"cachedInputTokens\":0,"
                 "\"outputTokens\":3,\"totalTokens\":4},\"steps\":[{\"index\":0,\"completedToolRounds\":0,"
                 "\"toolCallingMode\":\"allowed\",\"enabledTools\":[],\"trimmedEntries\":0}]}");
  assert_entries (turn, "[{\"role\":\"user\",\"text\":\"Hi\"},{\"role\":\"assistant\",\"text\":\"Hello there\"}]");
}

static void
test_tool_round_events (void)
{
  g_autoptr(GgModel) model = scripted (
    "{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}}]},"
    "{\"template\":\"Gate says: {toolOutput}\"}]}");
  g_autoptr(GgAgentTurn) turn = NULL;
  const char *events[] = {
    "{\"type\":\"modelStep\",\"step\":{\"index\":0,\"completedToolRounds\":0,\"toolCallingMode\":\"allowed\","
    "\"enabledTools\":[\"open_gate\"],\"trimmedEntries\":0}}",
    "{\"type\":\"toolCallStarted\",\"call\":{\"id\":\"call_1\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}},"
    "\"execution\":\"client\"}",
    "{\"type\":\"toolCallCompleted\",\"record\":{\"call\":{\"id\":\"call_1\",\"name\":\"open_gate\",\"arguments\":"
    "{\"gate\":\"north\"}},\"output\":{\"opened\":false,\"reason\":\"jammed\"},\"isError\":false,\"durationSeconds\":0}}",
    "{\"type\":\"modelStep\",\"step\":{\"index\":1,\"completedToolRounds\":1,\"toolCallingMode\":\"allowed\","
    "\"enabledTools\":[\"open_gate\"],\"trimmedEntries\":0}}",
    "{\"type\":\"text\",\"delta\":\"Gate says: {\\\"opened\\\":false,\\\"reason\\\":\\\"jammed\\\"}\",\"text\":"
    "\"Gate says: {\\\"opened\\\":false,\\\"reason\\\":\\\"jammed\\\"}\",\"isReset\":false}",
    NULL
  };

  run_reset ();
  json_object_set_member (run.outputs, "open_gate", parse ("{\"output\":{\"opened\":false,\"reason\":\"jammed\"}}"));
  turn = turn_new (model, TOOLS_GATE, "Open the north gate", NULL);
  run_turn (turn, NULL);
  assert_events (events);
  g_assert_no_error (run.error);
  g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==,
                   "Gate says: {\"opened\":false,\"reason\":\"jammed\"}");
  assert_entries (turn,
    "[{\"role\":\"user\",\"text\":\"Open the north gate\"},"
    "{\"role\":\"assistant\",\"toolCalls\":[{\"id\":\"call_1\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}}]},"
    "{\"role\":\"tool\",\"callId\":\"call_1\",\"name\":\"open_gate\",\"output\":\"{\\\"opened\\\":false,\\\"reason\\\":\\\"jammed\\\"}\"},"
    "{\"role\":\"assistant\",\"text\":\"Gate says: {\\\"opened\\\":false,\\\"reason\\\":\\\"jammed\\\"}\"}]");
}

static void
test_usage_sums (void)
{
  g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new (
    "[{\"toolCalls\":[{\"name\":\"look\"}],\"usage\":[100,0,10]},"
    "{\"toolCalls\":[{\"name\":\"look\"}],\"usage\":[150,90,12]},"
    "{\"text\":\"done\",\"usage\":[200,140,5]}]");
  g_autoptr(GgAgentTurn) turn = turn_new (GG_MODEL (model), TOOLS_THREE, "Go", NULL);
  g_autofree char *usage = NULL;
  g_autoptr(JsonNode) node = NULL;

  run_reset ();
  run_turn (turn, NULL);
  g_assert_no_error (run.error);
  node = json_node_init_object (json_node_alloc (), json_object_get_object_member (run.result, "usage"));
  usage = json_to_string (node, FALSE);
  g_assert_cmpstr (usage, ==, "{\"inputTokens\":450,\"cachedInputTokens\":230,\"outputTokens\":27,\"totalTokens\":477}");
}

static void
test_hostile_model_output (void)
{
  /* Calls without names, non-object calls, null arguments, odd ids. */
  g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new (
    "[{\"toolCalls\":[42,{\"name\":7},{\"name\":\"look\",\"arguments\":null,\"id\":\"\"},"
    "{\"name\":\"look\",\"arguments\":\"{not json\",\"id\":5}]},{\"text\":\"done\"}]");
  g_autoptr(GgAgentTurn) turn = turn_new (GG_MODEL (model), TOOLS_THREE, "Go", NULL);
  JsonArray *entries;
  JsonArray *calls;

  run_reset ();
  run_turn (turn, NULL);
  g_assert_no_error (run.error);
  entries = gg_agent_turn_get_new_entries (turn);
  calls = json_object_get_array_member (json_array_get_object_element (entries, 1), "toolCalls");
  g_assert_cmpuint (json_array_get_length (calls), ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *expected = g_strdup_printf ("call_%u", i + 1);
      g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (calls, i), "id"), ==, expected);
    }
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (entries, 2), "output"), ==,
                   "Error: Unknown tool ''.");
  /* Arguments that are not an object never reach the executor. */
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (entries, 4), "output"), ==,
                   "ok:look");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (entries, 5), "output"), ==,
                   "Error: The arguments of tool 'look' must be a JSON object.");
}

/* Whatever a backend produces as arguments, the executor sees an object:
 * strings, numbers and arrays are refused with an error output the model
 * sees; they are not counted against maxToolCalls. */
static void
test_non_object_arguments (void)
{
  g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new (
    "[{\"toolCalls\":[{\"name\":\"look\",\"arguments\":\"{}\"},{\"name\":\"look\",\"arguments\":[1]},"
    "{\"name\":\"look\",\"arguments\":5},{\"name\":\"look\",\"arguments\":{\"at\":\"gate\"}}]},"
    "{\"text\":\"done\"}]");
  g_autoptr(GgAgentTurn) turn = NULL;
  GgAgentPolicy policy;
  JsonArray *records;

  gg_agent_policy_init (&policy);
  policy.max_tool_calls = 1;
  run_reset ();
  turn = turn_new (GG_MODEL (model), TOOLS_THREE, "Go", &policy);
  gg_agent_policy_clear (&policy);
  run_turn (turn, NULL);
  g_assert_no_error (run.error);
  records = json_object_get_array_member (run.result, "toolCalls");
  g_assert_cmpuint (json_array_get_length (records), ==, 4);
  for (guint i = 0; i < 3; i++)
    {
      JsonObject *record = json_array_get_object_element (records, i);
      g_assert_true (json_object_get_boolean_member (record, "isError"));
      g_assert_cmpstr (json_object_get_string_member (record, "output"), ==,
                       "The arguments of tool 'look' must be a JSON object.");
    }
  g_assert_false (json_object_get_boolean_member (json_array_get_object_element (records, 3), "isError"));
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (records, 3), "output"), ==,
                   "ok:look");
}

/* A turn created under a pushed thread-default context runs entirely
 * there: model delays, streaming idles, tool timeouts, completion. */
static void
test_thread_default_context (void)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GgModel) model = NULL;
  g_autoptr(GgAgentTurn) turn = NULL;
  GgAgentPolicy policy;

  g_main_context_push_thread_default (context);
  model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"a\"}],\"delayMs\":5},"
                    "{\"template\":\"got {toolOutput}\",\"chunks\":2,\"delayMs\":5}]}");
  gg_agent_policy_init (&policy);
  policy.tool_timeout_ms = 10;
  run_reset ();
  run.exec_mode = EXEC_HOLD;
  turn = turn_new (model, "[{\"name\":\"a\"}]", "Go", &policy);
  gg_agent_policy_clear (&policy);
  gg_agent_turn_set_streaming (turn, TRUE);
  gg_agent_turn_run_async (turn, NULL, on_turn_done, NULL);
  while (!run.done)
    g_main_context_iteration (context, TRUE);
  g_main_context_pop_thread_default (context);
  g_assert_no_error (run.error);
  g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==,
                   "got Error: Tool 'a' timed out after 0.01s.");
  g_assert_cmpuint (run.events->len, ==, 6);
}

/* What the model is given: instructions, sampling, limits, the history
 * (non-entries skipped), the tools without execution details. */
static void
test_request_fields (void)
{
  g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new ("[{\"toolCalls\":[{\"name\":\"look\",\"id\":\"x\"}]},{\"text\":\"ok\"}]");
  g_autoptr(JsonArray) history = parse_array (
    "[{\"role\":\"assistant\",\"text\":\"Welcome.\"},42,\"text\",null,"
    "{\"role\":\"user\",\"text\":\"Hi\"},{\"role\":\"assistant\",\"text\":\"Hello\"}]");
  g_autoptr(JsonArray) tools = parse_array (
    "[{\"name\":\"look\",\"description\":\"Look around\",\"parameters\":{\"type\":\"object\",\"properties\":{}},"
    "\"execution\":\"client\",\"timeoutSeconds\":30},{\"name\":\"look\",\"description\":\"duplicate\"},"
    "{\"description\":\"nameless\"},7]");
  g_autoptr(JsonNode) sampling = parse ("{\"topK\":5,\"seed\":42}");
  g_autoptr(GgAgentTurn) turn = gg_agent_turn_new (GG_MODEL (model), "You are a guard.", history, tools, "Look", NULL, NULL);
  GgModelRequest *first, *second;
  g_autofree char *sent_tools = NULL;
  g_autofree char *transcript = NULL;
  g_autofree char *sent_sampling = NULL;

  gg_agent_turn_set_event_func (turn, on_event, NULL, NULL);
  gg_agent_turn_set_executor (turn, executor, NULL, NULL);
  gg_agent_turn_set_sampling (turn, sampling, 0.7, 64);
  /* The turn copied it. */
  json_object_set_int_member (json_node_get_object (sampling), "topK", 1);
  run_reset ();
  run_turn (turn, NULL);
  g_assert_no_error (run.error);

  first = gg_test_fake_model_get_request (model, 0);
  second = gg_test_fake_model_get_request (model, 1);
  g_assert_cmpstr (first->instructions, ==, "You are a guard.");
  g_assert_cmpfloat (first->temperature, ==, 0.7);
  g_assert_cmpint (first->max_tokens, ==, 64);
  g_assert_false (first->stream);
  g_assert_null (first->output_schema);
  sent_sampling = json_to_string (first->sampling, FALSE);
  g_assert_cmpstr (sent_sampling, ==, "{\"topK\":5,\"seed\":42}");
  sent_tools = array_string (first->tools);
  g_assert_cmpstr (sent_tools, ==, "[{\"name\":\"look\",\"description\":\"Look around\",\"parameters\":"
                                   "{\"type\":\"object\",\"properties\":{}}}]");
  transcript = array_string (second->transcript);
  g_assert_cmpstr (transcript, ==,
                   "[{\"role\":\"assistant\",\"text\":\"Welcome.\"},{\"role\":\"user\",\"text\":\"Hi\"},"
                   "{\"role\":\"assistant\",\"text\":\"Hello\"},{\"role\":\"user\",\"text\":\"Look\"},"
                   "{\"role\":\"assistant\",\"toolCalls\":[{\"id\":\"x\",\"name\":\"look\",\"arguments\":{}}]},"
                   "{\"role\":\"tool\",\"callId\":\"x\",\"name\":\"look\",\"output\":\"ok:look\"}]");
  g_assert_cmpuint (json_array_get_length (first->transcript), ==, 4);
}

static void
test_policy (void)
{
  GgAgentPolicy policy, copy;
  const char *enabled[] = { "a", "b", NULL };

  gg_agent_policy_init (&policy);
  g_assert_cmpint (policy.tool_choice, ==, GG_TOOL_CHOICE_AUTO);
  g_assert_cmpint (policy.max_tool_rounds, ==, 4);
  g_assert_cmpint (policy.max_tool_calls, ==, 12);
  g_assert_cmpint (policy.tool_timeout_ms, ==, 120000);
  g_assert_cmpint (policy.max_attempts, ==, 2);
  g_assert_null (policy.enabled_tools);
  g_assert_true (policy.trim_history);
  g_assert_cmpint (policy.reserved_response_tokens, ==, 1024);

  policy.forced_tool = g_strdup ("a");
  policy.enabled_tools = g_strdupv ((char **) enabled);
  gg_agent_policy_copy (&copy, &policy);
  gg_agent_policy_clear (&policy);
  g_assert_cmpstr (copy.forced_tool, ==, "a");
  g_assert_cmpstr (copy.enabled_tools[1], ==, "b");
  gg_agent_policy_clear (&copy);
  g_assert_null (copy.forced_tool);
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  load_scripted_plugin ();

  g_test_add_func ("/agent-turn/policy", test_policy);
  g_test_add_func ("/agent-turn/text-answer", test_text_answer);
  g_test_add_func ("/agent-turn/tool-round-events", test_tool_round_events);
  g_test_add_func ("/agent-turn/usage-sums", test_usage_sums);
  g_test_add_func ("/agent-turn/hostile-model-output", test_hostile_model_output);
  g_test_add_func ("/agent-turn/non-object-arguments", test_non_object_arguments);
  g_test_add_func ("/agent-turn/thread-default-context", test_thread_default_context);
  g_test_add_func ("/agent-turn/request-fields", test_request_fields);

  status = g_test_run ();
  run_clear ();
  return status;
}
