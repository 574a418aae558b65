/* bench-mcp-http.c: MCP call_tool over the Streamable HTTP endpoint of
 * `gamegate serve`, on a fresh daemon beside the same daemon after 10,000
 * clients of the official MCP TypeScript SDK connected, made one call and
 * left without DELETE (so its session table is full and every new client
 * ends the least recently used session).
 *
 * Both daemons serve the same reference game; the calls (tools/call
 * call_tool health, one initialized session per daemon, a new connection
 * per request as the endpoint answers Connection: close) alternate
 * between them in rounds, so the machine's load weighs on both alike.
 * Printed: latency p50/p99 and throughput of each, their ratio beside the
 * aim (after the cycles within 10% of fresh), the direct GET /health of the
 * game as the floor, the leavers' own rate, and each daemon's VmRSS and
 * file descriptors. Asserts nothing about speed. Needs node and the SDK
 * (`npm ci` in tests/gamebridge/mcp-sdk); says so and exits 0 without.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "bench-stats.h"
#include "gb-mcp-client.h"
#include "mcp-sdk-runner.h"
#include "refgame-driver.h"

#define LEAVERS 10000
#define ROUNDS  10
#define CALLS   200   /* per daemon and round */

typedef struct {
  McpDaemon   *daemon;
  SoupSession *session;
  char        *session_id;
  char        *call;
  GArray      *us;
  gint64       total_us;
} Target;

static void
target_init (Target    *t,
             McpDaemon *daemon,
             guint      game_port)
{
  g_autoptr(JsonObject) init = NULL;
  g_autoptr(JsonObject) ready = NULL;

  t->daemon = daemon;
  t->session = soup_session_new ();
  t->us = g_array_new (FALSE, FALSE, sizeof (gint64));
  t->call = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                             "{\"name\":\"call_tool\",\"arguments\":{\"name\":\"health\",\"port\":%u}}}",
                             game_port);
  init = http_mcp (t->session, daemon->port, &t->session_id,
                   "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                   "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}");
  ready = http_mcp (t->session, daemon->port, &t->session_id,
                    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

static void
target_round (Target *t,
              guint   calls)
{
  gint64 start = g_get_monotonic_time ();

  for (guint i = 0; i < calls; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr(JsonObject) r = http_mcp (t->session, t->daemon->port, &t->session_id, t->call);
      gint64 dt = g_get_monotonic_time () - t0;

      g_assert_true (json_object_has_member (r, "result"));
      g_array_append_val (t->us, dt);
    }
  t->total_us += g_get_monotonic_time () - start;
}

static void
target_report (Target     *t,
               const char *what)
{
  g_array_sort (t->us, bench_compare_us);
  printf ("%-44s %6u calls  %7.0f /s  p50 %7.3f ms  p99 %7.3f ms\n", what, t->us->len,
          t->us->len / (t->total_us / 1e6), bench_percentile_ms (t->us, 0.50), bench_percentile_ms (t->us, 0.99));
}

static void
target_clear (Target *t)
{
  g_clear_object (&t->session);
  g_free (t->session_id);
  g_free (t->call);
  g_array_unref (t->us);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(Game) game = NULL;
  g_autofree char *keys = NULL;
  g_autofree char *port = NULL;
  g_autofree char *cycles = g_strdup_printf ("%u", LEAVERS);
  g_autoptr(JsonNode) left = NULL;
  g_autoptr(GArray) direct = g_array_new (FALSE, FALSE, sizeof (gint64));
  McpDaemon *fresh, *used;
  Target a = { 0, }, b = { 0, };

  if (!mcp_sdk_available ())
    return EXIT_SUCCESS;
  game = game_spawn ("--no-registry", NULL);
  keys = g_strdup_printf ("ports=%u", game->port);
  port = g_strdup_printf ("%u", game->port);
  fresh = mcp_daemon_start (keys, NULL);
  used = mcp_daemon_start (keys, NULL);

  {
    const char *args[] = { used->url, cycles, port, NULL };
    left = mcp_sdk_run_client ("leavers.mjs", args, NULL, 540000);
  }
  printf ("\n%-44s %6" G_GINT64_FORMAT " served  %7.0f /s  (SDK connect, call_tool, close; 4 at a time)\n",
          "SDK clients that leave without DELETE",
          json_node_get_int (mcp_sdk_member (left, "served")),
          LEAVERS / (json_node_get_int (mcp_sdk_member (left, "ms")) / 1000.0));

  target_init (&a, fresh, game->port);
  target_init (&b, used, game->port);
  /* Warm up both, then alternate. */
  target_round (&a, 20);
  target_round (&b, 20);
  g_array_set_size (a.us, 0);
  g_array_set_size (b.us, 0);
  a.total_us = b.total_us = 0;
  for (guint round = 0; round < ROUNDS; round++)
    {
      target_round (&a, CALLS);
      target_round (&b, CALLS);
      for (guint i = 0; i < CALLS / 4; i++)
        {
          gint64 t0 = g_get_monotonic_time ();
          g_autoptr(JsonObject) h = get_object (game, "/health", 200);
          gint64 dt = g_get_monotonic_time () - t0;

          g_array_append_val (direct, dt);
        }
    }
  target_report (&a, "call_tool health over HTTP, fresh daemon");
  target_report (&b, "same, after 10,000 leavers (table full)");
  printf ("%-44s p50 x%.2f  p99 x%.2f  throughput x%.2f  (aim: within 10%%)\n", "after / fresh",
          bench_percentile_ms (b.us, 0.50) / bench_percentile_ms (a.us, 0.50),
          bench_percentile_ms (b.us, 0.99) / bench_percentile_ms (a.us, 0.99),
          (b.us->len / (b.total_us / 1e6)) / (a.us->len / (a.total_us / 1e6)));
  g_array_sort (direct, bench_compare_us);
  printf ("%-44s %6u calls  p50 %7.3f ms  p99 %7.3f ms\n", "GET /health of the game (direct, the floor)",
          direct->len, bench_percentile_ms (direct, 0.50), bench_percentile_ms (direct, 0.99));
  printf ("%-44s fresh %6.1f MiB, %3u fds   after %6.1f MiB, %3u fds\n", "daemon VmRSS, file descriptors",
          mcp_daemon_rss_kib (fresh) / 1024.0, mcp_daemon_fd_count (fresh),
          mcp_daemon_rss_kib (used) / 1024.0, mcp_daemon_fd_count (used));

  target_clear (&a);
  target_clear (&b);
  mcp_daemon_stop (fresh);
  mcp_daemon_stop (used);
  return EXIT_SUCCESS;
}
