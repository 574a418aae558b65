/* test-refgame-failures.c: the reference game when things go wrong.
 *
 * The registry entry (written, removed on close and on signals, never fatal),
 * every failure switch the bridge's tests rely on, bad options, ports, and
 * hostile query strings.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "refgame-driver.h"

/* ---- registry, exits ------------------------------------------------- */

static void
test_registry_and_close (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *cwd = g_dir_make_tmp ("refgame-cwd-XXXXXX", &error);
  g_autofree char *real_cwd = NULL;
  const char *args[] = { "--debug-port", "0", NULL };
  g_autoptr(Game) game = NULL;
  g_autofree char *entry = NULL;
  g_autoptr(JsonObject) reg = NULL;
  g_autoptr(GRegex) iso = g_regex_new ("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$", 0, 0, NULL);

  g_assert_no_error (error);
  real_cwd = g_canonicalize_filename (cwd, NULL);
  game = game_spawn_full (args, cwd, NULL, TRUE);
  entry = registry_entry_path (game);
  reg = read_json_file (entry);
  g_assert_cmpstr (json_object_get_string_member (reg, "name"), ==, "Crate Stacker");
  g_assert_cmpstr (json_object_get_string_member (reg, "version"), ==, PACKAGE_VERSION);
  g_assert_cmpint (json_object_get_int_member (reg, "protocol"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (reg, "port"), ==, game->port);
  g_assert_cmpstr (json_object_get_string_member (reg, "host"), ==, "127.0.0.1");
  g_assert_cmpint (json_object_get_int_member (reg, "pid"), ==,
                   g_ascii_strtoll (g_subprocess_get_identifier (game->proc), NULL, 10));
  g_assert_true (g_regex_match (iso, json_object_get_string_member (reg, "started"), 0, NULL));
  g_assert_cmpstr (json_object_get_string_member (reg, "cwd"), ==, real_cwd);

  send_command (game, "cmd=close");
  wait_exit (game);
  g_assert_true (g_subprocess_get_if_exited (game->proc));
  g_assert_cmpint (g_subprocess_get_exit_status (game->proc), ==, 0);
  g_assert_false (g_file_test (entry, G_FILE_TEST_EXISTS));
  g_assert_true (output_has (game, "applying #1 close"));
  g_assert_true (output_has (game, "refgame: bye"));
  assert_port_silent (game);
  g_rmdir (cwd);
}

static void
exit_on_signal (int signum)
{
  g_autoptr(Game) game = game_spawn ("--seed", "3", NULL);
  g_autofree char *entry = registry_entry_path (game);

  g_assert_true (g_file_test (entry, G_FILE_TEST_EXISTS));
  g_subprocess_send_signal (game->proc, signum);
  wait_exit (game);
  g_assert_true (g_subprocess_get_if_exited (game->proc));
  g_assert_cmpint (g_subprocess_get_exit_status (game->proc), ==, 0);
  g_assert_false (g_file_test (entry, G_FILE_TEST_EXISTS));
}

static void
test_sigterm (void)
{
  exit_on_signal (SIGTERM);
}

static void
test_sigint (void)
{
  exit_on_signal (SIGINT);
}

static void
test_registry_locations (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *home = g_dir_make_tmp ("refgame-home-XXXXXX", &error);
  g_autofree char *blocker = g_build_filename (home, "file", NULL);
  g_autofree char *bad_dir = g_build_filename (blocker, "instances", NULL);
  g_autofree char *instances = g_build_filename (home, "instances", NULL);
  const char *args[] = { "--debug-port", "0", NULL };
  const char *home_env[] = { "GAME_BRIDGE_INSTANCES", NULL, "GAME_BRIDGE_HOME", home, NULL };
  const char *bad_env[] = { "GAME_BRIDGE_INSTANCES", bad_dir, NULL };
  g_autoptr(Game) via_home = NULL;
  g_autoptr(Game) broken = NULL;
  g_autoptr(Game) none = game_spawn ("--no-registry", NULL);
  g_autofree char *none_entry = registry_entry_path (none);
  g_autofree char *entry = NULL;
  g_autoptr(JsonObject) health = NULL;

  g_assert_no_error (error);
  /* --no-registry writes nothing. */
  g_assert_false (g_file_test (none_entry, G_FILE_TEST_EXISTS));

  /* $GAME_BRIDGE_HOME/instances when GAME_BRIDGE_INSTANCES is unset. */
  via_home = game_spawn_full (args, NULL, home_env, TRUE);
  entry = g_strdup_printf ("%s/%s.json", instances, g_subprocess_get_identifier (via_home->proc));
  g_assert_true (g_file_test (entry, G_FILE_TEST_EXISTS));
  g_subprocess_send_signal (via_home->proc, SIGTERM);
  wait_exit (via_home);
  g_assert_false (g_file_test (entry, G_FILE_TEST_EXISTS));

  /* A registry that cannot be written never breaks the game. */
  g_assert_true (g_file_set_contents (blocker, "", 0, NULL));
  broken = game_spawn_full (args, NULL, bad_env, TRUE);
  health = get_object (broken, "/health", 200);
  g_assert_true (json_object_get_boolean_member (health, "ok"));
  wait_stderr (broken, "no registry entry");
  send_command (broken, "cmd=close");
  wait_exit (broken);
  g_assert_cmpint (g_subprocess_get_exit_status (broken->proc), ==, 0);
  g_unlink (blocker);
  g_rmdir (instances);
  g_rmdir (home);
}

/* ---- failure switches ------------------------------------------------ */

static void
test_no_tools (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--no-tools", NULL);
  g_autoptr(JsonObject) reply = get_object (game, "/tools", 404);
  g_autoptr(JsonObject) health = get_object (game, "/health", 200);

  g_assert_cmpstr (json_object_get_string_member (reply, "error"), ==, "not_found");
}

static void
test_no_completed_id (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--no-completed-id", NULL);
  g_autoptr(JsonObject) first = get_object (game, "/state", 200);
  g_autoptr(JsonObject) second = NULL;
  g_autoptr(JsonObject) reply = get_object (game, "/command?cmd=spawn", 200);

  g_assert_true (json_object_get_boolean_member (reply, "accepted"));
  g_assert_false (json_object_has_member (reply, "completedCommandId"));
  /* What a bridge falls back to: two frames later, the command ran. */
  second = wait_frame (game, json_object_get_int_member (reply, "frame") + 2);
  g_assert_false (json_object_has_member (first, "completedCommandId"));
  g_assert_false (json_object_has_member (second, "completedCommandId"));
  g_assert_cmpint (json_object_get_int_member (second, "frame"), >=,
                   json_object_get_int_member (first, "frame") + 2);
  g_assert_false (json_object_get_null_member (game_object (second), "held"));
}

static void
test_freeze_after_frames (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--tick-ms", "5", "--freeze-after-frames", "5", NULL);
  g_autoptr(JsonObject) state = NULL;
  g_autoptr(JsonObject) health = NULL;
  gint64 id;

  wait_output (game, "frozen at frame 5");
  id = send_command (game, "cmd=spawn");
  pump (200);
  health = get_object (game, "/health", 200);
  g_assert_cmpint (json_object_get_int_member (health, "frame"), ==, 5);
  state = get_object (game, "/state", 200);
  g_assert_cmpint (json_object_get_int_member (state, "completedCommandId"), <, id);
  g_assert_cmpint (json_object_get_int_member (state, "queued"), ==, 1);
}

static void
test_crash_on (void)
{
  g_autoptr(Game) game = game_spawn ("--crash-on", "drop", NULL);
  g_autofree char *entry = registry_entry_path (game);

  command_and_wait (game, "cmd=spawn");
  send_command (game, "cmd=drop");
  wait_exit (game);
  g_assert_false (g_subprocess_get_if_exited (game->proc));
  g_assert_true (g_subprocess_get_if_signaled (game->proc));
  g_assert_cmpint (g_subprocess_get_term_sig (game->proc), ==, SIGABRT);
  g_assert_nonnull (strstr (game->err_text->str, "--crash-on drop"));
  /* Died mid-call: its entry is left behind, stale, as after any crash. */
  g_assert_true (g_file_test (entry, G_FILE_TEST_EXISTS));
  assert_port_silent (game);
}

static void
test_exit_code_at_start (void)
{
  const char *args[] = { "--debug-port", "0", "--exit-code-at-start", "3", NULL };
  g_autoptr(Game) game = game_spawn_full (args, NULL, NULL, FALSE);
  g_autoptr(GDir) dir = NULL;

  wait_exit (game);
  g_assert_true (g_subprocess_get_if_exited (game->proc));
  g_assert_cmpint (g_subprocess_get_exit_status (game->proc), ==, 3);
  g_assert_cmpuint (game->out_lines->len, >=, 2);
  g_assert_nonnull (strstr (game->err_text->str, "failing on purpose"));
  dir = g_dir_open (game->registry_dir, 0, NULL);
  g_assert_null (g_dir_read_name (dir));
}

static void
test_bad_options (void)
{
  const char *cases[][5] = {
    { NULL },
    { "--debug-port", "70000", NULL },
    { "--debug-port", "-5", NULL },
    { "--debug-port", "0", "--tick-ms", "0", NULL },
    { "--debug-port", "0", "--crash-on", "nothing", NULL },
    { "--debug-port", "0", "--seed", "-1", NULL },
    { "--debug-port", "0", "--freeze-after-frames", "-3", NULL },
    { "--debug-port", "zero", NULL },
    { "--debug-port", "0", "--bogus", NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(Game) game = game_spawn_full (cases[i], NULL, NULL, FALSE);

      wait_exit (game);
      g_assert_true (g_subprocess_get_if_exited (game->proc));
      g_assert_cmpint (g_subprocess_get_exit_status (game->proc), ==, 2);
      g_assert_cmpuint (game->err_text->len, >, 0);
    }
}

static void
test_explicit_port (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocket) blocker = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                             G_SOCKET_PROTOCOL_TCP, &error);
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (lo, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autofree char *port = NULL;
  g_autoptr(Game) taken = NULL;
  g_autoptr(Game) game = NULL;

  g_assert_no_error (error);
  g_assert_true (g_socket_bind (blocker, any, FALSE, &error));
  g_assert_true (g_socket_listen (blocker, &error));
  bound = g_socket_get_local_address (blocker, &error);
  port = g_strdup_printf ("%u", g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));

  /* A port already held: a clear failure, exit status 1, nothing registered. */
  {
    const char *args[] = { "--debug-port", port, NULL };

    taken = game_spawn_full (args, NULL, NULL, FALSE);
    wait_exit (taken);
    g_assert_cmpint (g_subprocess_get_exit_status (taken->proc), ==, 1);
    g_assert_nonnull (strstr (taken->err_text->str, "cannot listen"));
  }

  /* The same port once free: the game serves exactly there. */
  g_socket_close (blocker, NULL);
  {
    const char *args[] = { "--debug-port", port, "--no-registry", NULL };

    game = game_spawn_full (args, NULL, NULL, TRUE);
    g_assert_cmpuint (game->port, ==, g_ascii_strtoull (port, NULL, 10));
  }
}

/* ---- hostile input --------------------------------------------------- */

static char *
repeat (const char *unit,
        guint       times)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < times; i++)
    g_string_append (s, unit);
  return g_string_free (s, FALSE);
}

static void
test_hostile_queries (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autofree char *long_value = repeat ("a", 9000);
  g_autofree char *long_decoded = repeat ("%41", 1500);
  g_autofree char *opens = repeat ("%5B", 1300);
  g_autofree char *closes = repeat ("%5D", 1300);
  g_autofree char *deep = g_strconcat (opens, closes, NULL);
  g_autofree char *huge_value = repeat ("b", 100000);
  g_autofree char *long_key = repeat ("k", 65);
  GString *many_params = g_string_new ("cmd=spawn");
  struct { char *target; guint status; const char *error; } cases[] = {
    { g_strdup_printf ("/command?cmd=spawn&x=%s", long_value), 400, "bad_query" },
    { g_strdup_printf ("/command?cmd=spawn&kind=%s", long_decoded), 400, "invalid_argument" },
    { NULL, 400, "bad_query" },  /* many parameters, filled below */
    { g_strdup ("/command?cmd=spawn&cmd=close"), 400, "bad_query" },
    { g_strdup ("/command?cmd=spawn&=1"), 400, "bad_query" },
    { g_strdup_printf ("/command?cmd=spawn&%s=1", long_key), 400, "bad_query" },
    { g_strdup ("/command?cmd=spawn&kind=%FF%FE"), 400, "bad_query" },
    { g_strdup ("/command?cmd=sp\xff" "awn"), 400, "bad_query" },
    { g_strdup ("/command?cmd=%C3%28"), 400, "bad_query" },
    { g_strdup ("/command?cmd=spawn&kind=%00"), 400, NULL },
    { g_strdup ("/command?cmd=spawn&kind=%zz"), 400, NULL },
    { g_strdup ("/command?cmd=spawn&kind=%"), 400, NULL },
    { g_strdup ("/command?cmd=drop&x=nan"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=drop&x=inf"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=drop&x=1e400"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=drop&x=%201"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=drop&x=1abc"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=drop&x="), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=drop&x"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=drop&settle=maybe"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=set_seed&seed=-1"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=set_seed&seed=99999999999999999999"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=set_score&score=1.5"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=spawn&kind=gold"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=spawn&crate=%7Bbroken"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=spawn&crate=1"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=spawn&crate=%5B%5D"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=spawn&crate=%7B%22kind%22%3A%22gold%22%7D"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=spawn&crate=%7B%22width%22%3A%22wide%22%7D"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=spawn&crate=%7B%22mass%22%3A1%7D"), 400, "invalid_argument" },
    { g_strdup_printf ("/command?cmd=spawn&crate=%s", deep), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=%D1%81%D0%BF%D0%B0%D0%B2%D0%BD"), 200, "unknown_command" },
    { g_strdup ("/command?cmd=set+score&score=1"), 200, "unknown_command" },
    { g_strdup ("/state?" "\xff\xfe"), 200, NULL },
  };
  g_autoptr(JsonObject) health = NULL;
  g_autoptr(JsonObject) state = NULL;
  g_autofree char *huge = NULL;
  guint status;

  for (int i = 0; i < 1000; i++)
    g_string_append_printf (many_params, "&p%d=1", i);
  cases[2].target = g_strdup_printf ("/command?%s", many_params->str);
  g_string_free (many_params, TRUE);

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *body = NULL;

      status = raw_get (game, cases[i].target, &body);
      if (status != cases[i].status)
        g_error ("case %" G_GSIZE_FORMAT ": HTTP %u, expected %u; body %s", i, status, cases[i].status, body);
      if (cases[i].error != NULL)
        {
          g_autoptr(JsonParser) parser = json_parser_new ();
          JsonObject *reply;

          g_assert_true (json_parser_load_from_data (parser, body, -1, NULL));
          reply = json_node_get_object (json_parser_get_root (parser));
          g_assert_false (json_object_get_boolean_member (reply, "accepted"));
          g_assert_cmpstr (json_object_get_string_member (reply, "error"), ==, cases[i].error);
        }
      g_free (cases[i].target);
    }

  /* Past libsoup's header limit the connection is dropped; the game lives on. */
  huge = g_strdup_printf ("/command?cmd=spawn&x=%s", huge_value);
  status = raw_get (game, huge, NULL);
  g_assert_true (status == 0 || status >= 400);

  /* A body-carrying method is refused politely. */
  {
    const char post[] = "POST /command?cmd=spawn HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                        "Connection: close\r\n\r\nabc";
    g_assert_cmpuint (raw_request (game->port, post, sizeof post - 1, NULL), ==, 405);
  }

  health = get_object (game, "/health", 200);
  g_assert_true (json_object_get_boolean_member (health, "ok"));
  state = get_object (game, "/state", 200);
  g_assert_cmpint (json_object_get_int_member (state, "completedCommandId"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (state, "queued"), ==, 0);
}

static guint
count_fds (Game *game)
{
  g_autofree char *dir_path = g_strdup_printf ("/proc/%s/fd", g_subprocess_get_identifier (game->proc));
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  guint n = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

/* Clients that close keep-alive connections while idle (what a poller does)
 * must not cost the game a descriptor each. */
static void
test_no_descriptor_leak (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  guint before, after;

  if (!g_file_test ("/proc/self/fd", G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no /proc/PID/fd here");
      return;
    }
  g_assert_cmpuint (raw_get (game, "/health", NULL), ==, 200);
  pump (50);
  before = count_fds (game);
  for (int i = 0; i < 100; i++)
    {
      g_autoptr(GSocketClient) client = g_socket_client_new ();
      g_autoptr(GSocketConnection) conn = g_socket_client_connect_to_host (client, "127.0.0.1", game->port,
                                                                          NULL, NULL);
      const char request[] = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
      char buf[512];

      g_assert_nonnull (conn);
      g_assert_true (g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (conn)), request,
                                                sizeof request - 1, NULL, NULL, NULL));
      g_assert_cmpint (g_input_stream_read (g_io_stream_get_input_stream (G_IO_STREAM (conn)), buf, sizeof buf,
                                            NULL, NULL), >, 0);
      g_io_stream_close (G_IO_STREAM (conn), NULL, NULL);
    }
  pump (200);
  after = count_fds (game);
  g_assert_cmpuint (after, <=, before + 5);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/refgame/registry-close", test_registry_and_close);
  g_test_add_func ("/refgame/sigterm", test_sigterm);
  g_test_add_func ("/refgame/sigint", test_sigint);
  g_test_add_func ("/refgame/registry-locations", test_registry_locations);
  g_test_add_func ("/refgame/no-tools", test_no_tools);
  g_test_add_func ("/refgame/no-completed-id", test_no_completed_id);
  g_test_add_func ("/refgame/freeze-after-frames", test_freeze_after_frames);
  g_test_add_func ("/refgame/crash-on", test_crash_on);
  g_test_add_func ("/refgame/exit-code-at-start", test_exit_code_at_start);
  g_test_add_func ("/refgame/bad-options", test_bad_options);
  g_test_add_func ("/refgame/explicit-port", test_explicit_port);
  g_test_add_func ("/refgame/hostile-queries", test_hostile_queries);
  g_test_add_func ("/refgame/no-descriptor-leak", test_no_descriptor_leak);

  return g_test_run ();
}
