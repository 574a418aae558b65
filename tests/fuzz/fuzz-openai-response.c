/* fuzz-openai-response.c: model-openai's readers of what a server sends
 * back outside a stream: a chat completion body (with or without a
 * structured-output schema in the request), an error body with its HTTP
 * status and Retry-After, and a GET /models list. The first byte picks the
 * request, the status and the Retry-After value; the rest is the body. No
 * error message may carry the API key.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "gg-openai-private.h"

#define SECRET "sk-fuzz-0123456789abcdef"

static void
check_secret (const GError *error)
{
  if (error != NULL && strstr (error->message, SECRET) != NULL)
    g_error ("an error message carries the API key: %s", error->message);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  static const guint statuses[] = { 400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504, 200, 418, 599 };
  static const char *retry_afters[] = { NULL, "2", "0.5", "-1", "1e309", "Wed, 21 Oct 2015 07:28:00 GMT", "", "nan" };
  FuzzInput in = { data, size };
  guint8 mode = fuzz_input_byte (&in);
  const char *body = (const char *) in.data;
  g_autoptr(GgModelRequest) request = gg_model_request_new ();
  g_autoptr(GgModelReply) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) status_error = NULL;
  g_autoptr(GBytes) bytes = g_bytes_new (in.data, in.size);
  g_auto(GStrv) ids = NULL;
  GgOpenaiSettings settings = { 0 };
  gboolean retryable = FALSE;
  double wait_s = 0;

  fuzz_init ();
  if (mode & 1)
    request->output_schema = gg_json_parse ("{\"type\":\"object\",\"properties\":{\"line\":{\"type\":\"string\"},"
                                            "\"n\":{\"type\":\"integer\"}},\"required\":[\"line\"]}", -1, 16, NULL);
  settings.base_url = g_strdup ("http://user:" SECRET "@127.0.0.1:11434/v1");
  settings.model = g_strdup ("fuzz");
  settings.api_key = g_strdup (SECRET);
  reply = gg_openai_parse_response (body, in.size, request, &error);
  g_assert_true ((reply == NULL) == (error != NULL));
  /* The reader does not know the key; the model redacts every error it
   * returns, as here. */
  gg_openai_error_redact_key (error, &settings);
  check_secret (error);
  if (reply != NULL)
    g_assert_true ((reply->text != NULL) + (reply->json != NULL) + (reply->tool_calls != NULL) == 1);

  status_error = gg_openai_error_from_status (statuses[(mode >> 1) % G_N_ELEMENTS (statuses)], body, in.size,
                                              retry_afters[(mode >> 5) % G_N_ELEMENTS (retry_afters)],
                                              &settings, &retryable, &wait_s);
  g_assert_nonnull (status_error);
  check_secret (status_error);
  g_assert_true (wait_s >= 0 || wait_s == -1);  /* -1: the server named no wait */
  gg_openai_settings_clear (&settings);

  g_clear_error (&error);
  ids = gg_openai_parse_model_ids (bytes, &error);
  g_assert_true ((ids == NULL) == (error != NULL));
  return 0;
}
