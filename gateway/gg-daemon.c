/* gg-daemon.c: `gamegate serve`: every front end on its socket until
 * SIGINT or SIGTERM, then an orderly shutdown.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib-unix.h>
#include <glib/gi18n-lib.h>
#include <signal.h>

#include "gg-host.h"
#include "gg-sd-notify.h"
#include "gg-tap-server.h"

/* Front ends get this long to stop before their work is cancelled, and the
 * whole shutdown this long before the process gives up waiting. */
#define STOP_CANCEL_AFTER_MS 5000
#define STOP_GIVE_UP_AFTER_MS (STOP_CANCEL_AFTER_MS + GG_HOST_SHUTDOWN_TIMEOUT_MS + 2000)

typedef struct {
  GgHost *host;
  GMainLoop *loop;
  GPtrArray *started;          /* GgFrontend listening */
  GCancellable *stop_cancellable;
  GgTapServer *tap;            /* nullable */
  guint sigint_id;
  guint sigterm_id;
  guint cancel_timeout_id;
  guint give_up_timeout_id;
  guint pending_stops;
  gboolean stopping;
  int status;
} Daemon;

static void
notify (Daemon     *daemon,
        const char *state)
{
  g_autoptr(GError) error = NULL;

  if (!gg_sd_notify_send (daemon->host->notify_socket, state, &error))
    g_warning ("%s", error->message);
}

static void
on_tap_drained (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Daemon *daemon = user_data;

  gg_tap_server_drain_finish (result, NULL);
  g_debug ("Shutdown complete");
  g_main_loop_quit (daemon->loop);
}

static void
on_bus_shutdown (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Daemon *daemon = user_data;
  g_autoptr(GError) error = NULL;

  if (!gg_bus_shutdown_finish (GG_BUS (source), result, &error))
    g_warning (_("Shutdown: %s"), error->message);
  /* The bus is quiet now: the tap's readers get its last records. */
  if (daemon->tap != NULL)
    {
      gg_tap_server_drain_async (daemon->tap, daemon->host->tap_drain_timeout_ms, on_tap_drained, daemon);
      return;
    }
  g_debug ("Shutdown complete");
  g_main_loop_quit (daemon->loop);
}

static void
stop_done (Daemon *daemon)
{
  if (--daemon->pending_stops > 0)
    return;
  g_clear_handle_id (&daemon->cancel_timeout_id, g_source_remove);
  g_debug ("Front ends stopped; shutting the bus down");
  gg_bus_shutdown_async (daemon->host->bus, GG_HOST_SHUTDOWN_TIMEOUT_MS, on_bus_shutdown, daemon);
}

static void
on_frontend_stopped (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Daemon *daemon = user_data;
  g_autoptr(GError) error = NULL;

  if (!gg_frontend_stop_finish (GG_FRONTEND (source), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_warning (_("Stopping front end %s: %s"),
               gg_frontend_get_name (GG_FRONTEND (source)), error->message);
  stop_done (daemon);
}

static gboolean
on_cancel_timeout (gpointer user_data)
{
  Daemon *daemon = user_data;

  daemon->cancel_timeout_id = 0;
  g_warning (_("Front ends did not stop within %d ms; cancelling their work"),
             STOP_CANCEL_AFTER_MS);
  g_cancellable_cancel (daemon->stop_cancellable);
  return G_SOURCE_REMOVE;
}

static gboolean
on_give_up_timeout (gpointer user_data)
{
  Daemon *daemon = user_data;

  daemon->give_up_timeout_id = 0;
  g_warning (_("Shutdown did not finish within %d ms; exiting anyway"), STOP_GIVE_UP_AFTER_MS);
  daemon->status = GG_EXIT_FAILURE;
  g_main_loop_quit (daemon->loop);
  return G_SOURCE_REMOVE;
}

static void
begin_shutdown (Daemon *daemon)
{
  if (daemon->stopping)
    {
      g_message (_("Already shutting down"));
      return;
    }
  daemon->stopping = TRUE;
  notify (daemon, "STOPPING=1");

  daemon->cancel_timeout_id = g_timeout_add (STOP_CANCEL_AFTER_MS, on_cancel_timeout, daemon);
  daemon->give_up_timeout_id = g_timeout_add (STOP_GIVE_UP_AFTER_MS, on_give_up_timeout, daemon);

  /* One extra count so that front ends stopping synchronously cannot
   * finish the shutdown before every stop has been requested. */
  daemon->pending_stops = daemon->started->len + 1;
  for (guint i = 0; i < daemon->started->len; i++)
    gg_frontend_stop_async (g_ptr_array_index (daemon->started, i),
                            daemon->stop_cancellable, on_frontend_stopped, daemon);
  stop_done (daemon);
}

static gboolean
on_signal (gpointer user_data)
{
  Daemon *daemon = user_data;

  g_message (_("Received a termination signal; shutting down"));
  begin_shutdown (daemon);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_start_failed (gpointer user_data)
{
  begin_shutdown (user_data);
  return G_SOURCE_REMOVE;
}

/**
 * gg_daemon_run:
 * @host: the host, with its plugins loaded
 *
 * Starts every front end, tells the service manager it is ready, and runs
 * until a termination signal has been handled.
 *
 * Returns: the exit status
 */
int
gg_daemon_run (GgHost *host)
{
  g_autoptr(GPtrArray) frontends = gg_bus_list_frontends (host->bus);
  Daemon daemon = {
    .host = host,
    .loop = g_main_loop_new (NULL, FALSE),
    .started = g_ptr_array_new_with_free_func (g_object_unref),
    .stop_cancellable = g_cancellable_new (),
    .status = GG_EXIT_OK,
  };

  daemon.sigint_id = g_unix_signal_add (SIGINT, on_signal, &daemon);
  daemon.sigterm_id = g_unix_signal_add (SIGTERM, on_signal, &daemon);

  for (guint i = 0; i < frontends->len; i++)
    {
      GgFrontend *frontend = g_ptr_array_index (frontends, i);
      g_autoptr(GError) error = NULL;

      if (!gg_frontend_start_daemon (frontend, &error))
        {
          /* A daemon missing one of its sockets is broken: say so and let
           * the service manager restart it, rather than limp on. */
          g_printerr (_("%s: cannot start front end %s: %s\n"), g_get_prgname (),
                      gg_frontend_get_name (frontend), error->message);
          daemon.status = GG_EXIT_FAILURE;
          break;
        }
      g_debug ("Front end %s started", gg_frontend_get_name (frontend));
      g_ptr_array_add (daemon.started, g_object_ref (frontend));
    }

  if (daemon.status == GG_EXIT_OK)
    {
      g_autofree char *tap_path = host->tap_socket != NULL ? g_strdup (host->tap_socket)
                                                           : gg_tap_default_socket_path ();
      g_autoptr(GError) error = NULL;

      /* The tap is for watching: a daemon without it still serves. */
      if (*tap_path != '\0' && (daemon.tap = gg_tap_server_new (host->bus, tap_path, &error)) == NULL)
        g_warning (_("tap: %s"), error->message);
    }

  if (daemon.status == GG_EXIT_OK)
    {
      g_autofree char *status = g_strdup_printf ("READY=1\nSTATUS=%u front end(s) running",
                                                 daemon.started->len);

      notify (&daemon, status);
      g_message (_("gamegate %s ready with %u front end(s)"), PACKAGE_VERSION, daemon.started->len);
      /* Running is still right (a service manager would only restart it),
       * but the person reading the journal should learn why nothing answers. */
      if (daemon.started->len == 0)
        g_warning (_("No front end is loaded, so there is nothing to serve; "
                     "run “%s plugins” to see what was found"), g_get_prgname ());
    }
  else
    g_idle_add (on_start_failed, &daemon);

  g_main_loop_run (daemon.loop);
  gg_tap_server_free (daemon.tap);

  g_clear_handle_id (&daemon.sigint_id, g_source_remove);
  g_clear_handle_id (&daemon.sigterm_id, g_source_remove);
  g_clear_handle_id (&daemon.cancel_timeout_id, g_source_remove);
  g_clear_handle_id (&daemon.give_up_timeout_id, g_source_remove);
  g_ptr_array_unref (daemon.started);
  g_object_unref (daemon.stop_cancellable);
  g_main_loop_unref (daemon.loop);
  return daemon.status;
}
