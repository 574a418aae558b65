/* test-mcp-sdk-gamegate.c: the official MCP TypeScript SDK client
 * (mcp-sdk/gamegate-client.mjs) driving the built `gamegate mcp`, which
 * launches the reference game from its build-tree gamebridge.json. Checks
 * the tool list, launch_instance, call_tool (spawn, drop, get_state),
 * list_instances and stop_instance as the SDK parsed them, that gamegate
 * exits 0 on stdin EOF and that no game it launched survives it.
 * Skipped (77) without node or without the SDK installed (`npm ci` in
 * tests/gamebridge/mcp-sdk). Under GAMEGATE_TEST_WRAPPER (valgrind)
 * gamegate runs wrapped; node and the game run natively.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>

#include "gg-test-util.h"
#include "mcp-sdk-runner.h"

#define LAUNCH_CONFIG GG_TOP_BUILDDIR "/tests/refgame/gamebridge.json"

static const char *
str (JsonNode   *root,
     const char *path)
{
  return json_node_get_string (mcp_sdk_member (root, path));
}

static gint64
num (JsonNode   *root,
     const char *path)
{
  return json_node_get_int (mcp_sdk_member (root, path));
}

static gboolean
pid_alive (gint64 pid)
{
  return pid > 0 && (kill ((pid_t) pid, 0) == 0 || errno != ESRCH);
}

/* The game was gamegate's child; once gamegate is gone init reaps it. */
static gboolean
pid_gone_soon (gint64 pid)
{
  for (guint i = 0; i < 100 && pid_alive (pid); i++)
    g_usleep (50 * 1000);
  return !pid_alive (pid);
}

static void
rm_rf (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *registry = NULL;
  g_autofree char *timeout_ms = NULL;
  const char *bin = g_getenv ("GAMEGATE_BIN");
  const char *server[] = { bin != NULL && *bin != '\0' ? bin : GG_TOP_BUILDDIR "/gateway/gamegate",
                           "mcp", "--launch-config", LAUNCH_CONFIG, "--no-scan", NULL };
  const char *expected[] = { "list_instances", "launch_instance", "stop_instance", "list_toolsets",
                             "describe_toolset", "call_tool", "instance_log" };
  JsonArray *tools, *live;
  gint64 port, pid, second_pid;

  if (!mcp_sdk_available ())
    return 77;

  /* The games register in a private directory, not the user's. */
  registry = g_dir_make_tmp ("gb-sdk-registry-XXXXXX", &error);
  g_assert_no_error (error);
  timeout_ms = g_strdup_printf ("%u", gg_test_timeout_ms (30000));
  g_subprocess_launcher_setenv (launcher, "GAME_BRIDGE_INSTANCES", registry, TRUE);
  g_subprocess_launcher_setenv (launcher, "GB_SDK_TIMEOUT_MS", timeout_ms, TRUE);
  g_subprocess_launcher_unsetenv (launcher, "GAME_BRIDGE_PORT");
  g_subprocess_launcher_unsetenv (launcher, "GAME_BRIDGE_HOME");
  root = mcp_sdk_run ("gamegate-client.mjs", server, launcher, gg_test_timeout_ms (100000));

  g_assert_cmpstr (str (root, "server.name"), ==, "gamegate");
  g_assert_nonnull (json_node_get_object (mcp_sdk_member (root, "capabilities.tools")));
  tools = json_node_get_array (mcp_sdk_member (root, "tools"));
  g_assert_cmpuint (json_array_get_length (tools), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpstr (json_array_get_string_element (tools, i), ==, expected[i]);

  /* launch_instance: the game from the build tree, ready, with progress on the way. */
  port = num (root, "launched.port");
  pid = num (root, "launched.pid");
  g_assert_cmpint (port, >=, 7820);
  g_assert_cmpint (port, <=, 7839);
  g_assert_cmpint (pid, >, 0);
  g_assert_cmpstr (str (root, "launched.name"), ==, "Crate Stacker");
  g_assert_cmpstr (str (root, "launched.version"), ==, "0.1.0");
  g_assert_true (g_str_has_suffix (str (root, "launched.cwd"), "/tests/refgame"));
  g_assert_cmpint (num (root, "launched.readyInMs"), >=, 0);
  g_assert_nonnull (str (root, "launched.logFile"));
  g_assert_cmpint (num (root, "progressReceived"), >, 0);

  /* call_tool: manifest tools confirmed by completedCommandId, the state after them. */
  g_assert_cmpint (num (root, "spawn.port"), ==, port);
  g_assert_cmpstr (str (root, "spawn.tool"), ==, "spawn");
  g_assert_cmpstr (str (root, "spawn.via"), ==, "manifest");
  g_assert_true (json_node_get_boolean (mcp_sdk_member (root, "spawn.applied")));
  g_assert_cmpstr (str (root, "spawn.confirmation"), ==, "completedCommandId");
  g_assert_cmpstr (str (root, "spawn.game.held.kind"), ==, "steel");
  g_assert_cmpstr (str (root, "spawn.events.0"), ==, "spawn:steel");
  g_assert_cmpstr (str (root, "drop.via"), ==, "manifest");
  g_assert_cmpint (num (root, "drop.game.dropped"), ==, 1);
  g_assert_cmpint (num (root, "drop.commandId"), >, num (root, "spawn.commandId"));

  /* get_state through call_tool: the bridge toolset. */
  g_assert_cmpstr (str (root, "state.via"), ==, "bridge");
  g_assert_cmpint (num (root, "state.state.completedCommandId"), ==, num (root, "drop.commandId"));
  g_assert_cmpint (num (root, "state.state.game.dropped"), ==, 1);
  g_assert_cmpint (num (root, "dropped.value"), ==, 1);

  live = json_node_get_array (mcp_sdk_member (root, "instances.live"));
  g_assert_cmpuint (json_array_get_length (live), ==, 1);
  g_assert_true (json_node_get_boolean (mcp_sdk_member (root, "instances.live.0.launchedByThisBridge")));
  g_assert_cmpint (num (root, "instances.live.0.pid"), ==, pid);
  g_assert_cmpint (num (root, "instances.live.0.port"), ==, port);

  /* stop_instance: closed through its own close command, process gone. */
  g_assert_cmpint (num (root, "stopped.port"), ==, port);
  g_assert_true (json_node_get_boolean (mcp_sdk_member (root, "stopped.stopped")));
  g_assert_cmpstr (str (root, "stopped.how"), ==, "closed cleanly");
  g_assert_false (pid_alive (pid));

  /* stdin EOF: gamegate exits cleanly (no sanitizer or valgrind report)
   * and takes the instance it left running with it. */
  second_pid = num (root, "second.pid");
  g_assert_cmpint (second_pid, >, 0);
  g_assert_true (JSON_NODE_HOLDS_NULL (mcp_sdk_member (root, "exitSignal")));
  g_assert_true (JSON_NODE_HOLDS_VALUE (mcp_sdk_member (root, "exitCode")));
  g_assert_cmpint (num (root, "exitCode"), ==, 0);
  g_assert_true (pid_gone_soon (second_pid));
  g_assert_cmpuint (json_array_get_length (json_node_get_array (mcp_sdk_member (root, "errors"))), ==, 0);

  rm_rf (registry);
  return 0;
}
