/* test-openai-untrusted.c: what a model server answers is untrusted input,
 * through the built `gamegate oam` against the fake server (both found by
 * tests/fuzz/fuzz-openai-response):
 *  - token counts far beyond any real one (2^63-1 as an integer, 2.9e20 and
 *    1e300 as doubles, a negative one) are cut to GG_OPENAI_MAX_USAGE_TOKENS,
 *    so the turn's sum over its two steps is exact instead of overflowing
 *    (and casting 2.9e20 to gint64 was undefined);
 *  - a server that echoes the API key in an error object of a 200 body or
 *    in an SSE error event does not get it into the error gamegate reports.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "fake-openai-server.h"
#include "gg-openai-private.h"
#include "gg-test-util.h"

#define KEY_VAR "GG_USAGE_TEST_API_KEY"
#define TEST_KEY "sk-usage-1f2e3d4c5b6a79880f1e2d3c4b5a6978"
#define GATE_TOOL "{\"name\":\"open_gate\",\"description\":\"Open a gate.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"gate\":{\"type\":\"string\"}},\"required\":[\"gate\"]}}"

static const char tool_body[] =
  "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"fake-model\","
  "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\","
  "\"type\":\"function\",\"function\":{\"name\":\"open_gate\",\"arguments\":\"{\\\"gate\\\":\\\"north\\\"}\"}}]},"
  "\"finish_reason\":\"tool_calls\"}],"
  "\"usage\":{\"prompt_tokens\":9223372036854775807,\"completion_tokens\":2.92234e20,\"total_tokens\":1e300,"
  "\"prompt_tokens_details\":{\"cached_tokens\":-5}}}";
static const char text_body[] =
  "{\"id\":\"chatcmpl-2\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"fake-model\","
  "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"It stays shut.\"},"
  "\"finish_reason\":\"stop\"}],"
  "\"usage\":{\"prompt_tokens\":9223372036854775807,\"completion_tokens\":1e300,\"total_tokens\":-1,"
  "\"prompt_tokens_details\":{\"cached_tokens\":1e300}}}";

static char *
read_line (GgTestProcess *process)
{
  g_autoptr(GError) error = NULL;
  char *line = gg_test_process_read_line (process, gg_test_timeout_ms (10000), &error);

  g_assert_no_error (error);
  if (line == NULL)
    g_error ("gamegate oam closed its output; stderr:\n%s", gg_test_process_get_stderr (process));
  return line;
}

static void
test_huge_usage (void)
{
  g_autoptr(FakeOpenai) fake = fake_openai_new ();
  g_autofree char *url = fake_openai_get_base_url (fake);
  g_autofree char *dir = g_dir_make_tmp ("gg-openai-usage-XXXXXX", NULL);
  g_autofree char *conf = g_build_filename (dir, "gamegate.conf", NULL);
  g_autofree char *text = g_strdup_printf ("[model-openai]\nbase-url=%s\nmodel=fake-model\napi-key-env=" KEY_VAR "\n", url);
  const char *args[] = { "oam", "--config", conf, NULL };
  const char *env[] = { KEY_VAR "=" TEST_KEY, NULL };
  g_autoptr(GgTestProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected_usage = NULL;
  g_autofree char *usage = NULL;
  g_autofree char *line = NULL;
  g_autoptr(JsonNode) result = NULL;
  FakeReply *reply;
  int status = -1;

  fake_openai_set_api_key (fake, TEST_KEY);
  reply = fake_openai_push (fake);
  reply->raw_body = g_strdup (tool_body);
  reply = fake_openai_push (fake);
  reply->raw_body = g_strdup (text_body);
  g_assert_true (g_file_set_contents (conf, text, -1, NULL));
  process = gg_test_process_spawn (args, env, &error);
  g_assert_no_error (error);

  g_assert_true (gg_test_process_write_line (process,
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"guard\","
    "\"tools\":[" GATE_TOOL "],\"model\":{\"type\":\"openai\"}}}", &error));
  line = read_line (process);
  g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"session\":\"guard\",\"warnings\":[]}}");
  g_clear_pointer (&line, g_free);
  g_assert_true (gg_test_process_write_line (process,
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"guard\",\"prompt\":\"Open it.\"}}",
    &error));
  line = read_line (process);
  g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"method\":\"tool/call\",\"params\":{\"session\":\"guard\","
                             "\"requestId\":2,\"call\":{\"id\":\"call_1\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}}}}");
  g_clear_pointer (&line, g_free);
  g_assert_true (gg_test_process_write_line (process, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"result\":{\"output\":\"jammed\"}}",
                                             &error));
  line = read_line (process);
  result = gg_json_parse (line, -1, 64, &error);
  g_assert_no_error (error);
  usage = gg_json_to_string (gg_json_path_get (result, "result.usage", &error));
  g_assert_no_error (error);
  /* Each step's counts cut to 2^40 (a negative one to 0), then summed. */
  expected_usage = g_strdup_printf ("{\"inputTokens\":%" G_GINT64_FORMAT ",\"cachedInputTokens\":%" G_GINT64_FORMAT
                                    ",\"outputTokens\":%" G_GINT64_FORMAT ",\"totalTokens\":%" G_GINT64_FORMAT "}",
                                    2 * GG_OPENAI_MAX_USAGE_TOKENS, GG_OPENAI_MAX_USAGE_TOKENS,
                                    2 * GG_OPENAI_MAX_USAGE_TOKENS, 4 * GG_OPENAI_MAX_USAGE_TOKENS);
  g_assert_cmpstr (usage, ==, expected_usage);
  g_assert_cmpstr (json_node_get_string (gg_json_path_get (result, "result.text", NULL)), ==, "It stays shut.");

  gg_test_process_close_stdin (process);
  g_free (gg_test_process_read_stdout (process, gg_test_timeout_ms (10000)));
  g_assert_true (gg_test_process_wait (process, gg_test_timeout_ms (10000), &status));
  g_assert_cmpint (status, ==, 0);
  g_assert_null (strstr (gg_test_process_get_stderr (process), TEST_KEY));
  g_unlink (conf);
  g_rmdir (dir);
}

/* The oam error of one session/respond whose every step attempt gets
 * @raw_body (or @raw_sse, streamed). */
static char *
respond_error (const char *raw_body,
               const char *raw_sse)
{
  g_autoptr(FakeOpenai) fake = fake_openai_new ();
  g_autofree char *url = fake_openai_get_base_url (fake);
  g_autofree char *dir = g_dir_make_tmp ("gg-openai-untrusted-XXXXXX", NULL);
  g_autofree char *conf = g_build_filename (dir, "gamegate.conf", NULL);
  /* No retries: the one answer is the one the error comes from. */
  g_autofree char *text = g_strdup_printf ("[model-openai]\nbase-url=%s\nmodel=fake-model\napi-key-env=" KEY_VAR
                                           "\nretries=0\n", url);
  const char *args[] = { "oam", "--verbose", "--config", conf, NULL };
  const char *env[] = { KEY_VAR "=" TEST_KEY, NULL };
  g_autoptr(GgTestProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *line = NULL;
  g_autofree char *request = NULL;
  FakeReply *reply;
  char *message;
  int status = -1;

  fake_openai_set_api_key (fake, TEST_KEY);
  /* The turn tries a failed step again: every attempt gets the same. */
  for (guint i = 0; i < 8; i++)
    {
      reply = fake_openai_push (fake);
      reply->raw_body = g_strdup (raw_body);
      reply->raw_sse = g_strdup (raw_sse);
    }
  g_assert_true (g_file_set_contents (conf, text, -1, NULL));
  process = gg_test_process_spawn (args, env, &error);
  g_assert_no_error (error);
  g_assert_true (gg_test_process_write_line (process,
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"s\",\"model\":{\"type\":\"openai\"}}}",
    &error));
  g_free (read_line (process));
  request = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"s\","
                             "\"prompt\":\"Hi.\"%s}}", raw_sse != NULL ? ",\"stream\":true" : "");
  g_assert_true (gg_test_process_write_line (process, request, &error));
  do
    {
      g_free (line);
      line = read_line (process);
      g_assert_null (strstr (line, TEST_KEY));
    }
  while (strstr (line, "\"id\":2,") == NULL);
  gg_test_process_close_stdin (process);
  g_free (gg_test_process_read_stdout (process, gg_test_timeout_ms (10000)));
  g_assert_true (gg_test_process_wait (process, gg_test_timeout_ms (10000), &status));
  g_assert_cmpint (status, ==, 0);
  /* Not on stderr either (--verbose: debug messages too). */
  g_assert_null (strstr (gg_test_process_get_stderr (process), TEST_KEY));
  g_unlink (conf);
  g_rmdir (dir);

  node = gg_json_parse (line, -1, 64, &error);
  g_assert_no_error (error);
  if (gg_json_path_get (node, "error.message", NULL) == NULL)
    g_error ("not an error after %u requests: %s\nstderr: %s", fake_openai_get_n_requests (fake), line,
             gg_test_process_get_stderr (process));
  message = g_strdup (json_node_get_string (gg_json_path_get (node, "error.message", NULL)));
  return message;
}

static void
test_key_echoed_in_body (void)
{
  g_autofree char *message = respond_error (
    "{\"error\":{\"message\":\"upstream refused x" TEST_KEY "y for this model\",\"type\":\"server_error\"}}", NULL);

  g_assert_nonnull (strstr (message, "upstream refused x[redacted]y for this model"));
}

static void
test_key_echoed_in_stream (void)
{
  g_autofree char *message = respond_error (NULL,
    "event: error\ndata: {\"message\":\"proxy saw key=" TEST_KEY " and gave up\"}\n\n");

  g_assert_nonnull (strstr (message, "proxy saw key=[redacted] and gave up"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/openai/untrusted/huge-counts", test_huge_usage);
  g_test_add_func ("/openai/untrusted/key-echoed-in-body", test_key_echoed_in_body);
  g_test_add_func ("/openai/untrusted/key-echoed-in-stream", test_key_echoed_in_stream);
  return g_test_run ();
}
