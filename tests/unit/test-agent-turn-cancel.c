/* test-agent-turn-cancel.c: cancelling an agent turn at every point: before it starts,
 * during a delay, with a call outstanding, from an event, after completion.
 * Driven by the fake model of tests/common/gg-test-model.h and by the real
 * scripted model plugin, through the helpers of agent-turn-test.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "agent-turn-test.h"

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

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  load_scripted_plugin ();

  g_test_add_func ("/agent-turn/cancel/before-start", test_cancel_before_start);
  g_test_add_func ("/agent-turn/cancel/during-delay", test_cancel_during_delay);
  g_test_add_func ("/agent-turn/cancel/outstanding-call", test_cancel_with_outstanding_call);
  g_test_add_func ("/agent-turn/cancel/from-event", test_cancel_from_executor);
  g_test_add_func ("/agent-turn/cancel/after-completion", test_cancel_after_completion);
  g_test_add_func ("/agent-turn/cancel/everywhere", test_cancel_everywhere);

  status = g_test_run ();
  run_clear ();
  return status;
}
