/* test-gb-bridge-launch.c: games launched through `gamegate mcp`: launch, stop and
 * log, a stop that escalates, and cleanup of launched games on stdin EOF and
 * SIGTERM (checked by pid).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-bridge-test.h"

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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gamebridge/launch/stop-and-log", test_launch_stop_log);
  g_test_add_func ("/gamebridge/launch/stop-escalates", test_stop_escalates);
  g_test_add_data_func ("/gamebridge/launch/cleanup-on-eof", GINT_TO_POINTER (FALSE), test_cleanup);
  g_test_add_data_func ("/gamebridge/launch/cleanup-on-sigterm", GINT_TO_POINTER (TRUE), test_cleanup);
  return g_test_run ();
}
