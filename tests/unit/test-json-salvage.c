/* test-json-salvage.c: gg_json_parse_salvage(), what a refused document
 * shows before its first error, by which a protocol answers a broken
 * message with the id it carries: exact JSON for numbers past a double's
 * range, truncation, junk, bad escapes, invalid UTF-8 and nesting.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <gamegate.h>

/* 1 followed by 400 zeros: valid JSON, beyond a double. */
static char *
huge_number (void)
{
  g_autofree char *zeros = g_strnfill (400, '0');

  return g_strconcat ("1", zeros, NULL);
}

static void
check (const char *text,
       gssize      length,
       const char *expected,
       gboolean    expected_complete)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) refused = gg_json_parse (text, length, 0, &error);
  g_autoptr(JsonNode) shown = NULL;
  g_autofree char *got = NULL;
  gboolean complete = !expected_complete;

  g_test_message ("salvaging: %.*s", length < 0 ? (int) strlen (text) : (int) length, text);
  /* Only what the strict parse refuses needs salvaging. */
  g_assert_null (refused);
  g_assert_nonnull (error);
  shown = gg_json_parse_salvage (text, length, 0, &complete);
  got = shown != NULL ? gg_json_to_string (shown) : NULL;
  g_assert_cmpstr (got, ==, expected);
  g_assert_cmpint (complete, ==, expected_complete);
}

static void
test_out_of_range (void)
{
  g_autofree char *huge = huge_number ();
  g_autofree char *before = g_strdup_printf ("{\"v\":\"gabp/1\",\"id\":\"a\",\"type\":\"request\","
                                             "\"method\":\"session/hello\",\"params\":{\"n\":%s}}", huge);
  g_autofree char *after = g_strdup_printf ("{\"params\":{\"n\":[-%s,1,%s.5e3]},\"id\":\"b\"}", huge, huge);
  g_autofree char *alone = g_strdup (huge);

  check (before, -1,
         "{\"v\":\"gabp/1\",\"id\":\"a\",\"type\":\"request\",\"method\":\"session/hello\",\"params\":{\"n\":null}}", TRUE);
  /* The whole document is read: an id after the numbers counts too. */
  check (after, -1, "{\"params\":{\"n\":[null,1,null]},\"id\":\"b\"}", TRUE);
  check (alone, -1, "null", TRUE);
  check ("{\"id\":\"c\",\"x\":1e400}", -1, "{\"id\":\"c\",\"x\":null}", TRUE);
}

static void
test_broken (void)
{
  g_autofree char *huge = huge_number ();
  g_autofree char *then_broken = g_strdup_printf ("{\"id\":\"d\",\"n\":%s,oops}", huge);

  /* Truncated: the members before the cut. */
  check ("{\"v\":\"gabp/1\",\"id\":\"e\"", -1, "{\"v\":\"gabp/1\",\"id\":\"e\"}", FALSE);
  check ("{\"v\":\"gabp/1\",\"id\":\"e\" \r\n", -1, "{\"v\":\"gabp/1\",\"id\":\"e\"}", FALSE);
  check ("{\"id\":\"e\",\"n\":12", -1, "{\"id\":\"e\"}", FALSE);
  check ("[\"e\",", -1, "[\"e\"]", FALSE);
  check ("{\"v\":\"gabp/1\",\"id\":\"e\",\"type\":\"requ", -1, "{\"v\":\"gabp/1\",\"id\":\"e\"}", FALSE);
  check ("{\"v\":\"gabp/1\",\"id\":\"e\",\"type\":", -1, "{\"v\":\"gabp/1\",\"id\":\"e\"}", FALSE);
  check ("{\"id\":\"e\",\"params\":{\"a\":[1,2", -1, "{\"id\":\"e\",\"params\":{\"a\":[1]}}", FALSE);
  /* An id cut short is no id. */
  check ("{\"v\":\"gabp/1\",\"id\":\"550e84", -1, "{\"v\":\"gabp/1\"}", FALSE);
  /* Junk, a bad escape, a control character, a trailing value. */
  check ("{\"id\":\"f\",oops}", -1, "{\"id\":\"f\"}", FALSE);
  check ("{\"id\":\"f\\q\",\"type\":\"request\"}", -1, "{}", FALSE);
  check ("{\"type\":\"request\",\"id\":\"f\tg\"}", -1, "{\"type\":\"request\"}", FALSE);
  check ("{\"id\":\"f\"} {\"id\":\"g\"}", -1, "{\"id\":\"f\"}", FALSE);
  check (then_broken, -1, "{\"id\":\"d\",\"n\":null}", FALSE);
  /* Invalid UTF-8 or a NUL byte: what comes before. */
  check ("{\"id\":\"h\",\"s\":\"\xff\"}", -1, "{\"id\":\"h\"}", FALSE);
  check ("{\"id\":\"h\"}\xc3", -1, "{\"id\":\"h\"}", FALSE);
  check ("{\"id\":\"i\",\"s\":\"a\0b\"}", 21, "{\"id\":\"i\"}", FALSE);
  /* Nothing of a value before the error. */
  check ("oops", -1, NULL, FALSE);
  check ("", -1, NULL, FALSE);
  check ("}", -1, NULL, FALSE);
  check ("\xff{}", -1, NULL, FALSE);
}

/* What gg_json_parse() takes, salvaging gives whole. */
static void
test_valid (void)
{
  const char *const documents[] = { "12", "-0.5e3", "\"x\"", "null", "[1,{\"a\":[]}]", "{\"id\":\"k\",\"n\":1e300}",
                                    " 7 ", NULL };

  for (guint i = 0; documents[i] != NULL; i++)
    {
      g_autoptr(JsonNode) parsed = gg_json_parse (documents[i], -1, 0, NULL);
      gboolean complete = FALSE;
      g_autoptr(JsonNode) shown = gg_json_parse_salvage (documents[i], -1, 0, &complete);

      g_assert_nonnull (parsed);
      g_assert_nonnull (shown);
      g_assert_true (complete);
      g_assert_true (gg_json_equal (parsed, shown));
    }
}

static void
test_depth (void)
{
  g_autoptr(GString) deep = g_string_new ("{\"id\":\"j\",\"a\":");
  g_autoptr(GString) expected = g_string_new ("{\"id\":\"j\",\"a\":");

  /* 128 levels in all are allowed; the 129th bracket is where it breaks. */
  for (guint i = 0; i < GG_JSON_DEFAULT_MAX_DEPTH; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < GG_JSON_DEFAULT_MAX_DEPTH - 1; i++)
    g_string_append_c (expected, '[');
  for (guint i = 0; i < GG_JSON_DEFAULT_MAX_DEPTH - 1; i++)
    g_string_append_c (expected, ']');
  g_string_append_c (expected, '}');
  check (deep->str, -1, expected->str, FALSE);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json/salvage/out-of-range", test_out_of_range);
  g_test_add_func ("/json/salvage/broken", test_broken);
  g_test_add_func ("/json/salvage/depth", test_depth);
  g_test_add_func ("/json/salvage/valid", test_valid);
  return g_test_run ();
}
