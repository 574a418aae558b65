/* gg-jsonrpc-peer.h: JSON-RPC 2.0 over a framed stream, both directions.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined (GAMEGATE_INSIDE) && !defined (GAMEGATE_COMPILATION)
#error "Only <gamegate.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "gg-framed-stream.h"

G_BEGIN_DECLS

/* JsonNode arguments are borrowed (copied or referenced as needed); the
 * getters of GgJsonRpcRequest return values owned by the request.
 * Errors the peer produces itself carry `data.code`: parse_error,
 * invalid_message, method_not_found (plus `data.method`), invalid_params,
 * internal_error. Incoming JSON nested deeper than 128 levels, or with a
 * `\u0000` in a string (C strings would be cut there), is refused with
 * -32700 before it is parsed. */

/**
 * GG_JSONRPC_PARSE_ERROR:
 *
 * The JSON-RPC 2.0 error code -32700: the message is not valid JSON.
 *
 * Since: 1.0
 */
#define GG_JSONRPC_PARSE_ERROR (-32700)
/**
 * GG_JSONRPC_INVALID_REQUEST:
 *
 * The JSON-RPC 2.0 error code -32600: the JSON is not a valid request object.
 *
 * Since: 1.0
 */
#define GG_JSONRPC_INVALID_REQUEST (-32600)
/**
 * GG_JSONRPC_METHOD_NOT_FOUND:
 *
 * The JSON-RPC 2.0 error code -32601: no handler for the method.
 *
 * Since: 1.0
 */
#define GG_JSONRPC_METHOD_NOT_FOUND (-32601)
/**
 * GG_JSONRPC_INVALID_PARAMS:
 *
 * The JSON-RPC 2.0 error code -32602: the params do not fit the method.
 *
 * Since: 1.0
 */
#define GG_JSONRPC_INVALID_PARAMS (-32602)
/**
 * GG_JSONRPC_INTERNAL_ERROR:
 *
 * The JSON-RPC 2.0 error code -32603: the handler failed, or dropped the request without an answer.
 *
 * Since: 1.0
 */
#define GG_JSONRPC_INTERNAL_ERROR (-32603)

/* A remote error response, or a local failure of an outgoing request. The
 * GError code is the JSON-RPC code; gg_jsonrpc_error_get_data() gives `data`. */
#define GG_JSONRPC_ERROR (gg_jsonrpc_error_quark ())
GQuark      gg_jsonrpc_error_quark    (void);
JsonNode   *gg_jsonrpc_error_get_data (const GError *error);
GError     *gg_jsonrpc_error_new      (int         code,
                                       JsonNode   *data,
                                       const char *format,
                                       ...) G_GNUC_PRINTF (3, 4);

/**
 * GgJsonRpcRequest:
 *
 * An incoming request or notification. Like #GDBusMethodInvocation: the
 * handler (or whoever it hands it to) answers it exactly once with
 * gg_jsonrpc_request_return_result(), gg_jsonrpc_request_return_error() or
 * gg_jsonrpc_request_return_gerror(), which consume the reference. A
 * request dropped without an answer is answered with -32603 so the client
 * never waits forever. Answers to notifications are discarded.
 *
 * Since: 1.0
 */
typedef struct _GgJsonRpcRequest GgJsonRpcRequest;
typedef struct _GgJsonRpcPeer GgJsonRpcPeer;

#define GG_TYPE_JSONRPC_REQUEST (gg_jsonrpc_request_get_type ())
GType             gg_jsonrpc_request_get_type        (void) G_GNUC_CONST;
GgJsonRpcRequest *gg_jsonrpc_request_ref             (GgJsonRpcRequest *request);
void              gg_jsonrpc_request_unref           (GgJsonRpcRequest *request);
const char       *gg_jsonrpc_request_get_method      (GgJsonRpcRequest *request);
JsonObject       *gg_jsonrpc_request_get_params      (GgJsonRpcRequest *request);
JsonNode         *gg_jsonrpc_request_get_id          (GgJsonRpcRequest *request);
char             *gg_jsonrpc_request_dup_id_string   (GgJsonRpcRequest *request);
gboolean          gg_jsonrpc_request_is_notification (GgJsonRpcRequest *request);
GgJsonRpcPeer    *gg_jsonrpc_request_get_peer        (GgJsonRpcRequest *request);
gboolean          gg_jsonrpc_request_is_answered     (GgJsonRpcRequest *request);
void              gg_jsonrpc_request_return_result   (GgJsonRpcRequest *request,
                                                      JsonNode         *result);
void              gg_jsonrpc_request_return_error    (GgJsonRpcRequest *request,
                                                      int               code,
                                                      JsonNode         *data,
                                                      const char       *format,
                                                      ...) G_GNUC_PRINTF (4, 5);
void              gg_jsonrpc_request_return_gerror   (GgJsonRpcRequest *request,
                                                      const GError     *error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgJsonRpcRequest, gg_jsonrpc_request_unref)

/**
 * GgJsonRpcMethodFunc:
 * @peer: the peer the request came in on
 * @request: (transfer full): the request; answer it exactly once
 * @user_data: data given to gg_jsonrpc_peer_add_method()
 *
 * Handles one incoming request or notification of a method.
 *
 * Since: 1.0
 */
typedef void (*GgJsonRpcMethodFunc) (GgJsonRpcPeer    *peer,
                                     GgJsonRpcRequest *request,
                                     gpointer          user_data);

/**
 * GgJsonRpcPeer:
 *
 * Both ends of JSON-RPC 2.0 over a #GgFramedStream: incoming requests go to
 * the handlers added with gg_jsonrpc_peer_add_method(), outgoing ones are
 * sent with gg_jsonrpc_peer_call_async() and matched to their responses.
 * Ids are echoed exactly; batches are refused.
 *
 * Since: 1.0
 */
#define GG_TYPE_JSONRPC_PEER (gg_jsonrpc_peer_get_type ())
G_DECLARE_FINAL_TYPE (GgJsonRpcPeer, gg_jsonrpc_peer, GG, JSONRPC_PEER, GObject)

/* Signals:
 *  `closed` (): the stream ended; outstanding outgoing requests have failed
 *     with G_IO_ERROR_CLOSED;
 *  `idle` (): no incoming request is waiting for its answer any more
 *     (emitted each time the count drops to zero). */
/* gg_jsonrpc_peer_call_async() returns the id it sent (transfer full), so a
 * caller can name the request in a later notification (oam's tool/cancel). */
GgJsonRpcPeer *gg_jsonrpc_peer_new                   (GgFramedStream *stream);
GgFramedStream *gg_jsonrpc_peer_get_stream           (GgJsonRpcPeer *self);
void           gg_jsonrpc_peer_add_method            (GgJsonRpcPeer       *self,
                                                      const char          *method,
                                                      GgJsonRpcMethodFunc  func,
                                                      gpointer             user_data,
                                                      GDestroyNotify       destroy);
void           gg_jsonrpc_peer_set_fallback          (GgJsonRpcPeer       *self,
                                                      GgJsonRpcMethodFunc  func,
                                                      gpointer             user_data,
                                                      GDestroyNotify       destroy);
void           gg_jsonrpc_peer_set_id_prefix         (GgJsonRpcPeer *self,
                                                      const char    *prefix);
void           gg_jsonrpc_peer_start                 (GgJsonRpcPeer *self);
guint          gg_jsonrpc_peer_get_pending_incoming  (GgJsonRpcPeer *self);
void           gg_jsonrpc_peer_notify                (GgJsonRpcPeer *self,
                                                      const char    *method,
                                                      JsonNode      *params);
char          *gg_jsonrpc_peer_call_async            (GgJsonRpcPeer       *self,
                                                      const char          *method,
                                                      JsonNode            *params,
                                                      guint                timeout_ms,
                                                      GCancellable        *cancellable,
                                                      GAsyncReadyCallback  callback,
                                                      gpointer             user_data);
JsonNode      *gg_jsonrpc_peer_call_finish           (GgJsonRpcPeer  *self,
                                                      GAsyncResult   *result,
                                                      GError        **error);
void           gg_jsonrpc_peer_close                 (GgJsonRpcPeer *self);

G_END_DECLS
