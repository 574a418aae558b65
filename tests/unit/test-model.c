/* test-model.c: GgModel errors, tool modes, request/reply boxes and the
 * interface's defaults.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gamegate.h>

static void
test_error_names (void)
{
  static const struct {
    GgModelError code;
    const char *name;
    int rpc;
  } table[] = {
    { GG_MODEL_ERROR_MODEL_UNAVAILABLE, "model_unavailable", -32001 },
    { GG_MODEL_ERROR_GUARDRAIL_VIOLATION, "guardrail_violation", -32002 },
    { GG_MODEL_ERROR_REFUSAL, "refusal", -32003 },
    { GG_MODEL_ERROR_CONTEXT_SIZE_EXCEEDED, "context_size_exceeded", -32004 },
    { GG_MODEL_ERROR_RATE_LIMITED, "rate_limited", -32005 },
    { GG_MODEL_ERROR_UNSUPPORTED_LANGUAGE, "unsupported_language", -32006 },
    { GG_MODEL_ERROR_INVALID_SCHEMA, "invalid_schema", -32007 },
    { GG_MODEL_ERROR_TOOL_FAILED, "tool_failed", -32008 },
    { GG_MODEL_ERROR_CANCELLED, "cancelled", -32009 },
    { GG_MODEL_ERROR_BUSY, "busy", -32010 },
    { GG_MODEL_ERROR_INVALID_REQUEST, "invalid_request", -32011 },
    { GG_MODEL_ERROR_GENERATION_FAILED, "generation_failed", -32012 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    {
      GgModelError code = 0;

      g_assert_cmpstr (gg_model_error_to_name (table[i].code), ==, table[i].name);
      g_assert_true (gg_model_error_from_name (table[i].name, &code));
      g_assert_cmpint (code, ==, table[i].code);
      g_assert_cmpint (gg_model_error_rpc_code (table[i].code), ==, table[i].rpc);
      g_assert_true (gg_model_error_from_name (table[i].name, NULL));
    }

  /* Hostile and near-miss names. */
  {
    const char *bad[] = { "", "Cancelled", "cancelled ", "session_not_found", "parse_error",
                          "generation_failed\n", "model_unavailable_", "\xff\xfe", "timeout" };
    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        GgModelError code = GG_MODEL_ERROR_BUSY;
        g_assert_false (gg_model_error_from_name (bad[i], &code));
        g_assert_cmpint (code, ==, GG_MODEL_ERROR_BUSY);
      }
    g_assert_false (gg_model_error_from_name (NULL, NULL));
  }
  g_assert_null (gg_model_error_to_name (0));
  g_assert_null (gg_model_error_to_name (13));
  g_assert_null (gg_model_error_to_name ((GgModelError) -1));
}

static void
test_error_data (void)
{
  g_autoptr(JsonObject) data = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) copy = NULL;
  g_autoptr(GError) plain = NULL;
  g_autoptr(GError) other = NULL;
  JsonObject *got;

  json_object_set_int_member (data, "retryAfterSeconds", 30);
  json_object_set_string_member (data, "retryAfter", "PT30S");
  error = gg_model_error_new (GG_MODEL_ERROR_RATE_LIMITED, data, "Slow down (%d requests)", 7);
  g_assert_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_RATE_LIMITED);
  g_assert_cmpstr (error->message, ==, "Slow down (7 requests)");
  got = gg_model_error_get_data (error);
  g_assert_nonnull (got);
  g_assert_cmpint (json_object_get_int_member (got, "retryAfterSeconds"), ==, 30);

  /* Copies carry the data, independent of the original. */
  copy = g_error_copy (error);
  g_clear_error (&error);
  got = gg_model_error_get_data (copy);
  g_assert_nonnull (got);
  g_assert_cmpstr (json_object_get_string_member (got, "retryAfter"), ==, "PT30S");

  plain = gg_model_error_new (GG_MODEL_ERROR_REFUSAL, NULL, "No");
  g_assert_null (gg_model_error_get_data (plain));
  g_assert_cmpstr (plain->message, ==, "No");

  other = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "io");
  g_assert_null (gg_model_error_get_data (other));
  g_assert_null (gg_model_error_get_data (NULL));

  /* A plain g_set_error() in the domain works and has no data. */
  {
    g_autoptr(GError) set = NULL;
    g_set_error (&set, GG_MODEL_ERROR, GG_MODEL_ERROR_BUSY, "busy %s", "now");
    g_assert_null (gg_model_error_get_data (set));
  }
}

static void
on_task_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  GError **out = user_data;

  g_assert_null (g_task_propagate_pointer (G_TASK (result), out));
}

static void
test_error_through_task (void)
{
  g_autoptr(JsonObject) data = json_object_new ();
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;

  json_object_set_string_member (data, "path", "#/properties/x");
  json_object_set_string_member (data, "schemaPath", "#/properties/x/type");
  task = g_task_new (NULL, NULL, on_task_done, &error);
  g_task_return_error (task, gg_model_error_new (GG_MODEL_ERROR_INVALID_SCHEMA, data, "bad schema"));
  g_clear_object (&task);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_SCHEMA);
  g_assert_cmpstr (json_object_get_string_member (gg_model_error_get_data (error), "schemaPath"), ==,
                   "#/properties/x/type");
}

static void
test_tool_modes (void)
{
  g_assert_cmpstr (gg_tool_mode_to_string (GG_TOOL_MODE_ALLOWED), ==, "allowed");
  g_assert_cmpstr (gg_tool_mode_to_string (GG_TOOL_MODE_NONE), ==, "none");
  g_assert_cmpstr (gg_tool_mode_to_string (GG_TOOL_MODE_REQUIRED), ==, "required");
}

static void
test_request (void)
{
  GgModelRequest *request = gg_model_request_new ();
  GgModelRequest *copy;

  g_assert_null (request->instructions);
  g_assert_nonnull (request->transcript);
  g_assert_cmpuint (json_array_get_length (request->transcript), ==, 0);
  g_assert_null (request->tools);
  g_assert_cmpint (request->tool_mode, ==, GG_TOOL_MODE_ALLOWED);
  g_assert_null (request->output_schema);
  g_assert_cmpfloat (request->temperature, <, 0);
  g_assert_cmpint (request->max_tokens, ==, 0);
  g_assert_false (request->stream);

  request->instructions = g_strdup ("Be brief.");
  request->tools = json_array_new ();
  request->output_schema = json_from_string ("{\"type\":\"object\"}", NULL);
  request->schema_name = g_strdup ("Response");
  request->sampling = json_from_string ("\"greedy\"", NULL);

  /* The boxed copy is a reference. */
  g_assert_true (G_TYPE_IS_BOXED (GG_TYPE_MODEL_REQUEST));
  copy = g_boxed_copy (GG_TYPE_MODEL_REQUEST, request);
  g_assert_true (copy == request);
  g_assert_true (gg_model_request_ref (request) == request);
  gg_model_request_unref (request);
  g_boxed_free (GG_TYPE_MODEL_REQUEST, copy);
  g_assert_cmpstr (request->instructions, ==, "Be brief.");
  gg_model_request_unref (request);

  {
    g_autoptr(GgModelRequest) scoped = gg_model_request_new ();
    json_array_add_string_element (scoped->transcript, "x");
  }
}

static void
test_reply (void)
{
  g_autoptr(GgModelReply) reply = gg_model_reply_new ();
  g_autoptr(GgModelReply) copy = NULL;
  GgModelReply *boxed;
  JsonObject *call;

  g_assert_null (reply->text);
  g_assert_null (reply->json);
  g_assert_null (reply->tool_calls);
  g_assert_cmpint (reply->usage.input_tokens, ==, 0);

  reply->text = g_strdup ("hello");
  reply->json = json_from_string ("{\"a\":{\"b\":[1,2]}}", NULL);
  reply->tool_calls = json_array_new ();
  call = json_object_new ();
  json_object_set_string_member (call, "name", "open_gate");
  json_object_set_object_member (call, "arguments", json_object_new ());
  json_array_add_object_element (reply->tool_calls, call);
  reply->usage.input_tokens = 10;
  reply->usage.cached_input_tokens = 4;
  reply->usage.output_tokens = 3;

  copy = gg_model_reply_copy (reply);
  g_assert_cmpstr (copy->text, ==, "hello");
  g_assert_cmpint (copy->usage.input_tokens, ==, 10);
  g_assert_cmpint (copy->usage.cached_input_tokens, ==, 4);
  g_assert_cmpint (copy->usage.output_tokens, ==, 3);

  /* Deep: changing the original leaves the copy alone. */
  json_object_set_int_member (json_object_get_object_member (json_node_get_object (reply->json), "a"), "c", 1);
  json_object_set_string_member (call, "name", "changed");
  {
    g_autofree char *json = json_to_string (copy->json, FALSE);
    g_assert_cmpstr (json, ==, "{\"a\":{\"b\":[1,2]}}");
  }
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (copy->tool_calls, 0), "name"),
                   ==, "open_gate");

  boxed = g_boxed_copy (GG_TYPE_MODEL_REPLY, copy);
  g_assert_true (boxed != copy);
  g_assert_cmpstr (boxed->text, ==, "hello");
  g_boxed_free (GG_TYPE_MODEL_REPLY, boxed);
  gg_model_reply_free (NULL);

  {
    g_autoptr(GgModelReply) empty = gg_model_reply_new ();
    g_autoptr(GgModelReply) empty_copy = gg_model_reply_copy (empty);
    g_assert_null (empty_copy->text);
    g_assert_null (empty_copy->json);
    g_assert_null (empty_copy->tool_calls);
  }
}

/* A model implementing only what it must. */
#define TEST_TYPE_BARE_MODEL (test_bare_model_get_type ())
G_DECLARE_FINAL_TYPE (TestBareModel, test_bare_model, TEST, BARE_MODEL, GObject)
struct _TestBareModel { GObject parent_instance; gboolean rich; };

static void
bare_step_async (GgModel *model, GgModelRequest *request, GgModelDeltaFunc on_delta,
                 gpointer delta_data, GCancellable *cancellable, GAsyncReadyCallback callback,
                 gpointer user_data)
{
  g_autoptr(GTask) task = g_task_new (model, cancellable, callback, user_data);
  GgModelReply *reply = gg_model_reply_new ();

  reply->text = g_strdup ("ok");
  g_task_return_pointer (task, reply, (GDestroyNotify) gg_model_reply_free);
}

static GgModelReply *
bare_step_finish (GgModel *model, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
bare_iface_init (GgModelInterface *iface)
{
  iface->step_async = bare_step_async;
  iface->step_finish = bare_step_finish;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestBareModel, test_bare_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_MODEL, bare_iface_init))
static void test_bare_model_class_init (TestBareModelClass *klass) { }
static void test_bare_model_init (TestBareModel *self) { }

static void
on_availability (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  JsonObject **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = gg_model_availability_finish (GG_MODEL (source), result, &error);
  g_assert_no_error (error);
}

static void
on_step (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  GgModelReply **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = gg_model_step_finish (GG_MODEL (source), result, &error);
  g_assert_no_error (error);
}

static void
test_interface_defaults (void)
{
  g_autoptr(GgModel) model = g_object_new (TEST_TYPE_BARE_MODEL, NULL);
  g_autoptr(JsonObject) availability = NULL;
  g_autoptr(GgModelReply) reply = NULL;
  g_autoptr(GgModelRequest) request = gg_model_request_new ();
  g_autofree char *json = NULL;

  g_assert_cmpstr (gg_model_get_name (model), ==, "TestBareModel");
  g_assert_cmpint (gg_model_get_context_size (model), ==, 8192);

  gg_model_availability_async (model, NULL, on_availability, &availability);
  g_assert_null (availability); /* asynchronous */
  while (availability == NULL)
    g_main_context_iteration (NULL, TRUE);
  {
    g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), availability);
    json = json_to_string (node, FALSE);
  }
  g_assert_cmpstr (json, ==, "{\"available\":true}");

  gg_model_step_async (model, request, NULL, NULL, NULL, on_step, &reply);
  while (reply == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpstr (reply->text, ==, "ok");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/error/names", test_error_names);
  g_test_add_func ("/model/error/data", test_error_data);
  g_test_add_func ("/model/error/through-task", test_error_through_task);
  g_test_add_func ("/model/tool-modes", test_tool_modes);
  g_test_add_func ("/model/request", test_request);
  g_test_add_func ("/model/reply", test_reply);
  g_test_add_func ("/model/interface-defaults", test_interface_defaults);
  return g_test_run ();
}
