/* gg-jsonrpc-request.c: one incoming JSON-RPC request or notification, and
 * the GG_JSONRPC_ERROR domain that carries a JSON-RPC error with its `data`.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "gg-jsonrpc-private.h"

/* GG_JSONRPC_ERROR: the GError code is the JSON-RPC code; the private part
 * keeps the `data` member. */

typedef struct {
  JsonNode *data;
} GgJsonRpcErrorPrivate;

static void
gg_jsonrpc_error_private_init (GgJsonRpcErrorPrivate *priv)
{
  priv->data = NULL;
}

static void
gg_jsonrpc_error_private_copy (const GgJsonRpcErrorPrivate *src,
                               GgJsonRpcErrorPrivate       *dest)
{
  dest->data = src->data != NULL ? json_node_copy (src->data) : NULL;
}

static void
gg_jsonrpc_error_private_clear (GgJsonRpcErrorPrivate *priv)
{
  g_clear_pointer (&priv->data, json_node_unref);
}

/**
 * gg_jsonrpc_error_quark:
 *
 * The error domain of JSON-RPC errors, %GG_JSONRPC_ERROR: the code of an
 * error is its JSON-RPC code, gg_jsonrpc_error_get_data() its `data`.
 *
 * Returns: the #GQuark of the domain
 *
 * Since: 1.0
 */
/* Defines gg_jsonrpc_error_quark() and gg_jsonrpc_error_get_private(). */
G_DEFINE_EXTENDED_ERROR (GgJsonRpcError, gg_jsonrpc_error)

/**
 * gg_jsonrpc_error_get_data:
 * @error: a #GError
 *
 * Gets the `data` member of a JSON-RPC error.
 *
 * Returns: (transfer none) (nullable): the `data` of a %GG_JSONRPC_ERROR, or
 *   %NULL if it has none or @error is of another domain
 *
 * Since: 1.0
 */
JsonNode *
gg_jsonrpc_error_get_data (const GError *error)
{
  GgJsonRpcErrorPrivate *priv;

  if (error == NULL || error->domain != GG_JSONRPC_ERROR)
    return NULL;
  priv = gg_jsonrpc_error_get_private (error);
  return priv != NULL ? priv->data : NULL;
}

/**
 * gg_jsonrpc_error_new:
 * @code: the JSON-RPC error code
 * @data: (nullable) (transfer none): the error's `data` (copied)
 * @format: printf-style format of the message
 * @...: arguments for @format
 *
 * Creates a %GG_JSONRPC_ERROR whose code is @code.
 *
 * Returns: (transfer full): a new %GG_JSONRPC_ERROR
 *
 * Since: 1.0
 */
GError *
gg_jsonrpc_error_new (int         code,
                      JsonNode   *data,
                      const char *format,
                      ...)
{
  GError *error;
  va_list args;

  va_start (args, format);
  error = g_error_new_valist (GG_JSONRPC_ERROR, code, format, args);
  va_end (args);
  if (data != NULL)
    gg_jsonrpc_error_get_private (error)->data = json_node_copy (data);
  return error;
}

/* GgJsonRpcRequest */

struct _GgJsonRpcRequest
{
  gatomicrefcount  ref_count;
  GgJsonRpcPeer   *peer;
  char            *method;
  JsonNode        *root;
  JsonObject      *params;
  JsonNode        *id;
  gboolean         answered;
};

G_DEFINE_BOXED_TYPE (GgJsonRpcRequest, gg_jsonrpc_request,
                     gg_jsonrpc_request_ref, gg_jsonrpc_request_unref)

GgJsonRpcRequest *
_gg_jsonrpc_request_new (GgJsonRpcPeer *peer,
                         const char    *method,
                         JsonNode      *root,
                         JsonObject    *params,
                         JsonNode      *id)
{
  GgJsonRpcRequest *request = g_new0 (GgJsonRpcRequest, 1);

  g_atomic_ref_count_init (&request->ref_count);
  request->peer = g_object_ref (peer);
  request->method = g_strdup (method);
  request->root = root != NULL ? json_node_ref (root) : NULL;
  request->params = params != NULL ? json_object_ref (params) : json_object_new ();
  request->id = id != NULL ? json_node_ref (id) : NULL;
  /* Answers to notifications are discarded: nothing to wait for. */
  request->answered = (id == NULL);
  return request;
}

/**
 * gg_jsonrpc_request_ref:
 * @request: a #GgJsonRpcRequest
 *
 * Takes a reference on @request.
 *
 * Returns: (transfer full): @request
 *
 * Since: 1.0
 */
GgJsonRpcRequest *
gg_jsonrpc_request_ref (GgJsonRpcRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);
  g_atomic_ref_count_inc (&request->ref_count);
  return request;
}

/**
 * gg_jsonrpc_request_unref:
 * @request: (transfer full): a #GgJsonRpcRequest
 *
 * Drops a reference. Dropping the last one of a request nobody answered
 * answers it with -32603, so the client never waits forever.
 *
 * Since: 1.0
 */
void
gg_jsonrpc_request_unref (GgJsonRpcRequest *request)
{
  g_return_if_fail (request != NULL);

  if (!g_atomic_ref_count_dec (&request->ref_count))
    return;

  if (!request->answered)
    {
      g_autoptr(JsonNode) data = json_node_new (JSON_NODE_OBJECT);
      g_autoptr(JsonObject) obj = json_object_new ();

      json_object_set_string_member (obj, "code", "internal_error");
      json_node_set_object (data, obj);
      g_debug ("request %s dropped without an answer", request->method);
      request->answered = TRUE;
      _gg_jsonrpc_peer_send_error (request->peer, request->id, GG_JSONRPC_INTERNAL_ERROR,
                                   "Internal error: the request was dropped without an answer",
                                   data);
      _gg_jsonrpc_peer_request_done (request->peer);
    }

  g_clear_object (&request->peer);
  g_free (request->method);
  g_clear_pointer (&request->root, json_node_unref);
  g_clear_pointer (&request->params, json_object_unref);
  g_clear_pointer (&request->id, json_node_unref);
  g_free (request);
}

/**
 * gg_jsonrpc_request_get_method:
 * @request: a #GgJsonRpcRequest
 *
 * Gets the method the request calls.
 *
 * Returns: (transfer none): the method name
 *
 * Since: 1.0
 */
const char *
gg_jsonrpc_request_get_method (GgJsonRpcRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);
  return request->method;
}

/**
 * gg_jsonrpc_request_get_params:
 * @request: a #GgJsonRpcRequest
 *
 * Gets the request's parameters.
 *
 * Returns: (transfer none): the `params` object; an empty object when the
 *   message had none, never %NULL
 *
 * Since: 1.0
 */
JsonObject *
gg_jsonrpc_request_get_params (GgJsonRpcRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);
  return request->params;
}

/**
 * gg_jsonrpc_request_get_id:
 * @request: a #GgJsonRpcRequest
 *
 * Gets the request's id as it came in.
 *
 * Returns: (transfer none) (nullable): the id (a string or an integer node),
 *   %NULL for a notification
 *
 * Since: 1.0
 */
JsonNode *
gg_jsonrpc_request_get_id (GgJsonRpcRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);
  return request->id;
}

/**
 * gg_jsonrpc_request_dup_id_string:
 * @request: a #GgJsonRpcRequest
 *
 * Gets the request's id as text, for logs and for naming it in a later
 * message.
 *
 * Returns: (transfer full) (nullable): the id as text (a string id as is, an
 *   integer in decimal), %NULL for a notification
 *
 * Since: 1.0
 */
char *
gg_jsonrpc_request_dup_id_string (GgJsonRpcRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);

  if (request->id == NULL)
    return NULL;
  if (json_node_get_value_type (request->id) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (request->id));
  return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (request->id));
}

/**
 * gg_jsonrpc_request_is_notification:
 * @request: a #GgJsonRpcRequest
 *
 * Tells whether the message is a notification.
 *
 * Returns: %TRUE if the message had no id (no answer is expected)
 *
 * Since: 1.0
 */
gboolean
gg_jsonrpc_request_is_notification (GgJsonRpcRequest *request)
{
  g_return_val_if_fail (request != NULL, FALSE);
  return request->id == NULL;
}

/**
 * gg_jsonrpc_request_get_peer:
 * @request: a #GgJsonRpcRequest
 *
 * Gets the peer the request came in on.
 *
 * Returns: (transfer none): the peer the request came in on
 *
 * Since: 1.0
 */
GgJsonRpcPeer *
gg_jsonrpc_request_get_peer (GgJsonRpcRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);
  return request->peer;
}

/**
 * gg_jsonrpc_request_is_answered:
 * @request: a #GgJsonRpcRequest
 *
 * Tells whether the request was answered.
 *
 * Returns: %TRUE once an answer was sent (always for a notification)
 *
 * Since: 1.0
 */
gboolean
gg_jsonrpc_request_is_answered (GgJsonRpcRequest *request)
{
  g_return_val_if_fail (request != NULL, TRUE);
  return request->answered;
}

/* Marks @request answered; FALSE (with a warning) if it already was. */
static gboolean
begin_answer (GgJsonRpcRequest *request)
{
  if (request->id == NULL)
    return FALSE;
  if (request->answered)
    {
      g_warning (_("JSON-RPC request “%s” answered twice; the second answer is dropped"),
                 request->method);
      return FALSE;
    }
  request->answered = TRUE;
  return TRUE;
}

/**
 * gg_jsonrpc_request_return_result:
 * @request: (transfer full): a #GgJsonRpcRequest
 * @result: (nullable) (transfer none): the result (%NULL sends `null`)
 *
 * Answers @request with a result and drops the caller's reference.
 *
 * Since: 1.0
 */
void
gg_jsonrpc_request_return_result (GgJsonRpcRequest *request,
                                  JsonNode         *result)
{
  g_return_if_fail (request != NULL);

  if (begin_answer (request))
    {
      _gg_jsonrpc_peer_send_result (request->peer, request->id, result);
      _gg_jsonrpc_peer_request_done (request->peer);
    }
  gg_jsonrpc_request_unref (request);
}

/**
 * gg_jsonrpc_request_return_error:
 * @request: (transfer full): a #GgJsonRpcRequest
 * @code: the JSON-RPC error code
 * @data: (nullable) (transfer none): the error's `data`
 * @format: printf-style format of the message
 * @...: arguments for @format
 *
 * Answers @request with an error and drops the caller's reference.
 *
 * Since: 1.0
 */
void
gg_jsonrpc_request_return_error (GgJsonRpcRequest *request,
                                 int               code,
                                 JsonNode         *data,
                                 const char       *format,
                                 ...)
{
  g_return_if_fail (request != NULL);
  g_return_if_fail (format != NULL);

  if (begin_answer (request))
    {
      g_autofree char *message = NULL;
      va_list args;

      va_start (args, format);
      message = g_strdup_vprintf (format, args);
      va_end (args);
      _gg_jsonrpc_peer_send_error (request->peer, request->id, code, message, data);
      _gg_jsonrpc_peer_request_done (request->peer);
    }
  gg_jsonrpc_request_unref (request);
}

/**
 * gg_jsonrpc_request_return_gerror:
 * @request: (transfer full): a #GgJsonRpcRequest
 * @error: the failure
 *
 * Answers @request with @error: a %GG_JSONRPC_ERROR keeps its code and
 * `data`; any other error becomes -32603 with its message. Drops the
 * caller's reference.
 *
 * Since: 1.0
 */
void
gg_jsonrpc_request_return_gerror (GgJsonRpcRequest *request,
                                  const GError     *error)
{
  g_return_if_fail (request != NULL);
  g_return_if_fail (error != NULL);

  if (begin_answer (request))
    {
      if (error->domain == GG_JSONRPC_ERROR)
        _gg_jsonrpc_peer_send_error (request->peer, request->id, error->code,
                                     error->message, gg_jsonrpc_error_get_data (error));
      else
        {
          g_autoptr(JsonNode) data = json_node_new (JSON_NODE_OBJECT);
          g_autoptr(JsonObject) obj = json_object_new ();

          json_object_set_string_member (obj, "code", "internal_error");
          json_node_set_object (data, obj);
          _gg_jsonrpc_peer_send_error (request->peer, request->id, GG_JSONRPC_INTERNAL_ERROR,
                                       error->message, data);
        }
      _gg_jsonrpc_peer_request_done (request->peer);
    }
  gg_jsonrpc_request_unref (request);
}
