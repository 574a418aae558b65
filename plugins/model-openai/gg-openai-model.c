/* gg-openai-model.c: GgModel over an OpenAI-compatible Chat Completions
 * server: one HTTP exchange per step (plus retries), streamed or not.
 *
 * Retries: a 429, a 5xx or a dropped connection is tried again with
 * backoff, but only while nothing of the answer has reached the caller;
 * once a delta was forwarded the step fails instead, so text is never
 * repeated. (Tools never run inside a step, so this is also "never after a
 * tool ran": the agent turn decides about retrying whole steps.)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "gg-openai-private.h"

#define READ_SIZE        (16 * 1024)
#define MAX_BACKOFF_MS   (30 * 1000)

struct _GgOpenaiModel {
  GObject parent_instance;
  GgOpenaiClient *client;
  GgOpenaiSettings settings;
};

static void gg_openai_model_iface_init (GgModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GgOpenaiModel, gg_openai_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_MODEL, gg_openai_model_iface_init))

typedef enum {
  READ_STREAM,     /* a 2xx event stream */
  READ_BODY,       /* a 2xx JSON body */
  READ_ERROR_BODY, /* the body of a failed exchange */
} ReadMode;

typedef struct {
  GgModelRequest *request;
  GgModelDeltaFunc on_delta;
  gpointer delta_data;
  GBytes *body;
  char *url;
  gboolean stream;
  gint64 attempt;

  /* the current attempt */
  SoupMessage *message;
  GInputStream *input;
  GCancellable *attempt_cancellable;
  GSource *timeout;
  gboolean timed_out;
  ReadMode mode;
  GgOpenaiStream *decoder;
  GByteArray *buffer;
  char chunk[READ_SIZE];

  GSource *backoff;
  GCancellable *caller_cancellable;
  gulong cancel_id;
  gboolean done;
} StepData;

/* Sources go to the step's own context, never to the global default one
 * (which is the host's loop when gamegate is embedded, the C ABI). They
 * hold a reference on @task. */
static GSource *
add_task_source (GTask       *task,
                 GSource     *source,
                 int          priority,
                 GSourceFunc  func)
{
  g_source_set_priority (source, priority);
  g_source_set_callback (source, func, g_object_ref (task), g_object_unref);
  g_source_attach (source, g_task_get_context (task));
  return source;
}

static void
clear_source (GSource **source)
{
  if (*source == NULL)
    return;
  g_source_destroy (*source);
  g_clear_pointer (source, g_source_unref);
}

static void
clear_attempt (StepData *data)
{
  clear_source (&data->timeout);
  g_clear_object (&data->input);
  g_clear_object (&data->message);
  g_clear_object (&data->attempt_cancellable);
  g_clear_pointer (&data->decoder, gg_openai_stream_free);
  g_clear_pointer (&data->buffer, g_byte_array_unref);
}

static void
step_data_free (StepData *data)
{
  clear_attempt (data);
  clear_source (&data->backoff);
  if (data->cancel_id != 0)
    g_cancellable_disconnect (data->caller_cancellable, data->cancel_id);
  g_clear_object (&data->caller_cancellable);
  g_clear_pointer (&data->request, gg_model_request_unref);
  g_clear_pointer (&data->body, g_bytes_unref);
  g_free (data->url);
  g_free (data);
}

static GgOpenaiModel *
task_model (GTask *task)
{
  return GG_OPENAI_MODEL (g_task_get_source_object (task));
}

static void
return_error (GTask  *task,
              GError *error)
{
  StepData *data = g_task_get_task_data (task);

  if (data->done)
    {
      g_error_free (error);
      return;
    }
  data->done = TRUE;
  clear_attempt (data);
  /* Whatever the server said, the key does not leave through an error. */
  gg_openai_error_redact_key (error, &task_model (task)->settings);
  g_debug ("step failed: %s", error->message);
  g_task_return_error (task, error);
}

static void
return_reply (GTask        *task,
              GgModelReply *reply)
{
  StepData *data = g_task_get_task_data (task);

  data->done = TRUE;
  clear_attempt (data);
  g_task_return_pointer (task, reply, (GDestroyNotify) gg_model_reply_free);
}

static GError *
cancelled_error (void)
{
  return gg_model_error_new (GG_MODEL_ERROR_CANCELLED, NULL, "The model step was cancelled");
}

static gboolean
caller_cancelled (GTask *task)
{
  StepData *data = g_task_get_task_data (task);

  return data->caller_cancellable != NULL && g_cancellable_is_cancelled (data->caller_cancellable);
}

static void start_attempt (GTask *task);

static gboolean
on_backoff_done (gpointer user_data)
{
  GTask *task = user_data;
  StepData *data = g_task_get_task_data (task);

  g_clear_pointer (&data->backoff, g_source_unref);
  start_attempt (task);
  return G_SOURCE_REMOVE;
}

/* Either schedules the next attempt (and takes @error) or fails the step. */
static void
retry_or_fail (GTask   *task,
               GError  *error,
               gboolean retryable,
               double   retry_after_s)
{
  GgOpenaiModel *self = task_model (task);
  StepData *data = g_task_get_task_data (task);
  double delay_ms;

  if (!retryable || data->attempt >= self->settings.retries)
    {
      return_error (task, error);
      return;
    }
  if (retry_after_s >= 0)
    delay_ms = retry_after_s * 1000;
  else
    {
      /* Exponential backoff with jitter so parallel sessions spread out. */
      delay_ms = self->settings.retry_base_ms * pow (2, data->attempt);
      delay_ms *= 0.75 + g_random_double () * 0.5;
    }
  if (delay_ms > MAX_BACKOFF_MS)
    {
      /* Waiting that long inside one step would look like a hang. */
      return_error (task, error);
      return;
    }
  gg_openai_error_redact_key (error, &self->settings);
  g_debug ("attempt %" G_GINT64_FORMAT " failed (%s); retrying in %.0f ms",
           data->attempt + 1, error->message, delay_ms);
  g_error_free (error);
  clear_attempt (data);
  data->attempt++;
  data->backoff = add_task_source (task, g_timeout_source_new ((guint) delay_ms), G_PRIORITY_DEFAULT,
                                   on_backoff_done);
}

/* A transport error of the current attempt. */
static void
fail_io (GTask        *task,
         const GError *io_error)
{
  GgOpenaiModel *self = task_model (task);
  StepData *data = g_task_get_task_data (task);
  gboolean retryable = FALSE;
  GError *error;

  if (caller_cancelled (task))
    {
      return_error (task, cancelled_error ());
      return;
    }
  if (data->timed_out)
    {
      return_error (task, gg_model_error_new (GG_MODEL_ERROR_GENERATION_FAILED, NULL,
                                              "The model server did not answer within %g s",
                                              self->settings.timeout_s));
      return;
    }
  error = gg_openai_error_from_io (io_error, &self->settings, &retryable);
  /* Text already shown must not be shown twice. */
  if (data->decoder != NULL && gg_openai_stream_forwarded (data->decoder))
    retryable = FALSE;
  retry_or_fail (task, error, retryable, -1);
}

static void read_more (GTask *task);

static void
complete_body (GTask *task)
{
  GgOpenaiModel *self = task_model (task);
  StepData *data = g_task_get_task_data (task);
  GError *error = NULL;
  GgModelReply *reply = NULL;

  switch (data->mode)
    {
    case READ_STREAM:
      if (!gg_openai_stream_finish (data->decoder, &error))
        {
          /* A stream cut off before anything arrived is a dropped
           * connection like any other. */
          gboolean retryable = !gg_openai_stream_got_data (data->decoder);
          retry_or_fail (task, error, retryable, -1);
          return;
        }
      reply = gg_openai_answer_to_reply (gg_openai_stream_get_answer (data->decoder),
                                         data->request, &error);
      break;
    case READ_BODY:
      reply = gg_openai_parse_response ((const char *) data->buffer->data, data->buffer->len,
                                        data->request, &error);
      break;
    case READ_ERROR_BODY:
    default:
      {
        gboolean retryable = FALSE;
        double retry_after_s = -1;
        SoupMessageHeaders *headers = soup_message_get_response_headers (data->message);

        error = gg_openai_error_from_status (soup_message_get_status (data->message),
                                             (const char *) data->buffer->data, data->buffer->len,
                                             soup_message_headers_get_one (headers, "Retry-After"),
                                             &self->settings, &retryable, &retry_after_s);
        retry_or_fail (task, error, retryable, retry_after_s);
        return;
      }
    }
  if (reply == NULL)
    return_error (task, error);
  else
    return_reply (task, reply);
}

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  StepData *data = g_task_get_task_data (task);
  g_autoptr(GError) local_error = NULL;
  gssize n;

  n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &local_error);
  if (data->done)
    return;
  if (n < 0)
    {
      fail_io (task, local_error);
      return;
    }
  if (n == 0)
    {
      complete_body (task);
      return;
    }

  switch (data->mode)
    {
    case READ_STREAM:
      {
        GError *error = NULL;
        if (!gg_openai_stream_feed (data->decoder, data->chunk, n, &error))
          {
            return_error (task, error);
            return;
          }
        /* The delta function may have cancelled the step. */
        if (data->done)
          return;
      }
      break;
    case READ_BODY:
      if (data->buffer->len + n > GG_OPENAI_MAX_BODY)
        {
          return_error (task, gg_model_error_new (GG_MODEL_ERROR_GENERATION_FAILED, NULL,
                                                  "The model server's answer exceeds %d bytes",
                                                  GG_OPENAI_MAX_BODY));
          return;
        }
      g_byte_array_append (data->buffer, (const guint8 *) data->chunk, n);
      break;
    case READ_ERROR_BODY:
    default:
      /* Enough of an error body to understand it; the rest is dropped. */
      g_byte_array_append (data->buffer, (const guint8 *) data->chunk,
                           MIN ((gsize) n, GG_OPENAI_MAX_ERROR_BODY - MIN (data->buffer->len,
                                                                           GG_OPENAI_MAX_ERROR_BODY)));
      if (data->buffer->len >= GG_OPENAI_MAX_ERROR_BODY)
        {
          complete_body (task);
          return;
        }
      break;
    }
  read_more (task);
}

static void
read_more (GTask *task)
{
  StepData *data = g_task_get_task_data (task);

  g_input_stream_read_async (data->input, data->chunk, sizeof data->chunk, G_PRIORITY_DEFAULT,
                             data->attempt_cancellable, on_read, g_object_ref (task));
}

/* A server that cannot stream answers a stream request with a plain body. */
static gboolean
is_json_response (SoupMessage *message)
{
  const char *type = soup_message_headers_get_content_type (soup_message_get_response_headers (message),
                                                           NULL);

  return type != NULL && g_ascii_strcasecmp (type, "application/json") == 0;
}

static void
on_sent (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  StepData *data = g_task_get_task_data (task);
  g_autoptr(GError) local_error = NULL;
  GInputStream *input;
  guint status;

  input = soup_session_send_finish (SOUP_SESSION (source), result, &local_error);
  if (data->done)
    {
      g_clear_object (&input);
      return;
    }
  if (input == NULL)
    {
      fail_io (task, local_error);
      return;
    }
  data->input = input;
  status = soup_message_get_status (data->message);
  g_debug ("HTTP %u from the model server (attempt %" G_GINT64_FORMAT ")", status, data->attempt + 1);

  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      data->mode = READ_ERROR_BODY;
      data->buffer = g_byte_array_new ();
    }
  else if (data->stream && !is_json_response (data->message))
    {
      gboolean forward = data->on_delta != NULL && data->request->output_schema == NULL;
      data->mode = READ_STREAM;
      data->decoder = gg_openai_stream_new (forward ? data->on_delta : NULL, data->delta_data);
    }
  else
    {
      data->mode = READ_BODY;
      data->buffer = g_byte_array_new ();
    }
  read_more (task);
}

static gboolean
on_timeout (gpointer user_data)
{
  GTask *task = user_data;
  StepData *data = g_task_get_task_data (task);

  g_clear_pointer (&data->timeout, g_source_unref);
  data->timed_out = TRUE;
  if (data->attempt_cancellable != NULL)
    g_cancellable_cancel (data->attempt_cancellable);
  return G_SOURCE_REMOVE;
}

static void
start_attempt (GTask *task)
{
  GgOpenaiModel *self = task_model (task);
  StepData *data = g_task_get_task_data (task);
  SoupMessageHeaders *headers;

  if (caller_cancelled (task))
    {
      return_error (task, cancelled_error ());
      return;
    }
  data->timed_out = FALSE;
  data->message = soup_message_new (SOUP_METHOD_POST, data->url);
  if (data->message == NULL)
    {
      g_autofree char *url = gg_openai_redact_url (self->settings.base_url);
      return_error (task, gg_model_error_new (GG_MODEL_ERROR_MODEL_UNAVAILABLE, NULL,
                                              "The model server URL %s is invalid", url));
      return;
    }
  headers = soup_message_get_request_headers (data->message);
  soup_message_headers_replace (headers, "Accept",
                                data->stream ? "text/event-stream" : "application/json");
  if (self->settings.api_key != NULL)
    {
      g_autofree char *auth = g_strconcat ("Bearer ", self->settings.api_key, NULL);
      soup_message_headers_replace (headers, "Authorization", auth);
      explicit_bzero (auth, strlen (auth));
    }
  soup_message_set_request_body_from_bytes (data->message, "application/json", data->body);

  data->attempt_cancellable = g_cancellable_new ();
  data->timeout = add_task_source (task,
                                   g_timeout_source_new ((guint) MIN (self->settings.timeout_s * 1000, G_MAXUINT)),
                                   G_PRIORITY_DEFAULT, on_timeout);
  g_debug ("POST /chat/completions, %" G_GSIZE_FORMAT " bytes, attempt %" G_GINT64_FORMAT,
           g_bytes_get_size (data->body), data->attempt + 1);
  soup_session_send_async (gg_openai_client_get_session (self->client), data->message,
                           G_PRIORITY_DEFAULT, data->attempt_cancellable, on_sent,
                           g_object_ref (task));
}

/* Runs from an idle, never inside the cancellable's own signal emission
 * (disconnecting there would deadlock). */
static gboolean
on_cancel_idle (gpointer user_data)
{
  GTask *task = user_data;
  StepData *data = g_task_get_task_data (task);

  if (data->done)
    return G_SOURCE_REMOVE;
  if (data->backoff != NULL)
    {
      clear_source (&data->backoff);
      return_error (task, cancelled_error ());
    }
  else if (data->attempt_cancellable != NULL)
    /* Aborts the HTTP exchange; its callback then fails the step. */
    g_cancellable_cancel (data->attempt_cancellable);
  return G_SOURCE_REMOVE;
}

static void
on_caller_cancelled (GCancellable *cancellable,
                     gpointer      user_data)
{
  g_source_unref (add_task_source (user_data, g_idle_source_new (), G_PRIORITY_HIGH, on_cancel_idle));
}

static void
gg_openai_model_step_async (GgModel             *model,
                            GgModelRequest      *request,
                            GgModelDeltaFunc     on_delta,
                            gpointer             delta_data,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  GgOpenaiModel *self = GG_OPENAI_MODEL (model);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(JsonNode) body = NULL;
  GError *error = NULL;
  StepData *data;
  char *text;

  g_task_set_source_tag (task, gg_openai_model_step_async);
  /* Cancellation is reported as the oam `cancelled` error, not GIO's. */
  g_task_set_check_cancellable (task, FALSE);

  data = g_new0 (StepData, 1);
  data->request = gg_model_request_ref (request);
  data->on_delta = on_delta;
  data->delta_data = delta_data;
  data->stream = request->stream;
  data->url = g_strconcat (self->settings.base_url, "/chat/completions", NULL);
  g_task_set_task_data (task, data, (GDestroyNotify) step_data_free);

  if (cancellable != NULL && g_cancellable_is_cancelled (cancellable))
    {
      return_error (task, cancelled_error ());
      return;
    }
  body = gg_openai_build_request (request, &self->settings, data->stream, &error);
  if (body == NULL)
    {
      return_error (task, error);
      return;
    }
  text = gg_json_to_string (body);
  data->body = g_bytes_new_take (text, strlen (text));

  if (cancellable != NULL)
    {
      data->caller_cancellable = g_object_ref (cancellable);
      /* The handler holds no reference: step_data_free() disconnects it. */
      data->cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (on_caller_cancelled),
                                               task, NULL);
    }
  start_attempt (task);
}

static GgModelReply *
gg_openai_model_step_finish (GgModel       *model,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, model), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- availability ------------------------------------------------------ */

static void
on_models_listed (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GgOpenaiModel *self = g_task_get_source_object (task);
  g_autoptr(GError) local_error = NULL;
  g_auto(GStrv) ids = NULL;
  g_autoptr(JsonObject) answer = json_object_new ();
  g_autofree char *url = gg_openai_redact_url (self->settings.base_url);

  ids = gg_openai_client_list_models_finish (GG_OPENAI_CLIENT (source), result, &local_error);
  if (ids == NULL && g_error_matches (local_error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED))
    {
      g_task_return_error (task, g_steal_pointer (&local_error));
      return;
    }
  json_object_set_boolean_member (answer, "available",
                                  ids != NULL && g_strv_contains ((const char * const *) ids,
                                                                  self->settings.model));
  if (ids == NULL)
    {
      json_object_set_string_member (answer, "reason", "unknown");
      json_object_set_string_member (answer, "detail", local_error->message);
    }
  else if (!g_strv_contains ((const char * const *) ids, self->settings.model))
    {
      g_autofree char *detail = g_strdup_printf ("%s does not serve the model '%s'", url,
                                                 self->settings.model);
      json_object_set_string_member (answer, "reason", "model_not_ready");
      json_object_set_string_member (answer, "detail", detail);
    }
  if (self->settings.context_size > 0)
    json_object_set_int_member (answer, "contextSize", self->settings.context_size);
  json_object_set_string_member (answer, "variant", self->settings.model);
  json_object_set_string_member (answer, "baseUrl", url);
  g_task_return_pointer (task, g_steal_pointer (&answer), (GDestroyNotify) json_object_unref);
}

static void
gg_openai_model_availability_async (GgModel             *model,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GgOpenaiModel *self = GG_OPENAI_MODEL (model);
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, gg_openai_model_availability_async);
  gg_openai_client_list_models_async (self->client, &self->settings, cancellable,
                                      on_models_listed, task);
}

static JsonObject *
gg_openai_model_availability_finish (GgModel       *model,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, model), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static const char *
gg_openai_model_get_name (GgModel *model)
{
  return "openai";
}

static gint64
gg_openai_model_get_context_size (GgModel *model)
{
  return GG_OPENAI_MODEL (model)->settings.context_size;
}

static void
gg_openai_model_iface_init (GgModelInterface *iface)
{
  iface->get_name = gg_openai_model_get_name;
  iface->get_context_size = gg_openai_model_get_context_size;
  iface->step_async = gg_openai_model_step_async;
  iface->step_finish = gg_openai_model_step_finish;
  iface->availability_async = gg_openai_model_availability_async;
  iface->availability_finish = gg_openai_model_availability_finish;
}

static void
gg_openai_model_finalize (GObject *object)
{
  GgOpenaiModel *self = GG_OPENAI_MODEL (object);

  gg_openai_settings_clear (&self->settings);
  g_clear_object (&self->client);
  G_OBJECT_CLASS (gg_openai_model_parent_class)->finalize (object);
}

static void
gg_openai_model_class_init (GgOpenaiModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_openai_model_finalize;
}

static void
gg_openai_model_init (GgOpenaiModel *self)
{
}

/**
 * gg_openai_model_new:
 * @client: the plugin's client
 * @settings: the model's settings; copied
 *
 * Returns: (transfer full): a new model
 */
GgModel *
gg_openai_model_new (GgOpenaiClient         *client,
                     const GgOpenaiSettings *settings)
{
  GgOpenaiModel *self = g_object_new (GG_TYPE_OPENAI_MODEL, NULL);

  self->client = g_object_ref (client);
  gg_openai_settings_copy (&self->settings, settings);
  return GG_MODEL (self);
}
