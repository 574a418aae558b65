/* test-agent-turn-tools.c: the agent loop's tool calls: tool choice, enabled tools,
 * the round and call limits, parallel calls answered out of order, the
 * forms of an output, and timeouts.
 * Driven by the fake model of tests/common/gg-test-model.h and by the real
 * scripted model plugin, through the helpers of agent-turn-test.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "agent-turn-test.h"

static void
run_choice (GgToolChoiceKind choice, const char *forced, const char *actions,
            const char *expected_modes, GgTestFakeModel **out_model)
{
  GgTestFakeModel *model = gg_test_fake_model_new (actions);
  g_autoptr(GgAgentTurn) turn = NULL;
  GgAgentPolicy policy;
  g_autofree char *modes = NULL;

  gg_agent_policy_init (&policy);
  policy.tool_choice = choice;
  policy.forced_tool = g_strdup (forced);
  run_reset ();
  turn = turn_new (GG_MODEL (model), TOOLS_THREE, "Go", &policy);
  gg_agent_policy_clear (&policy);
  run_turn (turn, NULL);
  g_assert_no_error (run.error);
  modes = modes_string ();
  g_assert_cmpstr (modes, ==, expected_modes);
  *out_model = model;
}

static void
test_tool_choice (void)
{
  const char *round = "[{\"toolCalls\":[{\"name\":\"look\"}]},{\"text\":\"done\"}]";
  GgTestFakeModel *model = NULL;

  run_choice (GG_TOOL_CHOICE_AUTO, NULL, round,
              "allowed[\"look\",\"open_gate\",\"ring_bell\"] allowed[\"look\",\"open_gate\",\"ring_bell\"]", &model);
  g_assert_cmpint (gg_test_fake_model_get_request (model, 0)->tool_mode, ==, GG_TOOL_MODE_ALLOWED);
  g_assert_cmpuint (json_array_get_length (gg_test_fake_model_get_request (model, 0)->tools), ==, 3);
  g_clear_object (&model);

  run_choice (GG_TOOL_CHOICE_NONE, NULL, "[{\"text\":\"done\"}]", "none[]", &model);
  g_assert_cmpint (gg_test_fake_model_get_request (model, 0)->tool_mode, ==, GG_TOOL_MODE_NONE);
  g_assert_cmpuint (json_array_get_length (gg_test_fake_model_get_request (model, 0)->tools), ==, 0);
  g_clear_object (&model);

  run_choice (GG_TOOL_CHOICE_REQUIRED, NULL, round,
              "required[\"look\",\"open_gate\",\"ring_bell\"] allowed[\"look\",\"open_gate\",\"ring_bell\"]", &model);
  g_assert_cmpint (gg_test_fake_model_get_request (model, 0)->tool_mode, ==, GG_TOOL_MODE_REQUIRED);
  g_assert_cmpint (gg_test_fake_model_get_request (model, 1)->tool_mode, ==, GG_TOOL_MODE_ALLOWED);
  g_clear_object (&model);

  /* {tool}: only that tool on the first step, all afterwards. */
  run_choice (GG_TOOL_CHOICE_TOOL, "ring_bell", "[{\"toolCalls\":[{\"name\":\"ring_bell\"}]},{\"text\":\"done\"}]",
              "required[\"ring_bell\"] allowed[\"look\",\"open_gate\",\"ring_bell\"]", &model);
  {
    g_autofree char *tools = array_string (gg_test_fake_model_get_request (model, 0)->tools);
    g_assert_cmpstr (tools, ==, "[{\"name\":\"ring_bell\",\"description\":\"Ring\",\"parameters\":"
                                "{\"type\":\"object\",\"properties\":{}}}]");
  }
  g_clear_object (&model);

  /* explicit: required with respond_directly; choosing it means "answer now". */
  run_choice (GG_TOOL_CHOICE_EXPLICIT, NULL, "[{\"toolCalls\":[{\"name\":\"respond_directly\"}]},{\"text\":\"done\"}]",
              "required[\"look\",\"open_gate\",\"ring_bell\",\"respond_directly\"] none[]", &model);
  {
    GgModelRequest *first = gg_test_fake_model_get_request (model, 0);
    JsonObject *builtin = json_array_get_object_element (first->tools, 3);
    g_autofree char *parameters = NULL;
    g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (),
                                                      json_object_get_object_member (builtin, "parameters"));

    parameters = json_to_string (node, FALSE);
    g_assert_cmpstr (json_object_get_string_member (builtin, "name"), ==, "respond_directly");
    g_assert_cmpstr (parameters, ==, "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}");
    g_assert_cmpint (gg_test_fake_model_get_request (model, 1)->tool_mode, ==, GG_TOOL_MODE_NONE);
  }
  /* Not executed, not counted, not reported. */
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (run.result, "toolCalls")), ==, 0);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (
                     json_object_get_array_member (run.result, "steps"), 1), "completedToolRounds"), ==, 0);
  g_clear_object (&model);

  /* explicit, the model picks a real tool: it runs, then tools are allowed. */
  run_choice (GG_TOOL_CHOICE_EXPLICIT, NULL, round,
              "required[\"look\",\"open_gate\",\"ring_bell\",\"respond_directly\"] "
              "allowed[\"look\",\"open_gate\",\"ring_bell\"]", &model);
  g_clear_object (&model);
}

static void
test_tool_choice_unknown (void)
{
  g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new ("[]");
  g_autoptr(GgAgentTurn) turn = NULL;
  GgAgentPolicy policy;

  gg_agent_policy_init (&policy);
  policy.tool_choice = GG_TOOL_CHOICE_TOOL;
  policy.forced_tool = g_strdup ("fly");
  run_reset ();
  turn = turn_new (GG_MODEL (model), TOOLS_THREE, "Go", &policy);
  gg_agent_policy_clear (&policy);
  run_turn (turn, NULL);
  g_assert_error (run.error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (run.error->message, ==, "Unknown tool 'fly' in toolChoice");
  g_assert_cmpuint (run.events->len, ==, 0);
  g_assert_cmpuint (model->requests->len, ==, 0);
  g_assert_null (gg_agent_turn_get_new_entries (turn));
}

static void
test_enabled_tools (void)
{
  g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new ("[{\"toolCalls\":[{\"name\":\"look\"}]},{\"text\":\"done\"}]");
  g_autoptr(GgAgentTurn) turn = NULL;
  g_autofree char *modes = NULL;
  GgAgentPolicy policy;
  const char *enabled[] = { "ring_bell", "open_gate", NULL };

  gg_agent_policy_init (&policy);
  policy.enabled_tools = g_strdupv ((char **) enabled);
  run_reset ();
  turn = turn_new (GG_MODEL (model), TOOLS_THREE, "Go", &policy);
  gg_agent_policy_clear (&policy);
  run_turn (turn, NULL);
  g_assert_no_error (run.error);
  /* In the tools' order; "look" is not visible, so calling it is an error. */
  modes = modes_string ();
  g_assert_cmpstr (modes, ==, "allowed[\"open_gate\",\"ring_bell\"] allowed[\"open_gate\",\"ring_bell\"]");
  assert_result ("{\"text\":\"done\",\"toolCalls\":[{\"call\":{\"id\":\"call_1\",\"name\":\"look\",\"arguments\":{}},"
                 "\"output\":\"Unknown tool 'look'.\",\"isError\":true,\"durationSeconds\":0}],"
                 "\"usage\":{\"inputTokens\":0,\"cachedInputTokens\":0,\"outputTokens\":0,\"totalTokens\":0},"
                 "\"steps\":[{\"index\":0,\"completedToolRounds\":0,\"toolCallingMode\":\"allowed\",\"enabledTools\":"
                 "[\"open_gate\",\"ring_bell\"],\"trimmedEntries\":0},{\"index\":1,\"completedToolRounds\":1,"
                 "\"toolCallingMode\":\"allowed\",\"enabledTools\":[\"open_gate\",\"ring_bell\"],\"trimmedEntries\":0}]}");
}

static void
test_max_tool_rounds (void)
{
  const char *two_rounds = "[{\"toolCalls\":[{\"name\":\"look\"}]},{\"toolCalls\":[{\"name\":\"look\"}]},{\"text\":\"done\"}]";
  g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new (two_rounds);
  g_autoptr(GgTestFakeModel) zero = gg_test_fake_model_new ("[{\"text\":\"plain\"}]");
  g_autoptr(GgTestFakeModel) insisting = gg_test_fake_model_new (two_rounds);
  g_autoptr(GgAgentTurn) turn = NULL;
  g_autofree char *modes = NULL;
  GgAgentPolicy policy;

  gg_agent_policy_init (&policy);
  policy.max_tool_rounds = 2;
  run_reset ();
  turn = turn_new (GG_MODEL (model), TOOLS_THREE, "Go", &policy);
  run_turn (turn, NULL);
  g_assert_no_error (run.error);
  modes = modes_string ();
  g_assert_cmpstr (modes, ==, "allowed[\"look\",\"open_gate\",\"ring_bell\"] "
                              "allowed[\"look\",\"open_gate\",\"ring_bell\"] none[]");
  g_clear_object (&turn);
  g_clear_pointer (&modes, g_free);

  /* 0: tools are never offered, even when required. */
  policy.max_tool_rounds = 0;
  policy.tool_choice = GG_TOOL_CHOICE_REQUIRED;
  run_reset ();
  turn = turn_new (GG_MODEL (zero), TOOLS_THREE, "Go", &policy);
  run_turn (turn, NULL);
  g_assert_no_error (run.error);
  modes = modes_string ();
  g_assert_cmpstr (modes, ==, "none[]");
  g_assert_cmpuint (json_array_get_length (gg_test_fake_model_get_request (zero, 0)->tools), ==, 0);
  g_clear_object (&turn);

  /* A model calling tools when they are off fails the turn. */
  policy.max_tool_rounds = 1;
  run_reset ();
  turn = turn_new (GG_MODEL (insisting), TOOLS_THREE, "Go", &policy);
  run_turn (turn, NULL);
  g_assert_error (run.error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
  g_assert_null (gg_agent_turn_get_new_entries (turn));
  gg_agent_policy_clear (&policy);
}

static void
test_max_tool_calls (void)
{
  g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new (
    "[{\"toolCalls\":[{\"id\":\"a\",\"name\":\"look\"},{\"id\":\"b\",\"name\":\"fly\"},{\"id\":\"c\",\"name\":\"ring_bell\"}]},"
    "{\"toolCalls\":[{\"id\":\"d\",\"name\":\"look\"},{\"id\":\"e\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"x\"}}]},"
    "{\"text\":\"done\"}]");
  g_autoptr(GgAgentTurn) turn = NULL;
  GgAgentPolicy policy;
  const char *events[] = {
    "{\"type\":\"modelStep\",\"step\":{\"index\":0,\"completedToolRounds\":0,\"toolCallingMode\":\"allowed\","
    "\"enabledTools\":[\"look\",\"open_gate\",\"ring_bell\"],\"trimmedEntries\":0}}",
    "{\"type\":\"toolCallStarted\",\"call\":{\"id\":\"a\",\"name\":\"look\",\"arguments\":{}},\"execution\":\"client\"}",
    "{\"type\":\"toolCallStarted\",\"call\":{\"id\":\"b\",\"name\":\"fly\",\"arguments\":{}},\"execution\":\"client\"}",
    "{\"type\":\"toolCallStarted\",\"call\":{\"id\":\"c\",\"name\":\"ring_bell\",\"arguments\":{}},\"execution\":\"client\"}",
    "{\"type\":\"toolCallCompleted\",\"record\":{\"call\":{\"id\":\"b\",\"name\":\"fly\",\"arguments\":{}},"
    "\"output\":\"Unknown tool 'fly'.\",\"isError\":true,\"durationSeconds\":0}}",
    "{\"type\":\"toolCallCompleted\",\"record\":{\"call\":{\"id\":\"a\",\"name\":\"look\",\"arguments\":{}},"
    "\"output\":\"ok:look\",\"isError\":false,\"durationSeconds\":0}}",
    "{\"type\":\"toolCallCompleted\",\"record\":{\"call\":{\"id\":\"c\",\"name\":\"ring_bell\",\"arguments\":{}},"
    "\"output\":\"ok:ring_bell\",\"isError\":false,\"durationSeconds\":0}}",
    "{\"type\":\"modelStep\",\"step\":{\"index\":1,\"completedToolRounds\":1,\"toolCallingMode\":\"allowed\","
    "\"enabledTools\":[\"look\",\"open_gate\",\"ring_bell\"],\"trimmedEntries\":0}}",
    "{\"type\":\"toolCallStarted\",\"call\":{\"id\":\"d\",\"name\":\"look\",\"arguments\":{}},\"execution\":\"client\"}",
    "{\"type\":\"toolCallStarted\",\"call\":{\"id\":\"e\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"x\"}},"
    "\"execution\":\"client\"}",
    "{\"type\":\"toolCallCompleted\",\"record\":{\"call\":{\"id\":\"e\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"x\"}},"
    "\"output\":\"Too many tool calls in this turn (limit 3).\",\"isError\":true,\"durationSeconds\":0}}",
    "{\"type\":\"toolCallCompleted\",\"record\":{\"call\":{\"id\":\"d\",\"name\":\"look\",\"arguments\":{}},"
    "\"output\":\"ok:look\",\"isError\":false,\"durationSeconds\":0}}",
    "{\"type\":\"modelStep\",\"step\":{\"index\":2,\"completedToolRounds\":2,\"toolCallingMode\":\"allowed\","
    "\"enabledTools\":[\"look\",\"open_gate\",\"ring_bell\"],\"trimmedEntries\":0}}",
    "{\"type\":\"text\",\"delta\":\"done\",\"text\":\"done\",\"isReset\":false}",
    NULL
  };

  gg_agent_policy_init (&policy);
  policy.max_tool_calls = 3;
  run_reset ();
  turn = turn_new (GG_MODEL (model), TOOLS_THREE, "Go", &policy);
  gg_agent_policy_clear (&policy);
  run_turn (turn, NULL);
  g_assert_no_error (run.error);
  assert_events (events);
  assert_entries (turn,
    "[{\"role\":\"user\",\"text\":\"Go\"},"
    "{\"role\":\"assistant\",\"toolCalls\":[{\"id\":\"a\",\"name\":\"look\",\"arguments\":{}},"
    "{\"id\":\"b\",\"name\":\"fly\",\"arguments\":{}},{\"id\":\"c\",\"name\":\"ring_bell\",\"arguments\":{}}]},"
    "{\"role\":\"tool\",\"callId\":\"a\",\"name\":\"look\",\"output\":\"ok:look\"},"
    "{\"role\":\"tool\",\"callId\":\"b\",\"name\":\"fly\",\"output\":\"Error: Unknown tool 'fly'.\"},"
    "{\"role\":\"tool\",\"callId\":\"c\",\"name\":\"ring_bell\",\"output\":\"ok:ring_bell\"},"
    "{\"role\":\"assistant\",\"toolCalls\":[{\"id\":\"d\",\"name\":\"look\",\"arguments\":{}},"
    "{\"id\":\"e\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"x\"}}]},"
    "{\"role\":\"tool\",\"callId\":\"d\",\"name\":\"look\",\"output\":\"ok:look\"},"
    "{\"role\":\"tool\",\"callId\":\"e\",\"name\":\"open_gate\",\"output\":\"Error: Too many tool calls in this turn (limit 3).\"},"
    "{\"role\":\"assistant\",\"text\":\"done\"}]");
  /* The model saw the same transcript in its last step. */
  g_assert_cmpuint (json_array_get_length (gg_test_fake_model_get_request (model, 2)->transcript), ==, 8);
}

static void
test_parallel_out_of_order (void)
{
  g_autoptr(GgModel) model = scripted (
    "{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"look\",\"id\":\"first\"},"
    "{\"name\":\"ring_bell\",\"id\":\"second\"},{\"name\":\"open_gate\",\"id\":\"third\",\"arguments\":{\"gate\":\"n\"}}]},"
    "{\"template\":\"{toolOutputs}|{toolOutput}\"}]}");
  g_autoptr(GgAgentTurn) turn = NULL;
  GgToolInvocation *first, *second, *third;

  run_reset ();
  run.exec_mode = EXEC_HOLD;
  turn = turn_new (model, TOOLS_THREE, "Go", NULL);
  start (turn, NULL);
  while (run.held->len < 3)
    g_main_context_iteration (NULL, TRUE);
  first = g_ptr_array_index (run.held, 0);
  second = g_ptr_array_index (run.held, 1);
  third = g_ptr_array_index (run.held, 2);
  g_assert_cmpstr (gg_tool_invocation_get_call_id (first), ==, "first");
  g_assert_cmpstr (gg_tool_invocation_get_name (second), ==, "ring_bell");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (gg_tool_invocation_get_arguments (third)),
                                                  "gate"), ==, "n");
  g_assert_cmpstr (json_object_get_string_member (gg_tool_invocation_get_tool (third), "description"), ==, "Open");
  g_assert_cmpstr (json_object_get_string_member (gg_tool_invocation_get_call (third), "id"), ==, "third");
  g_assert_null (gg_tool_invocation_get_abandon_reason (first));
  /* Started events for all three, in call order, before any answer. */
  g_assert_cmpuint (run.events->len, ==, 4);

  answer_text (third, "three", FALSE);
  settle (5);
  answer_text (first, "one", TRUE);
  {
    g_autoptr(JsonNode) output = parse ("{\"rang\":true}");
    gg_tool_invocation_return_output (second, output, FALSE);
  }
  /* Answering twice is ignored. */
  answer_text (second, "again", FALSE);
  g_assert_true (gg_tool_invocation_is_finished (second));
  wait_done ();
  g_assert_no_error (run.error);

  /* Records in completion order; outputs to the model in call order. */
  {
    JsonArray *records = json_object_get_array_member (run.result, "toolCalls");
    g_assert_cmpuint (json_array_get_length (records), ==, 3);
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (
                       json_array_get_object_element (records, 0), "call"), "id"), ==, "third");
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (
                       json_array_get_object_element (records, 1), "call"), "id"), ==, "first");
    g_assert_true (json_object_get_boolean_member (json_array_get_object_element (records, 1), "isError"));
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (records, 1), "output"), ==, "one");
  }
  g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==,
                   "Error: one\n{\"rang\":true}\nthree|three");
}

static void
test_outputs (void)
{
  g_autoptr(GgModel) model = scripted (
    "{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"look\"},{\"name\":\"ring_bell\"},"
    "{\"name\":\"open_gate\"}]},{\"template\":\"{toolOutputs}\"},"
    "{\"toolCalls\":[{\"name\":\"look\"}]},{\"template\":\"{toolOutputs}\"}]}");
  g_autoptr(GgAgentTurn) turn = NULL;
  g_autoptr(GgAgentTurn) second = NULL;

  run_reset ();
  json_object_set_member (run.outputs, "look", parse ("{\"output\":[1,{\"a\":null}],\"isError\":true}"));
  json_object_set_member (run.outputs, "ring_bell", parse ("{\"error\":\"Bell subsystem offline\"}"));
  json_object_set_member (run.outputs, "open_gate", parse ("{\"output\":\"  spaced \\n text \"}"));
  turn = turn_new (model, TOOLS_THREE, "Go", NULL);
  run_turn (turn, NULL);
  g_assert_no_error (run.error);
  g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==,
                   "Error: [1,{\"a\":null}]\nError: Bell subsystem offline\n  spaced \n text ");

  /* Without an executor every call gets an error output. */
  run_reset ();
  {
    g_autoptr(JsonArray) tools = parse_array (TOOLS_THREE);
    second = gg_agent_turn_new (model, NULL, NULL, tools, "Again", NULL, NULL);
  }
  gg_agent_turn_set_event_func (second, on_event, NULL, NULL);
  run_turn (second, NULL);
  g_assert_no_error (run.error);
  g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==, "Error: No tool executor is available.");
}

static GgToolInvocation *timed_out;

static void
on_invocation_cancelled (GCancellable *cancellable, gpointer user_data)
{
  gboolean *flag = user_data;
  *flag = TRUE;
}

static void
test_timeouts (void)
{
  g_autoptr(GgModel) model = scripted (
    "{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"slow\"},{\"name\":\"quick\"}]},"
    "{\"template\":\"{toolOutputs}\"}]}");
  g_autoptr(GgAgentTurn) turn = NULL;
  GgAgentPolicy policy;
  gboolean cancelled = FALSE;
  gint64 started;

  gg_agent_policy_init (&policy);
  policy.tool_timeout_ms = 30;
  run_reset ();
  run.exec_mode = EXEC_HOLD;
  turn = turn_new (model, "[{\"name\":\"slow\",\"timeoutSeconds\":0.05},{\"name\":\"quick\"}]", "Go", &policy);
  gg_agent_policy_clear (&policy);
  started = g_get_monotonic_time ();
  start (turn, NULL);
  while (run.held->len < 2)
    g_main_context_iteration (NULL, TRUE);
  timed_out = g_object_ref (g_ptr_array_index (run.held, 0));
  g_signal_connect (gg_tool_invocation_get_cancellable (timed_out), "cancelled",
                    G_CALLBACK (on_invocation_cancelled), &cancelled);
  wait_done ();
  g_assert_no_error (run.error);
  g_assert_cmpint (g_get_monotonic_time () - started, >=, 50000);
  /* The policy's 30 ms for "quick", the tool's own 0.05 s for "slow". */
  g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==,
                   "Error: Tool 'slow' timed out after 0.05s.\nError: Tool 'quick' timed out after 0.03s.");
  g_assert_true (cancelled);
  g_assert_true (gg_tool_invocation_is_finished (timed_out));
  g_assert_cmpstr (gg_tool_invocation_get_abandon_reason (timed_out), ==,
                   "Error: Tool 'slow' timed out after 0.05s.");
  g_assert_true (g_cancellable_is_cancelled (gg_tool_invocation_get_cancellable (g_ptr_array_index (run.held, 1))));
  /* A late answer changes nothing. */
  answer_text (timed_out, "late", FALSE);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (run.result, "toolCalls")), ==, 2);
  g_clear_object (&timed_out);
}

static void
test_timeout_formats (void)
{
  static const struct { gint64 ms; const char *text; } cases[] = {
    { 1, "Error: Tool 'a' timed out after 0.001s." },
    { 250, "Error: Tool 'a' timed out after 0.25s." },
    { 1000, "Error: Tool 'a' timed out after 1s." },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GgModel) model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"a\"}]},"
                                           "{\"template\":\"{toolOutput}\"}]}");
      g_autoptr(GgAgentTurn) turn = NULL;
      GgAgentPolicy policy;

      gg_agent_policy_init (&policy);
      policy.tool_timeout_ms = cases[i].ms;
      run_reset ();
      run.exec_mode = EXEC_HOLD;
      turn = turn_new (model, "[{\"name\":\"a\"}]", "Go", &policy);
      run_turn (turn, NULL);
      g_assert_no_error (run.error);
      g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==, cases[i].text);
      g_assert_cmpstr (gg_tool_invocation_get_abandon_reason (g_ptr_array_index (run.held, 0)), ==, cases[i].text);
      gg_agent_policy_clear (&policy);
    }

  /* A tool's timeout below a millisecond is still a timeout, not "forever". */
  {
    g_autoptr(GgModel) model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"a\"}]},"
                                         "{\"template\":\"{toolOutput}\"}]}");
    g_autoptr(GgAgentTurn) turn = NULL;

    run_reset ();
    run.exec_mode = EXEC_HOLD;
    turn = turn_new (model, "[{\"name\":\"a\",\"timeoutSeconds\":0.0001}]", "Go", NULL);
    run_turn (turn, NULL);
    g_assert_no_error (run.error);
    g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==,
                     "Error: Tool 'a' timed out after 0.001s.");
  }

  /* 0 waits forever: an answer after longer than any default still counts. */
  {
    g_autoptr(GgModel) model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"a\"}]},"
                                         "{\"template\":\"{toolOutput}\"}]}");
    g_autoptr(GgAgentTurn) turn = NULL;
    GgAgentPolicy policy;

    gg_agent_policy_init (&policy);
    policy.tool_timeout_ms = 1;
    run_reset ();
    run.exec_mode = EXEC_HOLD;
    turn = turn_new (model, "[{\"name\":\"a\",\"timeoutSeconds\":0}]", "Go", &policy);
    start (turn, NULL);
    while (run.held->len < 1)
      g_main_context_iteration (NULL, TRUE);
    settle (30);
    g_assert_false (run.done);
    answer_text (g_ptr_array_index (run.held, 0), "fine", FALSE);
    wait_done ();
    g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==, "fine");
    gg_agent_policy_clear (&policy);
  }
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  load_scripted_plugin ();

  g_test_add_func ("/agent-turn/tool-choice", test_tool_choice);
  g_test_add_func ("/agent-turn/tool-choice-unknown", test_tool_choice_unknown);
  g_test_add_func ("/agent-turn/enabled-tools", test_enabled_tools);
  g_test_add_func ("/agent-turn/max-tool-rounds", test_max_tool_rounds);
  g_test_add_func ("/agent-turn/max-tool-calls", test_max_tool_calls);
  g_test_add_func ("/agent-turn/parallel-out-of-order", test_parallel_out_of_order);
  g_test_add_func ("/agent-turn/outputs", test_outputs);
  g_test_add_func ("/agent-turn/timeouts", test_timeouts);
  g_test_add_func ("/agent-turn/timeout-formats", test_timeout_formats);

  status = g_test_run ();
  run_clear ();
  return status;
}
