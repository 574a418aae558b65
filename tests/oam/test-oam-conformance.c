/* test-oam-conformance.c: behaviours where gamegate once differed from the
 * reference bridge (open-apple-models' ProtocolTests and NPCMethodTests),
 * each driven through the built `gamegate oam` over pipes with exact JSON:
 * messages that are neither request nor response, ids judged by the id
 * alone, tool choices naming tools the session lacks, NPC replies whose
 * option count differs from playerOptionCount, and deep world paths.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "oam-test.h"

/* No method, no result, no error: an invalid request that is answered with
 * its own id; a response (result or error) to an unknown id is still only
 * logged. */
static void
test_neither_request_nor_response (void)
{
  oam_run_exchange_file (NULL, NULL, "conformance-neither-request-nor-response");
}

/* A big integer elsewhere in the message does not make a numeric id
 * untrustworthy; a big id itself is still refused with id null. */
static void
test_id_judged_alone (void)
{
  oam_run_exchange_file (NULL, NULL, "conformance-id-judged-alone");
}

/* A {"tool"} tool choice naming a tool that is not there is -32602 naming
 * the tool, on session/create as everywhere else (npc/talk's per-turn
 * override is -32011, as the spec's npc/talk table says). */
static void
test_tool_choice_unknown_tool (void)
{
  oam_run_exchange_file (NULL, NULL, "conformance-tool-choice-unknown-tool");
}

/* A structured NPC reply is judged by its line; the other fields are
 * repaired (plugins/oam/README.md, "NPC reply rules"): fewer player options
 * are kept, more are cut to playerOptionCount, non-strings and blanks
 * dropped, an emotion the NPC does not have falls back to its default,
 * ends_conversation counts only as `true` and when the NPC may end
 * conversations. A reply without a line still fails the turn. */
static void
test_npc_reply_rules (void)
{
  oam_run_exchange_file (NULL, NULL, "conformance-npc-reply-rules");
  oam_run_exchange_file (NULL, NULL, "conformance-npc-reply-rules-stay");
}

/* Big integers the other way: a client's response whose id is fine but whose
 * result holds an integer out of 64 bits fails that tool call, instead of
 * handing the model a silently wrapped number. */
static void
test_response_with_big_integer (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);

  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"g\","
                    "\"tools\":[{\"name\":\"open_gate\",\"description\":\"Open a gate.\",\"parameters\":{\"type\":\"object\"}}],"
                    OAM_SCRIPT ("[{\"toolCalls\":[{\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"},\"id\":\"c1\"}]},"
                                "{\"template\":\"saw {toolOutput}\"}]") "}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"session\":\"g\",\"warnings\":[]}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"g\",\"prompt\":\"open\"}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"method\":\"tool/call\",\"params\":{\"session\":\"g\",\"requestId\":2,"
                      "\"call\":{\"id\":\"c1\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}}}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"result\":{\"output\":{\"n\":99999999999999999999}}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"session\":\"g\",\"text\":\"saw Error: The response to request t-1 "
                      "holds an integer out of range\",\"toolCalls\":[{\"call\":{\"id\":\"c1\",\"name\":\"open_gate\",\"arguments\":"
                      "{\"gate\":\"north\"}},\"output\":\"The response to request t-1 holds an integer out of range\",\"isError\":true,"
                      "\"durationSeconds\":0}],\"usage\":{\"inputTokens\":34,\"cachedInputTokens\":0,\"outputTokens\":33,"
                      "\"totalTokens\":67},\"steps\":[{\"index\":0,\"completedToolRounds\":0,\"toolCallingMode\":\"allowed\","
                      "\"enabledTools\":[\"open_gate\"],\"trimmedEntries\":0},{\"index\":1,\"completedToolRounds\":1,"
                      "\"toolCallingMode\":\"allowed\",\"enabledTools\":[\"open_gate\"],\"trimmedEntries\":0}]}}");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

static char *
repeat_path (const char *segment,
             guint       n)
{
  GString *path = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append_printf (path, "%s%s", i > 0 ? "." : "", segment);
  return g_string_free (path, FALSE);
}

/* The -32054 answer to a refused path: the message shows its start only,
 * data.path has it whole. */
static char *
world_error (int         id,
             const char *path,
             const char *why)
{
  g_autofree char *shown = strlen (path) > 80 ? g_strdup_printf ("%.64s...", path) : g_strdup (path);

  return g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%d,\"error\":{\"code\":-32054,\"message\":\"World 'w', "
                          "path '%s': %s\",\"data\":{\"code\":\"world_error\",\"world\":\"w\",\"path\":\"%s\"}}}",
                          id, shown, why, path);
}

static void
send_world (OamClient  *client,
            int         id,
            const char *method,
            const char *path,
            const char *value)
{
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":{\"world\":\"w\","
                                           "\"path\":\"%s\"%s%s}}", id, method, path,
                                           value != NULL ? "," : "", value != NULL ? value : "");
  oam_send (client, line);
}

#define TOO_MANY "the path has more than 128 segments"
#define TOO_DEEP "the value would nest deeper than 128 levels"

/* A path cannot build a document deeper than parsing accepts (128 levels).
 * Paths of 30,000 and 400,000 segments (the second an 800 KB line) once
 * overflowed the stack; now they are -32054 and the bridge goes on. At the
 * limit, exactly 128 levels are accepted. */
static void
test_deep_world_paths (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);
  g_autofree char *p30k = repeat_path ("a", 30000);
  g_autofree char *p400k = repeat_path ("a", 400000);
  g_autofree char *p128 = repeat_path ("a", 128);
  g_autofree char *p129 = repeat_path ("a", 129);
  g_autofree char *p127 = repeat_path ("b", 127);
  g_autofree char *p120 = repeat_path ("c", 120);
  g_autofree char *expected = NULL;
  g_autofree char *rest = NULL;
  /* 120 segments and a patch 9 levels deep: the merged value has no room */
  const char *deep9 = "\"patch\":{\"1\":{\"2\":{\"3\":{\"4\":{\"5\":{\"6\":{\"7\":{\"8\":{\"9\":0}}}}}}}}}";
  struct { int id; const char *method, *path, *member, *why; } refused[] = {
    { 2, "world/set", p30k, "\"value\":1", TOO_MANY },
    { 3, "world/set", p400k, "\"value\":1", TOO_MANY },
    { 4, "world/merge", p30k, "\"patch\":{\"x\":1}", TOO_MANY },
    { 5, "world/get", p129, NULL, TOO_MANY },
    { 6, "world/remove", p129, NULL, TOO_MANY },
    { 7, "world/set", p127, "\"value\":{\"x\":{}}", TOO_DEEP },
    { 8, "world/merge", p120, deep9, TOO_DEEP },
  };

  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"world/create\",\"params\":{\"world\":\"w\"}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"world\":\"w\",\"version\":0}}");
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      send_world (client, refused[i].id, refused[i].method, refused[i].path, refused[i].member);
      g_clear_pointer (&expected, g_free);
      expected = world_error (refused[i].id, refused[i].path, refused[i].why);
      oam_expect (client, expected);
    }

  /* exactly 128 levels: a scalar 128 segments down, an object 127 down */
  send_world (client, 10, "world/set", p128, "\"value\":1");
  g_clear_pointer (&expected, g_free);
  expected = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":10,\"result\":{\"world\":\"w\",\"path\":\"%s\",\"version\":1}}", p128);
  oam_expect (client, expected);
  send_world (client, 11, "world/set", p127, "\"value\":{\"x\":1}");
  g_clear_pointer (&expected, g_free);
  expected = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":11,\"result\":{\"world\":\"w\",\"path\":\"%s\",\"version\":2}}", p127);
  oam_expect (client, expected);
  send_world (client, 12, "world/get", p128, NULL);
  g_clear_pointer (&expected, g_free);
  expected = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":12,\"result\":{\"world\":\"w\",\"path\":\"%s\",\"value\":1,"
                              "\"exists\":true,\"version\":2}}", p128);
  oam_expect (client, expected);
  /* the whole 128-level state goes out and is dropped again */
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"world/delete\",\"params\":{\"world\":\"w\"}}");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"id\":13,\"result\":{\"world\":\"w\",");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"ping\"}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":14,\"result\":{}}");
  g_assert_cmpint (oam_client_finish (client, &rest), ==, 0);
  g_assert_cmpstr (rest, ==, "");
}

/* The same limit when an NPC's model calls update_world_state with a deep
 * path: the model gets an error output, the world is unchanged, and the
 * turn (and the bridge) go on. */
static void
test_deep_world_path_from_model (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);
  g_autofree char *path = repeat_path ("a", 3000);
  g_autofree char *create = g_strdup_printf (
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"npc/create\",\"params\":{\"npc\":\"gorm\",\"persona\":{\"name\":\"Gorm\"},"
    "\"world\":\"w\",\"options\":{\"worldWritable\":[\"\"],\"replyFormat\":\"text\"}," OAM_SCRIPT ("[{\"toolCalls\":"
    "[{\"name\":\"update_world_state\",\"arguments\":{\"path\":\"%s\",\"value\":\"1\"},\"id\":\"u1\"}]},"
    "{\"text\":\"[happy] Done.\"}]") "}}", path);
  g_autofree char *answer = g_strdup_printf (
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"npc\":\"gorm\",\"line\":\"Done.\",\"emotion\":\"happy\",\"playerOptions\":[],"
    "\"endsConversation\":false,\"toolCalls\":[{\"call\":{\"id\":\"u1\",\"name\":\"update_world_state\",\"arguments\":"
    "{\"path\":\"%s\",\"value\":\"1\"}},\"output\":\"Cannot set '%s': " TOO_MANY "\",\"isError\":true,"
    "\"durationSeconds\":0}],\"relationship\":0,\"isFallback\":false,\"usage\":{\"inputTokens\":3323,"
    "\"cachedInputTokens\":0,\"outputTokens\":1523,\"totalTokens\":4846}}}", path, path);

  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"world/create\",\"params\":{\"world\":\"w\"}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"world\":\"w\",\"version\":0}}");
  oam_send (client, create);
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"npc\":\"gorm\",\"tools\":"
                      "[\"read_world_state\",\"update_world_state\"],\"warnings\":[]}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"npc/talk\",\"params\":{\"npc\":\"gorm\",\"line\":\"x\"}}");
  oam_expect (client, answer);
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"world/get\",\"params\":{\"world\":\"w\"}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"world\":\"w\",\"path\":\"\",\"value\":{},"
                      "\"exists\":true,\"version\":0}}");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/oam/conformance/neither-request-nor-response", test_neither_request_nor_response);
  g_test_add_func ("/oam/conformance/id-judged-alone", test_id_judged_alone);
  g_test_add_func ("/oam/conformance/response-with-big-integer", test_response_with_big_integer);
  g_test_add_func ("/oam/conformance/tool-choice-unknown-tool", test_tool_choice_unknown_tool);
  g_test_add_func ("/oam/conformance/npc-reply-rules", test_npc_reply_rules);
  g_test_add_func ("/oam/conformance/deep-world-paths", test_deep_world_paths);
  g_test_add_func ("/oam/conformance/deep-world-path-from-model", test_deep_world_path_from_model);
  return g_test_run ();
}
