/* gg-openai-private.h: the pieces of the model-openai backend, shared by its
 * files and its unit tests; not plugin API, nothing here is exported.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

/* Limits on what a server may send us. */
#define GG_OPENAI_MAX_BODY         (16 * 1024 * 1024) /* a whole non-streamed body */
#define GG_OPENAI_MAX_ERROR_BODY   (64 * 1024)        /* an error body */
#define GG_OPENAI_MAX_SSE_EVENT    (4 * 1024 * 1024)  /* one server-sent event */
#define GG_OPENAI_MAX_ANSWER       (8 * 1024 * 1024)  /* assembled text or arguments */
#define GG_OPENAI_MAX_TOOL_CALLS   128                /* tool calls in one step */
#define GG_OPENAI_MAX_MODEL_IDS    4096               /* entries of GET /models */
/* A token count a server reports is cut to this (about 10^12): the sum over a
 * turn's steps then cannot overflow, whatever the server claims. */
#define GG_OPENAI_MAX_USAGE_TOKENS (G_GINT64_CONSTANT (1) << 40)

/* Members of a certain type, or NULL: the json-glib getters complain
 * (criticals) about input that is merely wrong. */
static inline const char *
gg_openai_get_string (JsonObject *object,
                      const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);
  return NULL;
}

static inline JsonObject *
gg_openai_get_object (JsonObject *object,
                      const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

static inline JsonArray *
gg_openai_get_array (JsonObject *object,
                     const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

/* ---- settings ---------------------------------------------------------- */

/**
 * GgOpenaiSettings:
 * @base_url: the API root ending in `/v1`, without a trailing slash
 * @model: the model name sent in every request
 * @api_key: (nullable): the secret, never logged
 * @timeout_s: limit of one HTTP exchange, seconds
 * @retries: extra attempts after a 429/5xx or a dropped connection
 * @retry_base_ms: first backoff delay; doubles each attempt
 * @context_size: the model's context window, 0 when unknown
 * @temperature: default temperature, negative for the server's default
 * @max_tokens: default answer limit, 0 for none
 * @accepts_top_k: whether `top_k` may be sent (OpenAI itself rejects it)
 *
 * One model's effective configuration: the `[model-openai]` group with the
 * per-request spec members on top.
 */
typedef struct {
  char *base_url;
  char *model;
  char *api_key;
  double timeout_s;
  gint64 retries;
  gint64 retry_base_ms;
  gint64 context_size;
  double temperature;
  gint64 max_tokens;
  gboolean accepts_top_k;
} GgOpenaiSettings;

void  gg_openai_settings_copy   (GgOpenaiSettings       *dest,
                                 const GgOpenaiSettings *src);
void  gg_openai_settings_clear  (GgOpenaiSettings *settings);
char *gg_openai_redact_url      (const char *url);
char *gg_openai_normalize_url   (const char  *url,
                                 GError     **error);
gboolean gg_openai_settings_apply_spec (GgOpenaiSettings  *settings,
                                        JsonObject        *spec,
                                        const char        *configured_url,
                                        GError           **error);

/* ---- the plugin-wide client: one HTTP session and the /models cache ---- */

#define GG_TYPE_OPENAI_CLIENT (gg_openai_client_get_type ())
G_DECLARE_FINAL_TYPE (GgOpenaiClient, gg_openai_client, GG, OPENAI_CLIENT, GObject)

GgOpenaiClient *gg_openai_client_new            (const GgOpenaiSettings *defaults,
                                                 gint64                  max_concurrent);
const GgOpenaiSettings *gg_openai_client_get_defaults (GgOpenaiClient *self);
SoupSession    *gg_openai_client_get_session    (GgOpenaiClient *self);
void            gg_openai_client_list_models_async  (GgOpenaiClient      *self,
                                                     const GgOpenaiSettings *settings,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
GStrv           gg_openai_client_list_models_finish (GgOpenaiClient  *self,
                                                     GAsyncResult    *result,
                                                     GError         **error);
GStrv           gg_openai_parse_model_ids       (GBytes  *body,
                                                 GError **error);
GgModel        *gg_openai_client_create_model   (GgOpenaiClient  *self,
                                                 JsonObject      *spec,
                                                 GError         **error);

/* ---- the model --------------------------------------------------------- */

#define GG_TYPE_OPENAI_MODEL (gg_openai_model_get_type ())
G_DECLARE_FINAL_TYPE (GgOpenaiModel, gg_openai_model, GG, OPENAI_MODEL, GObject)

GgModel *gg_openai_model_new (GgOpenaiClient         *client,
                              const GgOpenaiSettings *settings);

/* ---- request bodies ---------------------------------------------------- */

char     *gg_openai_tool_wire_name (const char *name);
JsonNode *gg_openai_build_request (const GgModelRequest   *request,
                                   const GgOpenaiSettings *settings,
                                   gboolean                stream,
                                   GError                **error);

/* ---- strict json_schema ------------------------------------------------ */

JsonNode *gg_openai_strict_schema        (JsonNode  *schema,
                                          gboolean  *out_wrapped,
                                          GError   **error);
gboolean  gg_openai_strict_schema_wraps  (JsonNode  *schema);
JsonNode *gg_openai_strict_schema_unmap  (JsonNode *schema,
                                          JsonNode *answer,
                                          gboolean  wrapped);

/* ---- assembling an answer (streamed or not) ---------------------------- */

typedef struct _GgOpenaiAnswer GgOpenaiAnswer;

GgOpenaiAnswer *gg_openai_answer_new          (void);
void            gg_openai_answer_free         (GgOpenaiAnswer *answer);
gboolean        gg_openai_answer_add_chunk    (GgOpenaiAnswer  *answer,
                                               JsonNode        *chunk,
                                               GString         *out_delta,
                                               GError         **error);
gboolean        gg_openai_answer_add_message  (GgOpenaiAnswer  *answer,
                                               JsonNode        *body,
                                               GError         **error);
gboolean        gg_openai_answer_is_finished  (GgOpenaiAnswer *answer);
GgModelReply   *gg_openai_answer_to_reply     (GgOpenaiAnswer        *answer,
                                               const GgModelRequest  *request,
                                               GError               **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgOpenaiAnswer, gg_openai_answer_free)

GgModelReply *gg_openai_parse_response (const char            *data,
                                        gsize                  length,
                                        const GgModelRequest  *request,
                                        GError               **error);

/* ---- server-sent events ------------------------------------------------ */

typedef struct _GgOpenaiSse GgOpenaiSse;

/**
 * GgOpenaiSseFunc:
 * @event: the event type ("message" when the server named none)
 * @data: the event's data lines joined with "\n"
 * @user_data: data given to gg_openai_sse_new()
 * @error: set when returning %FALSE
 *
 * Returns: %FALSE to stop parsing with @error
 */
typedef gboolean (*GgOpenaiSseFunc) (const char  *event,
                                     const char  *data,
                                     gpointer     user_data,
                                     GError     **error);

GgOpenaiSse *gg_openai_sse_new    (gsize            max_event,
                                   GgOpenaiSseFunc  func,
                                   gpointer         user_data);
void         gg_openai_sse_free   (GgOpenaiSse *sse);
gboolean     gg_openai_sse_feed   (GgOpenaiSse  *sse,
                                   const char   *data,
                                   gsize         length,
                                   GError      **error);
gboolean     gg_openai_sse_finish (GgOpenaiSse  *sse,
                                   GError      **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgOpenaiSse, gg_openai_sse_free)

/* The streaming decoder: SSE in, answer chunks assembled, text deltas out. */
typedef struct _GgOpenaiStream GgOpenaiStream;

GgOpenaiStream *gg_openai_stream_new      (GgModelDeltaFunc  on_delta,
                                           gpointer          delta_data);
void            gg_openai_stream_free     (GgOpenaiStream *stream);
gboolean        gg_openai_stream_feed     (GgOpenaiStream  *stream,
                                           const char      *data,
                                           gsize            length,
                                           GError         **error);
gboolean        gg_openai_stream_finish   (GgOpenaiStream  *stream,
                                           GError         **error);
gboolean        gg_openai_stream_forwarded (GgOpenaiStream *stream);
gboolean        gg_openai_stream_got_data  (GgOpenaiStream *stream);
GgOpenaiAnswer *gg_openai_stream_get_answer (GgOpenaiStream *stream);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgOpenaiStream, gg_openai_stream_free)

/* ---- errors ------------------------------------------------------------ */

GError  *gg_openai_error_from_status  (guint                   status,
                                       const char             *body,
                                       gsize                   length,
                                       const char             *retry_after,
                                       const GgOpenaiSettings *settings,
                                       gboolean               *out_retryable,
                                       double                 *out_retry_after_s);
GError  *gg_openai_error_from_body    (JsonObject             *error_object,
                                       guint                   status,
                                       const GgOpenaiSettings *settings);
GError  *gg_openai_error_from_io      (const GError           *io_error,
                                       const GgOpenaiSettings *settings,
                                       gboolean               *out_retryable);
double   gg_openai_parse_retry_after  (const char *value,
                                       GDateTime  *now);
char    *gg_openai_redact             (const char             *text,
                                       const GgOpenaiSettings *settings);
/* Every copy of the configured key in @error's message becomes
 * "[redacted]": a server may echo the key anywhere (an error object in a
 * 200 body, an SSE error event), where the key is not known. */
void     gg_openai_error_redact_key   (GError                 *error,
                                       const GgOpenaiSettings *settings);

G_END_DECLS
