/* agent-turn-test.c: the helpers of agent-turn-test.h, shared by the
 * test-agent-turn*.c programs.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "agent-turn-test.h"

/* ---- JSON helpers ------------------------------------------------------ */

JsonNode *
parse (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (json, &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}

JsonArray *
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

char *
object_string (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);
  g_autofree char *first = json_to_string (node, FALSE);
  g_autoptr(JsonNode) fresh = json_from_string (first, NULL);

  zero_durations (fresh);
  return json_to_string (fresh, FALSE);
}

char *
array_string (JsonArray *array)
{
  g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), array);
  return json_to_string (node, FALSE);
}

/* ---- the real scripted model ------------------------------------------- */

GgBus *bus;

void
load_scripted_plugin (void)
{
  g_autoptr(GError) error = NULL;

  bus = gg_bus_new ();
  g_assert_nonnull (gg_test_load_plugin (bus, "model-scripted", NULL, &error));
  g_assert_no_error (error);
}

GgModel *
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

Run run;

void
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

void
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

void
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

void
on_turn_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  run.result = gg_agent_turn_run_finish (GG_AGENT_TURN (source), result, &run.error);
  run.events_at_done = run.events->len;
  run.done_count++;
  run.done = TRUE;
}

GgAgentTurn *
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

void
start (GgAgentTurn *turn, GCancellable *cancellable)
{
  gg_agent_turn_run_async (turn, cancellable, on_turn_done, NULL);
  /* Nothing happens before run_async() returns. */
  g_assert_cmpuint (run.events->len, ==, 0);
  g_assert_false (run.done);
}

void
wait_done (void)
{
  while (!run.done)
    g_main_context_iteration (NULL, TRUE);
}

void
run_turn (GgAgentTurn *turn, GCancellable *cancellable)
{
  start (turn, cancellable);
  wait_done ();
}

/* Spins the loop briefly: settles idles and proves nothing more comes. */
void
settle (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;
  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
}

void
assert_events (const char *const *expected)
{
  guint n = g_strv_length ((char **) expected);

  for (guint i = 0; i < MIN (n, run.events->len); i++)
    g_assert_cmpstr (g_ptr_array_index (run.events, i), ==, expected[i]);
  g_assert_cmpuint (run.events->len, ==, n);
}

void
assert_result (const char *expected)
{
  g_autofree char *got = NULL;

  g_assert_no_error (run.error);
  g_assert_nonnull (run.result);
  got = object_string (run.result);
  g_assert_cmpstr (got, ==, expected);
}

void
assert_entries (GgAgentTurn *turn, const char *expected)
{
  JsonArray *entries = gg_agent_turn_get_new_entries (turn);
  g_autofree char *got = NULL;

  g_assert_nonnull (entries);
  got = array_string (entries);
  g_assert_cmpstr (got, ==, expected);
}

/* The JSON of the steps' toolCallingMode and enabledTools only. */
char *
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

void
answer_text (GgToolInvocation *invocation, const char *text, gboolean is_error)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);

  json_node_set_string (node, text);
  gg_tool_invocation_return_output (invocation, node, is_error);
}

void
run_clear (void)
{
  run_reset ();
  g_clear_pointer (&run.events, g_ptr_array_unref);
  g_clear_pointer (&run.held, g_ptr_array_unref);
  g_clear_pointer (&run.outputs, json_object_unref);
  g_clear_object (&bus);
}
