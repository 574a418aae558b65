/* test-openai-model.c: the model-openai plugin loaded from the build tree,
 * models made through the bus, stepped against the fake OpenAI-compatible
 * server over real HTTP. */
#include "config.h"

#include <gmodule.h>
#include <glib/gstdio.h>

#include "fake-openai-server.h"
#include "gg-test-util.h"

#define KEY_ENV "GG_TEST_OPENAI_API_KEY"
#define SECRET "sk-proj-TESTSECRET-d41d8cd98f00b204e9800998ecf8427e"

/* Everything logged while the tests run: the key must never be in it. */
static GString *captured_logs;

static GLogWriterOutput
capture_writer (GLogLevelFlags   log_level,
                const GLogField *fields,
                gsize            n_fields,
                gpointer         user_data)
{
  for (gsize i = 0; i < n_fields; i++)
    if (g_str_equal (fields[i].key, "MESSAGE") && fields[i].length < 0)
      {
        g_string_append (captured_logs, fields[i].value);
        g_string_append_c (captured_logs, '\n');
      }
  if (log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
    return g_log_writer_default (log_level, fields, n_fields, user_data);
  return G_LOG_WRITER_HANDLED;
}

typedef struct {
  GgBus *bus;
  FakeOpenai *fake;
  char *base_url;
} Fixture;

static char *
find_plugin (void)
{
  const char *path = g_getenv ("GAMEGATE_PLUGIN_PATH");
  g_auto(GStrv) dirs = g_strsplit (path != NULL ? path : "", ":", -1);

  for (guint i = 0; dirs[i] != NULL; i++)
    {
      g_autofree char *file = g_build_filename (dirs[i], "model-openai.so", NULL);
      if (g_file_test (file, G_FILE_TEST_EXISTS))
        return g_steal_pointer (&file);
    }
  return NULL;
}

/* Loads the module the way the host does and runs its setup. */
static gboolean
load_plugin (GgBus       *bus,
             const char  *config_text,
             GError     **error)
{
  g_autofree char *path = find_plugin ();
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GgPlugin) plugin = NULL;
  GgPluginDescribeFunc describe;
  GModule *module;

  g_assert_nonnull (path);
  module = g_module_open (path, G_MODULE_BIND_LOCAL | G_MODULE_BIND_LAZY);
  g_assert_nonnull (module);
  g_assert_true (g_module_symbol (module, GG_PLUGIN_ENTRY_SYMBOL, (gpointer *) &describe));
  g_module_make_resident (module);
  g_assert_true (gg_plugin_descriptor_check (describe (), NULL));
  g_assert_cmpstr (describe ()->name, ==, "model-openai");
  if (!gg_config_load_data (config, config_text, "test.conf", error))
    return FALSE;
  plugin = gg_plugin_new (describe (), path, bus, config);
  return gg_plugin_setup (plugin, error);
}

static void
fixture_setup_with (Fixture    *fixture,
                    const char *extra_config)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *config = NULL;

  fixture->fake = fake_openai_new ();
  fixture->base_url = fake_openai_get_base_url (fixture->fake);
  fixture->bus = gg_bus_new ();
  config = g_strdup_printf ("[model-openai]\nbase-url=%s\nmodel=fake-model\nretry-delay-ms=5\n%s",
                            fixture->base_url, extra_config != NULL ? extra_config : "");
  load_plugin (fixture->bus, config, &error);
  g_assert_no_error (error);
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  fixture_setup_with (fixture, data);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_clear_object (&fixture->bus);
  /* Let libsoup finish closing connections before the server goes. */
  for (int i = 0; i < 10; i++)
    g_main_context_iteration (NULL, FALSE);
  fake_openai_free (fixture->fake);
  g_free (fixture->base_url);
}

static GgModel *
create_model (Fixture    *fixture,
              const char *spec_json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) spec = gg_json_parse (spec_json, -1, 16, &error);
  GgModel *model;

  g_assert_no_error (error);
  model = gg_bus_create_model (fixture->bus, spec, &error);
  g_assert_no_error (error);
  return model;
}

typedef struct {
  GgModelReply *reply;
  GError *error;
  gboolean done;
  GString *deltas;
  guint n_deltas;
  GCancellable *cancel_on_delta;
  guint cancel_after;
} StepResult;

static void
on_delta (const char *delta,
          gboolean    is_reset,
          gpointer    user_data)
{
  StepResult *result = user_data;

  g_assert_false (result->done);
  g_string_append (result->deltas, delta);
  result->n_deltas++;
  if (result->cancel_on_delta != NULL && result->n_deltas == result->cancel_after)
    g_cancellable_cancel (result->cancel_on_delta);
}

static void
on_step_done (GObject      *source,
              GAsyncResult *res,
              gpointer      user_data)
{
  StepResult *result = user_data;

  result->reply = gg_model_step_finish (GG_MODEL (source), res, &result->error);
  result->done = TRUE;
}

static void
step_result_clear (StepResult *result)
{
  g_clear_pointer (&result->reply, gg_model_reply_free);
  g_clear_error (&result->error);
  if (result->deltas != NULL)
    g_string_free (result->deltas, TRUE);
  result->deltas = NULL;
}

static void
run_step (GgModel        *model,
          GgModelRequest *request,
          GCancellable   *cancellable,
          StepResult     *result)
{
  result->deltas = g_string_new (NULL);
  gg_model_step_async (model, request, on_delta, result, cancellable, on_step_done, result);
  while (!result->done)
    g_main_context_iteration (NULL, TRUE);
}

static GgModelRequest *
text_request (const char *prompt,
              gboolean    stream)
{
  GgModelRequest *request = gg_model_request_new ();
  JsonObject *entry = json_object_new ();

  request->instructions = g_strdup ("You are a gate guard.");
  json_object_set_string_member (entry, "role", "user");
  json_object_set_string_member (entry, "text", prompt);
  json_array_add_object_element (request->transcript, entry);
  request->stream = stream;
  return request;
}

static void
wait_until (gboolean (*check) (gpointer), gpointer data)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  while (!check (data) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE), g_usleep (1000);
}

/* ---- tests ------------------------------------------------------------- */

static void
test_text (Fixture       *fixture,
           gconstpointer  data)
{
  g_autoptr(GgModel) model = create_model (fixture, "{\"type\":\"openai\"}");
  g_autoptr(GgModelRequest) request = text_request ("Who goes there?", FALSE);
  StepResult result = { 0 };
  JsonObject *sent;

  fake_openai_push_text (fixture->fake, "Halt! Who goes there?");
  run_step (model, request, NULL, &result);
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
  step_result_clear (&result);
}

static void
test_streamed_deltas (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(GgModel) model = create_model (fixture, "{\"type\":\"openai\",\"model\":\"qwen\",\"temperature\":0.5}");
  g_autoptr(GgModelRequest) request = text_request ("Hello", TRUE);
  static const char text[] = "Well met, traveller. The gate opens at dawn — not a moment before.";
  StepResult result = { 0 };
  FakeReply *reply = fake_openai_push_text (fixture->fake, text);
  JsonObject *sent;

  reply->text_pieces = 12;
  reply->chunk_delay_ms = 2;
  run_step (model, request, NULL, &result);
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
  step_result_clear (&result);
}

static void
test_tool_calls (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(GgModel) model = create_model (fixture, "{\"type\":\"openai\"}");
  g_autoptr(GgModelRequest) request = text_request ("Open the north gate and ring the bell", TRUE);
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
  run_step (model, request, NULL, &result);
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
  step_result_clear (&result);
}

static void
test_schema_turn (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(GgModel) model = create_model (fixture, "{\"type\":\"openai\"}");
  g_autoptr(GgModelRequest) request = text_request ("Decide", TRUE);
  StepResult result = { 0 };
  g_autofree char *json = NULL;
  JsonObject *format;

  request->output_schema = gg_json_parse ("{\"type\":\"object\",\"properties\":{\"choice\":{\"type\":\"string\","
                                          "\"enum\":[\"attack\",\"flee\"]},\"why\":{\"type\":\"string\"}},"
                                          "\"required\":[\"choice\"]}", -1, 16, NULL);
  request->schema_name = g_strdup ("Decision");
  request->sampling = gg_json_parse ("\"greedy\"", -1, 4, NULL);
  fake_openai_push_text (fixture->fake, "{\"choice\":\"flee\",\"why\":null}");
  run_step (model, request, NULL, &result);
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
  step_result_clear (&result);
}

static gboolean
one_aborted (gpointer data)
{
  return fake_openai_get_n_aborted (data) >= 1;
}

static void
test_cancel_mid_stream (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GgModel) model = create_model (fixture, "{\"type\":\"openai\"}");
  g_autoptr(GgModelRequest) request = text_request ("Talk forever", TRUE);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  StepResult result = { 0 };
  FakeReply *reply = fake_openai_push_text (fixture->fake, "one two three four five six seven eight");

  reply->text_pieces = 8;
  reply->chunk_delay_ms = 5;
  reply->hang = TRUE;
  result.cancel_on_delta = cancellable;
  result.cancel_after = 2;
  run_step (model, request, cancellable, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED);
  g_assert_null (result.reply);
  /* The HTTP request was aborted: the server saw the connection go. */
  wait_until (one_aborted, fixture->fake);
  g_assert_cmpuint (fake_openai_get_n_aborted (fixture->fake), ==, 1);
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 1);
  step_result_clear (&result);

  /* Cancelled before it starts: no request at all. */
  {
    g_autoptr(GCancellable) early = g_cancellable_new ();
    StepResult again = { 0 };

    g_cancellable_cancel (early);
    run_step (model, request, early, &again);
    g_assert_error (again.error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED);
    g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 1);
    step_result_clear (&again);
  }
}

static void
test_rate_limited (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(GgModel) model = create_model (fixture, "{\"type\":\"openai\",\"retries\":0}");
  g_autoptr(GgModelRequest) request = text_request ("Hi", TRUE);
  StepResult result = { 0 };
  FakeReply *reply = fake_openai_push_error (fixture->fake, 429,
    "{\"error\":{\"message\":\"Rate limit reached for requests\",\"type\":\"requests\",\"param\":null,"
    "\"code\":\"rate_limit_exceeded\"}}");
  JsonObject *error_data;

  reply->retry_after = g_strdup ("7");
  run_step (model, request, NULL, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_RATE_LIMITED);
  error_data = gg_model_error_get_data (result.error);
  g_assert_nonnull (error_data);
  g_assert_cmpint (json_object_get_int_member (error_data, "retryAfterSeconds"), ==, 7);
  g_assert_true (json_object_has_member (error_data, "retryAfter"));
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 1);
  step_result_clear (&result);
}

static void
test_retries (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(GgModel) model = create_model (fixture, "{\"type\":\"openai\",\"retries\":3}");
  g_autoptr(GgModel) once = create_model (fixture, "{\"type\":\"openai\",\"retries\":1}");
  g_autoptr(GgModelRequest) request = text_request ("Hi", TRUE);
  StepResult result = { 0 };
  FakeReply *reply;

  /* 429 honouring Retry-After, then two 5xx with backoff, then an answer. */
  reply = fake_openai_push_error (fixture->fake, 429, "{\"error\":{\"message\":\"slow down\"}}");
  reply->retry_after = g_strdup ("0");
  fake_openai_push_error (fixture->fake, 500, "{\"error\":{\"message\":\"internal\",\"type\":\"server_error\"}}");
  fake_openai_push_error (fixture->fake, 502, "<html>Bad Gateway</html>");
  fake_openai_push_text (fixture->fake, "Finally.");
  run_step (model, request, NULL, &result);
  g_assert_no_error (result.error);
  g_assert_cmpstr (result.reply->text, ==, "Finally.");
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 4);
  step_result_clear (&result);

  /* Out of retries: the last error stands. */
  fake_openai_push_error (fixture->fake, 503, "{\"error\":{\"code\":503,\"message\":\"Loading model\",\"type\":\"unavailable_error\"}}");
  fake_openai_push_error (fixture->fake, 503, "{\"error\":{\"code\":503,\"message\":\"Loading model\",\"type\":\"unavailable_error\"}}");
  memset (&result, 0, sizeof result);
  run_step (once, request, NULL, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_MODEL_UNAVAILABLE);
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 6);
  step_result_clear (&result);

  /* A client error is not retried. */
  fake_openai_push_error (fixture->fake, 400, "{\"error\":{\"message\":\"bad\"}}");
  memset (&result, 0, sizeof result);
  run_step (model, request, NULL, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_REQUEST);
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 7);
  step_result_clear (&result);
}

static void
test_stream_refused (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(GgModel) model = create_model (fixture, "{\"type\":\"openai\"}");
  g_autoptr(GgModelRequest) request = text_request ("Hi", TRUE);
  StepResult result = { 0 };

  /* Asked to stream, the server sends one JSON body instead. */
  fake_openai_push_error (fixture->fake, 200,
    "{\"id\":\"x\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
    "\"message\":{\"role\":\"assistant\",\"content\":\"Not streamed.\"},\"finish_reason\":\"stop\"}]}");
  run_step (model, request, NULL, &result);
  g_assert_no_error (result.error);
  g_assert_cmpstr (result.reply->text, ==, "Not streamed.");
  step_result_clear (&result);
}

static void
test_server_dies (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(GgModel) model = create_model (fixture, "{\"type\":\"openai\",\"retries\":2}");
  g_autoptr(GgModelRequest) request = text_request ("Hi", TRUE);
  StepResult result = { 0 };
  FakeReply *reply;

  /* Dies after text went out: no retry, the caller would see it twice. */
  reply = fake_openai_push_text (fixture->fake, "This answer will never be finished by the server");
  reply->text_pieces = 10;
  reply->drop_after = 4;
  run_step (model, request, NULL, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
  g_assert_cmpuint (result.n_deltas, >=, 1);
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 1);
  step_result_clear (&result);

  /* Dies before any text: retried, and the retry succeeds. */
  reply = fake_openai_push_text (fixture->fake, "lost");
  reply->drop_after = 0;
  fake_openai_push_text (fixture->fake, "Second time lucky.");
  memset (&result, 0, sizeof result);
  run_step (model, request, NULL, &result);
  g_assert_no_error (result.error);
  g_assert_cmpstr (result.reply->text, ==, "Second time lucky.");
  g_assert_cmpstr (result.deltas->str, ==, "Second time lucky.");
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 3);
  step_result_clear (&result);
}

static void
test_unavailable (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(GgModel) model = create_model (fixture, "{\"type\":\"openai\",\"model\":\"llama3.3\"}");
  g_autoptr(GgModelRequest) request = text_request ("Hi", TRUE);
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GInetSocketAddress) address = NULL;
  g_autofree char *closed_spec = NULL;
  g_autoptr(GgModel) closed = NULL;
  StepResult result = { 0 };
  guint16 port;

  fake_openai_push_error (fixture->fake, 404, "{\"error\":{\"message\":\"model \\\"llama3.3\\\" not found, try pulling it first\","
                                              "\"type\":\"api_error\",\"param\":null,\"code\":null}}");
  run_step (model, request, NULL, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_MODEL_UNAVAILABLE);
  g_assert_nonnull (strstr (result.error->message, "llama3.3"));
  g_assert_nonnull (strstr (result.error->message, fixture->base_url));
  step_result_clear (&result);

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
  closed = create_model (fixture, closed_spec);
  memset (&result, 0, sizeof result);
  run_step (closed, request, NULL, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_MODEL_UNAVAILABLE);
  {
    g_autofree char *expected = g_strdup_printf ("Model 'fake-model' at http://127.0.0.1:%u/v1 is unavailable: "
                                                 "cannot connect to the server", port);
    g_assert_cmpstr (result.error->message, ==, expected);
  }
  step_result_clear (&result);
}

static void
test_timeout (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(GgModel) model = create_model (fixture, "{\"type\":\"openai\",\"timeoutSeconds\":0.2,\"retries\":0}");
  g_autoptr(GgModelRequest) request = text_request ("Hi", FALSE);
  StepResult result = { 0 };
  FakeReply *reply = fake_openai_push_text (fixture->fake, "too late");

  reply->delay_ms = 1000;
  run_step (model, request, NULL, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
  g_assert_nonnull (strstr (result.error->message, "did not answer within 0.2 s"));
  wait_until (one_aborted, fixture->fake);
  g_assert_cmpuint (fake_openai_get_n_aborted (fixture->fake), ==, 1);
  step_result_clear (&result);
}

static void
test_api_key (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(GgModel) model = NULL;
  g_autoptr(GgModel) elsewhere = NULL;
  g_autoptr(GgModel) wrong = NULL;
  g_autoptr(GgModelRequest) request = text_request ("Hi", TRUE);
  g_autofree char *spec = NULL;
  g_autofree char *other_url = NULL;
  StepResult result = { 0 };
  g_autoptr(FakeOpenai) other = fake_openai_new ();

  /* The fixture's config named KEY_ENV, set in main(). */
  fake_openai_set_api_key (fixture->fake, SECRET);
  model = create_model (fixture, "{\"type\":\"openai\"}");
  run_step (model, request, NULL, &result);
  g_assert_no_error (result.error);
  g_assert_cmpstr (fake_openai_get_authorization (fixture->fake, 0), ==, "Bearer " SECRET);
  step_result_clear (&result);

  /* A request pointing elsewhere never gets the configured key. */
  other_url = fake_openai_get_base_url (other);
  spec = g_strdup_printf ("{\"type\":\"openai\",\"baseUrl\":\"%s\"}", other_url);
  elsewhere = create_model (fixture, spec);
  memset (&result, 0, sizeof result);
  run_step (elsewhere, request, NULL, &result);
  g_assert_no_error (result.error);
  g_assert_cmpstr (fake_openai_get_authorization (other, 0), ==, "");
  step_result_clear (&result);

  /* A rejected key: the error and the logs never show it. */
  g_setenv ("GG_TEST_WRONG_API_KEY", "sk-wrong-" SECRET, TRUE);
  wrong = create_model (fixture, "{\"type\":\"openai\",\"apiKeyEnv\":\"GG_TEST_WRONG_API_KEY\"}");
  memset (&result, 0, sizeof result);
  run_step (wrong, request, NULL, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_MODEL_UNAVAILABLE);
  g_assert_cmpstr (fake_openai_get_authorization (fixture->fake, 1), ==, "Bearer sk-wrong-" SECRET);
  g_assert_null (strstr (result.error->message, SECRET));
  g_assert_null (strstr (result.error->message, "sk-"));
  step_result_clear (&result);
  g_assert_null (strstr (captured_logs->str, SECRET));
  g_assert_null (strstr (captured_logs->str, "sk-"));
  g_assert_nonnull (strstr (captured_logs->str, "HTTP 401"));
}

static void
test_api_key_file (void)
{
  g_autoptr(FakeOpenai) fake = fake_openai_new ();
  g_autofree char *url = fake_openai_get_base_url (fake);
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("gg-openai-XXXXXX", NULL);
  g_autofree char *key_path = g_build_filename (dir, "key", NULL);
  g_autofree char *config = NULL;
  g_autoptr(GgModel) model = NULL;
  g_autoptr(GgModelRequest) request = text_request ("Hi", FALSE);
  g_autoptr(JsonNode) system = json_node_new (JSON_NODE_OBJECT);
  StepResult result = { 0 };

  g_assert_true (g_file_set_contents (key_path, "  " SECRET "\n", -1, NULL));
  config = g_strdup_printf ("[model-openai]\nbase-url=%s\nmodel=fake-model\napi-key-file=%s\n", url, key_path);
  load_plugin (bus, config, &error);
  g_assert_no_error (error);

  /* As the "system" default. */
  json_node_take_object (system, json_object_new ());
  json_object_set_string_member (json_node_get_object (system), "type", "openai");
  gg_bus_set_default_model (bus, system);
  model = gg_bus_create_model (bus, NULL, &error);
  g_assert_no_error (error);
  run_step (model, request, NULL, &result);
  g_assert_no_error (result.error);
  g_assert_cmpstr (fake_openai_get_authorization (fake, 0), ==, "Bearer " SECRET);
  step_result_clear (&result);
  g_clear_object (&model);
  g_clear_object (&bus);
  for (int i = 0; i < 10; i++)
    g_main_context_iteration (NULL, FALSE);
  g_unlink (key_path);
  g_rmdir (dir);
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

      g_assert_false (load_plugin (bus, cases[i].config, &error));
      g_assert_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_INVALID_VALUE);
      if (strstr (error->message, cases[i].message) == NULL)
        g_error ("'%s' does not mention '%s'", error->message, cases[i].message);
      g_assert_false (gg_bus_has_model_type (bus, "openai"));
    }
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

    load_plugin (bus, "[model-openai]\n", &error);
    g_assert_no_error (error);
    model = gg_bus_create_model (bus, spec, &error);
    g_assert_null (model);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
    g_assert_true (g_str_has_prefix (error->message, "model.model: no model name given"));
  }
}

typedef struct {
  JsonObject *answer;
  GError *error;
  gboolean done;
} Availability;

static void
on_availability (GObject      *source,
                 GAsyncResult *res,
                 gpointer      user_data)
{
  Availability *availability = user_data;

  availability->answer = gg_model_availability_finish (GG_MODEL (source), res, &availability->error);
  availability->done = TRUE;
}

static JsonObject *
availability_of (GgModel *model)
{
  Availability availability = { 0 };

  gg_model_availability_async (model, NULL, on_availability, &availability);
  while (!availability.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (availability.error);
  return availability.answer;
}

static void
test_availability (Fixture       *fixture,
                   gconstpointer  data)
{
  const char *models[] = { "fake-model", "qwen2.5:7b-instruct", NULL };
  g_autoptr(GgModel) served = create_model (fixture, "{\"type\":\"openai\",\"contextSize\":32768}");
  g_autoptr(GgModel) missing = create_model (fixture, "{\"type\":\"openai\",\"model\":\"llama9\"}");
  g_autoptr(GgModel) down = create_model (fixture, "{\"type\":\"openai\",\"baseUrl\":\"http://127.0.0.1:1/v1\"}");
  g_autoptr(JsonObject) a = NULL, b = NULL, c = NULL, d = NULL;

  fake_openai_set_models (fixture->fake, models);
  a = availability_of (served);
  g_assert_true (json_object_get_boolean_member (a, "available"));
  g_assert_cmpint (json_object_get_int_member (a, "contextSize"), ==, 32768);
  g_assert_cmpstr (json_object_get_string_member (a, "variant"), ==, "fake-model");
  g_assert_cmpint (gg_model_get_context_size (served), ==, 32768);

  /* Asked again right away: answered from the cache. */
  b = availability_of (missing);
  g_assert_false (json_object_get_boolean_member (b, "available"));
  g_assert_cmpstr (json_object_get_string_member (b, "reason"), ==, "model_not_ready");
  g_assert_cmpuint (fake_openai_get_n_model_lists (fixture->fake), ==, 1);

  c = availability_of (down);
  g_assert_false (json_object_get_boolean_member (c, "available"));
  g_assert_cmpstr (json_object_get_string_member (c, "reason"), ==, "unknown");
  g_assert_nonnull (strstr (json_object_get_string_member (c, "detail"), "cannot connect"));

  /* Behind a key: the list is asked with it. */
  fake_openai_set_api_key (fixture->fake, SECRET);
  d = availability_of (served);
  g_assert_true (json_object_get_boolean_member (d, "available"));
}

static void
test_concurrency_limit (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GgModel) model = create_model (fixture, "{\"type\":\"openai\"}");
  g_autoptr(GgModelRequest) request = text_request ("Hi", FALSE);
  StepResult results[3] = { { 0 } };

  for (int i = 0; i < 3; i++)
    {
      FakeReply *reply = fake_openai_push_text (fixture->fake, "ok");
      reply->delay_ms = 30;
    }
  for (int i = 0; i < 3; i++)
    {
      results[i].deltas = g_string_new (NULL);
      gg_model_step_async (model, request, on_delta, &results[i], NULL, on_step_done, &results[i]);
    }
  while (!results[0].done || !results[1].done || !results[2].done)
    g_main_context_iteration (NULL, TRUE);
  for (int i = 0; i < 3; i++)
    {
      g_assert_no_error (results[i].error);
      g_assert_cmpstr (results[i].reply->text, ==, "ok");
      step_result_clear (&results[i]);
    }
  /* max-concurrent-requests=1: the server never saw two at once. */
  g_assert_cmpuint (fake_openai_get_max_pending (fixture->fake), ==, 1);
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 3);
}

/* ---- through the shared tool-calling loop ------------------------------ */

typedef struct {
  JsonObject *result;
  GError *error;
  gboolean done;
  guint executed;
  GString *text_events;
} TurnResult;

static void
execute_tool (GgToolInvocation *invocation,
              gpointer          user_data)
{
  TurnResult *turn = user_data;
  g_autoptr(JsonNode) output = json_node_new (JSON_NODE_VALUE);
  g_autofree char *args = gg_json_to_string (gg_tool_invocation_get_arguments (invocation));

  turn->executed++;
  g_assert_cmpstr (gg_tool_invocation_get_name (invocation), ==, "open_gate");
  g_assert_cmpstr (args, ==, "{\"gate\":\"north\"}");
  json_node_set_string (output, "The north gate is now open.");
  gg_tool_invocation_return_output (invocation, output, FALSE);
  g_object_unref (invocation);
}

static void
on_turn_event (JsonObject *event,
               gpointer    user_data)
{
  TurnResult *turn = user_data;

  if (g_strcmp0 (json_object_get_string_member_with_default (event, "type", ""), "text") == 0)
    g_string_append (turn->text_events, json_object_get_string_member (event, "delta"));
}

static void
on_turn_done (GObject      *source,
              GAsyncResult *res,
              gpointer      user_data)
{
  TurnResult *turn = user_data;

  turn->result = gg_agent_turn_run_finish (GG_AGENT_TURN (source), res, &turn->error);
  turn->done = TRUE;
}

static void
test_agent_turn (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(GgModel) model = create_model (fixture, "{\"type\":\"openai\"}");
  g_autoptr(JsonNode) tools = gg_json_parse (
    "[{\"name\":\"open_gate\",\"description\":\"Opens a gate\","
    "\"parameters\":{\"type\":\"object\",\"properties\":{\"gate\":{\"type\":\"string\"}},\"required\":[\"gate\"]}}]",
    -1, 16, NULL);
  g_autoptr(GgAgentTurn) turn = NULL;
  GgAgentPolicy policy;
  TurnResult result = { 0 };
  FakeReply *reply;
  JsonArray *messages;
  JsonObject *tool_message;

  reply = fake_openai_push (fixture->fake);
  fake_reply_add_tool_call (reply, "call_gate", "open_gate", "{\"gate\":\"north\"}");
  reply->arg_fragments = 6;
  reply = fake_openai_push_text (fixture->fake, "Done: the north gate stands open.");
  reply->text_pieces = 5;

  gg_agent_policy_init (&policy);
  policy.tool_choice = GG_TOOL_CHOICE_REQUIRED;
  turn = gg_agent_turn_new (model, "You are the gate guard.", NULL, json_node_get_array (tools),
                            "Open the north gate", NULL, &policy);
  gg_agent_policy_clear (&policy);
  result.text_events = g_string_new (NULL);
  gg_agent_turn_set_executor (turn, execute_tool, &result, NULL);
  gg_agent_turn_set_event_func (turn, on_turn_event, &result, NULL);
  gg_agent_turn_set_streaming (turn, TRUE);
  gg_agent_turn_run_async (turn, NULL, on_turn_done, &result);
  while (!result.done)
    g_main_context_iteration (NULL, TRUE);

  g_assert_no_error (result.error);
  g_assert_cmpuint (result.executed, ==, 1);
  g_assert_cmpstr (json_object_get_string_member (result.result, "text"), ==, "Done: the north gate stands open.");
  g_assert_cmpstr (result.text_events->str, ==, "Done: the north gate stands open.");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (result.result, "toolCalls")), ==, 1);

  /* The first step forced the tool; the second carried its result back. */
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 2);
  {
    /* One visible tool that must be called is named outright. */
    JsonObject *choice = json_object_get_object_member (fake_openai_get_request (fixture->fake, 0), "tool_choice");
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (choice, "function"), "name"),
                     ==, "open_gate");
    g_assert_cmpstr (json_object_get_string_member (fake_openai_get_request (fixture->fake, 1), "tool_choice"),
                     ==, "auto");
  }
  messages = json_object_get_array_member (fake_openai_get_request (fixture->fake, 1), "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 4);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "role"), ==, "assistant");
  tool_message = json_array_get_object_element (messages, 3);
  g_assert_cmpstr (json_object_get_string_member (tool_message, "role"), ==, "tool");
  g_assert_cmpstr (json_object_get_string_member (tool_message, "tool_call_id"), ==, "call_gate");
  g_assert_nonnull (strstr (json_object_get_string_member (tool_message, "content"), "The north gate is now open."));

  g_clear_pointer (&result.result, json_object_unref);
  g_string_free (result.text_events, TRUE);
}

static void
test_agent_schema_turn (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GgModel) model = create_model (fixture, "{\"type\":\"openai\"}");
  g_autoptr(JsonNode) schema = gg_json_parse ("{\"type\":\"object\",\"properties\":{\"choice\":{\"type\":\"string\","
                                              "\"enum\":[\"attack\",\"flee\"]},\"line\":{\"type\":\"string\"}},"
                                              "\"required\":[\"choice\"]}", -1, 16, NULL);
  g_autoptr(GgAgentTurn) turn = NULL;
  g_autofree char *structured = NULL;
  GgAgentPolicy policy;
  TurnResult result = { 0 };

  fake_openai_push_text (fixture->fake, "{\"choice\":\"flee\",\"line\":null}");
  gg_agent_policy_init (&policy);
  turn = gg_agent_turn_new (model, NULL, NULL, NULL, "The dragon wakes. Decide.", schema, &policy);
  gg_agent_policy_clear (&policy);
  result.text_events = g_string_new (NULL);
  gg_agent_turn_set_streaming (turn, TRUE);
  gg_agent_turn_run_async (turn, NULL, on_turn_done, &result);
  while (!result.done)
    g_main_context_iteration (NULL, TRUE);

  g_assert_no_error (result.error);
  /* The strict schema's forced null is gone, so the caller's schema holds. */
  structured = gg_json_to_string (json_object_get_member (result.result, "structured"));
  g_assert_cmpstr (structured, ==, "{\"choice\":\"flee\"}");
  g_clear_pointer (&result.result, json_object_unref);
  g_string_free (result.text_events, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  captured_logs = g_string_new (NULL);
  g_log_set_writer_func (capture_writer, NULL, NULL);
  g_log_set_debug_enabled (TRUE);
  g_setenv (KEY_ENV, SECRET, TRUE);
  g_unsetenv ("GG_TEST_UNSET_API_KEY");

  if (g_getenv ("GAMEGATE_PLUGIN_PATH") == NULL)
    {
      g_test_skip ("GAMEGATE_PLUGIN_PATH is not set (run through meson test)");
      return 77;
    }

#define ADD(path, func, config) \
  g_test_add ("/openai/model/" path, Fixture, config, fixture_setup, func, fixture_teardown)
  ADD ("text", test_text, NULL);
  ADD ("streamed-deltas", test_streamed_deltas, NULL);
  ADD ("tool-calls", test_tool_calls, NULL);
  ADD ("schema-turn", test_schema_turn, NULL);
  ADD ("cancel-mid-stream", test_cancel_mid_stream, NULL);
  ADD ("rate-limited", test_rate_limited, NULL);
  ADD ("retries", test_retries, NULL);
  ADD ("server-dies", test_server_dies, NULL);
  ADD ("stream-refused", test_stream_refused, NULL);
  ADD ("unavailable", test_unavailable, NULL);
  ADD ("timeout", test_timeout, NULL);
  ADD ("api-key", test_api_key, "api-key-env=" KEY_ENV "\n");
  ADD ("spec-errors", test_spec_errors, NULL);
  ADD ("availability", test_availability, "api-key-env=" KEY_ENV "\n");
  ADD ("agent-turn", test_agent_turn, NULL);
  ADD ("agent-schema-turn", test_agent_schema_turn, NULL);
  ADD ("concurrency-limit", test_concurrency_limit, "max-concurrent-requests=1\n");
#undef ADD
  g_test_add_func ("/openai/model/api-key-file", test_api_key_file);
  g_test_add_func ("/openai/model/config-errors", test_config_errors);

  {
    int status = g_test_run ();
    g_string_free (captured_logs, TRUE);
    return status;
  }
}
