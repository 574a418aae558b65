/* test-refgame.c: the reference game's contract, driven over real HTTP.
 *
 * Health, state fields, fire-and-forget commands confirmed through
 * completedCommandId, the queue bound, unknown commands, the /tools manifest,
 * gameplay, determinism and the shipped launch declaration.  Registry, exits,
 * failure switches and hostile input are in test-refgame-failures.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "refgame-driver.h"

/* ---- the contract ---------------------------------------------------- */

static void
test_health (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autoptr(JsonObject) first = get_object (game, "/health", 200);
  g_autoptr(JsonObject) second = NULL;

  g_autoptr(JsonObject) later = NULL;

  g_assert_true (json_object_get_boolean_member (first, "ok"));
  later = wait_frame (game, json_object_get_int_member (first, "frame") + 1);
  second = get_object (game, "/health", 200);
  g_assert_cmpint (json_object_get_int_member (second, "frame"), >,
                   json_object_get_int_member (first, "frame"));
  g_assert_true (game->port > 0 && game->port < 65536);
}

static void
test_state_fields (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--seed", "42", NULL);
  g_autoptr(JsonObject) state = get_object (game, "/state", 200);
  JsonObject *ui, *g;
  JsonArray *elements;

  g_assert_true (json_object_has_member (state, "frame"));
  g_assert_true (json_object_has_member (state, "simFrame"));
  g_assert_cmpint (json_object_get_int_member (state, "completedCommandId"), ==, 0);
  g_assert_false (json_object_get_boolean_member (state, "paused"));
  ui = json_object_get_object_member (state, "ui");
  g_assert_cmpstr (json_object_get_string_member (ui, "screen"), ==, "GameScreen");
  elements = json_object_get_array_member (ui, "elements");
  g_assert_cmpuint (json_array_get_length (elements), >, 0);
  for (guint i = 0; i < json_array_get_length (elements); i++)
    {
      JsonObject *e = json_array_get_object_element (elements, i);

      g_assert_nonnull (json_object_get_string_member (e, "label"));
      g_assert_true (json_object_has_member (e, "visible"));
    }
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (state, "events")), ==, 0);
  g = game_object (state);
  g_assert_cmpint (json_object_get_int_member (g, "score"), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (g, "state"), ==, "RUNNING");
  g_assert_cmpint (json_object_get_int_member (g, "seed"), ==, 42);
  g_assert_true (json_object_get_null_member (g, "held"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (g, "crates")), ==, 0);
}

static void
test_command_applied (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autofree char *path = NULL;
  g_autoptr(JsonObject) reply = get_object (game, "/command?cmd=spawn&kind=steel", 200);
  g_autoptr(JsonObject) state = NULL;
  gint64 id = json_object_get_int_member (reply, "commandId");
  gint64 queued_frame = json_object_get_int_member (reply, "frame");
  JsonObject *held;

  g_assert_true (json_object_get_boolean_member (reply, "accepted"));
  g_assert_false (json_object_has_member (reply, "ignored"));
  state = wait_applied (game, id);
  g_assert_cmpint (json_object_get_int_member (state, "frame"), >, queued_frame);
  held = json_object_get_object_member (game_object (state), "held");
  g_assert_cmpstr (json_object_get_string_member (held, "kind"), ==, "steel");
  g_assert_true (has_event (state, "spawn:steel"));
  wait_output (game, "applying #1 spawn {\"kind\":\"steel\"}");

  /* Ids grow one by one; an extra parameter is reported, not refused. */
  g_clear_pointer (&reply, json_object_unref);
  reply = get_object (game, "/command?cmd=drop&x=1.2&port=7777", 200);
  g_assert_cmpint (json_object_get_int_member (reply, "commandId"), ==, id + 1);
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (reply, "ignored"), 0),
                   ==, "port");
  g_clear_pointer (&state, json_object_unref);
  state = wait_applied (game, id + 1);
  g_assert_cmpint (json_object_get_int_member (game_object (state), "score"), ==, 20);
  g_assert_cmpint (json_object_get_int_member (game_object (state), "dropped"), ==, 1);
  g_assert_true (has_event (state, "land:steel:level0"));
}

static void
test_fire_and_forget (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--tick-ms", "2000", NULL);
  g_autoptr(JsonObject) start = get_object (game, "/state", 200);
  g_autoptr(JsonObject) tick = NULL;
  g_autoptr(JsonObject) before = NULL;
  g_autoptr(JsonObject) after = NULL;
  gint64 id;

  /* Right after a tick, so the next one is two seconds away. */
  tick = wait_frame (game, json_object_get_int_member (start, "frame") + 1);
  id = send_command (game, "cmd=set_score&score=999");
  before = get_object (game, "/state", 200);
  g_assert_cmpint (json_object_get_int_member (before, "completedCommandId"), <, id);
  g_assert_cmpint (json_object_get_int_member (game_object (before), "score"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (before, "queued"), ==, 1);
  after = wait_applied (game, id);
  g_assert_cmpint (json_object_get_int_member (game_object (after), "score"), ==, 999);
  g_assert_true (has_event (after, "score:=999"));
}

static void
test_queue_full (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--freeze", NULL);
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(JsonObject) health = NULL;

  for (int i = 0; i < 64; i++)
    send_command (game, "cmd=spawn");
  reply = get_object (game, "/command?cmd=spawn", 200);
  g_assert_false (json_object_get_boolean_member (reply, "accepted"));
  g_assert_cmpstr (json_object_get_string_member (reply, "error"), ==, "queue_full");
  health = get_object (game, "/health", 200);
  g_assert_cmpint (json_object_get_int_member (health, "frame"), ==, 0);
  wait_output (game, "frozen at frame 0");
}

static void
test_unknown_command (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autoptr(JsonObject) reply = get_object (game, "/command?cmd=fly&speed=3", 200);
  JsonArray *known;
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  const char *expected[] = { "spawn", "drop", "move", "pause", "resume", "restart", "set_seed",
                             "set_score", "close" };

  g_assert_false (json_object_get_boolean_member (reply, "accepted"));
  g_assert_cmpstr (json_object_get_string_member (reply, "error"), ==, "unknown_command");
  g_assert_nonnull (strstr (json_object_get_string_member (reply, "message"), "fly"));
  known = json_object_get_array_member (reply, "known");
  for (guint i = 0; i < json_array_get_length (known); i++)
    g_ptr_array_add (names, (gpointer) json_array_get_string_element (known, i));
  for (gsize i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_true (g_ptr_array_find_with_equal_func (names, expected[i], g_str_equal, NULL));
}

static void
test_bad_requests (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  const struct { const char *path; guint status; const char *error; } cases[] = {
    { "/command", 400, "missing_cmd" },
    { "/command?cmd=", 400, "missing_cmd" },
    { "/command?x=1", 400, "missing_cmd" },
    { "/command?cmd=set_seed", 400, "missing_argument" },
    { "/nowhere", 404, "not_found" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonObject) reply = get_object (game, cases[i].path, cases[i].status);

      g_assert_cmpstr (json_object_get_string_member (reply, "error"), ==, cases[i].error);
      g_assert_nonnull (json_object_get_string_member (reply, "message"));
    }
}

static JsonObject *
find_tool (JsonArray  *toolsets,
           const char *name)
{
  for (guint i = 0; i < json_array_get_length (toolsets); i++)
    {
      JsonArray *tools = json_object_get_array_member (json_array_get_object_element (toolsets, i), "tools");

      for (guint j = 0; j < json_array_get_length (tools); j++)
        {
          JsonObject *tool = json_array_get_object_element (tools, j);

          if (g_strcmp0 (json_object_get_string_member (tool, "name"), name) == 0)
            return tool;
        }
    }
  g_error ("no tool %s in the manifest", name);
}

static JsonObject *
find_arg (JsonObject *tool,
          const char *name)
{
  JsonArray *args = json_object_get_array_member (tool, "args");

  for (guint i = 0; i < json_array_get_length (args); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (args, i), "name"), name) == 0)
      return json_array_get_object_element (args, i);
  g_error ("no argument %s", name);
}

static void
test_tools_manifest (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--freeze", NULL);
  g_autoptr(JsonObject) manifest = get_object (game, "/tools", 200);
  g_autoptr(JsonObject) unknown = get_object (game, "/command?cmd=x", 200);
  JsonArray *known = json_object_get_array_member (unknown, "known");
  JsonObject *meta = json_object_get_object_member (manifest, "game");
  JsonArray *toolsets = json_object_get_array_member (manifest, "toolsets");
  JsonObject *passthrough = json_object_get_object_member (manifest, "passthrough");
  JsonObject *tool, *map;
  JsonArray *plain;
  guint n_tools = 0;

  g_assert_cmpstr (json_object_get_string_member (meta, "name"), ==, "Crate Stacker");
  g_assert_cmpstr (json_object_get_string_member (meta, "version"), ==, PACKAGE_VERSION);
  g_assert_cmpint (json_object_get_int_member (meta, "protocol"), ==, 1);
  g_assert_cmpuint (json_array_get_length (toolsets), >=, 2);

  /* Every tool's command is one the game accepts. */
  for (guint i = 0; i < json_array_get_length (toolsets); i++)
    {
      JsonObject *set = json_array_get_object_element (toolsets, i);
      JsonArray *tools = json_object_get_array_member (set, "tools");

      g_assert_nonnull (json_object_get_string_member (set, "name"));
      g_assert_nonnull (json_object_get_string_member (set, "description"));
      for (guint j = 0; j < json_array_get_length (tools); j++, n_tools++)
        {
          JsonObject *t = json_array_get_object_element (tools, j);
          const char *command = json_object_get_string_member_with_default (
            t, "command", json_object_get_string_member (t, "name"));
          gboolean found = FALSE;

          for (guint k = 0; k < json_array_get_length (known); k++)
            found |= g_str_equal (json_array_get_string_element (known, k), command);
          g_assert_true (found);
        }
    }
  g_assert_cmpuint (n_tools, >=, 8);

  /* String and null defaults. */
  tool = find_tool (toolsets, "drop");
  g_assert_cmpstr (json_object_get_string_member (find_arg (tool, "settle"), "default"), ==, "true");
  g_assert_true (json_object_get_null_member (find_arg (tool, "x"), "default"));
  g_assert_cmpstr (json_object_get_string_member (find_arg (find_tool (toolsets, "move"), "dx"), "default"),
                   ==, "0.05");

  /* The map form, name -> {type, description}. */
  map = json_object_get_object_member (find_tool (toolsets, "spawn"), "args");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (map, "kind"), "type"),
                   ==, "string");
  g_assert_nonnull (json_object_get_string_member (json_object_get_object_member (map, "crate"),
                                                   "description"));

  /* Plain names, under "params", on a tool with its own command. */
  tool = find_tool (toolsets, "reseed");
  g_assert_cmpstr (json_object_get_string_member (tool, "command"), ==, "set_seed");
  plain = json_object_get_array_member (tool, "params");
  g_assert_cmpstr (json_array_get_string_element (plain, 0), ==, "seed");
  g_assert_true (json_object_has_member (find_tool (toolsets, "set_score"), "arguments"));
  g_assert_cmpstr (json_object_get_string_member (find_tool (toolsets, "new_game"), "command"), ==, "restart");

  g_assert_nonnull (json_object_get_string_member (passthrough, "description"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (passthrough, "examples")), >, 0);
}

/* ---- gameplay and determinism ---------------------------------------- */

static void
test_pause_resume (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--tick-ms", "5", NULL);
  g_autoptr(JsonObject) paused = NULL;
  g_autoptr(JsonObject) later = NULL;
  g_autoptr(JsonObject) resumed = NULL;
  JsonObject *crate;

  command_and_wait (game, "cmd=spawn");
  paused = wait_applied (game, send_command (game, "cmd=pause"));
  g_assert_true (json_object_get_boolean_member (paused, "paused"));
  command_and_wait (game, "cmd=drop&x=-1&settle=false");
  later = wait_frame (game, json_object_get_int_member (paused, "frame") + 4);
  g_assert_cmpint (json_object_get_int_member (later, "simFrame"), ==,
                   json_object_get_int_member (paused, "simFrame"));
  g_assert_cmpint (json_object_get_int_member (later, "frame"), >,
                   json_object_get_int_member (paused, "frame"));
  crate = json_array_get_object_element (json_object_get_array_member (game_object (later), "crates"), 0);
  g_assert_true (json_object_get_boolean_member (crate, "falling"));
  g_assert_cmpfloat (json_object_get_double_member (crate, "y"), ==, 6.0);
  g_assert_cmpfloat (json_object_get_double_member (crate, "x"), ==, -1.0);
  g_assert_true (json_object_get_boolean_member (
    json_array_get_object_element (json_object_get_array_member (json_object_get_object_member (later, "ui"),
                                                                 "elements"), 1), "visible"));

  command_and_wait (game, "cmd=resume");
  for (int i = 0; i < 2000; i++)
    {
      g_clear_pointer (&resumed, json_object_unref);
      resumed = get_object (game, "/state", 200);
      if (json_object_get_boolean_member (game_object (resumed), "settled"))
        break;
      pump (5);
    }
  g_assert_false (json_object_get_boolean_member (resumed, "paused"));
  g_assert_true (json_object_get_boolean_member (game_object (resumed), "settled"));
  g_assert_cmpint (json_object_get_int_member (resumed, "simFrame"), >,
                   json_object_get_int_member (paused, "simFrame"));
  g_assert_true (has_event (resumed, "resume"));
  g_assert_true (has_event (resumed, "land:wood:level0") || has_event (resumed, "land:steel:level0") ||
                 has_event (resumed, "land:ice:level0"));
}

static void
test_game_over_and_restart (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--tick-ms", "5", NULL);
  g_autoptr(JsonObject) state = NULL;
  JsonObject *ui;
  int drops = 0;

  while (drops < 20)
    {
      command_and_wait (game, "cmd=spawn");
      g_clear_pointer (&state, json_object_unref);
      state = wait_applied (game, send_command (game, "cmd=drop&x=0"));
      drops++;
      if (g_str_equal (json_object_get_string_member (game_object (state), "state"), "GAME_OVER"))
        break;
    }
  g_assert_cmpint (drops, ==, 6);    /* six crates of 0.5 reach the 3.0 limit */
  g_assert_cmpfloat (json_object_get_double_member (game_object (state), "height"), ==, 3.0);
  ui = json_object_get_object_member (state, "ui");
  g_assert_cmpstr (json_object_get_string_member (ui, "screen"), ==, "GameOverScreen");
  g_clear_pointer (&state, json_object_unref);
  state = wait_applied (game, send_command (game, "cmd=spawn"));
  g_assert_true (has_event (state, "ignored:spawn:game_over"));
  g_assert_true (json_object_get_null_member (game_object (state), "held"));

  g_clear_pointer (&state, json_object_unref);
  state = wait_applied (game, send_command (game, "cmd=restart"));
  g_assert_cmpstr (json_object_get_string_member (game_object (state), "state"), ==, "RUNNING");
  g_assert_cmpint (json_object_get_int_member (game_object (state), "score"), ==, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (game_object (state), "crates")), ==, 0);

  /* Events stay bounded. */
  for (int i = 0; i < 40; i++)
    send_command (game, "cmd=move&dx=-0.1");
  g_clear_pointer (&state, json_object_unref);
  state = wait_applied (game, send_command (game, "cmd=move"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (state, "events")), ==, 32);
}

/* Plays a fixed sequence and returns the final "game" object as text. */
static char *
play_script (Game *game)
{
  static const char *script[] = {
    "cmd=spawn", "cmd=drop&x=-1", "cmd=spawn", "cmd=move&dx=0.3", "cmd=drop",
    "cmd=spawn", "cmd=move", "cmd=drop&settle=false", "cmd=spawn&kind=ice", "cmd=drop&x=1.5",
    "cmd=spawn&crate=%7B%22kind%22%3A%22steel%22%2C%22width%22%3A0.9%7D", "cmd=drop&x=-0.35",
    "cmd=spawn", "cmd=drop&x=2",
  };
  g_autoptr(JsonObject) state = NULL;
  g_autoptr(JsonNode) node = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (script); i++)
    {
      g_clear_pointer (&state, json_object_unref);
      state = wait_applied (game, send_command (game, script[i]));
    }
  while (!json_object_get_boolean_member (game_object (state), "settled"))
    {
      pump (5);
      g_clear_pointer (&state, json_object_unref);
      state = get_object (game, "/state", 200);
    }
  node = json_node_init_object (json_node_alloc (), game_object (state));
  return json_to_string (node, FALSE);
}

static void
test_determinism (void)
{
  g_autoptr(Game) a = game_spawn ("--no-registry", "--tick-ms", "2", "--seed", "7", NULL);
  g_autoptr(Game) b = game_spawn ("--no-registry", "--tick-ms", "9", "--seed", "7", NULL);
  g_autoptr(Game) c = game_spawn ("--no-registry", "--tick-ms", "2", "--seed", "99", NULL);
  g_autofree char *run_a = play_script (a);
  g_autofree char *run_b = play_script (b);
  g_autofree char *run_c = NULL;

  g_autofree char *raw_state = NULL;

  g_assert_cmpstr (run_a, ==, run_b);
  /* Positions print as short decimals, not as the nearest binary double. */
  g_assert_cmpuint (raw_get (a, "/state", &raw_state), ==, 200);
  g_assert_nonnull (strstr (raw_state, "\"x\":-0.35,"));
  g_assert_nonnull (strstr (raw_state, "\"width\":0.9,"));
  command_and_wait (c, "cmd=set_seed&seed=7");
  run_c = play_script (c);
  g_assert_cmpstr (run_a, ==, run_c);
}

/* ---- the launch declaration ------------------------------------------ */

static void
test_launch_declaration (void)
{
  g_autofree char *src = g_build_filename (GG_TEST_SRCDIR, "refgame", "gamebridge.json", NULL);
  g_autofree char *exe_dir = g_path_get_dirname (RG_REFGAME_EXE);
  g_autofree char *built = g_build_filename (exe_dir, "gamebridge.json", NULL);
  g_autoptr(JsonObject) decl = read_json_file (src);
  g_autoptr(JsonObject) built_decl = read_json_file (built);
  JsonObject *launch = json_object_get_object_member (decl, "launch");
  JsonArray *argv = json_object_get_array_member (launch, "argv");
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(Game) game = NULL;
  g_autoptr(JsonObject) health = NULL;
  gboolean has_port = FALSE;

  g_assert_cmpstr (json_object_get_string_member (decl, "name"), ==, "Crate Stacker");
  g_assert_cmpstr (json_object_get_string_member (built_decl, "name"), ==, "Crate Stacker");
  g_assert_cmpstr (json_object_get_string_member (launch, "cwd"), ==, ".");
  g_assert_nonnull (json_object_get_string_member (launch, "portRange"));
  g_assert_cmpint (json_object_get_int_member (launch, "readyTimeoutMs"), >, 0);

  /* Run it as a launcher would: relative to the declaration's directory, in
   * the build tree, with {port} substituted (0 here: any free port). */
  for (guint i = 1; i < json_array_get_length (argv); i++)
    {
      const char *a = json_array_get_string_element (argv, i);

      has_port |= g_str_equal (a, "{port}");
      g_ptr_array_add (args, g_str_equal (a, "{port}") ? g_strdup ("0") : g_strdup (a));
    }
  g_ptr_array_add (args, g_strdup ("--no-registry"));
  g_ptr_array_add (args, NULL);
  g_assert_true (has_port);
  g_assert_cmpstr (json_array_get_string_element (argv, 0), ==, "./gamegate-refgame");
  g_assert_true (g_file_test (RG_REFGAME_EXE, G_FILE_TEST_IS_EXECUTABLE));
  game = game_spawn_full ((const char * const *) args->pdata, exe_dir, NULL, TRUE);
  health = get_object (game, "/health", 200);
  g_assert_true (json_object_get_boolean_member (health, "ok"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/refgame/health", test_health);
  g_test_add_func ("/refgame/state-fields", test_state_fields);
  g_test_add_func ("/refgame/command-applied", test_command_applied);
  g_test_add_func ("/refgame/fire-and-forget", test_fire_and_forget);
  g_test_add_func ("/refgame/queue-full", test_queue_full);
  g_test_add_func ("/refgame/unknown-command", test_unknown_command);
  g_test_add_func ("/refgame/bad-requests", test_bad_requests);
  g_test_add_func ("/refgame/tools-manifest", test_tools_manifest);
  g_test_add_func ("/refgame/pause-resume", test_pause_resume);
  g_test_add_func ("/refgame/game-over-restart", test_game_over_and_restart);
  g_test_add_func ("/refgame/determinism", test_determinism);
  g_test_add_func ("/refgame/launch-declaration", test_launch_declaration);

  return g_test_run ();
}
