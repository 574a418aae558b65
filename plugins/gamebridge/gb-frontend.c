/* gb-frontend.c: the `mcp` front end: `gamegate mcp` on stdio, and in daemon
 * mode Streamable HTTP on 127.0.0.1 (config `[gamebridge] http-port`, 7700).
 *
 * Every bus target's events go to the MCP clients as `notifications/message`
 * (logger `gamegate/<target id>`); each HTTP game's state, log and
 * screenshot are resources (gb-resources.c); in daemon mode the configured
 * game ports are put on the bus at start.
 *
 * On the way out (stdin closed, SIGINT/SIGTERM, daemon stop) every launched
 * instance is closed, then terminated: the bus's `shutdown` is held until
 * that is done.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "gb-frontend.h"
#include "gb-resources.h"
#include "gb-tools.h"

#define INSTRUCTIONS \
  "Drive running game instances over their localhost debug HTTP surface. Start with list_instances " \
  "(or launch_instance), then list_toolsets and describe_toolset for the instance's port, then call_tool. " \
  "Every tool takes port; call_tool waits until the command was applied and returns the state after it. " \
  "Instances' events arrive as log messages (logger gamegate/<instance>); GABP instances (gabp:...) also " \
  "return their recent events through call_tool with tool gamegate/events and a since cursor."

struct _GbFrontend {
  GObject parent_instance;

  GgBus *bus;
  guint http_port;
  GArray *ports;             /* nullable: [gamebridge] ports */
  GbMcpHttpSettings http_settings;
  GbOptions options;
  GbImageLimits image_limits;
  guint resource_interval_ms;
  GOptionEntry *entries;
  GbBridge *bridge;
  GbMcpServer *server;
  GTask *run_task;
  GCancellable *run_cancellable;
  gulong cancel_handler;
  gulong shutdown_handler;
  gulong event_handler;
};

static void gb_frontend_iface_init (GgFrontendInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GbFrontend, gb_frontend, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_FRONTEND, gb_frontend_iface_init))

static void
teardown_server (GbFrontend *self)
{
  if (self->bus != NULL)
    g_clear_signal_handler (&self->event_handler, self->bus);
  if (self->server != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->server, self);
      gb_mcp_server_close (self->server);
      g_clear_object (&self->server);
    }
  if (self->bridge != NULL)
    {
      gb_resources_detach (self->bridge);
      self->bridge->server = NULL;
    }
}

static void
gb_frontend_dispose (GObject *object)
{
  GbFrontend *self = GB_FRONTEND (object);

  if (self->run_cancellable != NULL)
    g_cancellable_disconnect (self->run_cancellable, self->cancel_handler);
  g_clear_object (&self->run_cancellable);
  teardown_server (self);
  g_clear_pointer (&self->bridge, gb_bridge_free);
  if (self->bus != NULL)
    g_clear_signal_handler (&self->shutdown_handler, self->bus);
  g_clear_object (&self->bus);
  G_OBJECT_CLASS (gb_frontend_parent_class)->dispose (object);
}

static void
gb_frontend_finalize (GObject *object)
{
  GbFrontend *self = GB_FRONTEND (object);

  gb_options_clear (&self->options);
  g_free (self->entries);
  g_clear_pointer (&self->ports, g_array_unref);
  G_OBJECT_CLASS (gb_frontend_parent_class)->finalize (object);
}

static void
gb_frontend_class_init (GbFrontendClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = gb_frontend_dispose;
  G_OBJECT_CLASS (klass)->finalize = gb_frontend_finalize;
}

static void
gb_frontend_init (GbFrontend *self)
{
  gb_image_limits_init (&self->image_limits);
  self->resource_interval_ms = GB_RESOURCES_DEFAULT_INTERVAL_MS;
}

void
gb_frontend_set_resource_interval (GbFrontend *self,
                                   guint       interval_ms)
{
  self->resource_interval_ms = interval_ms;
}

void
gb_frontend_set_image_limits (GbFrontend          *self,
                              const GbImageLimits *limits)
{
  self->image_limits = *limits;
}

/* ---- shutdown: close every launched instance ------------------------------ */

static void
on_instances_stopped (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  GbFrontend *self = user_data;

  gb_bridge_shutdown_finish (self->bridge, result);
  gg_bus_release (self->bus);
  g_object_unref (self);
}

static void
on_bus_shutdown (GgBus    *bus,
                 gpointer  user_data)
{
  GbFrontend *self = user_data;

  teardown_server (self);
  if (self->bridge == NULL)
    return;
  gg_bus_hold (bus);
  gb_bridge_shutdown_async (self->bridge, on_instances_stopped, g_object_ref (self));
}

/**
 * gb_frontend_new:
 * @bus: the host's bus
 * @http_port: the daemon's MCP port on 127.0.0.1 (0 = any)
 * @ports: (nullable): game ports (guint) the daemon puts on the bus at start
 *
 * Returns: (transfer full): the `mcp` front end
 */
GbFrontend *
gb_frontend_new (GgBus  *bus,
                 guint   http_port,
                 GArray *ports)
{
  GbFrontend *self = g_object_new (GB_TYPE_FRONTEND, NULL);

  self->bus = g_object_ref (bus);
  self->http_port = http_port;
  self->ports = ports != NULL ? g_array_ref (ports) : NULL;
  self->shutdown_handler = g_signal_connect (bus, "shutdown", G_CALLBACK (on_bus_shutdown), self);
  return self;
}

static const char *
frontend_get_name (GgFrontend *frontend)
{
  return "mcp";
}

static const char *
frontend_get_summary (GgFrontend *frontend)
{
  return _("Serve the game-bridge MCP tools on stdio (for AI agents)");
}

static GOptionGroup *
frontend_get_option_group (GgFrontend *frontend)
{
  GbFrontend *self = GB_FRONTEND (frontend);
  GOptionGroup *group = g_option_group_new ("mcp", _("Options of gamegate mcp:"), _("Show the MCP options"),
                                            NULL, NULL);

  if (self->entries == NULL)
    self->entries = gb_options_entries (&self->options);
  g_option_group_add_entries (group, self->entries);
  g_option_group_set_translation_domain (group, GETTEXT_PACKAGE);
  return group;
}

/* A target's event, as an MCP log message every client sees. */
static void
on_target_event (GgBus      *bus,
                 GgTarget   *target,
                 const char *channel,
                 guint64     seq,
                 JsonNode   *payload,
                 gpointer    user_data)
{
  GbFrontend *self = user_data;
  g_autofree char *logger = g_strdup_printf ("gamegate/%s", gg_target_get_id (target));
  g_autoptr(JsonObject) data = json_object_new ();
  g_autoptr(JsonNode) node = NULL;

  if (self->server == NULL)
    return;
  json_object_set_string_member (data, "instance", gg_target_get_id (target));
  json_object_set_string_member (data, "channel", channel);
  json_object_set_int_member (data, "seq", (gint64) seq);
  /* The payload is the emitter's: copied, never modified. */
  json_object_set_member (data, "payload", payload != NULL ? json_node_copy (payload) : json_node_new (JSON_NODE_NULL));
  node = json_node_init_object (json_node_alloc (), data);
  gb_mcp_server_log (self->server, "info", logger, node);
}

static gboolean
start_bridge (GbFrontend  *self,
              GError     **error)
{
  if (!gb_options_resolve (&self->options, error))
    return FALSE;
  self->bridge = gb_bridge_new (self->bus, &self->options, error);
  if (self->bridge == NULL)
    return FALSE;
  self->bridge->image_limits = self->image_limits;
  self->bridge->resource_interval_ms = self->resource_interval_ms;
  self->server = gb_mcp_server_new ("gamegate", PACKAGE_VERSION, INSTRUCTIONS, gb_tools_provider (), self->bridge);
  gb_mcp_server_set_resources_provider (self->server, gb_resources_provider (), self->bridge);
  gb_resources_attach (self->bridge);
  self->bridge->server = self->server;
  self->event_handler = g_signal_connect (self->bus, "target-event", G_CALLBACK (on_target_event), self);
  return TRUE;
}

/* ---- stdio -------------------------------------------------------------------- */

static void
complete_run (GbFrontend *self,
              GError     *error)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->run_task);

  if (task == NULL)
    {
      g_clear_error (&error);
      return;
    }
  if (self->run_cancellable != NULL)
    {
      g_cancellable_disconnect (self->run_cancellable, self->cancel_handler);
      self->cancel_handler = 0;
      g_clear_object (&self->run_cancellable);
    }
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
on_client_gone (GbMcpServer *server,
                gpointer     user_data)
{
  g_debug ("MCP client closed stdin");
  complete_run (user_data, NULL);
}

static gboolean
on_cancelled_idle (gpointer user_data)
{
  GbFrontend *self = user_data;

  teardown_server (self);
  complete_run (self, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled"));
  return G_SOURCE_REMOVE;
}

static void
on_run_cancelled (GCancellable *cancellable,
                  gpointer      user_data)
{
  /* From an idle: the cancellable's lock is held in this callback. */
  g_idle_add_full (G_PRIORITY_DEFAULT, on_cancelled_idle, g_object_ref (user_data), g_object_unref);
}

static void
frontend_run_stdio_async (GgFrontend          *frontend,
                          GIOStream           *stdio,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  GbFrontend *self = GB_FRONTEND (frontend);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;

  if (self->run_task != NULL || self->server != NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_BUSY, "The MCP front end is already running");
      return;
    }
  if (!start_bridge (self, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  self->run_task = g_steal_pointer (&task);
  g_signal_connect (self->server, "client-gone", G_CALLBACK (on_client_gone), self);
  if (cancellable != NULL)
    {
      self->run_cancellable = g_object_ref (cancellable);
      self->cancel_handler = g_cancellable_connect (cancellable, G_CALLBACK (on_run_cancelled), self, NULL);
    }
  gb_mcp_server_serve_stdio (self->server, stdio);
}

/* ---- daemon ------------------------------------------------------------------- */

static gboolean
frontend_start_daemon (GgFrontend  *frontend,
                       GError     **error)
{
  GbFrontend *self = GB_FRONTEND (frontend);

  if (self->server != NULL)
    return TRUE;
  if (!start_bridge (self, error))
    return FALSE;
  gb_mcp_server_set_http_settings (self->server, &self->http_settings);
  if (!gb_mcp_server_listen_http (self->server, self->http_port, error))
    {
      teardown_server (self);
      g_clear_pointer (&self->bridge, gb_bridge_free);
      return FALSE;
    }
  g_message (_("MCP over Streamable HTTP on http://127.0.0.1:%u/mcp"), gb_mcp_server_get_http_port (self->server));
  for (guint i = 0; self->ports != NULL && i < self->ports->len; i++)
    gb_bridge_ensure_target (self->bridge, g_array_index (self->ports, guint, i));
  return TRUE;
}

static void
on_daemon_instances_stopped (GObject      *source,
                             GAsyncResult *result,
                             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GbFrontend *self = g_task_get_source_object (task);

  gb_bridge_shutdown_finish (self->bridge, result);
  g_task_return_boolean (task, TRUE);
}

static void
frontend_stop_async (GgFrontend          *frontend,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  GbFrontend *self = GB_FRONTEND (frontend);
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  teardown_server (self);
  if (self->bridge == NULL)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  gb_bridge_shutdown_async (self->bridge, on_daemon_instances_stopped, task);
}

/**
 * gb_frontend_set_http_settings:
 * @self: the front end
 * @settings: the daemon's Streamable HTTP limits (copied)
 */
void
gb_frontend_set_http_settings (GbFrontend              *self,
                               const GbMcpHttpSettings *settings)
{
  self->http_settings = *settings;
}

/* For the tests: the port the daemon listens on. */
guint
gb_frontend_get_http_port (GbFrontend *self)
{
  return self->server != NULL ? gb_mcp_server_get_http_port (self->server) : 0;
}

static void
gb_frontend_iface_init (GgFrontendInterface *iface)
{
  iface->get_name = frontend_get_name;
  iface->get_summary = frontend_get_summary;
  iface->get_option_group = frontend_get_option_group;
  iface->run_stdio_async = frontend_run_stdio_async;
  iface->start_daemon = frontend_start_daemon;
  iface->stop_async = frontend_stop_async;
}
