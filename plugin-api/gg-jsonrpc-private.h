/* gg-jsonrpc-private.h: what the JSON-RPC request and peer share inside
 * libgamegate. Not installed, not exported.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-jsonrpc-peer.h"

G_BEGIN_DECLS

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
/* The oam-style `data.code` name of a standard code, or NULL. */
const char       *_gg_jsonrpc_code_name            (int            code);

G_END_DECLS
