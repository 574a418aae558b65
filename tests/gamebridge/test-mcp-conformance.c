/* test-mcp-conformance.c: the official MCP conformance suite
 * (npm @modelcontextprotocol/conformance in mcp-sdk/) against the daemon's
 * Streamable HTTP endpoint, with the reference game on the bus so its
 * resources are listed. The server scenarios that apply to gamegate run:
 * server-initialize, ping, logging-set-level, tools-list and
 * resources-list. The other resource scenarios (read-text, read-binary,
 * templates-read, subscribe, unsubscribe) read and watch the suite's own
 * fixture URIs (test://static-text, test://watched-resource, ...), which a
 * game bridge does not have: gamegate answers them -32002, as it must.
 * Skipped (77) without node or the suite installed (`npm ci` in mcp-sdk/).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>

#include "gb-bridge-test.h"

#define SUITE MCP_SDK_DIR "/node_modules/@modelcontextprotocol/conformance/dist/index.js"

static const char * const scenarios[] = {
  "server-initialize", "ping", "logging-set-level", "tools-list", "resources-list",
};

static void
run_scenario (guint       port,
              const char *scenario)
{
  g_autofree char *node = g_find_program_in_path ("node");
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/mcp", port);
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                                       G_SUBPROCESS_FLAGS_STDERR_MERGE);
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;

  g_subprocess_launcher_set_cwd (launcher, MCP_SDK_DIR);
  g_subprocess_launcher_setenv (launcher, "NO_COLOR", "1", TRUE);
  child = g_subprocess_launcher_spawn (launcher, &error, node, SUITE, "server", "--url", url,
                                       "--scenario", scenario, NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (child, NULL, NULL, &out, NULL, &error);
  g_assert_no_error (error);
  g_print ("%s", out);
  g_assert_true (g_subprocess_get_if_exited (child));
  if (g_subprocess_get_exit_status (child) != 0 || strstr (out, " 0 failed") == NULL)
    g_error ("conformance scenario %s failed:\n%s", scenario, out);
}

int
main (int argc, char **argv)
{
  g_autofree char *node = g_find_program_in_path ("node");
  g_autoptr(Game) game = NULL;
  g_autoptr(GgTestProcess) daemon = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *conf = NULL;
  g_autofree char *text = NULL;
  g_autofree char *conf_env = NULL;
  g_autofree char *reg_env = NULL;
  const char *found;
  guint port = 0;
  int status;

  g_test_init (&argc, &argv, NULL);
  if (node == NULL || !g_file_test (SUITE, G_FILE_TEST_EXISTS))
    {
      g_print ("SKIP: node or the MCP conformance suite (npm ci in %s) is missing\n", MCP_SDK_DIR);
      return 77;
    }
  game = game_spawn ("--no-registry", NULL);
  dir = g_dir_make_tmp ("gb-conformance-XXXXXX", &error);
  g_assert_no_error (error);
  conf = g_build_filename (dir, "gamegate.conf", NULL);
  text = g_strdup_printf ("[gamebridge]\nhttp-port=0\nports=%u\n", game->port);
  g_assert_true (g_file_set_contents (conf, text, -1, NULL));
  conf_env = g_strdup_printf ("GAMEGATE_CONFIG=%s", conf);
  reg_env = g_strdup_printf ("GAME_BRIDGE_INSTANCES=%s", dir);
  daemon = gg_test_process_spawn ((const char *[]) { "serve", NULL },
                                  (const char *[]) { conf_env, reg_env, NULL }, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 400 && port == 0; i++)
    {
      pump (50);
      found = strstr (gg_test_process_get_stderr (daemon), "http://127.0.0.1:");
      if (found != NULL && strstr (found, "/mcp") != NULL)
        port = (guint) g_ascii_strtoull (found + strlen ("http://127.0.0.1:"), NULL, 10);
    }
  g_assert_cmpuint (port, >, 0);

  for (guint i = 0; i < G_N_ELEMENTS (scenarios); i++)
    run_scenario (port, scenarios[i]);

  gg_test_process_send_signal (daemon, SIGTERM);
  g_assert_true (gg_test_process_wait (daemon, gg_test_timeout_ms (20000), &status));
  g_assert_cmpint (status, ==, 0);
  g_unlink (conf);
  g_rmdir (dir);
  return 0;
}
