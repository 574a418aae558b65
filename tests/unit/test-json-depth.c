/* test-json-depth.c: no document deeper than parsing accepts (128 levels)
 * can be built: paths are refused past 128 segments and gg_json_path_set()
 * refuses a value that would nest past the limit. The deepest documents
 * that can exist go through every JSON walk of libgamegate (copy,
 * equality, output, merge patch, paths).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-test-util.h"

static char *
repeat_path (guint n)
{
  GString *path = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append (path, i > 0 ? ".a" : "a");
  return g_string_free (path, FALSE);
}

/* {"a":{"a":...{"a":<leaf>}...}} with @levels objects. */
static char *
nested_text (guint       levels,
             const char *leaf)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < levels; i++)
    g_string_append (text, "{\"a\":");
  g_string_append (text, leaf);
  for (guint i = 0; i < levels; i++)
    g_string_append_c (text, '}');
  return g_string_free (text, FALSE);
}

static void
test_path_segments (void)
{
  g_autofree char *p128 = repeat_path (128);
  g_autofree char *p129 = repeat_path (129);
  g_autofree char *p400k = repeat_path (400000);
  g_auto(GStrv) ok = NULL;
  g_auto(GStrv) refused = NULL;
  g_auto(GStrv) huge = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) huge_error = NULL;

  ok = gg_json_path_split (p128, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (ok), ==, 128);
  refused = gg_json_path_split (p129, &error);
  g_assert_null (refused);
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_TOO_DEEP);
  g_assert_cmpstr (error->message, ==, "the path has more than 128 segments");
  huge = gg_json_path_split (p400k, &huge_error);
  g_assert_null (huge);
  g_assert_error (huge_error, GG_JSON_ERROR, GG_JSON_ERROR_TOO_DEEP);
}

static void
test_set_depth (void)
{
  g_autofree char *p128 = repeat_path (128);
  g_autofree char *p127 = repeat_path (127);
  g_autofree char *p129 = repeat_path (129);
  g_autoptr(JsonNode) root = gg_json_parse ("{}", -1, 0, NULL);
  g_autoptr(JsonNode) scalar = gg_json_parse ("1", -1, 0, NULL);
  g_autoptr(JsonNode) one = gg_json_parse ("{}", -1, 0, NULL);
  g_autoptr(JsonNode) two = gg_json_parse ("{\"x\":[]}", -1, 0, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) again = NULL;

  /* 128 segments and a scalar: 128 levels, the most a parse accepts */
  g_assert_true (gg_json_path_set (root, p128, scalar, &error));
  g_assert_no_error (error);
  /* 127 segments and one more level: still 128 */
  g_assert_true (gg_json_path_set (root, p127, one, &error));
  g_assert_no_error (error);
  /* 127 segments and two more levels: 129, refused, nothing changed */
  g_assert_false (gg_json_path_set (root, p127, two, &error));
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_TOO_DEEP);
  g_assert_cmpstr (error->message, ==, "the value would nest deeper than 128 levels");
  g_clear_error (&error);
  g_assert_false (gg_json_path_set (root, p129, scalar, &error));
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_TOO_DEEP);
  g_clear_error (&error);

  /* what was built reads back with the parse limit */
  text = gg_json_to_string (root);
  again = gg_json_parse (text, -1, 128, &error);
  g_assert_no_error (error);
  g_assert_true (gg_json_equal (root, again));
}

/* The deepest documents through every walk: copy, equality, output and a
 * merge patch never deeper than its inputs. */
static void
test_deepest_documents (void)
{
  g_autofree char *deep_text = nested_text (128, "1");
  g_autofree char *patch_text = nested_text (128, "{}");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) deep = gg_json_parse (deep_text, -1, 128, &error);
  g_autoptr(JsonNode) too_deep = NULL;
  g_autoptr(JsonNode) copy = NULL;
  g_autoptr(JsonNode) merged = NULL;
  g_autofree char *out = NULL;
  g_autofree char *merged_text = NULL;
  g_autoptr(JsonNode) reparsed = NULL;

  g_assert_no_error (error);
  too_deep = gg_json_parse (patch_text, -1, 128, &error);
  g_assert_null (too_deep);
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_TOO_DEEP);
  g_clear_error (&error);

  copy = gg_json_copy (deep);
  g_assert_true (gg_json_equal (deep, copy));
  out = gg_json_to_string (copy);
  g_assert_cmpstr (out, ==, deep_text);
  merged = gg_json_merge_patch (deep, copy);
  merged_text = gg_json_to_string (merged);
  reparsed = gg_json_parse (merged_text, -1, 128, &error);
  g_assert_no_error (error);
  g_assert_true (gg_json_equal (reparsed, deep));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json/depth/path-segments", test_path_segments);
  g_test_add_func ("/json/depth/set", test_set_depth);
  g_test_add_func ("/json/depth/deepest-documents", test_deepest_documents);
  return g_test_run ();
}
