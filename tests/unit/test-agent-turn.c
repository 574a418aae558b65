/* test-agent-turn.c: the shared tool-calling loop, driven by the fake model
 * of tests/common/gg-test-model.h and by the real scripted model plugin from the build tree.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <gamegate.h>

#include "gg-test-model.h"
#include "gg-test-plugin.h"

/* ---- JSON helpers ------------------------------------------------------ */

static JsonNode *
parse (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (json, &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}

static JsonArray *
parse_array (const char *json)
{
  g_autoptr(JsonNode) node = parse (json);
  return json_node_dup_array (node);
}

/* Compact JSON with every `durationSeconds` zeroed: timings vary. */
static void
zero_durations (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);

      for (GList *l = members; l != NULL; l = l->next)
        {
          if (g_str_equal (l->data, "durationSeconds"))
            json_object_set_int_member (object, "durationSeconds", 0);
          else
            zero_durations (json_object_get_member (object, l->data));
        }
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (array); i++)
        zero_durations (json_array_get_element (array, i));
    }
}

static char *
object_string (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);
  g_autofree char *first = json_to_string (node, FALSE);
  g_autoptr(JsonNode) fresh = json_from_string (first, NULL);

  zero_durations (fresh);
  return json_to_string (fresh, FALSE);
}

static char *
array_string (JsonArray *array)
{
  g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), array);
  return json_to_string (node, FALSE);
}

/* ---- the real scripted model ------------------------------------------- */

static GgBus *bus;

static void
load_scripted_plugin (void)
{
  g_autoptr(GError) error = NULL;

  bus = gg_bus_new ();
  g_assert_nonnull (gg_test_load_plugin (bus, "model-scripted", NULL, &error));
  g_assert_no_error (error);
}

static GgModel *
scripted (const char *spec)
{
  g_autoptr(JsonNode) node = parse (spec);
  g_autoptr(GError) error = NULL;
  GgModel *model = gg_bus_create_model (bus, node, &error);

  g_assert_no_error (error);
  g_assert_nonnull (model);
  g_assert_cmpstr (gg_model_get_name (model), ==, "scripted");
  return model;
}

/* ---- running a turn ---------------------------------------------------- */

typedef enum {
  EXEC_IMMEDIATE, /* answer from `outputs` at once */
  EXEC_HOLD,      /* keep the invocation for the test */
} ExecMode;

typedef struct {
  GPtrArray *events;        /* compact JSON strings */
  ExecMode exec_mode;
  JsonObject *outputs;      /* name -> {"output", "isError"?} or {"error": msg} */
  GPtrArray *held;          /* GgToolInvocation */
  GCancellable *cancel_on;  /* cancelled by the event named in cancel_event */
  const char *cancel_event;
  guint cancel_at_event;    /* cancel_on is cancelled by this event (1-based) */
  guint done_count;
  gboolean done;
  JsonObject *result;
  GError *error;
  guint events_at_done;
} Run;

static Run run;

static void
run_reset (void)
{
  g_clear_pointer (&run.events, g_ptr_array_unref);
  g_clear_pointer (&run.outputs, json_object_unref);
  g_clear_pointer (&run.held, g_ptr_array_unref);
  g_clear_object (&run.cancel_on);
  g_clear_pointer (&run.result, json_object_unref);
  g_clear_error (&run.error);
  memset (&run, 0, sizeof run);
  run.events = g_ptr_array_new_with_free_func (g_free);
  run.held = g_ptr_array_new_with_free_func (g_object_unref);
  run.outputs = json_object_new ();
}

static void
on_event (JsonObject *event,
          gpointer    user_data)
{
  g_assert_false (run.done);
  g_ptr_array_add (run.events, object_string (event));
  if (run.cancel_on != NULL && run.cancel_event != NULL &&
      g_str_equal (json_object_get_string_member (event, "type"), run.cancel_event))
    g_cancellable_cancel (run.cancel_on);
  if (run.cancel_on != NULL && run.cancel_at_event == run.events->len)
    g_cancellable_cancel (run.cancel_on);
}

static void
executor (GgToolInvocation *invocation,
          gpointer          user_data)
{
  const char *name = gg_tool_invocation_get_name (invocation);
  JsonObject *answer;

  g_assert_false (gg_tool_invocation_is_finished (invocation));
  if (run.exec_mode == EXEC_HOLD)
    {
      g_ptr_array_add (run.held, invocation);
      return;
    }
  answer = json_object_has_member (run.outputs, name) ? json_object_get_object_member (run.outputs, name) : NULL;
  if (answer != NULL && json_object_has_member (answer, "hold"))
    {
      g_ptr_array_add (run.held, invocation);
      return;
    }
  if (answer == NULL)
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
      g_autofree char *text = g_strdup_printf ("ok:%s", name);
      json_node_set_string (node, text);
      gg_tool_invocation_return_output (invocation, node, FALSE);
    }
  else if (json_object_has_member (answer, "error"))
    gg_tool_invocation_return_error (invocation, json_object_get_string_member (answer, "error"));
  else
    gg_tool_invocation_return_output (invocation, json_object_get_member (answer, "output"),
                                      json_object_get_boolean_member_with_default (answer, "isError", FALSE));
  g_object_unref (invocation);
}

static void
on_turn_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  run.result = gg_agent_turn_run_finish (GG_AGENT_TURN (source), result, &run.error);
  run.events_at_done = run.events->len;
  run.done_count++;
  run.done = TRUE;
}

static GgAgentTurn *
turn_new (GgModel             *model,
          const char          *tools,
          const char          *prompt,
          const GgAgentPolicy *policy)
{
  g_autoptr(JsonArray) tool_array = tools != NULL ? parse_array (tools) : NULL;
  GgAgentTurn *turn = gg_agent_turn_new (model, NULL, NULL, tool_array, prompt, NULL, policy);

  gg_agent_turn_set_event_func (turn, on_event, NULL, NULL);
  gg_agent_turn_set_executor (turn, executor, NULL, NULL);
  return turn;
}

static void
start (GgAgentTurn *turn, GCancellable *cancellable)
{
  gg_agent_turn_run_async (turn, cancellable, on_turn_done, NULL);
  /* Nothing happens before run_async() returns. */
  g_assert_cmpuint (run.events->len, ==, 0);
  g_assert_false (run.done);
}

static void
wait_done (void)
{
  while (!run.done)
    g_main_context_iteration (NULL, TRUE);
}

static void
run_turn (GgAgentTurn *turn, GCancellable *cancellable)
{
  start (turn, cancellable);
  wait_done ();
}

/* Spins the loop briefly: settles idles and proves nothing more comes. */
static void
settle (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;
  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
}

static void
assert_events (const char *const *expected)
{
  guint n = g_strv_length ((char **) expected);

  for (guint i = 0; i < MIN (n, run.events->len); i++)
    g_assert_cmpstr (g_ptr_array_index (run.events, i), ==, expected[i]);
  g_assert_cmpuint (run.events->len, ==, n);
}

static void
assert_result (const char *expected)
{
  g_autofree char *got = NULL;

  g_assert_no_error (run.error);
  g_assert_nonnull (run.result);
  got = object_string (run.result);
  g_assert_cmpstr (got, ==, expected);
}

static void
assert_entries (GgAgentTurn *turn, const char *expected)
{
  JsonArray *entries = gg_agent_turn_get_new_entries (turn);
  g_autofree char *got = NULL;

  g_assert_nonnull (entries);
  got = array_string (entries);
  g_assert_cmpstr (got, ==, expected);
}

/* The JSON of the steps' toolCallingMode and enabledTools only. */
static char *
modes_string (void)
{
  JsonArray *steps = json_object_get_array_member (run.result, "steps");
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (steps); i++)
    {
      JsonObject *step = json_array_get_object_element (steps, i);
      g_autofree char *tools = array_string (json_object_get_array_member (step, "enabledTools"));
      g_string_append_printf (out, "%s%s%s", i > 0 ? " " : "",
                              json_object_get_string_member (step, "toolCallingMode"), tools);
    }
  return g_string_free (out, FALSE);
}

#define TOOLS_GATE \
  "[{\"name\":\"open_gate\",\"description\":\"Open a gate\",\"parameters\":{\"type\":\"object\"," \
  "\"properties\":{\"gate\":{\"type\":\"string\"}}},\"execution\":\"client\"}]"
#define TOOLS_THREE \
  "[{\"name\":\"look\",\"description\":\"Look\"},{\"name\":\"open_gate\",\"description\":\"Open\"}," \
  "{\"name\":\"ring_bell\",\"description\":\"Ring\"}]"

/* ---- tests ------------------------------------------------------------- */

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
answer_text (GgToolInvocation *invocation, const char *text, gboolean is_error)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);

  json_node_set_string (node, text);
  gg_tool_invocation_return_output (invocation, node, is_error);
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

static void
test_cancel_before_start (void)
{
  g_autoptr(GgModel) model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"text\":\"never\"}]}");
  g_autoptr(GgAgentTurn) turn = turn_new (model, NULL, "Go", NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  run_reset ();
  g_cancellable_cancel (cancellable);
  run_turn (turn, cancellable);
  g_assert_error (run.error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED);
  g_assert_cmpuint (run.events->len, ==, 0);
  g_assert_null (gg_agent_turn_get_new_entries (turn));
}

static void
test_cancel_during_delay (void)
{
  g_autoptr(GgModel) model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"text\":\"slow\",\"delayMs\":5000}]}");
  g_autoptr(GgAgentTurn) turn = turn_new (model, NULL, "Go", NULL);
  gint64 started;

  run_reset ();
  run.cancel_on = g_cancellable_new ();
  start (turn, run.cancel_on);
  settle (30);
  g_assert_false (run.done);
  started = g_get_monotonic_time ();
  g_cancellable_cancel (run.cancel_on);
  wait_done ();
  g_assert_cmpint (g_get_monotonic_time () - started, <, G_USEC_PER_SEC / 2);
  g_assert_error (run.error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED);
  g_assert_cmpuint (run.events->len, ==, 1);
  settle (20);
  g_assert_cmpuint (run.events->len, ==, 1);
  g_assert_null (gg_agent_turn_get_new_entries (turn));

  /* The fake model's hanging step is cancelled the same way. */
  {
    g_autoptr(GgTestFakeModel) fake = gg_test_fake_model_new ("[{\"hang\":true}]");
    g_autoptr(GgAgentTurn) hanging = turn_new (GG_MODEL (fake), NULL, "Go", NULL);
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();

    run_reset ();
    start (hanging, cancellable);
    settle (10);
    g_assert_false (run.done);
    g_cancellable_cancel (cancellable);
    wait_done ();
    g_assert_error (run.error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED);
    settle (10);
  }
}

static void
test_cancel_with_outstanding_call (void)
{
  g_autoptr(GgModel) model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"look\"},"
                                       "{\"name\":\"ring_bell\"}]},{\"text\":\"never\"}]}");
  g_autoptr(GgAgentTurn) turn = turn_new (model, TOOLS_THREE, "Go", NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  GgToolInvocation *look, *bell;

  run_reset ();
  run.exec_mode = EXEC_HOLD;
  start (turn, cancellable);
  while (run.held->len < 2)
    g_main_context_iteration (NULL, TRUE);
  look = g_ptr_array_index (run.held, 0);
  bell = g_ptr_array_index (run.held, 1);
  answer_text (look, "seen", FALSE);
  g_assert_cmpuint (run.events->len, ==, 4); /* step, 2 started, 1 completed */
  g_cancellable_cancel (cancellable);
  g_assert_true (g_cancellable_is_cancelled (gg_tool_invocation_get_cancellable (bell)));
  g_assert_cmpstr (gg_tool_invocation_get_abandon_reason (bell), ==, "Error: The turn was cancelled.");
  g_assert_null (gg_tool_invocation_get_abandon_reason (look));
  answer_text (bell, "late", FALSE);
  wait_done ();
  g_assert_error (run.error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED);
  g_assert_cmpuint (run.events->len, ==, 4);
  g_assert_null (gg_agent_turn_get_new_entries (turn));
}

static void
test_cancel_from_executor (void)
{
  g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new ("[{\"toolCalls\":[{\"name\":\"look\"},{\"name\":\"ring_bell\"}]}]");
  g_autoptr(GgAgentTurn) turn = turn_new (GG_MODEL (model), TOOLS_THREE, "Go", NULL);

  /* Cancelled by an event handler in the middle of a round. */
  run_reset ();
  run.cancel_on = g_cancellable_new ();
  run.cancel_event = "toolCallCompleted";
  run_turn (turn, run.cancel_on);
  g_assert_error (run.error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED);
  settle (10);
  g_assert_cmpuint (run.events->len, ==, 4);
  g_assert_cmpuint (model->requests->len, ==, 1);
}

static void
test_cancel_after_completion (void)
{
  g_autoptr(GgModel) model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"text\":\"done\"}]}");
  g_autoptr(GgAgentTurn) turn = turn_new (model, NULL, "Go", NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  run_reset ();
  run_turn (turn, cancellable);
  g_cancellable_cancel (cancellable);
  settle (10);
  g_assert_no_error (run.error);
  g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==, "done");
  g_assert_nonnull (gg_agent_turn_get_new_entries (turn));
  g_assert_cmpuint (run.events->len, ==, 2);
}

/* A turn with every kind of waiting point (model delays, streamed chunks,
 * a held tool call, a tool timeout), cancelled at each of them in turn: by
 * an event handler at every event, and from the main loop after every
 * iteration. The turn always fails with `cancelled` exactly once, reports
 * nothing after the cancellation, abandons what it handed out, and leaves
 * no source behind that could fire on a freed turn. */
#define CANCEL_SCRIPT \
  "{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"look\"},{\"name\":\"ring_bell\"}],\"delayMs\":2}," \
  "{\"toolCalls\":[{\"name\":\"open_gate\"}]},{\"text\":\"one two three four\",\"chunks\":4,\"delayMs\":1}]}"

static GgAgentTurn *
cancel_turn_new (GgModel *model)
{
  GgAgentPolicy policy;
  GgAgentTurn *turn;

  gg_agent_policy_init (&policy);
  policy.tool_timeout_ms = 5;
  turn = turn_new (model, TOOLS_THREE, "Go", &policy);
  gg_agent_policy_clear (&policy);
  gg_agent_turn_set_streaming (turn, TRUE);
  return turn;
}

static void
check_cancelled_turn (guint events_when_cancelled)
{
  g_test_message ("cancelled after %u events: %s", events_when_cancelled,
                  run.error != NULL ? run.error->message : "succeeded");
  g_assert_error (run.error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED);
  g_assert_cmpuint (run.done_count, ==, 1);
  g_assert_cmpuint (run.events_at_done, ==, events_when_cancelled);
  for (guint i = 0; i < run.held->len; i++)
    {
      GgToolInvocation *invocation = g_ptr_array_index (run.held, i);

      g_assert_true (gg_tool_invocation_is_finished (invocation));
      /* A late answer is ignored, whatever happened to the turn. */
      gg_tool_invocation_return_error (invocation, "late");
    }
  settle (15);
  g_assert_cmpuint (run.events->len, ==, events_when_cancelled);
  g_assert_cmpuint (run.done_count, ==, 1);
}

static void
test_cancel_everywhere (void)
{
  guint total_events;
  guint iterations = 0;

  /* The whole turn once, to count its events: look is held and times out,
   * ring_bell and open_gate answer at once. */
  {
    g_autoptr(GgModel) model = scripted (CANCEL_SCRIPT);
    g_autoptr(GgAgentTurn) turn = cancel_turn_new (model);

    run_reset ();
    json_object_set_member (run.outputs, "look", parse ("{\"hold\":true}"));
    run_turn (turn, NULL);
    g_assert_no_error (run.error);
    g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==, "one two three four");
    total_events = run.events->len;
    /* step, 2 started, 2 completed, step, started, completed, step, 4 texts */
    g_assert_cmpuint (total_events, ==, 13);
  }

  for (guint k = 1; k <= total_events; k++)
    {
      g_autoptr(GgModel) model = scripted (CANCEL_SCRIPT);
      g_autoptr(GgAgentTurn) turn = cancel_turn_new (model);

      run_reset ();
      json_object_set_member (run.outputs, "look", parse ("{\"hold\":true}"));
      run.cancel_on = g_cancellable_new ();
      run.cancel_at_event = k;
      run_turn (turn, run.cancel_on);
      check_cancelled_turn (k);
    }

  for (guint n = 0;; n++)
    {
      g_autoptr(GgModel) model = scripted (CANCEL_SCRIPT);
      g_autoptr(GgAgentTurn) turn = cancel_turn_new (model);
      g_autoptr(GCancellable) cancellable = g_cancellable_new ();
      guint events;

      run_reset ();
      json_object_set_member (run.outputs, "look", parse ("{\"hold\":true}"));
      start (turn, cancellable);
      for (guint i = 0; i < n && !run.done; i++)
        g_main_context_iteration (NULL, TRUE);
      if (run.done)
        break;
      events = run.events->len;
      g_cancellable_cancel (cancellable);
      wait_done ();
      iterations++;
      if (run.error == NULL && events == total_events)
        {
          /* The answer was already decided: a cancellation never turns
           * it into an error. */
          settle (15);
          g_assert_cmpuint (run.events->len, ==, total_events);
          g_assert_cmpuint (run.done_count, ==, 1);
          continue;
        }
      check_cancelled_turn (events);
    }
  /* The loop ran until the turn finished: start idle, both delays, the
   * held call, its timeout, the chunks and the completion idle. */
  g_assert_cmpuint (iterations, >=, 8);
}

static void
run_schema_turn (GgModel *model, const char *schema)
{
  g_autoptr(JsonNode) schema_node = parse (schema);
  g_autoptr(GgAgentTurn) turn = gg_agent_turn_new (model, "Decide.", NULL, NULL, "Pick", schema_node, NULL);

  gg_agent_turn_set_event_func (turn, on_event, NULL, NULL);
  gg_agent_turn_set_executor (turn, executor, NULL, NULL);
  run_turn (turn, NULL);
}

static void
test_schema (void)
{
  const char *schema = "{\"type\":\"object\",\"properties\":{\"choice\":{\"type\":\"string\"}},\"required\":[\"choice\"]}";

  {
    g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new ("[{\"toolCalls\":[{\"name\":\"x\"}]},"
                                                     "{\"json\":{\"reasoning\":\"r\",\"choice\":\"refuse\"}}]");
    g_autofree char *sent = NULL;

    run_reset ();
    run_schema_turn (GG_MODEL (model), schema);
    g_assert_no_error (run.error);
    g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==,
                     "{\"reasoning\":\"r\",\"choice\":\"refuse\"}");
    {
      g_autofree char *structured = json_to_string (json_object_get_member (run.result, "structured"), FALSE);
      g_assert_cmpstr (structured, ==, "{\"reasoning\":\"r\",\"choice\":\"refuse\"}");
    }
    /* Every step carries the schema. */
    for (guint i = 0; i < 2; i++)
      {
        sent = json_to_string (gg_test_fake_model_get_request (model, i)->output_schema, FALSE);
        g_assert_cmpstr (sent, ==, schema);
        g_assert_cmpstr (gg_test_fake_model_get_request (model, i)->schema_name, ==, "Response");
        g_assert_cmpstr (gg_test_fake_model_get_request (model, i)->instructions, ==, "Decide.");
        g_clear_pointer (&sent, g_free);
      }
  }

  /* A text answer is parsed. */
  {
    g_autoptr(GgModel) model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"text\":\" {\\\"choice\\\": \\\"a\\\"} \"}]}");
    run_reset ();
    run_schema_turn (model, schema);
    g_assert_no_error (run.error);
    g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==, "{\"choice\":\"a\"}");
    g_assert_true (json_object_has_member (run.result, "structured"));
  }

  /* Not JSON, truncated JSON, empty: generation_failed. */
  {
    const char *bad[] = { "{\\\"choice\\\":", "plain words", "" };
    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_autofree char *spec = g_strdup_printf ("{\"type\":\"scripted\",\"steps\":[{\"text\":\"%s\"}]}", bad[i]);
        g_autoptr(GgModel) model = scripted (spec);
        run_reset ();
        run_schema_turn (model, schema);
        g_assert_error (run.error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
      }
  }

  /* A JSON answer to a text turn is its compact text. */
  {
    g_autoptr(GgModel) model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"json\":{\"a\":[1, 2]}}]}");
    g_autoptr(GgAgentTurn) turn = turn_new (model, NULL, "Go", NULL);
    run_reset ();
    run_turn (turn, NULL);
    g_assert_no_error (run.error);
    g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==, "{\"a\":[1,2]}");
    g_assert_false (json_object_has_member (run.result, "structured"));
  }
}

/* Structured answers are checked against the schema. */
static void
test_schema_validation (void)
{
  {
    g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new ("[{\"json\":{\"choice\":5}}]");
    JsonObject *data;

    run_reset ();
    run_schema_turn (GG_MODEL (model),
                     "{\"type\":\"object\",\"properties\":{\"choice\":{\"type\":\"string\"}},\"required\":[\"choice\"]}");
    g_assert_error (run.error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
    g_assert_true (g_str_has_prefix (run.error->message, "The model's answer does not match the schema: "));
    data = gg_model_error_get_data (run.error);
    g_assert_nonnull (data);
    g_assert_cmpstr (json_object_get_string_member (data, "path"), ==, "#/choice");
    g_assert_cmpstr (json_object_get_string_member (data, "schemaPath"), ==, "#/properties/choice/type");
  }
  {
    /* An unusable schema fails before the model is asked anything. */
    g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new ("[{\"json\":{\"choice\":\"a\"}}]");
    run_reset ();
    run_schema_turn (GG_MODEL (model), "{\"type\":\"no such type\"}");
    g_assert_error (run.error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_SCHEMA);
    g_assert_true (g_str_has_prefix (run.error->message, "The output schema cannot be used: "));
    g_assert_cmpuint (model->requests->len, ==, 0);
    g_assert_cmpuint (run.events->len, ==, 0);
  }
  {
    g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new ("[{\"json\":{\"choice\":\"a\"}}]");
    run_reset ();
    run_schema_turn (GG_MODEL (model), "{\"type\":\"object\",\"properties\":{\"choice\":{\"enum\":[\"a\",\"b\"]}}}");
    g_assert_no_error (run.error);
  }
  {
    /* Hostile text answers: too deep to parse is a failed generation. */
    g_autoptr(GString) deep = g_string_new (NULL);
    g_autofree char *spec = NULL;
    g_autoptr(GgModel) model = NULL;

    for (guint i = 0; i < 1000; i++)
      g_string_append (deep, "[");
    for (guint i = 0; i < 1000; i++)
      g_string_append (deep, "]");
    spec = g_strdup_printf ("{\"type\":\"scripted\",\"steps\":[{\"text\":\"%s\"}]}", deep->str);
    model = scripted (spec);
    run_reset ();
    run_schema_turn (model, "{}");
    g_assert_error (run.error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
  }
}

static void
test_retries (void)
{
  GgAgentPolicy policy;

  gg_agent_policy_init (&policy);
  {
    g_autoptr(GgModel) model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"error\":\"generation_failed\"},"
                                         "{\"text\":\"second try\"}]}");
    g_autoptr(GgAgentTurn) turn = turn_new (model, NULL, "Go", &policy);
    run_reset ();
    run_turn (turn, NULL);
    g_assert_no_error (run.error);
    g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==, "second try");
    /* One step, two attempts. */
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (run.result, "steps")), ==, 1);
  }
  {
    g_autoptr(GgModel) model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"error\":\"busy\"},{\"error\":\"busy\",\"message\":\"still\"},"
                                         "{\"text\":\"third\"}]}");
    g_autoptr(GgAgentTurn) turn = turn_new (model, NULL, "Go", &policy);
    run_reset ();
    run_turn (turn, NULL);
    g_assert_error (run.error, GG_MODEL_ERROR, GG_MODEL_ERROR_BUSY);
    g_assert_cmpstr (run.error->message, ==, "still");
  }
  {
    g_autoptr(GgModel) model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"error\":\"busy\"},{\"error\":\"busy\"},"
                                         "{\"text\":\"third\"}]}");
    g_autoptr(GgAgentTurn) turn = NULL;
    policy.max_attempts = 3;
    turn = turn_new (model, NULL, "Go", &policy);
    run_reset ();
    run_turn (turn, NULL);
    g_assert_no_error (run.error);
    policy.max_attempts = 2;
  }
  /* Not transient: no retry. */
  {
    g_autoptr(GgModel) model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"error\":\"guardrail_violation\"},"
                                         "{\"text\":\"unused\"}]}");
    g_autoptr(GgAgentTurn) turn = turn_new (model, NULL, "Go", &policy);
    run_reset ();
    run_turn (turn, NULL);
    g_assert_error (run.error, GG_MODEL_ERROR, GG_MODEL_ERROR_GUARDRAIL_VIOLATION);
  }
  /* Never after a tool ran. */
  {
    g_autoptr(GgModel) model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"look\"}]},"
                                         "{\"error\":\"generation_failed\"},{\"text\":\"unused\"}]}");
    g_autoptr(GgAgentTurn) turn = turn_new (model, TOOLS_THREE, "Go", &policy);
    run_reset ();
    run_turn (turn, NULL);
    g_assert_error (run.error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
    g_assert_null (gg_agent_turn_get_new_entries (turn));
  }
  /* Streamed text of a failed attempt is replaced by the retry's. */
  {
    g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new (
      "[{\"error\":\"generation_failed\",\"deltas\":[\"a\",\"b\"]},{\"text\":\"cd\",\"deltas\":[\"c\",\"d\"]}]");
    g_autoptr(GgAgentTurn) turn = NULL;
    turn = turn_new (GG_MODEL (model), NULL, "Go", &policy);
    gg_agent_turn_set_streaming (turn, TRUE);
    run_reset ();
    run_turn (turn, NULL);
    g_assert_no_error (run.error);
    g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==, "cd");
    g_assert_true (gg_test_fake_model_get_request (model, 0)->stream);
    {
      const char *events[] = {
        "{\"type\":\"modelStep\",\"step\":{\"index\":0,\"completedToolRounds\":0,\"toolCallingMode\":\"allowed\","
        "\"enabledTools\":[],\"trimmedEntries\":0}}",
        "{\"type\":\"text\",\"delta\":\"a\",\"text\":\"a\",\"isReset\":false}",
        "{\"type\":\"text\",\"delta\":\"b\",\"text\":\"ab\",\"isReset\":false}",
        "{\"type\":\"text\",\"delta\":\"c\",\"text\":\"c\",\"isReset\":true}",
        "{\"type\":\"text\",\"delta\":\"d\",\"text\":\"cd\",\"isReset\":false}",
        NULL
      };
      assert_events (events);
    }
  }
  gg_agent_policy_clear (&policy);
}

static void
test_text_events (void)
{
  /* The model's stream and its final text disagree: a reset fixes it. */
  g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new (
    "[{\"toolCalls\":[{\"name\":\"look\"}]},{\"text\":\"Hello world\",\"deltas\":[\"Hel\",\"lo\"]}]");
  g_autoptr(GgTestFakeModel) retried = gg_test_fake_model_new (
    "[{\"error\":\"busy\"},{\"text\":\"Fresh\",\"deltas\":[\"Fr\",\"esh\"]}]");
  g_autoptr(GgAgentTurn) turn = turn_new (GG_MODEL (model), TOOLS_THREE, "Go", NULL);
  const char *tail[] = {
    "{\"type\":\"text\",\"delta\":\"Hel\",\"text\":\"Hel\",\"isReset\":false}",
    "{\"type\":\"text\",\"delta\":\"lo\",\"text\":\"Hello\",\"isReset\":false}",
    "{\"type\":\"text\",\"delta\":\" world\",\"text\":\"Hello world\",\"isReset\":false}",
  };

  run_reset ();
  run_turn (turn, NULL);
  g_assert_no_error (run.error);
  g_assert_cmpuint (run.events->len, ==, 7);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpstr (g_ptr_array_index (run.events, 4 + i), ==, tail[i]);
  g_clear_object (&turn);

  /* Deltas after a failed attempt that streamed nothing start fresh. */
  turn = turn_new (GG_MODEL (retried), NULL, "Go", NULL);
  run_reset ();
  run_turn (turn, NULL);
  g_assert_no_error (run.error);
  g_assert_cmpstr (g_ptr_array_index (run.events, 2), ==,
                   "{\"type\":\"text\",\"delta\":\"esh\",\"text\":\"Fresh\",\"isReset\":false}");
}

static void
test_streaming_scripted (void)
{
  g_autoptr(GgModel) model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"text\":\"one two three four\",\"chunks\":2}]}");
  g_autoptr(GgAgentTurn) turn = turn_new (model, NULL, "Go", NULL);
  const char *events[] = {
    "{\"type\":\"modelStep\",\"step\":{\"index\":0,\"completedToolRounds\":0,\"toolCallingMode\":\"allowed\","
    "\"enabledTools\":[],\"trimmedEntries\":0}}",
    "{\"type\":\"text\",\"delta\":\"one two \",\"text\":\"one two \",\"isReset\":false}",
    "{\"type\":\"text\",\"delta\":\"three four\",\"text\":\"one two three four\",\"isReset\":false}",
    NULL
  };

  gg_agent_turn_set_streaming (turn, TRUE);
  run_reset ();
  run_turn (turn, NULL);
  g_assert_no_error (run.error);
  assert_events (events);
}

#define PARTIAL_SCHEMA "{\"type\":\"object\",\"properties\":{\"choice\":{\"type\":\"string\"}},\"required\":[\"choice\"]}"
#define STEP0_EVENT \
  "{\"type\":\"modelStep\",\"step\":{\"index\":0,\"completedToolRounds\":0,\"toolCallingMode\":\"allowed\"," \
  "\"enabledTools\":[],\"trimmedEntries\":0}}"

static GgAgentTurn *
partial_turn_new (GgModel             *model,
                  const GgAgentPolicy *policy)
{
  g_autoptr(JsonNode) schema = parse (PARTIAL_SCHEMA);
  GgAgentTurn *turn = gg_agent_turn_new (model, "Decide.", NULL, NULL, "Pick", schema, policy);

  gg_agent_turn_set_event_func (turn, on_event, NULL, NULL);
  gg_agent_turn_set_executor (turn, executor, NULL, NULL);
  gg_agent_turn_set_streaming (turn, TRUE);
  return turn;
}

/* Schema turns show their JSON as `partial` values, once per change, never
 * as text; the last one is the answer. */
static void
test_partial_events (void)
{
  /* A model streaming its JSON text in pieces. */
  {
    g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new (
      "[{\"text\":\"{\\\"choice\\\": \\\"accept\\\", \\\"n\\\": 12, \\\"ok\\\": true}\","
      "\"deltas\":[\"{\\\"cho\", \"ice\\\": \\\"ac\", \"cept\\\", \\\"n\\\": 1\", \"2, \\\"ok\\\": tr\", \"ue\", \"}\"]}]");
    g_autoptr(GgAgentTurn) turn = partial_turn_new (GG_MODEL (model), NULL);
    const char *events[] = {
      STEP0_EVENT,
      "{\"type\":\"partial\",\"value\":{}}",
      "{\"type\":\"partial\",\"value\":{\"choice\":\"ac\"}}",
      "{\"type\":\"partial\",\"value\":{\"choice\":\"accept\"}}",
      "{\"type\":\"partial\",\"value\":{\"choice\":\"accept\",\"n\":12}}",
      "{\"type\":\"partial\",\"value\":{\"choice\":\"accept\",\"n\":12,\"ok\":true}}",
      NULL
    };

    run_reset ();
    run_turn (turn, NULL);
    g_assert_no_error (run.error);
    assert_events (events);
    g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==,
                     "{\"choice\":\"accept\",\"n\":12,\"ok\":true}");
  }

  /* Nothing streamed: one partial, the answer. A stream that broke off
   * (a failed attempt) is followed by the retry's values. */
  {
    g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new (
      "[{\"error\":\"generation_failed\",\"deltas\":[\"{\\\"choice\\\": \\\"x\"]},"
      "{\"json\":{\"choice\":\"b\"}}]");
    GgAgentPolicy policy;
    g_autoptr(GgAgentTurn) turn = NULL;
    const char *events[] = {
      STEP0_EVENT,
      "{\"type\":\"partial\",\"value\":{\"choice\":\"x\"}}",
      "{\"type\":\"partial\",\"value\":{\"choice\":\"b\"}}",
      NULL
    };

    gg_agent_policy_init (&policy);
    policy.max_attempts = 2;
    turn = partial_turn_new (GG_MODEL (model), &policy);
    gg_agent_policy_clear (&policy);
    run_reset ();
    run_turn (turn, NULL);
    g_assert_no_error (run.error);
    assert_events (events);
  }

  /* Text that is no JSON shows nothing and fails at the end. */
  {
    g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new ("[{\"text\":\"{\\\"choice\\\"}\",\"deltas\":[\"{\\\"cho\",\"ice\\\"}\"]}]");
    g_autoptr(GgAgentTurn) turn = partial_turn_new (GG_MODEL (model), NULL);
    const char *events[] = { STEP0_EVENT, "{\"type\":\"partial\",\"value\":{}}", NULL };

    run_reset ();
    run_turn (turn, NULL);
    g_assert_error (run.error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
    assert_events (events);
  }

  /* The scripted model streams a schema turn's text step in chunks. */
  {
    g_autoptr(GgModel) model = scripted ("{\"type\":\"scripted\",\"steps\":[{\"text\":"
                                         "\"{\\\"choice\\\": \\\"a b\\\", \\\"n\\\": [1, 2]}\",\"chunks\":6}]}");
    g_autoptr(GgAgentTurn) turn = partial_turn_new (model, NULL);
    const char *events[] = {
      STEP0_EVENT,
      "{\"type\":\"partial\",\"value\":{}}",
      "{\"type\":\"partial\",\"value\":{\"choice\":\"a \"}}",
      "{\"type\":\"partial\",\"value\":{\"choice\":\"a b\"}}",
      "{\"type\":\"partial\",\"value\":{\"choice\":\"a b\",\"n\":[1]}}",
      "{\"type\":\"partial\",\"value\":{\"choice\":\"a b\",\"n\":[1,2]}}",
      NULL
    };

    run_reset ();
    run_turn (turn, NULL);
    g_assert_no_error (run.error);
    assert_events (events);
    g_assert_cmpstr (json_object_get_string_member (run.result, "text"), ==, "{\"choice\":\"a b\",\"n\":[1,2]}");
  }
}

static JsonArray *
history_of_turns (guint turns, gsize text_bytes)
{
  JsonArray *history = json_array_new ();
  g_autofree char *text = g_strnfill (text_bytes, 'x');

  for (guint i = 0; i < turns; i++)
    {
      JsonObject *user = json_object_new ();
      JsonObject *assistant = json_object_new ();
      JsonObject *call = json_object_new ();
      JsonObject *tool = json_object_new ();
      JsonArray *calls = json_array_new ();
      JsonObject *c = json_object_new ();

      json_object_set_string_member (user, "role", "user");
      json_object_set_string_member (user, "text", text);
      json_array_add_object_element (history, user);
      json_object_set_string_member (c, "id", "c");
      json_object_set_string_member (c, "name", "look");
      json_object_set_object_member (c, "arguments", json_object_new ());
      json_array_add_object_element (calls, c);
      json_object_set_string_member (call, "role", "assistant");
      json_object_set_array_member (call, "toolCalls", calls);
      json_array_add_object_element (history, call);
      json_object_set_string_member (tool, "role", "tool");
      json_object_set_string_member (tool, "callId", "c");
      json_object_set_string_member (tool, "name", "look");
      json_object_set_string_member (tool, "output", "seen");
      json_array_add_object_element (history, tool);
      json_object_set_string_member (assistant, "role", "assistant");
      json_object_set_string_member (assistant, "text", text);
      json_array_add_object_element (history, assistant);
    }
  return history;
}

static void
test_trimming (void)
{
  /* Each history turn: 4 entries, about 2 x 400 bytes of text (~240 tokens). */
  g_autoptr(JsonArray) history = history_of_turns (5, 400);
  GgAgentPolicy policy;

  gg_agent_policy_init (&policy);
  policy.reserved_response_tokens = 100;
  {
    g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new ("[{\"toolCalls\":[{\"name\":\"look\"}]},{\"text\":\"ok\"}]");
    g_autoptr(GgAgentTurn) turn = NULL;
    g_autoptr(JsonArray) tools = parse_array (TOOLS_THREE);
    JsonArray *steps;

    model->context_size = 700;
    turn = gg_agent_turn_new (GG_MODEL (model), "Be brief.", history, tools, "Go", NULL, &policy);
    gg_agent_turn_set_event_func (turn, on_event, NULL, NULL);
    gg_agent_turn_set_executor (turn, executor, NULL, NULL);
    run_reset ();
    run_turn (turn, NULL);
    g_assert_no_error (run.error);
    steps = json_object_get_array_member (run.result, "steps");
    /* Whole turns (4 entries each) are hidden, oldest first. */
    g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (steps, 0), "trimmedEntries") % 4, ==, 0);
    g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (steps, 0), "trimmedEntries"), >=, 12);
    g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (steps, 1), "trimmedEntries"), >=,
                     json_object_get_int_member (json_array_get_object_element (steps, 0), "trimmedEntries"));
    {
      GgModelRequest *first = gg_test_fake_model_get_request (model, 0);
      gint64 trimmed = json_object_get_int_member (json_array_get_object_element (steps, 0), "trimmedEntries");
      JsonObject *oldest = json_array_get_object_element (first->transcript, 0);

      g_assert_cmpuint (json_array_get_length (first->transcript), ==, 20 - trimmed + 1);
      g_assert_cmpstr (json_object_get_string_member (oldest, "role"), ==, "user");
    }
    /* The history itself is untouched; only the model's view shrinks. */
    g_assert_cmpuint (json_array_get_length (history), ==, 20);
  }

  /* No trimming: over budget fails. */
  {
    g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new ("[{\"text\":\"ok\"}]");
    g_autoptr(GgAgentTurn) turn = NULL;

    model->context_size = 700;
    policy.trim_history = FALSE;
    turn = gg_agent_turn_new (GG_MODEL (model), NULL, history, NULL, "Go", NULL, &policy);
    gg_agent_turn_set_event_func (turn, on_event, NULL, NULL);
    run_reset ();
    run_turn (turn, NULL);
    g_assert_error (run.error, GG_MODEL_ERROR, GG_MODEL_ERROR_CONTEXT_SIZE_EXCEEDED);
    g_assert_cmpuint (run.events->len, ==, 0);
    g_assert_cmpuint (model->requests->len, ==, 0);
    policy.trim_history = TRUE;
  }

  /* The current turn alone is too big: fails even with trimming. */
  {
    g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new ("[{\"text\":\"ok\"}]");
    g_autoptr(GgAgentTurn) turn = NULL;
    g_autofree char *prompt = g_strnfill (4000, 'p');

    model->context_size = 700;
    turn = gg_agent_turn_new (GG_MODEL (model), NULL, history, NULL, prompt, NULL, &policy);
    gg_agent_turn_set_event_func (turn, on_event, NULL, NULL);
    run_reset ();
    run_turn (turn, NULL);
    g_assert_error (run.error, GG_MODEL_ERROR, GG_MODEL_ERROR_CONTEXT_SIZE_EXCEEDED);
  }

  /* Everything fits: nothing trimmed, everything sent. */
  {
    g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new ("[{\"text\":\"ok\"}]");
    g_autoptr(GgAgentTurn) turn = gg_agent_turn_new (GG_MODEL (model), NULL, history, NULL, "Go", NULL, &policy);

    run_reset ();
    gg_agent_turn_set_event_func (turn, on_event, NULL, NULL);
    run_turn (turn, NULL);
    g_assert_no_error (run.error);
    g_assert_cmpuint (json_array_get_length (gg_test_fake_model_get_request (model, 0)->transcript), ==, 21);
    g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (
                       json_object_get_array_member (run.result, "steps"), 0), "trimmedEntries"), ==, 0);
  }
  gg_agent_policy_clear (&policy);
}

/* Runs one turn of @history on @model and returns its first step's
 * trimmedEntries; @sent receives the first request's transcript length. */
static gint64
trimmed_by (GgTestFakeModel       *model,
            JsonArray           *history,
            const GgAgentPolicy *policy,
            guint               *sent)
{
  g_autoptr(GgAgentTurn) turn = gg_agent_turn_new (GG_MODEL (model), NULL, history, NULL, "Go", NULL, policy);
  guint before = model->requests->len;

  gg_agent_turn_set_event_func (turn, on_event, NULL, NULL);
  run_reset ();
  run_turn (turn, NULL);
  g_assert_no_error (run.error);
  *sent = json_array_get_length (gg_test_fake_model_get_request (model, before)->transcript);
  return json_object_get_int_member (json_array_get_object_element (
           json_object_get_array_member (run.result, "steps"), 0), "trimmedEntries");
}

/* Entry sizes are remembered per model from turn to turn: trimming must
 * decide exactly as a fresh model would, after the history grew, after
 * another history pushed the first one out, and with an entry listed twice. */
static void
test_trimming_remembered (void)
{
  g_autoptr(JsonArray) long_history = history_of_turns (40, 400);
  g_autoptr(JsonArray) short_history = history_of_turns (1, 10);
  g_autoptr(JsonArray) doubled = history_of_turns (3, 400);
  g_autoptr(GgTestFakeModel) shared = gg_test_fake_model_new ("[{\"text\":\"ok\"},{\"text\":\"ok\"},{\"text\":\"ok\"},"
                                                    "{\"text\":\"ok\"},{\"text\":\"ok\"},{\"text\":\"ok\"}]");
  JsonArray *histories[] = { long_history, short_history, long_history, doubled, long_history };
  GgAgentPolicy policy;

  /* An entry object shown twice counts twice. */
  json_array_add_object_element (doubled, json_object_ref (json_array_get_object_element (doubled, 1)));

  gg_agent_policy_init (&policy);
  policy.reserved_response_tokens = 100;
  shared->context_size = 1500;
  for (guint i = 0; i < G_N_ELEMENTS (histories); i++)
    {
      g_autoptr(GgTestFakeModel) fresh = gg_test_fake_model_new ("[{\"text\":\"ok\"}]");
      guint sent_shared = 0;
      guint sent_fresh = 0;
      gint64 trimmed_shared;
      gint64 trimmed_fresh;

      fresh->context_size = 1500;
      trimmed_shared = trimmed_by (shared, histories[i], &policy, &sent_shared);
      trimmed_fresh = trimmed_by (fresh, histories[i], &policy, &sent_fresh);
      g_assert_cmpint (trimmed_shared, ==, trimmed_fresh);
      g_assert_cmpuint (sent_shared, ==, sent_fresh);
      if (histories[i] == long_history)
        g_assert_cmpint (trimmed_shared, >, 0);
    }
  gg_agent_policy_clear (&policy);
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
  g_test_add_func ("/agent-turn/tool-choice", test_tool_choice);
  g_test_add_func ("/agent-turn/tool-choice-unknown", test_tool_choice_unknown);
  g_test_add_func ("/agent-turn/enabled-tools", test_enabled_tools);
  g_test_add_func ("/agent-turn/max-tool-rounds", test_max_tool_rounds);
  g_test_add_func ("/agent-turn/max-tool-calls", test_max_tool_calls);
  g_test_add_func ("/agent-turn/parallel-out-of-order", test_parallel_out_of_order);
  g_test_add_func ("/agent-turn/outputs", test_outputs);
  g_test_add_func ("/agent-turn/timeouts", test_timeouts);
  g_test_add_func ("/agent-turn/timeout-formats", test_timeout_formats);
  g_test_add_func ("/agent-turn/cancel/before-start", test_cancel_before_start);
  g_test_add_func ("/agent-turn/cancel/during-delay", test_cancel_during_delay);
  g_test_add_func ("/agent-turn/cancel/outstanding-call", test_cancel_with_outstanding_call);
  g_test_add_func ("/agent-turn/cancel/from-event", test_cancel_from_executor);
  g_test_add_func ("/agent-turn/cancel/after-completion", test_cancel_after_completion);
  g_test_add_func ("/agent-turn/cancel/everywhere", test_cancel_everywhere);
  g_test_add_func ("/agent-turn/schema", test_schema);
  g_test_add_func ("/agent-turn/schema-validation", test_schema_validation);
  g_test_add_func ("/agent-turn/partial-events", test_partial_events);
  g_test_add_func ("/agent-turn/retries", test_retries);
  g_test_add_func ("/agent-turn/text-events", test_text_events);
  g_test_add_func ("/agent-turn/streaming-scripted", test_streaming_scripted);
  g_test_add_func ("/agent-turn/trimming", test_trimming);
  g_test_add_func ("/agent-turn/trimming-remembered", test_trimming_remembered);
  g_test_add_func ("/agent-turn/usage-sums", test_usage_sums);
  g_test_add_func ("/agent-turn/hostile-model-output", test_hostile_model_output);
  g_test_add_func ("/agent-turn/non-object-arguments", test_non_object_arguments);
  g_test_add_func ("/agent-turn/thread-default-context", test_thread_default_context);
  g_test_add_func ("/agent-turn/request-fields", test_request_fields);

  status = g_test_run ();
  run_reset ();
  g_clear_pointer (&run.events, g_ptr_array_unref);
  g_clear_pointer (&run.held, g_ptr_array_unref);
  g_clear_pointer (&run.outputs, json_object_unref);
  g_clear_object (&bus);
  return status;
}
