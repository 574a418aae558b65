/* gg-a2g-frontend.c: the a2g plugin's GgFrontend.
 *
 * `gamegate a2g [--listen HOST:PORT]` runs the decision service alone in
 * the foreground: once listening it prints one line on stdout,
 * `a2g: listening on http://127.0.0.1:PORT`, and nothing else there; it
 * ends on SIGINT/SIGTERM (exit 0) after the requests in progress were
 * answered. In `gamegate serve` the service listens on [a2g] listen.
 * The service is made when it starts, once every plugin has registered
 * its model types.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "gg-a2g-frontend.h"
#include "gg-a2g-service.h"

#define STOP_WAIT_MS 5000
#define FLUSH_WAIT_MS 300
#define COUNTS_WAIT_MS 2000

struct _GgA2gFrontend
{
  GObject parent_instance;

  GgBus *bus;                /* borrowed */
  GgA2gSettings settings;    /* handed to the service when it starts */
  char *listen_option;
  GOptionEntry *entries;
  GgA2gService *service;
  GTask *run_task;
  GCancellable *run_cancellable;
  gulong cancel_id;
};

static void gg_a2g_frontend_iface_init (GgFrontendInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GgA2gFrontend, gg_a2g_frontend, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_FRONTEND, gg_a2g_frontend_iface_init))

static void
gg_a2g_frontend_finalize (GObject *object)
{
  GgA2gFrontend *self = GG_A2G_FRONTEND (object);

  if (self->cancel_id != 0)
    g_cancellable_disconnect (self->run_cancellable, self->cancel_id);
  g_clear_object (&self->run_cancellable);
  g_clear_object (&self->run_task);
  g_clear_pointer (&self->service, gg_a2g_service_free);
  gg_a2g_settings_clear (&self->settings);
  g_free (self->listen_option);
  g_free (self->entries);
  G_OBJECT_CLASS (gg_a2g_frontend_parent_class)->finalize (object);
}

static void
gg_a2g_frontend_class_init (GgA2gFrontendClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_a2g_frontend_finalize;
}

static void
gg_a2g_frontend_init (GgA2gFrontend *self)
{
}

/**
 * gg_a2g_frontend_new:
 * @bus: the bus
 * @settings: (transfer full): the [a2g] settings, moved into the front end
 *
 * Returns: (transfer full): the front end
 */
GgA2gFrontend *
gg_a2g_frontend_new (GgBus         *bus,
                     GgA2gSettings *settings)
{
  GgA2gFrontend *self = g_object_new (GG_A2G_TYPE_FRONTEND, NULL);

  self->bus = bus;
  self->settings = *settings;
  memset (settings, 0, sizeof *settings);
  return self;
}

static const char *
frontend_get_name (GgFrontend *frontend)
{
  return "a2g";
}

static const char *
frontend_get_summary (GgFrontend *frontend)
{
  return _("Run the A2G decision service for games in the foreground");
}

static GOptionGroup *
frontend_get_option_group (GgFrontend *frontend)
{
  GgA2gFrontend *self = GG_A2G_FRONTEND (frontend);
  GOptionGroup *group = g_option_group_new ("a2g", _("Options of gamegate a2g:"), _("Show the A2G options"),
                                            NULL, NULL);

  if (self->entries == NULL)
    {
      self->entries = g_new0 (GOptionEntry, 2);
      self->entries[0] = (GOptionEntry) { "listen", 0, 0, G_OPTION_ARG_STRING, &self->listen_option,
                                          N_("Listen on HOST:PORT (loopback; port 0: any free port)"),
                                          N_("HOST:PORT") };
    }
  g_option_group_add_entries (group, self->entries);
  g_option_group_set_translation_domain (group, GETTEXT_PACKAGE);
  return group;
}

static gboolean
start_service (GgA2gFrontend  *self,
               GError        **error)
{
  if (self->service != NULL)
    return TRUE;
  if (self->listen_option != NULL && !gg_a2g_settings_set_listen (&self->settings, self->listen_option, error))
    return FALSE;
  self->service = gg_a2g_service_new (self->bus, &self->settings, error);
  if (self->service == NULL)
    return FALSE;
  if (!gg_a2g_service_listen (self->service, error))
    {
      g_clear_pointer (&self->service, gg_a2g_service_free);
      return FALSE;
    }
  return TRUE;
}

static char *
service_url (GgA2gFrontend *self)
{
  const char *host = self->service->settings.listen_host;
  const char *scheme = gg_a2g_access_get_certificate (self->service->settings.access) != NULL ? "https" : "http";

  if (strchr (host, ':') != NULL)
    return g_strdup_printf ("%s://[%s]:%u", scheme, host, self->service->port);
  return g_strdup_printf ("%s://%s:%u", scheme, host, self->service->port);
}

/* ---- stopping -------------------------------------------------------------- */

typedef struct {
  GgA2gFrontend *self;
  gint64 deadline_us;
  gboolean flushing;         /* the late ones were answered 503 */
  gboolean counted;          /* the last counts were sent to the store */
} Stop;

static gboolean
stop_poll (gpointer user_data)
{
  GTask *task = user_data;
  GgA2gFrontend *self = g_task_get_source_object (task);
  Stop *stop = g_task_get_task_data (task);

  /* Answers given while closing still have to reach their clients. */
  if (self->service != NULL &&
      (g_hash_table_size (self->service->live) > 0 || self->service->writing > 0) &&
      g_get_monotonic_time () < stop->deadline_us)
    return G_SOURCE_CONTINUE;
  if (self->service != NULL && g_hash_table_size (self->service->live) > 0 && !stop->flushing)
    {
      /* Still running: answered 503 now, and a moment to write that. */
      gg_a2g_service_answer_unavailable (self->service);
      stop->flushing = TRUE;
      stop->deadline_us = g_get_monotonic_time () + FLUSH_WAIT_MS * 1000;
      return G_SOURCE_CONTINUE;
    }
  if (self->service != NULL && !stop->counted)
    {
      /* Every decision is counted now: the service's counters get this
       * replica's last ones (the store's own timeout bounds the wait). */
      stop->counted = TRUE;
      gg_a2g_stats_flush_async (self->service->stats, NULL, NULL);
      stop->deadline_us = g_get_monotonic_time () + COUNTS_WAIT_MS * 1000;
    }
  if (self->service != NULL && gg_a2g_stats_flushing (self->service->stats) > 0 &&
      g_get_monotonic_time () < stop->deadline_us)
    return G_SOURCE_CONTINUE;
  g_clear_pointer (&self->service, gg_a2g_service_free);
  g_task_return_boolean (task, TRUE);
  return G_SOURCE_REMOVE;
}

static void
stop_service (GgA2gFrontend *self,
              GTask         *task)
{
  Stop *stop = g_new0 (Stop, 1);

  stop->self = self;
  stop->deadline_us = g_get_monotonic_time () + STOP_WAIT_MS * 1000;
  g_task_set_task_data (task, stop, g_free);
  if (self->service != NULL)
    gg_a2g_service_close (self->service);
  g_timeout_add_full (G_PRIORITY_DEFAULT, 10, stop_poll, task, g_object_unref);
}

/* ---- stdio: the service alone ---------------------------------------------- */

static void
on_run_stopped (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  GgA2gFrontend *self = GG_A2G_FRONTEND (source);
  g_autoptr(GTask) task = g_steal_pointer (&self->run_task);

  if (task != NULL)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");
}

static gboolean
on_cancelled_idle (gpointer user_data)
{
  GgA2gFrontend *self = user_data;

  stop_service (self, g_task_new (self, NULL, on_run_stopped, NULL));
  return G_SOURCE_REMOVE;
}

static void
on_run_cancelled (GCancellable *cancellable,
                  gpointer      user_data)
{
  /* From an idle: the cancellable's lock is held here. */
  g_idle_add_full (G_PRIORITY_DEFAULT, on_cancelled_idle, g_object_ref (user_data), g_object_unref);
}

static void
frontend_run_stdio_async (GgFrontend          *frontend,
                          GIOStream           *stdio,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  GgA2gFrontend *self = GG_A2G_FRONTEND (frontend);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autofree char *line = NULL;
  GOutputStream *out = g_io_stream_get_output_stream (stdio);

  g_task_set_check_cancellable (task, FALSE);
  if (self->run_task != NULL || !start_service (self, &error))
    {
      if (error == NULL)
        error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_BUSY, "The A2G service is already running");
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  url = service_url (self);
  line = g_strdup_printf ("a2g: listening on %s\n", url);
  if (!g_output_stream_write_all (out, line, strlen (line), NULL, NULL, &error) ||
      !g_output_stream_flush (out, NULL, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  self->run_task = g_steal_pointer (&task);
  if (cancellable != NULL)
    {
      self->run_cancellable = g_object_ref (cancellable);
      self->cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (on_run_cancelled), self, NULL);
    }
}

/* ---- daemon ---------------------------------------------------------------- */

static gboolean
frontend_start_daemon (GgFrontend  *frontend,
                       GError     **error)
{
  GgA2gFrontend *self = GG_A2G_FRONTEND (frontend);
  g_autofree char *url = NULL;

  if (!start_service (self, error))
    return FALSE;
  url = service_url (self);
  g_message (_("A2G decision service on %s"), url);
  return TRUE;
}

static void
frontend_stop_async (GgFrontend          *frontend,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  GgA2gFrontend *self = GG_A2G_FRONTEND (frontend);

  stop_service (self, g_task_new (self, cancellable, callback, user_data));
}

static void
gg_a2g_frontend_iface_init (GgFrontendInterface *iface)
{
  iface->get_name = frontend_get_name;
  iface->get_summary = frontend_get_summary;
  iface->get_option_group = frontend_get_option_group;
  iface->run_stdio_async = frontend_run_stdio_async;
  iface->start_daemon = frontend_start_daemon;
  iface->stop_async = frontend_stop_async;
}
