/* test-json-partial.c: _gg_json_partial_parse, the value a JSON document
 * cut short shows so far (schema turns' `partial` events).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-json-partial-private.h"

/* The compact form of what @length bytes of @text show, or NULL. */
static char *
partial_len (const char *text,
             gsize       length)
{
  g_autoptr(JsonNode) node = _gg_json_partial_parse (text, length, GG_JSON_DEFAULT_MAX_DEPTH);

  return node != NULL ? gg_json_to_string (node) : NULL;
}

static char *
partial (const char *text)
{
  return partial_len (text, strlen (text));
}

static void
assert_partial (const char *text,
                const char *expected)
{
  g_autofree char *got = partial (text);

  if (g_strcmp0 (got, expected) != 0)
    g_error ("%s: expected %s, got %s", text, expected ? expected : "NULL", got ? got : "NULL");
}

static void
test_truncated (void)
{
  /* Nothing begun yet. */
  assert_partial ("", NULL);
  assert_partial ("   \n", NULL);
  /* Open containers are closed. */
  assert_partial ("{", "{}");
  assert_partial ("[", "[]");
  assert_partial (" [ [ {", "[[{}]]");
  /* An open string shows what it has; an empty one as soon as it opens. */
  assert_partial ("{\"line\":\"", "{\"line\":\"\"}");
  assert_partial ("{\"line\":\"Hel", "{\"line\":\"Hel\"}");
  assert_partial ("\"top", "\"top\"");
  assert_partial ("[\"a\",\"b", "[\"a\",\"b\"]");
  /* An incomplete key, or a key without its value, is left out. */
  assert_partial ("{\"emo", "{}");
  assert_partial ("{\"emotion\"", "{}");
  assert_partial ("{\"emotion\" :", "{}");
  assert_partial ("{\"emotion\":\"angry\",\"li", "{\"emotion\":\"angry\"}");
  assert_partial ("{\"emotion\":\"angry\",", "{\"emotion\":\"angry\"}");
  /* Dangling numbers and unfinished literals are left out. */
  assert_partial ("{\"n\":12", "{}");
  assert_partial ("{\"n\":12,", "{\"n\":12}");
  assert_partial ("{\"n\":-1.5e3}", "{\"n\":-1500.0}");
  assert_partial ("[1,2", "[1]");
  assert_partial ("[tr", "[]");
  assert_partial ("[true", "[true]");
  assert_partial ("[false,nul", "[false]");
  assert_partial ("12", NULL);
  assert_partial ("12 ", "12");
  assert_partial ("nul", NULL);
  assert_partial ("null", "null");
  /* Escapes show once complete; a surrogate pair only as a pair. */
  assert_partial ("[\"a\\", "[\"a\"]");
  assert_partial ("[\"a\\n", "[\"a\\n\"]");
  assert_partial ("[\"a\\u00", "[\"a\"]");
  assert_partial ("[\"a\\u00e9", "[\"a\xc3\xa9\"]");
  assert_partial ("[\"a\\ud83d", "[\"a\"]");
  assert_partial ("[\"a\\ud83d\\ude0", "[\"a\"]");
  assert_partial ("[\"a\\ud83d\\ude00", "[\"a\xf0\x9f\x98\x80\"]");
  /* A UTF-8 character cut in two is left out until it is whole. */
  assert_partial ("[\"caf\xc3", "[\"caf\"]");
  assert_partial ("[\"caf\xc3\xa9", "[\"caf\xc3\xa9\"]");
  assert_partial ("[\"\xf0\x9f\x98", "[\"\"]");
  /* Complete documents read as themselves. */
  assert_partial ("{\"a\":[1,{\"b\":null}],\"c\":\"d\"}", "{\"a\":[1,{\"b\":null}],\"c\":\"d\"}");
  assert_partial ("{\"a\":{}} \n", "{\"a\":{}}");
  assert_partial ("[[],[]]", "[[],[]]");
}

/* Every prefix of a document gives nothing or a value, the whole gives
 * the document, and a string member only ever grows. */
static void
test_every_prefix (void)
{
  const char *doc = "{\"emotion\": \"happy\", \"line\": \"Caf\xc3\xa9 \\\"au\\\" lait \\u2603!\", "
                    "\"player_options\": [\"Yes\", \"No\"], \"n\": [1, -2.5, 3e2], \"ends_conversation\": false}";
  gsize length = strlen (doc);
  g_autofree char *last_line = g_strdup ("");

  for (gsize i = 0; i <= length; i++)
    {
      g_autoptr(JsonNode) node = _gg_json_partial_parse (doc, i, GG_JSON_DEFAULT_MAX_DEPTH);

      if (i == 0)
        g_assert_null (node);
      if (node == NULL)
        continue;
      g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
      if (json_object_has_member (json_node_get_object (node), "line"))
        {
          const char *line = json_object_get_string_member (json_node_get_object (node), "line");

          g_assert_true (g_str_has_prefix (line, last_line));
          g_free (last_line);
          last_line = g_strdup (line);
        }
    }
  {
    g_autoptr(JsonNode) whole = gg_json_parse (doc, -1, 0, NULL);
    g_autoptr(JsonNode) node = _gg_json_partial_parse (doc, length, GG_JSON_DEFAULT_MAX_DEPTH);

    g_assert_true (gg_json_equal (whole, node));
  }
  g_assert_cmpstr (last_line, ==, "Caf\xc3\xa9 \"au\" lait \xe2\x98\x83!");
}

/* Text that cannot begin a JSON document shows nothing. */
static void
test_broken (void)
{
  const char *bad[] = {
    "}", "]", "{]", "[}", "[1}", "{\"a\"}", "{\"a\" 1", "{\"a\":1 \"b\"", "{,", "[,", "[1,]", "{\"a\":1,}",
    "{1:2}", "{'a':1}", "[01,", "[1.,", "[-,", "[+1,", "[1e,", "[truex", "[nulL", "[fals]", "x", "// c\n{",
    "{\"a\":1}}", "{\"a\":1} x", "[1] [", "\"a\" \"b\"", "[\"\\x\"", "[\"\\u12g\"", "[\"\\ude00\"",
    "[\"\\ud83d\\n\"", "[\"\\ud83d\"]", "[\"\\ud83d\\ud83d\"", "[\"tab\there\"", "[\"\xff\"", "[\"\xc0\xaf\"",
    "[\"\xed\xa0\x80\"", "[\"\xc3\"x", "[\"\xc3(", "{\"a\"::1}", "[NaN,", "[Infinity,", "[1,,2",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    assert_partial (bad[i], NULL);
  /* An embedded NUL is no JSON either. */
  {
    g_autofree char *got = partial_len ("[\"a\0b\"]", 7);
    g_assert_null (got);
    g_free (got);
    got = partial_len ("[1,\0", 4);
    g_assert_null (got);
  }
  g_assert_null (_gg_json_partial_parse (NULL, 0, 10));
}

/* Deep, long and large input: limited, iterative, linear. */
static void
test_hostile (void)
{
  GString *deep = g_string_new (NULL);
  g_autofree char *long_text = NULL;
  g_autofree char *got = NULL;

  /* Nesting past the limit fails; at the limit it works. */
  for (guint i = 0; i < GG_JSON_DEFAULT_MAX_DEPTH; i++)
    g_string_append_c (deep, '[');
  got = partial (deep->str);
  g_assert_nonnull (got);
  g_clear_pointer (&got, g_free);
  g_string_append_c (deep, '[');
  got = partial (deep->str);
  g_assert_null (got);
  /* Far deeper than any stack would take recursively. */
  for (guint i = 0; i < 200000; i++)
    g_string_append (deep, "{\"a\":[");
  got = partial (deep->str);
  g_assert_null (got);
  g_string_free (deep, TRUE);

  {
    g_autoptr(JsonNode) node = _gg_json_partial_parse ("[[[", 3, 2);
    g_assert_null (node);
  }

  /* A megabyte-long open string. */
  {
    GString *text = g_string_new ("{\"line\":\"");
    g_autoptr(JsonNode) node = NULL;

    for (guint i = 0; i < 1024 * 1024; i++)
      g_string_append_c (text, 'a' + (char) (i % 26));
    node = _gg_json_partial_parse (text->str, text->len, GG_JSON_DEFAULT_MAX_DEPTH);
    g_assert_nonnull (node);
    g_assert_cmpuint (strlen (json_object_get_string_member (json_node_get_object (node), "line")), ==,
                      1024 * 1024);
    long_text = g_string_free (text, FALSE);
  }

  /* Random bytes and random cuts of valid JSON never crash. */
  {
    g_autoptr(GRand) rand = g_rand_new_with_seed (1234);
    const char alphabet[] = "{}[]\":,\\ u0123456789abcdefeEtrunl-+. \xc3\xa9\xff\n";
    char buffer[64];

    for (guint round = 0; round < 20000; round++)
      {
        gsize n = (gsize) g_rand_int_range (rand, 0, sizeof buffer);
        g_autoptr(JsonNode) node = NULL;

        for (gsize k = 0; k < n; k++)
          buffer[k] = alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];
        node = _gg_json_partial_parse (buffer, n, 8);
        if (node != NULL)
          {
            /* What it shows is always a real JSON value. */
            g_autofree char *text = gg_json_to_string (node);
            g_autoptr(JsonNode) again = gg_json_parse (text, -1, 0, NULL);
            g_assert_nonnull (again);
          }
      }
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json-partial/truncated", test_truncated);
  g_test_add_func ("/json-partial/every-prefix", test_every_prefix);
  g_test_add_func ("/json-partial/broken", test_broken);
  g_test_add_func ("/json-partial/hostile", test_hostile);
  return g_test_run ();
}
