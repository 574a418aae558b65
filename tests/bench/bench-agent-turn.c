/* bench-agent-turn.c: agent turns per second on the scripted model plugin
 * and on the shared fake model of tests/common (the loop's own cost), each
 * turn with one tool round answered at once by the executor; prints
 * throughput and latency percentiles. Asserts nothing about speed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <gamegate.h>

#include "gg-test-model.h"
#include "gg-test-plugin.h"

#define WARMUP_TURNS 2000
#define MAX_TURNS 200000
#define MAX_SECONDS 4.0

static GgBus *bus;

static gboolean
load_scripted_plugin (void)
{
  g_autofree char *file = gg_test_find_plugin ("model-scripted");
  g_autoptr(GError) error = NULL;

  if (file == NULL)
    return FALSE;
  bus = gg_bus_new ();
  if (gg_test_load_plugin (bus, "model-scripted", NULL, &error) == NULL)
    {
      g_printerr ("setup failed: %s\n", error->message);
      return FALSE;
    }
  return TRUE;
}

static void
executor (GgToolInvocation *invocation,
          gpointer          user_data)
{
  g_autoptr(JsonNode) output = json_node_new (JSON_NODE_VALUE);

  json_node_set_string (output, "The gate opened.");
  gg_tool_invocation_return_output (invocation, output, FALSE);
  g_object_unref (invocation);
}

static void
on_event (JsonObject *event,
          gpointer    user_data)
{
  guint *events = user_data;
  (*events)++;
}

typedef struct {
  gboolean done;
  gboolean ok;
} TurnState;

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  TurnState *state = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = gg_agent_turn_run_finish (GG_AGENT_TURN (source), result, &error);

  state->ok = answer != NULL &&
              json_array_get_length (json_object_get_array_member (answer, "toolCalls")) == 1;
  state->done = TRUE;
}

/* The model of one turn: the scripted plugin's from @spec, or with no
 * @spec the shared fake model playing the same two steps. */
static GgModel *
make_model (JsonNode *spec)
{
  g_autoptr(GError) error = NULL;
  GgModel *model;

  if (spec == NULL)
    return GG_MODEL (gg_test_fake_model_new (
      "[{\"toolCalls\":[{\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}}]},"
      "{\"text\":\"The gate says: The gate opened.\"}]"));
  model = gg_bus_create_model (bus, spec, &error);
  if (model == NULL)
    g_printerr ("model: %s\n", error->message);
  return model;
}

static gboolean
one_turn (JsonNode  *spec,
          JsonArray *tools,
          guint     *events)
{
  g_autoptr(GgModel) model = make_model (spec);
  g_autoptr(GgAgentTurn) turn = NULL;
  TurnState state = { FALSE, FALSE };

  if (model == NULL)
    return FALSE;
  turn = gg_agent_turn_new (model, "You are a castle guard.", NULL, tools, "Open the north gate.", NULL, NULL);
  gg_agent_turn_set_executor (turn, executor, NULL, NULL);
  gg_agent_turn_set_event_func (turn, on_event, events, NULL);
  gg_agent_turn_run_async (turn, NULL, on_done, &state);
  while (!state.done)
    g_main_context_iteration (NULL, TRUE);
  return state.ok;
}

static int
compare_gint64 (const void *a,
                const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return (x > y) - (x < y);
}

static gint64
percentile (const gint64 *sorted,
            guint         n,
            double        p)
{
  guint index = (guint) (p * (n - 1) + 0.5);
  return sorted[MIN (index, n - 1)];
}

/* Warms up, then runs turns for MAX_SECONDS and prints the figures. */
static gboolean
measure (const char *label,
         JsonNode   *spec,
         JsonArray  *tools)
{
  g_autofree gint64 *latencies = NULL;
  guint events = 0;
  guint turns = 0;
  gint64 started, elapsed;

  for (guint i = 0; i < WARMUP_TURNS; i++)
    if (!one_turn (spec, tools, &events))
      {
        g_printerr ("bench-agent-turn: a turn failed\n");
        return FALSE;
      }

  latencies = g_new (gint64, MAX_TURNS);
  events = 0;
  started = g_get_monotonic_time ();
  while (turns < MAX_TURNS)
    {
      gint64 t0 = g_get_monotonic_time ();

      if (!one_turn (spec, tools, &events))
        {
          g_printerr ("bench-agent-turn: a turn failed\n");
          return FALSE;
        }
      latencies[turns++] = g_get_monotonic_time () - t0;
      if ((turns & 255) == 0 && (g_get_monotonic_time () - started) > MAX_SECONDS * G_USEC_PER_SEC)
        break;
    }
  elapsed = g_get_monotonic_time () - started;

  qsort (latencies, turns, sizeof (gint64), compare_gint64);
  printf ("agent turns (%s, 1 tool round, 2 model steps): %u turns in %.2f s\n",
          label, turns, (double) elapsed / G_USEC_PER_SEC);
  printf ("throughput: %.0f turns/s (target 20000), %.1f events/turn\n",
          turns / ((double) elapsed / G_USEC_PER_SEC), (double) events / turns);
  printf ("latency us: p50 %" G_GINT64_FORMAT "  p90 %" G_GINT64_FORMAT "  p99 %" G_GINT64_FORMAT
          "  max %" G_GINT64_FORMAT "\n",
          percentile (latencies, turns, 0.50), percentile (latencies, turns, 0.90),
          percentile (latencies, turns, 0.99), latencies[turns - 1]);
  return TRUE;
}

int
main (int argc, char **argv)
{
  g_autoptr(JsonNode) spec = NULL;
  g_autoptr(JsonNode) tools_node = NULL;
  gboolean ok;

  if (!load_scripted_plugin ())
    {
      g_printerr ("bench-agent-turn: model-scripted.so not found in GAMEGATE_PLUGIN_PATH\n");
      return 77;
    }
  spec = json_from_string ("{\"type\":\"scripted\",\"steps\":["
                           "{\"toolCalls\":[{\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}}]},"
                           "{\"template\":\"The gate says: {toolOutput}\"}]}", NULL);
  tools_node = json_from_string ("[{\"name\":\"open_gate\",\"description\":\"Open a named gate.\","
                                 "\"parameters\":{\"type\":\"object\",\"properties\":{\"gate\":{\"type\":\"string\"}},"
                                 "\"required\":[\"gate\"]}}]", NULL);

  ok = measure ("scripted model", spec, json_node_get_array (tools_node)) &&
       measure ("fake model of tests/common, the loop alone", NULL, json_node_get_array (tools_node));
  g_clear_object (&bus);
  return ok ? 0 : 1;
}
