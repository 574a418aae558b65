/* gg-jsonrpc-call.c: the outgoing side of a #GgJsonRpcPeer: notifications,
 * requests waiting for their response (with timeout and cancellation), and
 * matching responses to them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "gg-jsonrpc-private.h"

typedef struct {
  GgJsonRpcPeer *peer;          /* not a reference: the task holds one */
  char          *key;
  GTask         *task;
  GSource       *timeout;
  GSource       *cancel;
} PendingCall;

void
_gg_jsonrpc_pending_call_free (gpointer data)
{
  PendingCall *call = data;

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

void
_gg_jsonrpc_peer_fail_all_pending (GgJsonRpcPeer *self,
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

void
_gg_jsonrpc_peer_handle_response (GgJsonRpcPeer *self,
                                  JsonObject    *obj,
                                  JsonNode      *raw_id,
                                  gboolean       big_int)
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

  if (big_int)
    {
      g_message (_("JSON-RPC peer answered request %s with an integer out of range"), key + 2);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                               "The response to request %s holds an integer out of range", key + 2);
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
 *
 * Since: 1.0
 */
void
gg_jsonrpc_peer_notify (GgJsonRpcPeer *self,
                        const char    *method,
                        JsonNode      *params)
{
  g_return_if_fail (GG_IS_JSONRPC_PEER (self));
  g_return_if_fail (method != NULL);

  write_request (self, NULL, method, params);
  _gg_jsonrpc_peer_send_out (self);
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
 *
 * Since: 1.0
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
 * Finishes gg_jsonrpc_peer_call_async().
 *
 * Returns: (transfer full): the `result` of the response, or %NULL with
 *   @error set
 *
 * Since: 1.0
 */
JsonNode *
gg_jsonrpc_peer_call_finish (GgJsonRpcPeer  *self,
                             GAsyncResult   *result,
                             GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

