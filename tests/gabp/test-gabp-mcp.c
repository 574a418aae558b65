/* test-gabp-mcp.c: GABP and MCP through one gamegate.
 *
 * An MCP agent (`gamegate mcp` over pipes) sees the reference mod gamegate
 * launched from its configuration: as an instance, with its tools callable
 * through call_tool, and its events both as `notifications/message` and
 * through the mod's `gamegate/events` tool. And a GABP bridge (the raw test
 * peer) drives a reference-game HTTP instance through `gamegate serve`'s
 * mod-side server.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "gabp-test-util.h"
#include "gb-mcp-client.h"
#include "gg-gabp-launcher.h"
#include "gg-test-util.h"
#include "refgame-driver.h"

#define MOD_EXE GG_TOP_BUILDDIR "/tests/gabp-mod/gabp-mod"

static char *
write_config (const char *dir,
              const char *text)
{
  char *path = g_build_filename (dir, "gamegate.conf", NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
  return path;
}

static JsonObject *
find_live (JsonObject *listed,
           const char *instance)
{
  JsonArray *live = json_object_get_array_member (listed, "live");

  for (guint i = 0; i < json_array_get_length (live); i++)
    {
      JsonObject *o = json_array_get_object_element (live, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (o, "instance", NULL), instance) == 0)
        return o;
    }
  return NULL;
}

static gboolean
toolsets_have (JsonObject *sets,
               const char *tool)
{
  JsonArray *list = json_object_get_array_member (sets, "toolsets");

  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonArray *tools = json_object_get_array_member (json_array_get_object_element (list, i), "tools");

      for (guint j = 0; j < json_array_get_length (tools); j++)
        if (g_str_equal (json_object_get_string_member (json_array_get_object_element (tools, j), "name"), tool))
          return TRUE;
    }
  return FALSE;
}

/* The next log message about a world/tick event of gabp:ref. */
static JsonObject *
next_tick_log (Mcp *mcp)
{
  for (;;)
    {
      g_autoptr(JsonObject) log = mcp_next_log (mcp, 10000);
      JsonObject *data;

      g_assert_nonnull (log);
      if (g_strcmp0 (json_object_get_string_member_with_default (log, "logger", NULL), "gamegate/gabp:ref") != 0)
        continue;
      data = json_object_get_object_member (log, "data");
      if (g_strcmp0 (json_object_get_string_member_with_default (data, "channel", NULL), "world/tick") != 0)
        continue;
      g_assert_cmpstr (json_object_get_string_member (log, "level"), ==, "info");
      return json_object_ref (data);
    }
}

static void
test_agent (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gg-gabp-mcp-XXXXXX", NULL);
  g_autofree char *text = g_strdup_printf ("[gabp]\nmods=ref\nserver=false\nbridge-file=\n"
                                           "ref.command=%s\nref.backoff-initial-ms=20\nref.backoff-max-ms=200\n",
                                           MOD_EXE);
  g_autofree char *conf = write_config (dir, text);
  g_autofree char *conf_env = g_strdup_printf ("GAMEGATE_CONFIG=%s", conf);
  const char *args[] = { "--no-scan", NULL };
  const char *env[] = { conf_env, NULL };
  g_autoptr(Mcp) mcp = mcp_start (args, env);
  g_autoptr(JsonObject) sets = NULL;
  g_autoptr(JsonObject) moved = NULL;
  g_autoptr(JsonObject) ticks = NULL;
  g_autoptr(JsonObject) first = NULL;
  g_autoptr(JsonObject) second = NULL;
  g_autoptr(JsonObject) recent = NULL;
  g_autoptr(JsonObject) later = NULL;
  g_autoptr(JsonObject) third = NULL;
  g_autoptr(JsonObject) fourth = NULL;
  g_autoptr(JsonObject) quiet = NULL;
  g_autoptr(JsonObject) loud = NULL;
  g_autofree char *position = NULL;
  g_autofree char *since = NULL;
  JsonObject *result;
  JsonArray *events;
  gint64 deadline;
  gboolean found = FALSE;

  /* The game starts and connects in the background. */
  deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (15000) * 1000;
  while (!found && g_get_monotonic_time () < deadline)
    {
      g_autoptr(JsonObject) listed = mcp_call_ok (mcp, "list_instances", "{}");
      JsonObject *ref = find_live (listed, "gabp:ref");

      found = ref != NULL && g_strcmp0 (json_object_get_string_member_with_default (ref, "kind", NULL), "gabp") == 0 &&
              g_strcmp0 (json_object_get_string_member_with_default (ref, "status", NULL), "ready") == 0;
      if (!found)
        gg_test_spin (100);
    }
  g_assert_true (found);

  /* Its tools, listed (the mod's own and the events tool) and called. */
  deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (10000) * 1000;
  do
    {
      g_clear_pointer (&sets, json_object_unref);
      sets = mcp_call_ok (mcp, "list_toolsets", "{\"instance\":\"gabp:ref\"}");
      if (!toolsets_have (sets, "player/move"))
        gg_test_spin (100);
    }
  while (!toolsets_have (sets, "player/move") && g_get_monotonic_time () < deadline);
  g_assert_true (toolsets_have (sets, "player/move"));
  g_assert_true (toolsets_have (sets, "gamegate/events"));

  moved = mcp_call_ok (mcp, "call_tool",
                       "{\"instance\":\"gabp:ref\",\"name\":\"player/move\",\"arguments\":{\"x\":4,\"y\":5}}");
  g_assert_cmpstr (json_object_get_string_member (moved, "instance"), ==, "gabp:ref");
  position = json_to_string (json_object_get_member (moved, "result"), FALSE);
  g_assert_cmpstr (position, ==, "{\"position\":{\"x\":4,\"y\":5}}");

  /* Raised in the mod: two ticks, seen as log messages in order. */
  ticks = mcp_call_ok (mcp, "call_tool",
                       "{\"instance\":\"gabp:ref\",\"name\":\"world/emit_ticks\",\"arguments\":{\"count\":2}}");
  first = next_tick_log (mcp);
  second = next_tick_log (mcp);
  g_assert_cmpstr (json_object_get_string_member (first, "instance"), ==, "gabp:ref");
  g_assert_cmpint (json_object_get_int_member (second, "seq"), ==, json_object_get_int_member (first, "seq") + 1);
  g_assert_true (json_object_has_member (first, "payload"));

  /* And through the events tool, since a cursor. */
  recent = mcp_call_ok (mcp, "call_tool", "{\"instance\":\"gabp:ref\",\"name\":\"gamegate/events\","
                                          "\"arguments\":{\"channel\":\"world/tick\"}}");
  result = json_object_get_object_member (recent, "result");
  events = json_object_get_array_member (result, "events");
  g_assert_cmpuint (json_array_get_length (events), ==, 2);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (events, 1), "seq"), ==,
                   json_object_get_int_member (second, "seq"));

  since = g_strdup_printf ("{\"instance\":\"gabp:ref\",\"name\":\"gamegate/events\","
                           "\"arguments\":{\"since\":%" G_GINT64_FORMAT "}}",
                           json_object_get_int_member (result, "next"));
  g_clear_pointer (&ticks, json_object_unref);
  ticks = mcp_call_ok (mcp, "call_tool",
                       "{\"instance\":\"gabp:ref\",\"name\":\"world/emit_ticks\",\"arguments\":{\"count\":1}}");
  later = mcp_call_ok (mcp, "call_tool", since);
  events = json_object_get_array_member (json_object_get_object_member (later, "result"), "events");
  g_assert_cmpuint (json_array_get_length (events), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (events, 0), "channel"), ==,
                   "world/tick");
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (events, 0), "seq"), ==,
                   json_object_get_int_member (second, "seq") + 1);

  /* The client's logging level applies: a tick while at "warning" is not
   * logged, though the events tool keeps it. */
  third = next_tick_log (mcp);
  g_assert_cmpint (json_object_get_int_member (third, "seq"), ==, json_object_get_int_member (second, "seq") + 1);
  quiet = mcp_request (mcp, "logging/setLevel", "{\"level\":\"warning\"}");
  g_assert_true (json_object_has_member (quiet, "result"));
  g_clear_pointer (&ticks, json_object_unref);
  ticks = mcp_call_ok (mcp, "call_tool",
                       "{\"instance\":\"gabp:ref\",\"name\":\"world/emit_ticks\",\"arguments\":{\"count\":1}}");
  loud = mcp_request (mcp, "logging/setLevel", "{\"level\":\"info\"}");
  g_assert_true (json_object_has_member (loud, "result"));
  g_clear_pointer (&ticks, json_object_unref);
  ticks = mcp_call_ok (mcp, "call_tool",
                       "{\"instance\":\"gabp:ref\",\"name\":\"world/emit_ticks\",\"arguments\":{\"count\":1}}");
  fourth = next_tick_log (mcp);
  g_assert_cmpint (json_object_get_int_member (fourth, "seq"), ==, json_object_get_int_member (second, "seq") + 3);

  g_clear_pointer (&mcp, mcp_free);
  g_remove (conf);
  g_rmdir (dir);
}

static JsonObject *
request (TestPeer   *peer,
         const char *method,
         const char *params)
{
  g_autofree char *id = test_peer_request (peer, method, params);
  return test_peer_wait_response (peer, id);
}

static gboolean
has_tool (JsonObject *response,
          const char *name)
{
  JsonArray *tools;

  if (response == NULL || !json_object_has_member (response, "result"))
    return FALSE;
  tools = json_object_get_array_member (json_object_get_object_member (response, "result"), "tools");
  for (guint i = 0; i < json_array_get_length (tools); i++)
    if (g_str_equal (json_object_get_string_member (json_array_get_object_element (tools, i), "name"), name))
      return TRUE;
  return FALSE;
}

static void
test_bridge_drives_http_game (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autofree char *dir = g_dir_make_tmp ("gg-gabp-mcp-XXXXXX", NULL);
  g_autoptr(GError) error = NULL;
  guint16 port = gg_loopback_port_pick_free (&error);
  g_autofree char *text = g_strdup_printf ("[gamebridge]\nhttp-port=0\nports=%u\n"
                                           "[gabp]\nserver-port=%u\nserver-token=%s\nbridge-file=\n",
                                           game->port, port, TEST_TOKEN2);
  g_autofree char *conf = write_config (dir, text);
  g_autofree char *registry_env = g_strdup_printf ("GAME_BRIDGE_INSTANCES=%s", dir);
  g_autofree char *spawn_name = g_strdup_printf ("http-%u/spawn", game->port);
  g_autofree char *spawn_call = g_strdup_printf ("{\"name\":\"%s\",\"arguments\":{\"kind\":\"ice\"}}", spawn_name);
  const char *args[] = { "--config", conf, "serve", NULL };
  const char *env[] = { registry_env, "GAME_BRIDGE_PORT", "GABP_TOKEN", "GABP_SERVER_PORT", NULL };
  g_autoptr(GgTestProcess) process = NULL;
  g_autoptr(JsonObject) welcome = NULL;
  g_autoptr(JsonObject) spawned = NULL;
  g_autoptr(JsonObject) state = NULL;
  gboolean listed = FALSE;
  gint64 deadline;
  TestPeer *peer;
  int status = -1;

  g_assert_no_error (error);
  process = gg_test_process_spawn (args, env, &error);
  g_assert_no_error (error);
  peer = test_peer_connect_with_retry (port, gg_test_timeout_ms (10000));
  g_assert_nonnull (peer);
  welcome = test_peer_hello (peer, TEST_TOKEN2);
  g_assert_cmpint (test_response_error_code (welcome), ==, 0);

  /* The game's manifest tools, under their GABP names. */
  deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (10000) * 1000;
  while (!listed && g_get_monotonic_time () < deadline)
    {
      g_autoptr(JsonObject) list = request (peer, "tools/list", NULL);

      listed = has_tool (list, spawn_name);
      if (!listed)
        gg_test_spin (50);
    }
  g_assert_true (listed);

  spawned = request (peer, "tools/call", spawn_call);
  g_assert_cmpint (test_response_error_code (spawned), ==, 0);

  /* Applied in the game: its own /state shows the command and the crate. */
  state = get_object (game, "/state", 200);
  g_assert_true (has_event (state, "spawn:ice"));
  test_peer_free (peer);

  gg_test_process_send_signal (process, SIGTERM);
  g_assert_true (gg_test_process_wait (process, gg_test_timeout_ms (10000), &status));
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpuint (gg_test_process_count_in_stderr (process, TEST_TOKEN2), ==, 0);
  g_remove (conf);
  g_rmdir (dir);
}

/* A broken `[gamebridge] ports` stops gamegate with a configuration error. */
static void
test_bad_ports (void)
{
  const char *specs[] = { "7777-", "0", "abc", "8000-7000", "1-65535", "7777,,7778" };

  for (gsize i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      g_autofree char *dir = g_dir_make_tmp ("gg-gabp-mcp-XXXXXX", NULL);
      g_autofree char *text = g_strdup_printf ("[gamebridge]\nports=%s\n[gabp]\nserver=false\n", specs[i]);
      g_autofree char *conf = write_config (dir, text);
      const char *args[] = { "--config", conf, "serve", NULL };
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      int status = gg_test_run (args, NULL, NULL, &out, &err);

      g_assert_cmpint (status, ==, 2);
      g_assert_nonnull (strstr (err, "ports"));
      g_remove (conf);
      g_rmdir (dir);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gabp/mcp/agent", test_agent);
  g_test_add_func ("/gabp/mcp/bridge-drives-http-game", test_bridge_drives_http_game);
  g_test_add_func ("/gabp/mcp/bad-ports", test_bad_ports);
  return g_test_run ();
}
