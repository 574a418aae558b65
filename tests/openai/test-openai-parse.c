/* test-openai-parse.c: non-streamed bodies, server-sent events and model
 * lists, from the documented formats of OpenAI, llama.cpp's server and
 * Ollama, and from broken, truncated, oversized and hostile input.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-openai-private.h"
#include "gg-test-util.h"

static char *
fixture (const char *name,
         gsize      *length)
{
  g_autofree char *path = g_build_filename (GG_OPENAI_FIXTURES, name, NULL);
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, length, &error);
  g_assert_no_error (error);
  return contents;
}

static GgModelReply *
parse_fixture (const char     *name,
               GgModelRequest *request,
               GError        **error)
{
  gsize length;
  g_autofree char *body = fixture (name, &length);

  return gg_openai_parse_response (body, length, request, error);
}

static char *
calls_to_string (JsonArray *calls)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);

  json_node_set_array (node, calls);
  return gg_json_to_string (node);
}

static void
test_bodies (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgModelReply) openai = parse_fixture ("openai-chat-completion.json", NULL, &error);
  g_autoptr(GgModelReply) llama = parse_fixture ("llamacpp-chat-completion.json", NULL, &error);
  g_autoptr(GgModelReply) ollama = parse_fixture ("ollama-chat-completion.json", NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (openai->text, ==, "Hello! How can I assist you today?");
  g_assert_null (openai->tool_calls);
  g_assert_null (openai->json);
  g_assert_cmpint (openai->usage.input_tokens, ==, 19);
  g_assert_cmpint (openai->usage.cached_input_tokens, ==, 0);
  g_assert_cmpint (openai->usage.output_tokens, ==, 10);

  g_assert_cmpstr (llama->text, ==, "Hello! How can I assist you today?");
  g_assert_cmpint (llama->usage.input_tokens, ==, 20);
  g_assert_cmpint (llama->usage.cached_input_tokens, ==, 12);
  g_assert_cmpint (llama->usage.output_tokens, ==, 10);

  g_assert_cmpstr (ollama->text, ==, "Hello! How can I help you today?");
  g_assert_cmpint (ollama->usage.input_tokens, ==, 13);
}

static void
test_tool_call_bodies (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgModelReply) openai = parse_fixture ("openai-tool-calls.json", NULL, &error);
  g_autoptr(GgModelReply) ollama = parse_fixture ("ollama-tool-calls.json", NULL, &error);
  g_autofree char *a = NULL, *b = NULL;

  g_assert_no_error (error);
  g_assert_null (openai->text);
  a = calls_to_string (openai->tool_calls);
  g_assert_cmpstr (a, ==, "[{\"id\":\"call_abc123\",\"name\":\"get_current_weather\","
                          "\"arguments\":{\"location\":\"Boston, MA\"}}]");
  b = calls_to_string (ollama->tool_calls);
  g_assert_cmpstr (b, ==, "[{\"id\":\"call_hb6lbwcj\",\"name\":\"get_current_weather\","
                          "\"arguments\":{\"format\":\"celsius\",\"location\":\"Paris, France\"}}]");
}

static void
test_refusal_and_structured (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgModelReply) refused = parse_fixture ("openai-refusal.json", NULL, &error);
  g_autoptr(GgModelRequest) request = gg_model_request_new ();
  g_autoptr(GgModelReply) structured = NULL;
  g_autofree char *json = NULL;

  g_assert_null (refused);
  g_assert_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_REFUSAL);
  g_assert_cmpstr (error->message, ==, "The model refused: I'm sorry, I cannot assist with that request.");
  g_clear_error (&error);

  request->output_schema = gg_json_parse ("{\"type\":\"object\",\"properties\":{\"steps\":{\"type\":\"array\"},"
                                          "\"final_answer\":{\"type\":\"string\"}},\"required\":[\"steps\",\"final_answer\"]}",
                                          -1, 16, NULL);
  structured = parse_fixture ("openai-structured.json", request, &error);
  g_assert_no_error (error);
  g_assert_null (structured->text);
  json = gg_json_to_string (json_object_get_member (json_node_get_object (structured->json), "final_answer"));
  g_assert_cmpstr (json, ==, "\"x = -15 / 4\"");
  g_assert_cmpint (structured->usage.output_tokens, ==, 117);
}

typedef struct {
  GString *deltas;
  guint calls;
} Deltas;

static void
collect_delta (const char *delta,
               gboolean    is_reset,
               gpointer    user_data)
{
  Deltas *deltas = user_data;

  g_assert_false (is_reset);
  g_string_append (deltas->deltas, delta);
  deltas->calls++;
}

/* Feeds @data in pieces of @piece bytes (0: all at once). */
static GgModelReply *
decode (const char     *data,
        gsize           length,
        gsize           piece,
        GgModelRequest *request,
        Deltas         *deltas,
        GError        **error)
{
  g_autoptr(GgOpenaiStream) stream = gg_openai_stream_new (deltas != NULL ? collect_delta : NULL, deltas);

  if (piece == 0)
    piece = MAX (length, 1);
  for (gsize off = 0; off < length; off += piece)
    if (!gg_openai_stream_feed (stream, data + off, MIN (piece, length - off), error))
      return NULL;
  if (!gg_openai_stream_finish (stream, error))
    return NULL;
  return gg_openai_answer_to_reply (gg_openai_stream_get_answer (stream), request, error);
}

static void
check_stream_fixture (const char *name,
                      const char *text,
                      const char *calls,
                      gint64      input,
                      gint64      cached,
                      gint64      output)
{
  gsize length;
  g_autofree char *data = fixture (name, &length);
  static const gsize pieces[] = { 0, 1, 2, 3, 7, 64, 1000 };

  for (gsize p = 0; p < G_N_ELEMENTS (pieces); p++)
    {
      Deltas deltas = { g_string_new (NULL), 0 };
      g_autoptr(GError) error = NULL;
      g_autoptr(GgModelReply) reply = decode (data, length, pieces[p], NULL, &deltas, &error);

      g_assert_no_error (error);
      if (text != NULL)
        {
          g_assert_cmpstr (reply->text, ==, text);
          /* Every delta went out as it arrived, and they add up. */
          g_assert_cmpstr (deltas.deltas->str, ==, text);
          g_assert_cmpuint (deltas.calls, >=, 2);
        }
      if (calls != NULL)
        {
          g_autofree char *got = calls_to_string (reply->tool_calls);
          g_assert_cmpstr (got, ==, calls);
        }
      g_assert_cmpint (reply->usage.input_tokens, ==, input);
      g_assert_cmpint (reply->usage.cached_input_tokens, ==, cached);
      g_assert_cmpint (reply->usage.output_tokens, ==, output);
      g_string_free (deltas.deltas, TRUE);
    }
}

static void
test_stream_fixtures (void)
{
  check_stream_fixture ("openai-stream.sse", "Hello! How can I help you today?", NULL, 9, 0, 9);
  check_stream_fixture ("llamacpp-stream.sse", "Hello there, traveller.", NULL, 25, 16, 4);
  check_stream_fixture ("ollama-stream.sse", "Hello! Welcome back.", NULL, 13, 0, 4);
  check_stream_fixture ("openai-stream-tool-calls.sse", NULL,
                        "[{\"id\":\"call_DdmO9pD3xa9XTPNJ32zg2hcA\",\"name\":\"get_weather\",\"arguments\":{\"location\":\"Paris, France\"}},"
                        "{\"id\":\"call_4Kx0qDpS3hbZ6mUeBdpbhtnG\",\"name\":\"get_weather\",\"arguments\":{\"location\":\"Bogotá, Colombia\"}}]",
                        0, 0, 0);
  check_stream_fixture ("ollama-stream-tool-calls.sse", NULL,
                        "[{\"id\":\"call_3b0qmxlq\",\"name\":\"get_current_weather\","
                        "\"arguments\":{\"format\":\"celsius\",\"location\":\"Paris, France\"}}]", 0, 0, 0);
}

static void
test_every_truncation (void)
{
  static const char *names[] = { "openai-stream.sse", "openai-stream-tool-calls.sse", "llamacpp-stream.sse" };

  /* Cut anywhere, a stream gives an answer or a clean error. */
  for (gsize n = 0; n < G_N_ELEMENTS (names); n++)
    {
      gsize length;
      g_autofree char *data = fixture (names[n], &length);

      for (gsize cut = 0; cut < length; cut++)
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(GgModelReply) reply = decode (data, cut, 0, NULL, NULL, &error);

          g_assert_true ((reply == NULL) == (error != NULL));
          if (error != NULL)
            g_assert_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
        }
    }
}

static void
test_sse_framing (void)
{
  static const char *streams[] = {
    /* CRLF, bare CR, comments, a BOM, unknown fields, multi-line data */
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\r\n\r\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\r\n\r\n"
    "data: [DONE]\r\n\r\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\r\r"
    ": keep-alive\r\r"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\r\r",
    "\xef\xbb\xbf" "id: 1\nretry: 100\nfoo\n"
    "data:{\"choices\":[{\"index\":0,\n"
    "data: \"delta\":{\"content\":\"ab\"},\"finish_reason\":\"stop\"}]}\n\n"
    "data: [DONE]\n\n"
    "data: {\"this is\": \"ignored after DONE\"\n\n",
    /* no final blank line: the last event still counts */
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ab\"},\"finish_reason\":\"stop\"}]}",
    /* content parts instead of a string, another choice ignored */
    "data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"zz\"}},"
    "{\"index\":0,\"delta\":{\"content\":[{\"type\":\"text\",\"text\":\"ab\"}]},\"finish_reason\":\"stop\"}]}\n\n",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (streams); i++)
    for (gsize piece = 0; piece < 4; piece++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(GgModelReply) reply = decode (streams[i], strlen (streams[i]), piece, NULL, NULL, &error);

        g_assert_no_error (error);
        g_assert_cmpstr (reply->text, ==, "ab");
      }
}

static void
check_stream_error (const char   *data,
                    gsize         length,
                    int           code,
                    const char   *message_part)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgModelReply) reply = decode (data, length, 0, NULL, NULL, &error);

  g_assert_null (reply);
  g_assert_error (error, GG_MODEL_ERROR, code);
  if (strstr (error->message, message_part) == NULL)
    g_error ("'%s' does not mention '%s'", error->message, message_part);
}

static void
test_hostile_streams (void)
{
  static const struct {
    const char *data;
    int code;
    const char *message;
  } cases[] = {
    { "", GG_MODEL_ERROR_GENERATION_FAILED, "closed the stream" },
    { "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n",
      GG_MODEL_ERROR_GENERATION_FAILED, "closed the stream" },
    { "data: {\"choices\":[{\"index\":0,\"del\n\n", GG_MODEL_ERROR_GENERATION_FAILED, "not JSON" },
    { "data: [1,2]\n\n", GG_MODEL_ERROR_GENERATION_FAILED, "not an object" },
    { "data: {\"choices\":7}\n\n", GG_MODEL_ERROR_GENERATION_FAILED, "'choices' is not an array" },
    { "data: {\"choices\":[{\"delta\":{\"content\":5}}]}\n\n", GG_MODEL_ERROR_GENERATION_FAILED, "'content'" },
    { "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":100000,\"function\":{\"name\":\"x\"}}]}}]}\n\n",
      GG_MODEL_ERROR_GENERATION_FAILED, "out of range" },
    { "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":-1}]}}]}\n\n",
      GG_MODEL_ERROR_GENERATION_FAILED, "out of range" },
    { "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":\"0\"}]}}]}\n\n",
      GG_MODEL_ERROR_GENERATION_FAILED, "not an integer" },
    { "data: {\"choices\":[{\"delta\":{\"tool_calls\":{}}}]}\n\n",
      GG_MODEL_ERROR_GENERATION_FAILED, "'tool_calls' is not an array" },
    { "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"x\",\"arguments\":\"{\\\"a\\\":\"}}]},"
      "\"finish_reason\":\"tool_calls\"}]}\n\n", GG_MODEL_ERROR_GENERATION_FAILED, "not valid JSON" },
    { "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]},"
      "\"finish_reason\":\"tool_calls\"}]}\n\n", GG_MODEL_ERROR_GENERATION_FAILED, "has no name" },
    { "data: {\"error\":{\"message\":\"out of memory\",\"type\":\"server_error\",\"code\":500}}\n\n",
      GG_MODEL_ERROR_GENERATION_FAILED, "out of memory" },
    { "event: error\ndata: {\"message\":\"the request exceeds the available context size\"}\n\n",
      GG_MODEL_ERROR_CONTEXT_SIZE_EXCEEDED, "too long" },
    { "data: {\"choices\":[{\"delta\":{\"content\":\"bad\"},\"finish_reason\":\"content_filter\"}]}\n\n",
      GG_MODEL_ERROR_GUARDRAIL_VIOLATION, "content filter" },
    { "data: {\"choices\":[{\"delta\":{\"refusal\":\"No.\"},\"finish_reason\":\"stop\"}]}\n\n",
      GG_MODEL_ERROR_REFUSAL, "No." },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    check_stream_error (cases[i].data, strlen (cases[i].data), cases[i].code, cases[i].message);

  /* A NUL inside a line. */
  check_stream_error ("data: {\"a\0\":1}\n\n", 16, GG_MODEL_ERROR_GENERATION_FAILED, "NUL");
}

static void
test_oversized (void)
{
  gsize big = GG_OPENAI_MAX_SSE_EVENT + 10;
  g_autofree char *line = g_malloc (big + 8);
  GString *many = g_string_new (NULL);
  g_autofree char *chunk_text = g_strnfill (60000, 'x');

  /* One endless line without a newline. */
  memcpy (line, "data: ", 6);
  memset (line + 6, 'a', big);
  check_stream_error (line, big + 6, GG_MODEL_ERROR_GENERATION_FAILED, "exceeds");

  /* An event of many data lines. */
  g_string_truncate (many, 0);
  for (int i = 0; i < 80; i++)
    g_string_append_printf (many, "data: %s\n", chunk_text);
  check_stream_error (many->str, many->len, GG_MODEL_ERROR_GENERATION_FAILED, "exceeds");

  /* Many small events adding up to too long an answer. */
  g_string_truncate (many, 0);
  for (int i = 0; i < 150; i++)
    g_string_append_printf (many, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%s\"}}]}\n\n",
                            chunk_text);
  check_stream_error (many->str, many->len, GG_MODEL_ERROR_GENERATION_FAILED, "exceeds");
  g_string_free (many, TRUE);
}

static void
test_hostile_bodies (void)
{
  static const struct {
    const char *body;
    int code;
    const char *message;
  } cases[] = {
    { "", GG_MODEL_ERROR_GENERATION_FAILED, "malformed" },
    { "[]", GG_MODEL_ERROR_GENERATION_FAILED, "not an object" },
    { "{}", GG_MODEL_ERROR_GENERATION_FAILED, "no choice" },
    { "{\"choices\":[]}", GG_MODEL_ERROR_GENERATION_FAILED, "no choice" },
    { "{\"choices\":[5]}", GG_MODEL_ERROR_GENERATION_FAILED, "a choice is not an object" },
    { "{\"choices\":[{\"message\":[]}]}", GG_MODEL_ERROR_GENERATION_FAILED, "'message' is not an object" },
    { "{\"choices\":[{\"message\":{\"content\":\"hi\"},\"finish_reason\":3}]}", GG_MODEL_ERROR_GENERATION_FAILED,
      "'finish_reason'" },
    { "{\"choices\":[{\"message\":{\"content\":\"hi\"}", GG_MODEL_ERROR_GENERATION_FAILED, "malformed" },
    { "{\"choices\":[{\"message\":{\"tool_calls\":[{\"function\":7}]}}]}", GG_MODEL_ERROR_GENERATION_FAILED,
      "'function' is not an object" },
    { "{\"error\":{\"message\":\"model crashed\"}}", GG_MODEL_ERROR_GENERATION_FAILED, "model crashed" },
    { "{\"error\":\"plain\"}", GG_MODEL_ERROR_GENERATION_FAILED, "plain" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GgModelReply) reply = gg_openai_parse_response (cases[i].body, strlen (cases[i].body),
                                                                NULL, &error);
      g_assert_null (reply);
      g_assert_error (error, GG_MODEL_ERROR, cases[i].code);
      if (strstr (error->message, cases[i].message) == NULL)
        g_error ("%s: '%s' does not mention '%s'", cases[i].body, error->message, cases[i].message);
    }

  /* A body beyond the limit is refused before it is parsed. */
  {
    gsize size = GG_OPENAI_MAX_BODY + 1;
    g_autofree char *huge = g_malloc (size);
    g_autoptr(GError) error = NULL;
    g_autoptr(GgModelReply) reply = NULL;

    memset (huge, ' ', size);
    reply = gg_openai_parse_response (huge, size, NULL, &error);
    g_assert_null (reply);
    g_assert_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
    g_assert_nonnull (strstr (error->message, "exceeds"));
  }

  /* Nesting beyond the parser's limit is refused, not recursed into. */
  {
    GString *deep = g_string_new ("{\"choices\":[{\"message\":{\"content\":\"x\",\"n\":");
    g_autoptr(GError) error = NULL;
    g_autoptr(GgModelReply) reply = NULL;

    for (int i = 0; i < 10000; i++)
      g_string_append_c (deep, '[');
    reply = gg_openai_parse_response (deep->str, deep->len, NULL, &error);
    g_assert_null (reply);
    g_assert_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
    g_string_free (deep, TRUE);
  }
}

static void
test_structured_answers (void)
{
  static const char *schema = "{\"type\":\"object\",\"properties\":{\"choice\":{\"type\":\"string\"},"
                              "\"why\":{\"type\":\"string\"}},\"required\":[\"choice\"]}";
  static const struct {
    const char *content;
    const char *finish;
    const char *json;    /* NULL: the model's text comes back (outside the schema) */
  } cases[] = {
    { "{\"choice\":\"flee\",\"why\":null}", "stop", "{\"choice\":\"flee\"}" },
    { "```json\\n{\\\"choice\\\":\\\"flee\\\"}\\n```", "stop", "{\"choice\":\"flee\"}" },
    { "{\"choice\":\"fl", "length", NULL },
    { "I think flee", "stop", NULL },
    { "", "stop", NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GgModelRequest) request = gg_model_request_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(GgModelReply) reply = NULL;
      g_autoptr(JsonNode) content = json_node_new (JSON_NODE_VALUE);
      g_autofree char *content_json = NULL, *body = NULL;

      request->output_schema = gg_json_parse (schema, -1, 16, NULL);
      if (strchr (cases[i].content, '\\') != NULL)
        content_json = g_strdup_printf ("\"%s\"", cases[i].content);
      else
        {
          json_node_set_string (content, cases[i].content);
          content_json = gg_json_to_string (content);
        }
      body = g_strdup_printf ("{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":%s},"
                              "\"finish_reason\":\"%s\"}]}", content_json, cases[i].finish);
      reply = gg_openai_parse_response (body, strlen (body), request, &error);
      g_assert_no_error (error);
      if (cases[i].json == NULL)
        {
          /* Not the schema's JSON: the agent turn finds it outside the schema. */
          g_assert_null (reply->json);
          g_assert_cmpstr (reply->text, ==, cases[i].content);
        }
      else
        {
          g_autofree char *got = NULL;
          got = gg_json_to_string (reply->json);
          g_assert_cmpstr (got, ==, cases[i].json);
        }
    }

  /* A wrapped schema (a string): `{"value": …}` unwrapped; without its
   * value the model's text comes back. */
  for (guint i = 0; i < 2; i++)
    {
      const char *bodies[] = {
        "{\"choices\":[{\"index\":0,\"message\":{\"content\":\"{\\\"value\\\":\\\"flee\\\"}\"},\"finish_reason\":\"stop\"}]}",
        "{\"choices\":[{\"index\":0,\"message\":{\"content\":\"{\\\"choice\\\":\\\"flee\\\"}\"},\"finish_reason\":\"stop\"}]}",
      };
      g_autoptr(GgModelRequest) request = gg_model_request_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(GgModelReply) reply = NULL;

      request->output_schema = gg_json_parse ("{\"type\":\"string\"}", -1, 16, NULL);
      reply = gg_openai_parse_response (bodies[i], strlen (bodies[i]), request, &error);
      g_assert_no_error (error);
      if (i == 0)
        {
          g_autofree char *got = gg_json_to_string (reply->json);
          g_assert_cmpstr (got, ==, "\"flee\"");
          g_assert_null (reply->text);
        }
      else
        {
          g_assert_null (reply->json);
          g_assert_cmpstr (reply->text, ==, "{\"choice\":\"flee\"}");
        }
    }
}

static void
test_model_lists (void)
{
  static const struct {
    const char *file;
    const char *ids;
  } cases[] = {
    { "openai-models.json", "gpt-4o-mini,gpt-4.1-2025-04-14" },
    { "llamacpp-models.json", "../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf" },
    { "ollama-models.json", "llama3.2:latest,qwen2.5:7b-instruct" },
  };
  static const char *bad[] = { "", "[]", "{}", "{\"data\":5}", "{\"data\":[", "\xff" };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gsize length;
      char *data = fixture (cases[i].file, &length);
      g_autoptr(GBytes) bytes = g_bytes_new_take (data, length);
      g_autoptr(GError) error = NULL;
      g_auto(GStrv) ids = gg_openai_parse_model_ids (bytes, &error);
      g_autofree char *joined = NULL;

      g_assert_no_error (error);
      joined = g_strjoinv (",", ids);
      g_assert_cmpstr (joined, ==, cases[i].ids);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GBytes) bytes = g_bytes_new_static (bad[i], strlen (bad[i]));
      g_autoptr(GError) error = NULL;
      g_auto(GStrv) ids = gg_openai_parse_model_ids (bytes, &error);

      g_assert_null (ids);
      g_assert_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED);
    }
  {
    /* Entries that are not models are skipped. */
    static const char list[] = "{\"data\":[1,{\"id\":5},{\"name\":\"n\"},{\"id\":\"m\"}]}";
    g_autoptr(GBytes) bytes = g_bytes_new_static (list, strlen (list));
    g_auto(GStrv) ids = gg_openai_parse_model_ids (bytes, NULL);
    g_autofree char *joined = g_strjoinv (",", ids);
    g_assert_cmpstr (joined, ==, "n,m");
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/openai/parse/bodies", test_bodies);
  g_test_add_func ("/openai/parse/tool-call-bodies", test_tool_call_bodies);
  g_test_add_func ("/openai/parse/refusal-and-structured", test_refusal_and_structured);
  g_test_add_func ("/openai/parse/stream-fixtures", test_stream_fixtures);
  g_test_add_func ("/openai/parse/every-truncation", test_every_truncation);
  g_test_add_func ("/openai/parse/sse-framing", test_sse_framing);
  g_test_add_func ("/openai/parse/hostile-streams", test_hostile_streams);
  g_test_add_func ("/openai/parse/oversized", test_oversized);
  g_test_add_func ("/openai/parse/hostile-bodies", test_hostile_bodies);
  g_test_add_func ("/openai/parse/structured-answers", test_structured_answers);
  g_test_add_func ("/openai/parse/model-lists", test_model_lists);
  return g_test_run ();
}
