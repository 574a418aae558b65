/* test-daemon.c: `gamegate serve` with the test-echo plugin: readiness on
 * $NOTIFY_SOCKET, clients on the echo socket, orderly shutdown on signals.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gg-test-util.h"

#define GOOD_DIR GG_TEST_BUILDDIR "/plugins/good"

/* Shutdown must finish well within this (before valgrind scaling). */
#define SHUTDOWN_BOUND_MS 3000

typedef struct {
  char *dir;
  char *conf;
  char *echo_socket;
  char *notify_address;    /* as put in NOTIFY_SOCKET */
  GSocket *notify;
  GSource *notify_source;
  GPtrArray *notifications; /* char *, in arrival order */
  GgTestProcess *process;
} Fixture;

static gboolean
on_notify (GSocket      *socket,
           GIOCondition  condition,
           gpointer      user_data)
{
  Fixture *f = user_data;
  char buffer[4096];
  gssize n = g_socket_receive (socket, buffer, sizeof buffer - 1, NULL, NULL);

  if (n > 0)
    {
      buffer[n] = '\0';
      g_ptr_array_add (f->notifications, g_strdup (buffer));
    }
  return G_SOURCE_CONTINUE;
}

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  gboolean abstract = GPOINTER_TO_INT (data);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  g_autofree char *text = NULL;

  f->dir = g_dir_make_tmp ("gg-daemon-XXXXXX", &error);
  g_assert_no_error (error);
  f->echo_socket = g_build_filename (f->dir, "echo.sock", NULL);
  f->conf = g_build_filename (f->dir, "gamegate.conf", NULL);
  text = g_strdup_printf ("[test-echo]\nsocket = %s\n", f->echo_socket);
  g_file_set_contents (f->conf, text, -1, &error);
  g_assert_no_error (error);

  f->notifications = g_ptr_array_new_with_free_func (g_free);
  f->notify = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_DATAGRAM, G_SOCKET_PROTOCOL_DEFAULT,
                            &error);
  g_assert_no_error (error);
  if (abstract)
    {
      g_autofree char *name = g_strdup_printf ("gg-test-notify-%d-%u", (int) getpid (), g_random_int ());

      address = g_unix_socket_address_new_with_type (name, -1, G_UNIX_SOCKET_ADDRESS_ABSTRACT);
      f->notify_address = g_strconcat ("@", name, NULL);
    }
  else
    {
      f->notify_address = g_build_filename (f->dir, "notify", NULL);
      address = g_unix_socket_address_new (f->notify_address);
    }
  g_assert_true (g_socket_bind (f->notify, address, FALSE, &error));
  g_assert_no_error (error);
  g_socket_set_blocking (f->notify, FALSE);
  f->notify_source = g_socket_create_source (f->notify, G_IO_IN, NULL);
  g_source_set_callback (f->notify_source, G_SOURCE_FUNC (on_notify), f, NULL);
  g_source_attach (f->notify_source, NULL);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  g_clear_pointer (&f->process, gg_test_process_free);
  g_source_destroy (f->notify_source);
  g_source_unref (f->notify_source);
  g_socket_close (f->notify, NULL);
  g_object_unref (f->notify);
  g_ptr_array_unref (f->notifications);
  if (f->notify_address[0] == '/')
    g_unlink (f->notify_address);
  g_unlink (f->echo_socket);
  g_unlink (f->conf);
  g_rmdir (f->dir);
  g_free (f->notify_address);
  g_free (f->echo_socket);
  g_free (f->conf);
  g_free (f->dir);
}

static gboolean
has_notification (Fixture *f, const char *assignment)
{
  for (guint i = 0; i < f->notifications->len; i++)
    {
      g_auto(GStrv) lines = g_strsplit (g_ptr_array_index (f->notifications, i), "\n", -1);

      if (g_strv_contains ((const char * const *) lines, assignment))
        return TRUE;
    }
  return FALSE;
}

static gboolean
wait_notification (Fixture *f, const char *assignment, guint timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!has_notification (f, assignment) && g_get_monotonic_time () < deadline)
    {
      gboolean tick = FALSE;

      gg_test_wait_until (&tick, 20);
    }
  return has_notification (f, assignment);
}

static void
start_daemon (Fixture *f, gboolean with_notify)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *notify_env = g_strconcat ("NOTIFY_SOCKET=", f->notify_address, NULL);
  const char *args[] = { "--config", f->conf, "--plugin-dir", GOOD_DIR, "serve", NULL };
  const char *env[] = { "GAMEGATE_PLUGIN_PATH", with_notify ? notify_env : "NOTIFY_SOCKET", NULL };

  f->process = gg_test_process_spawn (args, env, &error);
  g_assert_no_error (error);
}

static GSocketConnection *
connect_echo (Fixture *f)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketAddress) address = g_unix_socket_address_new (f->echo_socket);
  g_autoptr(GError) error = NULL;
  GSocketConnection *connection;

  connection = g_socket_client_connect (client, G_SOCKET_CONNECTABLE (address), NULL, &error);
  g_assert_no_error (error);
  return connection;
}

static void
echo_round_trip (GSocketConnection *connection,
                 GDataInputStream  *input,
                 const char        *text)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *framed = g_strconcat (text, "\n", NULL);
  g_autofree char *line = NULL;

  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (connection)),
                             framed, strlen (framed), NULL, NULL, &error);
  g_assert_no_error (error);
  line = gg_test_read_line (input, gg_test_timeout_ms (5000), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (line, ==, text);
}

static void
check_orderly_shutdown (Fixture *f, gconstpointer data, int signum)
{
  g_autoptr(GSocketConnection) first = NULL;
  g_autoptr(GSocketConnection) second = NULL;
  g_autoptr(GDataInputStream) first_input = NULL;
  g_autoptr(GDataInputStream) second_input = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *eof = NULL;
  GStatBuf st;
  gint64 start;
  int status = -1;

  start_daemon (f, TRUE);
  g_assert_true (wait_notification (f, "READY=1", gg_test_timeout_ms (10000)));
  g_assert_false (has_notification (f, "STOPPING=1"));

  /* Ready means listening: connect at once, two clients side by side. */
  g_assert_cmpint (g_stat (f->echo_socket, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  first = connect_echo (f);
  second = connect_echo (f);
  first_input = g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (first)));
  second_input = g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (second)));
  echo_round_trip (first, first_input, "one");
  echo_round_trip (second, second_input, "two");
  echo_round_trip (first, first_input, "{\"three\": 3}");

  /* A signal with clients connected: they are closed, the process exits 0
   * in bounded time, and tells the service manager it is stopping. */
  start = g_get_monotonic_time ();
  gg_test_process_send_signal (f->process, signum);
  g_assert_true (gg_test_process_wait (f->process, gg_test_timeout_ms (SHUTDOWN_BOUND_MS), &status));
  g_test_message ("shut down in %.3f s", (g_get_monotonic_time () - start) / 1e6);
  g_assert_cmpint (status, ==, 0);
  g_assert_true (wait_notification (f, "STOPPING=1", gg_test_timeout_ms (1000)));

  eof = gg_test_read_line (first_input, gg_test_timeout_ms (5000), &error);
  g_assert_no_error (error);
  g_assert_null (eof);
  g_assert_false (g_file_test (f->echo_socket, G_FILE_TEST_EXISTS));
}

static void
test_sigterm (Fixture *f, gconstpointer data)
{
  check_orderly_shutdown (f, data, SIGTERM);
}

static void
test_sigint (Fixture *f, gconstpointer data)
{
  check_orderly_shutdown (f, data, SIGINT);
}

static void
test_without_notify_socket (Fixture *f, gconstpointer data)
{
  g_autoptr(GSocketConnection) connection = NULL;
  g_autoptr(GDataInputStream) input = NULL;
  gint64 deadline = g_get_monotonic_time () + gg_test_timeout_ms (10000) * (gint64) 1000;
  int status = -1;

  start_daemon (f, FALSE);
  /* No readiness message to wait for: retry until the daemon accepts (the
   * socket file appears when it is bound, a moment before it listens). */
  while (connection == NULL)
    {
      g_autoptr(GSocketClient) client = g_socket_client_new ();
      g_autoptr(GSocketAddress) address = g_unix_socket_address_new (f->echo_socket);
      g_autoptr(GError) error = NULL;
      gboolean tick = FALSE;

      connection = g_socket_client_connect (client, G_SOCKET_CONNECTABLE (address), NULL, &error);
      if (connection != NULL)
        break;
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      gg_test_wait_until (&tick, 20);
    }
  input = g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (connection)));
  echo_round_trip (connection, input, "no systemd here");

  gg_test_process_send_signal (f->process, SIGTERM);
  g_assert_true (gg_test_process_wait (f->process, gg_test_timeout_ms (SHUTDOWN_BOUND_MS), &status));
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpuint (f->notifications->len, ==, 0);
}

static void
test_start_failure (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = g_strdup_printf ("[test-echo]\nsocket = %s/missing-dir/echo.sock\n", f->dir);
  int status = -1;

  g_file_set_contents (f->conf, text, -1, &error);
  g_assert_no_error (error);
  start_daemon (f, TRUE);
  g_assert_true (gg_test_process_wait (f->process, gg_test_timeout_ms (10000), &status));
  g_assert_cmpint (status, ==, 1);
  g_assert_nonnull (strstr (gg_test_process_get_stderr (f->process),
                            "gamegate: cannot start front end echo: "));
  /* Never claimed to be ready. */
  g_assert_false (has_notification (f, "READY=1"));
}

static void
check_bad_notify_address (Fixture *f, const char *address, const char *message)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgTestProcess) process = NULL;
  g_autofree char *notify_env = g_strconcat ("NOTIFY_SOCKET=", address, NULL);
  const char *args[] = { "--config", f->conf, "--plugin-dir", GOOD_DIR, NULL };
  const char *env[] = { "GAMEGATE_PLUGIN_PATH", notify_env, NULL };
  gint64 deadline = g_get_monotonic_time () + gg_test_timeout_ms (10000) * (gint64) 1000;
  int status = -1;

  /* An address we cannot use is a warning, not a reason to fail. */
  process = gg_test_process_spawn (args, env, &error);
  g_assert_no_error (error);
  while (gg_test_process_count_in_stderr (process, "ready with") == 0 &&
         g_get_monotonic_time () < deadline)
    {
      gboolean tick = FALSE;

      gg_test_wait_until (&tick, 20);
    }
  gg_test_process_send_signal (process, SIGTERM);
  g_assert_true (gg_test_process_wait (process, gg_test_timeout_ms (SHUTDOWN_BOUND_MS), &status));
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (gg_test_process_get_stderr (process), message));
}

static void
test_bad_notify_address (Fixture *f, gconstpointer data)
{
  g_autofree char *x = g_strnfill (200, 'x');
  g_autofree char *long_path = g_strconcat ("/", x, NULL);
  g_autofree char *long_message = NULL;
  g_autofree char *gone = g_build_filename (f->dir, "gone", "notify", NULL);
  g_autofree char *gone_message = g_strdup_printf ("Cannot notify the service manager at %s: "
                                                   "No such file or directory", gone);

  check_bad_notify_address (f, "vsock:2:1234", "Unsupported NOTIFY_SOCKET address “vsock:2:1234”");
  check_bad_notify_address (f, "@", "Unsupported NOTIFY_SOCKET address “@”");
  long_message = g_strdup_printf ("Unsupported NOTIFY_SOCKET address “%s”", long_path);
  check_bad_notify_address (f, long_path, long_message);
  check_bad_notify_address (f, gone, gone_message);
}

/* Without a front end the daemon still runs, and says why nothing answers. */
static void
test_no_frontends (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgTestProcess) process = NULL;
  const char *args[] = { "--config", "/dev/null", "serve", NULL };
  const char *env[] = { "GAMEGATE_PLUGIN_PATH", "NOTIFY_SOCKET", NULL };
  gint64 deadline = g_get_monotonic_time () + gg_test_timeout_ms (10000) * (gint64) 1000;
  int status = -1;

  process = gg_test_process_spawn (args, env, &error);
  g_assert_no_error (error);
  while (gg_test_process_count_in_stderr (process, "nothing to serve") == 0 &&
         g_get_monotonic_time () < deadline)
    {
      gboolean tick = FALSE;

      gg_test_wait_until (&tick, 20);
    }
  g_assert_nonnull (strstr (gg_test_process_get_stderr (process),
                            "No front end is loaded, so there is nothing to serve; "
                            "run “gamegate plugins” to see what was found"));
  gg_test_process_send_signal (process, SIGTERM);
  g_assert_true (gg_test_process_wait (process, gg_test_timeout_ms (SHUTDOWN_BOUND_MS), &status));
  g_assert_cmpint (status, ==, 0);
}

/* A test that fails mid-way must not leave its gamegate running: the child
 * test below spawns a daemon, says its pid and aborts; the daemon must die
 * with it. */
/* Alive and not a zombie waiting for a parent (not every init reaps). */
static gboolean
is_running (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", pid);
  g_autofree char *stat = NULL;
  const char *end;

  if (kill (pid, 0) != 0)
    return FALSE;
  if (!g_file_get_contents (path, &stat, NULL, NULL))
    return TRUE;
  end = strrchr (stat, ')');
  return end == NULL || end[1] == '\0' || end[2] != 'Z';
}

static void
test_dies_with_failed_test (void)
{
  g_autofree char *name = NULL;
  g_autofree char *pid_file = NULL;
  g_autofree char *text = NULL;
  int pid = 0;
  gint64 deadline;

  if (g_test_subprocess ())
    {
      const char *args[] = { "--config", "/dev/null", "serve", NULL };
      const char *env[] = { "GAMEGATE_PLUGIN_PATH", "NOTIFY_SOCKET", NULL };
      g_autoptr(GError) error = NULL;
      GgTestProcess *process = gg_test_process_spawn (args, env, &error);

      g_assert_no_error (error);
      name = g_strdup_printf ("gg-dies-with-test-%d", (int) getppid ());
      pid_file = g_build_filename (g_get_tmp_dir (), name, NULL);
      g_file_set_contents (pid_file, gg_test_process_get_pid (process), -1, &error);
      g_assert_no_error (error);
      abort ();
    }

  name = g_strdup_printf ("gg-dies-with-test-%d", (int) getpid ());
  pid_file = g_build_filename (g_get_tmp_dir (), name, NULL);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_assert_true (g_file_get_contents (pid_file, &text, NULL, NULL));
  g_unlink (pid_file);
  pid = atoi (text);
  g_assert_cmpint (pid, >, 0);

  deadline = g_get_monotonic_time () + gg_test_timeout_ms (5000) * (gint64) 1000;
  while (is_running (pid) && g_get_monotonic_time () < deadline)
    g_usleep (10000);
  if (is_running (pid))
    {
      kill (pid, SIGKILL);
      g_error ("gamegate %d outlived the test that spawned it", pid);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/daemon/sigterm", Fixture, GINT_TO_POINTER (FALSE), fixture_setup, test_sigterm,
              fixture_teardown);
  g_test_add ("/daemon/sigint", Fixture, GINT_TO_POINTER (FALSE), fixture_setup, test_sigint,
              fixture_teardown);
  g_test_add ("/daemon/abstract-notify-socket", Fixture, GINT_TO_POINTER (TRUE), fixture_setup,
              test_sigterm, fixture_teardown);
  g_test_add ("/daemon/without-notify-socket", Fixture, GINT_TO_POINTER (FALSE), fixture_setup,
              test_without_notify_socket, fixture_teardown);
  g_test_add ("/daemon/start-failure", Fixture, GINT_TO_POINTER (FALSE), fixture_setup,
              test_start_failure, fixture_teardown);
  g_test_add ("/daemon/no-frontends", Fixture, GINT_TO_POINTER (FALSE), fixture_setup,
              test_no_frontends, fixture_teardown);
  g_test_add_func ("/daemon/dies-with-failed-test", test_dies_with_failed_test);
  g_test_add ("/daemon/bad-notify-address", Fixture, GINT_TO_POINTER (FALSE), fixture_setup,
              test_bad_notify_address, fixture_teardown);

  return g_test_run ();
}
