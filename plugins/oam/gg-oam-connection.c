/* gg-oam-connection.c: one client of the bridge. Owns the JSON-RPC peer and
 * everything the client created; requests are handled in arrival order by
 * the method sets, which do their order-sensitive part in the handler and
 * finish long work from callbacks (spec section 2).
 *
 * A connection finishes when its input ended (stdio: after every request
 * seen is answered; daemon: at once, cancelling its work) or after
 * `shutdown` has been answered, and once its output is flushed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "gg-oam-connection.h"
#include "gg-oam-errors.h"
#include "gg-oam-params.h"

G_DEFINE_FINAL_TYPE (GgOamConnection, gg_oam_connection, G_TYPE_OBJECT)

enum {
  SIGNAL_FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

typedef struct {
  GgOamConnection *connection; /* unowned: the connection owns the peer */
  GgOamMethodFunc func;
} Method;

/**
 * gg_oam_settings_init:
 * @settings: settings to fill with the defaults
 */
void
gg_oam_settings_init (GgOamSettings *settings)
{
  settings->max_sessions = GG_OAM_DEFAULT_MAX_SESSIONS;
  settings->max_npcs = GG_OAM_DEFAULT_MAX_NPCS;
  settings->max_worlds = GG_OAM_DEFAULT_MAX_WORLDS;
  settings->max_subscriptions = GG_OAM_DEFAULT_MAX_SUBSCRIPTIONS;
  settings->tool_timeout_ms = GG_OAM_DEFAULT_TOOL_TIMEOUT_MS;
  settings->scripted_models = TRUE;
  settings->max_message_size = GG_FRAMED_STREAM_DEFAULT_MAX_MESSAGE_SIZE;
  settings->script_steps = NULL;
}

/**
 * gg_oam_settings_copy:
 * @dest: uninitialized settings
 * @src: settings to copy
 */
void
gg_oam_settings_copy (GgOamSettings       *dest,
                      const GgOamSettings *src)
{
  *dest = *src;
  dest->script_steps = src->script_steps != NULL ? json_node_copy (src->script_steps) : NULL;
}

/**
 * gg_oam_settings_clear:
 * @settings: settings to release
 */
void
gg_oam_settings_clear (GgOamSettings *settings)
{
  g_clear_pointer (&settings->script_steps, json_node_unref);
}

static void
gg_oam_connection_dispose (GObject *object)
{
  GgOamConnection *self = GG_OAM_CONNECTION (object);

  if (self->peer != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->peer, self);
      gg_jsonrpc_peer_close (self->peer);
    }
  if (self->work != NULL)
    {
      GHashTableIter iter;
      gpointer key;

      g_hash_table_iter_init (&iter, self->work);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        g_cancellable_cancel (key);
    }
  if (self->sessions != NULL)
    gg_oam_sessions_cancel_all (self);
  if (self->npcs != NULL)
    gg_oam_npcs_cancel_all (self);
  g_clear_pointer (&self->npcs, g_hash_table_unref);
  g_clear_pointer (&self->npc_order, g_ptr_array_unref);
  g_clear_pointer (&self->sessions, g_hash_table_unref);
  g_clear_pointer (&self->session_order, g_ptr_array_unref);
  g_clear_pointer (&self->subscriptions, g_hash_table_unref);
  g_clear_pointer (&self->subscription_order, g_ptr_array_unref);
  g_clear_pointer (&self->worlds, g_hash_table_unref);
  g_clear_pointer (&self->world_order, g_ptr_array_unref);
  g_clear_pointer (&self->work, g_hash_table_unref);
  gg_oam_request_work_clear (self);
  g_clear_object (&self->peer);
  g_clear_object (&self->stream);
  g_clear_object (&self->bus);
  G_OBJECT_CLASS (gg_oam_connection_parent_class)->dispose (object);
}

static void
gg_oam_connection_finalize (GObject *object)
{
  GgOamConnection *self = GG_OAM_CONNECTION (object);

  gg_oam_settings_clear (&self->settings);
  g_clear_pointer (&self->method_names, g_ptr_array_unref);
  G_OBJECT_CLASS (gg_oam_connection_parent_class)->finalize (object);
}

static void
gg_oam_connection_class_init (GgOamConnectionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = gg_oam_connection_dispose;
  object_class->finalize = gg_oam_connection_finalize;

  /**
   * GgOamConnection::finished:
   *
   * The client is done: every request it sent is answered and the output
   * is flushed. Emitted once.
   */
  signals[SIGNAL_FINISHED] = g_signal_new ("finished", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                           G_TYPE_NONE, 0);
}

static void
gg_oam_connection_init (GgOamConnection *self)
{
  self->method_names = g_ptr_array_new_with_free_func (g_free);
  self->sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->session_order = g_ptr_array_new ();
  self->worlds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->world_order = g_ptr_array_new_with_free_func (g_free);
  self->subscriptions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, gg_oam_subscription_free);
  self->subscription_order = g_ptr_array_new_with_free_func (g_free);
  self->npcs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->npc_order = g_ptr_array_new ();
  self->work = g_hash_table_new_full (g_direct_hash, g_direct_equal, g_object_unref, NULL);
}

static void
on_flushed (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GgOamConnection) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!gg_framed_stream_flush_finish (GG_FRAMED_STREAM (source), result, &error))
    g_debug ("oam connection %p: flush failed: %s", self, error->message);
  self->finished = TRUE;
  g_signal_emit (self, signals[SIGNAL_FINISHED], 0);
}

static void
cancel_everything (GgOamConnection *self)
{
  GHashTableIter iter;
  gpointer key;

  gg_oam_sessions_cancel_all (self);
  gg_oam_npcs_cancel_all (self);
  g_hash_table_iter_init (&iter, self->work);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_cancellable_cancel (key);
}

static void
maybe_finish (GgOamConnection *self)
{
  if (self->finishing || !(self->input_closed || self->shut_down))
    return;
  if (gg_jsonrpc_peer_get_pending_incoming (self->peer) > 0)
    return;
  self->finishing = TRUE;
  /* Background work (NPC compaction) has nobody left to serve. */
  cancel_everything (self);
  gg_framed_stream_flush_async (self->stream, NULL, on_flushed, g_object_ref (self));
}

static void
on_peer_closed (GgJsonRpcPeer *peer,
                gpointer       user_data)
{
  GgOamConnection *self = user_data;

  self->input_closed = TRUE;
  if (self->cancel_on_close)
    cancel_everything (self);
  g_debug ("oam connection %p: input closed, %u request(s) pending", self,
           gg_jsonrpc_peer_get_pending_incoming (peer));
  maybe_finish (self);
}

static void
on_peer_idle (GgJsonRpcPeer *peer,
              gpointer       user_data)
{
  maybe_finish (user_data);
}

static gint
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

static GgOamConnection *
connection_new (GgBus               *bus,
                const GgOamSettings *settings,
                GgFramedStream      *stream)
{
  GgOamConnection *self = g_object_new (GG_TYPE_OAM_CONNECTION, NULL);

  self->bus = g_object_ref (bus);
  gg_oam_settings_copy (&self->settings, settings);
  self->stream = stream;
  gg_framed_stream_set_max_message_size (stream, (gsize) settings->max_message_size);
  self->peer = gg_jsonrpc_peer_new (stream);
  gg_jsonrpc_peer_set_id_prefix (self->peer, "t-");
  g_signal_connect (self->peer, "closed", G_CALLBACK (on_peer_closed), self);
  g_signal_connect (self->peer, "idle", G_CALLBACK (on_peer_idle), self);

  gg_oam_core_methods_register (self);
  gg_oam_session_methods_register (self);
  gg_oam_decision_methods_register (self);
  gg_oam_content_methods_register (self);
  gg_oam_world_methods_register (self);
  gg_oam_npc_methods_register (self);
  gg_oam_request_methods_register (self);
  g_ptr_array_sort (self->method_names, compare_names);
  return self;
}

/**
 * gg_oam_connection_new:
 * @bus: the process bus
 * @settings: limits and switches (copied)
 * @stream: the client's stream (a socket connection)
 *
 * Returns: (transfer full): a connection; call gg_oam_connection_start()
 */
GgOamConnection *
gg_oam_connection_new (GgBus               *bus,
                       const GgOamSettings *settings,
                       GIOStream           *stream)
{
  return connection_new (bus, settings,
                         gg_framed_stream_new_for_io_stream (stream, GG_FRAMING_NEWLINE));
}

/**
 * gg_oam_connection_new_split:
 * @bus: the process bus
 * @settings: limits and switches (copied)
 * @input: where requests come from (stdin)
 * @output: where messages go (stdout)
 *
 * Returns: (transfer full): a connection; call gg_oam_connection_start()
 */
GgOamConnection *
gg_oam_connection_new_split (GgBus               *bus,
                             const GgOamSettings *settings,
                             GInputStream        *input,
                             GOutputStream       *output)
{
  return connection_new (bus, settings,
                         gg_framed_stream_new (input, output, GG_FRAMING_NEWLINE));
}

/**
 * gg_oam_connection_start:
 * @self: a connection
 *
 * Starts reading requests.
 */
void
gg_oam_connection_start (GgOamConnection *self)
{
  gg_jsonrpc_peer_start (self->peer);
}

/**
 * gg_oam_connection_shutdown:
 * @self: a connection
 *
 * Cancels all of the client's work (each cancelled request is answered
 * -32009) and finishes once everything is answered; later requests fail
 * with -32023.
 */
void
gg_oam_connection_shutdown (GgOamConnection *self)
{
  self->shut_down = TRUE;
  cancel_everything (self);
  maybe_finish (self);
}

/**
 * gg_oam_connection_is_finished:
 * @self: a connection
 *
 * Returns: whether #GgOamConnection::finished was emitted
 */
gboolean
gg_oam_connection_is_finished (GgOamConnection *self)
{
  return self->finished;
}

/* The request being dispatched, per thread: each bridge of the C ABI
 * dispatches on a thread of its own. A GPrivate, not compiler TLS: the
 * module is dlopen()ed, and LeakSanitizer's tracer crashes on the dynamic
 * TLS of such modules. */
static GPrivate current_dispatch;

/**
 * gg_oam_dispatch_current:
 *
 * Returns: (nullable): the request this thread is dispatching
 */
const GgOamDispatch *
gg_oam_dispatch_current (void)
{
  return g_private_get (&current_dispatch);
}

static void
dispatch (Method           *method,
          GgOamDispatch    *dispatch,
          JsonObject       *params)
{
  gpointer outer = g_private_get (&current_dispatch);

  g_private_set (&current_dispatch, dispatch);
  method->func (dispatch->connection, dispatch->request, params);
  g_private_set (&current_dispatch, outer);
}

static void
method_trampoline (GgJsonRpcPeer    *peer,
                   GgJsonRpcRequest *request,
                   gpointer          user_data)
{
  Method *method = user_data;
  GgOamConnection *self = method->connection;
  g_autoptr(JsonObject) empty = NULL;
  GgOamDispatch current = { self, request, NULL, NULL };
  JsonObject *params;

  if (self->shut_down)
    {
      g_autoptr(GError) error = gg_oam_error_new (GG_OAM_SHUT_DOWN, NULL,
                                                  "The bridge has been shut down");
      gg_oam_return_error (request, error);
      return;
    }
  params = gg_jsonrpc_request_get_params (request);
  if (params == NULL)
    params = empty = json_object_new ();
  g_debug ("oam connection %p: %s", self, gg_jsonrpc_request_get_method (request));
  if (G_UNLIKELY (gg_bus_is_observed (self->bus)))
    {
      /* The bus tap: the work this request starts carries its id. */
      g_autofree char *id = gg_bus_new_correlation (self->bus, "oam");
      g_autoptr(JsonNode) payload = json_node_new (JSON_NODE_OBJECT);
      const char *session = json_object_get_string_member_with_default (params, "session", NULL);
      GgBusRecord record = {
        .kind = "request", .plugin = "oam", .name = gg_jsonrpc_request_get_method (request),
        .correlation = id, .duration_us = -1, .payload = payload,
      };

      if (session == NULL)
        session = json_object_get_string_member_with_default (params, "npc", NULL);
      record.session = session;
      json_node_set_object (payload, params);
      gg_bus_report (self->bus, &record);
      current.correlation = id;
      current.session = session;
      dispatch (method, &current, params);
      return;
    }
  dispatch (method, &current, params);
}

/**
 * gg_oam_report_lifecycle:
 * @self: a connection
 * @name: what happened (`session/created`, `npc/deleted`, `decision/done`)
 * @id: the session, NPC or decision concerned
 * @work: (nullable): the work's cancellable, for its correlation id; without
 *   one, the request being dispatched (if any)
 * @error: (nullable): how it failed
 *
 * Reports a lifecycle event to the bus tap, when it is observed.
 */
void
gg_oam_report_lifecycle (GgOamConnection *self,
                         const char      *name,
                         const char      *id,
                         GCancellable    *work,
                         const GError    *error)
{
  if (G_LIKELY (!gg_bus_is_observed (self->bus)))
    return;

  GgBusRecord record = {
    .kind = "lifecycle", .plugin = "oam", .session = id, .name = name,
    .correlation = work != NULL ? gg_bus_get_correlation (work, NULL, NULL)
                   : gg_oam_dispatch_current () != NULL ? gg_oam_dispatch_current ()->correlation : NULL,
    .duration_us = -1, .error = error,
  };

  gg_bus_report (self->bus, &record);
}

/**
 * gg_oam_tag_cancellable:
 * @cancellable: the cancellable of work a request starts
 *
 * While a request is being dispatched on an observed bus, tags
 * @cancellable with the request's correlation id (the bus tap).
 */
void
gg_oam_tag_cancellable (GCancellable *cancellable)
{
  const GgOamDispatch *current = gg_oam_dispatch_current ();

  if (G_UNLIKELY (current != NULL && current->correlation != NULL))
    gg_bus_set_correlation (cancellable, "oam", current->session, current->correlation);
}

/**
 * gg_oam_connection_add_method:
 * @self: a connection
 * @method: the method name
 * @func: its handler; it receives the request (transfer full) and params
 *   (never %NULL, valid during the call)
 */
void
gg_oam_connection_add_method (GgOamConnection *self,
                              const char      *method,
                              GgOamMethodFunc  func)
{
  Method *data = g_new0 (Method, 1);

  data->connection = self;
  data->func = func;
  gg_jsonrpc_peer_add_method (self->peer, method, method_trampoline, data, g_free);
  g_ptr_array_add (self->method_names, g_strdup (method));
}

/**
 * gg_oam_connection_create_model:
 * @self: a connection
 * @params: params holding an optional `model` member
 * @out_name: (out) (optional) (transfer full): the model's name for lists
 *   ("system", "scripted", …)
 * @error: -32602 for a malformed, unknown or disabled model
 *
 * Returns: (transfer full): a fresh model, or %NULL
 */
GgModel *
gg_oam_connection_create_model (GgOamConnection *self,
                                JsonObject      *params,
                                char           **out_name,
                                GError         **error)
{
  JsonNode *spec = gg_oam_param (params, "model");
  g_autoptr(JsonNode) effective = NULL;
  g_autoptr(GError) local_error = NULL;
  const char *type = "system";
  GgModel *model;

  if (spec != NULL)
    {
      if (json_node_get_value_type (spec) == G_TYPE_STRING)
        type = json_node_get_string (spec);
      else if (JSON_NODE_HOLDS_OBJECT (spec))
        {
          if (!gg_oam_param_string (json_node_get_object (spec), "model", "type", TRUE, &type, error))
            return NULL;
        }
      else
        {
          g_propagate_error (error, gg_oam_invalid_params ("'model' must be a string or an object"));
          return NULL;
        }
    }

  if (g_str_equal (type, "scripted") && !self->settings.scripted_models)
    {
      g_propagate_error (error, gg_oam_invalid_params ("'model': scripted models are disabled"));
      return NULL;
    }
  if (g_str_equal (type, "system") && self->settings.script_steps != NULL)
    {
      /* OAM_SCRIPT: engine CI without a model. */
      JsonObject *object = json_object_new ();

      json_object_set_string_member (object, "type", "scripted");
      json_object_set_member (object, "steps", json_node_copy (self->settings.script_steps));
      effective = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (effective, object);
    }
  else if (spec != NULL)
    effective = json_node_copy (spec);

  model = gg_bus_create_model (self->bus, effective, &local_error);
  if (model == NULL)
    {
      if (local_error->domain == GG_JSONRPC_ERROR)
        g_propagate_error (error, g_steal_pointer (&local_error));
      else
        g_propagate_error (error, gg_oam_invalid_params ("%s", local_error->message));
      return NULL;
    }
  if (out_name != NULL)
    *out_name = g_strdup (type);
  return model;
}

/**
 * gg_oam_connection_begin_work:
 * @self: a connection
 *
 * Registers concurrent work (a decision, content generation, a bark) that
 * `shutdown` and a disconnect must cancel.
 *
 * Returns: (transfer full): its cancellable
 */
GCancellable *
gg_oam_connection_begin_work (GgOamConnection *self)
{
  GCancellable *cancellable = g_cancellable_new ();

  gg_oam_tag_cancellable (cancellable);
  gg_oam_request_work_track (cancellable);
  g_hash_table_add (self->work, g_object_ref (cancellable));
  if (self->shut_down || self->finishing)
    g_cancellable_cancel (cancellable);
  return cancellable;
}

/**
 * gg_oam_connection_end_work:
 * @self: a connection
 * @cancellable: what gg_oam_connection_begin_work() returned
 */
void
gg_oam_connection_end_work (GgOamConnection *self,
                            GCancellable    *cancellable)
{
  if (self->work != NULL)
    g_hash_table_remove (self->work, cancellable);
}

/**
 * gg_oam_connection_notify:
 * @self: a connection
 * @method: the notification
 * @params: (transfer none): its params
 */
void
gg_oam_connection_notify (GgOamConnection *self,
                          const char      *method,
                          JsonObject      *params)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  if (self->peer == NULL)
    return;
  json_node_set_object (node, params);
  gg_jsonrpc_peer_notify (self->peer, method, node);
}

/**
 * gg_oam_schedule:
 * @interval_ms: when, from now; 0 runs it as an idle (of default priority)
 * @func: the callback
 * @data: its data
 * @notify: (nullable): frees @data when the source goes
 *
 * Adds a source to the thread-default main context, never to the global
 * default one: embedded in another program (the C ABI), that is the host's
 * loop, on another thread.
 */
void
gg_oam_schedule (guint          interval_ms,
                 GSourceFunc    func,
                 gpointer       data,
                 GDestroyNotify notify)
{
  GSource *source = interval_ms == 0 ? g_idle_source_new () : g_timeout_source_new (interval_ms);

  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, func, data, notify);
  g_source_attach (source, g_main_context_get_thread_default ());
  g_source_unref (source);
}
