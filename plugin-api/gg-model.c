/* gg-model.c: the model interface, its request/reply boxes and its errors.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-model.h"
#include "gg-bus-observer-private.h"
#include "gg-json.h"
#include "gg-model-private.h"

/* ---- errors ------------------------------------------------------------ */

typedef struct {
  JsonObject *data;
  gboolean outside_schema;  /* _gg_model_error_set_outside_schema() */
} GgModelErrorPrivate;

static void
gg_model_error_private_init (GgModelErrorPrivate *priv)
{
  priv->data = NULL;
  priv->outside_schema = FALSE;
}

static void
gg_model_error_private_copy (const GgModelErrorPrivate *src,
                             GgModelErrorPrivate       *dest)
{
  dest->data = src->data != NULL ? json_object_ref (src->data) : NULL;
  dest->outside_schema = src->outside_schema;
}

static void
gg_model_error_private_clear (GgModelErrorPrivate *priv)
{
  g_clear_pointer (&priv->data, json_object_unref);
}

/**
 * gg_model_error_quark:
 *
 * The error domain of model failures, %GG_MODEL_ERROR.
 *
 * Returns: the #GQuark of the domain
 *
 * Since: 1.0
 */
/* Extended error: the private part carries the error's extra `data` members
 * (retryAfterSeconds, path, schemaPath, ...) through g_error_copy() and GTask. */
G_DEFINE_EXTENDED_ERROR (GgModelError, gg_model_error)

/* Indexed by code; the oam `data.code` strings of spec section 8. */
static const char *const error_names[] = {
  [GG_MODEL_ERROR_MODEL_UNAVAILABLE] = "model_unavailable",
  [GG_MODEL_ERROR_GUARDRAIL_VIOLATION] = "guardrail_violation",
  [GG_MODEL_ERROR_REFUSAL] = "refusal",
  [GG_MODEL_ERROR_CONTEXT_SIZE_EXCEEDED] = "context_size_exceeded",
  [GG_MODEL_ERROR_RATE_LIMITED] = "rate_limited",
  [GG_MODEL_ERROR_UNSUPPORTED_LANGUAGE] = "unsupported_language",
  [GG_MODEL_ERROR_INVALID_SCHEMA] = "invalid_schema",
  [GG_MODEL_ERROR_TOOL_FAILED] = "tool_failed",
  [GG_MODEL_ERROR_CANCELLED] = "cancelled",
  [GG_MODEL_ERROR_BUSY] = "busy",
  [GG_MODEL_ERROR_INVALID_REQUEST] = "invalid_request",
  [GG_MODEL_ERROR_GENERATION_FAILED] = "generation_failed",
};

/**
 * gg_model_error_to_name:
 * @code: a #GgModelError
 *
 * Gets the oam name of a model error code.
 *
 * Returns: (transfer none) (nullable): the oam `data.code` string of @code
 *   ("guardrail_violation"), or %NULL for a value outside the enum
 *
 * Since: 1.0
 */
const char *
gg_model_error_to_name (GgModelError code)
{
  if ((int) code < GG_MODEL_ERROR_MODEL_UNAVAILABLE ||
      (int) code > GG_MODEL_ERROR_GENERATION_FAILED)
    return NULL;
  return error_names[code];
}

/**
 * gg_model_error_from_name:
 * @name: an oam `data.code` string
 * @out_code: (out) (optional): the matching code
 *
 * Looks up the error code of an oam `data.code` name.
 *
 * Returns: %TRUE when @name is one of the model error names
 *
 * Since: 1.0
 */
gboolean
gg_model_error_from_name (const char   *name,
                          GgModelError *out_code)
{
  if (name == NULL)
    return FALSE;
  for (int i = GG_MODEL_ERROR_MODEL_UNAVAILABLE; i <= GG_MODEL_ERROR_GENERATION_FAILED; i++)
    {
      if (g_strcmp0 (error_names[i], name) == 0)
        {
          if (out_code != NULL)
            *out_code = (GgModelError) i;
          return TRUE;
        }
    }
  return FALSE;
}

/**
 * gg_model_error_rpc_code:
 * @code: a #GgModelError
 *
 * Gets the JSON-RPC error code a model error is sent with.
 *
 * Returns: the JSON-RPC error code of @code (-32001 … -32012)
 *
 * Since: 1.0
 */
int
gg_model_error_rpc_code (GgModelError code)
{
  return -32000 - (int) code;
}

/**
 * gg_model_error_new:
 * @code: a #GgModelError
 * @data: (nullable): extra members of the error's `data` object
 *   (e.g. `retryAfterSeconds`); referenced, do not modify it afterwards
 * @format: printf-style message
 * @...: arguments for @format
 *
 * Creates a model error whose `data.code` is the name of @code.
 *
 * Returns: (transfer full): a new #GError in %GG_MODEL_ERROR
 *
 * Since: 1.0
 */
GError *
gg_model_error_new (GgModelError code,
                    JsonObject  *data,
                    const char  *format,
                    ...)
{
  va_list args;
  GError *error;

  va_start (args, format);
  error = g_error_new_valist (GG_MODEL_ERROR, code, format, args);
  va_end (args);

  if (data != NULL)
    {
      GgModelErrorPrivate *priv = gg_model_error_get_private (error);
      priv->data = json_object_ref (data);
    }
  return error;
}

/**
 * gg_model_error_get_data:
 * @error: a #GError
 *
 * Gets the extra `data` members of a model error.
 *
 * Returns: (transfer none) (nullable): the extra data given to
 *   gg_model_error_new(), or %NULL (also for errors of other domains)
 *
 * Since: 1.0
 */
JsonObject *
gg_model_error_get_data (const GError *error)
{
  GgModelErrorPrivate *priv;

  if (error == NULL || error->domain != GG_MODEL_ERROR)
    return NULL;
  priv = gg_model_error_get_private (error);
  return priv != NULL ? priv->data : NULL;
}

/* Not API: marks @error (of GG_MODEL_ERROR) as the model's answer being
 * outside the turn's output schema, the failure a decision asks again for.
 * A flag rather than the message's wording, which is free to change.
 * Returns: @error */
GError *
_gg_model_error_set_outside_schema (GError *error)
{
  GgModelErrorPrivate *priv = error != NULL && error->domain == GG_MODEL_ERROR ?
                              gg_model_error_get_private (error) : NULL;

  if (priv != NULL)
    priv->outside_schema = TRUE;
  return error;
}

/* Not API: whether @error says the model's answer was outside the schema. */
gboolean
_gg_model_error_is_outside_schema (const GError *error)
{
  GgModelErrorPrivate *priv = error != NULL && error->domain == GG_MODEL_ERROR ?
                              gg_model_error_get_private (error) : NULL;

  return priv != NULL && priv->outside_schema;
}

/* ---- tool modes -------------------------------------------------------- */

/**
 * gg_tool_mode_to_string:
 * @mode: a #GgToolMode
 *
 * Gets the oam name of a tool mode.
 *
 * Returns: (transfer none): "allowed", "none" or "required"
 *
 * Since: 1.0
 */
const char *
gg_tool_mode_to_string (GgToolMode mode)
{
  switch (mode)
    {
    case GG_TOOL_MODE_NONE:
      return "none";
    case GG_TOOL_MODE_REQUIRED:
      return "required";
    case GG_TOOL_MODE_ALLOWED:
    default:
      return "allowed";
    }
}

/* ---- GgModelRequest ---------------------------------------------------- */

/* The refcount lives in front of the public struct so the struct itself can
 * stay plain and its reserved padding untouched. */
typedef struct {
  gatomicrefcount ref_count;
  GgModelRequest request;
} RequestBox;

#define REQUEST_BOX(r) ((RequestBox *) ((char *) (r) - G_STRUCT_OFFSET (RequestBox, request)))

G_DEFINE_BOXED_TYPE (GgModelRequest, gg_model_request,
                     gg_model_request_ref, gg_model_request_unref)

/**
 * gg_model_request_new:
 * Creates an empty request.
 *
 * Returns: (transfer full): an empty request: no instructions, an empty
 *   transcript, no tools, tool mode "allowed", model default temperature
 *
 * Since: 1.0
 */
GgModelRequest *
gg_model_request_new (void)
{
  RequestBox *box = g_new0 (RequestBox, 1);

  g_atomic_ref_count_init (&box->ref_count);
  box->request.transcript = json_array_new ();
  box->request.tool_mode = GG_TOOL_MODE_ALLOWED;
  box->request.temperature = -1.0;
  return &box->request;
}

/**
 * gg_model_request_ref:
 * @request: a #GgModelRequest
 *
 * Takes a reference on @request.
 *
 * Returns: (transfer full): @request
 *
 * Since: 1.0
 */
GgModelRequest *
gg_model_request_ref (GgModelRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);
  g_atomic_ref_count_inc (&REQUEST_BOX (request)->ref_count);
  return request;
}

/**
 * gg_model_request_unref:
 * @request: (transfer full): a #GgModelRequest
 *
 * Drops a reference; the last one frees the request and its members.
 *
 * Since: 1.0
 */
void
gg_model_request_unref (GgModelRequest *request)
{
  RequestBox *box;

  g_return_if_fail (request != NULL);
  box = REQUEST_BOX (request);
  if (!g_atomic_ref_count_dec (&box->ref_count))
    return;
  g_free (request->instructions);
  g_clear_pointer (&request->transcript, json_array_unref);
  g_clear_pointer (&request->tools, json_array_unref);
  g_clear_pointer (&request->output_schema, json_node_unref);
  g_free (request->schema_name);
  g_clear_pointer (&request->sampling, json_node_unref);
  g_free (box);
}

/* ---- GgModelReply ------------------------------------------------------ */

/* The length of @node as compact JSON, counted without building the text:
 * token estimates run on every step and need no exact escapes for doubles. */
static gsize
string_size (const char *text)
{
  gsize size = 2;

  for (const guchar *p = (const guchar *) text; *p != '\0'; p++)
    size += (*p == '"' || *p == '\\') ? 2 : (*p < 0x20 ? 6 : 1);
  return size;
}

gsize
_gg_model_json_size (JsonNode *node)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;
        gsize size = 2;
        guint n = 0;

        json_object_iter_init (&iter, json_node_get_object (node));
        while (json_object_iter_next (&iter, &name, &member))
          {
            size += string_size (name) + 1 + _gg_model_json_size (member);
            n++;
          }
        return size + (n > 1 ? n - 1 : 0);
      }
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);
        gsize size = 2 + (n > 1 ? n - 1 : 0);

        for (guint i = 0; i < n; i++)
          size += _gg_model_json_size (json_array_get_element (array, i));
        return size;
      }
    case JSON_NODE_NULL:
      return 4;
    case JSON_NODE_VALUE:
    default:
      {
        GType type = json_node_get_value_type (node);
        char buffer[G_ASCII_DTOSTR_BUF_SIZE];

        if (type == G_TYPE_STRING)
          return string_size (json_node_get_string (node));
        if (type == G_TYPE_BOOLEAN)
          return json_node_get_boolean (node) ? 4 : 5;
        if (type == G_TYPE_INT64)
          return (gsize) g_snprintf (buffer, sizeof buffer, "%" G_GINT64_FORMAT, json_node_get_int (node));
        return strlen (g_ascii_dtostr (buffer, sizeof buffer, json_node_get_double (node)));
      }
    }
}

/* A string member, or NULL when absent or of another type: for input that
 * may be anything, where json_object_get_string_member() would be critical. */
const char *
_gg_model_json_get_string (JsonObject *object,
                           const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

G_DEFINE_BOXED_TYPE (GgModelReply, gg_model_reply,
                     gg_model_reply_copy, gg_model_reply_free)

/**
 * gg_model_reply_new:
 * Creates an empty reply for a backend to fill.
 *
 * Returns: (transfer full): an empty reply with zero usage
 *
 * Since: 1.0
 */
GgModelReply *
gg_model_reply_new (void)
{
  return g_new0 (GgModelReply, 1);
}

/**
 * gg_model_reply_copy:
 * @reply: a #GgModelReply
 *
 * Copies a reply.
 *
 * Returns: (transfer full): a deep copy of @reply
 *
 * Since: 1.0
 */
GgModelReply *
gg_model_reply_copy (const GgModelReply *reply)
{
  GgModelReply *copy;

  g_return_val_if_fail (reply != NULL, NULL);
  copy = gg_model_reply_new ();
  copy->text = g_strdup (reply->text);
  copy->json = reply->json != NULL ? gg_json_copy (reply->json) : NULL;
  if (reply->tool_calls != NULL)
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
      g_autoptr(JsonNode) node_copy = NULL;

      json_node_set_array (node, reply->tool_calls);
      node_copy = gg_json_copy (node);
      copy->tool_calls = json_node_dup_array (node_copy);
    }
  copy->usage = reply->usage;
  return copy;
}

/**
 * gg_model_reply_free:
 * @reply: (transfer full) (nullable): a #GgModelReply
 *
 * Frees a reply and what it owns.
 *
 * Since: 1.0
 */
void
gg_model_reply_free (GgModelReply *reply)
{
  if (reply == NULL)
    return;
  g_free (reply->text);
  g_clear_pointer (&reply->json, json_node_unref);
  g_clear_pointer (&reply->tool_calls, json_array_unref);
  g_free (reply);
}

/* ---- GgModel ----------------------------------------------------------- */

G_DEFINE_INTERFACE (GgModel, gg_model, G_TYPE_OBJECT)

static void
gg_model_default_init (GgModelInterface *iface)
{
}

/**
 * gg_model_get_name:
 * @self: a #GgModel
 *
 * Gets the model's name.
 *
 * Returns: (transfer none): the model's name for listings ("scripted"), or
 *   the type name when the backend does not say
 *
 * Since: 1.0
 */
const char *
gg_model_get_name (GgModel *self)
{
  GgModelInterface *iface;

  g_return_val_if_fail (GG_IS_MODEL (self), NULL);
  iface = GG_MODEL_GET_IFACE (self);
  if (iface->get_name != NULL)
    return iface->get_name (self);
  return G_OBJECT_TYPE_NAME (self);
}

/**
 * gg_model_get_context_size:
 * @self: a #GgModel
 *
 * Gets the size of the model's context window.
 *
 * Returns: the context window in tokens (8192 when the backend does not say)
 *
 * Since: 1.0
 */
gint64
gg_model_get_context_size (GgModel *self)
{
  GgModelInterface *iface;

  g_return_val_if_fail (GG_IS_MODEL (self), 8192);
  iface = GG_MODEL_GET_IFACE (self);
  if (iface->get_context_size != NULL)
    {
      gint64 size = iface->get_context_size (self);
      if (size > 0)
        return size;
    }
  return 8192;
}

/* What the bus tap shows of a step: its shape, not the whole transcript. */
static JsonNode *
step_summary (GgModelRequest *request)
{
  JsonObject *object = json_object_new ();
  guint n = request->transcript != NULL ? json_array_get_length (request->transcript) : 0;

  json_object_set_int_member (object, "transcript", n);
  json_object_set_int_member (object, "tools", request->tools != NULL ? json_array_get_length (request->tools) : 0);
  if (n > 0)
    {
      JsonObject *last = json_array_get_object_element (request->transcript, n - 1);
      if (last != NULL && json_object_has_member (last, "text"))
        json_object_set_member (object, "last", json_node_copy (json_object_get_member (last, "text")));
    }
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, object);
  return node;
}

static JsonNode *
reply_summary (const GgModelReply *reply)
{
  JsonObject *object = json_object_new ();
  JsonObject *usage = json_object_new ();

  if (reply->text != NULL)
    json_object_set_string_member (object, "text", reply->text);
  if (reply->json != NULL)
    json_object_set_member (object, "json", json_node_copy (reply->json));
  if (reply->tool_calls != NULL)
    {
      JsonArray *names = json_array_new ();

      for (guint i = 0; i < json_array_get_length (reply->tool_calls); i++)
        {
          JsonObject *call = json_array_get_object_element (reply->tool_calls, i);
          const char *name = call != NULL ? json_object_get_string_member_with_default (call, "name", NULL) : NULL;
          json_array_add_string_element (names, name != NULL ? name : "");
        }
      json_object_set_array_member (object, "toolCalls", names);
    }
  json_object_set_int_member (usage, "inputTokens", reply->usage.input_tokens);
  json_object_set_int_member (usage, "outputTokens", reply->usage.output_tokens);
  json_object_set_object_member (object, "usage", usage);
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, object);
  return node;
}

/**
 * gg_model_step_async:
 * @self: a #GgModel
 * @request: the step's input; referenced by the backend as long as it needs it
 * @on_delta: (nullable) (scope async): receives streamed text, any number of
 *   times, always before @callback; never after it
 * @delta_data: data for @on_delta
 * @cancellable: (nullable): cancels the step (it then fails with
 *   %GG_MODEL_ERROR_CANCELLED)
 * @callback: called when the step is done
 * @user_data: data for @callback
 *
 * Runs one inference step.
 *
 * Since: 1.0
 */
void
gg_model_step_async (GgModel             *self,
                     GgModelRequest      *request,
                     GgModelDeltaFunc     on_delta,
                     gpointer             delta_data,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  g_return_if_fail (GG_IS_MODEL (self));
  g_return_if_fail (request != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));
  g_return_if_fail (GG_MODEL_GET_IFACE (self)->step_async != NULL);

  /* The bus tap: only for a model of an observed bus. */
  if (_gg_bus_any_observer ())
    {
      g_autoptr(GgBus) bus = _gg_bus_ref_observing (self);

      if (bus != NULL)
        {
          GgBusPending *pending = _gg_bus_pending_new (bus, "model-result", NULL, gg_model_get_name (self),
                                                       cancellable, callback, user_data);
          g_autoptr(JsonNode) payload = step_summary (request);

          _gg_bus_pending_report_start (pending, "model-step", payload);
          _gg_bus_pending_wrap (pending, &callback, &user_data);
        }
    }

  GG_MODEL_GET_IFACE (self)->step_async (self, request, on_delta, delta_data,
                                         cancellable, callback, user_data);
}

/**
 * gg_model_step_finish:
 * @self: a #GgModel
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError (%GG_MODEL_ERROR)
 *
 * Finishes gg_model_step_async().
 *
 * Returns: (transfer full) (nullable): the step's reply, or %NULL with @error set
 *
 * Since: 1.0
 */
GgModelReply *
gg_model_step_finish (GgModel       *self,
                      GAsyncResult  *result,
                      GError       **error)
{
  g_return_val_if_fail (GG_IS_MODEL (self), NULL);
  GgBusPending *pending;
  GError *local_error = NULL;
  GgModelReply *reply;

  g_return_val_if_fail (GG_MODEL_GET_IFACE (self)->step_finish != NULL, NULL);
  if (G_LIKELY ((pending = _gg_bus_pending_lookup (result)) == NULL))
    return GG_MODEL_GET_IFACE (self)->step_finish (self, result, error);

  reply = GG_MODEL_GET_IFACE (self)->step_finish (self, result, &local_error);
  {
    g_autoptr(JsonNode) payload = reply != NULL ? reply_summary (reply) : NULL;

    _gg_bus_pending_report_result (pending, local_error, payload);
  }
  if (local_error != NULL)
    g_propagate_error (error, local_error);
  return reply;
}

/**
 * gg_model_availability_async:
 * @self: a #GgModel
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the answer
 * @user_data: data for @callback
 *
 * Asks whether the model can run (oam `model/availability`). Backends that
 * do not implement it are always `{"available": true}`.
 *
 * Since: 1.0
 */
void
gg_model_availability_async (GgModel             *self,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  GgModelInterface *iface;
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonObject) answer = NULL;

  g_return_if_fail (GG_IS_MODEL (self));
  iface = GG_MODEL_GET_IFACE (self);
  if (iface->availability_async != NULL)
    {
      iface->availability_async (self, cancellable, callback, user_data);
      return;
    }

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, gg_model_availability_async);
  answer = json_object_new ();
  json_object_set_boolean_member (answer, "available", TRUE);
  g_task_return_pointer (task, g_steal_pointer (&answer),
                         (GDestroyNotify) json_object_unref);
}

/**
 * gg_model_availability_finish:
 * @self: a #GgModel
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes gg_model_availability_async().
 *
 * Returns: (transfer full) (nullable): `{"available": bool, "reason"?, …}`
 *
 * Since: 1.0
 */
JsonObject *
gg_model_availability_finish (GgModel       *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  GgModelInterface *iface;

  g_return_val_if_fail (GG_IS_MODEL (self), NULL);
  if (g_async_result_is_tagged (result, gg_model_availability_async))
    return g_task_propagate_pointer (G_TASK (result), error);
  iface = GG_MODEL_GET_IFACE (self);
  g_return_val_if_fail (iface->availability_finish != NULL, NULL);
  return iface->availability_finish (self, result, error);
}
