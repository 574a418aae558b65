/* gg-jsonrpc-peer.c: JSON-RPC 2.0 over a GgFramedStream, both directions:
 * the object, incoming messages and the answers to them. Outgoing requests
 * and notifications are in gg-jsonrpc-call.c.
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

#include "gg-json.h"
#include "gg-jsonrpc-private.h"

enum { SIGNAL_CLOSED, SIGNAL_IDLE, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (GgJsonRpcPeer, gg_jsonrpc_peer, G_TYPE_OBJECT)

static void
handler_free (GgJsonRpcHandler *handler)
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

void
_gg_jsonrpc_peer_send_out (GgJsonRpcPeer *self)
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
  _gg_jsonrpc_peer_send_out (self);
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
  _gg_jsonrpc_peer_send_out (self);
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

/* Incoming messages */

static void
dispatch (GgJsonRpcPeer *self,
          const char    *method,
          JsonNode      *root,
          JsonObject    *params,
          JsonNode      *id)
{
  GgJsonRpcHandler *handler = g_hash_table_lookup (self->methods, method);
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

  if (id != NULL && self->pending_incoming >= GG_JSONRPC_MAX_PENDING_INCOMING)
    {
      /* A client that pipelines without reading its answers would make the
       * peer hold any number of requests: past the bound it is told so at
       * once, and the request is not run. */
      send_protocol_error (self, id, GG_JSONRPC_INTERNAL_ERROR,
                           "Too many requests waiting for their answers (the limit is "
                           G_STRINGIFY (GG_JSONRPC_MAX_PENDING_INCOMING) ")", NULL);
      return;
    }
  if (id != NULL)
    self->pending_incoming++;
  request = _gg_jsonrpc_request_new (self, method, root, params, id);
  handler->func (self, request, handler->user_data);
}

/* Whether @raw_id names one of our outgoing calls still waiting. */
static gboolean
is_pending_id (GgJsonRpcPeer *self,
               JsonNode      *raw_id)
{
  g_autoptr(JsonNode) id = _gg_jsonrpc_normalize_id (raw_id);
  g_autofree char *key = NULL;

  if (id == NULL)
    return FALSE;
  key = _gg_jsonrpc_id_key (id);
  return g_hash_table_contains (self->pending, key);
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
  gboolean big_int = FALSE, big_id = FALSE;
  JsonObject *obj;
  JsonNode *raw_id, *version, *method, *params;

  why = _gg_jsonrpc_precheck ((const guint8 *) data, length, &big_int, &big_id);
  if (why != NULL)
    {
      g_autofree char *message = g_strconcat ("Parse error: ", why, NULL);
      send_protocol_error (self, NULL, GG_JSONRPC_PARSE_ERROR, message, NULL);
      return;
    }
  /* Strict JSON, nearly every message, is built by gg_json_parse() (no
   * GScanner); json-glib reads the rest (lenient input, integers it would
   * wrap: big_int answers those). The precheck bounded the nesting. */
  if (!big_int)
    root = gg_json_parse (data, (gssize) length, G_MAXUINT, NULL);
  if (root == NULL && !json_parser_load_from_data (self->parser, data, (gssize) length, &error))
    {
      g_debug ("JSON-RPC peer %p: %s", self, error->message);
      send_protocol_error (self, NULL, GG_JSONRPC_PARSE_ERROR,
                           g_utf8_validate_len (data, length, NULL) ?
                           "Parse error" : "Parse error: invalid UTF-8", NULL);
      return;
    }
  if (root == NULL)
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

  /* The id is judged by the id alone: json-glib wrapped it only if the
   * precheck saw the id itself out of range, not some other member. */
  if (big_id)
    raw_id = NULL;

  /* A response (it has "result" or "error"): never answered, so two peers
   * cannot loop on errors. A message with neither and no "method" is a
   * broken response only when its id is one of our calls (which then fails
   * as such); otherwise it is answered below as an invalid request, with
   * its id. */
  if (method == NULL && (json_object_has_member (obj, "result") ||
                         json_object_has_member (obj, "error") ||
                         is_pending_id (self, raw_id)))
    {
      _gg_jsonrpc_peer_handle_response (self, obj, raw_id, big_int);
      return;
    }

  id = _gg_jsonrpc_normalize_id (raw_id);
  if ((raw_id != NULL || big_id) && id == NULL)
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
  /* A null member counts as absent, so "params": null means no params. */
  if (params != NULL && JSON_NODE_HOLDS_NULL (params))
    params = NULL;
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
  _gg_jsonrpc_peer_fail_all_pending (self, "The connection was closed");
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
    _gg_jsonrpc_peer_fail_all_pending (self, "The JSON-RPC peer was disposed");
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
   *
   * Since: 1.0
   */
  signals[SIGNAL_CLOSED] =
    g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);

  /**
   * GgJsonRpcPeer::idle:
   *
   * Every incoming request has been answered (emitted each time the count
   * of unanswered requests drops to zero).
   *
   * Since: 1.0
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
                                         _gg_jsonrpc_pending_call_free);
}

/* API */

/**
 * gg_jsonrpc_peer_new:
 * @stream: the framed stream to talk over
 *
 * Creates a peer. Add methods, then call gg_jsonrpc_peer_start().
 *
 * Returns: (transfer full): a new #GgJsonRpcPeer
 *
 * Since: 1.0
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
 * Gets the stream the peer reads and writes.
 *
 * Returns: (transfer none): the framed stream
 *
 * Since: 1.0
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
 *
 * Since: 1.0
 */
void
gg_jsonrpc_peer_add_method (GgJsonRpcPeer       *self,
                            const char          *method,
                            GgJsonRpcMethodFunc  func,
                            gpointer             user_data,
                            GDestroyNotify       destroy)
{
  GgJsonRpcHandler *handler;

  g_return_if_fail (GG_IS_JSONRPC_PEER (self));
  g_return_if_fail (method != NULL);
  g_return_if_fail (func != NULL);

  handler = g_new0 (GgJsonRpcHandler, 1);
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
 *
 * Sets the handler of the methods no handler was added for.
 *
 * Since: 1.0
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
      self->fallback = g_new0 (GgJsonRpcHandler, 1);
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
 *
 * Sets how the ids of outgoing requests look.
 *
 * Since: 1.0
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
 *
 * Since: 1.0
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
 * Counts the incoming requests waiting for their answer.
 *
 * Returns: the number of incoming requests not answered yet
 *
 * Since: 1.0
 */
guint
gg_jsonrpc_peer_get_pending_incoming (GgJsonRpcPeer *self)
{
  g_return_val_if_fail (GG_IS_JSONRPC_PEER (self), 0);
  return self->pending_incoming;
}

/**
 * gg_jsonrpc_peer_close:
 * @self: a #GgJsonRpcPeer
 *
 * Closes the stream (after the queued output is written). Outgoing requests
 * still waiting fail with %G_IO_ERROR_CLOSED and `closed` is emitted.
 *
 * Since: 1.0
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

