/* bench-gamebridge.c: call_tool through `gamegate mcp` against the reference
 * game, and what the bridge adds over calling the game's HTTP directly.
 *
 * - call_tool health: one GET /health behind MCP, stdio, the bus and the
 *   connector; compared with the same GET /health made directly.
 * - call_tool set_score: a command and its confirmation (the game applies
 *   commands on its next frame, so this measures the game's tick too).
 * - list_instances over the default scan range with nothing listening.
 * Prints figures; asserts nothing about speed. Runs well under 20 s.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "gb-mcp-client.h"
#include "refgame-driver.h"

#define HEALTH_CALLS  1000
#define COMMAND_CALLS 100

static int
compare (gconstpointer a,
         gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static double
percentile (GArray *us,
            double  p)
{
  guint i = (guint) (p * (us->len - 1));

  return g_array_index (us, gint64, i) / 1000.0;
}

static void
report (const char *what,
        GArray     *us,
        gint64      total_us)
{
  g_array_sort (us, compare);
  printf ("%-36s %6u calls  %8.0f /s  p50 %7.3f ms  p99 %7.3f ms\n", what, us->len,
          us->len / (total_us / 1e6), percentile (us, 0.50), percentile (us, 0.99));
}

static void
bench_call (Mcp        *mcp,
            const char *what,
            const char *args,
            guint       n,
            GArray     *out)
{
  gint64 start = g_get_monotonic_time ();

  for (guint i = 0; i < n; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr(JsonObject) r = mcp_call_ok (mcp, "call_tool", args);
      gint64 dt = g_get_monotonic_time () - t0;

      g_array_append_val (out, dt);
    }
  report (what, out, g_get_monotonic_time () - start);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autofree char *port_s = g_strdup_printf ("%u", game->port);
  const char *args[] = { "--port", port_s, NULL };
  const char *empty_args[] = { "--no-registry", NULL };
  g_autoptr(Mcp) mcp = mcp_start (args, NULL);
  g_autoptr(Mcp) empty = NULL;
  g_autoptr(GArray) via = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) direct = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) command = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) listing = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 start;

  /* Warm up both paths. */
  for (guint i = 0; i < 20; i++)
    {
      g_autoptr(JsonObject) r = mcp_call_ok (mcp, "call_tool", "{\"name\":\"health\"}");
      g_autoptr(JsonObject) h = get_object (game, "/health", 200);
    }

  bench_call (mcp, "call_tool health (via gamegate mcp)", "{\"name\":\"health\"}", HEALTH_CALLS, via);
  start = g_get_monotonic_time ();
  for (guint i = 0; i < HEALTH_CALLS; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr(JsonObject) h = get_object (game, "/health", 200);
      gint64 dt = g_get_monotonic_time () - t0;

      g_array_append_val (direct, dt);
    }
  report ("GET /health (direct HTTP)", direct, g_get_monotonic_time () - start);
  printf ("%-36s p50 %+7.3f ms  p99 %+7.3f ms\n", "added by the bridge",
          percentile (via, 0.50) - percentile (direct, 0.50), percentile (via, 0.99) - percentile (direct, 0.99));

  bench_call (mcp, "call_tool set_score (command+sync)", "{\"name\":\"set_score\",\"arguments\":{\"score\":1}}",
              COMMAND_CALLS, command);

  empty = mcp_start (empty_args, NULL);
  start = g_get_monotonic_time ();
  for (guint i = 0; i < 10; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr(JsonObject) r = mcp_call_ok (empty, "list_instances", "{}");
      gint64 dt = g_get_monotonic_time () - t0;

      g_array_append_val (listing, dt);
    }
  report ("list_instances, default range, empty", listing, g_get_monotonic_time () - start);
  return EXIT_SUCCESS;
}
