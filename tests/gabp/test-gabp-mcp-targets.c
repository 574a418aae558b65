/* test-gabp-mcp-targets.c: GABP mods as MCP targets, through `gamegate mcp`
 * over pipes and the reference mod:
 *  - a launched game's whole process group stops with gamegate (a process
 *    the game forked does not outlive it);
 *  - the bridge toolset (get_state with its path, wait_for, health) works on
 *    a GABP instance and list_toolsets shows it;
 *  - a mod that refuses gamegate's token is reported as status "error" with
 *    the reason, in list_instances and in a call's error, and the bridge
 *    recovers through its backoff once the mod takes the token.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "gabp-test-util.h"
#include "gb-mcp-client.h"
#include "gg-test-util.h"

#define MOD_EXE GG_TOP_BUILDDIR "/tests/gabp-mod/gabp-mod"

/* Alive and not a zombie waiting for a parent that is gone. */
static gboolean
process_running (gint64 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%" G_GINT64_FORMAT "/stat", pid);
  g_autofree char *stat = NULL;
  const char *close_paren;

  if (kill ((pid_t) pid, 0) != 0 || !g_file_get_contents (path, &stat, NULL, NULL))
    return FALSE;
  close_paren = strrchr (stat, ')');
  return close_paren == NULL || strlen (close_paren) < 3 || close_paren[2] != 'Z';
}

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

static Mcp *
start_with_config (const char *conf)
{
  g_autofree char *conf_env = g_strdup_printf ("GAMEGATE_CONFIG=%s", conf);
  const char *args[] = { "--no-scan", NULL };
  const char *env[] = { conf_env, NULL };

  return mcp_start (args, env);
}

/* The live entry of @instance, once its status is @status. */
static JsonObject *
wait_for_status (Mcp        *mcp,
                 const char *instance,
                 const char *status)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (15000) * 1000;

  while (g_get_monotonic_time () < deadline)
    {
      g_autoptr(JsonObject) listed = mcp_call_ok (mcp, "list_instances", "{}");
      JsonArray *live = json_object_get_array_member (listed, "live");

      for (guint i = 0; i < json_array_get_length (live); i++)
        {
          JsonObject *o = json_array_get_object_element (live, i);

          if (g_strcmp0 (json_object_get_string_member_with_default (o, "instance", NULL), instance) == 0 &&
              g_strcmp0 (json_object_get_string_member_with_default (o, "status", NULL), status) == 0)
            return json_object_ref (o);
        }
      gg_test_spin (50);
    }
  g_error ("%s never reached status %s", instance, status);
  return NULL;
}

static char *
to_json (JsonObject *o)
{
  return gg_json_object_to_string (o);
}

/* A call's structuredContent, compact, with @drop (a timing) taken out. */
static char *
call_json (Mcp        *mcp,
           const char *arguments,
           const char *drop)
{
  g_autoptr(JsonObject) r = mcp_call_ok (mcp, "call_tool", arguments);

  if (drop != NULL)
    {
      g_assert_true (json_object_has_member (r, drop));
      json_object_remove_member (r, drop);
    }
  return to_json (r);
}

/* ---- the process group ---------------------------------------------------- */

static void
test_stop_takes_forked_child (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gg-gabp-targets-XXXXXX", NULL);
  g_autofree char *pid_file = g_build_filename (dir, "child.pid", NULL);
  g_autofree char *text = g_strdup_printf ("[gabp]\nmods=ref\nserver=false\nbridge-file=\n"
                                           "ref.command=/bin/sh -c 'sleep 300 & echo $! > %s; exec %s'\n",
                                           pid_file, MOD_EXE);
  g_autofree char *conf = write_config (dir, text);
  g_autoptr(Mcp) mcp = start_with_config (conf);
  g_autoptr(JsonObject) ready = wait_for_status (mcp, "gabp:ref", "ready");
  g_autofree char *contents = NULL;
  gint64 child;
  gint64 deadline;

  g_assert_true (g_file_get_contents (pid_file, &contents, NULL, NULL));
  child = g_ascii_strtoll (contents, NULL, 10);
  g_assert_cmpint (child, >, 0);
  g_assert_true (process_running (child));

  /* stdin closed: gamegate stops the game it launched, group and all. */
  g_clear_pointer (&mcp, mcp_free);
  deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (5000) * 1000;
  while (process_running (child) && g_get_monotonic_time () < deadline)
    gg_test_spin (20);
  g_assert_false (process_running (child));
  g_remove (pid_file);
  g_remove (conf);
  g_rmdir (dir);
}

/* ---- the bridge toolset on a GABP instance ---------------------------------- */

static void
test_bridge_toolset (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gg-gabp-targets-XXXXXX", NULL);
  g_autofree char *text = g_strdup_printf ("[gabp]\nmods=ref\nserver=false\nbridge-file=\nref.command=%s\n", MOD_EXE);
  g_autofree char *conf = write_config (dir, text);
  g_autoptr(Mcp) mcp = start_with_config (conf);
  g_autoptr(JsonObject) ready = wait_for_status (mcp, "gabp:ref", "ready");
  g_autoptr(JsonObject) sets = NULL;
  g_autoptr(JsonObject) moved = NULL;
  g_autoptr(JsonObject) ticked = NULL;
  g_autoptr(JsonObject) described = NULL;
  g_autofree char *state = NULL;
  g_autofree char *x = NULL;
  g_autofree char *waited = NULL;
  g_autofree char *timed_out = NULL;
  g_autofree char *health = NULL;
  g_autofree char *raw = NULL;
  g_autofree char *missing = NULL;
  g_autofree char *close = NULL;
  g_autofree char *bad = NULL;
  g_autofree char *ghost = NULL;
  JsonArray *list;
  JsonArray *tools = NULL;

  /* list_toolsets shows the bridge toolset beside the mod's own. */
  sets = mcp_call_ok (mcp, "list_toolsets", "{\"instance\":\"gabp:ref\"}");
  list = json_object_get_array_member (sets, "toolsets");
  for (guint i = 0; i < json_array_get_length (list); i++)
    if (g_str_equal (json_object_get_string_member (json_array_get_object_element (list, i), "name"), "bridge"))
      tools = json_object_get_array_member (json_array_get_object_element (list, i), "tools");
  g_assert_nonnull (tools);
  g_assert_cmpuint (json_array_get_length (tools), ==, 5);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (tools, 0), "name"), ==, "get_state");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (tools, 1), "name"), ==, "raw_command");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (tools, 2), "name"), ==, "wait_for");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (tools, 3), "name"), ==, "health");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (tools, 4), "name"), ==, "screenshot");
  described = mcp_call_ok (mcp, "describe_toolset", "{\"instance\":\"gabp:ref\",\"name\":\"bridge\"}");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (described, "toolsets")), ==, 1);

  /* get_state: the mod's state/get, whole or at a path. */
  state = call_json (mcp, "{\"instance\":\"gabp:ref\",\"name\":\"get_state\"}", NULL);
  g_assert_cmpstr (state, ==, "{\"instance\":\"gabp:ref\",\"tool\":\"get_state\",\"via\":\"bridge\","
                              "\"state\":{\"tick\":0,\"position\":{\"x\":0,\"y\":0}}}");
  moved = mcp_call_ok (mcp, "call_tool",
                       "{\"instance\":\"gabp:ref\",\"name\":\"player/move\",\"arguments\":{\"x\":4,\"y\":5}}");
  x = call_json (mcp, "{\"instance\":\"gabp:ref\",\"name\":\"get_state\",\"arguments\":{\"path\":\"position.x\"}}",
                 NULL);
  g_assert_cmpstr (x, ==, "{\"instance\":\"gabp:ref\",\"tool\":\"get_state\",\"via\":\"bridge\","
                          "\"path\":\"position.x\",\"value\":4}");
  missing = mcp_call_error (mcp, "call_tool",
                            "{\"instance\":\"gabp:ref\",\"name\":\"get_state\",\"arguments\":{\"path\":\"nowhere\"}}");
  g_assert_cmpstr (missing, ==, "BridgeUsageError: No value at path 'nowhere' of the state");

  /* wait_for: polls state/get until the condition holds, or says it did not. */
  ticked = mcp_call_ok (mcp, "call_tool",
                        "{\"instance\":\"gabp:ref\",\"name\":\"world/emit_ticks\",\"arguments\":{\"count\":2}}");
  waited = call_json (mcp, "{\"instance\":\"gabp:ref\",\"name\":\"wait_for\","
                           "\"arguments\":{\"path\":\"tick\",\"equals\":2,\"timeoutMs\":5000}}", "waitedMs");
  g_assert_cmpstr (waited, ==, "{\"instance\":\"gabp:ref\",\"tool\":\"wait_for\",\"via\":\"bridge\","
                               "\"path\":\"tick\",\"matched\":true,\"value\":2}");
  timed_out = call_json (mcp, "{\"instance\":\"gabp:ref\",\"name\":\"wait_for\","
                              "\"arguments\":{\"path\":\"tick\",\"equals\":99,\"timeoutMs\":50}}", "waitedMs");
  g_assert_cmpstr (timed_out, ==, "{\"instance\":\"gabp:ref\",\"tool\":\"wait_for\",\"via\":\"bridge\","
                                  "\"path\":\"tick\",\"matched\":false,\"value\":2}");

  /* health: the instance's status; raw_command: any tool of the mod by name. */
  health = call_json (mcp, "{\"instance\":\"gabp:ref\",\"name\":\"health\"}", NULL);
  g_assert_cmpstr (health, ==, "{\"instance\":\"gabp:ref\",\"tool\":\"health\",\"via\":\"bridge\","
                               "\"ok\":true,\"status\":\"ready\"}");
  raw = call_json (mcp, "{\"instance\":\"gabp:ref\",\"name\":\"raw_command\","
                        "\"arguments\":{\"cmd\":\"player/move\",\"x\":1,\"y\":2}}", NULL);
  g_assert_cmpstr (raw, ==, "{\"instance\":\"gabp:ref\",\"tool\":\"raw_command\",\"via\":\"bridge\","
                            "\"result\":{\"position\":{\"x\":1,\"y\":2}}}");

  /* What has no meaning on a mod is said plainly, never as a GABP name rule. */
  close = mcp_call_error (mcp, "call_tool", "{\"instance\":\"gabp:ref\",\"name\":\"close\"}");
  g_assert_cmpstr (close, ==, "BridgeUsageError: gabp:ref has no close command: the bridge closes only HTTP games; "
                              "a GABP mod's game is closed through its own tools (list_toolsets shows them)");
  bad = mcp_call_error (mcp, "call_tool", "{\"instance\":\"gabp:ref\",\"name\":\"wait_for\",\"arguments\":{}}");
  g_assert_cmpstr (bad, ==, "BridgeUsageError: Bad arguments for 'wait_for' at #: must have required property 'path'");
  ghost = mcp_call_error (mcp, "call_tool", "{\"instance\":\"gabp:ref\",\"name\":\"Get_State\"}");
  g_assert_cmpstr (ghost, ==, "gabp:ref has no tool 'Get_State'");

  g_clear_pointer (&mcp, mcp_free);
  g_remove (conf);
  g_rmdir (dir);
}

/* ---- a mod that refuses the token -------------------------------------------- */

static void
test_refused_token (void)
{
  g_autoptr(GError) error = NULL;
  guint16 port = gg_loopback_port_pick_free (&error);
  GgTestServer *mod = test_mod_start (port, TEST_TOKEN);
  g_autofree char *dir = g_dir_make_tmp ("gg-gabp-targets-XXXXXX", NULL);
  g_autofree char *text = g_strdup_printf ("[gabp]\nmods=ref\nserver=false\nbridge-file=\n"
                                           "ref.port=%u\nref.token=%s\n"
                                           "ref.backoff-initial-ms=20\nref.backoff-max-ms=200\n",
                                           port, TEST_TOKEN2);
  g_autofree char *conf = write_config (dir, text);
  g_autoptr(Mcp) mcp = start_with_config (conf);
  g_autoptr(JsonObject) refused = wait_for_status (mcp, "gabp:ref", "error");
  g_autoptr(JsonObject) ready = NULL;
  g_autofree char *call = NULL;
  g_autofree char *state = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (refused, "error"), ==,
                   "the mod refused the token (-31000 authentication failed)");
  call = mcp_call_error (mcp, "call_tool", "{\"instance\":\"gabp:ref\",\"name\":\"player/move\","
                                           "\"arguments\":{\"x\":1,\"y\":1}}");
  g_assert_cmpstr (call, ==, "player/move: the mod refused the token (-31000 authentication failed)");
  state = mcp_call_error (mcp, "call_tool", "{\"instance\":\"gabp:ref\",\"name\":\"get_state\"}");
  g_assert_cmpstr (state, ==, "gabp:ref: the mod refused the token (-31000 authentication failed)");

  /* The mod restarted with the token gamegate has: the backoff finds it. */
  gg_test_server_free (mod);
  mod = test_mod_start (port, TEST_TOKEN2);
  ready = wait_for_status (mcp, "gabp:ref", "ready");
  g_assert_false (json_object_has_member (ready, "error"));

  g_clear_pointer (&mcp, mcp_free);
  gg_test_server_free (mod);
  g_remove (conf);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gabp/mcp-targets/stop-takes-forked-child", test_stop_takes_forked_child);
  g_test_add_func ("/gabp/mcp-targets/bridge-toolset", test_bridge_toolset);
  g_test_add_func ("/gabp/mcp-targets/refused-token", test_refused_token);
  return g_test_run ();
}
