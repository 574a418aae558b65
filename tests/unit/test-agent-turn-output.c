/* test-agent-turn-output.c: what an agent turn produces on its way: schema answers and
 * their validation, retries, text and partial-JSON events, streaming.
 * Driven by the fake model of tests/common/gg-test-model.h and by the real
 * scripted model plugin, through the helpers of agent-turn-test.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "agent-turn-test.h"

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

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  load_scripted_plugin ();

  g_test_add_func ("/agent-turn/schema", test_schema);
  g_test_add_func ("/agent-turn/schema-validation", test_schema_validation);
  g_test_add_func ("/agent-turn/partial-events", test_partial_events);
  g_test_add_func ("/agent-turn/retries", test_retries);
  g_test_add_func ("/agent-turn/text-events", test_text_events);
  g_test_add_func ("/agent-turn/streaming-scripted", test_streaming_scripted);

  status = g_test_run ();
  run_clear ();
  return status;
}
