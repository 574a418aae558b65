/* test-child-process.c: GgChildProcess (process group, output tail, the
 * close / SIGTERM / SIGKILL stop) and the loopback port helpers, on real
 * processes started through /bin/sh.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "gg-test-util.h"

/* Alive and not a zombie waiting for a parent that is gone. */
static gboolean
process_alive (gint64 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%" G_GINT64_FORMAT "/stat", pid);
  g_autofree char *stat = NULL;
  const char *close_paren;

  if (kill ((pid_t) pid, 0) != 0)
    return FALSE;
  if (!g_file_get_contents (path, &stat, NULL, NULL))
    return FALSE;
  close_paren = strrchr (stat, ')');
  return close_paren == NULL || close_paren[1] == '\0' || close_paren[2] != 'Z';
}

static gboolean
wait_gone (gint64 pid,
           guint  timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (process_alive (pid) && g_get_monotonic_time () < deadline)
    {
      gboolean never = FALSE;

      gg_test_wait_until (&never, 20);
    }
  return !process_alive (pid);
}

static GgChildProcess *
spawn_sh (const char          *script,
          GgChildProcessFlags  flags)
{
  const char *argv[] = { "/bin/sh", "-c", script, NULL };
  g_autoptr(GError) error = NULL;
  GgChildProcess *child = gg_child_process_spawn (argv, NULL, NULL, flags, &error);

  g_assert_no_error (error);
  g_assert_nonnull (child);
  return child;
}

static void
on_exited (GgChildProcess *child,
           int             status,
           gpointer        user_data)
{
  *(int *) user_data = status;
}

static void
on_line (GgChildProcess *child,
         const char     *line,
         gpointer        user_data)
{
  g_ptr_array_add (user_data, g_strdup (line));
}

static void
test_output_and_exit (void)
{
  g_autoptr(GgChildProcess) child = spawn_sh ("echo one; echo two >&2; printf 'three\\r\\nbad \\377 byte'; exit 3",
                                              GG_CHILD_PROCESS_CAPTURE_OUTPUT);
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) tail = NULL;
  g_auto(GStrv) last = NULL;
  g_autofree char *how = NULL;
  int status = -1;
  gboolean exited;

  g_assert_cmpint (gg_child_process_get_pid (child), >, 0);
  g_signal_connect (child, "exited", G_CALLBACK (on_exited), &status);
  g_signal_connect (child, "line", G_CALLBACK (on_line), lines);
  exited = FALSE;
  while (!gg_child_process_has_exited (child))
    gg_test_wait_until (&exited, 100);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 3);
  g_assert_cmpint (gg_child_process_get_wait_status (child), ==, status);
  how = gg_child_process_describe_exit (child);
  g_assert_cmpstr (how, ==, "the process exited with code 3");

  /* Every line, in order, stdout and stderr merged, made valid UTF-8. */
  g_assert_cmpuint (lines->len, ==, 4);
  g_assert_cmpstr (lines->pdata[0], ==, "one");
  g_assert_cmpstr (lines->pdata[1], ==, "two");
  g_assert_cmpstr (lines->pdata[2], ==, "three");
  g_assert_cmpstr (lines->pdata[3], ==, "bad \xef\xbf\xbd byte");
  tail = gg_child_process_get_tail (child, 100);
  g_assert_cmpuint (g_strv_length (tail), ==, 4);
  g_assert_cmpstr (tail[0], ==, "one");
  last = gg_child_process_get_tail (child, 1);
  g_assert_cmpuint (g_strv_length (last), ==, 1);
  g_assert_cmpstr (last[0], ==, "bad \xef\xbf\xbd byte");
}

static void
test_tail_is_bounded (void)
{
  g_autoptr(GgChildProcess) child = spawn_sh ("i=1; while [ $i -le 250 ]; do echo line$i; i=$((i+1)); done; "
                                              "head -c 10000 /dev/zero | tr '\\0' x; echo",
                                              GG_CHILD_PROCESS_CAPTURE_OUTPUT);
  g_auto(GStrv) tail = NULL;
  gboolean never = FALSE;

  while (!gg_child_process_has_exited (child))
    gg_test_wait_until (&never, 100);
  tail = gg_child_process_get_tail (child, 1000);
  g_assert_cmpuint (g_strv_length (tail), ==, GG_CHILD_PROCESS_TAIL_LINES);
  g_assert_cmpstr (tail[0], ==, "line52");
  g_assert_cmpstr (tail[GG_CHILD_PROCESS_TAIL_LINES - 2], ==, "line250");
  /* A long line is cut at 8192 bytes. */
  g_assert_cmpuint (strlen (tail[GG_CHILD_PROCESS_TAIL_LINES - 1]), ==, 8192);
}

static void
on_stopped (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  int *how = user_data;

  *how = (int) gg_child_process_stop_finish (GG_CHILD_PROCESS (source), result, &error);
  g_assert_no_error (error);
}

static int
stop_and_wait (GgChildProcess *child,
               guint           close_ms,
               guint           term_ms)
{
  int how = -1;
  gint64 deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (10000) * 1000;

  gg_child_process_stop_async (child, close_ms, term_ms, NULL, on_stopped, &how);
  while (how < 0 && g_get_monotonic_time () < deadline)
    {
      gboolean never = FALSE;

      gg_test_wait_until (&never, 20);
    }
  return how;
}

/* The first line the child prints: a pid. */
static gint64
read_pid_line (GgChildProcess *child)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (5000) * 1000;
  g_auto(GStrv) tail = NULL;

  for (;;)
    {
      gboolean never = FALSE;

      g_clear_pointer (&tail, g_strfreev);
      tail = gg_child_process_get_tail (child, 1);
      if (tail[0] != NULL || g_get_monotonic_time () > deadline)
        break;
      gg_test_wait_until (&never, 20);
    }
  g_assert_nonnull (tail[0]);
  return g_ascii_strtoll (tail[0], NULL, 10);
}

/* SIGTERM reaches the whole group: the child the shell forked goes too. */
static void
test_stop_reaches_group (void)
{
  g_autoptr(GgChildProcess) child = spawn_sh ("sleep 300 & echo $!; wait", GG_CHILD_PROCESS_CAPTURE_OUTPUT);
  gint64 grandchild = read_pid_line (child);
  g_autofree char *how = NULL;

  g_assert_cmpint (grandchild, >, 0);
  g_assert_true (process_alive (grandchild));
  g_assert_cmpint (stop_and_wait (child, 0, 2000), ==, GG_CHILD_STOP_TERMINATED);
  g_assert_true (gg_child_process_has_exited (child));
  how = gg_child_process_describe_exit (child);
  g_assert_cmpstr (how, ==, "the process was killed by signal 15 (Terminated)");
  g_assert_true (wait_gone (grandchild, gg_test_timeout_ms (5000)));
}

/* When the leader exits on its own, what it left in its group goes with it
 * (here the sleep also holds the output pipe: the exit waits for neither). */
static void
test_leader_exit_takes_group (void)
{
  g_autoptr(GgChildProcess) child = spawn_sh ("sleep 300 & echo $!; exit 0", GG_CHILD_PROCESS_CAPTURE_OUTPUT);
  gint64 grandchild = read_pid_line (child);
  gboolean never = FALSE;

  while (!gg_child_process_has_exited (child))
    gg_test_wait_until (&never, 20);
  g_assert_true (wait_gone (grandchild, gg_test_timeout_ms (5000)));
  g_assert_cmpint (stop_and_wait (child, 1000, 1000), ==, GG_CHILD_STOP_EXITED);
}

static void
test_stop_waits_for_close (void)
{
  g_autoptr(GgChildProcess) child = spawn_sh ("sleep 0.2", GG_CHILD_PROCESS_NONE);

  g_assert_cmpint (stop_and_wait (child, 5000, 1000), ==, GG_CHILD_STOP_EXITED);
  /* Stopping again: done at once. */
  g_assert_cmpint (stop_and_wait (child, 5000, 1000), ==, GG_CHILD_STOP_EXITED);
}

static void
test_stop_escalates_to_kill (void)
{
  g_autoptr(GgChildProcess) child = spawn_sh ("trap '' TERM; echo ready; while :; do sleep 0.05; done",
                                              GG_CHILD_PROCESS_CAPTURE_OUTPUT);
  gint64 leader = gg_child_process_get_pid (child);
  g_autofree char *how = NULL;

  read_pid_line (child);  /* "ready": the trap is set */
  g_assert_cmpint (stop_and_wait (child, 100, 200), ==, GG_CHILD_STOP_KILLED);
  how = gg_child_process_describe_exit (child);
  g_assert_cmpstr (how, ==, "the process was killed by signal 9 (Killed)");
  g_assert_false (process_alive (leader));
}

static void
on_waited (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  GError **error = user_data;
  gboolean exited = gg_child_process_wait_finish (GG_CHILD_PROCESS (source), result, error);

  g_assert_false (exited);
  if (*error == NULL)
    *error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_TIMED_OUT, "timed out");
}

/* A wait that times out, one that is cancelled, and a dispose that kills. */
static void
test_wait_timeout_cancel_dispose (void)
{
  GgChildProcess *child = spawn_sh ("sleep 300", GG_CHILD_PROCESS_NONE);
  gint64 pid = gg_child_process_get_pid (child);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  GError *timed_out = NULL;
  GError *cancelled = NULL;
  gboolean never = FALSE;

  gg_child_process_wait_async (child, 50, NULL, on_waited, &timed_out);
  gg_child_process_wait_async (child, 0, cancellable, on_waited, &cancelled);
  while (timed_out == NULL)
    gg_test_wait_until (&never, 20);
  g_assert_error (timed_out, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  g_assert_null (cancelled);
  g_cancellable_cancel (cancellable);
  while (cancelled == NULL)
    gg_test_wait_until (&never, 20);
  g_assert_error (cancelled, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&timed_out);
  g_clear_error (&cancelled);

  g_assert_true (process_alive (pid));
  g_object_unref (child);
  g_assert_true (wait_gone (pid, gg_test_timeout_ms (5000)));
}

/* A child that exited (and, without pidfds, was reaped by GLib's worker
 * thread) before its GgChildProcess goes: nothing may warn about ECHILD
 * at the next child's SIGCHLD. Deterministic in the valgrind setup, where
 * pidfd_open is missing. */
static void
test_dispose_after_exit (void)
{
  GgChildProcess *first = spawn_sh ("exit 0", GG_CHILD_PROCESS_NONE);
  g_autoptr(GgChildProcess) second = NULL;
  gboolean never = FALSE;

  g_usleep (G_USEC_PER_SEC / 5);  /* exited, the main loop not run */
  g_object_unref (first);
  second = spawn_sh ("exit 0", GG_CHILD_PROCESS_NONE);
  while (!gg_child_process_has_exited (second))
    gg_test_wait_until (&never, 20);
  gg_test_wait_until (&never, 50);
}

static void
test_spawn_failure (void)
{
  const char *argv[] = { "/nonexistent/game", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GgChildProcess) child = gg_child_process_spawn (argv, NULL, NULL, GG_CHILD_PROCESS_NONE, &error);

  g_assert_null (child);
  g_assert_nonnull (error);
}

static void
test_environment_and_cwd (void)
{
  const char *argv[] = { "/bin/sh", "-c", "echo \"$GG_ONLY:$(pwd)\"", NULL };
  const char *envp[] = { "GG_ONLY=yes", "PATH=/usr/bin:/bin", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GgChildProcess) child = gg_child_process_spawn (argv, envp, "/", GG_CHILD_PROCESS_CAPTURE_OUTPUT, &error);
  g_auto(GStrv) tail = NULL;
  gboolean never = FALSE;

  g_assert_no_error (error);
  while (!gg_child_process_has_exited (child))
    gg_test_wait_until (&never, 20);
  tail = gg_child_process_get_tail (child, 10);
  g_assert_cmpuint (g_strv_length (tail), ==, 1);
  g_assert_cmpstr (tail[0], ==, "yes:/");
}

static void
test_loopback_port (void)
{
  g_autoptr(GError) error = NULL;
  guint16 port = gg_loopback_port_pick_free (&error);
  g_autoptr(GSocket) listener = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (port, >, 0);
  g_assert_true (gg_loopback_port_is_bindable (port));
  g_assert_false (gg_loopback_port_is_bindable (0));

  /* A listener makes it taken. */
  listener = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  address = g_inet_socket_address_new (loopback, port);
  g_assert_true (g_socket_bind (listener, address, TRUE, &error));
  g_assert_true (g_socket_listen (listener, &error));
  g_assert_false (gg_loopback_port_is_bindable (port));
  g_socket_close (listener, NULL);
  g_assert_true (gg_loopback_port_is_bindable (port));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/child-process/output-and-exit", test_output_and_exit);
  g_test_add_func ("/child-process/tail-is-bounded", test_tail_is_bounded);
  g_test_add_func ("/child-process/stop-reaches-group", test_stop_reaches_group);
  g_test_add_func ("/child-process/leader-exit-takes-group", test_leader_exit_takes_group);
  g_test_add_func ("/child-process/stop-waits-for-close", test_stop_waits_for_close);
  g_test_add_func ("/child-process/stop-escalates-to-kill", test_stop_escalates_to_kill);
  g_test_add_func ("/child-process/wait-timeout-cancel-dispose", test_wait_timeout_cancel_dispose);
  g_test_add_func ("/child-process/dispose-after-exit", test_dispose_after_exit);
  g_test_add_func ("/child-process/spawn-failure", test_spawn_failure);
  g_test_add_func ("/child-process/environment-and-cwd", test_environment_and_cwd);
  g_test_add_func ("/loopback-port/pick-and-check", test_loopback_port);
  return g_test_run ();
}
