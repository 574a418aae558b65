/* bench-agent-turn.c: agent turns per second on the scripted model, each
 * with one tool round answered at once by the executor; prints throughput
 * and latency percentiles. Asserts nothing about speed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <gmodule.h>
#include <gamegate.h>

#define WARMUP_TURNS 2000
#define MAX_TURNS 200000
#define MAX_SECONDS 4.0

static GgBus *bus;

static gboolean
load_scripted_plugin (void)
{
  const char *path = g_getenv ("GAMEGATE_PLUGIN_PATH");
  g_auto(GStrv) dirs = g_strsplit (path != NULL ? path : "", ":", -1);

  bus = gg_bus_new ();
  for (guint i = 0; dirs[i] != NULL; i++)
    {
      g_autofree char *file = g_build_filename (dirs[i], "model-scripted.so", NULL);
      GModule *module;
      GgPluginDescribeFunc describe = NULL;
      g_autoptr(GgPlugin) plugin = NULL;
      g_autoptr(GError) error = NULL;

      if (!g_file_test (file, G_FILE_TEST_EXISTS))
        continue;
      module = g_module_open (file, G_MODULE_BIND_LOCAL);
      if (module == NULL || !g_module_symbol (module, GG_PLUGIN_ENTRY_SYMBOL, (gpointer *) &describe))
        return FALSE;
      g_module_make_resident (module);
      plugin = gg_plugin_new (describe (), file, bus, NULL);
      if (!gg_plugin_setup (plugin, &error))
        {
          g_printerr ("setup failed: %s\n", error->message);
          return FALSE;
        }
      return TRUE;
    }
  return FALSE;
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

static gboolean
one_turn (JsonNode  *spec,
          JsonArray *tools,
          guint     *events)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgModel) model = gg_bus_create_model (bus, spec, &error);
  g_autoptr(GgAgentTurn) turn = NULL;
  TurnState state = { FALSE, FALSE };

  if (model == NULL)
    {
      g_printerr ("model: %s\n", error->message);
      return FALSE;
    }
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

int
main (int argc, char **argv)
{
  g_autoptr(JsonNode) spec = NULL;
  g_autoptr(JsonNode) tools_node = NULL;
  g_autofree gint64 *latencies = NULL;
  guint events = 0;
  guint turns = 0;
  gint64 started, elapsed;

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

  for (guint i = 0; i < WARMUP_TURNS; i++)
    if (!one_turn (spec, json_node_get_array (tools_node), &events))
      {
        g_printerr ("bench-agent-turn: a turn failed\n");
        return 1;
      }

  latencies = g_new (gint64, MAX_TURNS);
  events = 0;
  started = g_get_monotonic_time ();
  while (turns < MAX_TURNS)
    {
      gint64 t0 = g_get_monotonic_time ();

      if (!one_turn (spec, json_node_get_array (tools_node), &events))
        {
          g_printerr ("bench-agent-turn: a turn failed\n");
          return 1;
        }
      latencies[turns++] = g_get_monotonic_time () - t0;
      if ((turns & 255) == 0 && (g_get_monotonic_time () - started) > MAX_SECONDS * G_USEC_PER_SEC)
        break;
    }
  elapsed = g_get_monotonic_time () - started;

  qsort (latencies, turns, sizeof (gint64), compare_gint64);
  printf ("agent turns (scripted model, 1 tool round, 2 model steps): %u turns in %.2f s\n",
          turns, (double) elapsed / G_USEC_PER_SEC);
  printf ("throughput: %.0f turns/s (target 20000), %.1f events/turn\n",
          turns / ((double) elapsed / G_USEC_PER_SEC), (double) events / turns);
  printf ("latency us: p50 %" G_GINT64_FORMAT "  p90 %" G_GINT64_FORMAT "  p99 %" G_GINT64_FORMAT
          "  max %" G_GINT64_FORMAT "\n",
          percentile (latencies, turns, 0.50), percentile (latencies, turns, 0.90),
          percentile (latencies, turns, 0.99), latencies[turns - 1]);
  g_clear_object (&bus);
  return 0;
}
