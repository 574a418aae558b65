/* test-mcp-sdk-http.c: the official MCP TypeScript SDK client
 * (the scripts in mcp-sdk/) against the Streamable HTTP endpoint of the real
 * `gamegate serve`, as agents use it:
 *
 * - leavers: 10,000 cycles of connect, one call_tool, close() (which sends
 *   no DELETE) against one daemon, then a new client is served; the
 *   daemon's resident memory after them is within 10% of what it was after
 *   the first 300 (the table is full and ending sessions from then on), and
 *   it holds no more file descriptors than then.
 * - evicted: a client idle while others come and go gets 404 and is served
 *   again once it initializes; one with a call running keeps its session.
 * - resource-updates: a subscription's updates arrive on the standalone
 *   GET stream, at most one per interval, none after unsubscribing.
 * - resume: a launch_instance whose SSE stream is cut after its first
 *   progress event still returns its result: the SDK resumes the stream
 *   with Last-Event-ID and gets the progress it missed, then the answer.
 *
 * Skipped (77) without node or the SDK (`npm ci` in mcp-sdk/). Under
 * GAMEGATE_TEST_WRAPPER (valgrind) the daemon runs wrapped; under a wrapper
 * or AddressSanitizer (whose allocators keep freed memory) the memory
 * figures are printed, not compared, and the leavers make 1,000 cycles.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>

#include "gb-mcp-client.h"
#include "mcp-sdk-runner.h"
#include "refgame-driver.h"

#define CYCLES       10000
#define FIRST_CYCLES 300
#define SLOW_CYCLES  1000
/* [gamebridge] resource-update-interval-ms, and how long the client watches. */
#define RESOURCE_INTERVAL_MS 200
#define RESOURCE_WATCH_MS    1500

static gboolean
wrapped (void)
{
  const char *wrap = g_getenv ("GAMEGATE_TEST_WRAPPER");

  return wrap != NULL && *wrap != '\0';
}

static gboolean
memory_comparable (void)
{
#if defined(__SANITIZE_ADDRESS__)
  return FALSE;
#else
  return !wrapped ();
#endif
}

static JsonNode *
member (JsonNode   *root,
        const char *path)
{
  return mcp_sdk_member (root, path);
}

static gint64
num (JsonNode   *root,
     const char *path)
{
  return json_node_get_int (member (root, path));
}

static guint
array_length (JsonNode   *root,
              const char *path)
{
  return json_array_get_length (json_node_get_array (member (root, path)));
}

static JsonNode *
leave (McpDaemon *daemon,
       guint      cycles,
       guint      game_port)
{
  g_autofree char *n = g_strdup_printf ("%u", cycles);
  g_autofree char *port = g_strdup_printf ("%u", game_port);
  const char *argv[] = { daemon->url, n, port, NULL };
  JsonNode *root = mcp_sdk_run_client ("leavers.mjs", argv, NULL, gg_test_timeout_ms (1200000));

  /* Every client served, none refused, nothing the SDK calls an error. */
  g_assert_cmpint (num (root, "served"), ==, cycles);
  g_assert_cmpint (num (root, "failureCount"), ==, 0);
  g_assert_cmpint (num (root, "errorCount"), ==, 0);
  g_assert_cmpint (num (root, "last.port"), ==, game_port);
  g_assert_true (json_node_get_boolean (member (root, "last.ok")));
  return root;
}

static void
test_leavers (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autofree char *keys = g_strdup_printf ("ports=%u", game->port);
  McpDaemon *daemon = mcp_daemon_start (keys, NULL);
  /* 10,000 cycles are for the memory figure; where it cannot be compared,
   * 1,000 still prove the rest at a tenth of the time. */
  guint cycles = memory_comparable () ? CYCLES : SLOW_CYCLES;
  g_autoptr(JsonNode) first = NULL;
  g_autoptr(JsonNode) rest = NULL;
  g_autoptr(JsonNode) fresh = NULL;
  gint64 after_first, after_all;
  guint fds_first, fds_all;

  first = leave (daemon, FIRST_CYCLES, game->port);
  after_first = mcp_daemon_rss_kib (daemon);
  fds_first = mcp_daemon_fd_count (daemon);
  rest = leave (daemon, cycles - FIRST_CYCLES, game->port);
  after_all = mcp_daemon_rss_kib (daemon);
  fds_all = mcp_daemon_fd_count (daemon);
  /* And a new client after them all. */
  fresh = leave (daemon, 1, game->port);

  g_test_message ("daemon VmRSS after %u cycles: %" G_GINT64_FORMAT " KiB, after %u: %" G_GINT64_FORMAT
                  " KiB (%+.1f%%); %" G_GINT64_FORMAT " ms for the %u",
                  FIRST_CYCLES, after_first, cycles, after_all,
                  100.0 * (after_all - after_first) / MAX (after_first, 1), num (rest, "ms"),
                  cycles - FIRST_CYCLES);
  g_test_message ("daemon file descriptors: %u after %u cycles, %u after %u", fds_first, FIRST_CYCLES,
                  fds_all, cycles);
  g_assert_cmpint (after_first, >, 0);
  /* The connections of the clients that went are closed: at most one GET
   * stream per session stays open. */
  g_assert_cmpuint (fds_all, <=, fds_first + 16);
  if (memory_comparable ())
    g_assert_cmpint (after_all * 10, <=, after_first * 11);
  mcp_daemon_stop (daemon);
}

static void
test_evicted (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autofree char *keys = g_strdup_printf ("ports=%u\nhttp-max-sessions=8", game->port);
  g_autofree char *port = g_strdup_printf ("%u", game->port);
  g_autofree char *wait_ms = g_strdup_printf ("%u", gg_test_timeout_ms (4000));
  g_autofree char *timeout_ms = g_strdup_printf ("%u", gg_test_timeout_ms (30000));
  McpDaemon *daemon = mcp_daemon_start (keys, NULL);
  const char *argv[] = { daemon->url, "8", port, wait_ms, timeout_ms, NULL };
  g_autoptr(JsonNode) root = mcp_sdk_run_client ("evict.mjs", argv, NULL, gg_test_timeout_ms (120000));
  JsonArray *errors_a;

  g_assert_true (json_node_get_boolean (member (root, "first.ok")));
  g_assert_cmpint (num (root, "served"), ==, 12);
  /* A was ended for the newcomers: 404, as the spec says, then served again. */
  g_assert_cmpint (num (root, "evicted.code"), ==, 404);
  g_assert_nonnull (strstr (json_node_get_string (member (root, "evicted.message")),
                            "Not Found: unknown or expired session; initialize a new one"));
  g_assert_true (json_node_get_boolean (member (root, "reinitialized.ok")));
  /* B's call ran through it all, and its session lives on. */
  g_assert_false (json_node_get_boolean (member (root, "waited.matched")));
  g_assert_cmpint (num (root, "waited.value"), ==, 0);
  g_assert_true (json_node_get_boolean (member (root, "busyAfter.ok")));
  g_assert_cmpuint (array_length (root, "errors.B"), ==, 0);
  g_assert_cmpuint (array_length (root, "errors.other"), ==, 0);
  /* What A's SDK reported is about the session it lost, nothing else. */
  errors_a = json_node_get_array (member (root, "errors.A"));
  for (guint i = 0; i < json_array_get_length (errors_a); i++)
    {
      const char *text = json_array_get_string_element (errors_a, i);

      g_assert_true (strstr (text, "Not Found") != NULL || strstr (text, "404") != NULL ||
                     strstr (text, "Maximum reconnection attempts") != NULL);
    }
  mcp_daemon_stop (daemon);
}

/* Resource updates are server-initiated: over HTTP they reach the client
 * on its standalone GET stream, at most one per interval, none after it
 * unsubscribed. */
static void
test_resource_updates (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autofree char *keys = g_strdup_printf ("ports=%u\nresource-update-interval-ms=%d", game->port,
                                           RESOURCE_INTERVAL_MS);
  g_autofree char *port = g_strdup_printf ("%u", game->port);
  g_autofree char *watch_ms = g_strdup_printf ("%d", RESOURCE_WATCH_MS);
  McpDaemon *daemon = mcp_daemon_start (keys, NULL);
  const char *argv[] = { daemon->url, port, watch_ms, NULL };
  g_autoptr(JsonNode) root = mcp_sdk_run_client ("resources-http.mjs", argv, NULL, gg_test_timeout_ms (60000));
  gint64 updates = num (root, "updates");

  g_assert_true (json_node_get_boolean (member (root, "capabilities.resources.subscribe")));
  g_assert_false (json_node_get_boolean (member (root, "spawnFailed")));
  /* The first look is the baseline; one more for a look cut by the end. */
  g_assert_cmpint (updates, >=, 1);
  g_assert_cmpint (updates, <=, num (root, "subscribedMs") / RESOURCE_INTERVAL_MS + 2);
  g_assert_cmpint (num (root, "updatesAfterUnsubscribe"), ==, 0);
  g_assert_cmpuint (array_length (root, "otherUpdates"), ==, 0);
  g_assert_cmpuint (array_length (root, "errors"), ==, 0);
  mcp_daemon_stop (daemon);
}

static void
test_resume (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("gb-sdk-slow-XXXXXX", &error);
  g_autofree char *config = g_build_filename (dir, "gamebridge.json", NULL);
  /* A game that takes 2 s to start: the launch reports progress meanwhile. */
  g_autofree char *declaration =
    g_strdup_printf ("{\"name\":\"Crate Stacker, slowly\",\"launch\":{\"command\":\"sleep 2; exec %s --debug-port {port}\","
                     "\"cwd\":\"%s\",\"portRange\":\"7860-7879\",\"readyTimeoutMs\":%u}}",
                     RG_REFGAME_EXE, dir, gg_test_timeout_ms (30000));
  g_autofree char *config_env = g_strdup_printf ("GAME_BRIDGE_CONFIG=%s", config);
  g_autofree char *timeout = g_strdup_printf ("%u", gg_test_timeout_ms (60000));
  const char *env[] = { config_env, NULL };
  McpDaemon *daemon = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *ids, *errors;
  gint64 pid;

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (config, declaration, -1, NULL));
  daemon = mcp_daemon_start ("sse-retry-ms=200", env);
  {
    const char *argv[] = { daemon->url, timeout, NULL };
    root = mcp_sdk_run_client ("resume.mjs", argv, NULL, gg_test_timeout_ms (90000));
  }

  /* The stream was cut after a progress event and resumed from it. */
  g_assert_true (json_node_get_boolean (member (root, "dropped")));
  g_assert_cmpint (num (root, "retrySeen"), ==, 200);
  ids = json_node_get_array (member (root, "lastEventIds"));
  g_assert_cmpuint (json_array_get_length (ids), >=, 1);
  g_assert_true (g_regex_match_simple ("^[0-9]+-[1-9][0-9]*$", json_array_get_string_element (ids, 0), 0, 0));
  g_assert_cmpint (num (root, "progressBefore"), >=, 1);
  g_assert_cmpint (num (root, "progressAfter"), >, 0);
  /* The SDK waited the stream's retry before it reconnected. */
  g_assert_cmpint (num (root, "reconnectedInMs"), >=, 150);
  /* The launch's result arrived on the resumed stream. */
  g_assert_cmpstr (json_node_get_string (member (root, "launched.name")), ==, "Crate Stacker");
  g_assert_cmpstr (json_node_get_string (member (root, "launched.cwd")), ==, dir);
  g_assert_cmpint (num (root, "launched.port"), >=, 7860);
  g_assert_cmpint (num (root, "launched.port"), <=, 7879);
  g_assert_cmpint (num (root, "launched.readyInMs"), >=, 2000);
  pid = num (root, "launched.pid");
  g_assert_cmpint (pid, >, 0);
  g_assert_true (json_node_get_boolean (member (root, "stopped.stopped")));
  /* The SDK saw the cut, and nothing else went wrong. */
  errors = json_node_get_array (member (root, "errors"));
  for (guint i = 0; i < json_array_get_length (errors); i++)
    g_assert_true (g_str_has_prefix (json_array_get_string_element (errors, i), "SSE stream disconnected"));
  mcp_daemon_stop (daemon);
  g_assert_false (pid_alive (pid));
  g_unlink (config);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (!mcp_sdk_available ())
    return 77;
  g_test_add_func ("/gamebridge/mcp-sdk-http/leavers", test_leavers);
  g_test_add_func ("/gamebridge/mcp-sdk-http/evicted", test_evicted);
  g_test_add_func ("/gamebridge/mcp-sdk-http/resource-updates", test_resource_updates);
  g_test_add_func ("/gamebridge/mcp-sdk-http/resume", test_resume);
  return g_test_run ();
}
