/* test-gb-resources.c: the resources of the built `gamegate mcp` as exact
 * JSON, against the reference game: resources/list for a game the bridge
 * knows but did not launch (state and screenshot, no log), after one that
 * says it has no screenshot; resources/templates/list; the errors of
 * resources/read and resources/subscribe (-32002 with the URI, -32602 for a
 * bad uri); resources/unsubscribe of what was never subscribed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-bridge-test.h"

static char *
result_json (Mcp        *mcp,
             const char *method,
             const char *params)
{
  g_autoptr(JsonObject) response = mcp_request (mcp, method, params);
  JsonNode *member = json_object_get_member (response, "result");

  if (member == NULL)
    member = json_object_get_member (response, "error");
  return gg_json_to_string (member);
}

static void
test_list (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autoptr(Game) blind = game_spawn ("--no-registry", "--no-screenshot", NULL);
  g_autoptr(Mcp) mcp = mcp_start ((const char *[]) { "--no-scan", NULL }, NULL);
  g_autofree char *args = port_args (game->port);
  g_autofree char *blind_args = port_args (blind->port);
  g_autoptr(JsonObject) sets = mcp_call_ok (mcp, "list_toolsets", args);
  g_autoptr(JsonObject) blind_sets = mcp_call_ok (mcp, "list_toolsets", blind_args);
  g_autofree char *listed = result_json (mcp, "resources/list", NULL);
  guint first = MIN (game->port, blind->port);
  g_autofree char *game_entries = g_strdup_printf (
    "{\"uri\":\"game://%u/state\",\"name\":\"Crate Stacker on port %u: state\",\"description\":\"The game's /state "
    "snapshot; subscribe to hear when its frame changes\",\"mimeType\":\"application/json\"},"
    "{\"uri\":\"game://%u/screenshot\",\"name\":\"Crate Stacker on port %u: screenshot\",\"description\":\"The "
    "game's current frame as it serves it; subscribe to hear when its frame changes\"}",
    game->port, game->port, game->port, game->port);
  g_autofree char *blind_entry = g_strdup_printf (
    "{\"uri\":\"game://%u/state\",\"name\":\"Crate Stacker on port %u: state\",\"description\":\"The game's /state "
    "snapshot; subscribe to hear when its frame changes\",\"mimeType\":\"application/json\"}",
    blind->port, blind->port);
  g_autofree char *expected = g_strdup_printf ("{\"resources\":[%s,%s]}",
                                               first == game->port ? game_entries : blind_entry,
                                               first == game->port ? blind_entry : game_entries);

  g_assert_cmpstr (str (blind_sets, "screenshot"), ==, "unavailable");
  g_assert_cmpstr (listed, ==, expected);
}

static void
test_templates_and_errors (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autoptr(Mcp) mcp = mcp_start ((const char *[]) { "--no-scan", NULL }, NULL);
  g_autofree char *templates = result_json (mcp, "resources/templates/list", "{}");
  g_autofree char *log_params = g_strdup_printf ("{\"uri\":\"game://%u/log\"}", game->port);
  g_autofree char *log = result_json (mcp, "resources/read", log_params);
  g_autofree char *log_expected = g_strdup_printf (
    "{\"code\":-32002,\"message\":\"Resource not found: game://%u/log (no instance on port %u was launched by this "
    "bridge, so it has no log here)\",\"data\":{\"uri\":\"game://%u/log\"}}", game->port, game->port, game->port);
  g_autofree char *bad = result_json (mcp, "resources/read", "{\"uri\":\"game://0/state\"}");
  g_autofree char *missing = result_json (mcp, "resources/subscribe", "{}");
  g_autofree char *subscribed = result_json (mcp, "resources/subscribe", log_params);
  g_autofree char *again = result_json (mcp, "resources/subscribe", log_params);
  g_autofree char *unsubscribed = result_json (mcp, "resources/unsubscribe", log_params);
  g_autofree char *never = result_json (mcp, "resources/unsubscribe", "{\"uri\":\"game://1/state\"}");
  g_autofree char *cursor = result_json (mcp, "resources/list", "{\"cursor\":\"abc\"}");

  g_assert_cmpstr (templates, ==,
                   "{\"resourceTemplates\":["
                   "{\"uriTemplate\":\"game://{port}/state\",\"name\":\"A game's state\",\"description\":\"GET /state "
                   "of the game on that port\",\"mimeType\":\"application/json\"},"
                   "{\"uriTemplate\":\"game://{port}/log\",\"name\":\"A launched instance's log\",\"description\":"
                   "\"The last lines of its output\",\"mimeType\":\"text/plain\"},"
                   "{\"uriTemplate\":\"game://{port}/screenshot\",\"name\":\"A game's frame\",\"description\":\"GET "
                   "/screenshot of the game on that port (PNG or JPEG)\"}]}");
  g_assert_cmpstr (log, ==, log_expected);
  g_assert_cmpstr (bad, ==, "{\"code\":-32002,\"message\":\"Resource not found: game://0/state (the resources are "
                            "game://PORT/state, game://PORT/log and game://PORT/screenshot)\",\"data\":{\"uri\":"
                            "\"game://0/state\"}}");
  g_assert_cmpstr (missing, ==, "{\"code\":-32602,\"message\":\"Invalid params: \\\"uri\\\" must be a string of "
                                "1..2048 bytes\"}");
  /* A log watched before its game is launched; twice is once. */
  g_assert_cmpstr (subscribed, ==, "{}");
  g_assert_cmpstr (again, ==, "{}");
  g_assert_cmpstr (unsubscribed, ==, "{}");
  g_assert_cmpstr (never, ==, "{}");
  g_assert_cmpstr (cursor, ==, "{\"code\":-32602,\"message\":\"Invalid params: unknown cursor\"}");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gamebridge/resources/list", test_list);
  g_test_add_func ("/gamebridge/resources/templates-and-errors", test_templates_and_errors);
  return g_test_run ();
}
