/* test-record-replay.c: the model-record plugin end to end. The built
 * `gamegate oam` records a real model (model-openai against the fake
 * OpenAI-compatible server running in this process) through an agent
 * session with a client tool and an NPC, then a second `gamegate oam`
 * replays the cassette with the server gone: every message it writes is
 * the same, byte for byte. Then every way a replay refuses: another
 * prompt, other tools, another tool choice, a cassette run out, a broken
 * cassette; the sequential mode; `gamegate cassette --to-script`; a
 * replayed `[gateway] default-model`; and no secret in a cassette.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake-openai-server.h"
#include "gg-test-util.h"

#define READ_TIMEOUT_MS 10000
#define KEY_VAR "GG_RECORD_TEST_API_KEY"
#define TEST_KEY "sk-record-4Hq2mZpW4vX9rT1yLk8sJd3fGc6bNa5e"

#define GATE_TOOL "{\"name\":\"open_gate\",\"description\":\"Opens a named gate.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"gate\":{\"type\":\"string\"}},\"required\":[\"gate\"]}}"

typedef struct {
  char *dir;
  char *cassette;
  char *config;
  FakeOpenai *fake;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autofree char *text = NULL;

  f->dir = g_dir_make_tmp ("gg-record-XXXXXX", &error);
  g_assert_no_error (error);
  f->cassette = g_build_filename (f->dir, "npc-gorm.jsonl", NULL);
  f->config = g_build_filename (f->dir, "gamegate.conf", NULL);
  f->fake = fake_openai_new ();
  fake_openai_set_api_key (f->fake, TEST_KEY);
  url = fake_openai_get_base_url (f->fake);
  text = g_strdup_printf ("[model-openai]\nbase-url=%s\nmodel=fake-model\napi-key-env=" KEY_VAR "\n", url);
  g_assert_true (g_file_set_contents (f->config, text, -1, NULL));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_clear_pointer (&f->fake, fake_openai_free);
  g_unlink (f->cassette);
  g_unlink (f->config);
  g_rmdir (f->dir);
  g_free (f->cassette);
  g_free (f->config);
  g_free (f->dir);
}

static GgTestProcess *
start_oam (Fixture            *f,
           const char * const *extra_env)
{
  g_autoptr(GError) error = NULL;
  const char *args[] = { "oam", "--config", f->config, NULL };
  const char *env[4] = { KEY_VAR "=" TEST_KEY, NULL, NULL, NULL };
  GgTestProcess *process;

  for (guint i = 0; extra_env != NULL && extra_env[i] != NULL && i < 2; i++)
    env[i + 1] = extra_env[i];
  process = gg_test_process_spawn (args, env, &error);
  g_assert_no_error (error);
  return process;
}

static char *
normalize (const char *line)
{
  static GRegex *duration;

  if (duration == NULL)
    duration = g_regex_new ("\"durationSeconds\":[0-9.eE+-]+", 0, 0, NULL);
  return g_regex_replace_literal (duration, line, -1, 0, "\"durationSeconds\":0", 0, NULL);
}

/* Sends each request (with @model for "@MODEL@") and reads until its
 * response, answering the client's tool/calls on the way; returns every
 * line gamegate wrote, normalized. Requests have numeric ids. */
static GPtrArray *
run (GgTestProcess      *process,
     const char         *model,
     const char * const *requests)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; requests[i] != NULL; i++)
    {
      g_autoptr(GString) request = g_string_new (requests[i]);
      g_autoptr(GError) error = NULL;
      const char *id = strstr (requests[i], "\"id\":");
      g_autofree char *done = NULL;

      g_assert_nonnull (id);
      done = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%d,", atoi (id + strlen ("\"id\":")));

      g_string_replace (request, "@MODEL@", model, 0);
      gg_test_process_write_line (process, request->str, &error);
      g_assert_no_error (error);
      for (;;)
        {
          g_autofree char *raw = gg_test_process_read_line (process, gg_test_timeout_ms (READ_TIMEOUT_MS), &error);
          char *line;

          g_assert_no_error (error);
          if (raw == NULL)
            g_error ("gamegate oam closed its output; stderr:\n%s", gg_test_process_get_stderr (process));
          line = normalize (raw);
          g_ptr_array_add (lines, line);
          if (strstr (line, "\"method\":\"tool/call\"") != NULL)
            {
              const char *call_id = strstr (line, "\"id\":\"t-");
              g_autofree char *answer = NULL;

              g_assert_nonnull (call_id);
              answer = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":\"t-%d\",\"result\":{\"output\":\"The gate opened.\"}}",
                                        atoi (call_id + strlen ("\"id\":\"t-")));
              gg_test_process_write_line (process, answer, &error);
              g_assert_no_error (error);
            }
          if (g_str_has_prefix (line, done))
            break;
        }
    }
  return lines;
}

static char *
read_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

static const char * const conversation[] = {
  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"guard\",\"instructions\":\"You guard the gate.\",\"tools\":[" GATE_TOOL "],\"model\":@MODEL@}}",
  "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"guard\",\"prompt\":\"Open the north gate.\",\"stream\":true}}",
  "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"npc/create\",\"params\":{\"npc\":\"gorm\",\"persona\":{\"name\":\"Gorm\",\"role\":\"the village blacksmith\"},\"model\":@MODEL@}}",
  "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"npc/talk\",\"params\":{\"npc\":\"gorm\",\"line\":\"Got swords?\",\"stream\":true}}",
  "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"session/transcript\",\"params\":{\"session\":\"guard\"}}",
  NULL
};

static void
push_conversation (FakeOpenai *fake)
{
  FakeReply *reply = fake_openai_push (fake);

  fake_reply_add_tool_call (reply, "call_1", "open_gate", "{\"gate\":\"north\"}");
  fake_openai_push_text (fake, "The north gate is open.");
  fake_openai_push_text (fake, "{\"emotion\":\"proud\",\"line\":\"Aye, three swords.\","
                               "\"player_options\":[\"Buy\",\"Bye\"],\"ends_conversation\":false}");
}

static GPtrArray *
record_conversation (Fixture *f)
{
  g_autoptr(GgTestProcess) process = start_oam (f, NULL);
  g_autofree char *model = g_strdup_printf ("{\"type\":\"record\",\"model\":{\"type\":\"openai\"},\"cassette\":\"%s\"}",
                                            f->cassette);
  GPtrArray *lines;
  int status = -1;

  push_conversation (f->fake);
  lines = run (process, model, conversation);
  gg_test_process_close_stdin (process);
  g_assert_true (gg_test_process_wait (process, gg_test_timeout_ms (READ_TIMEOUT_MS), &status));
  if (status != 0)
    g_error ("gamegate oam exited with %d; stderr:\n%s", status, gg_test_process_get_stderr (process));
  g_assert_null (strstr (gg_test_process_get_stderr (process), TEST_KEY));
  return lines;
}

/* Recorded against the server, replayed without it: the same messages. */
static void
test_record_then_replay (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GPtrArray) recorded = record_conversation (f);
  g_autoptr(GPtrArray) replayed = NULL;
  g_autofree char *cassette = read_file (f->cassette);
  g_autofree char *model = g_strdup_printf ("{\"type\":\"replay\",\"cassette\":\"%s\"}", f->cassette);
  g_auto(GStrv) steps = g_strsplit (cassette, "\n", -1);
  g_autoptr(GgTestProcess) process = NULL;
  int status = -1;

  /* Three steps: the tool round, the answer, the NPC's line. Plain JSON
   * lines, with what was asked and what came back, and no secret. */
  g_assert_cmpuint (g_strv_length (steps), ==, 4);
  g_assert_cmpstr (steps[3], ==, "");
  g_assert_true (g_str_has_prefix (steps[0], "{\"step\":1,\"model\":\"openai\",\"contextSize\":8192,\"digest\":\"sha256:"));
  g_assert_nonnull (strstr (steps[0], ",\"asked\":{\"instructions\":\"You guard the gate.\",\"transcript\":[{\"role\":\"user\",\"text\":\"Open the north gate.\"}],\"tools\":[{\"name\":\"open_gate\","));
  g_assert_nonnull (strstr (steps[0], "\"reply\":{\"toolCalls\":[{\"id\":\"call_1\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}}],\"usage\":{"));
  g_assert_nonnull (strstr (steps[1], "\"reply\":{\"text\":\"The north gate is open.\",\"usage\":{"));
  g_assert_nonnull (strstr (steps[1], ",\"chunks\":[{\"ms\":"));
  g_assert_true (g_str_has_prefix (steps[2], "{\"step\":1,\"model\":\"openai\","));
  g_assert_nonnull (strstr (steps[2], "\"reply\":{\"json\":{\"emotion\":\"proud\",\"line\":\"Aye, three swords.\""));
  g_assert_null (strstr (cassette, TEST_KEY));
  g_assert_null (strstr (cassette, "Bearer"));
  g_assert_cmpuint (fake_openai_get_n_requests (f->fake), ==, 3);

  /* The server is gone. */
  g_clear_pointer (&f->fake, fake_openai_free);
  process = start_oam (f, NULL);
  replayed = run (process, model, conversation);
  g_assert_cmpuint (replayed->len, ==, recorded->len);
  for (guint i = 0; i < recorded->len; i++)
    g_assert_cmpstr (g_ptr_array_index (replayed, i), ==, g_ptr_array_index (recorded, i));
  /* The replayed answer streams like the recorded one did. */
  {
    guint deltas = 0;

    for (guint i = 0; i < replayed->len; i++)
      deltas += strstr (g_ptr_array_index (replayed, i), "\"type\":\"text\",\"delta\"") != NULL;
    g_assert_cmpuint (deltas, >, 1);
  }
  gg_test_process_close_stdin (process);
  g_assert_true (gg_test_process_wait (process, gg_test_timeout_ms (READ_TIMEOUT_MS), &status));
  if (status != 0)
    g_error ("gamegate oam exited with %d; stderr:\n%s", status, gg_test_process_get_stderr (process));
}

static char *
one_line (GgTestProcess *process,
          const char    *request)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;

  gg_test_process_write_line (process, request, &error);
  g_assert_no_error (error);
  line = gg_test_process_read_line (process, gg_test_timeout_ms (READ_TIMEOUT_MS), &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  return normalize (line);
}

static void
assert_prefix (const char *line,
               const char *prefix)
{
  if (!g_str_has_prefix (line, prefix))
    g_error ("expected a line starting with\n  %s\ngot\n  %s", prefix, line);
}

/* A step the cassette does not hold fails with the first difference. */
static void
test_mismatches (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GPtrArray) recorded = record_conversation (f);
  g_autofree char *create = g_strdup_printf (
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"a\",\"instructions\":\"You guard the gate.\","
    "\"tools\":[" GATE_TOOL "],\"model\":{\"type\":\"replay\",\"cassette\":\"%s\"}}}", f->cassette);
  g_autofree char *create_tools = g_strdup_printf (
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/create\",\"params\":{\"session\":\"b\",\"instructions\":\"You guard the gate.\","
    "\"tools\":[" GATE_TOOL ",{\"name\":\"wave\",\"description\":\"Waves.\"}],\"model\":{\"type\":\"replay\",\"cassette\":\"%s\"}}}",
    f->cassette);
  g_autofree char *create_sequential = g_strdup_printf (
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"session/create\",\"params\":{\"session\":\"c\",\"model\":{\"type\":\"replay\",\"cassette\":\"%s\",\"mode\":\"sequential\"}}}",
    f->cassette);
  g_autoptr(GgTestProcess) process = NULL;
  g_autofree char *line = NULL;
  g_autofree char *expected = NULL;

  g_clear_pointer (&f->fake, fake_openai_free);
  process = start_oam (f, NULL);

  line = one_line (process, create);
  g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"session\":\"a\",\"warnings\":[]}}");
  g_clear_pointer (&line, g_free);
  line = one_line (process, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"a\",\"prompt\":\"Open the south gate.\"}}");
  expected = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32011,\"message\":\"replay: step 1 asked with transcript entry 1 "
                              "{\\\"role\\\":\\\"user\\\",\\\"text\\\":\\\"Open the south gate.\\\"}, the cassette has "
                              "{\\\"role\\\":\\\"user\\\",\\\"text\\\":\\\"Open the north gate.\\\"} (%s, line 1)\",", f->cassette);
  assert_prefix (line, expected);
  g_clear_pointer (&line, g_free);
  g_clear_pointer (&expected, g_free);

  line = one_line (process, create_tools);
  g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"session\":\"b\",\"warnings\":[]}}");
  g_clear_pointer (&line, g_free);
  line = one_line (process, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"session/respond\",\"params\":{\"session\":\"b\",\"prompt\":\"Open the north gate.\"}}");
  expected = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32011,\"message\":\"replay: step 1 asked with tools [open_gate, wave], "
                              "the cassette has [open_gate] (%s, line 1)\",", f->cassette);
  assert_prefix (line, expected);
  g_clear_pointer (&line, g_free);
  g_clear_pointer (&expected, g_free);

  /* toolChoice shapes what the model is shown too. */
  line = one_line (process, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"session/respond\",\"params\":{\"session\":\"a\",\"prompt\":\"Open the north gate.\",\"toolChoice\":\"none\"}}");
  expected = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32011,\"message\":\"replay: step 2 asked with tools [], "
                              "the cassette has [open_gate] (%s, line 1)\",", f->cassette);
  assert_prefix (line, expected);
  g_clear_pointer (&line, g_free);
  g_clear_pointer (&expected, g_free);

  /* The matching question is answered; asked once more, the cassette has no
   * step left for it. */
  g_ptr_array_unref (run (process, "", (const char * const []) {
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"a\",\"prompt\":\"Open the north gate.\"}}", NULL }));

  /* Other instructions, and an output schema the recording had not. */
  {
    g_autofree char *create_other = g_strdup_printf (
      "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"session/create\",\"params\":{\"session\":\"d\",\"instructions\":\"You sell swords.\","
      "\"tools\":[" GATE_TOOL "],\"model\":{\"type\":\"replay\",\"cassette\":\"%s\"}}}", f->cassette);

    line = one_line (process, create_other);
    g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":11,\"result\":{\"session\":\"d\",\"warnings\":[]}}");
    g_clear_pointer (&line, g_free);
    line = one_line (process, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"session/respond\",\"params\":{\"session\":\"d\",\"prompt\":\"Open the north gate.\"}}");
    expected = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":12,\"error\":{\"code\":-32011,\"message\":\"replay: step 1 asked with instructions "
                                "\\\"You sell swords.\\\", the cassette has \\\"You guard the gate.\\\" (%s, line 1)\",", f->cassette);
    assert_prefix (line, expected);
    g_clear_pointer (&line, g_free);
    g_clear_pointer (&expected, g_free);
    g_clear_pointer (&create_other, g_free);
    create_other = g_strdup_printf (
      "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"session/create\",\"params\":{\"session\":\"e\",\"instructions\":\"You guard the gate.\","
      "\"tools\":[" GATE_TOOL "],\"model\":{\"type\":\"replay\",\"cassette\":\"%s\"}}}", f->cassette);
    line = one_line (process, create_other);
    g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":14,\"result\":{\"session\":\"e\",\"warnings\":[]}}");
    g_clear_pointer (&line, g_free);
    line = one_line (process, "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"session/respond\",\"params\":{\"session\":\"e\",\"prompt\":\"Open the north gate.\","
                              "\"schema\":{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}},\"required\":[\"ok\"]}}}");
    g_clear_pointer (&expected, g_free);
    expected = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":13,\"error\":{\"code\":-32011,\"message\":\"replay: step 1 asked with schema name "
                                "\\\"Response\\\", the cassette has none (%s, line 1)\",", f->cassette);
    assert_prefix (line, expected);
    g_clear_pointer (&line, g_free);
    g_clear_pointer (&expected, g_free);
  }

  /* Sequential: the next step, whatever is asked. */
  line = one_line (process, create_sequential);
  g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"session\":\"c\",\"warnings\":[]}}");
  g_clear_pointer (&line, g_free);
  line = one_line (process, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"session/respond\",\"params\":{\"session\":\"c\",\"prompt\":\"Anything.\"}}");
  assert_prefix (line, "{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"session\":\"c\",\"text\":\"The north gate is open.\",");
  g_clear_pointer (&line, g_free);
  line = one_line (process, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"session/respond\",\"params\":{\"session\":\"c\",\"prompt\":\"More.\"}}");
  assert_prefix (line, "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"session\":\"c\",\"text\":\"{\\\"emotion\\\":\\\"proud\\\"");
  g_clear_pointer (&line, g_free);
  line = one_line (process, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"session/respond\",\"params\":{\"session\":\"c\",\"prompt\":\"Again.\"}}");
  expected = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":10,\"error\":{\"code\":-32011,\"message\":\"replay: step 4 was asked, but %s has no step left to play (it holds 3)\",",
                              f->cassette);
  assert_prefix (line, expected);
  gg_test_process_close_stdin (process);
}

/* A broken cassette is refused when the model is made, naming the line. */
static void
test_broken_cassette (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GgTestProcess) process = NULL;
  g_autofree char *create = g_strdup_printf (
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"model\":{\"type\":\"replay\",\"cassette\":\"%s\"}}}",
    f->cassette);
  g_autofree char *line = NULL;
  g_autofree char *expected = NULL;

  g_assert_true (g_file_set_contents (f->cassette,
                                      "{\"asked\":{},\"reply\":{\"text\":\"a\"}}\n\n{\"asked\":{},\"reply\":{\"text\":7}}\n", -1, NULL));
  process = start_oam (f, NULL);
  line = one_line (process, create);
  expected = g_strdup_printf ("replay: %s:3: reply.text must be a string", f->cassette);
  g_assert_nonnull (strstr (line, expected));
  assert_prefix (line, "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{");
  g_clear_pointer (&line, g_free);
  g_clear_pointer (&expected, g_free);

  g_assert_true (g_file_set_contents (f->cassette, "{\"asked\":{},\"reply\":{}}\n{\"asked\":{},\"reply\":{\"te", -1, NULL));
  line = one_line (process, create);
  expected = g_strdup_printf ("replay: %s:2: ", f->cassette);
  g_assert_nonnull (strstr (line, expected));
  g_clear_pointer (&line, g_free);
  g_clear_pointer (&expected, g_free);

  g_unlink (f->cassette);
  line = one_line (process, create);
  g_assert_nonnull (strstr (line, "replay: "));
  g_assert_nonnull (strstr (line, "No such file"));
  g_clear_pointer (&line, g_free);

  line = one_line (process, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"model\":{\"type\":\"record\",\"model\":{\"type\":\"scripted\"}}}}");
  g_assert_nonnull (strstr (line, "record: 'cassette' must be the path of the file to record into"));
  gg_test_process_close_stdin (process);
}

/* The cassette as a scripted model's steps, and that script replaying the
 * session's answers. */
static void
test_to_script (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GPtrArray) recorded = record_conversation (f);
  const char *args[] = { "cassette", "--to-script", f->cassette, NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = gg_test_run (args, NULL, NULL, &out, &err);

  g_assert_cmpint (status, ==, 0);
  g_assert_cmpstr (out, ==,
                   "{\"steps\":[{\"toolCalls\":[{\"id\":\"call_1\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}}]},"
                   "{\"text\":\"The north gate is open.\",\"chunks\":4},"
                   "{\"json\":{\"emotion\":\"proud\",\"line\":\"Aye, three swords.\",\"player_options\":[\"Buy\",\"Bye\"],\"ends_conversation\":false}}]}\n");

  {
    const char *missing[] = { "cassette", "--to-script", "/nonexistent/c.jsonl", NULL };
    g_autofree char *out2 = NULL, *err2 = NULL;

    g_assert_cmpint (gg_test_run (missing, NULL, NULL, &out2, &err2), !=, 0);
    g_assert_nonnull (strstr (err2, "/nonexistent/c.jsonl"));
  }
}

/* `[gateway] default-model` replayed: every "system" model plays it. */
static void
test_default_model (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GPtrArray) recorded = record_conversation (f);
  g_autofree char *text = NULL;
  g_autofree char *line = NULL;
  g_autoptr(GgTestProcess) process = NULL;

  text = g_strdup_printf ("[gateway]\ndefault-model={\"type\":\"replay\",\"cassette\":\"%s\",\"mode\":\"sequential\"}\n", f->cassette);
  g_assert_true (g_file_set_contents (f->config, text, -1, NULL));
  g_clear_pointer (&f->fake, fake_openai_free);
  process = start_oam (f, NULL);
  line = one_line (process, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"s\",\"tools\":[" GATE_TOOL "]}}");
  g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"session\":\"s\",\"warnings\":[]}}");
  {
    g_autoptr(GPtrArray) lines = run (process, "", (const char * const []) {
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"s\",\"prompt\":\"Hm?\"}}", NULL });
    const char *last = g_ptr_array_index (lines, lines->len - 1);

    g_assert_true (g_str_has_prefix (g_ptr_array_index (lines, 0), "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"method\":\"tool/call\""));
    g_assert_true (g_str_has_prefix (last, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"session\":\"s\",\"text\":\"The north gate is open.\","));
  }
  gg_test_process_close_stdin (process);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/record/record-then-replay", Fixture, NULL, fixture_setup, test_record_then_replay, fixture_teardown);
  g_test_add ("/record/mismatches", Fixture, NULL, fixture_setup, test_mismatches, fixture_teardown);
  g_test_add ("/record/broken-cassette", Fixture, NULL, fixture_setup, test_broken_cassette, fixture_teardown);
  g_test_add ("/record/to-script", Fixture, NULL, fixture_setup, test_to_script, fixture_teardown);
  g_test_add ("/record/default-model", Fixture, NULL, fixture_setup, test_default_model, fixture_teardown);
  return g_test_run ();
}
