/* openai-test-util.c: what the model-openai test programs share: loading
 * the built plugin as the host does, a fixture with a fake server and a
 * bus, and running one model step to completion.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-test-plugin.h"
#include "openai-test-util.h"

/* Loads the module the way the host does and runs its setup. */
gboolean
ot_load_plugin (GgBus       *bus,
                const char  *config_text,
                GError     **error)
{
  g_autoptr(GgConfig) config = gg_config_new ();

  if (!gg_config_load_data (config, config_text, "test.conf", error))
    return FALSE;
  return gg_test_load_plugin (bus, "model-openai", config, error) != NULL;
}

void
ot_fixture_setup_with (Fixture    *fixture,
                    const char *extra_config)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *config = NULL;

  fixture->fake = fake_openai_new ();
  fixture->base_url = fake_openai_get_base_url (fixture->fake);
  fixture->bus = gg_bus_new ();
  config = g_strdup_printf ("[model-openai]\nbase-url=%s\nmodel=fake-model\nretry-delay-ms=5\n%s",
                            fixture->base_url, extra_config != NULL ? extra_config : "");
  ot_load_plugin (fixture->bus, config, &error);
  g_assert_no_error (error);
}

void
ot_fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  ot_fixture_setup_with (fixture, data);
}

void
ot_fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_clear_object (&fixture->bus);
  /* Let libsoup finish closing connections before the server goes. */
  for (int i = 0; i < 10; i++)
    g_main_context_iteration (NULL, FALSE);
  fake_openai_free (fixture->fake);
  g_free (fixture->base_url);
}

GgModel *
ot_create_model (Fixture    *fixture,
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

void
ot_on_delta (const char *delta,
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

void
ot_on_step_done (GObject      *source,
              GAsyncResult *res,
              gpointer      user_data)
{
  StepResult *result = user_data;

  result->reply = gg_model_step_finish (GG_MODEL (source), res, &result->error);
  result->done = TRUE;
}

void
ot_step_result_clear (StepResult *result)
{
  g_clear_pointer (&result->reply, gg_model_reply_free);
  g_clear_error (&result->error);
  if (result->deltas != NULL)
    g_string_free (result->deltas, TRUE);
  result->deltas = NULL;
}

void
ot_run_step (GgModel        *model,
          GgModelRequest *request,
          GCancellable   *cancellable,
          StepResult     *result)
{
  result->deltas = g_string_new (NULL);
  gg_model_step_async (model, request, ot_on_delta, result, cancellable, ot_on_step_done, result);
  while (!result->done)
    g_main_context_iteration (NULL, TRUE);
}

GgModelRequest *
ot_text_request (const char *prompt,
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

void
ot_wait_until (gboolean (*check) (gpointer),
               gpointer   data)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  while (!check (data) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE), g_usleep (1000);
}
