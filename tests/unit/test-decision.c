/* test-decision.c: plugin-api's decision operation (GgDecision), driven by
 * the real scripted model plugin from the build tree: the schema it asks
 * for, one option without a model call, the answer read back, an answer
 * outside the schema retried once and then an error, model errors passed
 * through (also one worded like an answer outside the schema), cancellation.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gmodule.h>
#include <gamegate.h>

#include "gg-test-util.h"

static GgBus *bus;

static void
load_scripted_plugin (void)
{
  const char *path = g_getenv ("GAMEGATE_PLUGIN_PATH");
  g_auto(GStrv) dirs = g_strsplit (path != NULL ? path : "", ":", -1);

  bus = gg_bus_new ();
  for (guint i = 0; dirs[i] != NULL; i++)
    {
      g_autofree char *file = g_build_filename (dirs[i], "model-scripted.so", NULL);
      GgPluginDescribeFunc describe = NULL;
      g_autoptr(GgPlugin) plugin = NULL;
      g_autoptr(GError) error = NULL;
      GModule *module;

      if (!g_file_test (file, G_FILE_TEST_EXISTS))
        continue;
      module = g_module_open (file, G_MODULE_BIND_LOCAL);
      g_assert_nonnull (module);
      g_assert_true (g_module_symbol (module, GG_PLUGIN_ENTRY_SYMBOL, (gpointer *) &describe));
      g_module_make_resident (module);
      plugin = gg_plugin_new (describe (), file, bus, NULL);
      g_assert_true (gg_plugin_setup (plugin, &error));
      return;
    }
  g_error ("model-scripted.so not found in GAMEGATE_PLUGIN_PATH");
}

static GgModel *
scripted (const char *steps)
{
  g_autofree char *spec = g_strdup_printf ("{\"type\":\"scripted\",\"steps\":%s}", steps);
  g_autoptr(JsonNode) node = gg_json_parse (spec, -1, 64, NULL);
  g_autoptr(GError) error = NULL;
  GgModel *model = gg_bus_create_model (bus, node, &error);

  g_assert_no_error (error);
  return model;
}

static JsonArray *
options (const char *first,
         ...)
{
  JsonArray *array = json_array_new ();
  va_list args;

  va_start (args, first);
  for (const char *id = first; id != NULL; id = va_arg (args, const char *))
    json_array_add_string_element (array, id);
  va_end (args);
  return array;
}

static const GgDecisionFormat a2g_format = { .reason_key = "reason", .option_key = "action",
                                             .reason_max_length = 280, .schema_retries = 1 };

typedef struct {
  gboolean done;
  GgDecisionResult *result;
  GError *error;
} Wait;

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Wait *wait = user_data;

  wait->result = gg_decision_run_finish (GG_DECISION (source), result, &wait->error);
  wait->done = TRUE;
}

static void
run (GgDecision   *decision,
     GCancellable *cancellable,
     Wait         *wait)
{
  gg_decision_run_async (decision, cancellable, on_done, wait);
  g_assert_true (gg_test_wait_until (&wait->done, 5000));
}

static void
test_schema (void)
{
  g_autoptr(JsonArray) ids = options ("attack", "flee", NULL);
  g_autoptr(JsonNode) schema = gg_decision_schema (ids, &a2g_format);
  g_autofree char *text = gg_json_to_string (schema);

  g_assert_cmpstr (text, ==,
    "{\"type\":\"object\",\"title\":\"Decision\",\"properties\":{"
    "\"reason\":{\"type\":\"string\",\"description\":\"One sentence explaining the choice\",\"maxLength\":280},"
    "\"action\":{\"type\":\"string\",\"description\":\"The id of the chosen option\",\"enum\":[\"attack\",\"flee\"]},"
    "\"confidence\":{\"type\":\"integer\",\"description\":\"How sure you are, 0 to 100\",\"minimum\":0,\"maximum\":100}},"
    "\"required\":[\"reason\",\"action\",\"confidence\"],\"additionalProperties\":false}");
}

static void
test_forced (void)
{
  /* The script would fail: it is never asked. */
  g_autoptr(GgModel) model = scripted ("[{\"error\":\"generation_failed\"}]");
  g_autoptr(JsonArray) ids = options ("attack", NULL);
  g_autoptr(GgDecision) decision = gg_decision_new (model, "i", "p", ids, &a2g_format);
  Wait wait = { 0 };

  g_assert_true (gg_decision_is_forced (decision));
  run (decision, NULL, &wait);
  g_assert_no_error (wait.error);
  g_assert_cmpstr (wait.result->option, ==, "attack");
  g_assert_cmpstr (wait.result->reason, ==, "");
  g_assert_cmpint (wait.result->confidence, ==, 100);
  g_assert_true (wait.result->forced);
  g_assert_cmpuint (wait.result->attempts, ==, 0);
  gg_decision_result_free (wait.result);
}

static void
test_answer (void)
{
  g_autoptr(GgModel) model = scripted ("[{\"json\":{\"reason\":\"Hurt.\",\"action\":\"flee\",\"confidence\":72}}]");
  g_autoptr(JsonArray) ids = options ("attack", "flee", NULL);
  g_autoptr(GgDecision) decision = gg_decision_new (model, "i", "p", ids, &a2g_format);
  Wait wait = { 0 };

  run (decision, NULL, &wait);
  g_assert_no_error (wait.error);
  g_assert_cmpstr (wait.result->option, ==, "flee");
  g_assert_cmpstr (wait.result->reason, ==, "Hurt.");
  g_assert_cmpint (wait.result->confidence, ==, 72);
  g_assert_false (wait.result->forced);
  g_assert_cmpuint (wait.result->attempts, ==, 1);
  g_assert_nonnull (wait.result->usage);
  gg_decision_result_free (wait.result);
}

static void
test_retry_then_error (void)
{
  /* Not an option, then not JSON: one retry, then the error. */
  g_autoptr(GgModel) model = scripted ("[{\"json\":{\"reason\":\"x\",\"action\":\"dance\",\"confidence\":5}},"
                                       "{\"text\":\"flee!\"},"
                                       "{\"json\":{\"reason\":\"x\",\"action\":\"flee\",\"confidence\":5}}]");
  g_autoptr(JsonArray) ids = options ("attack", "flee", NULL);
  g_autoptr(GgDecision) decision = gg_decision_new (model, "i", "p", ids, &a2g_format);
  Wait wait = { 0 };

  run (decision, NULL, &wait);
  g_assert_null (wait.result);
  g_assert_error (wait.error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
  g_clear_error (&wait.error);
}

static void
test_retry_then_answer (void)
{
  g_autoptr(GgModel) model = scripted ("[{\"json\":{\"reason\":\"x\",\"action\":\"flee\",\"confidence\":500}},"
                                       "{\"json\":{\"reason\":\"ok\",\"action\":\"attack\",\"confidence\":9}}]");
  g_autoptr(JsonArray) ids = options ("attack", "flee", NULL);
  g_autoptr(GgDecision) decision = gg_decision_new (model, "i", "p", ids, &a2g_format);
  Wait wait = { 0 };

  run (decision, NULL, &wait);
  g_assert_no_error (wait.error);
  g_assert_cmpstr (wait.result->option, ==, "attack");
  g_assert_cmpuint (wait.result->attempts, ==, 2);
  gg_decision_result_free (wait.result);
}

static void
test_no_retry_format (void)
{
  /* oam's format: no retry, its own member names. */
  static const GgDecisionFormat oam_format = { .reason_key = "reasoning", .option_key = "optionID" };
  g_autoptr(GgModel) model = scripted ("[{\"json\":{\"reasoning\":\"x\",\"optionID\":\"z\",\"confidence\":5}},"
                                       "{\"json\":{\"reasoning\":\"x\",\"optionID\":\"a\",\"confidence\":5}}]");
  g_autoptr(JsonArray) ids = options ("a", "b", NULL);
  g_autoptr(GgDecision) decision = gg_decision_new (model, NULL, "p", ids, &oam_format);
  Wait wait = { 0 };

  run (decision, NULL, &wait);
  g_assert_error (wait.error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
  g_clear_error (&wait.error);
}

static void
test_model_error (void)
{
  g_autoptr(GgModel) model = scripted ("[{\"error\":\"model_unavailable\"},"
                                       "{\"json\":{\"reason\":\"x\",\"action\":\"flee\",\"confidence\":5}}]");
  g_autoptr(JsonArray) ids = options ("attack", "flee", NULL);
  g_autoptr(GgDecision) decision = gg_decision_new (model, "i", "p", ids, &a2g_format);
  Wait wait = { 0 };

  run (decision, NULL, &wait);
  g_assert_error (wait.error, GG_MODEL_ERROR, GG_MODEL_ERROR_MODEL_UNAVAILABLE);
  g_clear_error (&wait.error);
}

static void
test_model_error_wording (void)
{
  /* A model's own failure is no answer outside the schema, whatever its
   * message says: not retried (the answer after it is never asked for;
   * a2g's policy: no step retries either). */
  g_autoptr(GgModel) model = scripted ("[{\"error\":\"generation_failed\","
                                       "\"message\":\"The model's answer is not valid JSON\"},"
                                       "{\"json\":{\"reason\":\"x\",\"action\":\"flee\",\"confidence\":5}}]");
  g_autoptr(JsonArray) ids = options ("attack", "flee", NULL);
  g_autoptr(GgDecision) decision = gg_decision_new (model, "i", "p", ids, &a2g_format);
  GgAgentPolicy policy;
  Wait wait = { 0 };

  gg_agent_policy_init (&policy);
  policy.max_attempts = 1;
  gg_decision_set_tools (decision, NULL, &policy);
  gg_agent_policy_clear (&policy);
  run (decision, NULL, &wait);
  g_assert_null (wait.result);
  g_assert_error (wait.error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
  g_assert_cmpstr (wait.error->message, ==, "The model's answer is not valid JSON");
  g_clear_error (&wait.error);
}

static gboolean
cancel_soon (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

static void
test_cancel (void)
{
  g_autoptr(GgModel) model = scripted ("[{\"json\":{\"reason\":\"x\",\"action\":\"flee\",\"confidence\":5},"
                                       "\"delayMs\":5000}]");
  g_autoptr(JsonArray) ids = options ("attack", "flee", NULL);
  g_autoptr(GgDecision) decision = gg_decision_new (model, "i", "p", ids, &a2g_format);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  gint64 start = g_get_monotonic_time ();
  Wait wait = { 0 };

  g_timeout_add (50, cancel_soon, cancellable);
  run (decision, cancellable, &wait);
  g_assert_error (wait.error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 2 * G_USEC_PER_SEC);
  g_clear_error (&wait.error);
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  load_scripted_plugin ();
  g_test_add_func ("/decision/schema", test_schema);
  g_test_add_func ("/decision/forced", test_forced);
  g_test_add_func ("/decision/answer", test_answer);
  g_test_add_func ("/decision/retry-then-error", test_retry_then_error);
  g_test_add_func ("/decision/retry-then-answer", test_retry_then_answer);
  g_test_add_func ("/decision/no-retry-format", test_no_retry_format);
  g_test_add_func ("/decision/model-error", test_model_error);
  g_test_add_func ("/decision/model-error-wording", test_model_error_wording);
  g_test_add_func ("/decision/cancel", test_cancel);
  status = g_test_run ();
  g_object_unref (bus);
  return status;
}
