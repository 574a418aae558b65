/* gg-model.h: one model backend, stepped one inference at a time.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined (GAMEGATE_INSIDE) && !defined (GAMEGATE_COMPILATION)
#error "Only <gamegate.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define GG_MODEL_ERROR (gg_model_error_quark ())
GQuark gg_model_error_quark (void);

/**
 * GgModelError:
 * @GG_MODEL_ERROR_MODEL_UNAVAILABLE: no model can answer (none configured,
 *   the backend is down or still loading)
 * @GG_MODEL_ERROR_GUARDRAIL_VIOLATION: input or output tripped the
 *   backend's safety guardrails
 * @GG_MODEL_ERROR_REFUSAL: the model refused
 * @GG_MODEL_ERROR_CONTEXT_SIZE_EXCEEDED: the conversation does not fit the
 *   context window
 * @GG_MODEL_ERROR_RATE_LIMITED: the backend asks to wait;
 *   `data.retryAfterSeconds` says how long when it is known
 * @GG_MODEL_ERROR_UNSUPPORTED_LANGUAGE: the prompt's language is not
 *   supported
 * @GG_MODEL_ERROR_INVALID_SCHEMA: a schema or tool definition cannot be
 *   used; `data.path` and `data.schemaPath` say where
 * @GG_MODEL_ERROR_TOOL_FAILED: a local tool aborted the turn (client tools
 *   never do)
 * @GG_MODEL_ERROR_CANCELLED: the turn was cancelled
 * @GG_MODEL_ERROR_BUSY: the model session was busy
 * @GG_MODEL_ERROR_INVALID_REQUEST: the model rejected the input (e.g.
 *   unsupported transcript content)
 * @GG_MODEL_ERROR_GENERATION_FAILED: any other model failure
 *
 * Errors of the %GG_MODEL_ERROR domain, in the oam vocabulary (spec section
 * 8): each has a `data.code` name (gg_model_error_to_name()) and the
 * JSON-RPC code -32000 - value (gg_model_error_rpc_code()).
 *
 * Since: 1.0
 */
typedef enum {
  GG_MODEL_ERROR_MODEL_UNAVAILABLE = 1,
  GG_MODEL_ERROR_GUARDRAIL_VIOLATION = 2,
  GG_MODEL_ERROR_REFUSAL = 3,
  GG_MODEL_ERROR_CONTEXT_SIZE_EXCEEDED = 4,
  GG_MODEL_ERROR_RATE_LIMITED = 5,
  GG_MODEL_ERROR_UNSUPPORTED_LANGUAGE = 6,
  GG_MODEL_ERROR_INVALID_SCHEMA = 7,
  GG_MODEL_ERROR_TOOL_FAILED = 8,
  GG_MODEL_ERROR_CANCELLED = 9,
  GG_MODEL_ERROR_BUSY = 10,
  GG_MODEL_ERROR_INVALID_REQUEST = 11,
  GG_MODEL_ERROR_GENERATION_FAILED = 12,
} GgModelError;

const char  *gg_model_error_to_name    (GgModelError code);
gboolean     gg_model_error_from_name  (const char   *name,
                                        GgModelError *out_code);
int          gg_model_error_rpc_code   (GgModelError code);
GError      *gg_model_error_new        (GgModelError code,
                                        JsonObject  *data,
                                        const char  *format,
                                        ...) G_GNUC_PRINTF (3, 4);
JsonObject  *gg_model_error_get_data   (const GError *error);

/**
 * GgToolMode:
 * @GG_TOOL_MODE_ALLOWED: the model may call any visible tool or answer
 * @GG_TOOL_MODE_NONE: tools are hidden; the model must answer
 * @GG_TOOL_MODE_REQUIRED: the model must call one of the visible tools
 *
 * Tool calling mode of one step, as reported in oam's `toolCallingMode`.
 *
 * Since: 1.0
 */
typedef enum {
  GG_TOOL_MODE_ALLOWED,
  GG_TOOL_MODE_NONE,
  GG_TOOL_MODE_REQUIRED,
} GgToolMode;

const char *gg_tool_mode_to_string (GgToolMode mode);

/**
 * GgUsage:
 * @input_tokens: tokens of the request, cached ones included
 * @cached_input_tokens: of @input_tokens, those the backend had cached
 * @output_tokens: tokens of the answer
 *
 * Tokens one step used, as the backend reported them (0 when it did not).
 *
 * Since: 1.0
 */
typedef struct {
  gint64 input_tokens;
  gint64 cached_input_tokens;
  gint64 output_tokens;
} GgUsage;

/**
 * GgModelRequest:
 * @instructions: system instructions (context note already appended), or %NULL
 * @transcript: the conversation so far, oldest first; each entry is an object:
 *   `{"role":"user","text":…}`, `{"role":"assistant","text":…}`,
 *   `{"role":"assistant","toolCalls":[{"id","name","arguments"}]}` or
 *   `{"role":"tool","callId":…,"name":…,"output":"text the model sees"}`
 * @tools: tool definitions visible at this step, `[{"name","description","parameters"}]`
 * @tool_mode: how the model may use @tools
 * @output_schema: a generation schema the answer must follow, or %NULL for text
 * @schema_name: a name for @output_schema ("Response")
 * @sampling: `"greedy"`, `{"topK":n,"seed"?}`, `{"topP":p,"seed"?}` or %NULL
 * @temperature: sampling temperature, or a negative value for the model's default
 * @max_tokens: answer length limit, or 0 for none
 * @stream: whether the caller wants text deltas as they are produced
 *
 * One inference step's input. Reference counted; fields are read-only once
 * the request is handed to a model. The transcript's entry objects are
 * shared with the session's history and later requests (figures derived
 * from them may be remembered per entry): never modify them.
 *
 * Since: 1.0
 */
typedef struct {
  char *instructions;
  JsonArray *transcript;
  JsonArray *tools;
  GgToolMode tool_mode;
  JsonNode *output_schema;
  char *schema_name;
  JsonNode *sampling;
  double temperature;
  gint64 max_tokens;
  gboolean stream;
  /*< private >*/
  gpointer reserved[8];
} GgModelRequest;

#define GG_TYPE_MODEL_REQUEST (gg_model_request_get_type ())
GType           gg_model_request_get_type (void) G_GNUC_CONST;
GgModelRequest *gg_model_request_new      (void);
GgModelRequest *gg_model_request_ref      (GgModelRequest *request);
void            gg_model_request_unref    (GgModelRequest *request);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgModelRequest, gg_model_request_unref)

/**
 * GgModelReply:
 * @text: the full answer text, or %NULL
 * @json: the structured answer of a schema step, or %NULL
 * @tool_calls: tool calls `[{"id","name","arguments"}]`, or %NULL
 * @usage: tokens used by this step
 *
 * One inference step's output: exactly one of @text, @json and @tool_calls
 * is set.
 *
 * Since: 1.0
 */
typedef struct {
  char *text;
  JsonNode *json;
  JsonArray *tool_calls;
  GgUsage usage;
  /*< private >*/
  gpointer reserved[4];
} GgModelReply;

#define GG_TYPE_MODEL_REPLY (gg_model_reply_get_type ())
GType         gg_model_reply_get_type (void) G_GNUC_CONST;
GgModelReply *gg_model_reply_new      (void);
GgModelReply *gg_model_reply_copy     (const GgModelReply *reply);
void          gg_model_reply_free     (GgModelReply *reply);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgModelReply, gg_model_reply_free)

/**
 * GgModelDeltaFunc:
 * @delta: new text; the whole new text when @is_reset
 * @is_reset: %TRUE when the model rewrote what it had streamed so far
 * @user_data: data given to gg_model_step_async()
 *
 * Receives streamed text while a step runs, always before the step completes.
 *
 * Since: 1.0
 */
typedef void (*GgModelDeltaFunc) (const char *delta,
                                  gboolean    is_reset,
                                  gpointer    user_data);

/**
 * GgModel:
 *
 * A model backend: one inference step at a time, asynchronously, with
 * streamed text. Backends are created by the #GgModelFactory a plugin
 * registers with gg_bus_register_model_type(); #GgAgentTurn drives them.
 *
 * Since: 1.0
 */
#define GG_TYPE_MODEL (gg_model_get_type ())
G_DECLARE_INTERFACE (GgModel, gg_model, GG, MODEL, GObject)

struct _GgModelInterface {
  GTypeInterface g_iface;

  const char   *(*get_name)          (GgModel *self);
  gint64        (*get_context_size)  (GgModel *self);
  void          (*step_async)        (GgModel             *self,
                                      GgModelRequest      *request,
                                      GgModelDeltaFunc     on_delta,
                                      gpointer             delta_data,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
  GgModelReply *(*step_finish)       (GgModel       *self,
                                      GAsyncResult  *result,
                                      GError       **error);
  void          (*availability_async)  (GgModel             *self,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data);
  JsonObject   *(*availability_finish) (GgModel       *self,
                                        GAsyncResult  *result,
                                        GError       **error);
  /*< private >*/
  gpointer padding[8];
};

const char   *gg_model_get_name            (GgModel *self);
gint64        gg_model_get_context_size    (GgModel *self);
void          gg_model_step_async          (GgModel             *self,
                                            GgModelRequest      *request,
                                            GgModelDeltaFunc     on_delta,
                                            gpointer             delta_data,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
GgModelReply *gg_model_step_finish         (GgModel       *self,
                                            GAsyncResult  *result,
                                            GError       **error);
void          gg_model_availability_async  (GgModel             *self,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
JsonObject   *gg_model_availability_finish (GgModel       *self,
                                            GAsyncResult  *result,
                                            GError       **error);

/**
 * GgModelFactory:
 * @spec: the model value as a JSON object (`{"type":"scripted",…}`); a plain
 *   string spec such as `"scripted"` arrives as `{"type":"scripted"}`
 * @user_data: data given at registration
 * @error: return location for a #GError; use %G_IO_ERROR_INVALID_ARGUMENT
 *   with a message naming the bad member (`model.steps[2]: …`)
 *
 * Creates a fresh model instance (each session gets its own).
 *
 * Returns: (transfer full): a new #GgModel, or %NULL with @error set
 *
 * Since: 1.0
 */
typedef GgModel *(*GgModelFactory) (JsonObject *spec,
                                    gpointer    user_data,
                                    GError    **error);

G_END_DECLS
