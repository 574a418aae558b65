/* test-openai-errors.c: HTTP statuses and error bodies of real servers
 * mapped to the oam error vocabulary.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-openai-private.h"
#include "gg-test-util.h"

#define SECRET "sk-test1-SECRET-0123456789abcdefwxyz"

static void
init_settings (GgOpenaiSettings *settings)
{
  memset (settings, 0, sizeof *settings);
  settings->base_url = g_strdup ("http://user:hunter2@127.0.0.1:11434/v1");
  settings->model = g_strdup ("llama3.3");
  settings->api_key = g_strdup (SECRET);
}

static char *
fixture (const char *name,
         gsize      *length)
{
  g_autofree char *path = g_build_filename (GG_OPENAI_FIXTURES, name, NULL);
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, length, &error);
  g_assert_no_error (error);
  return contents;
}

static GError *
from_fixture (guint       status,
              const char *name,
              const char *retry_after,
              gboolean   *retryable,
              double     *wait_s)
{
  GgOpenaiSettings settings;
  gsize length;
  g_autofree char *body = fixture (name, &length);
  GError *error;

  init_settings (&settings);
  error = gg_openai_error_from_status (status, body, length, retry_after, &settings, retryable, wait_s);
  gg_openai_settings_clear (&settings);
  g_assert_null (strstr (error->message, SECRET));
  g_assert_null (strstr (error->message, "hunter2"));
  return error;
}

static void
test_fixtures (void)
{
  static const struct {
    guint status;
    const char *file;
    int code;
    gboolean retryable;
  } cases[] = {
    { 400, "openai-error-context-length.json", GG_MODEL_ERROR_CONTEXT_SIZE_EXCEEDED, FALSE },
    { 400, "llamacpp-error-context.json", GG_MODEL_ERROR_CONTEXT_SIZE_EXCEEDED, FALSE },
    { 429, "openai-error-rate-limit.json", GG_MODEL_ERROR_RATE_LIMITED, TRUE },
    { 429, "openai-error-quota.json", GG_MODEL_ERROR_RATE_LIMITED, FALSE },
    { 401, "openai-error-invalid-key.json", GG_MODEL_ERROR_MODEL_UNAVAILABLE, FALSE },
    { 404, "openai-error-model-not-found.json", GG_MODEL_ERROR_MODEL_UNAVAILABLE, FALSE },
    { 404, "ollama-error-model-not-found.json", GG_MODEL_ERROR_MODEL_UNAVAILABLE, FALSE },
    { 503, "llamacpp-error-loading.json", GG_MODEL_ERROR_MODEL_UNAVAILABLE, TRUE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gboolean retryable = !cases[i].retryable;
      double wait_s = 0;
      g_autoptr(GError) error = from_fixture (cases[i].status, cases[i].file, NULL, &retryable, &wait_s);

      g_test_message ("%s: %s", cases[i].file, error->message);
      g_assert_error (error, GG_MODEL_ERROR, cases[i].code);
      g_assert_cmpint (retryable, ==, cases[i].retryable);
      g_assert_cmpfloat (wait_s, ==, -1);
    }
}

static void
test_unavailable_names_url_and_model (void)
{
  g_autoptr(GError) error = from_fixture (404, "ollama-error-model-not-found.json", NULL, NULL, NULL);
  JsonObject *data = gg_model_error_get_data (error);

  g_assert_cmpstr (error->message, ==,
                   "Model 'llama3.3' at http://127.0.0.1:11434/v1 is unavailable: the server does not "
                   "serve it (model \"llama3.3\" not found, try pulling it first)");
  g_assert_cmpstr (json_object_get_string_member (data, "baseUrl"), ==, "http://127.0.0.1:11434/v1");
  g_assert_cmpstr (json_object_get_string_member (data, "model"), ==, "llama3.3");
}

static void
test_key_never_quoted (void)
{
  g_autoptr(GError) error = from_fixture (401, "openai-error-invalid-key.json", NULL, NULL, NULL);
  g_autofree char *redacted = NULL;
  GgOpenaiSettings settings;

  g_assert_null (strstr (error->message, "sk-"));
  g_assert_null (strstr (error->message, "wxyz"));

  /* A server echoing the key anywhere else has it cut out. */
  init_settings (&settings);
  redacted = gg_openai_redact ("bad request for key " SECRET " and sk-other***123, done", &settings);
  g_assert_cmpstr (redacted, ==, "bad request for key [redacted] and [redacted], done");
  gg_openai_settings_clear (&settings);
}

static void
test_retry_after (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_utc (2015, 10, 21, 7, 27, 30);
  gboolean retryable = FALSE;
  double wait_s = 0;
  g_autoptr(GError) error = from_fixture (429, "openai-error-rate-limit.json", "20", &retryable, &wait_s);
  JsonObject *data = gg_model_error_get_data (error);

  g_assert_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_RATE_LIMITED);
  g_assert_true (retryable);
  g_assert_cmpfloat (wait_s, ==, 20);
  g_assert_cmpint (json_object_get_int_member (data, "retryAfterSeconds"), ==, 20);
  g_assert_true (g_str_has_suffix (json_object_get_string_member (data, "retryAfter"), "Z"));

  g_assert_cmpfloat (gg_openai_parse_retry_after ("Wed, 21 Oct 2015 07:28:00 GMT", now), ==, 30);
  g_assert_cmpfloat (gg_openai_parse_retry_after ("Wed, 21 Oct 2015 07:00:00 GMT", now), ==, 0);
  g_assert_cmpfloat (gg_openai_parse_retry_after (" 1.5 ", now), ==, 1.5);
  g_assert_cmpfloat (gg_openai_parse_retry_after ("99999999999", now), ==, 86400.0 * 365);
  g_assert_cmpfloat (gg_openai_parse_retry_after (NULL, now), ==, -1);
  g_assert_cmpfloat (gg_openai_parse_retry_after ("", now), ==, -1);
  g_assert_cmpfloat (gg_openai_parse_retry_after ("-5", now), ==, -1);
  g_assert_cmpfloat (gg_openai_parse_retry_after ("5s", now), ==, -1);
  g_assert_cmpfloat (gg_openai_parse_retry_after ("soon", now), ==, -1);
  g_assert_cmpfloat (gg_openai_parse_retry_after ("nan", now), ==, -1);
}

static void
test_odd_bodies (void)
{
  static const struct {
    guint status;
    const char *body;
    int code;
    const char *message;
  } cases[] = {
    { 500, "", GG_MODEL_ERROR_GENERATION_FAILED, "The server failed with HTTP 500: no message" },
    { 502, "<html><body>Bad Gateway</body></html>", GG_MODEL_ERROR_GENERATION_FAILED,
      "The server failed with HTTP 502: <html><body>Bad Gateway</body></html>" },
    { 400, "{\"error\":\"Invalid 'messages'\"}", GG_MODEL_ERROR_INVALID_REQUEST,
      "The server rejected the request: Invalid 'messages'" },
    { 422, "{\"detail\":\"field required\"}", GG_MODEL_ERROR_INVALID_REQUEST,
      "The server rejected the request: field required" },
    { 400, "{\"error\":{\"message\":42}}", GG_MODEL_ERROR_INVALID_REQUEST,
      "The server rejected the request: no message" },
    { 413, "too large", GG_MODEL_ERROR_CONTEXT_SIZE_EXCEEDED,
      "The conversation is too long for the model: too large" },
    { 400, "{\"error\":{\"message\":\"line1\\nline2\\u0007\"}}", GG_MODEL_ERROR_INVALID_REQUEST,
      "The server rejected the request: line1 line2 " },
    { 400, "\xff\xfe not utf-8", GG_MODEL_ERROR_INVALID_REQUEST,
      "The server rejected the request: \xef\xbf\xbd\xef\xbf\xbd not utf-8" },
    { 400, "{\"error\":{\"code\":\"content_filter\",\"message\":\"blocked\"}}",
      GG_MODEL_ERROR_GUARDRAIL_VIOLATION, "The server's content filter blocked the request: blocked" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = gg_openai_error_from_status (cases[i].status, cases[i].body,
                                                             strlen (cases[i].body), NULL, NULL,
                                                             NULL, NULL);
      g_assert_error (error, GG_MODEL_ERROR, cases[i].code);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }
}

static void
test_long_message_cut (void)
{
  g_autofree char *long_text = g_strnfill (100000, 'x');
  g_autofree char *body = g_strdup_printf ("{\"error\":{\"message\":\"%s\"}}", long_text);
  g_autoptr(GError) error = gg_openai_error_from_status (500, body, strlen (body), NULL, NULL, NULL, NULL);

  g_assert_cmpuint (strlen (error->message), <, 400);
  g_assert_true (g_str_has_suffix (error->message, "…"));
}

static void
test_io_errors (void)
{
  GgOpenaiSettings settings;
  g_autoptr(GError) refused = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED, "refused");
  g_autoptr(GError) reset = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED, "closed");
  g_autoptr(GError) a = NULL, b = NULL;
  gboolean retryable = TRUE;

  init_settings (&settings);
  a = gg_openai_error_from_io (refused, &settings, &retryable);
  g_assert_error (a, GG_MODEL_ERROR, GG_MODEL_ERROR_MODEL_UNAVAILABLE);
  g_assert_false (retryable);
  g_assert_cmpstr (a->message, ==, "Model 'llama3.3' at http://127.0.0.1:11434/v1 is unavailable: "
                                   "cannot connect to the server");
  b = gg_openai_error_from_io (reset, &settings, &retryable);
  g_assert_error (b, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
  g_assert_true (retryable);
  gg_openai_settings_clear (&settings);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/openai/errors/fixtures", test_fixtures);
  g_test_add_func ("/openai/errors/unavailable-names-url-and-model", test_unavailable_names_url_and_model);
  g_test_add_func ("/openai/errors/key-never-quoted", test_key_never_quoted);
  g_test_add_func ("/openai/errors/retry-after", test_retry_after);
  g_test_add_func ("/openai/errors/odd-bodies", test_odd_bodies);
  g_test_add_func ("/openai/errors/long-message-cut", test_long_message_cut);
  g_test_add_func ("/openai/errors/io", test_io_errors);
  return g_test_run ();
}
