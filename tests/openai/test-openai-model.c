/* test-openai-model.c: the model-openai plugin loaded from the build tree,
 * models made through the bus and stepped against the fake OpenAI-compatible
 * server over real HTTP: answers, streaming, tools, schemas, cancellation,
 * errors, retries and bad configuration.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "openai-test-util.h"

static gboolean
one_aborted (gpointer data)
{
  return fake_openai_get_n_aborted (data) >= 1;
}

static void
test_text (Fixture       *fixture,
           gconstpointer  data)
{
  g_autoptr(GgModel) model = ot_create_model (fixture, "{\"type\":\"openai\"}");
  g_autoptr(GgModelRequest) request = ot_text_request ("Who goes there?", FALSE);
  StepResult result = { 0 };
  JsonObject *sent;

  fake_openai_push_text (fixture->fake, "Halt! Who goes there?");
  ot_run_step (model, request, NULL, &result);
  g_assert_no_error (result.error);
  g_assert_cmpstr (result.reply->text, ==, "Halt! Who goes there?");
  g_assert_cmpint (result.reply->usage.input_tokens, ==, 20);
  g_assert_cmpint (result.reply->usage.cached_input_tokens, ==, 10);
  g_assert_cmpint (result.reply->usage.output_tokens, >, 0);
  g_assert_cmpuint (result.n_deltas, ==, 0);
  g_assert_cmpstr (gg_model_get_name (model), ==, "openai");

  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 1);
  sent = fake_openai_get_request (fixture->fake, 0);
  g_assert_cmpstr (json_object_get_string_member (sent, "model"), ==, "fake-model");
  g_assert_false (json_object_get_boolean_member (sent, "stream"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (sent, "messages")), ==, 2);
  g_assert_cmpstr (fake_openai_get_authorization (fixture->fake, 0), ==, "");
  ot_step_result_clear (&result);
}

static void
test_streamed_deltas (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(GgModel) model = ot_create_model (fixture, "{\"type\":\"openai\",\"model\":\"qwen\",\"temperature\":0.5}");
  g_autoptr(GgModelRequest) request = ot_text_request ("Hello", TRUE);
  static const char text[] = "Well met, traveller. The gate opens at dawn — not a moment before.";
  StepResult result = { 0 };
  FakeReply *reply = fake_openai_push_text (fixture->fake, text);
  JsonObject *sent;

  reply->text_pieces = 12;
  reply->chunk_delay_ms = 2;
  ot_run_step (model, request, NULL, &result);
  g_assert_no_error (result.error);
  g_assert_cmpstr (result.reply->text, ==, text);
  g_assert_cmpstr (result.deltas->str, ==, text);
  g_assert_cmpuint (result.n_deltas, >=, 10);
  /* Usage came in the last chunk. */
  g_assert_cmpint (result.reply->usage.input_tokens, ==, 20);

  sent = fake_openai_get_request (fixture->fake, 0);
  g_assert_cmpstr (json_object_get_string_member (sent, "model"), ==, "qwen");
  g_assert_true (json_object_get_boolean_member (sent, "stream"));
  g_assert_cmpfloat (json_object_get_double_member (sent, "temperature"), ==, 0.5);
  ot_step_result_clear (&result);
}

static void
test_tool_calls (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(GgModel) model = ot_create_model (fixture, "{\"type\":\"openai\"}");
  g_autoptr(GgModelRequest) request = ot_text_request ("Open the north gate and ring the bell", TRUE);
  StepResult result = { 0 };
  FakeReply *reply = fake_openai_push (fixture->fake);
  g_autoptr(JsonNode) calls = json_node_new (JSON_NODE_ARRAY);
  g_autofree char *calls_json = NULL;
  JsonObject *sent;

  request->tools = json_array_new ();
  for (int i = 0; i < 2; i++)
    {
      JsonObject *tool = json_object_new ();
      json_object_set_string_member (tool, "name", i == 0 ? "open_gate" : "ring_bell");
      json_object_set_string_member (tool, "description", "A tool");
      json_array_add_object_element (request->tools, tool);
    }
  request->tool_mode = GG_TOOL_MODE_REQUIRED;
  fake_reply_add_tool_call (reply, "call_1", "open_gate", "{\"gate\":\"north\",\"mode\":\"slow\",\"reason\":\"dawn patrol\"}");
  fake_reply_add_tool_call (reply, "call_2", "ring_bell", "{}");
  reply->arg_fragments = 17;
  ot_run_step (model, request, NULL, &result);
  g_assert_no_error (result.error);
  g_assert_null (result.reply->text);
  json_node_set_array (calls, result.reply->tool_calls);
  calls_json = gg_json_to_string (calls);
  g_assert_cmpstr (calls_json, ==,
                   "[{\"id\":\"call_1\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\",\"mode\":\"slow\",\"reason\":\"dawn patrol\"}},"
                   "{\"id\":\"call_2\",\"name\":\"ring_bell\",\"arguments\":{}}]");
  sent = fake_openai_get_request (fixture->fake, 0);
  g_assert_cmpstr (json_object_get_string_member (sent, "tool_choice"), ==, "required");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (sent, "tools")), ==, 2);
  ot_step_result_clear (&result);
}

static void
test_schema_turn (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(GgModel) model = ot_create_model (fixture, "{\"type\":\"openai\"}");
  g_autoptr(GgModelRequest) request = ot_text_request ("Decide", TRUE);
  StepResult result = { 0 };
  g_autofree char *json = NULL;
  JsonObject *format;

  request->output_schema = gg_json_parse ("{\"type\":\"object\",\"properties\":{\"choice\":{\"type\":\"string\","
                                          "\"enum\":[\"attack\",\"flee\"]},\"why\":{\"type\":\"string\"}},"
                                          "\"required\":[\"choice\"]}", -1, 16, NULL);
  request->schema_name = g_strdup ("Decision");
  request->sampling = gg_json_parse ("\"greedy\"", -1, 4, NULL);
  fake_openai_push_text (fixture->fake, "{\"choice\":\"flee\",\"why\":null}");
  ot_run_step (model, request, NULL, &result);
  g_assert_no_error (result.error);
  json = gg_json_to_string (result.reply->json);
  g_assert_cmpstr (json, ==, "{\"choice\":\"flee\"}");
  g_assert_null (result.reply->text);
  /* JSON text is not streamed to the caller as prose. */
  g_assert_cmpuint (result.n_deltas, ==, 0);

  format = json_object_get_object_member (fake_openai_get_request (fixture->fake, 0), "response_format");
  g_assert_cmpstr (json_object_get_string_member (format, "type"), ==, "json_schema");
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (format, "json_schema"), "strict"));
  g_assert_cmpfloat (json_object_get_double_member (fake_openai_get_request (fixture->fake, 0), "temperature"), ==, 0);
  ot_step_result_clear (&result);
}

static void
test_cancel_mid_stream (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GgModel) model = ot_create_model (fixture, "{\"type\":\"openai\"}");
  g_autoptr(GgModelRequest) request = ot_text_request ("Talk forever", TRUE);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  StepResult result = { 0 };
  FakeReply *reply = fake_openai_push_text (fixture->fake, "one two three four five six seven eight");

  reply->text_pieces = 8;
  reply->chunk_delay_ms = 5;
  reply->hang = TRUE;
  result.cancel_on_delta = cancellable;
  result.cancel_after = 2;
  ot_run_step (model, request, cancellable, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED);
  g_assert_null (result.reply);
  /* The HTTP request was aborted: the server saw the connection go. */
  ot_wait_until (one_aborted, fixture->fake);
  g_assert_cmpuint (fake_openai_get_n_aborted (fixture->fake), ==, 1);
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 1);
  ot_step_result_clear (&result);

  /* Cancelled before it starts: no request at all. */
  {
    g_autoptr(GCancellable) early = g_cancellable_new ();
    StepResult again = { 0 };

    g_cancellable_cancel (early);
    ot_run_step (model, request, early, &again);
    g_assert_error (again.error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED);
    g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 1);
    ot_step_result_clear (&again);
  }
}

static void
test_rate_limited (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(GgModel) model = ot_create_model (fixture, "{\"type\":\"openai\",\"retries\":0}");
  g_autoptr(GgModelRequest) request = ot_text_request ("Hi", TRUE);
  StepResult result = { 0 };
  FakeReply *reply = fake_openai_push_error (fixture->fake, 429,
    "{\"error\":{\"message\":\"Rate limit reached for requests\",\"type\":\"requests\",\"param\":null,"
    "\"code\":\"rate_limit_exceeded\"}}");
  JsonObject *error_data;

  reply->retry_after = g_strdup ("7");
  ot_run_step (model, request, NULL, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_RATE_LIMITED);
  error_data = gg_model_error_get_data (result.error);
  g_assert_nonnull (error_data);
  g_assert_cmpint (json_object_get_int_member (error_data, "retryAfterSeconds"), ==, 7);
  g_assert_true (json_object_has_member (error_data, "retryAfter"));
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 1);
  ot_step_result_clear (&result);

  /* A wait longer than a step should hang is not waited out, even with
   * retries left: the caller gets the error and the wait at once. */
  {
    g_autoptr(GgModel) patient = ot_create_model (fixture, "{\"type\":\"openai\",\"retries\":3}");
    gint64 start = g_get_monotonic_time ();

    reply = fake_openai_push_error (fixture->fake, 429, "{\"error\":{\"message\":\"Rate limit\"}}");
    reply->retry_after = g_strdup ("120");
    memset (&result, 0, sizeof result);
    ot_run_step (patient, request, NULL, &result);
    g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_RATE_LIMITED);
    g_assert_cmpint (json_object_get_int_member (gg_model_error_get_data (result.error), "retryAfterSeconds"), ==, 120);
    g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 2);
    g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
    ot_step_result_clear (&result);
  }
}

static void
test_retries (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(GgModel) model = ot_create_model (fixture, "{\"type\":\"openai\",\"retries\":3}");
  g_autoptr(GgModel) once = ot_create_model (fixture, "{\"type\":\"openai\",\"retries\":1}");
  g_autoptr(GgModelRequest) request = ot_text_request ("Hi", TRUE);
  StepResult result = { 0 };
  FakeReply *reply;

  /* 429 honouring Retry-After, then two 5xx with backoff, then an answer. */
  reply = fake_openai_push_error (fixture->fake, 429, "{\"error\":{\"message\":\"slow down\"}}");
  reply->retry_after = g_strdup ("0");
  fake_openai_push_error (fixture->fake, 500, "{\"error\":{\"message\":\"internal\",\"type\":\"server_error\"}}");
  fake_openai_push_error (fixture->fake, 502, "<html>Bad Gateway</html>");
  fake_openai_push_text (fixture->fake, "Finally.");
  ot_run_step (model, request, NULL, &result);
  g_assert_no_error (result.error);
  g_assert_cmpstr (result.reply->text, ==, "Finally.");
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 4);
  ot_step_result_clear (&result);

  /* Out of retries: the last error stands. */
  fake_openai_push_error (fixture->fake, 503, "{\"error\":{\"code\":503,\"message\":\"Loading model\",\"type\":\"unavailable_error\"}}");
  fake_openai_push_error (fixture->fake, 503, "{\"error\":{\"code\":503,\"message\":\"Loading model\",\"type\":\"unavailable_error\"}}");
  memset (&result, 0, sizeof result);
  ot_run_step (once, request, NULL, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_MODEL_UNAVAILABLE);
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 6);
  ot_step_result_clear (&result);

  /* A client error is not retried. */
  fake_openai_push_error (fixture->fake, 400, "{\"error\":{\"message\":\"bad\"}}");
  memset (&result, 0, sizeof result);
  ot_run_step (model, request, NULL, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_REQUEST);
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 7);
  ot_step_result_clear (&result);
}

static void
test_stream_refused (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(GgModel) model = ot_create_model (fixture, "{\"type\":\"openai\"}");
  g_autoptr(GgModelRequest) request = ot_text_request ("Hi", TRUE);
  StepResult result = { 0 };

  /* Asked to stream, the server sends one JSON body instead. */
  fake_openai_push_error (fixture->fake, 200,
    "{\"id\":\"x\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
    "\"message\":{\"role\":\"assistant\",\"content\":\"Not streamed.\"},\"finish_reason\":\"stop\"}]}");
  ot_run_step (model, request, NULL, &result);
  g_assert_no_error (result.error);
  g_assert_cmpstr (result.reply->text, ==, "Not streamed.");
  ot_step_result_clear (&result);
}

static void
test_server_dies (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(GgModel) model = ot_create_model (fixture, "{\"type\":\"openai\",\"retries\":2}");
  g_autoptr(GgModelRequest) request = ot_text_request ("Hi", TRUE);
  StepResult result = { 0 };
  FakeReply *reply;

  /* Dies after text went out: no retry, the caller would see it twice. */
  reply = fake_openai_push_text (fixture->fake, "This answer will never be finished by the server");
  reply->text_pieces = 10;
  reply->drop_after = 4;
  ot_run_step (model, request, NULL, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
  g_assert_cmpuint (result.n_deltas, >=, 1);
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 1);
  ot_step_result_clear (&result);

  /* Dies before any text: retried, and the retry succeeds. */
  reply = fake_openai_push_text (fixture->fake, "lost");
  reply->drop_after = 0;
  fake_openai_push_text (fixture->fake, "Second time lucky.");
  memset (&result, 0, sizeof result);
  ot_run_step (model, request, NULL, &result);
  g_assert_no_error (result.error);
  g_assert_cmpstr (result.reply->text, ==, "Second time lucky.");
  g_assert_cmpstr (result.deltas->str, ==, "Second time lucky.");
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 3);
  ot_step_result_clear (&result);
}

static void
test_unavailable (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(GgModel) model = ot_create_model (fixture, "{\"type\":\"openai\",\"model\":\"llama3.3\"}");
  g_autoptr(GgModelRequest) request = ot_text_request ("Hi", TRUE);
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GInetSocketAddress) address = NULL;
  g_autofree char *closed_spec = NULL;
  g_autoptr(GgModel) closed = NULL;
  StepResult result = { 0 };
  guint16 port;

  fake_openai_push_error (fixture->fake, 404, "{\"error\":{\"message\":\"model \\\"llama3.3\\\" not found, try pulling it first\","
                                              "\"type\":\"api_error\",\"param\":null,\"code\":null}}");
  ot_run_step (model, request, NULL, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_MODEL_UNAVAILABLE);
  g_assert_nonnull (strstr (result.error->message, "llama3.3"));
  g_assert_nonnull (strstr (result.error->message, fixture->base_url));
  ot_step_result_clear (&result);

  /* Connection refused: a port nobody listens on. */
  {
    g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
    g_autoptr(GSocketAddress) bound = NULL;

    socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
    g_assert_true (g_socket_bind (socket, any, FALSE, NULL));
    bound = g_socket_get_local_address (socket, NULL);
    port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
    /* Bound but not listening: connections are refused. */
  }
  closed_spec = g_strdup_printf ("{\"type\":\"openai\",\"baseUrl\":\"http://127.0.0.1:%u/v1/\"}", port);
  closed = ot_create_model (fixture, closed_spec);
  memset (&result, 0, sizeof result);
  ot_run_step (closed, request, NULL, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_MODEL_UNAVAILABLE);
  {
    g_autofree char *expected = g_strdup_printf ("Model 'fake-model' at http://127.0.0.1:%u/v1 is unavailable: "
                                                 "cannot connect to the server", port);
    g_assert_cmpstr (result.error->message, ==, expected);
  }
  ot_step_result_clear (&result);
}

static void
test_timeout (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(GgModel) model = ot_create_model (fixture, "{\"type\":\"openai\",\"timeoutSeconds\":0.2,\"retries\":0}");
  g_autoptr(GgModelRequest) request = ot_text_request ("Hi", FALSE);
  StepResult result = { 0 };
  FakeReply *reply = fake_openai_push_text (fixture->fake, "too late");

  reply->delay_ms = 1000;
  ot_run_step (model, request, NULL, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
  g_assert_nonnull (strstr (result.error->message, "did not answer within 0.2 s"));
  ot_wait_until (one_aborted, fixture->fake);
  g_assert_cmpuint (fake_openai_get_n_aborted (fixture->fake), ==, 1);
  ot_step_result_clear (&result);
}

static void
test_spec_errors (Fixture       *fixture,
                  gconstpointer  data)
{
  static const struct {
    const char *spec;
    const char *message;
  } cases[] = {
    { "{\"type\":\"openai\",\"modle\":\"x\"}", "model.modle: unknown member" },
    { "{\"type\":\"openai\",\"baseUrl\":5}", "model.baseUrl: must be a string" },
    { "{\"type\":\"openai\",\"baseUrl\":\"file:///etc/passwd\"}", "model.baseUrl: must be an http:// or https:// URL with a host" },
    { "{\"type\":\"openai\",\"model\":\"\"}", "model.model: must be a non-empty string" },
    { "{\"type\":\"openai\",\"apiKeyEnv\":\"HOME\"}", "model.apiKeyEnv: must name an environment variable ending in _API_KEY, _KEY or _TOKEN" },
    { "{\"type\":\"openai\",\"apiKeyEnv\":\"GG_TEST_UNSET_API_KEY\"}", "model.apiKeyEnv: the environment variable is not set" },
    { "{\"type\":\"openai\",\"temperature\":9}", "model.temperature: must be a number from 0 to 2" },
    { "{\"type\":\"openai\",\"maxTokens\":0}", "model.maxTokens: must be an integer ≥ 1" },
    { "{\"type\":\"openai\",\"timeoutSeconds\":-1}", "model.timeoutSeconds: must be a number above 0 and at most 86400" },
    { "{\"type\":\"openai\",\"retries\":1.5}", "model.retries: must be an integer from 0 to 10" },
    { "{\"type\":\"openai\",\"acceptsTopK\":\"yes\"}", "model.acceptsTopK: must be a boolean" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) spec = gg_json_parse (cases[i].spec, -1, 8, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(GgModel) model = gg_bus_create_model (fixture->bus, spec, &error);

      g_assert_null (model);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
      if (!g_str_has_prefix (error->message, cases[i].message))
        g_error ("'%s' is not '%s'", error->message, cases[i].message);
    }

  /* No model name anywhere. */
  {
    g_autoptr(GgBus) bus = gg_bus_new ();
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonNode) spec = gg_json_parse ("\"openai\"", -1, 8, NULL);
    g_autoptr(GgModel) model = NULL;

    ot_load_plugin (bus, "[model-openai]\n", &error);
    g_assert_no_error (error);
    model = gg_bus_create_model (bus, spec, &error);
    g_assert_null (model);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
    g_assert_true (g_str_has_prefix (error->message, "model.model: no model name given"));
  }
}

static void
test_config_errors (void)
{
  static const struct {
    const char *config;
    const char *message;
  } cases[] = {
    { "[model-openai]\nbase-url=ftp://example.org\n", "base-url" },
    { "[model-openai]\nbase-url=http://h/v1?x=1\n", "query" },
    { "[model-openai]\ntimeout=0\n", "timeout" },
    { "[model-openai]\nretries=99\n", "retries" },
    { "[model-openai]\napi-key-env=A_KEY\napi-key-file=/x\n", "not both" },
    { "[model-openai]\napi-key-file=/nonexistent/gamegate/key\n", "cannot read" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GgBus) bus = gg_bus_new ();
      g_autoptr(GError) error = NULL;

      g_assert_false (ot_load_plugin (bus, cases[i].config, &error));
      g_assert_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_INVALID_VALUE);
      if (strstr (error->message, cases[i].message) == NULL)
        g_error ("'%s' does not mention '%s'", error->message, cases[i].message);
      g_assert_false (gg_bus_has_model_type (bus, "openai"));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_unsetenv ("GG_TEST_UNSET_API_KEY");
  if (g_getenv ("GAMEGATE_PLUGIN_PATH") == NULL)
    return 77; /* run through meson test */

  OT_ADD ("model/text", test_text, NULL);
  OT_ADD ("model/streamed-deltas", test_streamed_deltas, NULL);
  OT_ADD ("model/tool-calls", test_tool_calls, NULL);
  OT_ADD ("model/schema-turn", test_schema_turn, NULL);
  OT_ADD ("model/cancel-mid-stream", test_cancel_mid_stream, NULL);
  OT_ADD ("model/rate-limited", test_rate_limited, NULL);
  OT_ADD ("model/retries", test_retries, NULL);
  OT_ADD ("model/server-dies", test_server_dies, NULL);
  OT_ADD ("model/stream-refused", test_stream_refused, NULL);
  OT_ADD ("model/unavailable", test_unavailable, NULL);
  OT_ADD ("model/timeout", test_timeout, NULL);
  OT_ADD ("model/spec-errors", test_spec_errors, NULL);
  g_test_add_func ("/openai/model/config-errors", test_config_errors);
  return g_test_run ();
}
