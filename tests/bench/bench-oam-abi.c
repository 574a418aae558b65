/* bench-oam-abi.c: the oam C ABI (libgamegate-oam) beside the same work
 * over stdio (`gamegate oam` on pipes), in the same run:
 *
 *   - pipelined `ping` messages per second (aim: at least 2x stdio),
 *   - `ping` round trip, send to response, one at a time: p50/p90/p99
 *     (aim: p50 under 20 us in-process); oam_call_blocking() too,
 *   - oam_bridge_create() to the `initialize` response (aim: under 5 ms,
 *     median), beside spawning `gamegate oam`,
 *   - scripted turns with one client tool round answered at once (in the
 *     callback through the ABI), pipelined across 64 sessions, and one
 *     turn at a time (p50), in one long session (its history's cost shows)
 *     and in sessions of 25 turns (the turn's own cost).
 *
 * Prints a table; asserts nothing about speed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gamegate-oam.h>

#include "oam-stdio-driver.h"

#define PINGS          200000
#define ROUND_TRIPS    20000
#define CREATES        50
#define SESSIONS       64
#define TURN_ROUNDS    40     /* of 64 sessions x 8 turns: 20,480 turns */
#define TURNS_SHORT    8
#define SINGLE_TURNS   2000
#define SHORT_SESSION  25     /* turns per session, one turn at a time */

typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  oam_bridge *bridge;
  guint responses;            /* lines without a method */
  guint wanted;               /* signal once responses reach it */
  guint tool_calls;
  gint64 stamp_ns;            /* when the last response came */
  gboolean errors;
} Run;

static gint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The bridge's thread: answers tool calls at once, counts responses. */
static void
on_line (const char *line, void *user_data)
{
  static const char tool_call[] = "{\"jsonrpc\":\"2.0\",\"id\":\"t-";
  Run *run = user_data;

  if (strncmp (line, tool_call, sizeof tool_call - 1) == 0)
    {
      const char *id = line + sizeof tool_call - 1;
      char answer[128];

      g_snprintf (answer, sizeof answer, "{\"jsonrpc\":\"2.0\",\"id\":\"t-%.*s\",\"result\":{\"output\":\"3 in stock\"}}",
                  (int) strcspn (id, "\""), id);
      oam_bridge_send (run->bridge, answer);
      run->tool_calls++;
      return;
    }
  if (strstr (line, "\"method\"") != NULL)
    return;
  pthread_mutex_lock (&run->lock);
  run->stamp_ns = now_ns ();
  if (strstr (line, "\"error\"") != NULL)
    run->errors = TRUE;
  if (++run->responses >= run->wanted)
    pthread_cond_signal (&run->cond);
  pthread_mutex_unlock (&run->lock);
}

static void
run_init (Run *run)
{
  memset (run, 0, sizeof *run);
  pthread_mutex_init (&run->lock, NULL);
  pthread_cond_init (&run->cond, NULL);
  run->bridge = oam_bridge_create (on_line, run);
  if (run->bridge == NULL)
    {
      g_printerr ("bench-oam-abi: oam_bridge_create failed\n");
      exit (1);
    }
}

static void
run_clear (Run *run)
{
  oam_bridge_destroy (run->bridge);
  pthread_cond_destroy (&run->cond);
  pthread_mutex_destroy (&run->lock);
}

/* Waits until @count responses in all have come; returns the last one's time. */
static gint64
run_wait (Run *run, guint count)
{
  gint64 stamp;

  pthread_mutex_lock (&run->lock);
  run->wanted = count;
  while (run->responses < count)
    pthread_cond_wait (&run->cond, &run->lock);
  stamp = run->stamp_ns;
  pthread_mutex_unlock (&run->lock);
  if (run->errors)
    {
      g_printerr ("bench-oam-abi: a request failed\n");
      exit (1);
    }
  return stamp;
}

static void
send_all (oam_bridge *bridge, GString *lines)
{
  char *line = lines->str;
  char *end;

  while ((end = strchr (line, '\n')) != NULL)
    {
      *end = '\0';
      oam_bridge_send (bridge, line);
      line = end + 1;
    }
  g_string_truncate (lines, 0);
}

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

typedef struct {
  double p50, p90, p99;
} Percentiles;

static Percentiles
percentiles (double *values, guint n)
{
  qsort (values, n, sizeof values[0], compare_doubles);
  return (Percentiles) { values[n / 2], values[n * 9 / 10], values[n * 99 / 100] };
}

/* -- ping ------------------------------------------------------------- */

static double
abi_pipelined_ping (void)
{
  Run run;
  gint64 t0, last;

  run_init (&run);
  oam_bridge_send (run.bridge, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}");
  run_wait (&run, 1);
  t0 = now_ns ();
  for (guint i = 1; i <= PINGS; i++)
    {
      char line[64];

      g_snprintf (line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"ping\"}", i);
      oam_bridge_send (run.bridge, line);
    }
  last = run_wait (&run, PINGS + 1);
  run_clear (&run);
  return PINGS / ((last - t0) / 1e9);
}

/* Send to response, one at a time, measured on the response's arrival. */
static Percentiles
abi_round_trip (void)
{
  double *us = g_new (double, ROUND_TRIPS);
  Percentiles p;
  Run run;

  run_init (&run);
  for (guint i = 0; i < 1000 + ROUND_TRIPS; i++)
    {
      gint64 t0 = now_ns ();
      gint64 t1;

      oam_bridge_send (run.bridge, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
      t1 = run_wait (&run, i + 1);
      if (i >= 1000)
        us[i - 1000] = (t1 - t0) / 1e3;
    }
  run_clear (&run);
  p = percentiles (us, ROUND_TRIPS);
  g_free (us);
  return p;
}

/* oam_call_blocking(): until the calling thread has the response. */
static Percentiles
abi_blocking_round_trip (void)
{
  double *us = g_new (double, ROUND_TRIPS);
  Percentiles p;
  Run run;

  run_init (&run);
  for (guint i = 0; i < 1000 + ROUND_TRIPS; i++)
    {
      gint64 t0 = now_ns ();
      char *response = oam_call_blocking (run.bridge, "{\"id\":1,\"method\":\"ping\"}", 10000);

      if (i >= 1000)
        us[i - 1000] = (now_ns () - t0) / 1e3;
      oam_string_free (response);
    }
  run_clear (&run);
  p = percentiles (us, ROUND_TRIPS);
  g_free (us);
  return p;
}

static Percentiles
stdio_round_trip (void)
{
  double *us = g_new (double, ROUND_TRIPS);
  Bridge *bridge = bridge_spawn (NULL);
  Percentiles p;

  for (guint i = 0; i < 1000 + ROUND_TRIPS; i++)
    {
      gint64 t0 = now_ns ();

      bridge_queue (bridge, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
      wait_responses (bridge, 1);
      if (i >= 1000)
        us[i - 1000] = (now_ns () - t0) / 1e3;
    }
  bridge_finish (bridge);
  p = percentiles (us, ROUND_TRIPS);
  g_free (us);
  return p;
}

/* -- start ------------------------------------------------------------ */

static Percentiles
abi_create_to_initialize (double *destroy_p50)
{
  double ms[CREATES], destroy_ms[CREATES];

  for (guint i = 0; i < CREATES; i++)
    {
      gint64 t0 = now_ns ();
      gint64 t1;
      Run run;

      run_init (&run);
      oam_bridge_send (run.bridge, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                                   "{\"client\":{\"name\":\"bench\"},\"protocolVersion\":\"1.0\"}}");
      t1 = run_wait (&run, 1);
      ms[i] = (t1 - t0) / 1e6;
      t0 = now_ns ();
      run_clear (&run);
      destroy_ms[i] = (now_ns () - t0) / 1e6;
    }
  *destroy_p50 = percentiles (destroy_ms, CREATES).p50;
  return percentiles (ms, CREATES);
}

static Percentiles
stdio_spawn_to_initialize (void)
{
  double ms[CREATES / 2];

  for (guint i = 0; i < CREATES / 2; i++)
    {
      gint64 t0 = now_ns ();
      Bridge *bridge = bridge_spawn (NULL);

      bridge_queue (bridge, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                            "{\"client\":{\"name\":\"bench\"},\"protocolVersion\":\"1.0\"}}");
      wait_responses (bridge, 1);
      ms[i] = (now_ns () - t0) / 1e6;
      bridge_finish (bridge);
    }
  return percentiles (ms, CREATES / 2);
}

/* -- turns with a tool round -------------------------------------------- */

/* As stdio_bench_turns(): rounds of 64 fresh sessions, all pipelined. */
static double
abi_turns (guint rounds, guint sessions, guint per_session)
{
  g_autoptr(GString) script = g_string_new (NULL);
  g_autoptr(GString) lines = g_string_new (NULL);
  guint expected = 0;
  gint64 t0 = 0, last = 0;
  Run run;

  run_init (&run);
  oam_bench_turn_script (script, per_session);
  for (guint r = 0; r < rounds; r++)
    {
      for (guint s = 0; s < sessions; s++)
        oam_bench_append_create (lines, r, s, script->str);
      send_all (run.bridge, lines);
      expected += sessions;
      if (r == 0)
        {
          run_wait (&run, expected);
          t0 = now_ns ();
        }
      for (guint i = 0; i < sessions * per_session; i++)
        oam_bench_append_respond (lines, i, r, i % sessions);
      send_all (run.bridge, lines);
      expected += sessions * per_session;
      last = run_wait (&run, expected);
      for (guint s = 0; s < sessions; s++)
        oam_bench_append_delete (lines, r, s);
      send_all (run.bridge, lines);
      expected += sessions;
      run_wait (&run, expected);
    }
  if (run.tool_calls != rounds * sessions * per_session)
    g_printerr ("bench-oam-abi: %u tool calls for %u turns\n", run.tool_calls, rounds * sessions * per_session);
  run_clear (&run);
  return rounds * sessions * per_session / ((last - t0) / 1e9);
}

/* One turn at a time, @per_session turns per session (the session made
 * and deleted untimed): a session of all SINGLE_TURNS turns shows a long
 * history's cost, short ones the turn's own. */
static double
abi_single_turn_p50 (guint per_session)
{
  g_autoptr(GString) script = g_string_new (NULL);
  g_autoptr(GString) lines = g_string_new (NULL);
  double *us = g_new (double, SINGLE_TURNS);
  guint expected = 0;
  double p50;
  Run run;

  run_init (&run);
  oam_bench_turn_script (script, per_session);
  for (guint i = 0; i < SINGLE_TURNS; i++)
    {
      guint session = i / per_session;
      gint64 t0;

      if (i % per_session == 0)
        {
          if (i > 0)
            oam_bench_append_delete (lines, 0, session - 1);
          oam_bench_append_create (lines, 0, session, script->str);
          send_all (run.bridge, lines);
          expected += i > 0 ? 2 : 1;
          run_wait (&run, expected);
        }
      t0 = now_ns ();
      oam_bench_append_respond (lines, i, 0, session);
      send_all (run.bridge, lines);
      us[i] = (run_wait (&run, ++expected) - t0) / 1e3;
    }
  run_clear (&run);
  p50 = percentiles (us, SINGLE_TURNS).p50;
  g_free (us);
  return p50;
}

static double
stdio_single_turn_p50 (guint per_session)
{
  g_autoptr(GString) script = g_string_new (NULL);
  double *us = g_new (double, SINGLE_TURNS);
  Bridge *bridge = bridge_spawn (NULL);
  double p50;

  oam_bench_turn_script (script, per_session);
  for (guint i = 0; i < SINGLE_TURNS; i++)
    {
      guint session = i / per_session;
      TurnRun run = { 1, 0 };
      gint64 t0;

      if (i % per_session == 0)
        {
          if (i > 0)
            oam_bench_append_delete (bridge->to_send, 0, session - 1);
          oam_bench_append_create (bridge->to_send, 0, session, script->str);
          wait_responses (bridge, i > 0 ? 2 : 1);
        }
      t0 = now_ns ();
      oam_bench_append_respond (bridge->to_send, i, 0, session);
      if (!bridge_pump (bridge, answer_tools, &run))
        exit (1);
      us[i] = (now_ns () - t0) / 1e3;
    }
  bridge_finish (bridge);
  p50 = percentiles (us, SINGLE_TURNS).p50;
  g_free (us);
  return p50;
}

int
main (int argc, char **argv)
{
  double abi_pings, stdio_pings, destroy_p50, abi_turn_rate, stdio_turn_rate, abi_turn, stdio_turn;
  double abi_short_turn, stdio_short_turn;
  Percentiles abi_rtt, blocking_rtt, stdio_rtt, create, spawn;

  signal (SIGPIPE, SIG_IGN);
  abi_pings = abi_pipelined_ping ();
  stdio_pings = stdio_bench_ping (PINGS);
  abi_rtt = abi_round_trip ();
  blocking_rtt = abi_blocking_round_trip ();
  stdio_rtt = stdio_round_trip ();
  create = abi_create_to_initialize (&destroy_p50);
  spawn = stdio_spawn_to_initialize ();
  abi_turn_rate = abi_turns (TURN_ROUNDS, SESSIONS, TURNS_SHORT);
  stdio_turn_rate = stdio_bench_turns (TURN_ROUNDS, SESSIONS, TURNS_SHORT);
  abi_turn = abi_single_turn_p50 (SINGLE_TURNS);
  stdio_turn = stdio_single_turn_p50 (SINGLE_TURNS);
  abi_short_turn = abi_single_turn_p50 (SHORT_SESSION);
  stdio_short_turn = stdio_single_turn_p50 (SHORT_SESSION);

  printf ("oam C ABI (libgamegate-oam %s) beside stdio (%s)\n", oam_version (), gamegate_bin ());
  printf ("%-50s %13s %13s %8s %16s\n", "measure", "C ABI", "stdio", "ratio", "aim");
  printf ("%-50s %11.0f/s %11.0f/s %7.2fx %16s\n", "pipelined ping (" G_STRINGIFY (PINGS) " messages)",
          abi_pings, stdio_pings, abi_pings / stdio_pings, ">= 2x stdio");
  printf ("%-50s %10.1f us %10.1f us %7.2fx %16s\n", "ping round trip p50 (" G_STRINGIFY (ROUND_TRIPS) ", one at a time)",
          abi_rtt.p50, stdio_rtt.p50, stdio_rtt.p50 / abi_rtt.p50, "< 20 us (ABI)");
  printf ("%-50s %10.1f us %10.1f us\n", "  p90", abi_rtt.p90, stdio_rtt.p90);
  printf ("%-50s %10.1f us %10.1f us\n", "  p99", abi_rtt.p99, stdio_rtt.p99);
  printf ("%-50s %10.1f us\n", "  oam_call_blocking() p50 (to the caller)", blocking_rtt.p50);
  printf ("%-50s %10.1f us\n", "  oam_call_blocking() p99", blocking_rtt.p99);
  printf ("%-50s %10.2f ms %10.2f ms %7.2fx %16s\n", "create to initialize response (median of " G_STRINGIFY (CREATES) ")",
          create.p50, spawn.p50, spawn.p50 / create.p50, "< 5 ms (ABI)");
  printf ("%-50s %10.2f ms %10.2f ms\n", "  p90 (stdio: spawn to initialize)", create.p90, spawn.p90);
  printf ("%-50s %10.2f ms\n", "  oam_bridge_destroy() median", destroy_p50);
  printf ("%-50s %11.0f/s %11.0f/s %7.2fx\n", "respond + 1 tool round (64 sessions x 8 turns)",
          abi_turn_rate, stdio_turn_rate, abi_turn_rate / stdio_turn_rate);
  printf ("%-50s %10.1f us %10.1f us %7.2fx\n", "  one turn at a time, p50 (one " G_STRINGIFY (SINGLE_TURNS) "-turn session)",
          abi_turn, stdio_turn, stdio_turn / abi_turn);
  printf ("%-50s %10.1f us %10.1f us %7.2fx\n", "  one turn at a time, p50 (sessions of " G_STRINGIFY (SHORT_SESSION) " turns)",
          abi_short_turn, stdio_short_turn, stdio_short_turn / abi_short_turn);
  return 0;
}
