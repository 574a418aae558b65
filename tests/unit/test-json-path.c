/* test-json-path.c: dot paths (get, set, remove, split).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-test-util.h"

static JsonNode *
parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = gg_json_parse (text, -1, 0, &error);

  g_assert_no_error (error);
  return node;
}

static void
assert_doc (JsonNode   *node,
            const char *expected)
{
  g_autofree char *text = gg_json_to_string (node);
  g_assert_cmpstr (text, ==, expected);
}

static const char *const state_json =
  "{\"player\":{\"gold\":10,\"name\":\"Ann\"},"
  "\"party\":[{\"name\":\"Bo\"},{\"name\":\"Cy\"}],"
  "\"flag\":null,\"1\":\"one\"}";

static void
test_split (void)
{
  static const struct {
    const char *path;
    guint       n;
  } good[] = {
    { "", 0 }, { "a", 1 }, { "a.b", 2 }, { "party.0.name", 3 }, { "0", 1 },
    { "a b.c-d", 2 }, { "\xc3\xa9t\xc3\xa9", 1 }, { "123456789", 1 }, { "-x", 1 }, { "a-1", 1 },
  };
  static const char *const bad[] = {
    ".", "..", "a..b", ".a", "a.", "a.b.", "01", "a.00", "a.-1", "-1", "1234567890",
    "a.99999999999999999999", "\xff", "a.\xc3",
  };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(GError) error = NULL;
      g_auto(GStrv) segments = gg_json_path_split (good[i].path, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (g_strv_length (segments), ==, good[i].n);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_auto(GStrv) segments = gg_json_path_split (bad[i], &error);

      if (segments != NULL)
        g_error ("accepted path '%s'", bad[i]);
      g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_BAD_PATH);
    }
}

static void
assert_get (JsonNode   *root,
            const char *path,
            const char *expected)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = gg_json_path_get (root, path, &error);

  g_assert_no_error (error);
  assert_doc (node, expected);
}

static void
assert_get_fails (JsonNode   *root,
                  const char *path,
                  gint        code,
                  const char *message)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = gg_json_path_get (root, path, &error);

  g_assert_null (node);
  g_assert_error (error, GG_JSON_ERROR, code);
  if (message != NULL)
    g_assert_cmpstr (error->message, ==, message);
}

static void
test_get (void)
{
  g_autoptr(JsonNode) root = parse (state_json);

  assert_get (root, "", state_json);
  assert_get (root, "player.gold", "10");
  assert_get (root, "player", "{\"gold\":10,\"name\":\"Ann\"}");
  assert_get (root, "party.0.name", "\"Bo\"");
  assert_get (root, "party.1", "{\"name\":\"Cy\"}");
  assert_get (root, "flag", "null");
  /* A digit segment on an object is a member name. */
  assert_get (root, "1", "\"one\"");

  assert_get_fails (root, "player.silver", GG_JSON_ERROR_NOT_FOUND, "player.silver: not found");
  assert_get_fails (root, "party.2", GG_JSON_ERROR_NOT_FOUND, "party.2: not found");
  assert_get_fails (root, "party.first", GG_JSON_ERROR_NOT_FOUND,
                    "party is an array; 'first' is not an index");
  assert_get_fails (root, "player.gold.x", GG_JSON_ERROR_NOT_CONTAINER,
                    "player.gold is not an object or array");
  assert_get_fails (root, "flag.x", GG_JSON_ERROR_NOT_CONTAINER, "flag is not an object or array");
  assert_get_fails (root, "a..b", GG_JSON_ERROR_BAD_PATH, NULL);
  assert_get_fails (root, "party.01", GG_JSON_ERROR_BAD_PATH, NULL);
  assert_get_fails (root, "party.-1", GG_JSON_ERROR_BAD_PATH, NULL);
  assert_get_fails (root, "party.99999999999", GG_JSON_ERROR_BAD_PATH, NULL);

  {
    g_autoptr(JsonNode) scalar = parse ("5");
    assert_get (scalar, "", "5");
    assert_get_fails (scalar, "a", GG_JSON_ERROR_NOT_CONTAINER, "(root) is not an object or array");
  }
}

static void
set_ok (JsonNode   *root,
        const char *path,
        const char *value)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) v = parse (value);

  g_assert_true (gg_json_path_set (root, path, v, &error));
  g_assert_no_error (error);
}

static void
set_fails (JsonNode   *root,
           const char *path,
           gint        code,
           const char *message)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) v = parse ("1");

  g_assert_false (gg_json_path_set (root, path, v, &error));
  g_assert_error (error, GG_JSON_ERROR, code);
  if (message != NULL)
    g_assert_cmpstr (error->message, ==, message);
}

static void
test_set (void)
{
  g_autoptr(JsonNode) root = parse ("{}");

  set_ok (root, "player.gold", "10");
  assert_doc (root, "{\"player\":{\"gold\":10}}");
  set_ok (root, "player.gold", "11");
  set_ok (root, "player.name", "\"Ann\"");
  assert_doc (root, "{\"player\":{\"gold\":11,\"name\":\"Ann\"}}");

  /* Creates objects on the way, not arrays. */
  set_ok (root, "a.b.c", "[]");
  assert_doc (root, "{\"player\":{\"gold\":11,\"name\":\"Ann\"},\"a\":{\"b\":{\"c\":[]}}}");

  /* Index n of an n-element array appends, also on the way. */
  set_ok (root, "a.b.c.0", "\"x\"");
  set_ok (root, "a.b.c.1", "\"y\"");
  set_ok (root, "a.b.c.2.name", "\"z\"");
  assert_doc (gg_json_path_get (root, "a.b.c", NULL), "[\"x\",\"y\",{\"name\":\"z\"}]");

  /* Replacing an element, also with another type. */
  set_ok (root, "a.b.c.0", "{\"k\":1}");
  set_ok (root, "a.b.c.1", "null");
  set_ok (root, "a.b.c.2", "7");
  assert_doc (gg_json_path_get (root, "a.b.c", NULL), "[{\"k\":1},null,7]");

  /* Replacing a member with another type. */
  set_ok (root, "player", "3.5");
  set_ok (root, "a.b", "\"s\"");
  assert_doc (root, "{\"player\":3.5,\"a\":{\"b\":\"s\"}}");

  set_fails (root, "player.gold", GG_JSON_ERROR_NOT_CONTAINER, "player is not an object or array");
  set_fails (root, "a.b.c.d", GG_JSON_ERROR_NOT_CONTAINER, "a.b is not an object or array");
  set_fails (root, "", GG_JSON_ERROR_BAD_PATH, NULL);
  set_fails (root, "a.", GG_JSON_ERROR_BAD_PATH, NULL);
  set_fails (root, ".a", GG_JSON_ERROR_BAD_PATH, NULL);

  set_ok (root, "list", "[1]");
  set_fails (root, "list.2", GG_JSON_ERROR_NOT_FOUND, "list.2: not found");
  set_fails (root, "list.5.x", GG_JSON_ERROR_NOT_FOUND, "list.5: not found");
  set_fails (root, "list.x", GG_JSON_ERROR_NOT_FOUND, NULL);
  set_fails (root, "list.0.x", GG_JSON_ERROR_NOT_CONTAINER, "list.0 is not an object or array");
  assert_doc (root, "{\"player\":3.5,\"a\":{\"b\":\"s\"},\"list\":[1]}");

  {
    g_autoptr(JsonNode) scalar = parse ("true");
    set_fails (scalar, "a", GG_JSON_ERROR_NOT_CONTAINER, "(root) is not an object or array");
    assert_doc (scalar, "true");
  }
  {
    g_autoptr(JsonNode) array = parse ("[]");
    set_ok (array, "0", "1");
    set_ok (array, "1.a", "2");
    assert_doc (array, "[1,{\"a\":2}]");
  }
}

static void
test_set_copies (void)
{
  g_autoptr(JsonNode) root = parse ("{}");
  g_autoptr(JsonNode) value = parse ("{\"x\":[1]}");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) two = parse ("2");

  g_assert_true (gg_json_path_set (root, "v", value, &error));
  g_assert_true (gg_json_path_set (root, "w", value, &error));
  g_assert_true (gg_json_path_set (root, "v.x.0", two, &error));
  g_assert_no_error (error);
  assert_doc (root, "{\"v\":{\"x\":[2]},\"w\":{\"x\":[1]}}");
  assert_doc (value, "{\"x\":[1]}");
}

static void
test_remove (void)
{
  g_autoptr(JsonNode) root = parse (state_json);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) gold = NULL;
  g_autoptr(JsonNode) first = NULL;
  g_autoptr(JsonNode) none = NULL;

  gold = gg_json_path_remove (root, "player.gold", &error);
  g_assert_no_error (error);
  assert_doc (gold, "10");

  first = gg_json_path_remove (root, "party.0", &error);
  g_assert_no_error (error);
  assert_doc (first, "{\"name\":\"Bo\"}");
  assert_doc (root, "{\"player\":{\"name\":\"Ann\"},\"party\":[{\"name\":\"Cy\"}],"
                    "\"flag\":null,\"1\":\"one\"}");

  none = gg_json_path_remove (root, "party.1", &error);
  g_assert_null (none);
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_NOT_FOUND);
  g_clear_error (&error);

  none = gg_json_path_remove (root, "player.gold", &error);
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_NOT_FOUND);
  g_clear_error (&error);

  none = gg_json_path_remove (root, "flag.x", &error);
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_NOT_CONTAINER);
  g_clear_error (&error);

  none = gg_json_path_remove (root, "", &error);
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_BAD_PATH);
  g_clear_error (&error);

  none = gg_json_path_remove (root, "party..0", &error);
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_BAD_PATH);
  g_clear_error (&error);

  {
    g_autoptr(JsonNode) flag = gg_json_path_remove (root, "flag", &error);
    g_assert_no_error (error);
    assert_doc (flag, "null");
  }
  assert_doc (root, "{\"player\":{\"name\":\"Ann\"},\"party\":[{\"name\":\"Cy\"}],\"1\":\"one\"}");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json-path/split", test_split);
  g_test_add_func ("/json-path/get", test_get);
  g_test_add_func ("/json-path/set", test_set);
  g_test_add_func ("/json-path/set-copies", test_set_copies);
  g_test_add_func ("/json-path/remove", test_remove);

  return g_test_run ();
}
