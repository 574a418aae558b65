/* test-bus.c: GgBus: targets, events, model factories, front ends, shutdown.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gamegate.h>

/* A minimal target: an id and the ability to emit events. */
#define TEST_TYPE_TARGET (test_target_get_type ())
G_DECLARE_FINAL_TYPE (TestTarget, test_target, TEST, TARGET, GObject)

struct _TestTarget {
  GObject parent_instance;
  char *id;
};

static const char *
test_target_get_id_impl (GgTarget *target)
{
  return TEST_TARGET (target)->id;
}

static void
test_target_iface_init (GgTargetInterface *iface)
{
  iface->get_id = test_target_get_id_impl;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestTarget, test_target, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_TARGET, test_target_iface_init))

static void
test_target_finalize (GObject *object)
{
  g_free (TEST_TARGET (object)->id);
  G_OBJECT_CLASS (test_target_parent_class)->finalize (object);
}

static void
test_target_class_init (TestTargetClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_target_finalize;
}

static void
test_target_init (TestTarget *self)
{
}

static GgTarget *
test_target_new (const char *id)
{
  TestTarget *self = g_object_new (TEST_TYPE_TARGET, NULL);
  self->id = g_strdup (id);
  return GG_TARGET (self);
}

static void
test_targets_add_lookup_remove (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgTarget) a = test_target_new ("http:7820");
  g_autoptr(GgTarget) b = test_target_new ("gabp:rimworld");
  g_autoptr(GgTarget) dup = test_target_new ("http:7820");
  g_autoptr(GError) error = NULL;

  g_assert_true (gg_bus_add_target (bus, a, &error));
  g_assert_no_error (error);
  g_assert_true (gg_bus_add_target (bus, b, NULL));
  g_assert_false (gg_bus_add_target (bus, dup, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_assert_cmpstr (error->message, ==, "A target with id 'http:7820' is already on the bus");

  g_assert_true (gg_bus_lookup_target (bus, "gabp:rimworld") == b);
  g_assert_null (gg_bus_lookup_target (bus, "http:1"));

  g_autoptr(GPtrArray) list = gg_bus_list_targets (bus);
  g_assert_cmpuint (list->len, ==, 2);
  g_assert_true (g_ptr_array_index (list, 0) == a);
  g_assert_true (g_ptr_array_index (list, 1) == b);

  gg_bus_remove_target (bus, a);
  gg_bus_remove_target (bus, a); /* twice is harmless */
  g_assert_null (gg_bus_lookup_target (bus, "http:7820"));
  g_assert_true (gg_bus_add_target (bus, dup, NULL)); /* the id is free again */
}

static void
record_signal (GgBus    *bus,
               GgTarget *target,
               GString  *log)
{
  g_string_append_printf (log, "%s;", gg_target_get_id (target));
}

static void
record_event (GgBus      *bus,
              GgTarget   *target,
              const char *channel,
              guint64     seq,
              JsonNode   *payload,
              GString    *log)
{
  g_autofree char *json = json_to_string (payload, FALSE);
  g_string_append_printf (log, "%s/%s/%" G_GUINT64_FORMAT "/%s;",
                          gg_target_get_id (target), channel, seq, json);
}

static void
test_target_signals_and_event_order (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgTarget) target = test_target_new ("http:1");
  g_autoptr(GString) added = g_string_new (NULL);
  g_autoptr(GString) removed = g_string_new (NULL);
  g_autoptr(GString) events = g_string_new (NULL);

  g_signal_connect (bus, "target-added", G_CALLBACK (record_signal), added);
  g_signal_connect (bus, "target-removed", G_CALLBACK (record_signal), removed);
  g_signal_connect (bus, "target-event", G_CALLBACK (record_event), events);

  g_assert_true (gg_bus_add_target (bus, target, NULL));
  for (guint64 seq = 1; seq <= 3; seq++)
    {
      g_autoptr(JsonNode) payload = json_node_new (JSON_NODE_VALUE);
      json_node_set_int (payload, (gint64) seq * 10);
      gg_target_emit_event (target, seq == 2 ? "chat" : "world", seq, payload);
    }
  gg_bus_remove_target (bus, target);

  /* After removal the bus no longer forwards the target's events. */
  g_autoptr(JsonNode) late = json_node_new (JSON_NODE_NULL);
  gg_target_emit_event (target, "world", 4, late);

  g_assert_cmpstr (added->str, ==, "http:1;");
  g_assert_cmpstr (removed->str, ==, "http:1;");
  g_assert_cmpstr (events->str, ==, "http:1/world/1/10;http:1/chat/2/20;http:1/world/3/30;");
}

/* Models -------------------------------------------------------------- */

#define TEST_TYPE_MODEL (test_model_get_type ())
G_DECLARE_FINAL_TYPE (TestModel, test_model, TEST, MODEL, GObject)

struct _TestModel {
  GObject parent_instance;
  char *spec_json;
};

static const char *
test_model_get_name_impl (GgModel *model)
{
  return TEST_MODEL (model)->spec_json;
}

static void
test_model_iface_init (GgModelInterface *iface)
{
  iface->get_name = test_model_get_name_impl;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestModel, test_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_MODEL, test_model_iface_init))

static void
test_model_finalize (GObject *object)
{
  g_free (TEST_MODEL (object)->spec_json);
  G_OBJECT_CLASS (test_model_parent_class)->finalize (object);
}

static void
test_model_class_init (TestModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_model_finalize;
}

static void
test_model_init (TestModel *self)
{
}

static GgModel *
test_model_factory (JsonObject *spec,
                    gpointer    user_data,
                    GError    **error)
{
  if (json_object_has_member (spec, "broken"))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "model.broken: not allowed");
      return NULL;
    }
  TestModel *model = g_object_new (TEST_TYPE_MODEL, NULL);
  model->spec_json = gg_json_object_to_string (spec);
  (*(int *) user_data)++;
  return GG_MODEL (model);
}

static JsonNode *
parse (const char *json)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  return json_node_copy (json_parser_get_root (parser));
}

static void
on_step_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  GError **error = user_data;
  GgModelReply *reply = gg_model_step_finish (GG_MODEL (source), result, error);
  g_assert_null (reply);
}

static void
on_availability_done (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  JsonObject **out = user_data;
  *out = gg_model_availability_finish (GG_MODEL (source), result, NULL);
}

static void
test_models (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GError) error = NULL;
  int created = 0;

  g_assert_true (gg_bus_register_model_type (bus, "test", test_model_factory, &created, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (gg_bus_register_model_type (bus, "test", test_model_factory, &created, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_false (gg_bus_register_model_type (bus, "system", test_model_factory, &created, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_true (gg_bus_has_model_type (bus, "test"));
  g_assert_false (gg_bus_has_model_type (bus, "openai"));

  g_auto(GStrv) types = gg_bus_list_model_types (bus);
  g_assert_cmpstrv (types, ((const char *[]) { "test", NULL }));

  /* A type name and an object both reach the factory as an object. */
  g_autoptr(JsonNode) by_name = parse ("\"test\"");
  g_autoptr(GgModel) m1 = gg_bus_create_model (bus, by_name, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (gg_model_get_name (m1), ==, "{\"type\":\"test\"}");

  g_autoptr(JsonNode) by_object = parse ("{\"type\":\"test\",\"x\":1}");
  g_autoptr(GgModel) m2 = gg_bus_create_model (bus, by_object, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (gg_model_get_name (m2), ==, "{\"type\":\"test\",\"x\":1}");
  g_assert_true (m1 != m2);
  g_assert_cmpint (created, ==, 2);

  struct { const char *spec; GQuark domain; int code; const char *message; } bad[] = {
    { "\"openai\"", G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "model.type: unknown model type 'openai'" },
    { "{\"type\":5}", G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "model.type: must be a string" },
    { "{}", G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "model.type: must be a string" },
    { "[1]", G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "model: must be a string or an object with a 'type'" },
    { "42", G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "model: must be a string or an object with a 'type'" },
    { "{\"type\":\"test\",\"broken\":true}", G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "model.broken: not allowed" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(JsonNode) spec = parse (bad[i].spec);
      g_autoptr(GgModel) model = gg_bus_create_model (bus, spec, &error);
      g_assert_null (model);
      g_assert_error (error, bad[i].domain, bad[i].code);
      g_assert_cmpstr (error->message, ==, bad[i].message);
      g_clear_error (&error);
    }

  /* "system" resolves to the configured default. */
  g_autoptr(JsonNode) default_spec = parse ("{\"type\":\"test\",\"name\":\"default\"}");
  gg_bus_set_default_model (bus, default_spec);
  g_assert_true (gg_json_equal (gg_bus_get_default_model (bus), default_spec));
  g_autoptr(JsonNode) system = parse ("\"system\"");
  g_autoptr(GgModel) m3 = gg_bus_create_model (bus, system, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (gg_model_get_name (m3), ==, "{\"type\":\"test\",\"name\":\"default\"}");
  g_autoptr(GgModel) m4 = gg_bus_create_model (bus, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (gg_model_get_name (m4), ==, "{\"type\":\"test\",\"name\":\"default\"}");
  /* The object form of "system" is the default too, not an unknown type. */
  g_autoptr(JsonNode) system_object = parse ("{\"type\":\"system\"}");
  g_autoptr(GgModel) m5 = gg_bus_create_model (bus, system_object, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (gg_model_get_name (m5), ==, "{\"type\":\"test\",\"name\":\"default\"}");
}

static void
test_system_model_unavailable (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GError) error = NULL;

  /* No default: sessions can still get a model; it fails every step. */
  g_autoptr(GgModel) model = gg_bus_create_model (bus, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (gg_model_get_name (model), ==, "system");

  g_autoptr(GgModelRequest) request = gg_model_request_new ();
  GError *step_error = NULL;
  gg_model_step_async (model, request, NULL, NULL, NULL, on_step_done, &step_error);
  while (step_error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (step_error, GG_MODEL_ERROR, GG_MODEL_ERROR_MODEL_UNAVAILABLE);
  g_assert_cmpstr (step_error->message, ==, "No default model is configured ([gateway] default-model)");
  g_clear_error (&step_error);

  /* Cancelled: the model error, like every other backend. */
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_cancellable_cancel (cancellable);
  gg_model_step_async (model, request, NULL, NULL, cancellable, on_step_done, &step_error);
  while (step_error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (step_error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED);
  g_clear_error (&step_error);

  JsonObject *availability = NULL;
  gg_model_availability_async (model, NULL, on_availability_done, &availability);
  while (availability == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_autofree char *json = gg_json_object_to_string (availability);
  g_assert_cmpstr (json, ==,
                   "{\"available\":false,\"reason\":\"unknown\","
                   "\"message\":\"No default model is configured ([gateway] default-model)\"}");
  json_object_unref (availability);

  /* A default whose backend is not loaded is unavailable too, not an error. */
  g_autoptr(JsonNode) spec = parse ("{\"type\":\"openai\"}");
  gg_bus_set_default_model (bus, spec);
  g_autoptr(GgModel) missing = gg_bus_create_model (bus, NULL, &error);
  g_assert_no_error (error);
  gg_model_step_async (missing, request, NULL, NULL, NULL, on_step_done, &step_error);
  while (step_error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (step_error, GG_MODEL_ERROR, GG_MODEL_ERROR_MODEL_UNAVAILABLE);
  g_assert_cmpstr (step_error->message, ==,
                   "The default model's type 'openai' is not provided by any loaded plugin");
  g_clear_error (&step_error);
}

/* Front ends ----------------------------------------------------------- */

#define TEST_TYPE_FRONTEND (test_frontend_get_type ())
G_DECLARE_FINAL_TYPE (TestFrontend, test_frontend, TEST, FRONTEND, GObject)

struct _TestFrontend {
  GObject parent_instance;
  const char *name;
};

static const char *
test_frontend_get_name_impl (GgFrontend *frontend)
{
  return TEST_FRONTEND (frontend)->name;
}

static void
test_frontend_iface_init (GgFrontendInterface *iface)
{
  iface->get_name = test_frontend_get_name_impl;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestFrontend, test_frontend, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_FRONTEND, test_frontend_iface_init))

static void test_frontend_class_init (TestFrontendClass *klass) { }
static void test_frontend_init (TestFrontend *self) { }

static GgFrontend *
test_frontend_new (const char *name)
{
  TestFrontend *self = g_object_new (TEST_TYPE_FRONTEND, NULL);
  self->name = name;
  return GG_FRONTEND (self);
}

static void
on_stopped (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  *(gboolean *) user_data = gg_frontend_stop_finish (GG_FRONTEND (source), result, NULL);
}

static void
on_stdio_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  GError **error = user_data;
  g_assert_false (gg_frontend_run_stdio_finish (GG_FRONTEND (source), result, error));
}

static void
test_frontends (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgFrontend) oam = test_frontend_new ("oam");
  g_autoptr(GgFrontend) mcp = test_frontend_new ("mcp");
  g_autoptr(GgFrontend) dup = test_frontend_new ("oam");
  g_autoptr(GError) error = NULL;

  g_assert_true (gg_bus_add_frontend (bus, oam, NULL));
  g_assert_true (gg_bus_add_frontend (bus, mcp, NULL));
  g_assert_false (gg_bus_add_frontend (bus, dup, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_clear_error (&error);

  /* Names are subcommands: gamegate's own are taken, and anything a shell
   * or the option parser would mangle is refused. */
  {
    static const struct { const char *name; int code; } bad[] = {
      { "serve", G_IO_ERROR_EXISTS }, { "plugins", G_IO_ERROR_EXISTS },
      { "", G_IO_ERROR_INVALID_ARGUMENT }, { "-v", G_IO_ERROR_INVALID_ARGUMENT },
      { "--help", G_IO_ERROR_INVALID_ARGUMENT }, { "Oam", G_IO_ERROR_INVALID_ARGUMENT },
      { "two words", G_IO_ERROR_INVALID_ARGUMENT }, { "caf\xc3\xa9", G_IO_ERROR_INVALID_ARGUMENT },
    };

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_autoptr(GgFrontend) frontend = test_frontend_new (bad[i].name);

        g_assert_false (gg_bus_add_frontend (bus, frontend, &error));
        g_assert_error (error, G_IO_ERROR, bad[i].code);
        g_clear_error (&error);
      }
  }

  g_assert_true (gg_bus_lookup_frontend (bus, "mcp") == mcp);
  g_assert_null (gg_bus_lookup_frontend (bus, "gabp"));
  g_autoptr(GPtrArray) list = gg_bus_list_frontends (bus);
  g_assert_cmpuint (list->len, ==, 2);
  g_assert_true (g_ptr_array_index (list, 0) == oam);

  /* The interface's defaults: no summary, no options, no daemon mode,
   * stopping succeeds, stdio is refused with a clear error. */
  g_assert_cmpstr (gg_frontend_get_summary (oam), ==, "");
  g_assert_null (gg_frontend_get_option_group (oam));
  g_assert_true (gg_frontend_start_daemon (oam, &error));
  g_assert_no_error (error);

  gboolean stopped = FALSE;
  gg_frontend_stop_async (oam, NULL, on_stopped, &stopped);
  while (!stopped)
    g_main_context_iteration (NULL, TRUE);

  g_autoptr(GInputStream) in = g_memory_input_stream_new ();
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GIOStream) stdio = g_simple_io_stream_new (in, out);
  gg_frontend_run_stdio_async (oam, stdio, NULL, on_stdio_done, &error);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_assert_cmpstr (error->message, ==, "Front end 'oam' cannot serve on stdio");
}

/* Shutdown --------------------------------------------------------------- */

typedef struct {
  GgBus *bus;
  gboolean hold_on_shutdown;
  gboolean finished;
  GError *error;
} ShutdownFixture;

static void
on_bus_shutdown (GgBus           *bus,
                 ShutdownFixture *fixture)
{
  if (fixture->hold_on_shutdown)
    gg_bus_hold (bus);
}

static void
on_shutdown_done (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  ShutdownFixture *fixture = user_data;

  gg_bus_shutdown_finish (GG_BUS (source), result, &fixture->error);
  fixture->finished = TRUE;
}

static gboolean
release_later (gpointer user_data)
{
  gg_bus_release (user_data);
  return G_SOURCE_REMOVE;
}

static void
test_shutdown_waits_for_holders (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  ShutdownFixture fixture = { bus, TRUE, FALSE, NULL };

  g_signal_connect (bus, "shutdown", G_CALLBACK (on_bus_shutdown), &fixture);
  g_assert_false (gg_bus_is_shutting_down (bus));
  gg_bus_shutdown_async (bus, 5000, on_shutdown_done, &fixture);
  g_assert_true (gg_bus_is_shutting_down (bus));

  g_timeout_add (20, release_later, bus);
  while (!fixture.finished)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (fixture.error);
}

static void
test_shutdown_times_out (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  ShutdownFixture fixture = { bus, TRUE, FALSE, NULL };

  g_signal_connect (bus, "shutdown", G_CALLBACK (on_bus_shutdown), &fixture);
  gg_bus_shutdown_async (bus, 30, on_shutdown_done, &fixture);
  while (!fixture.finished)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (fixture.error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  g_clear_error (&fixture.error);

  /* A release after the timeout is harmless. */
  gg_bus_release (bus);
}

static void
test_shutdown_without_holders (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  ShutdownFixture fixture = { bus, FALSE, FALSE, NULL };

  gg_bus_shutdown_async (bus, 0, on_shutdown_done, &fixture);
  while (!fixture.finished)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (fixture.error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/bus/targets/add-lookup-remove", test_targets_add_lookup_remove);
  g_test_add_func ("/bus/targets/signals-and-event-order", test_target_signals_and_event_order);
  g_test_add_func ("/bus/models/factories", test_models);
  g_test_add_func ("/bus/models/system-unavailable", test_system_model_unavailable);
  g_test_add_func ("/bus/frontends", test_frontends);
  g_test_add_func ("/bus/shutdown/waits-for-holders", test_shutdown_waits_for_holders);
  g_test_add_func ("/bus/shutdown/times-out", test_shutdown_times_out);
  g_test_add_func ("/bus/shutdown/no-holders", test_shutdown_without_holders);

  return g_test_run ();
}
