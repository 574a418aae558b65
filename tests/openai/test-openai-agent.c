/* test-openai-agent.c: the model-openai backend under GgAgentTurn, the
 * tool-calling loop every front end shares: a forced tool round trip and a
 * schema turn, over real HTTP to the fake server.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "openai-test-util.h"

typedef struct {
  JsonObject *result;
  GError *error;
  gboolean done;
  guint executed;
  GString *text_events;
} TurnResult;


static void
execute_tool (GgToolInvocation *invocation,
              gpointer          user_data)
{
  TurnResult *turn = user_data;
  g_autoptr(JsonNode) output = json_node_new (JSON_NODE_VALUE);
  g_autofree char *args = gg_json_to_string (gg_tool_invocation_get_arguments (invocation));

  turn->executed++;
  g_assert_cmpstr (gg_tool_invocation_get_name (invocation), ==, "open_gate");
  g_assert_cmpstr (args, ==, "{\"gate\":\"north\"}");
  json_node_set_string (output, "The north gate is now open.");
  gg_tool_invocation_return_output (invocation, output, FALSE);
  g_object_unref (invocation);
}

static void
on_turn_event (JsonObject *event,
               gpointer    user_data)
{
  TurnResult *turn = user_data;

  if (g_strcmp0 (json_object_get_string_member_with_default (event, "type", ""), "text") == 0)
    g_string_append (turn->text_events, json_object_get_string_member (event, "delta"));
}

static void
on_turn_done (GObject      *source,
              GAsyncResult *res,
              gpointer      user_data)
{
  TurnResult *turn = user_data;

  turn->result = gg_agent_turn_run_finish (GG_AGENT_TURN (source), res, &turn->error);
  turn->done = TRUE;
}

static void
test_agent_turn (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(GgModel) model = ot_create_model (fixture, "{\"type\":\"openai\"}");
  g_autoptr(JsonNode) tools = gg_json_parse (
    "[{\"name\":\"open_gate\",\"description\":\"Opens a gate\","
    "\"parameters\":{\"type\":\"object\",\"properties\":{\"gate\":{\"type\":\"string\"}},\"required\":[\"gate\"]}}]",
    -1, 16, NULL);
  g_autoptr(GgAgentTurn) turn = NULL;
  GgAgentPolicy policy;
  TurnResult result = { 0 };
  FakeReply *reply;
  JsonArray *messages;
  JsonObject *tool_message;

  reply = fake_openai_push (fixture->fake);
  fake_reply_add_tool_call (reply, "call_gate", "open_gate", "{\"gate\":\"north\"}");
  reply->arg_fragments = 6;
  reply = fake_openai_push_text (fixture->fake, "Done: the north gate stands open.");
  reply->text_pieces = 5;

  gg_agent_policy_init (&policy);
  policy.tool_choice = GG_TOOL_CHOICE_REQUIRED;
  turn = gg_agent_turn_new (model, "You are the gate guard.", NULL, json_node_get_array (tools),
                            "Open the north gate", NULL, &policy);
  gg_agent_policy_clear (&policy);
  result.text_events = g_string_new (NULL);
  gg_agent_turn_set_executor (turn, execute_tool, &result, NULL);
  gg_agent_turn_set_event_func (turn, on_turn_event, &result, NULL);
  gg_agent_turn_set_streaming (turn, TRUE);
  gg_agent_turn_run_async (turn, NULL, on_turn_done, &result);
  while (!result.done)
    g_main_context_iteration (NULL, TRUE);

  g_assert_no_error (result.error);
  g_assert_cmpuint (result.executed, ==, 1);
  g_assert_cmpstr (json_object_get_string_member (result.result, "text"), ==, "Done: the north gate stands open.");
  g_assert_cmpstr (result.text_events->str, ==, "Done: the north gate stands open.");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (result.result, "toolCalls")), ==, 1);

  /* The first step forced the tool; the second carried its result back. */
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 2);
  {
    /* One visible tool that must be called is named outright. */
    JsonObject *choice = json_object_get_object_member (fake_openai_get_request (fixture->fake, 0), "tool_choice");
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (choice, "function"), "name"),
                     ==, "open_gate");
    g_assert_cmpstr (json_object_get_string_member (fake_openai_get_request (fixture->fake, 1), "tool_choice"),
                     ==, "auto");
  }
  messages = json_object_get_array_member (fake_openai_get_request (fixture->fake, 1), "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 4);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "role"), ==, "assistant");
  tool_message = json_array_get_object_element (messages, 3);
  g_assert_cmpstr (json_object_get_string_member (tool_message, "role"), ==, "tool");
  g_assert_cmpstr (json_object_get_string_member (tool_message, "tool_call_id"), ==, "call_gate");
  g_assert_nonnull (strstr (json_object_get_string_member (tool_message, "content"), "The north gate is now open."));

  g_clear_pointer (&result.result, json_object_unref);
  g_string_free (result.text_events, TRUE);
}

static void
test_agent_schema_turn (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GgModel) model = ot_create_model (fixture, "{\"type\":\"openai\"}");
  g_autoptr(JsonNode) schema = gg_json_parse ("{\"type\":\"object\",\"properties\":{\"choice\":{\"type\":\"string\","
                                              "\"enum\":[\"attack\",\"flee\"]},\"line\":{\"type\":\"string\"}},"
                                              "\"required\":[\"choice\"]}", -1, 16, NULL);
  g_autoptr(GgAgentTurn) turn = NULL;
  g_autofree char *structured = NULL;
  GgAgentPolicy policy;
  TurnResult result = { 0 };

  fake_openai_push_text (fixture->fake, "{\"choice\":\"flee\",\"line\":null}");
  gg_agent_policy_init (&policy);
  turn = gg_agent_turn_new (model, NULL, NULL, NULL, "The dragon wakes. Decide.", schema, &policy);
  gg_agent_policy_clear (&policy);
  result.text_events = g_string_new (NULL);
  gg_agent_turn_set_streaming (turn, TRUE);
  gg_agent_turn_run_async (turn, NULL, on_turn_done, &result);
  while (!result.done)
    g_main_context_iteration (NULL, TRUE);

  g_assert_no_error (result.error);
  /* The strict schema's forced null is gone, so the caller's schema holds. */
  structured = gg_json_to_string (json_object_get_member (result.result, "structured"));
  g_assert_cmpstr (structured, ==, "{\"choice\":\"flee\"}");
  g_clear_pointer (&result.result, json_object_unref);
  g_string_free (result.text_events, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (g_getenv ("GAMEGATE_PLUGIN_PATH") == NULL)
    return 77; /* run through meson test */

  OT_ADD ("agent/tool-round", test_agent_turn, NULL);
  OT_ADD ("agent/schema-turn", test_agent_schema_turn, NULL);
  return g_test_run ();
}
