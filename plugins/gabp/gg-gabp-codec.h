/* gg-gabp-codec.h: GABP messages over a Content-Length framed stream, each
 * one checked against the official schemas in both directions.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

#include "gg-gabp-schemas.h"

G_BEGIN_DECLS

/* Error codes on the wire; GG_GABP_ERROR uses them as GError codes. */
#define GG_GABP_ERROR (gg_gabp_error_quark ())
GQuark gg_gabp_error_quark (void);

typedef enum {
  GG_GABP_ERROR_PARSE              = -32700,
  GG_GABP_ERROR_INVALID_REQUEST    = -32600,
  GG_GABP_ERROR_METHOD_NOT_FOUND   = -32601,
  GG_GABP_ERROR_INVALID_PARAMS     = -32602,
  GG_GABP_ERROR_INTERNAL           = -32603,
  GG_GABP_ERROR_AUTH_FAILED        = -31000,
  GG_GABP_ERROR_NO_SESSION         = -31001,
  GG_GABP_ERROR_TOOL_NOT_FOUND     = -31002,
  GG_GABP_ERROR_TOOL_FAILED        = -31003,
  GG_GABP_ERROR_RESOURCE_NOT_FOUND = -31004,
  GG_GABP_ERROR_RATE_LIMITED       = -31005,
} GgGabpErrorCode;

#define GG_GABP_DEFAULT_MAX_MESSAGE_SIZE (1024 * 1024)

#define GG_TYPE_GABP_CODEC (gg_gabp_codec_get_type ())
G_DECLARE_FINAL_TYPE (GgGabpCodec, gg_gabp_codec, GG, GABP_CODEC, GObject)

/* Signals (all after validation):
 *  `request` (id, method, JsonObject *params): params is {} when absent;
 *  `response` (id, JsonNode *result or NULL, JsonObject *error or NULL);
 *  `event` (channel, guint64 seq, JsonNode *payload);
 *  `invalid` (id or NULL, type or NULL, GError *error): a message that is
 *     not JSON or fails its schema; error is GG_GABP_ERROR with the code to
 *     answer with (-32700, -32600 or -32602). @id is the message's id
 *     whenever it is a string, a UUID or not: an error response echoes it
 *     as it came (only ids we make must be UUIDs);
 *  `closed` (GError *error or NULL): the peer is gone, or the framing broke
 *     beyond repair (a bad header: the stream cannot be resynchronised).
 *     At a clean end of input (error NULL) sending still works until
 *     gg_gabp_codec_close(). Emitted once. */
GgGabpCodec *gg_gabp_codec_new                  (GIOStream     *stream,
                                                 GgGabpSchemas *schemas);
GgGabpCodec *gg_gabp_codec_new_for_streams      (GInputStream  *input,
                                                 GOutputStream *output,
                                                 GgGabpSchemas *schemas);
void         gg_gabp_codec_set_validate         (GgGabpCodec *self,
                                                 gboolean     validate);
void         gg_gabp_codec_set_max_message_size (GgGabpCodec *self,
                                                 gsize        max_size);
void         gg_gabp_codec_start                (GgGabpCodec *self);
void         gg_gabp_codec_close                (GgGabpCodec *self);
gboolean     gg_gabp_codec_is_closed            (GgGabpCodec *self);
GgFramedStream *gg_gabp_codec_get_stream        (GgGabpCodec *self);

gboolean     gg_gabp_codec_process              (GgGabpCodec *self,
                                                 const char  *data,
                                                 gsize        length);
char        *gg_gabp_codec_send_request         (GgGabpCodec *self,
                                                 const char  *method,
                                                 JsonObject  *params,
                                                 GError     **error);
gboolean     gg_gabp_codec_send_result          (GgGabpCodec *self,
                                                 const char  *id,
                                                 JsonNode    *result,
                                                 GError     **error);
gboolean     gg_gabp_codec_send_error           (GgGabpCodec *self,
                                                 const char  *id,
                                                 int          code,
                                                 const char  *message,
                                                 JsonNode    *data,
                                                 GError     **error);
gboolean     gg_gabp_codec_send_event           (GgGabpCodec *self,
                                                 const char  *channel,
                                                 guint64      seq,
                                                 JsonNode    *payload,
                                                 GError     **error);
void         gg_gabp_codec_forget_request       (GgGabpCodec *self,
                                                 const char  *id);

const char  *gg_gabp_error_code_message         (int code);
int          gg_gabp_error_get_wire_code        (const GError *error);

G_END_DECLS
