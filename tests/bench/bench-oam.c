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

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib-unix.h>

#include "gg-test-util.h"

#define PINGS          200000
#define SESSIONS       64
#define TURN_ROUNDS    40     /* of 64 sessions x 8 turns: 20,480 turns */
#define TURNS_SHORT    8
#define TURNS_LONG     128    /* one round: history grows to 512 entries */
#define IDLE_SESSIONS  10000
#define SPAWNS         20

typedef struct {
  GPid     pid;
  int      in_fd;     /* gamegate's stdin */
  int      out_fd;    /* gamegate's stdout */
  GString *to_send;
  gsize    sent;
  GString *received; /* bytes after the last complete line */
  gboolean eof;
} Bridge;

/* Called for each complete line the bridge writes; returns TRUE to stop. */
typedef gboolean (*LineFunc) (Bridge *bridge, const char *line, gsize len, gpointer user_data);

static const char *
gamegate_bin (void)
{
  const char *bin = g_getenv ("GAMEGATE_BIN");

  if (bin == NULL || *bin == '\0')
    {
      g_printerr ("bench-oam: GAMEGATE_BIN is not set (run through meson test --benchmark)\n");
      exit (1);
    }
  return bin;
}

static Bridge *
bridge_spawn (const char *max_sessions)
{
  const char *argv[] = { gamegate_bin (), "oam", NULL, NULL, NULL };
  g_autoptr(GError) error = NULL;
  Bridge *bridge = g_new0 (Bridge, 1);

  if (max_sessions != NULL)
    {
      argv[2] = "--max-sessions";
      argv[3] = max_sessions;
    }
  if (!g_spawn_async_with_pipes (NULL, (char **) argv, NULL,
                                 G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDERR_TO_DEV_NULL,
                                 NULL, NULL, &bridge->pid, &bridge->in_fd, &bridge->out_fd,
                                 NULL, &error))
    {
      g_printerr ("bench-oam: cannot spawn gamegate: %s\n", error->message);
      exit (1);
    }
  g_unix_set_fd_nonblocking (bridge->in_fd, TRUE, NULL);
  g_unix_set_fd_nonblocking (bridge->out_fd, TRUE, NULL);
  bridge->to_send = g_string_sized_new (1 << 16);
  bridge->received = g_string_sized_new (1 << 16);
  return bridge;
}

static int
bridge_finish (Bridge *bridge)
{
  int status = 0;

  if (bridge->in_fd >= 0)
    close (bridge->in_fd);
  close (bridge->out_fd);
  /* End of input: gamegate answers what it has and exits. */
  waitpid (bridge->pid, &status, 0);
  g_spawn_close_pid (bridge->pid);
  g_string_free (bridge->to_send, TRUE);
  g_string_free (bridge->received, TRUE);
  g_free (bridge);
  return status;
}

static void
bridge_queue (Bridge *bridge, const char *line)
{
  g_string_append (bridge->to_send, line);
  g_string_append_c (bridge->to_send, '\n');
}

/* Writes what is queued and hands every line read to @func until it says
 * stop (or the bridge closes its output). One poll loop, so a big pipelined
 * batch never deadlocks against a full stdout pipe. */
static gboolean
bridge_pump (Bridge *bridge, LineFunc func, gpointer user_data)
{
  char buffer[1 << 16];

  for (;;)
    {
      struct pollfd fds[2] = { { bridge->out_fd, POLLIN, 0 }, { bridge->in_fd, POLLOUT, 0 } };
      gboolean want_write = bridge->sent < bridge->to_send->len;
      ssize_t n;

      if (poll (fds, want_write ? 2 : 1, 30000) <= 0)
        {
          g_printerr ("bench-oam: the bridge stopped answering\n");
          return FALSE;
        }
      if (want_write && (fds[1].revents & (POLLOUT | POLLERR)))
        {
          n = write (bridge->in_fd, bridge->to_send->str + bridge->sent,
                     bridge->to_send->len - bridge->sent);
          if (n > 0)
            bridge->sent += n;
          else if (n < 0 && errno != EAGAIN && errno != EINTR)
            return FALSE;
          if (bridge->sent == bridge->to_send->len)
            {
              g_string_truncate (bridge->to_send, 0);
              bridge->sent = 0;
            }
        }
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR))
        {
          gsize start = 0;
          char *nl;

          n = read (bridge->out_fd, buffer, sizeof buffer);
          if (n == 0)
            return FALSE;
          if (n < 0)
            {
              if (errno == EAGAIN || errno == EINTR)
                continue;
              return FALSE;
            }
          g_string_append_len (bridge->received, buffer, n);
          while ((nl = memchr (bridge->received->str + start, '\n',
                               bridge->received->len - start)) != NULL)
            {
              gsize len = nl - (bridge->received->str + start);
              gboolean stop;

              *nl = '\0';
              stop = func (bridge, bridge->received->str + start, len, user_data);
              start += len + 1;
              if (stop)
                {
                  g_string_erase (bridge->received, 0, start);
                  return TRUE;
                }
            }
          g_string_erase (bridge->received, 0, start);
        }
    }
}

/* Counts responses (lines with "result" or "error" and no "method"). */
static gboolean
count_responses (Bridge *bridge, const char *line, gsize len, gpointer user_data)
{
  guint *left = user_data;

  if (strstr (line, "\"method\"") == NULL && --(*left) == 0)
    return TRUE;
  return FALSE;
}

static void
wait_responses (Bridge *bridge, guint count)
{
  if (count > 0 && !bridge_pump (bridge, count_responses, &count))
    exit (1);
}

/* -- ping ------------------------------------------------------------- */

static double
bench_ping (void)
{
  Bridge *bridge = bridge_spawn (NULL);
  gint64 t0;
  double seconds;

  bridge_queue (bridge, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}");
  wait_responses (bridge, 1);
  for (guint i = 1; i <= PINGS; i++)
    g_string_append_printf (bridge->to_send, "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"ping\"}\n", i);
  t0 = g_get_monotonic_time ();
  wait_responses (bridge, PINGS);
  seconds = (g_get_monotonic_time () - t0) / 1e6;
  bridge_finish (bridge);
  return PINGS / seconds;
}

/* -- turns with a tool round -------------------------------------------- */

typedef struct {
  guint left;
  guint tool_calls;
} TurnRun;

static gboolean
answer_tools (Bridge *bridge, const char *line, gsize len, gpointer user_data)
{
  static const char tool_call[] = "{\"jsonrpc\":\"2.0\",\"id\":\"t-";
  TurnRun *run = user_data;

  if (strncmp (line, tool_call, sizeof tool_call - 1) == 0)
    {
      const char *id = line + sizeof tool_call - 1;
      const char *end = strchr (id, '"');

      /* Answer at once, like an engine whose action is instant. */
      g_string_append (bridge->to_send, "{\"jsonrpc\":\"2.0\",\"id\":\"t-");
      g_string_append_len (bridge->to_send, id, end - id);
      g_string_append (bridge->to_send, "\",\"result\":{\"output\":\"3 in stock\"}}\n");
      run->tool_calls++;
      return FALSE;
    }
  if (strstr (line, "\"method\"") != NULL)
    return FALSE;
  if (strstr (line, "\"error\"") != NULL)
    {
      g_printerr ("bench-oam: turn failed: %s\n", line);
      exit (1);
    }
  return --run->left == 0;
}

/* Rounds of @sessions fresh sessions running @per_session turns each, all
 * pipelined; a round's sessions are deleted once its turns are answered.
 * Returns turns per second over everything but the first round's creates. */
static double
bench_turns (guint rounds, guint sessions, guint per_session)
{
  Bridge *bridge = bridge_spawn (NULL);
  g_autoptr(GString) script = g_string_new ("[");
  g_autoptr(GString) creates = g_string_new (NULL);
  TurnRun run = { 0, 0 };
  gint64 t0 = 0;
  double seconds;

  /* Each turn plays two steps: the tool round, then the answer. */
  for (guint i = 0; i < per_session; i++)
    g_string_append_printf (script, "%s{\"toolCalls\":[{\"name\":\"stock\",\"arguments\":{\"item\":\"sword\"}}]},"
                            "{\"template\":\"We have {toolOutput}.\"}", i ? "," : "");
  g_string_append (script, "]");
  for (guint r = 0; r < rounds; r++)
    {
      g_string_truncate (creates, 0);
      for (guint s = 0; s < sessions; s++)
        g_string_append_printf (bridge->to_send,
                                "{\"jsonrpc\":\"2.0\",\"id\":\"c%u\",\"method\":\"session/create\",\"params\":{\"session\":\"r%us%u\","
                                "\"tools\":[{\"name\":\"stock\",\"description\":\"Stock of an item.\",\"parameters\":{\"type\":\"object\","
                                "\"properties\":{\"item\":{\"type\":\"string\"}},\"required\":[\"item\"]}}],"
                                "\"model\":{\"type\":\"scripted\",\"steps\":%s}}}\n", s, r, s, script->str);
      if (r == 0)
        {
          wait_responses (bridge, sessions);
          t0 = g_get_monotonic_time ();
        }
      for (guint i = 0; i < sessions * per_session; i++)
        g_string_append_printf (bridge->to_send,
                                "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"session/respond\",\"params\":{\"session\":\"r%us%u\",\"prompt\":\"Swords?\"}}\n",
                                i, r, i % sessions);
      /* Later rounds' creates are answered before their turns. */
      run.left = sessions * per_session + (r == 0 ? 0 : sessions);
      if (!bridge_pump (bridge, answer_tools, &run))
        exit (1);
      for (guint s = 0; s < sessions; s++)
        g_string_append_printf (bridge->to_send,
                                "{\"jsonrpc\":\"2.0\",\"id\":\"d%u\",\"method\":\"session/delete\",\"params\":{\"session\":\"r%us%u\"}}\n",
                                s, r, s);
      wait_responses (bridge, sessions);
    }
  seconds = (g_get_monotonic_time () - t0) / 1e6;
  if (run.tool_calls != rounds * sessions * per_session)
    g_printerr ("bench-oam: %u tool calls for %u turns\n", run.tool_calls, rounds * sessions * per_session);
  bridge_finish (bridge);
  return rounds * sessions * per_session / seconds;
}

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
  pings = bench_ping ();
  turns = bench_turns (TURN_ROUNDS, SESSIONS, TURNS_SHORT);
  turns_long = bench_turns (1, SESSIONS, TURNS_LONG);
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
