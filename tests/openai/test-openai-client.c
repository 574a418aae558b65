/* test-openai-client.c: what the models of one plugin share: the API key
 * (from the environment or a file, sent only to its own server, never in a
 * log or an error), availability through GET /models with its cache, and
 * the connection limit.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>

#include "openai-test-util.h"

#define KEY_ENV "GG_TEST_OPENAI_API_KEY"
#define SECRET "sk-proj-TESTSECRET-d41d8cd98f00b204e9800998ecf8427e"

/* Everything logged while the tests run: the key must never be in it. */
static GString *captured_logs;

typedef struct {
  JsonObject *answer;
  GError *error;
  gboolean done;
} Availability;


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

static void
test_api_key (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(GgModel) model = NULL;
  g_autoptr(GgModel) elsewhere = NULL;
  g_autoptr(GgModel) wrong = NULL;
  g_autoptr(GgModelRequest) request = ot_text_request ("Hi", TRUE);
  g_autofree char *spec = NULL;
  g_autofree char *other_url = NULL;
  StepResult result = { 0 };
  g_autoptr(FakeOpenai) other = fake_openai_new ();

  /* The fixture's config named KEY_ENV, set in main(). */
  fake_openai_set_api_key (fixture->fake, SECRET);
  model = ot_create_model (fixture, "{\"type\":\"openai\"}");
  ot_run_step (model, request, NULL, &result);
  g_assert_no_error (result.error);
  g_assert_cmpstr (fake_openai_get_authorization (fixture->fake, 0), ==, "Bearer " SECRET);
  ot_step_result_clear (&result);

  /* A request pointing elsewhere never gets the configured key. */
  other_url = fake_openai_get_base_url (other);
  spec = g_strdup_printf ("{\"type\":\"openai\",\"baseUrl\":\"%s\"}", other_url);
  elsewhere = ot_create_model (fixture, spec);
  memset (&result, 0, sizeof result);
  ot_run_step (elsewhere, request, NULL, &result);
  g_assert_no_error (result.error);
  g_assert_cmpstr (fake_openai_get_authorization (other, 0), ==, "");
  ot_step_result_clear (&result);

  /* A rejected key: the error and the logs never show it. */
  g_setenv ("GG_TEST_WRONG_API_KEY", "sk-wrong-" SECRET, TRUE);
  wrong = ot_create_model (fixture, "{\"type\":\"openai\",\"apiKeyEnv\":\"GG_TEST_WRONG_API_KEY\"}");
  memset (&result, 0, sizeof result);
  ot_run_step (wrong, request, NULL, &result);
  g_assert_error (result.error, GG_MODEL_ERROR, GG_MODEL_ERROR_MODEL_UNAVAILABLE);
  g_assert_cmpstr (fake_openai_get_authorization (fixture->fake, 1), ==, "Bearer sk-wrong-" SECRET);
  g_assert_null (strstr (result.error->message, SECRET));
  g_assert_null (strstr (result.error->message, "sk-"));
  ot_step_result_clear (&result);
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
  g_autoptr(GgModelRequest) request = ot_text_request ("Hi", FALSE);
  g_autoptr(JsonNode) system = json_node_new (JSON_NODE_OBJECT);
  StepResult result = { 0 };

  g_assert_true (g_file_set_contents (key_path, "  " SECRET "\n", -1, NULL));
  config = g_strdup_printf ("[model-openai]\nbase-url=%s\nmodel=fake-model\napi-key-file=%s\n", url, key_path);
  ot_load_plugin (bus, config, &error);
  g_assert_no_error (error);

  /* As the "system" default. */
  json_node_take_object (system, json_object_new ());
  json_object_set_string_member (json_node_get_object (system), "type", "openai");
  gg_bus_set_default_model (bus, system);
  model = gg_bus_create_model (bus, NULL, &error);
  g_assert_no_error (error);
  ot_run_step (model, request, NULL, &result);
  g_assert_no_error (result.error);
  g_assert_cmpstr (fake_openai_get_authorization (fake, 0), ==, "Bearer " SECRET);
  ot_step_result_clear (&result);
  g_clear_object (&model);
  g_clear_object (&bus);
  for (int i = 0; i < 10; i++)
    g_main_context_iteration (NULL, FALSE);
  g_unlink (key_path);
  g_rmdir (dir);
}

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
  g_autoptr(GgModel) served = ot_create_model (fixture, "{\"type\":\"openai\",\"contextSize\":32768}");
  g_autoptr(GgModel) missing = ot_create_model (fixture, "{\"type\":\"openai\",\"model\":\"llama9\"}");
  g_autoptr(GgModel) down = ot_create_model (fixture, "{\"type\":\"openai\",\"baseUrl\":\"http://127.0.0.1:1/v1\"}");
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
  g_autoptr(GgModel) model = ot_create_model (fixture, "{\"type\":\"openai\"}");
  g_autoptr(GgModelRequest) request = ot_text_request ("Hi", FALSE);
  StepResult results[3] = { { 0 } };

  for (int i = 0; i < 3; i++)
    {
      FakeReply *reply = fake_openai_push_text (fixture->fake, "ok");
      reply->delay_ms = 30;
    }
  for (int i = 0; i < 3; i++)
    {
      results[i].deltas = g_string_new (NULL);
      gg_model_step_async (model, request, ot_on_delta, &results[i], NULL, ot_on_step_done, &results[i]);
    }
  while (!results[0].done || !results[1].done || !results[2].done)
    g_main_context_iteration (NULL, TRUE);
  for (int i = 0; i < 3; i++)
    {
      g_assert_no_error (results[i].error);
      g_assert_cmpstr (results[i].reply->text, ==, "ok");
      ot_step_result_clear (&results[i]);
    }
  /* max-concurrent-requests=1: the server never saw two at once. */
  g_assert_cmpuint (fake_openai_get_max_pending (fixture->fake), ==, 1);
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, 3);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  captured_logs = g_string_new (NULL);
  g_log_set_writer_func (capture_writer, NULL, NULL);
  g_log_set_debug_enabled (TRUE);
  g_setenv (KEY_ENV, SECRET, TRUE);
  if (g_getenv ("GAMEGATE_PLUGIN_PATH") == NULL)
    return 77; /* run through meson test */

  OT_ADD ("client/api-key", test_api_key, "api-key-env=" KEY_ENV "\n");
  g_test_add_func ("/openai/client/api-key-file", test_api_key_file);
  OT_ADD ("client/availability", test_availability, "api-key-env=" KEY_ENV "\n");
  OT_ADD ("client/concurrency-limit", test_concurrency_limit, "max-concurrent-requests=1\n");

  {
    int status = g_test_run ();
    g_string_free (captured_logs, TRUE);
    return status;
  }
}
