/* test-gb-bridge-failures.c: every failure of spec section 5 made real through
 * `gamegate mcp`: a game offline, not a game, frozen, crashing mid-call,
 * relaunched with a new manifest, failing to launch, HTTP errors, a cancelled
 * call, the OS port fallback.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-bridge-test.h"

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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gamebridge/failure/game-offline", test_game_offline);
  g_test_add_func ("/gamebridge/failure/not-a-game", test_not_a_game);
  g_test_add_func ("/gamebridge/failure/frozen", test_frozen_game);
  g_test_add_func ("/gamebridge/failure/frames-advanced", test_frames_advanced);
  g_test_add_func ("/gamebridge/failure/crash-mid-call", test_crash_mid_call);
  g_test_add_func ("/gamebridge/failure/relaunch-new-manifest", test_relaunch_new_manifest);
  g_test_add_func ("/gamebridge/failure/launch-fails", test_launch_fails);
  g_test_add_func ("/gamebridge/failure/http-status", test_http_status);
  g_test_add_func ("/gamebridge/mcp/cancelled-call", test_cancelled_call);
  g_test_add_func ("/gamebridge/launch/os-port-fallback", test_os_port_fallback);
  return g_test_run ();
}
