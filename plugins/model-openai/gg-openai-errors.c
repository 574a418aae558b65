/* gg-openai-errors.c: HTTP statuses, error bodies and I/O failures of an
 * OpenAI-compatible server mapped to the oam error vocabulary.
 *
 * Error bodies differ between servers:
 *   OpenAI     {"error":{"message","type","param","code":"context_length_exceeded"}}
 *   llama.cpp  {"error":{"code":400,"message","type":"exceed_context_size_error",…}}
 *   Ollama     {"error":{"message","type":"api_error","param":null,"code":null}}
 *   others     {"error":"text"}, {"detail":"text"}, {"message":"text"} or plain text
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "gg-openai-private.h"

/* Server messages are quoted to the client, so they are cut short, stripped
 * of control characters and of anything that looks like a secret. */
#define MAX_QUOTED_MESSAGE 300

static void
redact_all (GString    *text,
            const char *secret)
{
  gsize secret_len;
  char *hit;

  if (secret == NULL || *secret == '\0')
    return;
  secret_len = strlen (secret);
  while ((hit = strstr (text->str, secret)) != NULL)
    {
      gsize pos = hit - text->str;
      g_string_erase (text, pos, secret_len);
      g_string_insert (text, pos, "[redacted]");
    }
}

/* OpenAI echoes a masked key ("sk-abc1***********wxyz") in its 401 message:
 * drop every word starting with "sk-" whatever the configured key is. */
static void
redact_key_like_words (GString *text)
{
  gsize i = 0;

  while (i + 3 <= text->len)
    {
      gboolean word_start = i == 0 || g_ascii_isspace (text->str[i - 1]) ||
                            text->str[i - 1] == ':' || text->str[i - 1] == '"' ||
                            text->str[i - 1] == '\'';
      if (word_start && strncmp (text->str + i, "sk-", 3) == 0)
        {
          gsize end = i + 3;
          while (end < text->len && !g_ascii_isspace (text->str[end]) &&
                 text->str[end] != '"' && text->str[end] != '\'' &&
                 text->str[end] != ',' && text->str[end] != '.')
            end++;
          g_string_erase (text, i, end - i);
          g_string_insert (text, i, "[redacted]");
          i += strlen ("[redacted]");
          continue;
        }
      i++;
    }
}

/**
 * gg_openai_error_redact_key:
 * @error: (nullable): an error about to leave the backend
 * @settings: (nullable): the model's settings, for its key
 *
 * Redacts the configured API key from @error's message in place.
 */
void
gg_openai_error_redact_key (GError                 *error,
                            const GgOpenaiSettings *settings)
{
  g_autoptr(GString) text = NULL;

  if (error == NULL || settings == NULL || settings->api_key == NULL || settings->api_key[0] == '\0' ||
      strstr (error->message, settings->api_key) == NULL)
    return;
  text = g_string_new (error->message);
  redact_all (text, settings->api_key);
  g_free (error->message);
  error->message = g_strdup (text->str);
}

/**
 * gg_openai_redact:
 * @text: (nullable): text a server sent
 * @settings: (nullable): the model's settings, for its key
 *
 * Returns: (transfer full): @text made safe to quote in an error: valid
 *   UTF-8, no control characters, no API key, at most ~300 characters
 */
char *
gg_openai_redact (const char             *text,
                  const GgOpenaiSettings *settings)
{
  g_autofree char *valid = NULL;
  GString *out;

  if (text == NULL)
    return g_strdup ("");
  valid = g_utf8_make_valid (text, -1);
  out = g_string_new (valid);
  if (settings != NULL)
    redact_all (out, settings->api_key);
  redact_key_like_words (out);
  for (gsize i = 0; i < out->len; i++)
    if ((guchar) out->str[i] < 0x20 || out->str[i] == 0x7f)
      out->str[i] = ' ';
  if (g_utf8_strlen (out->str, -1) > MAX_QUOTED_MESSAGE)
    {
      const char *cut = g_utf8_offset_to_pointer (out->str, MAX_QUOTED_MESSAGE);
      g_string_truncate (out, cut - out->str);
      g_string_append (out, "…");
    }
  return g_string_free (out, FALSE);
}

/**
 * gg_openai_parse_retry_after:
 * @value: (nullable): a `Retry-After` header: delta-seconds or an HTTP date
 * @now: (nullable): the current time (for dates), %NULL for the clock
 *
 * Returns: seconds to wait (≥ 0), or -1 when @value is absent or malformed
 */
double
gg_openai_parse_retry_after (const char *value,
                             GDateTime  *now)
{
  g_autoptr(GDateTime) clock = NULL;
  g_autoptr(GDateTime) when = NULL;
  char *end = NULL;
  double seconds;

  if (value == NULL)
    return -1;
  while (g_ascii_isspace (*value))
    value++;
  if (*value == '\0')
    return -1;
  if (g_ascii_isdigit (*value))
    {
      seconds = g_ascii_strtod (value, &end);
      while (end != NULL && g_ascii_isspace (*end))
        end++;
      if (end == NULL || *end != '\0' || !isfinite (seconds) || seconds < 0)
        return -1;
      return MIN (seconds, 86400.0 * 365);
    }

  /* An HTTP date ("Wed, 21 Oct 2015 07:28:00 GMT"). */
  when = soup_date_time_new_from_http_string (value);
  if (when == NULL)
    return -1;
  if (now == NULL)
    now = clock = g_date_time_new_now_utc ();
  seconds = g_date_time_difference (when, now) / (double) G_TIME_SPAN_SECOND;
  return seconds > 0 ? MIN (seconds, 86400.0 * 365) : 0;
}

static const char *
object_string (JsonObject *object,
               const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);
  return NULL;
}

static gboolean
mentions (const char *text,
          const char *needle)
{
  g_autofree char *lower = NULL;

  if (text == NULL)
    return FALSE;
  lower = g_ascii_strdown (text, -1);
  return strstr (lower, needle) != NULL;
}

static gboolean
is_context_error (const char *code,
                  const char *type,
                  const char *message)
{
  return g_strcmp0 (code, "context_length_exceeded") == 0 ||
         g_strcmp0 (type, "exceed_context_size_error") == 0 ||
         mentions (message, "context length") ||
         mentions (message, "context size") ||
         mentions (message, "context window") ||
         mentions (message, "maximum context") ||
         mentions (message, "too many tokens");
}

static gboolean
is_unknown_model_error (const char *code,
                        const char *message)
{
  return g_strcmp0 (code, "model_not_found") == 0 ||
         (mentions (message, "model") &&
          (mentions (message, "not found") || mentions (message, "does not exist")));
}

static GError *
unavailable (const GgOpenaiSettings *settings,
             const char             *why)
{
  g_autofree char *url = gg_openai_redact_url (settings != NULL ? settings->base_url : NULL);
  g_autoptr(JsonObject) data = json_object_new ();

  json_object_set_string_member (data, "baseUrl", url);
  json_object_set_string_member (data, "model", settings != NULL ? settings->model : "");
  return gg_model_error_new (GG_MODEL_ERROR_MODEL_UNAVAILABLE, data,
                             "Model '%s' at %s is unavailable: %s",
                             settings != NULL ? settings->model : "", url, why);
}

/**
 * gg_openai_error_from_body:
 * @error_object: (nullable): the `error` object of a body (or of a
 *   streamed chunk)
 * @status: the HTTP status, or 0 inside a 200 stream
 * @settings: (nullable): the model's settings (URL, model, key to redact)
 *
 * Returns: (transfer full): the oam error for a server's error object
 */
GError *
gg_openai_error_from_body (JsonObject             *error_object,
                           guint                   status,
                           const GgOpenaiSettings *settings)
{
  const char *code = NULL, *type = NULL, *raw = NULL;
  g_autofree char *message = NULL;

  if (error_object != NULL)
    {
      code = object_string (error_object, "code");
      type = object_string (error_object, "type");
      raw = object_string (error_object, "message");
    }
  message = gg_openai_redact (raw != NULL ? raw : "no message", settings);

  if (status == 401 || status == 403 ||
      g_strcmp0 (code, "invalid_api_key") == 0 ||
      g_strcmp0 (type, "authentication_error") == 0)
    /* Never quote an authentication failure: it may echo the key. */
    return unavailable (settings, "the server rejected the API key");
  if (is_context_error (code, type, raw) || status == 413)
    return gg_model_error_new (GG_MODEL_ERROR_CONTEXT_SIZE_EXCEEDED, NULL,
                               "The conversation is too long for the model: %s", message);
  if (status == 404 || is_unknown_model_error (code, raw))
    {
      g_autofree char *why = g_strdup_printf ("the server does not serve it (%s)", message);
      return unavailable (settings, why);
    }
  if (status == 503 || g_strcmp0 (type, "unavailable_error") == 0)
    {
      g_autofree char *why = g_strdup_printf ("the server is not ready (%s)", message);
      return unavailable (settings, why);
    }
  if (g_strcmp0 (code, "content_filter") == 0 || g_strcmp0 (code, "content_policy_violation") == 0)
    return gg_model_error_new (GG_MODEL_ERROR_GUARDRAIL_VIOLATION, NULL,
                               "The server's content filter blocked the request: %s", message);
  if (status == 429)
    return gg_model_error_new (GG_MODEL_ERROR_RATE_LIMITED, NULL,
                               "The server is rate limiting requests: %s", message);
  if (status == 400 || status == 422)
    return gg_model_error_new (GG_MODEL_ERROR_INVALID_REQUEST, NULL,
                               "The server rejected the request: %s", message);
  if (status == 0)
    return gg_model_error_new (GG_MODEL_ERROR_GENERATION_FAILED, NULL,
                               "The server reported an error while answering: %s", message);
  return gg_model_error_new (GG_MODEL_ERROR_GENERATION_FAILED, NULL,
                             "The server failed with HTTP %u: %s", status, message);
}

/* Finds the error object in any of the body shapes servers use. */
static JsonObject *
extract_error_object (const char *body,
                      gsize       length)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object;
  JsonNode *member;
  const char *text;

  if (body == NULL || length == 0)
    return NULL;
  root = gg_json_parse (body, length, 16, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_autofree char *plain = g_strndup (body, length);
      JsonObject *wrapped = json_object_new ();
      json_object_set_string_member (wrapped, "message", g_strstrip (plain));
      return wrapped;
    }
  object = json_node_get_object (root);
  member = json_object_get_member (object, "error");
  if (member != NULL && JSON_NODE_HOLDS_OBJECT (member))
    return json_object_ref (json_node_get_object (member));

  text = object_string (object, "error");
  if (text == NULL)
    text = object_string (object, "detail");
  if (text == NULL)
    text = object_string (object, "message");
  {
    JsonObject *wrapped = json_object_new ();
    json_object_set_string_member (wrapped, "message", text != NULL ? text : "no message");
    return wrapped;
  }
}

/**
 * gg_openai_error_from_status:
 * @status: a non-2xx HTTP status
 * @body: (nullable): the response body
 * @length: its length
 * @retry_after: (nullable): the `Retry-After` header
 * @settings: (nullable): the model's settings
 * @out_retryable: (out) (optional): whether a later attempt may succeed
 * @out_retry_after_s: (out) (optional): the server's wait, or -1
 *
 * Returns: (transfer full): the oam error for a failed HTTP exchange
 */
GError *
gg_openai_error_from_status (guint                   status,
                             const char             *body,
                             gsize                   length,
                             const char             *retry_after,
                             const GgOpenaiSettings *settings,
                             gboolean               *out_retryable,
                             double                 *out_retry_after_s)
{
  g_autoptr(JsonObject) error_object = extract_error_object (body, length);
  double wait_s = gg_openai_parse_retry_after (retry_after, NULL);
  gboolean retryable;
  GError *error;

  error = gg_openai_error_from_body (error_object, status, settings);

  /* A quota that ran out does not come back by waiting a few seconds. */
  retryable = (status == 429 &&
               g_strcmp0 (error_object != NULL ? object_string (error_object, "code") : NULL,
                          "insufficient_quota") != 0) ||
              status == 408 || status == 500 || status == 502 || status == 503 ||
              status == 504;

  if (error->domain == GG_MODEL_ERROR && error->code == GG_MODEL_ERROR_RATE_LIMITED &&
      wait_s >= 0)
    {
      g_autoptr(JsonObject) data = json_object_new ();
      g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
      g_autoptr(GDateTime) when = g_date_time_add_seconds (now, ceil (wait_s));
      g_autofree char *iso = g_date_time_format_iso8601 (when);
      GError *with_data;

      json_object_set_int_member (data, "retryAfterSeconds", (gint64) ceil (wait_s));
      json_object_set_string_member (data, "retryAfter", iso);
      with_data = gg_model_error_new (GG_MODEL_ERROR_RATE_LIMITED, data, "%s", error->message);
      g_error_free (error);
      error = with_data;
    }

  if (out_retryable != NULL)
    *out_retryable = retryable;
  if (out_retry_after_s != NULL)
    *out_retry_after_s = wait_s;
  return error;
}

/**
 * gg_openai_error_from_io:
 * @io_error: a transport error (not a cancellation)
 * @settings: (nullable): the model's settings
 * @out_retryable: (out) (optional): whether a later attempt may succeed
 *
 * Returns: (transfer full): the oam error for a failed connection
 */
GError *
gg_openai_error_from_io (const GError           *io_error,
                         const GgOpenaiSettings *settings,
                         gboolean               *out_retryable)
{
  gboolean retryable = FALSE;
  GError *error;

  if (g_error_matches (io_error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED) ||
      g_error_matches (io_error, G_IO_ERROR, G_IO_ERROR_HOST_NOT_FOUND) ||
      g_error_matches (io_error, G_IO_ERROR, G_IO_ERROR_HOST_UNREACHABLE) ||
      g_error_matches (io_error, G_IO_ERROR, G_IO_ERROR_NETWORK_UNREACHABLE) ||
      g_error_matches (io_error, G_RESOLVER_ERROR, G_RESOLVER_ERROR_NOT_FOUND) ||
      g_error_matches (io_error, G_RESOLVER_ERROR, G_RESOLVER_ERROR_TEMPORARY_FAILURE))
    error = unavailable (settings, "cannot connect to the server");
  else if (io_error->domain == G_TLS_ERROR)
    error = unavailable (settings, "the TLS handshake failed");
  else
    {
      g_autofree char *message = gg_openai_redact (io_error->message, settings);
      retryable = TRUE;
      error = gg_model_error_new (GG_MODEL_ERROR_GENERATION_FAILED, NULL,
                                  "The connection to the model server failed: %s", message);
    }
  if (out_retryable != NULL)
    *out_retryable = retryable;
  return error;
}
