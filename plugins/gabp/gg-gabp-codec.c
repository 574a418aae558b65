/* gg-gabp-codec.c: GABP messages over GgFramedStream.
 *
 * GABP is JSON-RPC-like but not JSON-RPC (`v`/`type` instead of
 * `jsonrpc`, UUID ids, events with per-channel `seq`), so it has its own
 * codec rather than GgJsonRpcPeer. The codec remembers which method each
 * outstanding request (ours and the peer's) was for, so that responses in
 * either direction are checked against their method's response schema.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-gabp-codec.h"

G_DEFINE_QUARK (gg-gabp-error-quark, gg_gabp_error)

struct _GgGabpCodec
{
  GObject parent_instance;

  GgFramedStream *stream;
  GgGabpSchemas  *schemas;
  gboolean        validate;
  gboolean        closed;         /* no more input or output */
  gboolean        closed_emitted; /* `closed` was emitted (also at end of input) */
  GHashTable     *sent;      /* our request id -> method */
  GHashTable     *received;  /* the peer's request id -> method */
};

enum { SIGNAL_REQUEST, SIGNAL_RESPONSE, SIGNAL_EVENT, SIGNAL_INVALID, SIGNAL_CLOSED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (GgGabpCodec, gg_gabp_codec, G_TYPE_OBJECT)

static void
gg_gabp_codec_dispose (GObject *object)
{
  GgGabpCodec *self = GG_GABP_CODEC (object);

  if (self->stream != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->stream, self);
      gg_framed_stream_close (self->stream);
      g_clear_object (&self->stream);
    }
  g_clear_object (&self->schemas);
  G_OBJECT_CLASS (gg_gabp_codec_parent_class)->dispose (object);
}

static void
gg_gabp_codec_finalize (GObject *object)
{
  GgGabpCodec *self = GG_GABP_CODEC (object);

  g_hash_table_unref (self->sent);
  g_hash_table_unref (self->received);
  G_OBJECT_CLASS (gg_gabp_codec_parent_class)->finalize (object);
}

static void
gg_gabp_codec_class_init (GgGabpCodecClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = gg_gabp_codec_dispose;
  object_class->finalize = gg_gabp_codec_finalize;

  signals[SIGNAL_REQUEST] =
    g_signal_new ("request", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING,
                  JSON_TYPE_OBJECT | G_SIGNAL_TYPE_STATIC_SCOPE);
  signals[SIGNAL_RESPONSE] =
    g_signal_new ("response", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_STRING,
                  JSON_TYPE_NODE | G_SIGNAL_TYPE_STATIC_SCOPE,
                  JSON_TYPE_OBJECT | G_SIGNAL_TYPE_STATIC_SCOPE);
  signals[SIGNAL_EVENT] =
    g_signal_new ("event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_UINT64,
                  JSON_TYPE_NODE | G_SIGNAL_TYPE_STATIC_SCOPE);
  signals[SIGNAL_INVALID] =
    g_signal_new ("invalid", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING,
                  G_TYPE_ERROR | G_SIGNAL_TYPE_STATIC_SCOPE);
  signals[SIGNAL_CLOSED] =
    g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1,
                  G_TYPE_ERROR | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
gg_gabp_codec_init (GgGabpCodec *self)
{
  self->validate = TRUE;
  self->sent = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->received = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

const char *
gg_gabp_error_code_message (int code)
{
  switch (code)
    {
    case GG_GABP_ERROR_PARSE: return "Parse error";
    case GG_GABP_ERROR_INVALID_REQUEST: return "Invalid Request";
    case GG_GABP_ERROR_METHOD_NOT_FOUND: return "Method not found";
    case GG_GABP_ERROR_INVALID_PARAMS: return "Invalid params";
    case GG_GABP_ERROR_INTERNAL: return "Internal error";
    case GG_GABP_ERROR_AUTH_FAILED: return "Authentication failed";
    case GG_GABP_ERROR_NO_SESSION: return "Session not established";
    case GG_GABP_ERROR_TOOL_NOT_FOUND: return "Tool not found";
    case GG_GABP_ERROR_TOOL_FAILED: return "Tool failed";
    case GG_GABP_ERROR_RESOURCE_NOT_FOUND: return "Resource not found";
    case GG_GABP_ERROR_RATE_LIMITED: return "Rate limited";
    default: return "Server error";
    }
}

/**
 * gg_gabp_error_get_wire_code:
 * @error: any error
 *
 * Returns: the GABP code to answer @error with: its own code for
 *   %GG_GABP_ERROR, else -32603
 */
int
gg_gabp_error_get_wire_code (const GError *error)
{
  if (error != NULL && error->domain == GG_GABP_ERROR)
    return error->code;
  return GG_GABP_ERROR_INTERNAL;
}

/* Removes @id from @table and returns its method. */
static char *
steal_method (GHashTable *table,
              const char *id)
{
  gpointer key = NULL, value = NULL;

  if (id == NULL || !g_hash_table_steal_extended (table, id, &key, &value))
    return NULL;
  g_free (key);
  return value;
}

static void
close_with_error (GgGabpCodec  *self,
                  const GError *error)
{
  gboolean emit = !self->closed_emitted;

  if (self->closed)
    return;
  self->closed = TRUE;
  self->closed_emitted = TRUE;
  g_object_ref (self);
  if (self->stream != NULL)
    gg_framed_stream_close (self->stream);
  if (emit)
    g_signal_emit (self, signals[SIGNAL_CLOSED], 0, error);
  g_object_unref (self);
}

static const char *
string_member (JsonObject *object,
               const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static void
emit_invalid (GgGabpCodec *self,
              const char  *id,
              const char  *type,
              int          code,
              const char  *message)
{
  g_autoptr(GError) error = g_error_new_literal (GG_GABP_ERROR, code, message);

  g_debug ("invalid message (%d): %s", code, message);
  g_signal_emit (self, signals[SIGNAL_INVALID], 0, id, type, error);
}

/* A message gg_json_parse() refused: reported with the id and type it
 * shows before what broke it, so that a request whose id can be read is
 * answered. Well-formed but for a number beyond a double's range (which
 * the oam bridge answers -32600 too) it is an invalid request; else it is
 * not JSON. */
static void
emit_unparsable (GgGabpCodec  *self,
                 const char   *data,
                 gsize         length,
                 const GError *error)
{
  gboolean complete = FALSE;
  g_autoptr(JsonNode) shown = gg_json_parse_salvage (data, (gssize) length, GG_JSON_DEFAULT_MAX_DEPTH, &complete);
  JsonObject *object = shown != NULL && JSON_NODE_HOLDS_OBJECT (shown) ? json_node_get_object (shown) : NULL;

  emit_invalid (self, string_member (object, "id"), string_member (object, "type"),
                complete ? GG_GABP_ERROR_INVALID_REQUEST : GG_GABP_ERROR_PARSE, error->message);
}

/* Strict on output, lenient on input where real bridges deviate: GABS
 * sends `platform: "darwin"` in session/hello. */
static gboolean
lenient_hello (JsonObject   *object,
               gboolean      envelope_ok,
               const GError *error)
{
  const char *path;

  if (!envelope_ok || error->domain != GG_SCHEMA_ERROR ||
      g_strcmp0 (string_member (object, "method"), "session/hello") != 0)
    return FALSE;
  path = gg_schema_error_get_path (error);
  return g_strcmp0 (path, "#/params/platform") == 0;
}

/* Older bridges send tools/call `parameters` (Lib.GAB still accepts it);
 * 1.0 calls it `arguments`. */
static void
normalize_old_tools_call (JsonObject *object)
{
  JsonNode *params = json_object_get_member (object, "params");
  JsonObject *p;

  if (g_strcmp0 (string_member (object, "method"), "tools/call") != 0 ||
      params == NULL || !JSON_NODE_HOLDS_OBJECT (params))
    return;
  p = json_node_get_object (params);
  if (json_object_has_member (p, "parameters") && !json_object_has_member (p, "arguments"))
    {
      json_object_set_member (p, "arguments", json_node_copy (json_object_get_member (p, "parameters")));
      json_object_remove_member (p, "parameters");
    }
}

/**
 * gg_gabp_codec_process:
 * @self: a codec
 * @data: one message body, without framing
 * @length: its length
 *
 * Parses, validates and dispatches one message, exactly as if it had
 * arrived on the stream (tests and the benchmark call it directly).
 *
 * Returns: %TRUE when the message was valid and dispatched
 */
gboolean
gg_gabp_codec_process (GgGabpCodec *self,
                       const char  *data,
                       gsize        length)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *request_method = NULL;
  JsonObject *object;
  const char *id, *type;
  gboolean envelope_ok = TRUE;

  node = gg_json_parse (data, (gssize) length, GG_JSON_DEFAULT_MAX_DEPTH, &error);
  if (node == NULL)
    {
      emit_unparsable (self, data, length, error);
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      emit_invalid (self, NULL, NULL, GG_GABP_ERROR_INVALID_REQUEST,
                    "a GABP message must be a JSON object");
      return FALSE;
    }
  object = json_node_get_object (node);
  id = string_member (object, "id");
  type = string_member (object, "type");
  /* Said plainly: the envelope schema would only say that no kind of
   * message matched. */
  if (self->validate && id != NULL && !g_uuid_string_is_valid (id))
    {
      emit_invalid (self, id, type, GG_GABP_ERROR_INVALID_REQUEST, "the id must be a UUID");
      return FALSE;
    }
  if (self->validate && id == NULL)
    {
      emit_invalid (self, NULL, type, GG_GABP_ERROR_INVALID_REQUEST,
                    json_object_has_member (object, "id") ? "the id must be a UUID string"
                                                          : "the id is missing");
      return FALSE;
    }
  if (self->validate && g_strcmp0 (type, "request") != 0 && g_strcmp0 (type, "response") != 0 &&
      g_strcmp0 (type, "event") != 0)
    {
      emit_invalid (self, id, NULL, GG_GABP_ERROR_INVALID_REQUEST,
                    "the type must be \"request\", \"response\" or \"event\"");
      return FALSE;
    }

  if (g_strcmp0 (type, "response") == 0)
    request_method = steal_method (self->sent, id);
  else if (g_strcmp0 (type, "request") == 0)
    normalize_old_tools_call (object);

  if (self->validate &&
      !gg_gabp_schemas_validate (self->schemas, node, request_method, &envelope_ok, &error) &&
      !lenient_hello (object, envelope_ok, error))
    {
      int code = (envelope_ok && g_strcmp0 (type, "request") == 0)
                   ? GG_GABP_ERROR_INVALID_PARAMS : GG_GABP_ERROR_INVALID_REQUEST;
      emit_invalid (self, id, type, code, error->message);
      return FALSE;
    }
  /* Checked even when the envelope schema passed: the code below must not
   * rest on what a schema file says. */
  if (id == NULL || type == NULL)
    {
      emit_invalid (self, id, type, GG_GABP_ERROR_INVALID_REQUEST, "missing id or type");
      return FALSE;
    }

  if (g_str_equal (type, "request"))
    {
      const char *method = string_member (object, "method");
      JsonNode *params = json_object_get_member (object, "params");
      g_autoptr(JsonObject) empty = NULL;

      if (method == NULL)
        {
          emit_invalid (self, id, type, GG_GABP_ERROR_INVALID_REQUEST, "missing method");
          return FALSE;
        }
      if (params == NULL || !JSON_NODE_HOLDS_OBJECT (params))
        empty = json_object_new ();
      g_hash_table_replace (self->received, g_strdup (id), g_strdup (method));
      g_signal_emit (self, signals[SIGNAL_REQUEST], 0, id, method,
                     empty != NULL ? empty : json_node_get_object (params));
    }
  else if (g_str_equal (type, "response"))
    {
      JsonNode *err = json_object_get_member (object, "error");
      g_signal_emit (self, signals[SIGNAL_RESPONSE], 0, id,
                     json_object_get_member (object, "result"),
                     err != NULL && JSON_NODE_HOLDS_OBJECT (err) ? json_node_get_object (err) : NULL);
    }
  else if (g_str_equal (type, "event"))
    {
      JsonNode *seq = json_object_get_member (object, "seq");
      JsonNode *payload = json_object_get_member (object, "payload");
      const char *channel = string_member (object, "channel");
      g_autoptr(JsonNode) null_payload = NULL;

      if (channel == NULL || seq == NULL || !JSON_NODE_HOLDS_VALUE (seq) ||
          json_node_get_value_type (seq) != G_TYPE_INT64 || json_node_get_int (seq) < 0)
        {
          emit_invalid (self, id, type, GG_GABP_ERROR_INVALID_REQUEST, "malformed event");
          return FALSE;
        }
      if (payload == NULL)
        payload = null_payload = json_node_new (JSON_NODE_NULL);
      g_signal_emit (self, signals[SIGNAL_EVENT], 0, channel,
                     (guint64) json_node_get_int (seq), payload);
    }
  else
    {
      emit_invalid (self, id, type, GG_GABP_ERROR_INVALID_REQUEST, "unknown message type");
      return FALSE;
    }
  return TRUE;
}

static void
on_message (GgFramedStream *stream,
            GBytes         *body,
            GgGabpCodec    *self)
{
  gsize length;
  const char *data = g_bytes_get_data (body, &length);

  /* A handler may drop the last reference to the codec (a peer that is
   * given up on); keep it alive until the message is dealt with. */
  g_object_ref (self);
  if (!self->closed)
    gg_gabp_codec_process (self, data, length);
  g_object_unref (self);
}

static void
on_framing_error (GgFramedStream *stream,
                  GError         *error,
                  GgGabpCodec    *self)
{
  if (error->domain == GG_FRAMING_ERROR && error->code == GG_FRAMING_ERROR_TOO_LARGE)
    {
      /* The length was known, so the oversized body was skipped whole. */
      emit_invalid (self, NULL, NULL, GG_GABP_ERROR_INVALID_REQUEST, error->message);
      return;
    }
  /* A missing or bad Content-Length: there is no telling where the next
   * message starts, so this connection is over. */
  g_debug ("framing error, closing: %s", error->message);
  close_with_error (self, error);
}

static void
on_closed (GgFramedStream *stream,
           GError         *error,
           GgGabpCodec    *self)
{
  if (error != NULL)
    {
      close_with_error (self, error);
      return;
    }
  /* End of input: answers to what was asked may still go out (a stdio
   * client closes its end after its last request). */
  if (self->closed_emitted)
    return;
  self->closed_emitted = TRUE;
  g_signal_emit (self, signals[SIGNAL_CLOSED], 0, NULL);
}

static GgGabpCodec *
codec_new (GgFramedStream *stream,
           GgGabpSchemas  *schemas)
{
  GgGabpCodec *self = g_object_new (GG_TYPE_GABP_CODEC, NULL);

  self->stream = stream;
  self->schemas = g_object_ref (schemas);
  gg_framed_stream_set_max_message_size (stream, GG_GABP_DEFAULT_MAX_MESSAGE_SIZE);
  g_signal_connect (stream, "message", G_CALLBACK (on_message), self);
  g_signal_connect (stream, "framing-error", G_CALLBACK (on_framing_error), self);
  g_signal_connect (stream, "closed", G_CALLBACK (on_closed), self);
  return self;
}

/**
 * gg_gabp_codec_new:
 * @stream: a connected stream (TCP, Unix socket)
 * @schemas: the GABP schemas
 *
 * Returns: (transfer full): a codec; call gg_gabp_codec_start() to read
 */
GgGabpCodec *
gg_gabp_codec_new (GIOStream     *stream,
                   GgGabpSchemas *schemas)
{
  return codec_new (gg_framed_stream_new_for_io_stream (stream, GG_FRAMING_CONTENT_LENGTH),
                    schemas);
}

/**
 * gg_gabp_codec_new_for_streams:
 * @input: where messages come from
 * @output: where messages go
 * @schemas: the GABP schemas
 *
 * Returns: (transfer full): a codec over a pair of streams (stdio)
 */
GgGabpCodec *
gg_gabp_codec_new_for_streams (GInputStream  *input,
                               GOutputStream *output,
                               GgGabpSchemas *schemas)
{
  return codec_new (gg_framed_stream_new (input, output, GG_FRAMING_CONTENT_LENGTH), schemas);
}

/** gg_gabp_codec_set_validate: turns schema checks on (the default) or off. */
void
gg_gabp_codec_set_validate (GgGabpCodec *self,
                            gboolean     validate)
{
  self->validate = validate;
}

/** gg_gabp_codec_set_max_message_size: the largest body accepted (1 MiB). */
void
gg_gabp_codec_set_max_message_size (GgGabpCodec *self,
                                    gsize        max_size)
{
  gg_framed_stream_set_max_message_size (self->stream, max_size);
}

/** gg_gabp_codec_start: starts reading. */
void
gg_gabp_codec_start (GgGabpCodec *self)
{
  gg_framed_stream_start (self->stream);
}

/** gg_gabp_codec_close: closes the connection; `closed` follows. */
void
gg_gabp_codec_close (GgGabpCodec *self)
{
  close_with_error (self, NULL);
}

/** gg_gabp_codec_is_closed: Returns: %TRUE once `closed` was emitted. */
gboolean
gg_gabp_codec_is_closed (GgGabpCodec *self)
{
  return self->closed;
}

/** gg_gabp_codec_get_stream: Returns: (transfer none): the framed stream. */
GgFramedStream *
gg_gabp_codec_get_stream (GgGabpCodec *self)
{
  return self->stream;
}

/** gg_gabp_codec_forget_request: drops an unanswered request of ours (timed out). */
void
gg_gabp_codec_forget_request (GgGabpCodec *self,
                              const char  *id)
{
  g_hash_table_remove (self->sent, id);
}

/* The id a response carries is the peer's, echoed as it came: only ours
 * (requests, events) must be UUIDs. A response to a request whose id is
 * not one is checked with a stand-in id, so that a bridge with a broken id
 * still hears what was wrong instead of nothing. */
#define STAND_IN_ID "00000000-0000-4000-8000-000000000000"

static gboolean
validate_outgoing (GgGabpCodec *self,
                   JsonObject  *object,
                   const char  *request_method,
                   GError     **error)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);
  const char *id = string_member (object, "id");
  g_autofree char *echoed = NULL;
  gboolean ok;

  if (g_strcmp0 (string_member (object, "type"), "response") == 0 &&
      id != NULL && !g_uuid_string_is_valid (id))
    {
      echoed = g_strdup (id);
      json_object_set_string_member (object, "id", STAND_IN_ID);
    }
  ok = gg_gabp_schemas_validate (self->schemas, node, request_method, NULL, error);
  if (echoed != NULL)
    json_object_set_string_member (object, "id", echoed);
  return ok;
}

static gboolean
send_object (GgGabpCodec *self,
             JsonObject  *object,
             const char  *request_method,
             GError     **error)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);
  g_autofree char *text = NULL;

  if (self->closed)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CLOSED, "the connection is closed");
      return FALSE;
    }
  if (self->validate && !validate_outgoing (self, object, request_method, error))
    {
      g_prefix_error (error, "refusing to send an invalid GABP message: ");
      return FALSE;
    }
  text = gg_json_to_string (node);
  return gg_framed_stream_send (self->stream, text, strlen (text), error);
}

static JsonObject *
envelope_new (const char *id,
              const char *type)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "v", "gabp/1");
  json_object_set_string_member (object, "id", id);
  json_object_set_string_member (object, "type", type);
  return object;
}

/**
 * gg_gabp_codec_send_request:
 * @self: a codec
 * @method: the method
 * @params: (nullable): its parameters
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the new request's id, or %NULL
 */
char *
gg_gabp_codec_send_request (GgGabpCodec *self,
                            const char  *method,
                            JsonObject  *params,
                            GError     **error)
{
  g_autofree char *id = g_uuid_string_random ();
  g_autoptr(JsonObject) object = envelope_new (id, "request");

  json_object_set_string_member (object, "method", method);
  json_object_set_object_member (object, "params",
                                 params != NULL ? json_object_ref (params) : json_object_new ());
  if (!send_object (self, object, NULL, error))
    return NULL;
  g_hash_table_replace (self->sent, g_strdup (id), g_strdup (method));
  return g_steal_pointer (&id);
}

/**
 * gg_gabp_codec_send_result:
 * @self: a codec
 * @id: the id of the peer's request
 * @result: the result
 * @error: return location for a #GError
 *
 * Answers a request. A result that fails the method's response schema is
 * not sent; the peer gets -32603 instead and this returns %FALSE.
 *
 * Returns: %TRUE when the result was sent
 */
gboolean
gg_gabp_codec_send_result (GgGabpCodec *self,
                           const char  *id,
                           JsonNode    *result,
                           GError     **error)
{
  g_autoptr(JsonObject) object = envelope_new (id, "response");
  g_autofree char *method = steal_method (self->received, id);

  json_object_set_member (object, "result", json_node_copy (result));
  if (send_object (self, object, method, error))
    return TRUE;
  if (error != NULL && *error != NULL && (*error)->domain == GG_SCHEMA_ERROR)
    gg_gabp_codec_send_error (self, id, GG_GABP_ERROR_INTERNAL,
                              "the result does not match the method's schema", NULL, NULL);
  return FALSE;
}

/**
 * gg_gabp_codec_send_error:
 * @self: a codec
 * @id: the id of the peer's request
 * @code: the GABP error code
 * @message: (nullable): what went wrong; the code's name when %NULL
 * @data: (nullable): extra data
 * @error: return location for a #GError
 *
 * Returns: %TRUE when the error response was sent
 */
gboolean
gg_gabp_codec_send_error (GgGabpCodec *self,
                          const char  *id,
                          int          code,
                          const char  *message,
                          JsonNode    *data,
                          GError     **error)
{
  g_autoptr(JsonObject) object = envelope_new (id, "response");
  g_autoptr(JsonObject) err = json_object_new ();
  g_autofree char *method = steal_method (self->received, id);

  json_object_set_int_member (err, "code", code);
  json_object_set_string_member (err, "message",
                                 message != NULL && message[0] != '\0'
                                   ? message : gg_gabp_error_code_message (code));
  if (data != NULL)
    json_object_set_member (err, "data", json_node_copy (data));
  json_object_set_object_member (object, "error", g_steal_pointer (&err));
  return send_object (self, object, method, error);
}

/**
 * gg_gabp_codec_send_event:
 * @self: a codec
 * @channel: the channel
 * @seq: its sequence number in @channel
 * @payload: the event data
 * @error: return location for a #GError
 *
 * Returns: %TRUE when the event was sent
 */
gboolean
gg_gabp_codec_send_event (GgGabpCodec *self,
                          const char  *channel,
                          guint64      seq,
                          JsonNode    *payload,
                          GError     **error)
{
  g_autofree char *id = g_uuid_string_random ();
  g_autoptr(JsonObject) object = envelope_new (id, "event");

  json_object_set_string_member (object, "channel", channel);
  json_object_set_int_member (object, "seq", (gint64) seq);
  json_object_set_member (object, "payload", json_node_copy (payload));
  return send_object (self, object, NULL, error);
}
