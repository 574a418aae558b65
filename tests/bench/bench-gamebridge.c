/* bench-gamebridge.c: call_tool through `gamegate mcp` against the reference
 * game, and what the bridge adds over calling the game's HTTP directly.
 *
 * - call_tool health: one GET /health behind MCP, stdio, the bus and the
 *   connector; compared with the same GET /health made directly, in
 *   alternating rounds (so the machine's load weighs on both alike), with
 *   the CPU time `gamegate mcp` spends per call beside the latency it adds
 *   (the aim: under mcp-go's published 0.17 ms of overhead per call);
 *   against a game that closes each connection (the reference game on
 *   Debian's libsoup) and one that keeps them alive, as most games do.
 * - call_tool set_score: a command and its confirmation (the game applies
 *   commands on its next frame, so this measures the game's tick too).
 * - list_instances over the default scan range with nothing listening.
 * - resident memory of `gamegate mcp` with 16 live instances it launched
 *   from the build-tree gamebridge.json (VmRSS from /proc), in total and
 *   per instance over the idle figure.
 * Prints figures; asserts nothing about speed. Runs well under 20 s.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-stats.h"
#include "gb-mcp-client.h"
#include "refgame-driver.h"

#define HEALTH_ROUNDS 10
#define HEALTH_CALLS  200   /* per path and round */
#define MCP_GO_OVERHEAD_MS 0.17
#define COMMAND_CALLS 100
#define LIVE_INSTANCES 16
#define LAUNCH_CONFIG GG_TOP_BUILDDIR "/tests/refgame/gamebridge.json"

static void
report (const char *what,
        GArray     *us,
        gint64      total_us)
{
  g_array_sort (us, bench_compare_us);
  printf ("%-36s %6u calls  %8.0f /s  p50 %7.3f ms  p99 %7.3f ms\n", what, us->len,
          us->len / (total_us / 1e6), bench_percentile_ms (us, 0.50), bench_percentile_ms (us, 0.99));
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

/* CPU time of process @pid (as text; NULL once it exited) so far, in ns. */
static guint64
pid_cpu_ns (const char *pid)
{
  return pid != NULL ? bench_process_cpu_ns (atoi (pid)) : 0;
}

/* call_tool health through `gamegate mcp` beside GET /health made directly,
 * HEALTH_ROUNDS rounds of each in turn; then the latency the bridge adds
 * and the CPU time it spends per call (the game's is not shown: its frame
 * clock runs all the while). */
static void
compare_health (const char *what,
                Mcp        *mcp,
                Game       *game)
{
  g_autoptr(GArray) via = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) direct = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 via_total = 0, direct_total = 0;
  guint64 bridge_ns = 0;
  double added_p50, added_p99;

  for (guint round = 0; round < HEALTH_ROUNDS; round++)
    {
      guint64 bridge_before = pid_cpu_ns (gg_test_process_get_pid (mcp->process));
      gint64 start = g_get_monotonic_time ();

      for (guint i = 0; i < HEALTH_CALLS; i++)
        {
          gint64 t0 = g_get_monotonic_time ();
          g_autoptr(JsonObject) r = mcp_call_ok (mcp, "call_tool", "{\"name\":\"health\"}");
          gint64 dt = g_get_monotonic_time () - t0;

          g_array_append_val (via, dt);
        }
      via_total += g_get_monotonic_time () - start;
      bridge_ns += pid_cpu_ns (gg_test_process_get_pid (mcp->process)) - bridge_before;

      start = g_get_monotonic_time ();
      for (guint i = 0; i < HEALTH_CALLS; i++)
        {
          gint64 t0 = g_get_monotonic_time ();
          g_autoptr(JsonObject) h = get_object (game, "/health", 200);
          gint64 dt = g_get_monotonic_time () - t0;

          g_array_append_val (direct, dt);
        }
      direct_total += g_get_monotonic_time () - start;
    }
  printf ("%s\n", what);
  report ("call_tool health (via gamegate mcp)", via, via_total);
  report ("GET /health (direct HTTP)", direct, direct_total);
  added_p50 = bench_percentile_ms (via, 0.50) - bench_percentile_ms (direct, 0.50);
  added_p99 = bench_percentile_ms (via, 0.99) - bench_percentile_ms (direct, 0.99);
  printf ("%-36s p50 %+7.3f ms  p99 %+7.3f ms   (aim: p50 under mcp-go's %.2f ms)\n", "added by the bridge",
          added_p50, added_p99, MCP_GO_OVERHEAD_MS);
  printf ("%-36s %6.1f us per call_tool\n", "gamegate mcp's CPU time", bridge_ns / 1000.0 / via->len);
}

/* VmRSS of @pid in KiB, from /proc/<pid>/status (Linux); -1 when unknown. */
static gint64
rss_kib (const char *pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%s/status", pid);
  g_autofree char *text = NULL;
  const char *line;

  if (!g_file_get_contents (path, &text, NULL, NULL) || (line = strstr (text, "\nVmRSS:")) == NULL)
    return -1;
  return g_ascii_strtoll (line + strlen ("\nVmRSS:"), NULL, 10);
}

/* `gamegate mcp` launching LIVE_INSTANCES reference games, each then used
 * once through call_tool (so its connector, manifest and state are loaded),
 * and its resident memory before and after. */
static void
bench_memory (void)
{
  const char *args[] = { "--launch-config", LAUNCH_CONFIG, "--no-scan", NULL };
  g_autoptr(Mcp) mcp = mcp_start (args, NULL);
  const char *pid = gg_test_process_get_pid (mcp->process);
  g_autoptr(JsonObject) listed = NULL;
  gint64 pids[LIVE_INSTANCES];
  gint64 idle, live, start, launch_us, list_us, stop_us;

  /* The idle figure after one tool call, so it counts the MCP and bus setup. */
  listed = mcp_call_ok (mcp, "list_instances", "{}");
  idle = rss_kib (pid);

  start = g_get_monotonic_time ();
  for (guint i = 0; i < LIVE_INSTANCES; i++)
    {
      g_autoptr(JsonObject) r = mcp_call_ok (mcp, "launch_instance", "{}");
      g_autofree char *call = g_strdup_printf ("{\"name\":\"spawn\",\"port\":%" G_GINT64_FORMAT
                                               ",\"arguments\":{\"kind\":\"steel\"}}",
                                               json_object_get_int_member (r, "port"));
      g_autofree char *state = g_strdup_printf ("{\"name\":\"get_state\",\"port\":%" G_GINT64_FORMAT "}",
                                                json_object_get_int_member (r, "port"));
      g_autoptr(JsonObject) spawned = mcp_call_ok (mcp, "call_tool", call);
      g_autoptr(JsonObject) got = mcp_call_ok (mcp, "call_tool", state);

      pids[i] = json_object_get_int_member (r, "pid");
    }
  launch_us = g_get_monotonic_time () - start;

  start = g_get_monotonic_time ();
  g_clear_pointer (&listed, json_object_unref);
  listed = mcp_call_ok (mcp, "list_instances", "{}");
  list_us = g_get_monotonic_time () - start;
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (listed, "live")), ==, LIVE_INSTANCES);
  live = rss_kib (pid);

  printf ("%-36s %6.1f ms per instance (launch, spawn, get_state)\n", "launch_instance x16",
          launch_us / 1000.0 / LIVE_INSTANCES);
  printf ("%-36s %6.2f ms\n", "list_instances, 16 live (registry)", list_us / 1000.0);
  printf ("%-36s idle %6.1f MiB  16 live %6.1f MiB  per instance %6.1f KiB\n", "gamegate mcp RSS (VmRSS)",
          idle / 1024.0, live / 1024.0, (double) (live - idle) / LIVE_INSTANCES);

  /* stdin EOF stops every instance it launched. */
  start = g_get_monotonic_time ();
  g_clear_pointer (&mcp, mcp_free);
  stop_us = g_get_monotonic_time () - start;
  printf ("%-36s %6.1f ms\n", "exit on stdin EOF, stopping 16", stop_us / 1000.0);
  for (guint i = 0; i < LIVE_INSTANCES; i++)
    g_assert_false (pid_alive (pids[i]));
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
  g_autoptr(GArray) command = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) listing = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 start;

  /* Warm up both paths. */
  for (guint i = 0; i < 20; i++)
    {
      g_autoptr(JsonObject) r = mcp_call_ok (mcp, "call_tool", "{\"name\":\"health\"}");
      g_autoptr(JsonObject) h = get_object (game, "/health", 200);
    }

  compare_health ("a game that closes each connection (the reference game on libsoup < 3.3):", mcp, game);
  {
    g_autoptr(Game) kept = game_spawn ("--no-registry", "--keep-alive", NULL);
    g_autofree char *kept_port = g_strdup_printf ("%u", kept->port);
    const char *kept_args[] = { "--port", kept_port, NULL };
    g_autoptr(Mcp) kept_mcp = mcp_start (kept_args, NULL);

    for (guint i = 0; i < 20; i++)
      {
        g_autoptr(JsonObject) r = mcp_call_ok (kept_mcp, "call_tool", "{\"name\":\"health\"}");
        g_autoptr(JsonObject) h = get_object (kept, "/health", 200);
      }
    compare_health ("a game that keeps connections alive (HTTP/1.1's default; the reference game --keep-alive):",
                    kept_mcp, kept);
  }

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

  bench_memory ();
  return EXIT_SUCCESS;
}
