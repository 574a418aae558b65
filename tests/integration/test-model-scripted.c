/* test-model-scripted.c: the model-scripted plugin as built, loaded the way
 * the host loads it, played step by step (oam spec section 10).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <gamegate.h>

#include "gg-test-plugin.h"

static GgBus *bus;
static const GgPluginDescriptor *descriptor;

static void
load_plugin (void)
{
  g_autoptr(GError) error = NULL;

  bus = gg_bus_new ();
  descriptor = gg_test_load_plugin (bus, "model-scripted", NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (descriptor);
}

static GgModel *
create (const char *spec, GError **error)
{
  g_autoptr(JsonNode) node = json_from_string (spec, NULL);

  g_assert_nonnull (node);
  return gg_bus_create_model (bus, node, error);
}

static GgModel *
model_new (const char *spec)
{
  g_autoptr(GError) error = NULL;
  GgModel *model = create (spec, &error);

  g_assert_no_error (error);
  g_assert_nonnull (model);
  return model;
}

/* ---- playing one step -------------------------------------------------- */

typedef struct {
  gboolean done;
  GgModelReply *reply;
  GError *error;
  GPtrArray *deltas;
  gboolean returned;  /* step_async() has returned */
} Step;

static void
on_delta (const char *delta, gboolean is_reset, gpointer user_data)
{
  Step *step = user_data;

  g_assert_true (step->returned);
  g_assert_false (step->done);
  g_assert_false (is_reset);
  g_ptr_array_add (step->deltas, g_strdup (delta));
}

static void
on_step_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Step *step = user_data;

  g_assert_true (step->returned);
  step->reply = gg_model_step_finish (GG_MODEL (source), result, &step->error);
  step->done = TRUE;
}

static void
step_clear (Step *step)
{
  gg_model_reply_free (step->reply);
  g_clear_error (&step->error);
  g_clear_pointer (&step->deltas, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Step, step_clear)

static GgModelRequest *
request_new (const char *transcript, gboolean stream)
{
  GgModelRequest *request = gg_model_request_new ();

  if (transcript != NULL)
    {
      g_autoptr(JsonNode) node = json_from_string (transcript, NULL);
      g_assert_nonnull (node);
      json_array_unref (request->transcript);
      request->transcript = json_node_dup_array (node);
    }
  request->stream = stream;
  return request;
}

static void
play_with (GgModel *model, GgModelRequest *request, GCancellable *cancellable, Step *step)
{
  memset (step, 0, sizeof *step);
  step->deltas = g_ptr_array_new_with_free_func (g_free);
  gg_model_step_async (model, request, on_delta, step, cancellable, on_step_done, step);
  step->returned = TRUE;
  while (!step->done)
    g_main_context_iteration (NULL, TRUE);
}

static void
play (GgModel *model, const char *transcript, gboolean stream, Step *step)
{
  g_autoptr(GgModelRequest) request = request_new (transcript, stream);
  play_with (model, request, NULL, step);
}

static char *
text_of (GgModel *model, const char *transcript)
{
  g_auto(Step) step;

  play (model, transcript, FALSE, &step);
  g_assert_no_error (step.error);
  g_assert_nonnull (step.reply->text);
  return g_strdup (step.reply->text);
}

#define PROMPT(p) "[{\"role\":\"user\",\"text\":\"" p "\"}]"

/* ---- tests ------------------------------------------------------------- */

static void
test_descriptor (void)
{
  g_assert_cmpstr (descriptor->name, ==, "model-scripted");
  g_assert_cmpstr (descriptor->version, ==, PACKAGE_VERSION);
  g_assert_cmpstr (descriptor->license, ==, "LGPL-2.1-or-later");
  g_assert_true (gg_plugin_descriptor_check (descriptor, NULL));
  g_assert_true (gg_bus_has_model_type (bus, "scripted"));
}

static void
test_empty_script (void)
{
  g_autoptr(GgModel) plain = model_new ("\"scripted\"");
  g_autoptr(GgModel) object = model_new ("{\"type\":\"scripted\"}");
  g_autoptr(GgModel) nulls = model_new ("{\"type\":\"scripted\",\"steps\":null,\"fallback\":null,\"extra\":[1]}");
  g_autoptr(GgModel) empty = model_new ("{\"type\":\"scripted\",\"steps\":[]}");
  GgModel *models[] = { plain, object, nulls, empty };

  for (guint i = 0; i < G_N_ELEMENTS (models); i++)
    for (guint round = 0; round < 2; round++)
      {
        g_autofree char *text = text_of (models[i], PROMPT ("hi"));
        g_assert_cmpstr (text, ==, "(script exhausted)");
      }
  g_assert_cmpstr (gg_model_get_name (plain), ==, "scripted");
  g_assert_cmpint (gg_model_get_context_size (plain), ==, 8192);
}

static void
test_text_and_usage (void)
{
  g_autoptr(GgModel) model = model_new ("{\"type\":\"scripted\",\"steps\":[{\"text\":\"Hmph.\"},{\"text\":\"\"}]}");
  g_auto(Step) step;
  g_auto(Step) empty;

  play (model, "[{\"role\":\"user\",\"text\":\"Open the gate\"},{\"role\":\"tool\",\"output\":\"1234\"}]", TRUE, &step);
  g_assert_no_error (step.error);
  g_assert_cmpstr (step.reply->text, ==, "Hmph.");
  g_assert_null (step.reply->json);
  g_assert_null (step.reply->tool_calls);
  /* 13 + 4 input bytes -> 5 tokens; 5 output bytes -> 2 tokens. */
  g_assert_cmpint (step.reply->usage.input_tokens, ==, 5);
  g_assert_cmpint (step.reply->usage.cached_input_tokens, ==, 0);
  g_assert_cmpint (step.reply->usage.output_tokens, ==, 2);
  /* One chunk by default. */
  g_assert_cmpuint (step.deltas->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (step.deltas, 0), ==, "Hmph.");

  play (model, NULL, TRUE, &empty);
  g_assert_cmpstr (empty.reply->text, ==, "");
  g_assert_cmpuint (empty.deltas->len, ==, 0);
  g_assert_cmpint (empty.reply->usage.input_tokens, ==, 0);
  g_assert_cmpint (empty.reply->usage.output_tokens, ==, 0);
}

/* Input tokens of one step of @model over @entries[from, to), with @entries[0]
 * listed again at the end when @twice. */
static gint64
input_tokens_of (GgModel    *model,
                 JsonObject **entries,
                 guint       from,
                 guint       to,
                 gboolean    twice)
{
  g_autoptr(GgModelRequest) request = gg_model_request_new ();
  g_auto(Step) step;

  for (guint i = from; i < to; i++)
    json_array_add_object_element (request->transcript, json_object_ref (entries[i]));
  if (twice)
    json_array_add_object_element (request->transcript, json_object_ref (entries[0]));
  play_with (model, request, NULL, &step);
  g_assert_no_error (step.error);
  return step.reply->usage.input_tokens;
}

/* The model remembers each entry's figure between steps: a growing
 * transcript sharing its entries, one that pushes the others out, and an
 * entry listed twice all count exactly as on a fresh model. */
static void
test_shared_entries (void)
{
  g_autoptr(GgModel) shared = model_new ("{\"type\":\"scripted\",\"fallback\":{\"text\":\"ok\"}}");
  JsonObject *entries[120];
  struct { guint from, to; gboolean twice; } views[] = {
    { 0, 3, FALSE }, { 0, 4, FALSE }, { 0, 120, FALSE }, { 118, 120, FALSE },
    { 0, 120, TRUE }, { 5, 9, TRUE }, { 0, 120, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      g_autofree char *json = NULL;
      g_autoptr(JsonNode) node = NULL;

      switch (i % 3)
        {
        case 0:
          json = g_strdup_printf ("{\"role\":\"user\",\"text\":\"say \\\"%u\\\"\"}", i);
          break;
        case 1:
          json = g_strdup_printf ("{\"role\":\"assistant\",\"toolCalls\":[{\"id\":\"c%u\",\"name\":\"look\","
                                  "\"arguments\":{\"n\":%u,\"x\":0.5,\"s\":\"\\u0001\"}}]}", i, i);
          break;
        default:
          json = g_strdup_printf ("{\"role\":\"tool\",\"callId\":\"c%u\",\"output\":\"%u seen\"}", i - 1, i);
          break;
        }
      node = json_from_string (json, NULL);
      g_assert_nonnull (node);
      entries[i] = json_node_dup_object (node);
    }

  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    {
      g_autoptr(GgModel) fresh = model_new ("{\"type\":\"scripted\",\"fallback\":{\"text\":\"ok\"}}");
      gint64 expected = input_tokens_of (fresh, entries, views[i].from, views[i].to, views[i].twice);

      g_assert_cmpint (expected, >, 0);
      g_assert_cmpint (input_tokens_of (shared, entries, views[i].from, views[i].to, views[i].twice), ==, expected);
    }
  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    json_object_unref (entries[i]);
}

static void
test_chunks (void)
{
  static const struct {
    const char *text;
    guint chunks;
    guint expected;
  } cases[] = {
    { "The north gate remains shut.", 3, 3 },
    { "The north gate remains shut.", 5, 5 },
    { "The north gate remains shut.", 100, 5 },
    { "one", 4, 1 },
    { "  leading and trailing  ", 2, 2 },
    { "tabs\tand\nnewlines  here", 4, 4 },
    { "Grüße, Wanderer — willkommen!", 2, 2 },
    { "     ", 3, 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonObject) spec = json_object_new ();
      g_autoptr(JsonArray) steps = json_array_new ();
      JsonObject *text_step = json_object_new ();
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(GgModel) model = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(GString) joined = g_string_new (NULL);
      g_auto(Step) step;
      g_auto(Step) quiet;

      json_object_set_string_member (spec, "type", "scripted");
      json_object_set_string_member (text_step, "text", cases[i].text);
      json_object_set_int_member (text_step, "chunks", cases[i].chunks);
      json_array_add_object_element (steps, text_step);
      json_array_add_object_element (steps, json_object_ref (text_step));
      json_object_set_array_member (spec, "steps", json_array_ref (steps));
      node = json_node_init_object (json_node_alloc (), spec);
      model = gg_bus_create_model (bus, node, &error);
      g_assert_no_error (error);

      play (model, NULL, TRUE, &step);
      g_assert_no_error (step.error);
      g_assert_cmpuint (step.deltas->len, ==, cases[i].expected);
      for (guint k = 0; k < step.deltas->len; k++)
        {
          g_assert_cmpstr (g_ptr_array_index (step.deltas, k), !=, "");
          g_string_append (joined, g_ptr_array_index (step.deltas, k));
        }
      g_assert_cmpstr (joined->str, ==, cases[i].text);
      g_assert_cmpstr (step.reply->text, ==, cases[i].text);

      /* Not streaming: no deltas, same answer. */
      play (model, NULL, FALSE, &quiet);
      g_assert_cmpuint (quiet.deltas->len, ==, 0);
      g_assert_cmpstr (quiet.reply->text, ==, cases[i].text);
    }

  /* Pieces end on word boundaries. */
  {
    g_autoptr(GgModel) model = model_new ("{\"type\":\"scripted\",\"steps\":[{\"text\":\"a bb ccc dddd\",\"chunks\":2}]}");
    g_auto(Step) step;

    play (model, NULL, TRUE, &step);
    g_assert_cmpuint (step.deltas->len, ==, 2);
    g_assert_cmpstr (g_ptr_array_index (step.deltas, 0), ==, "a bb ");
    g_assert_cmpstr (g_ptr_array_index (step.deltas, 1), ==, "ccc dddd");
  }
}

static void
test_tool_calls (void)
{
  g_autoptr(GgModel) model = model_new (
    "{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}},"
    "{\"name\":\"ring_bell\",\"id\":\"call_bell\"}]},{\"text\":\"after\"}]}");
  g_auto(Step) step;
  g_auto(Step) again;
  g_autofree char *calls = NULL;
  g_autoptr(JsonNode) node = NULL;

  play (model, PROMPT ("go"), TRUE, &step);
  g_assert_no_error (step.error);
  g_assert_null (step.reply->text);
  g_assert_cmpuint (step.deltas->len, ==, 0);
  node = json_node_init_array (json_node_alloc (), step.reply->tool_calls);
  calls = json_to_string (node, FALSE);
  g_assert_cmpstr (calls, ==, "[{\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}},"
                              "{\"id\":\"call_bell\",\"name\":\"ring_bell\"}]");
  g_assert_cmpint (step.reply->usage.output_tokens, >, 0);

  /* The answer is the next step. */
  play (model, PROMPT ("go"), FALSE, &again);
  g_assert_cmpstr (again.reply->text, ==, "after");
}

static void
test_json (void)
{
  g_autoptr(GgModel) model = model_new (
    "{\"type\":\"scripted\",\"steps\":[{\"json\":{\"reasoning\":\"r\",\"choice\":\"refuse\"}},{\"json\":[1,\"two\"]},"
    "{\"json\":false}]}");
  const char *expected[] = { "{\"reasoning\":\"r\",\"choice\":\"refuse\"}", "[1,\"two\"]", "false" };

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_auto(Step) step;
      g_autofree char *json = NULL;

      play (model, NULL, TRUE, &step);
      g_assert_no_error (step.error);
      g_assert_null (step.reply->text);
      g_assert_cmpuint (step.deltas->len, ==, 0);
      json = json_to_string (step.reply->json, FALSE);
      g_assert_cmpstr (json, ==, expected[i]);
    }
}

static void
test_templates (void)
{
  g_autoptr(GgModel) model = model_new (
    "{\"type\":\"scripted\",\"steps\":[{\"template\":\"You said: {prompt}. Gate: {toolOutput}. All: [{toolOutputs}] {unknown} {\"},"
    "{\"template\":\"[{toolOutput}|{toolOutputs}|{prompt}]\"},{\"template\":\"{prompt}{prompt}\",\"chunks\":2}]}");
  const char *transcript =
    "[{\"role\":\"user\",\"text\":\"old\"},{\"role\":\"tool\",\"callId\":\"x\",\"name\":\"a\",\"output\":\"stale\"},"
    "{\"role\":\"assistant\",\"text\":\"ok\"},{\"role\":\"user\",\"text\":\"Open up\"},"
    "{\"role\":\"assistant\",\"toolCalls\":[{\"id\":\"1\",\"name\":\"a\",\"arguments\":{}}]},"
    "{\"role\":\"tool\",\"callId\":\"1\",\"name\":\"a\",\"output\":\"first\"},"
    "{\"role\":\"tool\",\"callId\":\"2\",\"name\":\"b\",\"output\":\"{\\\"opened\\\":true}\"}]";
  g_autofree char *first = text_of (model, transcript);
  g_autofree char *second = text_of (model, "[{\"role\":\"user\",\"text\":\"Hi\"},{\"role\":\"tool\"},{\"role\":7}]");
  g_auto(Step) streamed;

  g_assert_cmpstr (first, ==, "You said: Open up. Gate: {\"opened\":true}. All: [first\n{\"opened\":true}] {unknown} {");
  /* No tool output this turn: empty substitutions. */
  g_assert_cmpstr (second, ==, "[||Hi]");

  play (model, PROMPT ("one two"), TRUE, &streamed);
  g_assert_cmpstr (streamed.reply->text, ==, "one twoone two");
  g_assert_cmpuint (streamed.deltas->len, ==, 2);
}

static void
test_errors (void)
{
  const char *codes[] = { "model_unavailable", "guardrail_violation", "refusal", "context_size_exceeded",
                          "rate_limited", "unsupported_language", "invalid_schema", "tool_failed", "cancelled",
                          "busy", "invalid_request", "generation_failed" };

  for (guint i = 0; i < G_N_ELEMENTS (codes); i++)
    {
      g_autofree char *spec = g_strdup_printf ("{\"type\":\"scripted\",\"steps\":[{\"error\":\"%s\"},"
                                               "{\"error\":\"%s\",\"message\":\"Custom %u\"}]}", codes[i], codes[i], i);
      g_autoptr(GgModel) model = model_new (spec);
      g_autofree char *message = g_strdup_printf ("The script failed with %s", codes[i]);
      g_autofree char *custom = g_strdup_printf ("Custom %u", i);
      GgModelError code;
      g_auto(Step) plain;
      g_auto(Step) with_message;

      g_assert_true (gg_model_error_from_name (codes[i], &code));
      play (model, NULL, TRUE, &plain);
      g_assert_error (plain.error, GG_MODEL_ERROR, (gint) code);
      g_assert_cmpstr (plain.error->message, ==, message);
      g_assert_null (plain.reply);
      g_assert_cmpint (gg_model_error_rpc_code (code), ==, -32001 - (gint) i);

      play (model, NULL, TRUE, &with_message);
      g_assert_error (with_message.error, GG_MODEL_ERROR, (gint) code);
      g_assert_cmpstr (with_message.error->message, ==, custom);
    }
}

static void
test_delay (void)
{
  g_autoptr(GgModel) model = model_new ("{\"type\":\"scripted\",\"steps\":[{\"text\":\"late\",\"delayMs\":60},"
                                        "{\"error\":\"refusal\",\"delayMs\":20},{\"text\":\"x\",\"delayMs\":0}]}");
  gint64 started = g_get_monotonic_time ();
  g_autofree char *text = text_of (model, NULL);
  g_auto(Step) failing;
  g_autofree char *quick = NULL;

  g_assert_cmpstr (text, ==, "late");
  g_assert_cmpint (g_get_monotonic_time () - started, >=, 60000);
  started = g_get_monotonic_time ();
  play (model, NULL, FALSE, &failing);
  g_assert_error (failing.error, GG_MODEL_ERROR, GG_MODEL_ERROR_REFUSAL);
  g_assert_cmpint (g_get_monotonic_time () - started, >=, 20000);
  quick = text_of (model, NULL);
  g_assert_cmpstr (quick, ==, "x");
}

static gboolean
cancel_later (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

static void
test_cancel (void)
{
  /* During a delay: promptly, and the step is used up. */
  {
    g_autoptr(GgModel) model = model_new ("{\"type\":\"scripted\",\"steps\":[{\"text\":\"never\",\"delayMs\":10000},"
                                          "{\"text\":\"next\"}]}");
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();
    g_autoptr(GgModelRequest) request = request_new (NULL, FALSE);
    g_autofree char *next = NULL;
    gint64 started = g_get_monotonic_time ();
    g_auto(Step) step;

    g_timeout_add (20, cancel_later, cancellable);
    play_with (model, request, cancellable, &step);
    g_assert_error (step.error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED);
    g_assert_cmpint (g_get_monotonic_time () - started, <, G_USEC_PER_SEC);
    next = text_of (model, NULL);
    g_assert_cmpstr (next, ==, "next");
  }

  /* While streaming: no deltas after the cancellation. */
  {
    g_autoptr(GString) words = g_string_new (NULL);
    g_autofree char *spec = NULL;
    g_autoptr(GgModel) model = NULL;
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();
    g_autoptr(GgModelRequest) request = request_new (NULL, TRUE);
    g_auto(Step) step;

    for (guint i = 0; i < 2000; i++)
      g_string_append (words, "word ");
    spec = g_strdup_printf ("{\"type\":\"scripted\",\"steps\":[{\"text\":\"%s\",\"chunks\":2000}]}", words->str);
    model = model_new (spec);
    memset (&step, 0, sizeof step);
    step.deltas = g_ptr_array_new_with_free_func (g_free);
    gg_model_step_async (model, request, on_delta, &step, cancellable, on_step_done, &step);
    step.returned = TRUE;
    while (step.deltas->len < 5)
      g_main_context_iteration (NULL, TRUE);
    g_cancellable_cancel (cancellable);
    while (!step.done)
      g_main_context_iteration (NULL, TRUE);
    g_assert_error (step.error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED);
    g_assert_cmpuint (step.deltas->len, <, 2000);
  }

  /* Cancelled before the answer's callback, for steps that never wait
   * (text, tool calls, JSON): cancelled too, the step used up. */
  {
    static const char *const steps[] = {
      "{\"text\":\"quick\"}", "{\"toolCalls\":[{\"name\":\"a\"}]}", "{\"json\":{\"a\":1}}",
    };

    for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
      {
        g_autofree char *spec = g_strdup_printf ("{\"type\":\"scripted\",\"steps\":[%s,{\"text\":\"next\"}]}",
                                                 steps[i]);
        g_autoptr(GgModel) model = model_new (spec);
        g_autoptr(GCancellable) cancellable = g_cancellable_new ();
        g_autoptr(GgModelRequest) request = request_new (NULL, FALSE);
        g_autofree char *next = NULL;
        g_auto(Step) step;

        memset (&step, 0, sizeof step);
        step.deltas = g_ptr_array_new_with_free_func (g_free);
        gg_model_step_async (model, request, on_delta, &step, cancellable, on_step_done, &step);
        step.returned = TRUE;
        g_cancellable_cancel (cancellable);
        while (!step.done)
          g_main_context_iteration (NULL, TRUE);
        g_assert_error (step.error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED);
        g_assert_null (step.reply);
        next = text_of (model, NULL);
        g_assert_cmpstr (next, ==, "next");
      }
  }

  /* Already cancelled: fails at once, without using up a step. */
  {
    g_autoptr(GgModel) model = model_new ("{\"type\":\"scripted\",\"steps\":[{\"text\":\"kept\"}]}");
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();
    g_autoptr(GgModelRequest) request = request_new (NULL, FALSE);
    g_autofree char *kept = NULL;
    g_auto(Step) step;

    g_cancellable_cancel (cancellable);
    play_with (model, request, cancellable, &step);
    g_assert_error (step.error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED);
    kept = text_of (model, NULL);
    g_assert_cmpstr (kept, ==, "kept");
  }
}

static void
test_fallback (void)
{
  g_autoptr(GgModel) model = model_new ("{\"type\":\"scripted\",\"steps\":[{\"text\":\"one\"}],"
                                        "\"fallback\":{\"template\":\"again: {prompt}\"}}");
  g_autoptr(GgModel) failing = model_new ("{\"type\":\"scripted\",\"fallback\":{\"error\":\"refusal\"}}");
  g_autofree char *first = text_of (model, PROMPT ("a"));
  g_autofree char *second = text_of (model, PROMPT ("b"));
  g_autofree char *third = text_of (model, PROMPT ("c"));
  g_auto(Step) refused;

  g_assert_cmpstr (first, ==, "one");
  g_assert_cmpstr (second, ==, "again: b");
  g_assert_cmpstr (third, ==, "again: c");
  play (failing, NULL, FALSE, &refused);
  g_assert_error (refused.error, GG_MODEL_ERROR, GG_MODEL_ERROR_REFUSAL);
}

static void
test_independent_instances (void)
{
  const char *spec = "{\"type\":\"scripted\",\"steps\":[{\"text\":\"1\"},{\"text\":\"2\"}]}";
  g_autoptr(GgModel) a = model_new (spec);
  g_autoptr(GgModel) b = model_new (spec);
  g_autofree char *a1 = text_of (a, NULL);
  g_autofree char *b1 = text_of (b, NULL);
  g_autofree char *a2 = text_of (a, NULL);
  g_autofree char *a3 = text_of (a, NULL);

  g_assert_cmpstr (a1, ==, "1");
  g_assert_cmpstr (b1, ==, "1");
  g_assert_cmpstr (a2, ==, "2");
  g_assert_cmpstr (a3, ==, "(script exhausted)");
}

static void
test_bad_steps (void)
{
  static const struct {
    const char *spec;
    const char *message;
  } cases[] = {
    { "{\"type\":\"scripted\",\"steps\":{}}", "model.steps: must be an array" },
    { "{\"type\":\"scripted\",\"steps\":\"text\"}", "model.steps: must be an array" },
    { "{\"type\":\"scripted\",\"steps\":[{\"text\":\"a\"},{\"text\":\"b\"},{\"speak\":\"c\"}]}",
      "model.steps[2]: unknown step kind" },
    { "{\"type\":\"scripted\",\"steps\":[{}]}", "model.steps[0]: unknown step kind" },
    { "{\"type\":\"scripted\",\"steps\":[{\"text\":null}]}", "model.steps[0]: unknown step kind" },
    { "{\"type\":\"scripted\",\"steps\":[{\"delayMs\":5}]}", "model.steps[0]: unknown step kind" },
    { "{\"type\":\"scripted\",\"steps\":[42]}", "model.steps[0]: must be an object" },
    { "{\"type\":\"scripted\",\"steps\":[[]]}", "model.steps[0]: must be an object" },
    { "{\"type\":\"scripted\",\"steps\":[null]}", "model.steps[0]: must be an object" },
    { "{\"type\":\"scripted\",\"steps\":[{\"text\":\"a\",\"json\":1}]}",
      "model.steps[0]: more than one step kind (use exactly one of text, toolCalls, json, template, error)" },
    { "{\"type\":\"scripted\",\"steps\":[{\"text\":5}]}", "model.steps[0].text: must be a string" },
    { "{\"type\":\"scripted\",\"steps\":[{\"template\":[]}]}", "model.steps[0].template: must be a string" },
    { "{\"type\":\"scripted\",\"steps\":[{\"text\":\"a\",\"chunks\":0}]}", "model.steps[0].chunks: must be a positive integer" },
    { "{\"type\":\"scripted\",\"steps\":[{\"text\":\"a\",\"chunks\":-3}]}", "model.steps[0].chunks: must be a positive integer" },
    { "{\"type\":\"scripted\",\"steps\":[{\"text\":\"a\",\"chunks\":1.5}]}", "model.steps[0].chunks: must be a positive integer" },
    { "{\"type\":\"scripted\",\"steps\":[{\"text\":\"a\",\"chunks\":\"2\"}]}", "model.steps[0].chunks: must be a positive integer" },
    { "{\"type\":\"scripted\",\"steps\":[{\"text\":\"a\",\"chunks\":true}]}", "model.steps[0].chunks: must be a positive integer" },
    { "{\"type\":\"scripted\",\"steps\":[{\"text\":\"a\",\"chunks\":1e300}]}", "model.steps[0].chunks: must be a positive integer" },
    { "{\"type\":\"scripted\",\"steps\":[{\"text\":\"a\",\"chunks\":99999999999}]}", "model.steps[0].chunks: must be a positive integer" },
    { "{\"type\":\"scripted\",\"steps\":[{\"text\":\"a\",\"delayMs\":-1}]}",
      "model.steps[0].delayMs: must be a non-negative integer (at most 86400000)" },
    { "{\"type\":\"scripted\",\"steps\":[{\"text\":\"a\",\"delayMs\":0.5}]}",
      "model.steps[0].delayMs: must be a non-negative integer (at most 86400000)" },
    { "{\"type\":\"scripted\",\"steps\":[{\"text\":\"a\",\"delayMs\":86400001}]}",
      "model.steps[0].delayMs: must be a non-negative integer (at most 86400000)" },
    { "{\"type\":\"scripted\",\"steps\":[{\"text\":\"a\",\"delayMs\":\"10\"}]}",
      "model.steps[0].delayMs: must be a non-negative integer (at most 86400000)" },
    { "{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[]}]}", "model.steps[0].toolCalls: must be a non-empty array" },
    { "{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":{\"name\":\"a\"}}]}", "model.steps[0].toolCalls: must be a non-empty array" },
    { "{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[\"a\"]}]}", "model.steps[0].toolCalls[0]: must be an object" },
    { "{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"a\"},{\"arguments\":{}}]}]}",
      "model.steps[0].toolCalls[1].name: must be a non-empty string" },
    { "{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"\"}]}]}",
      "model.steps[0].toolCalls[0].name: must be a non-empty string" },
    { "{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"a\",\"arguments\":[1]}]}]}",
      "model.steps[0].toolCalls[0].arguments: must be an object" },
    { "{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"a\",\"arguments\":\"{}\"}]}]}",
      "model.steps[0].toolCalls[0].arguments: must be an object" },
    { "{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"a\",\"id\":7}]}]}",
      "model.steps[0].toolCalls[0].id: must be a non-empty string" },
    { "{\"type\":\"scripted\",\"steps\":[{\"error\":\"session_not_found\"}]}",
      "model.steps[0].error: unknown error code 'session_not_found'" },
    { "{\"type\":\"scripted\",\"steps\":[{\"error\":\"\"}]}", "model.steps[0].error: unknown error code ''" },
    { "{\"type\":\"scripted\",\"steps\":[{\"error\":-32009}]}", "model.steps[0].error: must be a string" },
    { "{\"type\":\"scripted\",\"steps\":[{\"error\":\"refusal\",\"message\":{}}]}", "model.steps[0].message: must be a string" },
    { "{\"type\":\"scripted\",\"fallback\":\"text\"}", "model.fallback: must be an object" },
    { "{\"type\":\"scripted\",\"fallback\":{}}", "model.fallback: unknown step kind" },
    { "{\"type\":\"scripted\",\"fallback\":{\"text\":\"a\",\"chunks\":0}}", "model.fallback.chunks: must be a positive integer" },
    { "{\"type\":\"scripted\",\"steps\":[{\"text\":\"ok\"}],\"fallback\":{\"error\":\"nope\"}}",
      "model.fallback.error: unknown error code 'nope'" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GgModel) model = create (cases[i].spec, &error);

      g_test_message ("%s", cases[i].spec);
      g_assert_null (model);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }
}

static void
test_hostile_specs (void)
{
  /* Big and deep scripts are data, not a problem. */
  g_autoptr(GString) spec = g_string_new ("{\"type\":\"scripted\",\"steps\":[");
  g_autoptr(GString) deep = g_string_new ("{\"type\":\"scripted\",\"steps\":[{\"json\":");
  g_autoptr(GgModel) big = NULL;
  g_autoptr(GgModel) nested = NULL;
  g_autofree char *last = NULL;

  for (guint i = 0; i < 5000; i++)
    g_string_append_printf (spec, "%s{\"text\":\"step %u\",\"chunks\":3,\"unknownMember\":true}", i > 0 ? "," : "", i);
  g_string_append (spec, "]}");
  big = model_new (spec->str);
  for (guint i = 0; i < 4999; i++)
    {
      g_autofree char *text = text_of (big, NULL);
      g_assert_true (g_str_has_prefix (text, "step "));
    }
  last = text_of (big, NULL);
  g_assert_cmpstr (last, ==, "step 4999");

  for (guint i = 0; i < 60; i++)
    g_string_append (deep, "[");
  for (guint i = 0; i < 60; i++)
    g_string_append (deep, "]");
  g_string_append (deep, "}]}");
  nested = model_new (deep->str);
  {
    g_auto(Step) step;
    play (nested, NULL, FALSE, &step);
    g_assert_no_error (step.error);
    g_assert_true (JSON_NODE_HOLDS_ARRAY (step.reply->json));
  }
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  load_plugin ();

  g_test_add_func ("/model-scripted/descriptor", test_descriptor);
  g_test_add_func ("/model-scripted/empty-script", test_empty_script);
  g_test_add_func ("/model-scripted/text-and-usage", test_text_and_usage);
  g_test_add_func ("/model-scripted/shared-entries", test_shared_entries);
  g_test_add_func ("/model-scripted/chunks", test_chunks);
  g_test_add_func ("/model-scripted/tool-calls", test_tool_calls);
  g_test_add_func ("/model-scripted/json", test_json);
  g_test_add_func ("/model-scripted/templates", test_templates);
  g_test_add_func ("/model-scripted/errors", test_errors);
  g_test_add_func ("/model-scripted/delay", test_delay);
  g_test_add_func ("/model-scripted/cancel", test_cancel);
  g_test_add_func ("/model-scripted/fallback", test_fallback);
  g_test_add_func ("/model-scripted/independent-instances", test_independent_instances);
  g_test_add_func ("/model-scripted/bad-steps", test_bad_steps);
  g_test_add_func ("/model-scripted/hostile-specs", test_hostile_specs);

  status = g_test_run ();
  g_clear_object (&bus);
  return status;
}
