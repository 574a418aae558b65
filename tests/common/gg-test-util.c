/* gg-test-util.c: spawning gamegate, reading its output with timeouts,
 * capturing expected log messages.
 *
 * A spawned gamegate runs with GLib criticals fatal, and is stopped with
 * SIGTERM so that it shuts down as a user's would and its leak checks
 * (LeakSanitizer, valgrind's) run. What it wrote on stderr fails the test
 * when it holds a report no test provokes on purpose: a critical, a
 * warning of a library (GLib, GIO, GObject, json-glib, libsoup: an API
 * misused), a sanitizer's or valgrind's report.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-test-util.h"

#include <glib/gstdio.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

guint
gg_test_timeout_ms (guint base_ms)
{
  const char *scale = g_getenv ("GAMEGATE_TEST_TIMEOUT_SCALE");
  const char *wrapper = g_getenv ("GAMEGATE_TEST_WRAPPER");
  double factor = 1.0;

  if (scale != NULL && g_ascii_strtod (scale, NULL) >= 1.0)
    factor = g_ascii_strtod (scale, NULL);
  else if (wrapper != NULL && *wrapper != '\0')
    factor = 20.0;  /* valgrind starts slowly and runs ~20x slower */
  return (guint) MIN (base_ms * factor, (double) G_MAXUINT / 2);
}

static gboolean
on_flag_timeout (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

gboolean
gg_test_wait_for (GgTestCheckFunc check,
                  gpointer        data,
                  guint           timeout_ms)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add (timeout_ms, on_flag_timeout, &timed_out);

  while (!check (data) && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (id);
  return check (data);
}

static gboolean
flag_is_set (gpointer data)
{
  return *(gboolean *) data;
}

gboolean
gg_test_wait_until (gboolean *done,
                    guint     timeout_ms)
{
  return gg_test_wait_for (flag_is_set, done, timeout_ms);
}

void
gg_test_spin (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, on_flag_timeout, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

GSocketConnection *
gg_test_connect_with_retry (guint16 port,
                            guint   timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (g_get_monotonic_time () < deadline)
    {
      g_autoptr(GSocketClient) client = g_socket_client_new ();
      GSocketConnection *connection =
        g_socket_client_connect_to_host (client, "127.0.0.1", port, NULL, NULL);

      if (connection != NULL)
        return connection;
      gg_test_spin (50);
    }
  return NULL;
}

typedef struct {
  gboolean done;
  GAsyncResult *result;
} AsyncWait;

static void
on_async_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  AsyncWait *wait = user_data;

  wait->result = g_object_ref (result);
  wait->done = TRUE;
}

/* Waits for an async call started with @cancellable; on timeout cancels it
 * and still waits for its callback, so nothing refers to freed memory. */
static gboolean
wait_async (AsyncWait    *wait,
            GCancellable *cancellable,
            guint         timeout_ms)
{
  if (gg_test_wait_until (&wait->done, timeout_ms))
    return TRUE;
  g_cancellable_cancel (cancellable);
  while (!wait->done)
    g_main_context_iteration (NULL, TRUE);
  return FALSE;
}

char *
gg_test_read_line (GDataInputStream *input,
                   guint             timeout_ms,
                   GError          **error)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) local_error = NULL;
  AsyncWait wait = { 0 };
  gboolean in_time;
  char *line;

  g_data_input_stream_read_line_async (input, G_PRIORITY_DEFAULT, cancellable,
                                       on_async_done, &wait);
  in_time = wait_async (&wait, cancellable, timeout_ms);
  line = g_data_input_stream_read_line_finish_utf8 (input, wait.result, NULL, &local_error);
  g_object_unref (wait.result);
  if (!in_time)
    {
      g_free (line);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                   "no line within %u ms", timeout_ms);
      return NULL;
    }
  if (local_error != NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return line;
}

/* ---- spawned gamegate ------------------------------------------------- */

struct _GgTestProcess {
  GSubprocess *subprocess;
  GOutputStream *stdin_pipe;
  GDataInputStream *stdout_data;
  GInputStream *stderr_pipe;
  GCancellable *stderr_cancellable;
  GString *stderr_text;
  gboolean stderr_done;
  gboolean exited;
  char *runtime_dir;      /* a private $XDG_RUNTIME_DIR, or NULL */
  char stderr_buffer[4096];
};

static gboolean
env_sets (const char * const *env,
          const char         *key)
{
  gsize key_len = strlen (key);

  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    if (strncmp (env[i], key, key_len) == 0 && (env[i][key_len] == '=' || env[i][key_len] == '\0'))
      return TRUE;
  return FALSE;
}

/* Removes a private runtime directory and whatever sockets the daemon left. */
static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static void read_stderr (GgTestProcess *process);

static void
on_stderr (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  GgTestProcess *process = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);

  if (n <= 0)
    {
      process->stderr_done = TRUE;
      return;
    }
  g_string_append_len (process->stderr_text, process->stderr_buffer, n);
  read_stderr (process);
}

static void
read_stderr (GgTestProcess *process)
{
  g_input_stream_read_async (process->stderr_pipe, process->stderr_buffer,
                             sizeof process->stderr_buffer, G_PRIORITY_DEFAULT,
                             process->stderr_cancellable, on_stderr, process);
}

/* A failed assertion aborts the test without running cleanups: the kernel
 * then takes the spawned gamegate down with it instead of leaving a daemon
 * running. */
static void
die_with_parent (gpointer user_data)
{
#ifdef __linux__
  prctl (PR_SET_PDEATHSIG, SIGKILL);
#endif
}

/**
 * gg_test_process_spawn:
 * @args: arguments after the program name
 * @env: (nullable): "KEY=VALUE" to set, "KEY" to unset, on top of ours
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the running process
 */
GgTestProcess *
gg_test_process_spawn (const char * const *args,
                       const char * const *env,
                       GError            **error)
{
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                               G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) wrapper = NULL;
  const char *wrapper_text = g_getenv ("GAMEGATE_TEST_WRAPPER");
  const char *bin = g_getenv ("GAMEGATE_BIN");
  GgTestProcess *process;
  GSubprocess *subprocess;

  /* A child that exits early must fail a write, not kill the test. */
  signal (SIGPIPE, SIG_IGN);

  if (wrapper_text != NULL && *wrapper_text != '\0' &&
      !g_shell_parse_argv (wrapper_text, NULL, &wrapper, error))
    return NULL;
  for (guint i = 0; wrapper != NULL && wrapper[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (wrapper[i]));
  g_ptr_array_add (argv, g_strdup (bin != NULL ? bin : GG_TOP_BUILDDIR "/gateway/gamegate"));
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (args[i]));
  g_ptr_array_add (argv, NULL);

  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    {
      const char *eq = strchr (env[i], '=');

      if (eq == NULL)
        g_subprocess_launcher_unsetenv (launcher, env[i]);
      else
        {
          g_autofree char *key = g_strndup (env[i], eq - env[i]);

          g_subprocess_launcher_setenv (launcher, key, eq + 1, TRUE);
        }
    }

  /* A critical is a bug (a freed JsonNode read, a GObject misused): the
   * daemon stops at once, as the test program itself would. */
  if (!env_sets (env, "G_DEBUG"))
    {
      const char *inherited = g_getenv ("G_DEBUG");
      g_autofree char *debug = inherited != NULL && *inherited != '\0' ?
                               g_strconcat (inherited, ",fatal-criticals", NULL) :
                               g_strdup ("fatal-criticals");

      g_subprocess_launcher_setenv (launcher, "G_DEBUG", debug, TRUE);
    }

  /* Daemons started by tests running in parallel must not meet on the same
   * Unix socket: each gets its own runtime directory unless the test says. */
  g_autofree char *runtime_dir = NULL;
  if (!env_sets (env, "XDG_RUNTIME_DIR"))
    {
      runtime_dir = g_dir_make_tmp ("gg-test-run-XXXXXX", error);
      if (runtime_dir == NULL)
        return NULL;
      g_subprocess_launcher_setenv (launcher, "XDG_RUNTIME_DIR", runtime_dir, TRUE);
    }

  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  subprocess = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, error);
  if (subprocess == NULL)
    {
      if (runtime_dir != NULL)
        remove_tree (runtime_dir);
      return NULL;
    }

  process = g_new0 (GgTestProcess, 1);
  process->runtime_dir = g_steal_pointer (&runtime_dir);
  process->subprocess = subprocess;
  process->stdin_pipe = g_object_ref (g_subprocess_get_stdin_pipe (subprocess));
  process->stdout_data = g_data_input_stream_new (g_subprocess_get_stdout_pipe (subprocess));
  g_data_input_stream_set_newline_type (process->stdout_data, G_DATA_STREAM_NEWLINE_TYPE_LF);
  process->stderr_pipe = g_object_ref (g_subprocess_get_stderr_pipe (subprocess));
  process->stderr_cancellable = g_cancellable_new ();
  process->stderr_text = g_string_new (NULL);
  read_stderr (process);
  return process;
}

gboolean
gg_test_process_write_line (GgTestProcess *process,
                            const char    *line,
                            GError       **error)
{
  g_autofree char *framed = g_strconcat (line, "\n", NULL);

  return g_output_stream_write_all (process->stdin_pipe, framed, strlen (framed), NULL, NULL, error) &&
         g_output_stream_flush (process->stdin_pipe, NULL, error);
}

void
gg_test_process_close_stdin (GgTestProcess *process)
{
  g_output_stream_close (process->stdin_pipe, NULL, NULL);
}

char *
gg_test_process_read_line (GgTestProcess *process,
                           guint          timeout_ms,
                           GError       **error)
{
  return gg_test_read_line (process->stdout_data, timeout_ms, error);
}

/**
 * gg_test_process_read_stdout:
 * @process: a process
 * @timeout_ms: how long to wait for the end of its output
 *
 * Returns: (transfer full): everything written to stdout until it closed
 *   (or the time ran out)
 */
char *
gg_test_process_read_stdout (GgTestProcess *process,
                             guint          timeout_ms)
{
  g_autoptr(GString) text = g_string_new (NULL);
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  char buffer[4096];

  for (;;)
    {
      g_autoptr(GCancellable) cancellable = g_cancellable_new ();
      AsyncWait wait = { 0 };
      gint64 left = (deadline - g_get_monotonic_time ()) / 1000;
      gboolean in_time;
      gssize n;

      if (left <= 0)
        break;
      g_input_stream_read_async (G_INPUT_STREAM (process->stdout_data), buffer, sizeof buffer,
                                 G_PRIORITY_DEFAULT, cancellable, on_async_done, &wait);
      in_time = wait_async (&wait, cancellable, (guint) left);
      n = g_input_stream_read_finish (G_INPUT_STREAM (process->stdout_data), wait.result, NULL);
      g_object_unref (wait.result);
      if (!in_time || n <= 0)
        break;
      g_string_append_len (text, buffer, n);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

void
gg_test_process_send_signal (GgTestProcess *process,
                             int            signum)
{
  g_subprocess_send_signal (process->subprocess, signum);
}

/**
 * gg_test_process_get_pid:
 * @process: a process
 *
 * Returns: (transfer none) (nullable): its pid as text, %NULL once it exited
 */
const char *
gg_test_process_get_pid (GgTestProcess *process)
{
  return g_subprocess_get_identifier (process->subprocess);
}

/**
 * gg_test_process_wait:
 * @process: a process
 * @timeout_ms: how long to wait
 * @exit_status: (out) (optional): the exit status, or 128 + the signal
 *
 * Waits for the process to exit; stderr is drained to its end.
 *
 * Returns: %FALSE if it did not exit in time
 */
gboolean
gg_test_process_wait (GgTestProcess *process,
                      guint          timeout_ms,
                      int           *exit_status)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  AsyncWait wait = { 0 };
  gboolean in_time;

  g_subprocess_wait_async (process->subprocess, cancellable, on_async_done, &wait);
  in_time = wait_async (&wait, cancellable, timeout_ms);
  g_object_unref (wait.result);
  if (!in_time)
    return FALSE;

  process->exited = TRUE;
  /* The pipe may outlive the process by a grandchild; do not wait forever. */
  gg_test_wait_until (&process->stderr_done, gg_test_timeout_ms (2000));
  if (exit_status != NULL)
    {
      if (g_subprocess_get_if_exited (process->subprocess))
        *exit_status = g_subprocess_get_exit_status (process->subprocess);
      else
        *exit_status = 128 + g_subprocess_get_term_sig (process->subprocess);
    }
  return TRUE;
}

const char *
gg_test_process_get_stderr (GgTestProcess *process)
{
  return process->stderr_text->str;
}

/* How many times @needle occurs in what the process wrote on stderr. */
guint
gg_test_process_count_in_stderr (GgTestProcess *process,
                                 const char    *needle)
{
  guint count = 0;

  for (const char *p = strstr (process->stderr_text->str, needle); p != NULL;
       p = strstr (p + strlen (needle), needle))
    count++;
  return count;
}

/**
 * gg_test_find_report:
 * @text: what a gamegate process wrote on stderr
 *
 * Finds what no test provokes on purpose: a GLib critical or error, a
 * warning of a domain other than gamegate's own (those tell an operator
 * about bad input, and tests provoke them), an AddressSanitizer,
 * LeakSanitizer or UndefinedBehaviorSanitizer report, a valgrind error.
 *
 * Returns: (transfer full) (nullable): the first line of the first
 *   report, or %NULL when there is none
 */
char *
gg_test_find_report (const char *text)
{
  static GRegex *report;
  g_autoptr(GMatchInfo) match = NULL;

  if (report == NULL)
    report = g_regex_new ("^.*(?:"
                          /* (gamegate:123): Json-CRITICAL **: ... ; ** (gamegate:123): WARNING **: ... */
                          "\\(\\S+:\\d+\\): (?:(?!gamegate)[\\w.-]+-)?(?:CRITICAL|ERROR) \\*\\*|"
                          "\\(\\S+:\\d+\\): (?:(?!gamegate)[\\w.-]+-)?WARNING \\*\\*|"
                          "ERROR: (?:Address|Leak|Memory|Thread)Sanitizer|"
                          "\\bruntime error: |"
                          "^==\\d+== (?:Invalid |Conditional jump|Use of uninitialised|Syscall param|"
                          "Mismatched free|Source and destination overlap|Argument '|\\S+ bytes in \\S+ blocks are "
                          "(?:definitely|indirectly) lost|Process terminating)"
                          ").*$",
                          G_REGEX_MULTILINE | G_REGEX_OPTIMIZE, 0, NULL);
  if (!g_regex_match (report, text, 0, &match))
    return NULL;
  return g_match_info_fetch (match, 0);
}

void
gg_test_process_free (GgTestProcess *process)
{
  g_autofree char *report = NULL;

  if (process == NULL)
    return;
  /* Stopped as a user stops it, so that its exit-time checks run. */
  if (!process->exited)
    {
      g_subprocess_send_signal (process->subprocess, SIGTERM);
      if (!gg_test_process_wait (process, gg_test_timeout_ms (5000), NULL))
        {
          g_subprocess_force_exit (process->subprocess);
          g_subprocess_wait (process->subprocess, NULL, NULL);
        }
    }
  g_cancellable_cancel (process->stderr_cancellable);
  while (!process->stderr_done)
    g_main_context_iteration (NULL, TRUE);
  if (process->stderr_text->len > 0)
    g_test_message ("gamegate stderr:\n%s", process->stderr_text->str);
  report = gg_test_find_report (process->stderr_text->str);
  if (report != NULL && g_test_initialized ())
    g_test_fail_printf ("gamegate reported on stderr: %s", report);
  else if (report != NULL)
    g_error ("gamegate reported on stderr: %s\n%s", report, process->stderr_text->str);

  g_object_unref (process->stdin_pipe);
  g_object_unref (process->stdout_data);
  g_object_unref (process->stderr_pipe);
  g_object_unref (process->stderr_cancellable);
  g_object_unref (process->subprocess);
  g_string_free (process->stderr_text, TRUE);
  if (process->runtime_dir != NULL)
    remove_tree (process->runtime_dir);
  g_free (process->runtime_dir);
  g_free (process);
}

int
gg_test_run (const char * const *args,
             const char * const *env,
             const char         *input,
             char              **out_stdout,
             char              **out_stderr)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgTestProcess) process = gg_test_process_spawn (args, env, &error);
  g_autofree char *output = NULL;
  int status = -1;

  g_assert_no_error (error);
  if (input != NULL)
    {
      /* gamegate may exit (on a usage error) without reading its input. */
      if (!g_output_stream_write_all (process->stdin_pipe, input, strlen (input), NULL, NULL, &error))
        g_test_message ("writing stdin: %s", error->message);
    }
  gg_test_process_close_stdin (process);
  output = gg_test_process_read_stdout (process, gg_test_timeout_ms (20000));
  if (!gg_test_process_wait (process, gg_test_timeout_ms (20000), &status))
    g_error ("gamegate did not exit in time; stderr:\n%s", gg_test_process_get_stderr (process));
  if (out_stdout != NULL)
    *out_stdout = g_steal_pointer (&output);
  if (out_stderr != NULL)
    *out_stderr = g_strdup (gg_test_process_get_stderr (process));
  return status;
}

/* ---- log capture ------------------------------------------------------ */

struct _GgTestLogCapture {
  char *domain;
  GLogLevelFlags level;
  GPatternSpec *pattern;
  guint handler_id;
  guint count;
};

/* GTest's fatal handler is process-wide, so one capture at a time. */
static GgTestLogCapture *active_capture;

static gboolean
capture_matches (GgTestLogCapture *capture,
                 const char       *domain,
                 GLogLevelFlags    level,
                 const char       *message)
{
  return g_strcmp0 (domain, capture->domain) == 0 && (level & capture->level) != 0 &&
         g_pattern_spec_match_string (capture->pattern, message);
}

static void
capture_handler (const char     *domain,
                 GLogLevelFlags  level,
                 const char     *message,
                 gpointer        user_data)
{
  GgTestLogCapture *capture = user_data;

  if (capture_matches (capture, domain, level, message))
    {
      capture->count++;
      g_test_message ("captured: %s", message);
      return;
    }
  g_log_default_handler (domain, level, message, NULL);
}

static gboolean
capture_fatal_handler (const char     *domain,
                       GLogLevelFlags  level,
                       const char     *message,
                       gpointer        user_data)
{
  return active_capture == NULL || !capture_matches (active_capture, domain, level, message);
}

/**
 * gg_test_log_capture_new:
 * @domain: the log domain
 * @level: the level(s) to capture, e.g. %G_LOG_LEVEL_WARNING
 * @pattern: a glob for the message
 *
 * Returns: (transfer full): a capture, active until freed
 */
GgTestLogCapture *
gg_test_log_capture_new (const char     *domain,
                         GLogLevelFlags  level,
                         const char     *pattern)
{
  GgTestLogCapture *capture = g_new0 (GgTestLogCapture, 1);

  g_assert_null (active_capture);
  capture->domain = g_strdup (domain);
  capture->level = level;
  capture->pattern = g_pattern_spec_new (pattern);
  capture->handler_id = g_log_set_handler (domain, level | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION,
                                           capture_handler, capture);
  active_capture = capture;
  g_test_log_set_fatal_handler (capture_fatal_handler, NULL);
  return capture;
}

guint
gg_test_log_capture_count (GgTestLogCapture *capture)
{
  return capture->count;
}

void
gg_test_log_capture_free (GgTestLogCapture *capture)
{
  if (capture == NULL)
    return;
  g_log_remove_handler (capture->domain, capture->handler_id);
  g_test_log_set_fatal_handler (NULL, NULL);
  active_capture = NULL;
  g_pattern_spec_free (capture->pattern);
  g_free (capture->domain);
  g_free (capture);
}
