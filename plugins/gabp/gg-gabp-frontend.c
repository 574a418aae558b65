/* gg-gabp-frontend.c: the GgFrontend of the gabp plugin.
 *
 * `gamegate gabp` serves one GABP bridge on stdin/stdout (GABP's stdio
 * transport: the bridge launched gamegate as if it were a mod). The daemon
 * listens on 127.0.0.1 unless the configuration turned the server off.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "gg-gabp-frontend.h"

struct _GgGabpFrontend
{
  GObject parent_instance;

  GgGabpServer *server;
  gboolean      listen;
};

static void gg_gabp_frontend_iface_init (GgFrontendInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GgGabpFrontend, gg_gabp_frontend, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_FRONTEND, gg_gabp_frontend_iface_init))

static void
gg_gabp_frontend_dispose (GObject *object)
{
  GgGabpFrontend *self = GG_GABP_FRONTEND (object);

  g_clear_object (&self->server);
  G_OBJECT_CLASS (gg_gabp_frontend_parent_class)->dispose (object);
}

static void
gg_gabp_frontend_class_init (GgGabpFrontendClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = gg_gabp_frontend_dispose;
}

static void
gg_gabp_frontend_init (GgGabpFrontend *self)
{
}

/**
 * gg_gabp_frontend_new:
 * @server: the server
 * @listen: whether the daemon listens on TCP
 *
 * Returns: (transfer full): the front end
 */
GgGabpFrontend *
gg_gabp_frontend_new (GgGabpServer *server,
                      gboolean      listen)
{
  GgGabpFrontend *self = g_object_new (GG_TYPE_GABP_FRONTEND, NULL);

  self->server = g_object_ref (server);
  self->listen = listen;
  return self;
}

/** gg_gabp_frontend_get_server: Returns: (transfer none): the server. */
GgGabpServer *
gg_gabp_frontend_get_server (GgGabpFrontend *self)
{
  return self->server;
}

static const char *
frontend_get_name (GgFrontend *frontend)
{
  return "gabp";
}

static const char *
frontend_get_summary (GgFrontend *frontend)
{
  return _("Offer every game on the bus to one GABP bridge on stdin/stdout");
}

typedef struct {
  GgGabpSession *session;
  gulong         closed_id;
  gulong         cancel_id;
  GCancellable  *cancellable;
} StdioData;

static void
stdio_data_free (StdioData *data)
{
  g_clear_signal_handler (&data->closed_id, data->session);
  if (data->cancel_id != 0)
    g_cancellable_disconnect (data->cancellable, data->cancel_id);
  g_clear_object (&data->cancellable);
  g_clear_object (&data->session);
  g_free (data);
}

static void
on_stdio_closed (GgGabpSession *session,
                 GTask         *task)
{
  StdioData *data = g_task_get_task_data (task);

  g_clear_signal_handler (&data->closed_id, data->session);
  g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

static gboolean
close_in_idle (gpointer user_data)
{
  GgGabpSession *session = user_data;

  gg_gabp_session_close (session);
  g_object_unref (session);
  return G_SOURCE_REMOVE;
}

static void
on_stdio_cancelled (GCancellable  *cancellable,
                    GgGabpSession *session)
{
  g_idle_add (close_in_idle, g_object_ref (session));
}

static void
frontend_run_stdio_async (GgFrontend          *frontend,
                          GIOStream           *stdio,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  GgGabpFrontend *self = GG_GABP_FRONTEND (frontend);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;
  StdioData *data;

  /* Cancelling is the normal way to end (SIGTERM): not an error. */
  g_task_set_check_cancellable (task, FALSE);

  if (!gg_gabp_server_prepare_stdio (self->server, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  data = g_new0 (StdioData, 1);
  data->session = g_object_ref (gg_gabp_server_serve_stream (self->server, stdio));
  g_task_set_task_data (task, data, (GDestroyNotify) stdio_data_free);
  data->closed_id = g_signal_connect (data->session, "closed", G_CALLBACK (on_stdio_closed), task);
  if (cancellable != NULL)
    {
      data->cancellable = g_object_ref (cancellable);
      data->cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (on_stdio_cancelled),
                                               data->session, NULL);
    }
}

static gboolean
frontend_start_daemon (GgFrontend  *frontend,
                       GError     **error)
{
  GgGabpFrontend *self = GG_GABP_FRONTEND (frontend);

  if (!self->listen)
    return TRUE;
  return gg_gabp_server_start (self->server, error);
}

static void
frontend_stop_async (GgFrontend          *frontend,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  GgGabpFrontend *self = GG_GABP_FRONTEND (frontend);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  gg_gabp_server_stop (self->server);
  g_task_return_boolean (task, TRUE);
}

static void
gg_gabp_frontend_iface_init (GgFrontendInterface *iface)
{
  iface->get_name = frontend_get_name;
  iface->get_summary = frontend_get_summary;
  iface->run_stdio_async = frontend_run_stdio_async;
  iface->start_daemon = frontend_start_daemon;
  iface->stop_async = frontend_stop_async;
}
