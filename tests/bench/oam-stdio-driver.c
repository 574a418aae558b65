/* oam-stdio-driver.c: the engine's side of `gamegate oam` over real pipes
 * (oam-stdio-driver.h): spawning $GAMEGATE_BIN, one poll loop that writes
 * what is queued and hands each line read to a function, answering tool
 * calls at once.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib-unix.h>

#include "oam-stdio-driver.h"

const char *
gamegate_bin (void)
{
  const char *bin = g_getenv ("GAMEGATE_BIN");

  if (bin == NULL || *bin == '\0')
    {
      g_printerr ("bench: GAMEGATE_BIN is not set (run through meson test --benchmark)\n");
      exit (1);
    }
  return bin;
}

Bridge *
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
      g_printerr ("bench: cannot spawn gamegate: %s\n", error->message);
      exit (1);
    }
  g_unix_set_fd_nonblocking (bridge->in_fd, TRUE, NULL);
  g_unix_set_fd_nonblocking (bridge->out_fd, TRUE, NULL);
  bridge->to_send = g_string_sized_new (1 << 16);
  bridge->received = g_string_sized_new (1 << 16);
  return bridge;
}

int
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

void
bridge_queue (Bridge *bridge, const char *line)
{
  g_string_append (bridge->to_send, line);
  g_string_append_c (bridge->to_send, '\n');
}

/* Writes what is queued and hands every line read to @func until it says
 * stop (or the bridge closes its output). One poll loop, so a big pipelined
 * batch never deadlocks against a full stdout pipe. */
gboolean
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
          g_printerr ("bench: the bridge stopped answering\n");
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

void
wait_responses (Bridge *bridge, guint count)
{
  if (count > 0 && !bridge_pump (bridge, count_responses, &count))
    exit (1);
}


gboolean
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
      g_printerr ("bench: turn failed: %s\n", line);
      exit (1);
    }
  return --run->left == 0;
}

/* -- the work both transports get ------------------------------------- */

/**
 * oam_bench_turn_script:
 * @script: where the scripted steps go (a JSON array)
 * @turns: how many turns the script plays
 *
 * Each turn plays two steps: a tool round (`stock`), then the answer.
 */
void
oam_bench_turn_script (GString *script,
                       guint    turns)
{
  g_string_assign (script, "[");
  for (guint i = 0; i < turns; i++)
    g_string_append_printf (script, "%s{\"toolCalls\":[{\"name\":\"stock\",\"arguments\":{\"item\":\"sword\"}}]},"
                            "{\"template\":\"We have {toolOutput}.\"}", i ? "," : "");
  g_string_append (script, "]");
}

/** oam_bench_append_create: session r<round>s<session> with the tool `stock`. */
void
oam_bench_append_create (GString    *out,
                         guint       round,
                         guint       session,
                         const char *script)
{
  g_string_append_printf (out,
                          "{\"jsonrpc\":\"2.0\",\"id\":\"c%u\",\"method\":\"session/create\",\"params\":{\"session\":\"r%us%u\","
                          "\"tools\":[{\"name\":\"stock\",\"description\":\"Stock of an item.\",\"parameters\":{\"type\":\"object\","
                          "\"properties\":{\"item\":{\"type\":\"string\"}},\"required\":[\"item\"]}}],"
                          "\"model\":{\"type\":\"scripted\",\"steps\":%s}}}\n", session, round, session, script);
}

/** oam_bench_append_respond: a turn of session r<round>s<session>. */
void
oam_bench_append_respond (GString *out,
                          guint    id,
                          guint    round,
                          guint    session)
{
  g_string_append_printf (out,
                          "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"session/respond\",\"params\":{\"session\":\"r%us%u\",\"prompt\":\"Swords?\"}}\n",
                          id, round, session);
}

/** oam_bench_append_delete: deletes session r<round>s<session>. */
void
oam_bench_append_delete (GString *out,
                         guint    round,
                         guint    session)
{
  g_string_append_printf (out,
                          "{\"jsonrpc\":\"2.0\",\"id\":\"d%u\",\"method\":\"session/delete\",\"params\":{\"session\":\"r%us%u\"}}\n",
                          session, round, session);
}

/* -- ping ------------------------------------------------------------- */

double
stdio_bench_ping (guint pings)
{
  Bridge *bridge = bridge_spawn (NULL);
  gint64 t0;
  double seconds;

  bridge_queue (bridge, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}");
  wait_responses (bridge, 1);
  for (guint i = 1; i <= pings; i++)
    g_string_append_printf (bridge->to_send, "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"ping\"}\n", i);
  t0 = g_get_monotonic_time ();
  wait_responses (bridge, pings);
  seconds = (g_get_monotonic_time () - t0) / 1e6;
  bridge_finish (bridge);
  return pings / seconds;
}

/* -- turns with a tool round -------------------------------------------- */

/* Rounds of @sessions fresh sessions running @per_session turns each, all
 * pipelined; a round's sessions are deleted once its turns are answered.
 * Returns turns per second over everything but the first round's creates. */
double
stdio_bench_turns (guint rounds, guint sessions, guint per_session)
{
  Bridge *bridge = bridge_spawn (NULL);
  g_autoptr(GString) script = g_string_new (NULL);
  TurnRun run = { 0, 0 };
  gint64 t0 = 0;
  double seconds;

  oam_bench_turn_script (script, per_session);
  for (guint r = 0; r < rounds; r++)
    {
      for (guint s = 0; s < sessions; s++)
        oam_bench_append_create (bridge->to_send, r, s, script->str);
      if (r == 0)
        {
          wait_responses (bridge, sessions);
          t0 = g_get_monotonic_time ();
        }
      for (guint i = 0; i < sessions * per_session; i++)
        oam_bench_append_respond (bridge->to_send, i, r, i % sessions);
      /* Later rounds' creates are answered before their turns. */
      run.left = sessions * per_session + (r == 0 ? 0 : sessions);
      if (!bridge_pump (bridge, answer_tools, &run))
        exit (1);
      for (guint s = 0; s < sessions; s++)
        oam_bench_append_delete (bridge->to_send, r, s);
      wait_responses (bridge, sessions);
    }
  seconds = (g_get_monotonic_time () - t0) / 1e6;
  if (run.tool_calls != rounds * sessions * per_session)
    g_printerr ("bench: %u tool calls for %u turns\n", run.tool_calls, rounds * sessions * per_session);
  bridge_finish (bridge);
  return rounds * sessions * per_session / seconds;
}
