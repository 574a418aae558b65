/* gg-jsonrpc-private.h: what the JSON-RPC request and peer share inside
 * libgamegate. Not installed, not exported.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-jsonrpc-peer.h"

G_BEGIN_DECLS

/* Incoming requests a peer holds unanswered at most; past it a request is
 * answered -32603 at once (HACKING.md, Limits). */
#define GG_JSONRPC_MAX_PENDING_INCOMING 4096

typedef struct {
  GgJsonRpcMethodFunc func;
  gpointer            user_data;
  GDestroyNotify      destroy;
} GgJsonRpcHandler;

struct _GgJsonRpcPeer
{
  GObject parent_instance;

  GgFramedStream   *stream;
  gulong            message_id;
  gulong            framing_error_id;
  gulong            closed_id;
  JsonParser       *parser;           /* reused for every message */
  GString          *out;              /* reused for every outgoing message */
  GHashTable       *methods;          /* name -> GgJsonRpcHandler */
  GgJsonRpcHandler *fallback;
  char             *id_prefix;
  guint64           next_id;
  GHashTable       *pending;          /* id key -> PendingCall */
  guint             pending_incoming;
  gboolean          closed;
  gboolean          disposed;
};

/* gg-jsonrpc-request.c and gg-jsonrpc-peer.c */

/* Takes references on @root (the parsed message), @params and @id (both
 * nullable). A request with an @id counts as pending on @peer until answered. */
GgJsonRpcRequest *_gg_jsonrpc_request_new          (GgJsonRpcPeer *peer,
                                                    const char    *method,
                                                    JsonNode      *root,
                                                    JsonObject    *params,
                                                    JsonNode      *id);

/* Writes a response; @result and @data are nullable (a NULL result is null). */
void              _gg_jsonrpc_peer_send_result     (GgJsonRpcPeer *self,
                                                    JsonNode      *id,
                                                    JsonNode      *result);
void              _gg_jsonrpc_peer_send_error      (GgJsonRpcPeer *self,
                                                    JsonNode      *id,
                                                    int            code,
                                                    const char    *message,
                                                    JsonNode      *data);
/* One incoming request with an id was answered (or dropped). */
void              _gg_jsonrpc_peer_request_done    (GgJsonRpcPeer *self);
/* Sends the message in @self->out. */
void              _gg_jsonrpc_peer_send_out        (GgJsonRpcPeer *self);
/* The oam-style `data.code` name of a standard code, or NULL. */
const char       *_gg_jsonrpc_code_name            (int            code);

/* gg-jsonrpc-call.c */

/* Frees an entry of GgJsonRpcPeer.pending (its task already returned). */
void              _gg_jsonrpc_pending_call_free    (gpointer       call);
/* Fails every outgoing request still waiting with G_IO_ERROR_CLOSED. */
void              _gg_jsonrpc_peer_fail_all_pending (GgJsonRpcPeer *self,
                                                     const char    *why);
/* Completes the outgoing request a response (with @raw_id) answers;
 * @big_int: the response holds an integer json-glib could not read, so
 * the request fails rather than see a wrapped value. */
void              _gg_jsonrpc_peer_handle_response (GgJsonRpcPeer *self,
                                                    JsonObject    *obj,
                                                    JsonNode      *raw_id,
                                                    gboolean       big_int);

/* gg-jsonrpc-wire.c */

/* Why @data (not NUL-terminated) cannot be handed to json-glib, or NULL:
 * nesting beyond 128 levels, more than one value, tokens JSON does not
 * have. Sets @big_int if an integer does not fit in 64 bits, and @big_id
 * if that integer is the top-level "id" itself. */
const char       *_gg_jsonrpc_precheck             (const guint8  *data,
                                                    gsize          length,
                                                    gboolean      *big_int,
                                                    gboolean      *big_id);
/* Compact JSON output (NULL is written as null). */
void              _gg_jsonrpc_write_string         (GString       *out,
                                                    const char    *s);
void              _gg_jsonrpc_write_node           (GString       *out,
                                                    JsonNode      *node);
typedef struct {
  GString  *out;
  gboolean  first;
} GgJsonRpcMemberWriter;
/* A json_object_foreach_member() callback writing `"name":value` pairs. */
void              _gg_jsonrpc_write_member         (JsonObject    *object,
                                                    const char    *name,
                                                    JsonNode      *node,
                                                    gpointer       user_data);
/* A usable id (string, or integer within +-(2^53-1); integral doubles
 * become integers), or NULL. */
JsonNode         *_gg_jsonrpc_normalize_id         (JsonNode      *node);
/* Key of an id in a table of pending calls: "1" and 1 differ. */
char             *_gg_jsonrpc_id_key               (JsonNode      *id);

G_END_DECLS
