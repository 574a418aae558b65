/* test-merge-patch.c: RFC 7386 merge patch, with every example of the RFC.
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

/* Applies @patch to @original and checks both the value and the compact
 * text (member order: the target's first, new members last). */
static void
check (const char *original,
       const char *patch,
       const char *expected)
{
  g_autoptr(JsonNode) target = original != NULL ? parse (original) : NULL;
  g_autoptr(JsonNode) p = parse (patch);
  g_autoptr(JsonNode) want = parse (expected);
  g_autoptr(JsonNode) result = gg_json_merge_patch (target, p);
  g_autofree char *text = gg_json_to_string (result);
  g_autofree char *want_text = gg_json_to_string (want);

  if (!gg_json_equal (result, want))
    g_error ("%s + %s = %s, expected %s", original, patch, text, expected);
  g_assert_cmpstr (text, ==, want_text);

  /* Neither input is modified. */
  if (original != NULL)
    {
      g_autoptr(JsonNode) again = parse (original);
      g_assert_true (gg_json_equal (target, again));
    }
}

/* RFC 7386, Appendix A, row by row. */
static void
test_appendix_a (void)
{
  check ("{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}");
  check ("{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}");
  check ("{\"a\":\"b\"}", "{\"a\":null}", "{}");
  check ("{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}");
  check ("{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}");
  check ("{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}");
  check ("{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}", "{\"a\":{\"b\":\"d\"}}");
  check ("{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}");
  check ("[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]");
  check ("{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]");
  check ("{\"a\":\"foo\"}", "null", "null");
  check ("{\"a\":\"foo\"}", "\"bar\"", "\"bar\"");
  check ("{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}");
  check ("[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}");
  check ("{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}");
}

/* RFC 7386, section 3. */
static void
test_section_3 (void)
{
  check ("{"
         "  \"title\": \"Goodbye!\","
         "  \"author\" : {"
         "    \"givenName\" : \"John\","
         "    \"familyName\" : \"Doe\""
         "  },"
         "  \"tags\":[ \"example\", \"sample\" ],"
         "  \"content\": \"This will be unchanged\""
         "}",
         "{"
         "  \"title\": \"Hello!\","
         "  \"phoneNumber\": \"+01-123-456-7890\","
         "  \"author\": {"
         "    \"familyName\": null"
         "  },"
         "  \"tags\": [ \"example\" ]"
         "}",
         "{"
         "  \"title\": \"Hello!\","
         "  \"author\" : {"
         "    \"givenName\" : \"John\""
         "  },"
         "  \"tags\": [ \"example\" ],"
         "  \"content\": \"This will be unchanged\","
         "  \"phoneNumber\": \"+01-123-456-7890\""
         "}");
}

static void
test_null_target (void)
{
  check (NULL, "{\"a\":{\"b\":null,\"c\":1}}", "{\"a\":{\"c\":1}}");
  check (NULL, "[1]", "[1]");
  check (NULL, "null", "null");
  check ("{\"a\":1}", "{}", "{\"a\":1}");
  check ("{\"a\":1}", "{\"b\":null}", "{\"a\":1}");
}

static void
test_no_sharing (void)
{
  g_autoptr(JsonNode) target = parse ("{\"keep\":{\"x\":1},\"arr\":[1]}");
  g_autoptr(JsonNode) patch = parse ("{\"new\":{\"y\":2},\"list\":[3]}");
  g_autoptr(JsonNode) result = gg_json_merge_patch (target, patch);
  g_autoptr(GError) error = NULL;
  g_autofree char *t = NULL;
  g_autofree char *p = NULL;
  g_autoptr(JsonNode) v = json_node_init_int (json_node_alloc (), 9);

  /* Changing the result leaves both inputs alone. */
  g_assert_true (gg_json_path_set (result, "keep.x", v, &error));
  g_assert_true (gg_json_path_set (result, "new.y", v, &error));
  g_assert_true (gg_json_path_set (result, "list.0", v, &error));
  g_assert_true (gg_json_path_set (result, "arr.0", v, &error));
  g_assert_no_error (error);
  t = gg_json_to_string (target);
  p = gg_json_to_string (patch);
  g_assert_cmpstr (t, ==, "{\"keep\":{\"x\":1},\"arr\":[1]}");
  g_assert_cmpstr (p, ==, "{\"new\":{\"y\":2},\"list\":[3]}");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/merge-patch/rfc7386/appendix-a", test_appendix_a);
  g_test_add_func ("/merge-patch/rfc7386/section-3", test_section_3);
  g_test_add_func ("/merge-patch/null-target", test_null_target);
  g_test_add_func ("/merge-patch/no-sharing", test_no_sharing);

  return g_test_run ();
}
