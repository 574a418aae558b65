/* gg-oam-abi-host.c: what a bridge serves: a host of the plugins set up as
 * `gamegate oam` sets one up (gateway/gg-host.c: the user's configuration,
 * [gateway] default-model and disabled-plugins, $GAMEGATE_PLUGIN_PATH and
 * the installed plugin directory), then the oam front end on the bridge's
 * stream pair, through the same GgFrontend interface gamegate uses.
 *
 * When the front end is done (the client sent `shutdown`) every later
 * request is answered -32023; when gamegate cannot serve at all (no oam
 * plugin, a configuration error) every request is answered -32603 naming
 * the reason: a host sees why in the protocol itself. Stopping (the
 * destroy) cancels the front end's work, then lets the plugins close what
 * they opened (gg_bus_shutdown_async()), then ends the bridge's loop.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "gg-host.h"
#include "gg-oam-abi-private.h"

struct _GgOamAbiHost {
  oam_bridge *bridge;           /* unowned: it owns the host */
  GgHost host;
  GIOStream *stream;            /* the front end's */
  GCancellable *cancellable;    /* cancelled: the front end shuts down */
  gboolean running;             /* the front end serves */
  gboolean bus_shutting_down;
  gboolean bus_down;

  /* After `shutdown`, or when gamegate cannot serve. */
  GIOStream *fallback_stream;
  GgFramedStream *fallback_framed;
  GgJsonRpcPeer *fallback_peer;
  int fallback_code;
  char *fallback_name;
  char *fallback_message;
};

static void
maybe_finish (GgOamAbiHost *self)
{
  if (self->bridge->stopping && !self->running && self->bus_down)
    gg_oam_abi_finish (self->bridge);
}

static void
on_bus_down (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  GgOamAbiHost *self = user_data;
  g_autoptr(GError) error = NULL;

  if (!gg_bus_shutdown_finish (GG_BUS (source), result, &error))
    g_warning (_("Shutdown: %s"), error->message);
  self->bus_down = TRUE;
  maybe_finish (self);
}

static void
shut_down_bus (GgOamAbiHost *self)
{
  if (self->bus_shutting_down)
    return;
  self->bus_shutting_down = TRUE;
  gg_bus_shutdown_async (self->host.bus, GG_HOST_SHUTDOWN_TIMEOUT_MS, on_bus_down, self);
}

static void
answer_fallback (GgJsonRpcPeer    *peer,
                 GgJsonRpcRequest *request,
                 gpointer          user_data)
{
  GgOamAbiHost *self = user_data;
  g_autoptr(JsonNode) data = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (data, json_object_new ());
  json_object_set_string_member (json_node_get_object (data), "code", self->fallback_name);
  gg_jsonrpc_request_return_error (request, self->fallback_code, data, "%s", self->fallback_message);
}

/* Answers every request from now on with one error (responses to tool
 * calls, of a turn long gone, are ignored). */
static void
serve_fallback (GgOamAbiHost *self,
                int           code,
                const char   *name,
                const char   *message)
{
  self->fallback_code = code;
  self->fallback_name = g_strdup (name);
  self->fallback_message = g_strdup (message);
  self->fallback_stream = gg_oam_abi_stream_new (self->bridge);
  self->fallback_framed = gg_framed_stream_new_for_io_stream (self->fallback_stream, GG_FRAMING_NEWLINE);
  self->fallback_peer = gg_jsonrpc_peer_new (self->fallback_framed);
  gg_jsonrpc_peer_set_fallback (self->fallback_peer, answer_fallback, self, NULL);
  gg_jsonrpc_peer_start (self->fallback_peer);
}

static void
on_run_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  GgOamAbiHost *self = user_data;
  g_autoptr(GError) error = NULL;

  if (!gg_frontend_run_stdio_finish (GG_FRONTEND (source), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_warning ("oam: %s", error->message);
  self->running = FALSE;
  g_clear_object (&self->stream);
  if (!self->bridge->stopping)
    serve_fallback (self, -32023, "shut_down", "The bridge has been shut down");
  /* As `gamegate oam` exits: the plugins close what they opened. */
  shut_down_bus (self);
}

static gboolean
serve (GgOamAbiHost  *self,
       GError       **error)
{
  GgHost *host = &self->host;
  g_auto(GStrv) disabled = NULL;
  g_autofree char *tap_socket = NULL;
  GPtrArray *plugins;
  GgFrontend *frontend;

  if (!gg_host_load_config (host->config, NULL, error) ||
      !gg_host_apply_default_model (host, error))
    return FALSE;
  disabled = gg_config_get_string_list (host->config, GG_HOST_GATEWAY_GROUP, "disabled-plugins");
  gg_plugin_loader_set_disabled (host->loader, (const char * const *) disabled);
  gg_host_add_plugin_directories (host, NULL);
  if (!gg_plugin_loader_load_all (host->loader, error))
    return FALSE;

  plugins = gg_plugin_loader_get_plugins (host->loader);
  for (guint i = 0; i < plugins->len; i++)
    {
      g_autofree char *domain = g_strconcat ("gamegate-", gg_plugin_get_name (g_ptr_array_index (plugins, i)), NULL);

      gg_oam_abi_log_add_domain (domain);
    }
  frontend = gg_bus_lookup_frontend (host->bus, "oam");
  if (frontend == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "no oam plugin was loaded (searched $GAMEGATE_PLUGIN_PATH and %s)", GG_PLUGIN_DIR);
      return FALSE;
    }
  /* Read as gamegate reads it, so that it is not reported unread: a bridge
   * serves no tap. */
  tap_socket = gg_config_get_string (host->config, GG_HOST_GATEWAY_GROUP, "tap-socket", NULL);
  gg_host_warn_about_config (host, (const char * const *) disabled);

  self->stream = gg_oam_abi_stream_new (self->bridge);
  self->running = TRUE;
  gg_frontend_run_stdio_async (frontend, self->stream, self->cancellable, on_run_done, self);
  return TRUE;
}

/**
 * gg_oam_abi_host_start:
 * @bridge: the bridge (its thread, its context the thread default)
 *
 * Returns: (transfer full): the host, serving
 */
/* One bridge sets up at a time: the plugins' setup registers types and
 * fills one-time caches of the process, which GLib makes safe under locks
 * of its own that ThreadSanitizer cannot see; this one it sees. Setting up
 * takes about a millisecond. */
static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;

GgOamAbiHost *
gg_oam_abi_host_start (oam_bridge *bridge)
{
  GgOamAbiHost *self = g_new0 (GgOamAbiHost, 1);
  g_autoptr(GError) error = NULL;
  gboolean served;

  self->bridge = bridge;
  pthread_mutex_lock (&setup_lock);
  self->cancellable = g_cancellable_new ();
  self->host.config = gg_config_new ();
  self->host.bus = gg_bus_new ();
  self->host.loader = gg_plugin_loader_new (self->host.bus, self->host.config);
  served = serve (self, &error);
  pthread_mutex_unlock (&setup_lock);
  if (!served)
    {
      g_autofree char *message = g_strdup_printf ("gamegate cannot serve oam: %s", error->message);

      g_warning ("%s", message);
      serve_fallback (self, GG_JSONRPC_INTERNAL_ERROR, "internal_error", message);
    }
  return self;
}

/**
 * gg_oam_abi_host_stop:
 * @self: a host
 *
 * Cancels the front end's work (its input ends too), then shuts the bus
 * down; the bridge's loop ends once both are done.
 */
void
gg_oam_abi_host_stop (GgOamAbiHost *self)
{
  if (self->bridge->input != NULL)
    gg_oam_abi_input_end (self->bridge->input);
  g_cancellable_cancel (self->cancellable);
  if (!self->running)
    shut_down_bus (self);
  maybe_finish (self);
}

/**
 * gg_oam_abi_host_free:
 * @self: a stopped host
 */
void
gg_oam_abi_host_free (GgOamAbiHost *self)
{
  if (self->fallback_peer != NULL)
    gg_jsonrpc_peer_close (self->fallback_peer);
  g_clear_object (&self->fallback_peer);
  g_clear_object (&self->fallback_framed);
  g_clear_object (&self->fallback_stream);
  g_clear_object (&self->stream);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->host.loader);
  /* A plugin's object may hold the bus that holds it (the gamebridge
   * front end does): a process that exits never notices, a bridge must
   * leave nothing behind. Disposing the bus drops what it holds. */
  g_object_run_dispose (G_OBJECT (self->host.bus));
  g_clear_object (&self->host.bus);
  g_clear_object (&self->host.config);
  g_free (self->fallback_name);
  g_free (self->fallback_message);
  g_free (self);
}
