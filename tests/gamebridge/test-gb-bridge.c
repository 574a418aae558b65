/* test-gb-bridge.c: `gamegate mcp` over real pipes against the reference
 * game: the handshake, every tool, two instances side by side, every failure
 * of spec section 5 made real, cleanup of launched games on stdin EOF and
 * SIGTERM (checked by pid), and hostile tool arguments.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "gb-mcp-client.h"
#include "refgame-driver.h"

#define LAUNCH_CONFIG GG_TOP_BUILDDIR "/tests/refgame/gamebridge.json"

static char *
port_args (guint port)
{
  return g_strdup_printf ("{\"port\":%u}", port);
}

static const char *
str (JsonObject *o,
     const char *member)
{
  return json_object_get_string_member (o, member);
}

/* ---- handshake and the tool list ------------------------------------------ */

static void
test_handshake (void)
{
  g_autoptr(Mcp) mcp = mcp_start (NULL, NULL);
  g_autoptr(JsonObject) list = mcp_request (mcp, "tools/list", NULL);
  JsonArray *tools = json_object_get_array_member (json_object_get_object_member (list, "result"), "tools");
  const char *expected[] = { "list_instances", "launch_instance", "stop_instance", "list_toolsets",
                             "describe_toolset", "call_tool", "instance_log" };
  g_autoptr(JsonObject) unknown = mcp_request (mcp, "tools/call", "{\"name\":\"no_such_tool\",\"arguments\":{}}");

  g_assert_cmpuint (json_array_get_length (tools), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      JsonObject *tool = json_array_get_object_element (tools, i);

      g_assert_cmpstr (str (tool, "name"), ==, expected[i]);
      g_assert_cmpstr (str (json_object_get_object_member (tool, "inputSchema"), "type"), ==, "object");
    }
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (unknown, "error"), "code"), ==, -32602);
}

/* ---- every tool against one game --------------------------------------------- */

static void
test_call_tool (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autofree char *port_s = g_strdup_printf ("%u", game->port);
  const char *args[] = { "--port", port_s, NULL };
  g_autoptr(Mcp) mcp = mcp_start (args, NULL);
  g_autoptr(JsonObject) spawn = mcp_call_ok (mcp, "call_tool", "{\"name\":\"spawn\",\"arguments\":{\"kind\":\"steel\"}}");
  g_autoptr(JsonObject) drop = NULL, restart = NULL, pass = NULL, state = NULL, score = NULL, wait = NULL;
  g_autoptr(JsonObject) health = NULL, raw = NULL, inner_port = NULL, waited_out = NULL;
  g_autofree char *unknown = NULL, *bad_path = NULL, *bad_set_score = NULL;
  g_autofree char *drop_args = NULL;

  /* Resolved through the manifest, confirmed by completedCommandId: the state after the command. */
  g_assert_cmpint (json_object_get_int_member (spawn, "port"), ==, game->port);
  g_assert_cmpstr (str (spawn, "tool"), ==, "spawn");
  g_assert_cmpstr (str (spawn, "via"), ==, "manifest");
  g_assert_cmpstr (str (spawn, "command"), ==, "spawn");
  g_assert_true (json_object_get_boolean_member (spawn, "applied"));
  g_assert_cmpint (json_object_get_int_member (spawn, "commandId"), ==, 1);
  g_assert_cmpstr (str (spawn, "confirmation"), ==, "completedCommandId");
  g_assert_cmpstr (str (spawn, "screen"), ==, "GameScreen");
  g_assert_cmpstr (str (json_object_get_object_member (json_object_get_object_member (spawn, "game"), "held"), "kind"),
                   ==, "steel");
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (spawn, "events"), 0), ==, "spawn:steel");

  drop_args = g_strdup_printf ("{\"name\":\"drop\",\"port\":%u,\"arguments\":{\"x\":0.5,\"settle\":true}}", game->port);
  drop = mcp_call_ok (mcp, "call_tool", drop_args);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (drop, "game"), "dropped"), ==, 1);

  /* A manifest tool whose command differs from its name. */
  restart = mcp_call_ok (mcp, "call_tool", "{\"name\":\"new_game\"}");
  g_assert_cmpstr (str (restart, "via"), ==, "manifest");
  g_assert_cmpstr (str (restart, "command"), ==, "restart");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (restart, "game"), "dropped"), ==, 0);

  /* A command the manifest lacks still works, as passthrough. */
  pass = mcp_call_ok (mcp, "call_tool", "{\"name\":\"set_seed\",\"arguments\":{\"seed\":42}}");
  g_assert_cmpstr (str (pass, "via"), ==, "passthrough");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (pass, "game"), "seed"), ==, 42);

  /* The port may sit inside arguments, too. */
  inner_port = mcp_call_ok (mcp, "call_tool", (drop_args = (g_free (drop_args),
    g_strdup_printf ("{\"name\":\"set_score\",\"arguments\":{\"score\":77,\"port\":%u}}", game->port))));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (inner_port, "game"), "score"), ==, 77);
  bad_set_score = mcp_call_error (mcp, "call_tool", "{\"name\":\"set_score\",\"arguments\":{\"score\":\"lots\"}}");
  g_assert_true (g_str_has_prefix (bad_set_score, "BridgeUsageError: Bad arguments for 'set_score'"));

  /* The bridge toolset. */
  state = mcp_call_ok (mcp, "call_tool", "{\"name\":\"get_state\"}");
  g_assert_cmpstr (str (state, "via"), ==, "bridge");
  g_assert_true (json_object_has_member (json_object_get_object_member (state, "state"), "completedCommandId"));
  score = mcp_call_ok (mcp, "call_tool", "{\"name\":\"get_state\",\"arguments\":{\"path\":\"game.score\"}}");
  g_assert_cmpint (json_object_get_int_member (score, "value"), ==, 77);
  wait = mcp_call_ok (mcp, "call_tool", "{\"name\":\"wait_for\",\"arguments\":{\"path\":\"game.seed\",\"equals\":42}}");
  g_assert_true (json_object_get_boolean_member (wait, "matched"));
  g_assert_cmpint (json_object_get_int_member (wait, "value"), ==, 42);
  g_assert_true (json_object_has_member (wait, "waitedMs"));
  waited_out = mcp_call_ok (mcp, "call_tool",
                            "{\"name\":\"wait_for\",\"arguments\":{\"path\":\"game.seed\",\"equals\":7,\"timeoutMs\":100}}");
  g_assert_false (json_object_get_boolean_member (waited_out, "matched"));
  health = mcp_call_ok (mcp, "call_tool", "{\"name\":\"health\"}");
  g_assert_true (json_object_get_boolean_member (health, "ok"));
  raw = mcp_call_ok (mcp, "call_tool", "{\"name\":\"raw_command\",\"arguments\":{\"cmd\":\"set_score\",\"score\":5}}");
  g_assert_cmpstr (str (raw, "command"), ==, "set_score");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (raw, "game"), "score"), ==, 5);

  /* "Unknown" from the game lists what it accepts. */
  unknown = mcp_call_error (mcp, "call_tool", "{\"name\":\"fly_to_moon\"}");
  g_assert_true (g_str_has_prefix (unknown, "BridgeUsageError: The game on port"));
  g_assert_nonnull (strstr (unknown, "does not know the command 'fly_to_moon'. It accepts: [\"spawn\""));
  bad_path = mcp_call_error (mcp, "call_tool", "{\"name\":\"get_state\",\"arguments\":{\"path\":\"no.such.path\"}}");
  g_assert_true (g_str_has_prefix (bad_path, "BridgeUsageError: No value at path 'no.such.path'"));
}

static void
test_toolsets (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autoptr(Mcp) mcp = mcp_start (NULL, NULL);
  g_autofree char *args = port_args (game->port);
  g_autofree char *describe_args = g_strdup_printf ("{\"name\":\"play\",\"port\":%u}", game->port);
  g_autofree char *bridge_args = g_strdup_printf ("{\"name\":\"bridge\",\"port\":%u}", game->port);
  g_autofree char *bogus_args = g_strdup_printf ("{\"name\":\"bogus\",\"port\":%u}", game->port);
  g_autoptr(JsonObject) sets = mcp_call_ok (mcp, "list_toolsets", args);
  g_autoptr(JsonObject) play = mcp_call_ok (mcp, "describe_toolset", describe_args);
  g_autoptr(JsonObject) bridge = mcp_call_ok (mcp, "describe_toolset", bridge_args);
  g_autofree char *bogus = mcp_call_error (mcp, "describe_toolset", bogus_args);
  JsonArray *list = json_object_get_array_member (sets, "toolsets");
  JsonArray *tools = json_object_get_array_member (play, "tools");
  g_autofree char *drop = NULL;

  g_assert_cmpstr (str (sets, "game"), ==, "Crate Stacker");
  g_assert_cmpstr (str (sets, "manifest"), ==, "game");
  g_assert_cmpuint (json_array_get_length (list), ==, 4);
  g_assert_cmpstr (str (json_array_get_object_element (list, 0), "name"), ==, "play");
  g_assert_cmpstr (str (json_array_get_object_element (list, 1), "name"), ==, "debug");
  g_assert_cmpstr (str (json_array_get_object_element (list, 2), "name"), ==, "bridge");
  g_assert_cmpstr (str (json_array_get_object_element (list, 3), "name"), ==, "passthrough");
  for (guint i = 0; i < json_array_get_length (tools); i++)
    if (g_str_equal (str (json_array_get_object_element (tools, i), "name"), "drop"))
      drop = gg_json_object_to_string (json_array_get_object_element (tools, i));
  g_assert_cmpstr (drop, ==,
                   "{\"name\":\"drop\",\"description\":\"Release the held crate, aiming first if x is given.\","
                   "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\",\"description\":"
                   "\"World x, -2..2\"},\"settle\":{\"type\":\"boolean\",\"description\":\"Land at once instead of "
                   "falling over the next frames (default true)\"}}}}");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (bridge, "tools")), ==, 5);
  g_assert_true (g_str_has_prefix (bogus, "BridgeUsageError: No toolset 'bogus'"));
}

/* ---- two instances side by side ------------------------------------------------- */

static void
test_two_instances (void)
{
  g_autoptr(Game) a = game_spawn ("--no-registry", "--seed", "1", NULL);
  g_autoptr(Game) b = game_spawn ("--no-registry", "--seed", "2", NULL);
  g_autoptr(Mcp) mcp = mcp_start (NULL, NULL);
  g_autofree char *call_a = g_strdup_printf ("{\"name\":\"set_score\",\"port\":%u,\"arguments\":{\"score\":10}}", a->port);
  g_autofree char *call_b = g_strdup_printf ("{\"name\":\"set_score\",\"port\":%u,\"arguments\":{\"score\":20}}", b->port);
  g_autoptr(JsonObject) ra = mcp_call_ok (mcp, "call_tool", call_a);
  g_autoptr(JsonObject) rb = mcp_call_ok (mcp, "call_tool", call_b);
  g_autofree char *get_a = g_strdup_printf ("{\"name\":\"get_state\",\"port\":%u,\"arguments\":{\"path\":\"game\"}}", a->port);
  g_autoptr(JsonObject) sa = mcp_call_ok (mcp, "call_tool", get_a);

  g_assert_cmpint (json_object_get_int_member (ra, "port"), ==, a->port);
  g_assert_cmpint (json_object_get_int_member (rb, "port"), ==, b->port);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (ra, "game"), "score"), ==, 10);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (rb, "game"), "score"), ==, 20);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (sa, "value"), "seed"), ==, 1);
}

/* ---- failures of section 5 ----------------------------------------------------------- */

static void
test_game_offline (void)
{
  const char *args[] = { "--launch-hint", "make run PORT={port}", NULL };
  g_autoptr(Mcp) mcp = mcp_start (args, NULL);
  guint port = free_port ();
  g_autofree char *call = g_strdup_printf ("{\"name\":\"spawn\",\"port\":%u}", port);
  g_autofree char *text = mcp_call_error (mcp, "call_tool", call);
  g_autofree char *expected = g_strdup_printf ("GameOffline: No game is answering on http://127.0.0.1:%u.\n"
                                               "Start one with:\n  make run PORT=%u", port, port);

  g_assert_cmpstr (text, ==, expected);
}

static void
on_not_a_game (SoupServer        *server,
               SoupServerMessage *msg,
               const char        *path,
               GHashTable        *query,
               gpointer           user_data)
{
  soup_server_message_set_status (msg, 404, NULL);
  soup_server_message_set_response (msg, "text/html", SOUP_MEMORY_STATIC, "<h1>nope</h1>", 13);
}

static void
test_not_a_game (void)
{
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(Mcp) mcp = mcp_start (NULL, NULL);
  g_autoptr(GError) error = NULL;
  guint port = free_port ();
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, port);
  g_autofree char *call = port_args (port);
  g_autofree char *text = NULL, *expected = NULL;

  soup_server_add_handler (server, NULL, on_not_a_game, NULL, NULL);
  g_assert_true (soup_server_listen (server, address, 0, &error));
  g_assert_no_error (error);
  text = mcp_call_error (mcp, "list_toolsets", call);
  expected = g_strdup_printf ("NotAGameSurface: Something is listening on http://127.0.0.1:%u, but it is not a\n"
                              "debuggable game: GET /health returned HTTP 404.\n"
                              "A drivable game must answer GET /health with {\"ok\":true,\"frame\":N}. Check whether\n"
                              "another process has taken this port.", port);
  g_assert_cmpstr (text, ==, expected);
}

static void
test_frozen_game (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--freeze", NULL);
  /* Short, but long enough for a game under valgrind to answer HTTP. */
  guint timeout = gg_test_timeout_ms (700);
  g_autofree char *timeout_s = g_strdup_printf ("%u", timeout);
  const char *args[] = { "--timeout", timeout_s, NULL };
  g_autoptr(Mcp) mcp = mcp_start (args, NULL);
  g_autofree char *call = g_strdup_printf ("{\"name\":\"new_game\",\"port\":%u}", game->port);
  g_autofree char *text = mcp_call_error (mcp, "call_tool", call);
  g_autofree char *expected = g_strdup_printf ("CommandTimeout: Command 'restart' was queued on port %u but was not applied\n"
                                               "within %ums. The game accepted it, so it is probably blocked, frozen, or on a\n"
                                               "screen that ignores this command.", game->port, timeout);

  g_assert_cmpstr (text, ==, expected);
}

static void
test_frames_advanced (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--no-completed-id", NULL);
  g_autoptr(Mcp) mcp = mcp_start (NULL, NULL);
  g_autofree char *call = g_strdup_printf ("{\"name\":\"spawn\",\"port\":%u}", game->port);
  g_autoptr(JsonObject) r = mcp_call_ok (mcp, "call_tool", call);

  g_assert_cmpstr (str (r, "confirmation"), ==, "frames-advanced");
}

static void
test_crash_mid_call (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--crash-on", "drop", NULL);
  g_autoptr(Mcp) mcp = mcp_start (NULL, NULL);
  g_autofree char *call = g_strdup_printf ("{\"name\":\"drop\",\"port\":%u}", game->port);
  g_autofree char *text = mcp_call_error (mcp, "call_tool", call);

  g_assert_true (g_str_has_prefix (text, "GameOffline: No game is answering on http://127.0.0.1:"));
}

static void
test_relaunch_new_manifest (void)
{
  g_autoptr(Game) first = game_spawn ("--no-registry", NULL);
  guint port = first->port;
  g_autofree char *port_s = g_strdup_printf ("%u", port);
  g_autoptr(Mcp) mcp = mcp_start (NULL, NULL);
  g_autofree char *args = port_args (port);
  g_autoptr(JsonObject) before = mcp_call_ok (mcp, "list_toolsets", args);
  g_autoptr(JsonObject) after = NULL;
  g_autoptr(JsonObject) health = NULL;
  g_autoptr(Game) second = NULL;

  g_assert_cmpstr (str (before, "manifest"), ==, "game");
  pump (300);   /* the first process's frame runs ahead of the second's */
  health = mcp_call_ok (mcp, "list_toolsets", args);
  g_clear_pointer (&first, game_free);
  second = game_spawn ("--no-registry", "--no-tools", "--debug-port", port_s, NULL);
  after = mcp_call_ok (mcp, "list_toolsets", args);
  g_assert_cmpstr (str (after, "manifest"), ==, "fallback");
  g_assert_cmpstr (str (after, "status"), ==, "live-no-manifest");
  g_assert_true (g_str_has_prefix (str (after, "note"), "This game publishes no command list"));
}

static void
test_launch_fails (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gb-launch-XXXXXX", NULL);
  g_autofree char *decl = g_build_filename (dir, "gamebridge.json", NULL);
  g_autofree char *text = g_strdup_printf ("{\"name\":\"Broken\",\"launch\":{\"argv\":[\"%s\",\"--exit-code-at-start\",\"3\","
                                           "\"--debug-port\",\"{port}\"],\"portRange\":\"7850-7859\"}}", RG_REFGAME_EXE);
  const char *args[] = { "--launch-config", decl, NULL };
  g_autoptr(Mcp) mcp = NULL;
  g_autofree char *error = NULL;

  g_assert_true (g_file_set_contents (decl, text, -1, NULL));
  mcp = mcp_start (args, NULL);
  error = mcp_call_error (mcp, "launch_instance", "{}");
  g_assert_true (g_str_has_prefix (error, "BridgeUsageError: Launch failed on port 78"));
  g_assert_nonnull (strstr (error, ": the process exited with code 3.\nCommand: "));
  g_assert_nonnull (strstr (error, "--exit-code-at-start 3 --debug-port 78"));
  g_assert_nonnull (strstr (error, "\nWorking directory: "));
  g_assert_nonnull (strstr (error, "\nFull log: "));
  g_assert_nonnull (strstr (error, "\n\nLast output:\n"));
  g_assert_nonnull (strstr (error, "refgame: error: --exit-code-at-start 3: failing on purpose"));
  g_unlink (decl);
  g_rmdir (dir);
}


static void
on_half_game (SoupServer        *server,
              SoupServerMessage *msg,
              const char        *path,
              GHashTable        *query,
              gpointer           user_data)
{
  if (g_str_equal (path, "/health"))
    soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, "{\"ok\":true,\"frame\":1}", 21);
  else if (g_str_equal (path, "/tools"))
    soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_STATIC, "not json", 8);
  else
    {
      soup_server_message_set_status (msg, 500, NULL);
      soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_STATIC, "boom\xff", 5);
    }
  soup_server_message_set_status (msg, g_str_equal (path, "/health") || g_str_equal (path, "/tools") ? 200 : 500, NULL);
}

static void
test_http_status (void)
{
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(Mcp) mcp = mcp_start (NULL, NULL);
  g_autoptr(GError) error = NULL;
  guint port = free_port ();
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, port);
  g_autofree char *call = g_strdup_printf ("{\"name\":\"get_state\",\"port\":%u}", port);
  g_autofree char *sets_args = port_args (port);
  g_autofree char *text = NULL, *expected = NULL;
  g_autoptr(JsonObject) sets = NULL;

  soup_server_add_handler (server, NULL, on_half_game, NULL, NULL);
  g_assert_true (soup_server_listen (server, address, 0, &error));
  text = mcp_call_error (mcp, "call_tool", call);
  expected = g_strdup_printf ("HttpStatusError: GET /state on http://127.0.0.1:%u returned HTTP 500: boom\xef\xbf\xbd", port);
  g_assert_cmpstr (text, ==, expected);
  /* A /tools that is not JSON leaves the game on the fallback manifest. */
  sets = mcp_call_ok (mcp, "list_toolsets", sets_args);
  g_assert_cmpstr (str (sets, "manifest"), ==, "fallback");
}

static void
test_cancelled_call (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--freeze", NULL);
  const char *args[] = { "--timeout", "60000", NULL };
  g_autoptr(Mcp) mcp = mcp_start (args, NULL);
  g_autofree char *call = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":900,\"method\":\"tools/call\",\"params\":"
                                           "{\"name\":\"call_tool\",\"arguments\":{\"name\":\"spawn\",\"port\":%u}}}",
                                           game->port);
  g_autoptr(JsonObject) ping = NULL;
  gint64 t0;

  g_assert_true (gg_test_process_write_line (mcp->process, call, NULL));
  pump (200);
  g_assert_true (gg_test_process_write_line (mcp->process, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                                             "\"params\":{\"requestId\":900,\"reason\":\"test\"}}", NULL));
  /* No response to 900; the session goes on at once. */
  t0 = g_get_monotonic_time ();
  ping = mcp_request (mcp, "ping", NULL);
  g_assert_true (json_object_has_member (ping, "result"));
  g_assert_cmpint (g_get_monotonic_time () - t0, <, G_USEC_PER_SEC * 30);
}

static void
test_os_port_fallback (void)
{
  /* The declaration's whole range is taken: the system assigns a port. */
  g_autoptr(Game) taken = game_spawn ("--no-registry", NULL);
  g_autofree char *dir = g_dir_make_tmp ("gb-launch-XXXXXX", NULL);
  g_autofree char *decl = g_build_filename (dir, "gamebridge.json", NULL);
  g_autofree char *text = g_strdup_printf ("{\"name\":\"Crates\",\"launch\":{\"argv\":[\"%s\",\"--no-registry\","
                                           "\"--debug-port\",\"{port}\"],\"portRange\":\"%u-%u\",\"readyTimeoutMs\":%u}}",
                                           RG_REFGAME_EXE, taken->port, taken->port, gg_test_timeout_ms (20000));
  const char *args[] = { "--launch-config", decl, "--no-scan", NULL };
  g_autoptr(Mcp) mcp = NULL;
  g_autoptr(JsonObject) launched = NULL;
  g_autofree char *explicit_args = g_strdup_printf ("{\"port\":%u}", taken->port);
  g_autofree char *refused = NULL;

  g_assert_true (g_file_set_contents (decl, text, -1, NULL));
  mcp = mcp_start (args, NULL);
  launched = mcp_call_ok (mcp, "launch_instance", "{}");
  g_assert_cmpint (json_object_get_int_member (launched, "port"), !=, taken->port);
  g_assert_cmpint (json_object_get_int_member (launched, "port"), >, 0);
  refused = mcp_call_error (mcp, "launch_instance", explicit_args);
  g_assert_true (g_str_has_prefix (refused, "BridgeUsageError: Port "));
  g_assert_nonnull (strstr (refused, "is taken"));
  g_unlink (decl);
  g_rmdir (dir);
}


static void
test_manifest_file (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--no-tools", NULL);
  g_autofree char *dir = g_dir_make_tmp ("gb-manifest-XXXXXX", NULL);
  g_autofree char *file = g_build_filename (dir, "my-game.json", NULL);
  const char *args[] = { "--manifest", file, NULL };
  g_autoptr(Mcp) mcp = NULL;
  g_autofree char *sets_args = port_args (game->port);
  g_autofree char *call = g_strdup_printf ("{\"name\":\"fresh_start\",\"port\":%u}", game->port);
  g_autoptr(JsonObject) sets = NULL, r = NULL;

  g_assert_true (g_file_set_contents (file, "{\"game\":{\"name\":\"Crates (file)\"},\"toolsets\":{\"mine\":{\"tools\":"
                                      "[{\"name\":\"fresh_start\",\"command\":\"restart\"}]}}}", -1, NULL));
  mcp = mcp_start (args, NULL);
  sets = mcp_call_ok (mcp, "list_toolsets", sets_args);
  g_assert_cmpstr (str (sets, "manifest"), ==, "file");
  g_assert_cmpstr (str (sets, "game"), ==, "Crates (file)");
  r = mcp_call_ok (mcp, "call_tool", call);
  g_assert_cmpstr (str (r, "via"), ==, "manifest-file");
  g_assert_cmpstr (str (r, "command"), ==, "restart");
  g_unlink (file);
  g_rmdir (dir);
}


static void
test_close (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autoptr(Mcp) mcp = mcp_start (NULL, NULL);
  g_autofree char *call = g_strdup_printf ("{\"name\":\"close\",\"port\":%u}", game->port);
  g_autoptr(JsonObject) r = mcp_call_ok (mcp, "call_tool", call);

  /* Never a confirmation that cannot come: the port going silent is the answer. */
  g_assert_cmpstr (str (r, "via"), ==, "bridge");
  g_assert_cmpstr (str (r, "command"), ==, "close");
  g_assert_true (json_object_get_boolean_member (r, "applied"));
  g_assert_cmpstr (str (r, "confirmation"), ==, "port-silent");
  wait_exit (game);
  assert_port_silent (game);
}

/* ---- launching, stopping, cleanup ------------------------------------------------------- */

static gint64
launch (Mcp   *mcp,
        guint *out_port)
{
  g_autoptr(JsonObject) r = NULL;
  guint before = mcp->progress_seen;
  g_autoptr(JsonObject) response =
    mcp_request (mcp, "tools/call", "{\"name\":\"launch_instance\",\"arguments\":{},\"_meta\":{\"progressToken\":\"t\"}}");

  r = json_object_ref (json_object_get_object_member (json_object_get_object_member (response, "result"),
                                                      "structuredContent"));
  g_assert_cmpuint (mcp->progress_seen, >, before);
  g_assert_cmpstr (str (r, "name"), ==, "Crate Stacker");
  g_assert_cmpstr (str (r, "version"), ==, "0.1.0");
  g_assert_true (g_str_has_suffix (str (r, "cwd"), "/tests/refgame"));
  g_assert_true (json_object_has_member (r, "readyInMs"));
  g_assert_true (g_file_test (str (r, "logFile"), G_FILE_TEST_IS_REGULAR));
  *out_port = (guint) json_object_get_int_member (r, "port");
  return json_object_get_int_member (r, "pid");
}

static void
test_launch_stop_log (void)
{
  const char *args[] = { "--launch-config", LAUNCH_CONFIG, "--no-scan", NULL };
  g_autoptr(Mcp) mcp = mcp_start (args, NULL);
  g_autoptr(Game) foreign = game_spawn ("--no-registry", NULL);
  guint port;
  gint64 pid = launch (mcp, &port);
  g_autofree char *pargs = port_args (port);
  g_autoptr(JsonObject) log = mcp_call_ok (mcp, "instance_log", pargs);
  g_autofree char *call = g_strdup_printf ("{\"name\":\"spawn\",\"port\":%u}", port);
  g_autoptr(JsonObject) spawn = mcp_call_ok (mcp, "call_tool", call);
  g_autoptr(JsonObject) listed = mcp_call_ok (mcp, "list_instances", "{}");
  g_autoptr(JsonObject) stop = NULL;
  g_autofree char *foreign_args = port_args (foreign->port);
  g_autofree char *refused = mcp_call_error (mcp, "stop_instance", foreign_args);
  g_autofree char *no_log = mcp_call_error (mcp, "instance_log", foreign_args);
  g_autofree char *lines = NULL;
  JsonArray *live = json_object_get_array_member (listed, "live");

  g_assert_true (port >= 7820 && port <= 7839);
  lines = gg_json_object_to_string (log);
  g_assert_nonnull (strstr (lines, "refgame: listening on 127.0.0.1:"));
  g_assert_cmpstr (str (spawn, "via"), ==, "manifest");
  g_assert_cmpuint (json_array_get_length (live), ==, 1);
  g_assert_true (json_object_get_boolean_member (json_array_get_object_element (live, 0), "launchedByThisBridge"));
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (live, 0), "pid"), ==, pid);

  g_assert_true (g_str_has_prefix (refused, "BridgeUsageError: The instance on port"));
  g_assert_nonnull (strstr (refused, "was not launched by this bridge"));
  g_assert_true (g_str_has_prefix (no_log, "BridgeUsageError: No instance on port"));

  stop = mcp_call_ok (mcp, "stop_instance", pargs);
  g_assert_cmpint (json_object_get_int_member (stop, "port"), ==, port);
  g_assert_true (json_object_get_boolean_member (stop, "stopped"));
  g_assert_cmpstr (str (stop, "how"), ==, "closed cleanly");
  g_assert_false (pid_alive (pid));
  g_assert_false (foreign->exited);
}

static void
test_stop_escalates (void)
{
  /* A frozen game never applies close: the bridge terminates it. */
  g_autofree char *dir = g_dir_make_tmp ("gb-launch-XXXXXX", NULL);
  g_autofree char *decl = g_build_filename (dir, ".gamebridge.json", NULL);
  g_autofree char *text = g_strdup_printf ("{\"name\":\"Frozen\",\"launch\":{\"command\":\"exec '%s' --freeze --no-registry "
                                           "--debug-port {port}\",\"portRange\":\"7860-7869\",\"env\":{\"X\":\"1\"}}}",
                                           RG_REFGAME_EXE);
  const char *args[] = { "--launch-config", decl, "--no-scan", NULL };
  g_autoptr(Mcp) mcp = NULL;
  g_autoptr(JsonObject) launched = NULL, stop = NULL;
  g_autofree char *stop_args = NULL;
  gint64 pid;

  g_assert_true (g_file_set_contents (decl, text, -1, NULL));
  mcp = mcp_start (args, NULL);
  launched = mcp_call_ok (mcp, "launch_instance", "{}");
  pid = json_object_get_int_member (launched, "pid");
  stop_args = g_strdup_printf ("{\"port\":%" G_GINT64_FORMAT ",\"graceMs\":200}", json_object_get_int_member (launched, "port"));
  stop = mcp_call_ok (mcp, "stop_instance", stop_args);
  g_assert_true (json_object_get_boolean_member (stop, "stopped"));
  g_assert_cmpstr (str (stop, "how"), ==, "terminated after the clean close timed out");
  g_assert_false (pid_alive (pid));
  g_unlink (decl);
  g_rmdir (dir);
}

static void
test_cleanup (gconstpointer data)
{
  gboolean by_signal = GPOINTER_TO_INT (data);
  const char *args[] = { "--launch-config", LAUNCH_CONFIG, "--no-scan", NULL };
  g_autoptr(Mcp) mcp = mcp_start (args, NULL);
  guint port_a, port_b;
  gint64 a = launch (mcp, &port_a);
  gint64 b = launch (mcp, &port_b);
  int status;

  g_assert_cmpuint (port_a, !=, port_b);
  g_assert_true (pid_alive (a) && pid_alive (b));
  if (by_signal)
    gg_test_process_send_signal (mcp->process, SIGTERM);
  else
    gg_test_process_close_stdin (mcp->process);
  g_assert_true (gg_test_process_wait (mcp->process, gg_test_timeout_ms (20000), &status));
  g_assert_cmpint (status, ==, 0);
  g_assert_false (pid_alive (a));
  g_assert_false (pid_alive (b));
}

/* ---- discovery ------------------------------------------------------------------------------ */

static void
test_list_instances (void)
{
  g_autoptr(Game) scanned = game_spawn ("--no-registry", NULL);
  g_autoptr(Game) nameless = game_spawn ("--no-registry", "--no-tools", NULL);
  g_autofree char *range = g_strdup_printf ("%u,%u", scanned->port, nameless->port);
  const char *args[] = { "--scan-range", range, NULL };
  g_autoptr(Mcp) mcp = mcp_start (args, NULL);
  g_autofree char *stale = g_build_filename (mcp->registry_dir, "999999.json", NULL);
  g_autofree char *broken = g_build_filename (mcp->registry_dir, "1.json", NULL);
  g_autofree char *stale_text = g_strdup_printf ("{\"name\":\"Ghost\",\"port\":%u,\"pid\":999999,"
                                                 "\"started\":\"2026-01-01T00:00:00Z\"}", free_port ());
  g_autoptr(JsonObject) r = NULL;
  JsonArray *live;
  guint found = 0;

  g_assert_true (g_file_set_contents (stale, stale_text, -1, NULL));
  g_assert_true (g_file_set_contents (broken, "{\"port\":", -1, NULL));
  r = mcp_call_ok (mcp, "list_instances", "{}");
  g_assert_cmpstr (str (r, "registryDir"), ==, mcp->registry_dir);
  live = json_object_get_array_member (r, "live");
  g_assert_cmpuint (json_array_get_length (live), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *e = json_array_get_object_element (live, i);

      g_assert_cmpstr (str (e, "discovery"), ==, "scan");
      g_assert_false (json_object_get_boolean_member (e, "launchedByThisBridge"));
      g_assert_cmpstr (str (e, "screen"), ==, "GameScreen");
      if (json_object_get_int_member (e, "port") == scanned->port)
        {
          g_assert_cmpstr (str (e, "status"), ==, "live");
          g_assert_cmpstr (str (e, "manifest"), ==, "game");
          g_assert_cmpstr (str (e, "game"), ==, "Crate Stacker");
          found++;
        }
      else
        {
          g_assert_cmpstr (str (e, "status"), ==, "live-no-manifest");
          g_assert_cmpstr (str (e, "manifest"), ==, "fallback");
          found++;
        }
    }
  g_assert_cmpuint (found, ==, 2);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (r, "stale")), ==, 2);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (r, "free")), ==, 0);
  g_unlink (stale);
  g_unlink (broken);
}

static void
test_registry_discovery (void)
{
  g_autoptr(Mcp) mcp = NULL;
  const char *args[] = { "--no-scan", NULL };
  g_autoptr(Game) game = NULL;
  g_autoptr(JsonObject) r = NULL;
  JsonObject *e;
  g_autofree char *env_dir = NULL;
  const char *env[] = { NULL, NULL };

  /* The game registers itself where the bridge reads. */
  game = game_spawn ("--seed", "3", NULL);
  env_dir = g_strdup_printf ("GAME_BRIDGE_INSTANCES=%s", game->registry_dir);
  env[0] = env_dir;
  mcp = mcp_start (args, env);
  r = mcp_call_ok (mcp, "list_instances", "{}");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (r, "live")), ==, 1);
  e = json_array_get_object_element (json_object_get_array_member (r, "live"), 0);
  g_assert_cmpstr (str (e, "discovery"), ==, "registry");
  g_assert_cmpint (json_object_get_int_member (e, "port"), ==, game->port);
  g_assert_true (json_object_has_member (e, "pid"));
  g_assert_true (json_object_has_member (e, "cwd"));
  g_assert_cmpint (json_object_get_int_member (e, "protocol"), ==, 1);
}


/* ---- daemon mode: Streamable HTTP, and launched games reaped on SIGTERM ------------------- */

static JsonObject *
http_mcp (SoupSession *session,
          guint        port,
          char       **session_id,
          const char  *body)
{
  g_autofree char *uri = g_strdup_printf ("http://127.0.0.1:%u/mcp", port);
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", uri);
  g_autoptr(GBytes) request = g_bytes_new (body, strlen (body));
  g_autoptr(GBytes) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  const char *text, *data;
  gsize len;

  soup_message_set_request_body_from_bytes (msg, "application/json", request);
  soup_message_headers_replace (soup_message_get_request_headers (msg), "Accept", "application/json, text/event-stream");
  soup_message_headers_replace (soup_message_get_request_headers (msg), "MCP-Protocol-Version", "2025-11-25");
  if (*session_id != NULL)
    soup_message_headers_replace (soup_message_get_request_headers (msg), "Mcp-Session-Id", *session_id);
  reply = soup_session_send_and_read (session, msg, NULL, &error);
  g_assert_no_error (error);
  if (*session_id == NULL)
    *session_id = g_strdup (soup_message_headers_get_one (soup_message_get_response_headers (msg), "Mcp-Session-Id"));
  if (soup_message_get_status (msg) == 202)
    return NULL;
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  text = g_bytes_get_data (reply, &len);
  /* JSON, or an event stream whose last data line is the response. */
  data = g_strrstr_len (text, len, "data: ");
  if (data != NULL)
    {
      g_autofree char *line = g_strndup (data + 6, strcspn (data + 6, "\r\n"));

      root = gg_json_parse (line, -1, 256, &error);
    }
  else
    root = gg_json_parse (text, (gssize) len, 256, &error);
  g_assert_no_error (error);
  return json_object_ref (json_node_get_object (root));
}

static void
test_daemon (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gb-daemon-XXXXXX", NULL);
  g_autofree char *conf = g_build_filename (dir, "gamegate.conf", NULL);
  g_autofree char *conf_env = g_strdup_printf ("GAMEGATE_CONFIG=%s", conf);
  g_autofree char *decl_env = g_strdup_printf ("GAME_BRIDGE_CONFIG=%s", LAUNCH_CONFIG);
  g_autofree char *reg_env = g_strdup_printf ("GAME_BRIDGE_INSTANCES=%s", dir);
  const char *env[] = { conf_env, decl_env, reg_env, "GAME_BRIDGE_SCAN_RANGE=7820-7839", NULL };
  const char *args[] = { "serve", NULL };
  g_autoptr(GgTestProcess) daemon = NULL;
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) init = NULL, launched = NULL, listed = NULL, initialized = NULL;
  g_autofree char *session_id = NULL;
  const char *found;
  guint port = 0;
  gint64 pid;
  int status;

  soup_session_set_proxy_resolver (session, NULL);
  g_assert_true (g_file_set_contents (conf, "[gamebridge]\nhttp-port=0\n", -1, NULL));
  daemon = gg_test_process_spawn (args, env, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 400 && port == 0; i++)
    {
      pump (50);
      found = strstr (gg_test_process_get_stderr (daemon), "http://127.0.0.1:");
      if (found != NULL && strstr (found, "/mcp") != NULL)
        port = (guint) g_ascii_strtoull (found + strlen ("http://127.0.0.1:"), NULL, 10);
    }
  g_assert_cmpuint (port, >, 0);

  init = http_mcp (session, port, &session_id,
                   "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                   "\"capabilities\":{},\"clientInfo\":{\"name\":\"gb-test\",\"version\":\"1\"}}}");
  g_assert_nonnull (session_id);
  initialized = http_mcp (session, port, &session_id, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  launched = http_mcp (session, port, &session_id,
                       "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"launch_instance\",\"arguments\":{}}}");
  pid = json_object_get_int_member (json_object_get_object_member (json_object_get_object_member (launched, "result"),
                                                                   "structuredContent"), "pid");
  g_assert_true (pid > 0 && pid_alive (pid));
  listed = http_mcp (session, port, &session_id,
                     "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"list_instances\",\"arguments\":{}}}");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (
    json_object_get_object_member (json_object_get_object_member (listed, "result"), "structuredContent"), "live")), ==, 1);

  gg_test_process_send_signal (daemon, SIGTERM);
  g_assert_true (gg_test_process_wait (daemon, gg_test_timeout_ms (20000), &status));
  g_assert_cmpint (status, ==, 0);
  g_assert_false (pid_alive (pid));
  g_unlink (conf);
  g_rmdir (dir);
}

/* ---- hostile arguments ------------------------------------------------------------------------- */

static void
test_hostile_arguments (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autofree char *port_s = g_strdup_printf ("%u", game->port);
  const char *args[] = { "--port", port_s, NULL };
  g_autoptr(Mcp) mcp = mcp_start (args, NULL);
  const char *bad[][2] = {
    { "call_tool", "{}" },
    { "call_tool", "{\"name\":5}" },
    { "call_tool", "{\"name\":\"spawn\",\"port\":0}" },
    { "call_tool", "{\"name\":\"spawn\",\"port\":70000}" },
    { "call_tool", "{\"name\":\"spawn\",\"port\":\"7777\"}" },
    { "call_tool", "{\"name\":\"spawn\",\"arguments\":[1,2]}" },
    { "call_tool", "{\"name\":\"spawn\",\"extra\":1}" },
    { "call_tool", "{\"name\":\"raw_command\",\"arguments\":{\"cmd\":\"\"}}" },
    { "call_tool", "{\"name\":\"raw_command\",\"arguments\":{}}" },
    { "call_tool", "{\"name\":\"wait_for\",\"arguments\":{\"path\":\"a..b\"}}" },
    { "call_tool", "{\"name\":\"wait_for\",\"arguments\":{\"path\":\"a\",\"timeoutMs\":-5}}" },
    { "call_tool", "{\"name\":\"spawn\",\"instance\":\"gabp:nothing\"}" },
    { "call_tool", "{\"name\":\"spawn\",\"arguments\":{\"kind\":\"\\u0001\\n&cmd=close\"}}" },
    { "describe_toolset", "{}" },
    { "describe_toolset", "{\"name\":\"../../etc\"}" },
    { "stop_instance", "{\"port\":-1}" },
    { "instance_log", "{\"lines\":100000}" },
    { "launch_instance", "{\"port\":\"x\"}" },
    { "list_instances", "{\"surprise\":true}" },
  };
  g_autoptr(JsonObject) still = NULL;
  g_autofree char *long_name = g_strnfill (100000, 'x');
  g_autofree char *long_call = g_strdup_printf ("{\"name\":\"%s\"}", long_name);
  g_autofree char *long_error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *text = mcp_call_error (mcp, bad[i][0], bad[i][1]);

      g_test_message ("%s %s -> %s", bad[i][0], bad[i][1], text);
      g_assert_true (g_utf8_validate (text, -1, NULL));
    }
  long_error = mcp_call_error (mcp, "call_tool", long_call);
  g_assert_true (g_str_has_prefix (long_error, "BridgeUsageError: A command name must be 1..128"));
  /* The game and the bridge survived all of it. */
  still = mcp_call_ok (mcp, "call_tool", "{\"name\":\"health\"}");
  g_assert_true (json_object_get_boolean_member (still, "ok"));
  g_assert_false (game->exited);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gamebridge/mcp/handshake", test_handshake);
  g_test_add_func ("/gamebridge/mcp/call-tool", test_call_tool);
  g_test_add_func ("/gamebridge/mcp/toolsets", test_toolsets);
  g_test_add_func ("/gamebridge/mcp/two-instances", test_two_instances);
  g_test_add_func ("/gamebridge/failure/game-offline", test_game_offline);
  g_test_add_func ("/gamebridge/failure/not-a-game", test_not_a_game);
  g_test_add_func ("/gamebridge/failure/frozen", test_frozen_game);
  g_test_add_func ("/gamebridge/failure/frames-advanced", test_frames_advanced);
  g_test_add_func ("/gamebridge/failure/crash-mid-call", test_crash_mid_call);
  g_test_add_func ("/gamebridge/failure/relaunch-new-manifest", test_relaunch_new_manifest);
  g_test_add_func ("/gamebridge/failure/launch-fails", test_launch_fails);
  g_test_add_func ("/gamebridge/failure/http-status", test_http_status);
  g_test_add_func ("/gamebridge/mcp/manifest-file", test_manifest_file);
  g_test_add_func ("/gamebridge/mcp/close", test_close);
  g_test_add_func ("/gamebridge/mcp/cancelled-call", test_cancelled_call);
  g_test_add_func ("/gamebridge/launch/os-port-fallback", test_os_port_fallback);
  g_test_add_func ("/gamebridge/launch/stop-and-log", test_launch_stop_log);
  g_test_add_func ("/gamebridge/launch/stop-escalates", test_stop_escalates);
  g_test_add_data_func ("/gamebridge/launch/cleanup-on-eof", GINT_TO_POINTER (FALSE), test_cleanup);
  g_test_add_data_func ("/gamebridge/launch/cleanup-on-sigterm", GINT_TO_POINTER (TRUE), test_cleanup);
  g_test_add_func ("/gamebridge/discovery/list-instances", test_list_instances);
  g_test_add_func ("/gamebridge/discovery/registry", test_registry_discovery);
  g_test_add_func ("/gamebridge/mcp/hostile-arguments", test_hostile_arguments);
  g_test_add_func ("/gamebridge/daemon/http-and-sigterm", test_daemon);
  return g_test_run ();
}
