/* test-openai-request.c: Chat Completions request bodies built from
 * GgModelRequests.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-openai-private.h"
#include "gg-test-util.h"

static JsonNode *
parse (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = gg_json_parse (json, -1, 64, &error);

  g_assert_no_error (error);
  return node;
}

static JsonArray *
parse_array (const char *json)
{
  g_autoptr(JsonNode) node = parse (json);
  return json_array_ref (json_node_get_array (node));
}

static void
init_settings (GgOpenaiSettings *settings)
{
  memset (settings, 0, sizeof *settings);
  settings->base_url = g_strdup ("http://127.0.0.1:8080/v1");
  settings->model = g_strdup ("qwen2.5-7b-instruct");
  settings->temperature = -1;
  settings->timeout_s = 30;
  settings->accepts_top_k = TRUE;
}

static char *
build (GgModelRequest   *request,
       GgOpenaiSettings *settings,
       gboolean          stream,
       GError          **error)
{
  g_autoptr(JsonNode) body = gg_openai_build_request (request, settings, stream, error);

  return body != NULL ? gg_json_to_string (body) : NULL;
}

static void
test_full_conversation (void)
{
  g_autoptr(GgModelRequest) request = gg_model_request_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  GgOpenaiSettings settings;

  init_settings (&settings);
  request->instructions = g_strdup ("You are the gate guard.\n\nContext: night.");
  json_array_unref (request->transcript);
  request->transcript = parse_array (
    "[{\"role\":\"user\",\"text\":\"Open the gate\"},"
    " {\"role\":\"assistant\",\"toolCalls\":[{\"id\":\"c1\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}}]},"
    " {\"role\":\"tool\",\"callId\":\"c1\",\"name\":\"open_gate\",\"output\":\"opened\"},"
    " {\"role\":\"assistant\",\"text\":\"Done.\"},"
    " {\"role\":\"user\",\"text\":\"Thanks\"}]");
  request->tools = parse_array (
    "[{\"name\":\"open_gate\",\"description\":\"Opens a gate\","
    "  \"parameters\":{\"type\":\"object\",\"properties\":{\"gate\":{\"type\":\"string\"}},\"required\":[\"gate\"]}},"
    " {\"name\":\"ring_bell\"}]");
  request->temperature = 0.7;
  request->max_tokens = 256;

  json = build (request, &settings, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json, ==,
    "{\"model\":\"qwen2.5-7b-instruct\",\"messages\":["
    "{\"role\":\"system\",\"content\":\"You are the gate guard.\\n\\nContext: night.\"},"
    "{\"role\":\"user\",\"content\":\"Open the gate\"},"
    "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\","
    "\"function\":{\"name\":\"open_gate\",\"arguments\":\"{\\\"gate\\\":\\\"north\\\"}\"}}]},"
    "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"opened\"},"
    "{\"role\":\"assistant\",\"content\":\"Done.\"},"
    "{\"role\":\"user\",\"content\":\"Thanks\"}],"
    "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"open_gate\",\"description\":\"Opens a gate\","
    "\"parameters\":{\"type\":\"object\",\"properties\":{\"gate\":{\"type\":\"string\"}},\"required\":[\"gate\"]}}},"
    "{\"type\":\"function\",\"function\":{\"name\":\"ring_bell\",\"parameters\":{\"type\":\"object\",\"properties\":{}}}}],"
    "\"tool_choice\":\"auto\",\"temperature\":0.7,\"max_tokens\":256,\"stream\":true,"
    "\"stream_options\":{\"include_usage\":true}}");
  gg_openai_settings_clear (&settings);
}

static const char *
tool_choice_of (GgToolMode  mode,
                const char *tools_json,
                char      **out_json)
{
  g_autoptr(GgModelRequest) request = gg_model_request_new ();
  g_autoptr(GError) error = NULL;
  GgOpenaiSettings settings;

  init_settings (&settings);
  request->tools = parse_array (tools_json);
  request->tool_mode = mode;
  *out_json = build (request, &settings, FALSE, &error);
  g_assert_no_error (error);
  gg_openai_settings_clear (&settings);
  return *out_json;
}

static void
test_tool_modes (void)
{
  g_autofree char *a = NULL, *b = NULL, *c = NULL, *d = NULL;

  tool_choice_of (GG_TOOL_MODE_ALLOWED, "[{\"name\":\"x\"},{\"name\":\"y\"}]", &a);
  g_assert_nonnull (strstr (a, "\"tool_choice\":\"auto\""));
  tool_choice_of (GG_TOOL_MODE_REQUIRED, "[{\"name\":\"x\"},{\"name\":\"y\"}]", &b);
  g_assert_nonnull (strstr (b, "\"tool_choice\":\"required\""));
  /* A forced single tool (oam {"tool": …}) is named. */
  tool_choice_of (GG_TOOL_MODE_REQUIRED, "[{\"name\":\"respond_directly\"}]", &c);
  g_assert_nonnull (strstr (c, "\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"respond_directly\"}}"));
  /* "none" hides the tools altogether. */
  tool_choice_of (GG_TOOL_MODE_NONE, "[{\"name\":\"x\"}]", &d);
  g_assert_null (strstr (d, "\"tools\""));
  g_assert_null (strstr (d, "tool_choice"));
  g_assert_nonnull (strstr (d, "\"stream\":false"));
  g_assert_null (strstr (d, "stream_options"));
}

static void
test_schema_format (void)
{
  g_autoptr(GgModelRequest) request = gg_model_request_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  GgOpenaiSettings settings;

  init_settings (&settings);
  request->output_schema = parse ("{\"type\":\"object\",\"properties\":{\"choice\":{\"type\":\"string\","
                                  "\"enum\":[\"attack\",\"flee\"]},\"reason\":{\"type\":\"string\"}},"
                                  "\"required\":[\"choice\"]}");
  request->schema_name = g_strdup ("Enemy decision!");
  json = build (request, &settings, FALSE, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (json,
    "\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"Enemy_decision_\","
    "\"strict\":true,\"schema\":{\"type\":\"object\",\"properties\":{\"choice\":{\"type\":\"string\","
    "\"enum\":[\"attack\",\"flee\"]},\"reason\":{\"type\":[\"string\",\"null\"]}},"
    "\"required\":[\"choice\",\"reason\"],\"additionalProperties\":false}}}"));
  gg_openai_settings_clear (&settings);
}

static char *
sampling_body (const char *sampling,
               double      temperature,
               gboolean    accepts_top_k,
               GError    **error)
{
  g_autoptr(GgModelRequest) request = gg_model_request_new ();
  GgOpenaiSettings settings;
  char *json;

  init_settings (&settings);
  settings.accepts_top_k = accepts_top_k;
  settings.temperature = 0.3;
  settings.max_tokens = 99;
  if (sampling != NULL)
    request->sampling = parse (sampling);
  request->temperature = temperature;
  json = build (request, &settings, FALSE, error);
  gg_openai_settings_clear (&settings);
  return json;
}

static void
test_sampling (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *greedy = sampling_body ("\"greedy\"", 0.9, TRUE, &error);
  g_autofree char *greedy_openai = sampling_body ("\"greedy\"", -1, FALSE, &error);
  g_autofree char *top_p = sampling_body ("{\"topP\":0.9,\"seed\":42}", -1, TRUE, &error);
  g_autofree char *top_k = sampling_body ("{\"topK\":40,\"seed\":7}", 1.1, TRUE, &error);
  g_autofree char *plain = sampling_body (NULL, -1, TRUE, &error);
  g_autofree char *bad = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (strstr (greedy, "\"top_k\":1,\"temperature\":0.0,\"max_tokens\":99"));
  g_assert_null (strstr (greedy_openai, "top_k"));
  g_assert_nonnull (strstr (greedy_openai, "\"temperature\":0.0"));
  g_assert_nonnull (strstr (top_p, "\"top_p\":0.9,\"seed\":42,\"temperature\":0.3"));
  g_assert_nonnull (strstr (top_k, "\"top_k\":40,\"seed\":7,\"temperature\":1.1"));
  g_assert_nonnull (strstr (plain, "\"temperature\":0.3,\"max_tokens\":99"));

  bad = sampling_body ("\"creative\"", -1, TRUE, &error);
  g_assert_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_REQUEST);
  g_clear_error (&error);
  g_clear_pointer (&bad, g_free);
  bad = sampling_body ("{\"topP\":7}", -1, TRUE, &error);
  g_assert_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_REQUEST);
  g_clear_error (&error);
  g_clear_pointer (&bad, g_free);
  bad = sampling_body ("[1]", -1, TRUE, &error);
  g_assert_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_REQUEST);
  g_assert_null (bad);
}

static void
test_bad_transcripts (void)
{
  static const char *cases[][2] = {
    { "[1]", "transcript[0]: must be an object" },
    { "[{\"role\":\"wizard\",\"text\":\"x\"}]", "transcript[0].role: unsupported role 'wizard'" },
    { "[{\"text\":\"x\"}]", "transcript[0].role: unsupported role '(none)'" },
    { "[{\"role\":\"user\"}]", "transcript[0].text: must be a string" },
    { "[{\"role\":\"user\",\"text\":5}]", "transcript[0].text: must be a string" },
    { "[{\"role\":\"assistant\"}]", "transcript[0]: an assistant entry needs 'text' or 'toolCalls'" },
    { "[{\"role\":\"assistant\",\"toolCalls\":[{\"arguments\":{}}]}]", "transcript[0].toolCalls[0].name: must be a string" },
    { "[{\"role\":\"assistant\",\"toolCalls\":[7]}]", "transcript[0].toolCalls[0]: must be an object" },
    { "[{\"role\":\"tool\",\"output\":\"x\"}]", "transcript[0].callId: must be a string" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GgModelRequest) request = gg_model_request_new ();
      g_autoptr(GError) error = NULL;
      g_autofree char *json = NULL;
      GgOpenaiSettings settings;

      init_settings (&settings);
      json_array_unref (request->transcript);
      request->transcript = parse_array (cases[i][0]);
      json = build (request, &settings, TRUE, &error);
      g_assert_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_REQUEST);
      g_assert_cmpstr (error->message, ==, cases[i][1]);
      g_assert_null (json);
      gg_openai_settings_clear (&settings);
    }
}

static void
test_odd_entries (void)
{
  g_autoptr(GgModelRequest) request = gg_model_request_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  GgOpenaiSettings settings;

  init_settings (&settings);
  json_array_unref (request->transcript);
  /* Missing ids get stand-ins, string arguments pass as they are, a
   * structured answer goes back as text and non-string outputs as JSON. */
  request->transcript = parse_array (
    "[{\"role\":\"assistant\",\"toolCalls\":[{\"name\":\"a\",\"arguments\":\"{\\\"x\\\":1}\"},{\"name\":\"b\"}]},"
    " {\"role\":\"tool\",\"callId\":\"call_0_0\",\"output\":{\"ok\":true}},"
    " {\"role\":\"assistant\",\"json\":{\"choice\":\"flee\"}}]");
  json = build (request, &settings, FALSE, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (json, "{\"id\":\"call_0_0\",\"type\":\"function\",\"function\":{\"name\":\"a\",\"arguments\":\"{\\\"x\\\":1}\"}}"));
  g_assert_nonnull (strstr (json, "{\"id\":\"call_0_1\",\"type\":\"function\",\"function\":{\"name\":\"b\",\"arguments\":\"{}\"}}"));
  g_assert_nonnull (strstr (json, "\"tool_call_id\":\"call_0_0\",\"content\":\"{\\\"ok\\\":true}\""));
  g_assert_nonnull (strstr (json, "{\"role\":\"assistant\",\"content\":\"{\\\"choice\\\":\\\"flee\\\"}\"}"));
  gg_openai_settings_clear (&settings);
}

static void
test_required_without_tools (void)
{
  g_autoptr(GgModelRequest) request = gg_model_request_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  GgOpenaiSettings settings;

  init_settings (&settings);
  request->tool_mode = GG_TOOL_MODE_REQUIRED;
  json = build (request, &settings, FALSE, &error);
  g_assert_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_REQUEST);
  g_clear_error (&error);

  request->tools = parse_array ("[{\"description\":\"no name\"}]");
  request->tool_mode = GG_TOOL_MODE_ALLOWED;
  json = build (request, &settings, FALSE, &error);
  g_assert_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_REQUEST);
  g_assert_cmpstr (error->message, ==, "tools[0].name: must be a string");
  gg_openai_settings_clear (&settings);
}

static void
test_tool_names (void)
{
  g_autoptr(GgModelRequest) request = gg_model_request_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  g_autoptr(GgModelReply) reply = NULL;
  g_autofree char *long_name = g_strnfill (80, 'x');
  g_autofree char *wire = gg_openai_tool_wire_name (long_name);
  GgOpenaiSettings settings;
  static const char body[] =
    "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"tool_calls\":["
    "{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"door_open\",\"arguments\":\"{}\"}},"
    "{\"id\":\"c2\",\"type\":\"function\",\"function\":{\"name\":\"unknown_tool\",\"arguments\":\"{}\"}}]},"
    "\"finish_reason\":\"tool_calls\"}]}";

  g_assert_cmpuint (strlen (wire), ==, 64);
  init_settings (&settings);
  /* oam allows dots, OpenAI does not; the wrapper form is accepted. */
  request->tools = parse_array ("[{\"type\":\"function\",\"function\":{\"name\":\"door.open\"}}]");
  request->tool_mode = GG_TOOL_MODE_REQUIRED;
  json_array_unref (request->transcript);
  request->transcript = parse_array ("[{\"role\":\"assistant\",\"toolCalls\":[{\"id\":\"c0\",\"name\":\"door.open\"}]},"
                                     " {\"role\":\"tool\",\"callId\":\"c0\",\"output\":\"ok\"}]");
  json = build (request, &settings, FALSE, &error);
  g_assert_no_error (error);
  g_assert_null (strstr (json, "door.open"));
  g_assert_nonnull (strstr (json, "\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"door_open\"}}"));
  g_assert_nonnull (strstr (json, "\"function\":{\"name\":\"door_open\",\"arguments\":\"{}\"}"));

  /* Calls come back under the caller's names. */
  reply = gg_openai_parse_response (body, strlen (body), request, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (reply->tool_calls, 0), "name"),
                   ==, "door.open");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (reply->tool_calls, 1), "name"),
                   ==, "unknown_tool");
  gg_openai_settings_clear (&settings);
}

static void
test_bad_schema (void)
{
  g_autoptr(GgModelRequest) request = gg_model_request_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  GgOpenaiSettings settings;

  init_settings (&settings);
  request->output_schema = parse ("{\"type\":\"object\",\"properties\":[1,2]}");
  json = build (request, &settings, FALSE, &error);
  g_assert_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_SCHEMA);
  g_assert_cmpstr (json_object_get_string_member (gg_model_error_get_data (error), "schemaPath"),
                   ==, "#/properties");
  gg_openai_settings_clear (&settings);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/openai/request/full-conversation", test_full_conversation);
  g_test_add_func ("/openai/request/tool-modes", test_tool_modes);
  g_test_add_func ("/openai/request/schema-format", test_schema_format);
  g_test_add_func ("/openai/request/sampling", test_sampling);
  g_test_add_func ("/openai/request/bad-transcripts", test_bad_transcripts);
  g_test_add_func ("/openai/request/odd-entries", test_odd_entries);
  g_test_add_func ("/openai/request/required-without-tools", test_required_without_tools);
  g_test_add_func ("/openai/request/bad-schema", test_bad_schema);
  g_test_add_func ("/openai/request/tool-names", test_tool_names);
  return g_test_run ();
}
