/* test-oam-world.c: the world blackboard behind oam's world methods.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-oam-world.h"

static JsonNode *
parse (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = gg_json_parse (json, -1, GG_JSON_DEFAULT_MAX_DEPTH, &error);
  g_assert_no_error (error);
  return node;
}

static GgOamWorld *
world_from (const char *json)
{
  g_autoptr(JsonNode) node = parse (json);
  return gg_oam_world_new ("village", json_node_get_object (node));
}

static void
assert_state (GgOamWorld *world,
              const char *expected)
{
  g_autoptr(JsonNode) snapshot = gg_oam_world_snapshot (world);
  g_autofree char *json = gg_json_to_string (snapshot);
  g_assert_cmpstr (json, ==, expected);
}

static void
record_change (GgOamWorld *world,
               const char *path,
               JsonNode   *old_value,
               JsonNode   *new_value,
               GString    *log)
{
  g_autofree char *old_json = old_value ? gg_json_to_string (old_value) : g_strdup ("-");
  g_autofree char *new_json = new_value ? gg_json_to_string (new_value) : g_strdup ("-");
  g_string_append_printf (log, "%s:%s>%s;", path, old_json, new_json);
}

static void
test_create_and_get (void)
{
  g_autoptr(GgOamWorld) world = world_from ("{\"player\":{\"gold\":60,\"party\":[{\"name\":\"Aria\"}]}}");
  g_autoptr(GError) error = NULL;
  gboolean exists = FALSE;

  g_assert_cmpstr (gg_oam_world_get_id (world), ==, "village");
  g_assert_cmpint (gg_oam_world_get_version (world), ==, 0);
  g_assert_nonnull (gg_oam_world_get_created_at (world));

  g_autoptr(JsonNode) gold = gg_oam_world_get (world, "player.gold", &exists, &error);
  g_assert_no_error (error);
  g_assert_true (exists);
  g_assert_cmpint (json_node_get_int (gold), ==, 60);

  g_autoptr(JsonNode) name = gg_oam_world_get (world, "player.party.0.name", &exists, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_node_get_string (name), ==, "Aria");

  g_autoptr(JsonNode) missing = gg_oam_world_get (world, "player.silver", &exists, &error);
  g_assert_no_error (error);
  g_assert_null (missing);
  g_assert_false (exists);

  g_autoptr(JsonNode) through = gg_oam_world_get (world, "player.gold.coins", &exists, &error);
  g_assert_no_error (error);
  g_assert_null (through);
  g_assert_false (exists);

  g_autoptr(JsonNode) bad = gg_oam_world_get (world, "player..gold", &exists, &error);
  g_assert_null (bad);
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_BAD_PATH);

  /* The world keeps its own copy: changing what it was built from or what
   * it handed out changes nothing inside. */
  g_autoptr(JsonNode) player = gg_oam_world_get (world, "player", NULL, NULL);
  json_object_set_int_member (json_node_get_object (player), "gold", 1);
  assert_state (world, "{\"player\":{\"gold\":60,\"party\":[{\"name\":\"Aria\"}]}}");
}

static void
test_set_creates_and_appends (void)
{
  g_autoptr(GgOamWorld) world = gg_oam_world_new ("w1", NULL);
  g_autoptr(GString) log = g_string_new (NULL);
  g_autoptr(GError) error = NULL;

  g_signal_connect (world, "changed", G_CALLBACK (record_change), log);

  g_autoptr(JsonNode) gold = parse ("45");
  g_assert_true (gg_oam_world_set (world, "player.gold", gold, &error));
  g_assert_no_error (error);
  assert_state (world, "{\"player\":{\"gold\":45}}");
  g_assert_cmpint (gg_oam_world_get_version (world), ==, 1);

  g_autoptr(JsonNode) list = parse ("[]");
  g_assert_true (gg_oam_world_set (world, "party", list, &error));
  g_autoptr(JsonNode) aria = parse ("\"Aria\"");
  g_assert_true (gg_oam_world_set (world, "party.0", aria, &error));
  g_assert_no_error (error);
  assert_state (world, "{\"player\":{\"gold\":45},\"party\":[\"Aria\"]}");

  /* Setting an equal value is no change. */
  g_assert_true (gg_oam_world_set (world, "player.gold", gold, &error));
  g_assert_cmpint (gg_oam_world_get_version (world), ==, 3);

  g_autoptr(JsonNode) null_value = parse ("null");
  g_assert_true (gg_oam_world_set (world, "player.gold", null_value, &error));
  assert_state (world, "{\"player\":{\"gold\":null},\"party\":[\"Aria\"]}");

  g_assert_cmpstr (log->str, ==,
                   "player.gold:->45;party:->[];party:[]>[\"Aria\"];player.gold:45>null;");
}

static void
test_set_errors_change_nothing (void)
{
  g_autoptr(GgOamWorld) world = world_from ("{\"player\":{\"gold\":60},\"tags\":[1]}");
  g_autoptr(GString) log = g_string_new (NULL);
  g_autoptr(JsonNode) value = parse ("1");
  g_autoptr(JsonNode) number_root = parse ("5");
  g_autoptr(GError) error = NULL;

  g_signal_connect (world, "changed", G_CALLBACK (record_change), log);

  g_assert_false (gg_oam_world_set (world, "player.gold.coins", value, &error));
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_NOT_CONTAINER);
  g_clear_error (&error);
  g_assert_false (gg_oam_world_set (world, "tags.5", value, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_false (gg_oam_world_set (world, ".x", value, &error));
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_BAD_PATH);
  g_clear_error (&error);
  g_assert_false (gg_oam_world_set (world, "", number_root, &error));
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_NOT_CONTAINER);
  g_clear_error (&error);

  assert_state (world, "{\"player\":{\"gold\":60},\"tags\":[1]}");
  g_assert_cmpint (gg_oam_world_get_version (world), ==, 0);
  g_assert_cmpstr (log->str, ==, "");
}

static void
test_merge_one_change_per_leaf (void)
{
  g_autoptr(GgOamWorld) world = world_from ("{\"player\":{\"gold\":60,\"hp\":10,\"name\":\"Aria\"}}");
  g_autoptr(GString) log = g_string_new (NULL);
  g_autoptr(GError) error = NULL;

  g_signal_connect (world, "changed", G_CALLBACK (record_change), log);

  g_autoptr(JsonNode) patch = parse ("{\"player\":{\"gold\":45,\"hp\":null,\"xp\":{\"level\":2}}}");
  g_assert_true (gg_oam_world_merge (world, "", patch, &error));
  g_assert_no_error (error);
  assert_state (world, "{\"player\":{\"gold\":45,\"name\":\"Aria\",\"xp\":{\"level\":2}}}");
  g_assert_cmpstr (log->str, ==, "player.gold:60>45;player.hp:10>-;player.xp.level:->2;");
  g_assert_cmpint (gg_oam_world_get_version (world), ==, 1);

  g_string_truncate (log, 0);
  g_autoptr(JsonNode) inner = parse ("{\"level\":3,\"title\":\"Squire\"}");
  g_assert_true (gg_oam_world_merge (world, "player.xp", inner, &error));
  g_assert_cmpstr (log->str, ==, "player.xp.level:2>3;player.xp.title:->\"Squire\";");

  g_string_truncate (log, 0);
  g_autoptr(JsonNode) fresh = parse ("{\"open\":true}");
  g_assert_true (gg_oam_world_merge (world, "gate", fresh, &error));
  g_assert_cmpstr (log->str, ==, "gate.open:->true;");

  g_autoptr(JsonNode) array_root = parse ("[1]");
  g_assert_false (gg_oam_world_merge (world, "", array_root, &error));
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_NOT_CONTAINER);
}

static void
test_remove (void)
{
  g_autoptr(GgOamWorld) world = world_from ("{\"player\":{\"gold\":60,\"bag\":{\"apple\":2}}}");
  g_autoptr(GString) log = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) old_value = NULL;

  g_signal_connect (world, "changed", G_CALLBACK (record_change), log);

  g_assert_true (gg_oam_world_remove (world, "player.bag", &old_value, &error));
  g_assert_no_error (error);
  g_autofree char *old_json = gg_json_to_string (old_value);
  g_assert_cmpstr (old_json, ==, "{\"apple\":2}");
  g_assert_cmpstr (log->str, ==, "player.bag.apple:2>-;");
  assert_state (world, "{\"player\":{\"gold\":60}}");

  g_clear_pointer (&old_value, json_node_unref);
  g_assert_false (gg_oam_world_remove (world, "player.bag", &old_value, &error));
  g_assert_no_error (error);
  g_assert_null (old_value);

  g_assert_false (gg_oam_world_remove (world, "", NULL, &error));
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_BAD_PATH);
  g_assert_cmpint (gg_oam_world_get_version (world), ==, 1);
}

static void
test_path_relation (void)
{
  struct { const char *sub, *changed; gboolean related; } cases[] = {
    { "", "player.gold", TRUE },
    { "player", "player.gold", TRUE },        /* inside */
    { "player.gold", "player.gold", TRUE },   /* at */
    { "player.gold", "player", TRUE },        /* above */
    { "player.gold", "", TRUE },
    { "player", "players.x", FALSE },
    { "player.gold", "player.goldfish", FALSE },
    { "player.gold", "player.hp", FALSE },
    { "party.0", "party.01", FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpint (gg_oam_path_is_related (cases[i].sub, cases[i].changed), ==, cases[i].related);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/oam/world/create-and-get", test_create_and_get);
  g_test_add_func ("/oam/world/set", test_set_creates_and_appends);
  g_test_add_func ("/oam/world/set-errors", test_set_errors_change_nothing);
  g_test_add_func ("/oam/world/merge", test_merge_one_change_per_leaf);
  g_test_add_func ("/oam/world/remove", test_remove);
  g_test_add_func ("/oam/world/path-relation", test_path_relation);

  return g_test_run ();
}
