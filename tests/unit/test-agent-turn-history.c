/* test-agent-turn-history.c: the agent loop trimming the history to the model's context
 * and remembering what it trimmed, cutting at the first turn from which the rest fits.
 * Driven by the fake model of tests/common/gg-test-model.h and by the real
 * scripted model plugin, through the helpers of agent-turn-test.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "agent-turn-test.h"

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

/* Turns of uneven length (1 to 4 entries, texts of uneven size). */
static JsonArray *
uneven_history (void)
{
  static const char *const roles[] = { "assistant", "tool", "assistant" };
  JsonArray *history = json_array_new ();

  for (guint turn = 0; turn < 30; turn++)
    {
      guint extra = (turn * 7) % 4;

      for (guint i = 0; i <= extra; i++)
        {
          JsonObject *entry = json_object_new ();
          g_autofree char *text = g_strnfill (20 + (turn * 37 + i * 91) % 300, 'y');

          json_object_set_string_member (entry, "role", i == 0 ? "user" : roles[i - 1]);
          if (i > 0 && g_str_equal (roles[i - 1], "tool"))
            {
              json_object_set_string_member (entry, "callId", "c");
              json_object_set_string_member (entry, "name", "look");
              json_object_set_string_member (entry, "output", text);
            }
          else
            json_object_set_string_member (entry, "text", text);
          json_array_add_object_element (history, entry);
        }
    }
  return history;
}

static JsonArray *
history_from (JsonArray *history,
              guint      start)
{
  JsonArray *part = json_array_new ();

  for (guint i = start; i < json_array_get_length (history); i++)
    json_array_add_object_element (part, json_object_ref (json_array_get_object_element (history, i)));
  return part;
}

/* The cut is the first turn boundary from which the rest fits: from the
 * boundary before it the rest does not, from it the rest does, whatever
 * the context size. */
static void
test_trimming_first_fitting_turn (void)
{
  g_autoptr(JsonArray) history = uneven_history ();
  GgAgentPolicy policy;
  guint cuts = 0;

  gg_agent_policy_init (&policy);
  policy.reserved_response_tokens = 50;
  for (gint64 context = 500; context <= 4000; context += 85)
    {
      g_autoptr(GgTestFakeModel) model = gg_test_fake_model_new ("[{\"text\":\"ok\"}]");
      guint sent = 0;
      gint64 trimmed;
      gint64 previous = -1;

      model->context_size = context;
      trimmed = trimmed_by (model, history, &policy, &sent);
      g_assert_cmpint (trimmed, <, json_array_get_length (history));
      g_assert_cmpuint (sent, ==, json_array_get_length (history) - trimmed + 1);
      if (trimmed == 0)
        continue;
      cuts++;
      g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (history, (guint) trimmed),
                                                      "role"), ==, "user");
      for (gint64 i = trimmed - 1; i >= 0 && previous < 0; i--)
        if (g_str_equal (json_object_get_string_member (json_array_get_object_element (history, (guint) i),
                                                        "role"), "user"))
          previous = i;
      g_assert_cmpint (previous, >=, 0);
      {
        g_autoptr(JsonArray) fits = history_from (history, (guint) trimmed);
        g_autoptr(JsonArray) too_much = history_from (history, (guint) previous);
        g_autoptr(GgTestFakeModel) fresh = gg_test_fake_model_new ("[{\"text\":\"ok\"},{\"text\":\"ok\"}]");

        fresh->context_size = context;
        g_assert_cmpint (trimmed_by (fresh, fits, &policy, &sent), ==, 0);
        g_assert_cmpint (trimmed_by (fresh, too_much, &policy, &sent), ==, trimmed - previous);
      }
    }
  g_assert_cmpuint (cuts, >, 10);
  gg_agent_policy_clear (&policy);
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  load_scripted_plugin ();

  g_test_add_func ("/agent-turn/trimming", test_trimming);
  g_test_add_func ("/agent-turn/trimming-remembered", test_trimming_remembered);
  g_test_add_func ("/agent-turn/trimming-first-fitting-turn", test_trimming_first_fitting_turn);

  status = g_test_run ();
  run_clear ();
  return status;
}
