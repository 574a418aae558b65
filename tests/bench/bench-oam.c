/* bench-oam.c: the oam bridge (`gamegate oam`) over real stdio pipes, the
 * way an engine drives it:
 *
 *   - pipelined `ping` messages per second (aim: 100,000/s),
 *   - scripted `session/respond` turns per second, each with one client tool
 *     round answered at once, pipelined across 64 sessions (aim: 10,000/s),
 *   - resident memory per idle session with 10,000 sessions (aim: < 8 KiB),
 *   - time from spawn to the `initialize` answer (aim: < 20 ms, median).
 *
 * Runs $GAMEGATE_BIN directly (never under a wrapper: figures under valgrind
 * mean nothing). Prints a table; asserts nothing about speed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gg-test-util.h"
#include "oam-stdio-driver.h"

#define PINGS          200000
#define SESSIONS       64
#define TURN_ROUNDS    40     /* of 64 sessions x 8 turns: 20,480 turns */
#define TURNS_SHORT    8
#define TURNS_LONG     128    /* one round: history grows to 512 entries */
#define IDLE_SESSIONS  10000
#define SPAWNS         20

/* -- memory per idle session --------------------------------------------- */

static long
vm_rss_kib (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", (int) pid);
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents (path, &status, NULL, NULL) ||
      (line = strstr (status, "VmRSS:")) == NULL)
    return -1;
  return strtol (line + strlen ("VmRSS:"), NULL, 10);
}

static double
bench_idle_sessions (long *before_out, long *after_out)
{
  Bridge *bridge = bridge_spawn (G_STRINGIFY (IDLE_SESSIONS));
  long before, after;

  /* Warm up: one session created and deleted, so first-use allocations
   * (the scripted model, the method tables) are not counted. */
  bridge_queue (bridge, "{\"jsonrpc\":\"2.0\",\"id\":\"w1\",\"method\":\"session/create\",\"params\":{\"session\":\"warm\",\"instructions\":\"You are a villager.\",\"model\":\"scripted\"}}");
  bridge_queue (bridge, "{\"jsonrpc\":\"2.0\",\"id\":\"w2\",\"method\":\"session/delete\",\"params\":{\"session\":\"warm\"}}");
  wait_responses (bridge, 2);
  before = vm_rss_kib (bridge->pid);
  for (guint i = 0; i < IDLE_SESSIONS; i++)
    g_string_append_printf (bridge->to_send,
                            "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"session/create\",\"params\":{\"session\":\"villager-%u\","
                            "\"instructions\":\"You are a villager.\",\"model\":\"scripted\"}}\n", i, i);
  wait_responses (bridge, IDLE_SESSIONS);
  after = vm_rss_kib (bridge->pid);
  bridge_finish (bridge);
  *before_out = before;
  *after_out = after;
  return (double) (after - before) * 1024.0 / IDLE_SESSIONS;
}

/* -- startup ------------------------------------------------------------ */

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static void
bench_startup (double *median, double *min, double *max)
{
  double ms[SPAWNS];

  for (guint i = 0; i < SPAWNS; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      Bridge *bridge = bridge_spawn (NULL);

      bridge_queue (bridge, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"client\":{\"name\":\"bench\"},\"protocolVersion\":\"1.0\"}}");
      wait_responses (bridge, 1);
      ms[i] = (g_get_monotonic_time () - t0) / 1e3;
      bridge_finish (bridge);
    }
  qsort (ms, SPAWNS, sizeof ms[0], compare_doubles);
  *median = (ms[SPAWNS / 2 - 1] + ms[SPAWNS / 2]) / 2;
  *min = ms[0];
  *max = ms[SPAWNS - 1];
}

int
main (int argc, char **argv)
{
  double pings, turns, turns_long, per_session, median, min, max;
  long before, after;

  signal (SIGPIPE, SIG_IGN);
  pings = stdio_bench_ping (PINGS);
  turns = stdio_bench_turns (TURN_ROUNDS, SESSIONS, TURNS_SHORT);
  turns_long = stdio_bench_turns (1, SESSIONS, TURNS_LONG);
  per_session = bench_idle_sessions (&before, &after);
  bench_startup (&median, &min, &max);

  printf ("oam bridge over stdio (%s)\n", gamegate_bin ());
  printf ("%-46s %14s %14s\n", "measure", "figure", "aim");
  printf ("%-46s %12.0f/s %14s\n", "pipelined ping (" G_STRINGIFY (PINGS) " messages)", pings, ">= 100000/s");
  printf ("%-46s %12.0f/s %14s\n", "respond + 1 tool round (64 sessions x 8 turns)", turns, ">= 10000/s");
  printf ("%-46s %12.0f/s\n", "  same, 128 turns per session (long history)", turns_long);
  printf ("%-46s %10.0f B    %14s\n", "RSS per idle session (" G_STRINGIFY (IDLE_SESSIONS) " sessions)", per_session, "< 8192 B");
  printf ("%-46s %12ld KiB / %ld KiB\n", "  VmRSS before / after", before, after);
  printf ("%-46s %11.2f ms %14s\n", "spawn to initialize answer (median of " G_STRINGIFY (SPAWNS) ")", median, "< 20 ms");
  printf ("%-46s %11.2f ms / %.2f ms\n", "  min / max", min, max);
  return 0;
}
