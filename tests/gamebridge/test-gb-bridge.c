/* test-gb-bridge.c: `gamegate mcp` over real pipes against the reference
 * game: the handshake, every tool, toolsets, two instances side by side, the
 * manifest file, listing instances, registry discovery, the daemon, hostile
 * tool arguments.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-bridge-test.h"

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
  g_autofree char *unknown = NULL, *bad_path = NULL, *bad_set_score = NULL, *bad_port = NULL;
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
  /* The path the arguments fail at, named once. */
  g_assert_cmpstr (bad_set_score, ==, "BridgeUsageError: Bad arguments for 'set_score' at #/score: must be integer");
  bad_port = mcp_call_error (mcp, "call_tool", "{\"name\":\"health\",\"port\":\"x\"}");
  g_assert_cmpstr (bad_port, ==, "BridgeUsageError: Bad arguments for 'call_tool' at #/port: must be integer");

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
  /* get_state, raw_command, wait_for, health, close and screenshot. */
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (bridge, "tools")), ==, 6);
  g_assert_cmpstr (str (sets, "screenshot"), ==, "available");
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
  {
    /* Games other tests run on the same port range may be live too; the
     * one launched here is listed as its own, once. */
    JsonArray *live = json_object_get_array_member (
      json_object_get_object_member (json_object_get_object_member (listed, "result"), "structuredContent"), "live");
    guint own = 0;

    for (guint i = 0; i < json_array_get_length (live); i++)
      {
        JsonObject *instance = json_array_get_object_element (live, i);

        if (json_object_get_boolean_member_with_default (instance, "launchedByThisBridge", FALSE))
          {
            g_assert_cmpint (json_object_get_int_member (instance, "pid"), ==, pid);
            own++;
          }
      }
    g_assert_cmpuint (own, ==, 1);
  }

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
  g_test_add_func ("/gamebridge/mcp/manifest-file", test_manifest_file);
  g_test_add_func ("/gamebridge/mcp/close", test_close);
  g_test_add_func ("/gamebridge/discovery/list-instances", test_list_instances);
  g_test_add_func ("/gamebridge/discovery/registry", test_registry_discovery);
  g_test_add_func ("/gamebridge/mcp/hostile-arguments", test_hostile_arguments);
  g_test_add_func ("/gamebridge/daemon/http-and-sigterm", test_daemon);
  return g_test_run ();
}
