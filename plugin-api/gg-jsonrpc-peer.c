/* gg-jsonrpc-peer.c: JSON-RPC 2.0 over a GgFramedStream, both directions.
 *
 * Incoming messages are checked cheaply before json-glib sees them (its
 * parser recurses, and accepts some things JSON does not), then validated
 * strictly. Outgoing messages are written by a small compact serializer
 * straight into the framed stream, in the order they are produced.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "gg-jsonrpc-private.h"

typedef struct {
  GgJsonRpcMethodFunc func;
  gpointer            user_data;
  GDestroyNotify      destroy;
} Handler;

typedef struct {
  GgJsonRpcPeer *peer;          /* not a reference: the task holds one */
  char          *key;
  GTask         *task;
  GSource       *timeout;
  GSource       *cancel;
} PendingCall;

struct _GgJsonRpcPeer
{
  GObject parent_instance;

  GgFramedStream *stream;
  gulong          message_id;
  gulong          framing_error_id;
  gulong          closed_id;
  JsonParser     *parser;       /* reused for every message */
  GString        *out;          /* reused for every outgoing message */
  GHashTable     *methods;      /* name -> Handler */
  Handler        *fallback;
  char           *id_prefix;
  guint64         next_id;
  GHashTable     *pending;      /* id key -> PendingCall */
  guint           pending_incoming;
  gboolean        closed;
  gboolean        disposed;
};

enum { SIGNAL_CLOSED, SIGNAL_IDLE, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (GgJsonRpcPeer, gg_jsonrpc_peer, G_TYPE_OBJECT)

static void
handler_free (Handler *handler)
{
  if (handler == NULL)
    return;
  if (handler->destroy != NULL)
    handler->destroy (handler->user_data);
  g_free (handler);
}

const char *
_gg_jsonrpc_code_name (int code)
{
  switch (code)
    {
    case GG_JSONRPC_PARSE_ERROR: return "parse_error";
    case GG_JSONRPC_INVALID_REQUEST: return "invalid_message";
    case GG_JSONRPC_METHOD_NOT_FOUND: return "method_not_found";
    case GG_JSONRPC_INVALID_PARAMS: return "invalid_params";
    case GG_JSONRPC_INTERNAL_ERROR: return "internal_error";
    default: return NULL;
    }
}

/* Sending */

static void
send_out (GgJsonRpcPeer *self)
{
  g_autoptr(GError) error = NULL;

  if (!gg_framed_stream_send (self->stream, self->out->str, self->out->len, &error))
    g_debug ("JSON-RPC peer %p: cannot send: %s", self, error->message);
}

void
_gg_jsonrpc_peer_send_result (GgJsonRpcPeer *self,
                              JsonNode      *id,
                              JsonNode      *result)
{
  GString *out = self->out;

  g_string_truncate (out, 0);
  g_string_append (out, "{\"jsonrpc\":\"2.0\",\"id\":");
  _gg_jsonrpc_write_node (out, id);
  g_string_append (out, ",\"result\":");
  _gg_jsonrpc_write_node (out, result);
  g_string_append_c (out, '}');
  send_out (self);
}

void
_gg_jsonrpc_peer_send_error (GgJsonRpcPeer *self,
                             JsonNode      *id,
                             int            code,
                             const char    *message,
                             JsonNode      *data)
{
  GString *out = self->out;
  const char *name = _gg_jsonrpc_code_name (code);

  g_string_truncate (out, 0);
  g_string_append (out, "{\"jsonrpc\":\"2.0\",\"id\":");
  _gg_jsonrpc_write_node (out, id);
  g_string_append_printf (out, ",\"error\":{\"code\":%d,\"message\":", code);
  _gg_jsonrpc_write_string (out, message != NULL ? message : "");

  /* Standard codes always carry their `data.code` name, first. */
  if (data != NULL && JSON_NODE_HOLDS_OBJECT (data))
    {
      JsonObject *obj = json_node_get_object (data);
      GgJsonRpcMemberWriter w = { out, TRUE };

      g_string_append (out, ",\"data\":{");
      if (name != NULL && !json_object_has_member (obj, "code"))
        {
          g_string_append (out, "\"code\":");
          _gg_jsonrpc_write_string (out, name);
          w.first = FALSE;
        }
      json_object_foreach_member (obj, _gg_jsonrpc_write_member, &w);
      g_string_append_c (out, '}');
    }
  else if (data != NULL)
    {
      g_string_append (out, ",\"data\":");
      _gg_jsonrpc_write_node (out, data);
    }
  else if (name != NULL)
    {
      g_string_append (out, ",\"data\":{\"code\":");
      _gg_jsonrpc_write_string (out, name);
      g_string_append_c (out, '}');
    }
  g_string_append (out, "}}");
  send_out (self);
}

/* An error the peer produces itself, with `data.code` and maybe more. */
static void
send_protocol_error (GgJsonRpcPeer *self,
                     JsonNode      *id,
                     int            code,
                     const char    *message,
                     const char    *method)
{
  g_autoptr(JsonNode) data = NULL;

  if (method != NULL)
    {
      g_autoptr(JsonObject) obj = json_object_new ();

      json_object_set_string_member (obj, "code", _gg_jsonrpc_code_name (code));
      json_object_set_string_member (obj, "method", method);
      data = json_node_new (JSON_NODE_OBJECT);
      json_node_set_object (data, obj);
    }
  g_debug ("JSON-RPC peer %p: %d %s", self, code, message);
  _gg_jsonrpc_peer_send_error (self, id, code, message, data);
}

void
_gg_jsonrpc_peer_request_done (GgJsonRpcPeer *self)
{
  g_return_if_fail (self->pending_incoming > 0);

  self->pending_incoming--;
  if (self->pending_incoming == 0 && !self->disposed)
    {
      g_autoptr(GgJsonRpcPeer) hold = g_object_ref (self);
      g_signal_emit (self, signals[SIGNAL_IDLE], 0);
    }
}

/* Outgoing calls */

static void
pending_call_free (PendingCall *call)
{
  if (call->timeout != NULL)
    {
      g_source_destroy (call->timeout);
      g_source_unref (call->timeout);
    }
  if (call->cancel != NULL)
    {
      g_source_destroy (call->cancel);
      g_source_unref (call->cancel);
    }
  g_clear_object (&call->task);
  g_free (call->key);
  g_free (call);
}

/* Removes the call from the table and returns its task (transfer full). */
static GTask *
pending_take (GgJsonRpcPeer *self,
              const char    *key)
{
  PendingCall *call = g_hash_table_lookup (self->pending, key);
  GTask *task;

  if (call == NULL)
    return NULL;
  task = g_steal_pointer (&call->task);
  g_hash_table_remove (self->pending, key);
  return task;
}

static void
fail_all_pending (GgJsonRpcPeer *self,
                  const char    *why)
{
  GHashTableIter iter;
  PendingCall *call;
  g_autoptr(GPtrArray) tasks = g_ptr_array_new_with_free_func (g_object_unref);

  g_hash_table_iter_init (&iter, self->pending);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &call))
    {
      g_ptr_array_add (tasks, g_steal_pointer (&call->task));
      g_hash_table_iter_remove (&iter);
    }
  for (guint i = 0; i < tasks->len; i++)
    g_task_return_new_error (g_ptr_array_index (tasks, i), G_IO_ERROR, G_IO_ERROR_CLOSED,
                             "%s", why);
}

static gboolean
call_timeout_cb (gpointer user_data)
{
  PendingCall *call = user_data;
  g_autoptr(GTask) task = NULL;
  g_autofree char *key = g_strdup (call->key);
  guint timeout_ms = GPOINTER_TO_UINT (g_task_get_task_data (call->task));

  /* The table entry owns the source; drop our handle before removing it. */
  g_clear_pointer (&call->timeout, g_source_unref);
  task = pending_take (call->peer, key);
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                           "The request %s timed out after %u ms", key + 2, timeout_ms);
  return G_SOURCE_REMOVE;
}

static gboolean
call_cancelled_cb (GCancellable *cancellable,
                   gpointer      user_data)
{
  PendingCall *call = user_data;
  g_autoptr(GTask) task = NULL;
  g_autofree char *key = g_strdup (call->key);

  g_clear_pointer (&call->cancel, g_source_unref);
  task = pending_take (call->peer, key);
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                           "The request %s was cancelled", key + 2);
  return G_SOURCE_REMOVE;
}

static void
handle_response (GgJsonRpcPeer *self,
                 JsonObject    *obj,
                 JsonNode      *raw_id)
{
  g_autoptr(JsonNode) id = _gg_jsonrpc_normalize_id (raw_id);
  g_autofree char *key = NULL;
  g_autoptr(GTask) task = NULL;
  JsonNode *version = json_object_get_member (obj, "jsonrpc");
  JsonNode *error_node = json_object_get_member (obj, "error");
  JsonNode *result = json_object_get_member (obj, "result");

  if (id == NULL)
    {
      /* The remote could not read something we sent (id null), or sent junk. */
      if (error_node != NULL && JSON_NODE_HOLDS_OBJECT (error_node))
        g_message (_("JSON-RPC peer reported an error without an id: %s"),
                   json_object_get_string_member_with_default (json_node_get_object (error_node),
                                                               "message", ""));
      else
        g_debug ("JSON-RPC peer %p: response without a usable id ignored", self);
      return;
    }

  key = _gg_jsonrpc_id_key (id);
  task = pending_take (self, key);
  if (task == NULL)
    {
      g_debug ("JSON-RPC peer %p: response to unknown id %s ignored", self, key + 2);
      return;
    }

  if (version == NULL || json_node_get_value_type (version) != G_TYPE_STRING ||
      g_strcmp0 (json_node_get_string (version), "2.0") != 0 ||
      (result != NULL && error_node != NULL) || (result == NULL && error_node == NULL))
    {
      g_message (_("JSON-RPC peer sent an invalid response to request %s"), key + 2);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                               "Invalid response to request %s", key + 2);
      return;
    }

  if (error_node != NULL)
    {
      JsonObject *err;
      JsonNode *code;
      const char *message;

      if (!JSON_NODE_HOLDS_OBJECT (error_node))
        goto bad_error;
      err = json_node_get_object (error_node);
      code = json_object_get_member (err, "code");
      if (code == NULL || json_node_get_value_type (code) != G_TYPE_INT64 ||
          json_node_get_int (code) < G_MININT || json_node_get_int (code) > G_MAXINT)
        goto bad_error;
      message = json_object_get_string_member_with_default (err, "message", "");
      g_task_return_error (task, gg_jsonrpc_error_new ((int) json_node_get_int (code),
                                                       json_object_get_member (err, "data"),
                                                       "%s", message));
      return;

    bad_error:
      g_message (_("JSON-RPC peer sent a malformed error to request %s"), key + 2);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                               "Malformed error response to request %s", key + 2);
      return;
    }

  g_task_return_pointer (task, json_node_ref (result), (GDestroyNotify) json_node_unref);
}

/* Incoming messages */

static void
dispatch (GgJsonRpcPeer *self,
          const char    *method,
          JsonNode      *root,
          JsonObject    *params,
          JsonNode      *id)
{
  Handler *handler = g_hash_table_lookup (self->methods, method);
  GgJsonRpcRequest *request;

  if (handler == NULL)
    handler = self->fallback;
  if (handler == NULL)
    {
      if (id != NULL)
        {
          g_autofree char *message = g_strdup_printf ("Method not found: %s", method);
          send_protocol_error (self, id, GG_JSONRPC_METHOD_NOT_FOUND, message, method);
        }
      else
        g_debug ("JSON-RPC peer %p: notification %s has no handler", self, method);
      return;
    }

  if (id != NULL)
    self->pending_incoming++;
  request = _gg_jsonrpc_request_new (self, method, root, params, id);
  handler->func (self, request, handler->user_data);
}

static void
handle_message (GgJsonRpcPeer *self,
                const char    *data,
                gsize          length)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) id = NULL;
  const char *why;
  gboolean big_int = FALSE;
  JsonObject *obj;
  JsonNode *raw_id, *version, *method, *params;

  why = _gg_jsonrpc_precheck ((const guint8 *) data, length, &big_int);
  if (why != NULL)
    {
      g_autofree char *message = g_strconcat ("Parse error: ", why, NULL);
      send_protocol_error (self, NULL, GG_JSONRPC_PARSE_ERROR, message, NULL);
      return;
    }
  if (!json_parser_load_from_data (self->parser, data, (gssize) length, &error))
    {
      g_debug ("JSON-RPC peer %p: %s", self, error->message);
      send_protocol_error (self, NULL, GG_JSONRPC_PARSE_ERROR,
                           g_utf8_validate_len (data, length, NULL) ?
                           "Parse error" : "Parse error: invalid UTF-8", NULL);
      return;
    }
  root = json_parser_steal_root (self->parser);
  if (root == NULL)
    {
      send_protocol_error (self, NULL, GG_JSONRPC_PARSE_ERROR, "Parse error: empty message", NULL);
      return;
    }
  if (JSON_NODE_HOLDS_ARRAY (root))
    {
      send_protocol_error (self, NULL, GG_JSONRPC_INVALID_REQUEST,
                           "Invalid Request: batches are not supported", NULL);
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      send_protocol_error (self, NULL, GG_JSONRPC_INVALID_REQUEST,
                           "Invalid Request: not a JSON object", NULL);
      return;
    }

  obj = json_node_get_object (root);
  raw_id = json_object_get_member (obj, "id");
  method = json_object_get_member (obj, "method");

  /* A response: never answered, so two peers cannot loop on errors. */
  if (method == NULL && (raw_id != NULL || json_object_has_member (obj, "result") ||
                         json_object_has_member (obj, "error")))
    {
      if (big_int && raw_id != NULL && JSON_NODE_HOLDS_VALUE (raw_id) &&
          json_node_get_value_type (raw_id) != G_TYPE_STRING)
        raw_id = NULL;
      handle_response (self, obj, raw_id);
      return;
    }

  /* With a wrapped integer somewhere, a number id cannot be trusted. */
  if (big_int && raw_id != NULL && JSON_NODE_HOLDS_VALUE (raw_id) &&
      json_node_get_value_type (raw_id) != G_TYPE_STRING)
    id = NULL;
  else
    id = _gg_jsonrpc_normalize_id (raw_id);
  if (raw_id != NULL && id == NULL)
    {
      send_protocol_error (self, NULL, GG_JSONRPC_INVALID_REQUEST,
                           "Invalid Request: the id must be a string or an integer", NULL);
      return;
    }
  if (big_int)
    {
      send_protocol_error (self, id, GG_JSONRPC_INVALID_REQUEST,
                           "Invalid Request: integer out of range", NULL);
      return;
    }

  version = json_object_get_member (obj, "jsonrpc");
  if (version == NULL || json_node_get_value_type (version) != G_TYPE_STRING ||
      strcmp (json_node_get_string (version), "2.0") != 0)
    {
      send_protocol_error (self, id, GG_JSONRPC_INVALID_REQUEST,
                           "Invalid Request: \"jsonrpc\" must be \"2.0\"", NULL);
      return;
    }
  if (method == NULL)
    {
      send_protocol_error (self, id, GG_JSONRPC_INVALID_REQUEST,
                           "Invalid Request: missing \"method\"", NULL);
      return;
    }
  if (json_node_get_value_type (method) != G_TYPE_STRING)
    {
      send_protocol_error (self, id, GG_JSONRPC_INVALID_REQUEST,
                           "Invalid Request: \"method\" must be a string", NULL);
      return;
    }
  if (json_object_has_member (obj, "result") || json_object_has_member (obj, "error"))
    {
      send_protocol_error (self, id, GG_JSONRPC_INVALID_REQUEST,
                           "Invalid Request: a request cannot carry \"result\" or \"error\"",
                           NULL);
      return;
    }

  params = json_object_get_member (obj, "params");
  if (params != NULL && JSON_NODE_HOLDS_ARRAY (params))
    {
      if (id != NULL)
        send_protocol_error (self, id, GG_JSONRPC_INVALID_PARAMS,
                             "Invalid params: \"params\" must be an object", NULL);
      else
        g_debug ("JSON-RPC peer %p: notification with array params dropped", self);
      return;
    }
  if (params != NULL && !JSON_NODE_HOLDS_OBJECT (params))
    {
      send_protocol_error (self, id, GG_JSONRPC_INVALID_REQUEST,
                           "Invalid Request: \"params\" must be an object", NULL);
      return;
    }

  dispatch (self, json_node_get_string (method), root,
            params != NULL ? json_node_get_object (params) : NULL, id);
}

static void
on_message (GgFramedStream *stream,
            GBytes         *body,
            gpointer        user_data)
{
  GgJsonRpcPeer *self = user_data;
  g_autoptr(GgJsonRpcPeer) hold = g_object_ref (self);
  gsize length;
  const char *data = g_bytes_get_data (body, &length);

  if (self->disposed || self->closed)
    return;
  handle_message (self, data != NULL ? data : "", length);
}

static void
on_framing_error (GgFramedStream *stream,
                  const GError   *error,
                  gpointer        user_data)
{
  GgJsonRpcPeer *self = user_data;

  g_debug ("JSON-RPC peer %p: %s", self, error->message);
  /* The sender of an oversized request would otherwise wait forever. */
  if (g_error_matches (error, GG_FRAMING_ERROR, GG_FRAMING_ERROR_TOO_LARGE))
    send_protocol_error (self, NULL, GG_JSONRPC_INVALID_REQUEST,
                         "Invalid Request: message exceeds the maximum size", NULL);
}

static void
on_closed (GgFramedStream *stream,
           const GError   *error,
           gpointer        user_data)
{
  GgJsonRpcPeer *self = user_data;
  g_autoptr(GgJsonRpcPeer) hold = g_object_ref (self);

  if (self->closed)
    return;
  self->closed = TRUE;
  if (error != NULL)
    g_debug ("JSON-RPC peer %p: input failed: %s", self, error->message);
  fail_all_pending (self, "The connection was closed");
  if (!self->disposed)
    g_signal_emit (self, signals[SIGNAL_CLOSED], 0);
}

/* GObject */

static void
gg_jsonrpc_peer_dispose (GObject *object)
{
  GgJsonRpcPeer *self = GG_JSONRPC_PEER (object);

  self->disposed = TRUE;
  if (self->stream != NULL)
    {
      g_clear_signal_handler (&self->message_id, self->stream);
      g_clear_signal_handler (&self->framing_error_id, self->stream);
      g_clear_signal_handler (&self->closed_id, self->stream);
    }
  if (self->pending != NULL)
    fail_all_pending (self, "The JSON-RPC peer was disposed");
  g_clear_pointer (&self->fallback, handler_free);
  if (self->methods != NULL)
    g_hash_table_remove_all (self->methods);
  G_OBJECT_CLASS (gg_jsonrpc_peer_parent_class)->dispose (object);
}

static void
gg_jsonrpc_peer_finalize (GObject *object)
{
  GgJsonRpcPeer *self = GG_JSONRPC_PEER (object);

  g_clear_object (&self->stream);
  g_clear_object (&self->parser);
  g_string_free (self->out, TRUE);
  g_clear_pointer (&self->methods, g_hash_table_unref);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_free (self->id_prefix);
  G_OBJECT_CLASS (gg_jsonrpc_peer_parent_class)->finalize (object);
}

static void
gg_jsonrpc_peer_class_init (GgJsonRpcPeerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = gg_jsonrpc_peer_dispose;
  object_class->finalize = gg_jsonrpc_peer_finalize;

  /**
   * GgJsonRpcPeer::closed:
   *
   * The stream ended; every outgoing request still waiting has failed with
   * %G_IO_ERROR_CLOSED.
   */
  signals[SIGNAL_CLOSED] =
    g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);

  /**
   * GgJsonRpcPeer::idle:
   *
   * Every incoming request has been answered (emitted each time the count
   * of unanswered requests drops to zero).
   */
  signals[SIGNAL_IDLE] =
    g_signal_new ("idle", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
gg_jsonrpc_peer_init (GgJsonRpcPeer *self)
{
  self->parser = json_parser_new ();
  self->out = g_string_sized_new (256);
  self->methods = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) handler_free);
  self->pending = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) pending_call_free);
}

/* API */

/**
 * gg_jsonrpc_peer_new:
 * @stream: the framed stream to talk over
 *
 * Creates a peer. Add methods, then call gg_jsonrpc_peer_start().
 *
 * Returns: (transfer full): a new #GgJsonRpcPeer
 */
GgJsonRpcPeer *
gg_jsonrpc_peer_new (GgFramedStream *stream)
{
  GgJsonRpcPeer *self;

  g_return_val_if_fail (GG_IS_FRAMED_STREAM (stream), NULL);

  self = g_object_new (GG_TYPE_JSONRPC_PEER, NULL);
  self->stream = g_object_ref (stream);
  self->message_id = g_signal_connect (stream, "message", G_CALLBACK (on_message), self);
  self->framing_error_id = g_signal_connect (stream, "framing-error",
                                             G_CALLBACK (on_framing_error), self);
  self->closed_id = g_signal_connect (stream, "closed", G_CALLBACK (on_closed), self);
  self->closed = gg_framed_stream_is_closed (stream);
  return self;
}

/**
 * gg_jsonrpc_peer_get_stream:
 * @self: a #GgJsonRpcPeer
 *
 * Returns: (transfer none): the framed stream
 */
GgFramedStream *
gg_jsonrpc_peer_get_stream (GgJsonRpcPeer *self)
{
  g_return_val_if_fail (GG_IS_JSONRPC_PEER (self), NULL);
  return self->stream;
}

/**
 * gg_jsonrpc_peer_add_method:
 * @self: a #GgJsonRpcPeer
 * @method: the method name
 * @func: the handler; it receives each request and answers it once
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data when the method is replaced or
 *   the peer is disposed
 *
 * Registers (or replaces) the handler of @method.
 */
void
gg_jsonrpc_peer_add_method (GgJsonRpcPeer       *self,
                            const char          *method,
                            GgJsonRpcMethodFunc  func,
                            gpointer             user_data,
                            GDestroyNotify       destroy)
{
  Handler *handler;

  g_return_if_fail (GG_IS_JSONRPC_PEER (self));
  g_return_if_fail (method != NULL);
  g_return_if_fail (func != NULL);

  handler = g_new0 (Handler, 1);
  handler->func = func;
  handler->user_data = user_data;
  handler->destroy = destroy;
  g_hash_table_replace (self->methods, g_strdup (method), handler);
}

/**
 * gg_jsonrpc_peer_set_fallback:
 * @self: a #GgJsonRpcPeer
 * @func: (nullable): the handler of methods nobody registered, or %NULL for
 *   the default (-32601 with `data.method`)
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data
 */
void
gg_jsonrpc_peer_set_fallback (GgJsonRpcPeer       *self,
                              GgJsonRpcMethodFunc  func,
                              gpointer             user_data,
                              GDestroyNotify       destroy)
{
  g_return_if_fail (GG_IS_JSONRPC_PEER (self));

  g_clear_pointer (&self->fallback, handler_free);
  if (func != NULL)
    {
      self->fallback = g_new0 (Handler, 1);
      self->fallback->func = func;
      self->fallback->user_data = user_data;
      self->fallback->destroy = destroy;
    }
}

/**
 * gg_jsonrpc_peer_set_id_prefix:
 * @self: a #GgJsonRpcPeer
 * @prefix: (nullable): prefix of generated ids ("t-" gives "t-1", "t-2", ...);
 *   %NULL (the default) sends integer ids
 */
void
gg_jsonrpc_peer_set_id_prefix (GgJsonRpcPeer *self,
                               const char    *prefix)
{
  g_return_if_fail (GG_IS_JSONRPC_PEER (self));
  g_free (self->id_prefix);
  self->id_prefix = g_strdup (prefix);
}

/**
 * gg_jsonrpc_peer_start:
 * @self: a #GgJsonRpcPeer
 *
 * Starts reading the stream.
 */
void
gg_jsonrpc_peer_start (GgJsonRpcPeer *self)
{
  g_return_if_fail (GG_IS_JSONRPC_PEER (self));
  gg_framed_stream_start (self->stream);
}

/**
 * gg_jsonrpc_peer_get_pending_incoming:
 * @self: a #GgJsonRpcPeer
 *
 * Returns: the number of incoming requests not answered yet
 */
guint
gg_jsonrpc_peer_get_pending_incoming (GgJsonRpcPeer *self)
{
  g_return_val_if_fail (GG_IS_JSONRPC_PEER (self), 0);
  return self->pending_incoming;
}

static void
write_request (GgJsonRpcPeer *self,
               const char    *id_json,
               const char    *method,
               JsonNode      *params)
{
  GString *out = self->out;

  g_string_truncate (out, 0);
  g_string_append (out, "{\"jsonrpc\":\"2.0\",");
  if (id_json != NULL)
    {
      g_string_append (out, "\"id\":");
      g_string_append (out, id_json);
      g_string_append_c (out, ',');
    }
  g_string_append (out, "\"method\":");
  _gg_jsonrpc_write_string (out, method);
  if (params != NULL)
    {
      g_string_append (out, ",\"params\":");
      _gg_jsonrpc_write_node (out, params);
    }
  g_string_append_c (out, '}');
}

/**
 * gg_jsonrpc_peer_notify:
 * @self: a #GgJsonRpcPeer
 * @method: the method name
 * @params: (nullable) (transfer none): the params (an object), or %NULL to
 *   leave them out
 *
 * Sends a notification.
 */
void
gg_jsonrpc_peer_notify (GgJsonRpcPeer *self,
                        const char    *method,
                        JsonNode      *params)
{
  g_return_if_fail (GG_IS_JSONRPC_PEER (self));
  g_return_if_fail (method != NULL);

  write_request (self, NULL, method, params);
  send_out (self);
}

/**
 * gg_jsonrpc_peer_call_async:
 * @self: a #GgJsonRpcPeer
 * @method: the method name
 * @params: (nullable) (transfer none): the params (an object), or %NULL
 * @timeout_ms: fail with %G_IO_ERROR_TIMED_OUT after this long; 0 for never
 * @cancellable: (nullable): cancelling fails the call with
 *   %G_IO_ERROR_CANCELLED and forgets it
 * @callback: called with the response
 * @user_data: data for @callback
 *
 * Sends a request. A remote error fails it with %GG_JSONRPC_ERROR; the end
 * of the stream with %G_IO_ERROR_CLOSED.
 *
 * Returns: (transfer full): the id sent, as text
 */
char *
gg_jsonrpc_peer_call_async (GgJsonRpcPeer       *self,
                            const char          *method,
                            JsonNode            *params,
                            guint                timeout_ms,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id_json = NULL;
  char *id_text;
  PendingCall *call;
  GMainContext *context;

  g_return_val_if_fail (GG_IS_JSONRPC_PEER (self), NULL);
  g_return_val_if_fail (method != NULL, NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, gg_jsonrpc_peer_call_async);
  g_task_set_task_data (task, GUINT_TO_POINTER (timeout_ms), NULL);

  self->next_id++;
  if (self->id_prefix != NULL)
    {
      GString *s = g_string_new (NULL);

      id_text = g_strdup_printf ("%s%" G_GUINT64_FORMAT, self->id_prefix, self->next_id);
      _gg_jsonrpc_write_string (s, id_text);
      id_json = g_string_free (s, FALSE);
    }
  else
    {
      id_text = g_strdup_printf ("%" G_GUINT64_FORMAT, self->next_id);
      id_json = g_strdup (id_text);
    }

  if (g_cancellable_set_error_if_cancelled (cancellable, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return id_text;
    }
  if (self->closed || self->disposed)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CLOSED, "The connection is closed");
      return id_text;
    }

  write_request (self, id_json, method, params);
  if (!gg_framed_stream_send (self->stream, self->out->str, self->out->len, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return id_text;
    }

  call = g_new0 (PendingCall, 1);
  call->peer = self;
  call->key = g_strconcat (self->id_prefix != NULL ? "s:" : "i:", id_text, NULL);
  call->task = g_steal_pointer (&task);
  context = g_task_get_context (call->task);
  if (timeout_ms > 0)
    {
      call->timeout = g_timeout_source_new (timeout_ms);
      g_source_set_callback (call->timeout, call_timeout_cb, call, NULL);
      g_source_attach (call->timeout, context);
    }
  if (cancellable != NULL)
    {
      call->cancel = g_cancellable_source_new (cancellable);
      g_source_set_callback (call->cancel, G_SOURCE_FUNC (call_cancelled_cb), call, NULL);
      g_source_attach (call->cancel, context);
    }
  g_hash_table_replace (self->pending, call->key, call);
  return id_text;
}

/**
 * gg_jsonrpc_peer_call_finish:
 * @self: a #GgJsonRpcPeer
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the `result` of the response, or %NULL with
 *   @error set
 */
JsonNode *
gg_jsonrpc_peer_call_finish (GgJsonRpcPeer  *self,
                             GAsyncResult   *result,
                             GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * gg_jsonrpc_peer_close:
 * @self: a #GgJsonRpcPeer
 *
 * Closes the stream (after the queued output is written). Outgoing requests
 * still waiting fail with %G_IO_ERROR_CLOSED and `closed` is emitted.
 */
void
gg_jsonrpc_peer_close (GgJsonRpcPeer *self)
{
  g_autoptr(GgJsonRpcPeer) hold = NULL;

  g_return_if_fail (GG_IS_JSONRPC_PEER (self));

  hold = g_object_ref (self);
  gg_framed_stream_close (self->stream);
  /* The stream was already closed by someone else: still settle here. */
  on_closed (self->stream, NULL, self);
}
