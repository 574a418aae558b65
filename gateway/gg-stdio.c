/* gg-stdio.c: `gamegate <front end>`: one client on stdin/stdout.
 *
 * stdout carries protocol messages only. The front end gets its own
 * descriptor for the real stdout, and fd 1 is pointed at stderr, so that
 * nothing else in the process (a stray g_print(), a library) can corrupt
 * the protocol stream.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>
#include <glib/gi18n-lib.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "gg-host.h"

typedef struct {
  GgHost *host;
  GMainLoop *loop;
  GCancellable *cancellable;
  gboolean signalled;
  int status;
} StdioRun;

static void
print_to_stderr (const char *text)
{
  fputs (text, stderr);
}

static gboolean
on_signal (gpointer user_data)
{
  StdioRun *run = user_data;

  if (run->signalled)
    {
      /* The first signal asked the front end to finish; a second one is a
       * person who does not want to wait for it. */
      g_warning (_("Second termination signal: exiting without waiting for the session to end"));
      run->status = GG_EXIT_FAILURE;
      g_main_loop_quit (run->loop);
      return G_SOURCE_CONTINUE;
    }
  g_debug ("Termination signal: closing the stdio session");
  run->signalled = TRUE;
  g_cancellable_cancel (run->cancellable);
  return G_SOURCE_CONTINUE;
}

static void
on_bus_shutdown (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  StdioRun *run = user_data;
  g_autoptr(GError) error = NULL;

  if (!gg_bus_shutdown_finish (GG_BUS (source), result, &error))
    g_warning (_("Shutdown: %s"), error->message);
  g_main_loop_quit (run->loop);
}

static void
on_run_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  StdioRun *run = user_data;
  g_autoptr(GError) error = NULL;

  if (!gg_frontend_run_stdio_finish (GG_FRONTEND (source), result, &error))
    {
      /* Cancelled by SIGINT/SIGTERM is how a stdio session is told to end. */
      if (!(run->signalled && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)))
        {
          g_printerr ("%s: %s: %s\n", g_get_prgname (),
                      gg_frontend_get_name (GG_FRONTEND (source)), error->message);
          run->status = GG_EXIT_FAILURE;
        }
    }
  gg_bus_shutdown_async (run->host->bus, GG_HOST_SHUTDOWN_TIMEOUT_MS, on_bus_shutdown, run);
}

/* Moves the real stdout to a new descriptor and points fd 1 at stderr. */
static int
take_stdout (GError **error)
{
  int fd = fcntl (STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);

  if (fd < 0 || dup2 (STDERR_FILENO, STDOUT_FILENO) < 0)
    {
      int saved_errno = errno;

      if (fd >= 0)
        close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("Cannot set up stdout: %s"), g_strerror (saved_errno));
      return -1;
    }
  return fd;
}

/**
 * gg_stdio_run:
 * @host: the host, with its plugins loaded
 * @frontend: the front end named on the command line
 *
 * Serves one client on stdin/stdout until it is gone or a termination
 * signal arrives; a second signal exits without waiting for the front end.
 *
 * Returns: the exit status
 */
int
gg_stdio_run (GgHost     *host,
              GgFrontend *frontend)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  g_autoptr(GIOStream) stdio = NULL;
  StdioRun run = {
    .host = host,
    .status = GG_EXIT_OK,
  };
  guint sigint_id;
  guint sigterm_id;
  int out_fd;

  fflush (stdout);
  out_fd = take_stdout (&error);
  if (out_fd < 0)
    {
      g_printerr ("%s: %s\n", g_get_prgname (), error->message);
      return GG_EXIT_FAILURE;
    }
  g_set_print_handler (print_to_stderr);

  input = g_unix_input_stream_new (STDIN_FILENO, FALSE);
  output = g_unix_output_stream_new (out_fd, TRUE);
  stdio = g_simple_io_stream_new (input, output);

  run.loop = g_main_loop_new (NULL, FALSE);
  run.cancellable = g_cancellable_new ();
  sigint_id = g_unix_signal_add (SIGINT, on_signal, &run);
  sigterm_id = g_unix_signal_add (SIGTERM, on_signal, &run);

  g_debug ("Serving %s on stdio", gg_frontend_get_name (frontend));
  gg_frontend_run_stdio_async (frontend, stdio, run.cancellable, on_run_done, &run);
  g_main_loop_run (run.loop);

  if (!g_io_stream_close (stdio, NULL, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED))
    g_debug ("Closing stdio: %s", error->message);

  g_source_remove (sigint_id);
  g_source_remove (sigterm_id);
  g_object_unref (run.cancellable);
  g_main_loop_unref (run.loop);
  return run.status;
}
