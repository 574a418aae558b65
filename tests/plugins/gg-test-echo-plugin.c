/* gg-test-echo-plugin.c: the "test-echo" fixture plugin.
 *
 * Registers the front end "echo": on stdio it writes every line it reads
 * back (after an optional --prefix) and finishes at end of input; as a
 * daemon it listens on the Unix socket named by `[test-echo] socket` and
 * does the same per connection. Small, but it takes every path a real front
 * end takes through the host: options, config, stdio, daemon, stop.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gamegate.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <string.h>

#ifndef ECHO_PLUGIN_VERSION
#define ECHO_PLUGIN_VERSION "1.0.0"
#endif

#define ECHO_GROUP "test-echo"

#define GG_TYPE_TEST_ECHO_FRONTEND (gg_test_echo_frontend_get_type ())
G_DECLARE_FINAL_TYPE (GgTestEchoFrontend, gg_test_echo_frontend, GG, TEST_ECHO_FRONTEND, GObject)

struct _GgTestEchoFrontend {
  GObject parent_instance;

  char *prefix;            /* --prefix */
  gboolean deaf;           /* --deaf: a stdio session ignores cancellation */
  char *socket_path;       /* [test-echo] socket */
  gint64 max_line;         /* [test-echo] max-line */
  GSocketService *service;
  GCancellable *cancellable;
  GPtrArray *sessions;     /* EchoSession of the daemon */
  GTask *stop_task;
};

static void gg_test_echo_frontend_iface_init (GgFrontendInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GgTestEchoFrontend, gg_test_echo_frontend, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_FRONTEND,
                                                      gg_test_echo_frontend_iface_init))

/* One client: a stdio session (with a task) or a daemon connection. */
typedef struct {
  GgTestEchoFrontend *frontend;
  GIOStream *stream;
  GDataInputStream *input;
  GCancellable *cancellable;
  GTask *task;             /* stdio only */
  char *reply;
} EchoSession;

static void session_read (EchoSession *session);

static void
session_free (EchoSession *session)
{
  g_clear_object (&session->frontend);
  g_clear_object (&session->stream);
  g_clear_object (&session->input);
  g_clear_object (&session->cancellable);
  g_clear_object (&session->task);
  g_free (session->reply);
  g_free (session);
}

static void
session_finish (EchoSession *session,
                GError      *error)
{
  GgTestEchoFrontend *self = session->frontend;

  g_io_stream_close (session->stream, NULL, NULL);
  if (session->task != NULL)
    {
      if (error != NULL)
        g_task_return_error (session->task, error);
      else
        g_task_return_boolean (session->task, TRUE);
      session_free (session);
      return;
    }

  if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_debug ("echo connection: %s", error->message);
  g_clear_error (&error);
  g_ptr_array_remove (self->sessions, session);
  session_free (session);
  if (self->sessions->len == 0 && self->stop_task != NULL)
    {
      g_autoptr(GTask) task = g_steal_pointer (&self->stop_task);

      g_task_return_boolean (task, TRUE);
    }
}

static void
on_written (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  EchoSession *session = user_data;
  GError *error = NULL;

  g_clear_pointer (&session->reply, g_free);
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    {
      session_finish (session, error);
      return;
    }
  session_read (session);
}

static void
on_line (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  EchoSession *session = user_data;
  GgTestEchoFrontend *self = session->frontend;
  GError *error = NULL;
  gsize length = 0;
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source),
                                                                      result, &length, &error);

  if (error != NULL)
    {
      session_finish (session, error);
      return;
    }
  if (line == NULL)
    {
      session_finish (session, NULL);
      return;
    }
  if ((gint64) length > self->max_line)
    session->reply = g_strdup ("error: line too long\n");
  else
    session->reply = g_strconcat (self->prefix != NULL ? self->prefix : "", line, "\n", NULL);
  g_output_stream_write_all_async (g_io_stream_get_output_stream (session->stream),
                                   session->reply, strlen (session->reply), G_PRIORITY_DEFAULT,
                                   session->cancellable, on_written, session);
}

static void
session_read (EchoSession *session)
{
  g_data_input_stream_read_line_async (session->input, G_PRIORITY_DEFAULT,
                                       session->cancellable, on_line, session);
}

static EchoSession *
session_new (GgTestEchoFrontend *self,
             GIOStream          *stream,
             GCancellable       *cancellable)
{
  EchoSession *session = g_new0 (EchoSession, 1);

  session->frontend = g_object_ref (self);
  session->stream = g_object_ref (stream);
  session->input = g_data_input_stream_new (g_io_stream_get_input_stream (stream));
  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (session->input), FALSE);
  g_data_input_stream_set_newline_type (session->input, G_DATA_STREAM_NEWLINE_TYPE_LF);
  session->cancellable = cancellable != NULL ? g_object_ref (cancellable) : g_cancellable_new ();
  return session;
}

static const char *
echo_get_name (GgFrontend *frontend)
{
  return "echo";
}

static const char *
echo_get_summary (GgFrontend *frontend)
{
  return "Echo lines back (test fixture)";
}

static GOptionGroup *
echo_get_option_group (GgFrontend *frontend)
{
  GgTestEchoFrontend *self = GG_TEST_ECHO_FRONTEND (frontend);
  GOptionGroup *group = g_option_group_new ("echo", "Options of the echo front end:",
                                            "Show echo options", NULL, NULL);
  const GOptionEntry entries[] = {
    { "prefix", 0, 0, G_OPTION_ARG_STRING, &self->prefix, "Put TEXT before every echoed line", "TEXT" },
    { "deaf", 0, 0, G_OPTION_ARG_NONE, &self->deaf, "Ignore termination signals on stdio (a stuck front end)", NULL },
    G_OPTION_ENTRY_NULL
  };

  g_option_group_add_entries (group, entries);
  return group;
}

static void
echo_run_stdio_async (GgFrontend          *frontend,
                      GIOStream           *stdio,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  GgTestEchoFrontend *self = GG_TEST_ECHO_FRONTEND (frontend);
  /* Deaf: behaves like a front end stuck on something it cannot cancel. */
  EchoSession *session = session_new (self, stdio, self->deaf ? NULL : cancellable);

  session->task = g_task_new (self, self->deaf ? NULL : cancellable, callback, user_data);
  g_task_set_source_tag (session->task, echo_run_stdio_async);
  session_read (session);
}

static gboolean
on_incoming (GSocketService    *service,
             GSocketConnection *connection,
             GObject           *source_object,
             gpointer           user_data)
{
  GgTestEchoFrontend *self = user_data;
  EchoSession *session = session_new (self, G_IO_STREAM (connection), self->cancellable);

  g_ptr_array_add (self->sessions, session);
  session_read (session);
  return TRUE;
}

static gboolean
echo_start_daemon (GgFrontend  *frontend,
                   GError     **error)
{
  GgTestEchoFrontend *self = GG_TEST_ECHO_FRONTEND (frontend);
  g_autoptr(GSocketAddress) address = NULL;

  if (self->socket_path == NULL)
    {
      g_debug ("no [test-echo] socket: not listening");
      return TRUE;
    }
  address = g_unix_socket_address_new (self->socket_path);
  self->service = g_socket_service_new ();
  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (self->service), address,
                                      G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT,
                                      NULL, NULL, error))
    {
      g_clear_object (&self->service);
      return FALSE;
    }
  g_chmod (self->socket_path, 0600);
  g_signal_connect (self->service, "incoming", G_CALLBACK (on_incoming), self);
  g_socket_service_start (self->service);
  return TRUE;
}

static void
echo_stop_async (GgFrontend          *frontend,
                 GCancellable        *cancellable,
                 GAsyncReadyCallback  callback,
                 gpointer             user_data)
{
  GgTestEchoFrontend *self = GG_TEST_ECHO_FRONTEND (frontend);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  if (self->service != NULL)
    {
      g_socket_service_stop (self->service);
      g_socket_listener_close (G_SOCKET_LISTENER (self->service));
      g_clear_object (&self->service);
      g_unlink (self->socket_path);
    }
  g_cancellable_cancel (self->cancellable);
  if (self->sessions->len == 0 || self->stop_task != NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  self->stop_task = g_steal_pointer (&task);
}

static void
gg_test_echo_frontend_iface_init (GgFrontendInterface *iface)
{
  iface->get_name = echo_get_name;
  iface->get_summary = echo_get_summary;
  iface->get_option_group = echo_get_option_group;
  iface->run_stdio_async = echo_run_stdio_async;
  iface->start_daemon = echo_start_daemon;
  iface->stop_async = echo_stop_async;
}

static void
gg_test_echo_frontend_finalize (GObject *object)
{
  GgTestEchoFrontend *self = GG_TEST_ECHO_FRONTEND (object);

  g_clear_object (&self->service);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->sessions, g_ptr_array_unref);
  g_free (self->prefix);
  g_free (self->socket_path);

  G_OBJECT_CLASS (gg_test_echo_frontend_parent_class)->finalize (object);
}

static void
gg_test_echo_frontend_class_init (GgTestEchoFrontendClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_test_echo_frontend_finalize;
}

static void
gg_test_echo_frontend_init (GgTestEchoFrontend *self)
{
  self->cancellable = g_cancellable_new ();
  self->sessions = g_ptr_array_new ();
  self->max_line = 4096;
}

static gboolean
echo_setup (GgPlugin *plugin,
            GError  **error)
{
  GgConfig *config = gg_plugin_get_config (plugin);
  g_autoptr(GgTestEchoFrontend) frontend = g_object_new (GG_TYPE_TEST_ECHO_FRONTEND, NULL);

  if (!gg_config_get_int (config, ECHO_GROUP, "max-line", 1, 4096, 4096, &frontend->max_line, error))
    return FALSE;
  frontend->socket_path = gg_config_get_string (config, ECHO_GROUP, "socket", NULL);
  if (frontend->socket_path != NULL && !g_path_is_absolute (frontend->socket_path))
    {
      gg_config_set_invalid (config, ECHO_GROUP, "socket", error, "expected an absolute path");
      return FALSE;
    }
  gg_plugin_add_frontend (plugin, GG_FRONTEND (frontend));
  return TRUE;
}

GG_PLUGIN_DEFINE ("test-echo", ECHO_PLUGIN_VERSION, "Echoes lines on stdio and a Unix socket",
                  "LGPL-2.1-or-later", echo_setup)
