/* test-json.c: gg_json_parse, gg_json_to_string, gg_json_equal.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-test-util.h"

static JsonNode *
parse_ok (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = gg_json_parse (text, -1, 0, &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}

/* Parses and serialises back; the compact form must be @expected. */
static void
assert_roundtrip (const char *text,
                  const char *expected)
{
  g_autoptr(JsonNode) node = parse_ok (text);
  g_autofree char *out = gg_json_to_string (node);

  g_assert_cmpstr (out, ==, expected);
}

static void
test_parse_valid (void)
{
  assert_roundtrip ("null", "null");
  assert_roundtrip (" true ", "true");
  assert_roundtrip ("false", "false");
  assert_roundtrip ("0", "0");
  assert_roundtrip ("-0", "0");
  assert_roundtrip ("-12", "-12");
  assert_roundtrip ("9223372036854775807", "9223372036854775807");
  assert_roundtrip ("-9223372036854775808", "-9223372036854775808");
  assert_roundtrip ("1.5", "1.5");
  assert_roundtrip ("1E2", "100.0");
  assert_roundtrip ("2.5e-3", "0.0025");
  assert_roundtrip ("\"\"", "\"\"");
  assert_roundtrip ("\"a\\/b\"", "\"a/b\"");
  assert_roundtrip ("\"\\u00e9\\ud83d\\ude00\"", "\"\xc3\xa9\xf0\x9f\x98\x80\"");
  assert_roundtrip ("\"\xc3\xa9\"", "\"\xc3\xa9\"");
  assert_roundtrip ("[]", "[]");
  assert_roundtrip ("{}", "{}");
  assert_roundtrip ("\r\n\t{ \"a\" : [ 1 , { \"b\" : null } ] , \"c\" : \"d\" }\n",
                    "{\"a\":[1,{\"b\":null}],\"c\":\"d\"}");
  /* Member order is kept; a repeated key keeps its first place, its last value. */
  assert_roundtrip ("{\"a\":1,\"b\":2,\"a\":3}", "{\"a\":3,\"b\":2}");
  /* Member order is kept. */
  assert_roundtrip ("{\"z\":1,\"a\":2,\"m\":3}", "{\"z\":1,\"a\":2,\"m\":3}");
}

static void assert_parse_fails (const char *text, gssize length, guint max_depth, gint code);

/* Types, member order and parents, written out: what gg_json_to_string()
 * does not show (an integral double, a node's parent). */
static void
describe (GString  *out,
          JsonNode *node,
          JsonNode *parent)
{
  if (json_node_get_parent (node) != parent)
    g_string_append (out, "<wrong parent>");
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_NULL:
      g_string_append (out, "null");
      break;
    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_INT64)
        g_string_append_printf (out, "i%" G_GINT64_FORMAT, json_node_get_int (node));
      else if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
        g_string_append_printf (out, "d%.17g", json_node_get_double (node));
      else if (json_node_get_value_type (node) == G_TYPE_BOOLEAN)
        g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
      else
        {
          g_autofree char *escaped = g_strescape (json_node_get_string (node), NULL);

          g_string_append_printf (out, "s'%s'", escaped);
        }
      break;
    case JSON_NODE_ARRAY:
      g_string_append_c (out, '[');
      for (guint i = 0; i < json_array_get_length (json_node_get_array (node)); i++)
        {
          describe (out, json_array_get_element (json_node_get_array (node), i), node);
          g_string_append_c (out, ' ');
        }
      g_string_append_c (out, ']');
      break;
    case JSON_NODE_OBJECT:
      {
        g_autoptr(GList) members = json_object_get_members (json_node_get_object (node));

        g_string_append_c (out, '{');
        for (GList *l = members; l != NULL; l = l->next)
          {
            g_autofree char *escaped = g_strescape (l->data, NULL);

            g_string_append_printf (out, "'%s':", escaped);
            describe (out, json_object_get_member (json_node_get_object (node), l->data), node);
            g_string_append_c (out, ' ');
          }
        g_string_append_c (out, '}');
      }
      break;
    }
}

/* gg_json_parse() builds the tree itself (gg-json-tree.c): it is
 * json-glib's own, to the types, member order and parents. */
static void
test_parse_same_tree_as_json_glib (void)
{
  static const char *const docs[] = {
    "{\"a\":1,\"b\":[1,2,{\"c\":null}],\"a\":{\"x\":true},\"d\":\"e\"}",
    "[0,-0,1,-1,9223372036854775807,-9223372036854775808,1.0,-0.0,1e5,1E-5,0.1,2.50,3e0,-1.5e+2,"
    "1.7976931348623157e308,5e-324,123.456e-7]",
    "[\"\\u00e9\\ud83d\\ude00\\n\\t\\\"\\\\\\/\\b\\f\\r\",\"\xc3\xa9\",\"a\\u0041b\",\"\"]",
    " \r\n\t[ [ [ [ [ ] ] ] ] , { } , { \"\" : \"\" } ]\n",
    "{\"k\":{\"k\":{\"k\":[{\"deep\":[true,false,null]}]}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"session/respond\",\"params\":{\"session\":\"s\",\"prompt\":\"Hi\"}}",
    "\"top-level string\"", "42", "-7.25", "true", "null",
  };

  for (guint i = 0; i < G_N_ELEMENTS (docs); i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(JsonNode) ours = parse_ok (docs[i]);
      g_autoptr(GString) expected = g_string_new (NULL);
      g_autoptr(GString) actual = g_string_new (NULL);
      g_autoptr(GError) error = NULL;

      g_assert_true (json_parser_load_from_data (parser, docs[i], -1, &error));
      g_assert_no_error (error);
      describe (expected, json_parser_get_root (parser), NULL);
      describe (actual, ours, NULL);
      g_assert_cmpstr (actual->str, ==, expected->str);
    }
}

static void
test_parse_big_integers (void)
{
  g_autoptr(JsonNode) big = parse_ok ("12345678901234567890");
  g_autoptr(JsonNode) neg = parse_ok ("[-9223372036854775809, 1]");
  g_autoptr(JsonNode) also = parse_ok ("{\"a\":99999999999999999999999}");

  /* json-glib would wrap these; they become doubles instead. */
  g_assert_cmpint (json_node_get_value_type (big), ==, G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_node_get_double (big), ==, 12345678901234567890.0);
  g_assert_cmpfloat (json_array_get_double_element (json_node_get_array (neg), 0), ==,
                     -9223372036854775809.0);
  g_assert_cmpint (json_array_get_int_element (json_node_get_array (neg), 1), ==, 1);
  g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (also), "a"), ==, 1e23);

  /* Beyond the range of a double they are refused like 1e400, not turned
   * into infinity (which would serialise as null). */
  {
    g_autoptr(GString) huge = g_string_new ("[");
    g_autoptr(JsonNode) fits = NULL;

    g_string_append (huge, "-1");
    for (int i = 0; i < 400; i++)
      g_string_append_c (huge, '0');
    g_string_append_c (huge, ']');
    assert_parse_fails (huge->str, -1, 0, GG_JSON_ERROR_PARSE);
    g_string_assign (huge, "1");
    for (int i = 0; i < 308; i++)
      g_string_append_c (huge, '0');
    fits = parse_ok (huge->str);
    g_assert_cmpfloat (json_node_get_double (fits), ==, 1e308);
  }
}

static void
assert_parse_fails (const char *text,
                    gssize      length,
                    guint       max_depth,
                    gint        code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = gg_json_parse (text, length, max_depth, &error);

  if (node != NULL)
    g_error ("accepted: %s", text);
  g_assert_error (error, GG_JSON_ERROR, code);
  g_assert_true (g_str_has_prefix (error->message, "JSON parse error"));
}

static void
test_parse_invalid (void)
{
  static const char *const bad[] = {
    "", " ", "\n", "nul", "tru", "True", "NaN", "Infinity", "-Infinity", "undefined",
    "01", "-01", "00", "0x10", "+1", ".5", "1.", "1.e3", "1e", "1e+", "-", "--1", "1e400", "-1e400",
    "'a'", "\"\\x41\"", "\"\\u00\"", "\"\\u00G0\"", "\"\\a\"", "\"abc", "\"a\tb\"", "\"a\nb\"",
    "\"\x01\"", "\"\\u0000\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\ud800x\"",
    "[", "]", "[1", "[1,]", "[,1]", "[1,,2]", "[1 2]", "{", "}", "{\"a\"}", "{\"a\":}",
    "{\"a\" 1}", "{\"a\":1,}", "{a:1}", "{1:1}", "{\"a\":1 \"b\":2}", "{\"a\":1]", "[1}",
    "/* c */ 1", "// c\n1", "1 2", "[1] x", "true false", "{} {}", "[1]]", "\"\\", "\xef\xbb\xbf{}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    assert_parse_fails (bad[i], -1, 0, GG_JSON_ERROR_PARSE);
}

static void
test_parse_invalid_utf8 (void)
{
  static const char *const bad[] = {
    "\"\xff\"", "\"\xc3\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"",
    "[\"\xe2\x82\"]", "{\"\x80\":1}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    assert_parse_fails (bad[i], -1, 0, GG_JSON_ERROR_PARSE);

  /* An embedded NUL with an explicit length. */
  assert_parse_fails ("[1,\0 2]", 7, 0, GG_JSON_ERROR_PARSE);
  assert_parse_fails ("\"a\0b\"", 5, 0, GG_JSON_ERROR_PARSE);
}

static void
test_parse_length (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = gg_json_parse ("[1,2]garbage", 5, 0, &error);
  g_autoptr(JsonNode) truncated = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (node)), ==, 2);

  truncated = gg_json_parse ("[1,2]", 4, 0, &error);
  g_assert_null (truncated);
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_PARSE);
  g_clear_error (&error);

  /* Every truncation of a valid document is an error, never a crash. */
  {
    const char *doc = "{\"a\":[1,2.5,\"x\\u00e9\",{\"b\":null,\"c\":true}],\"d\":false}";
    gsize len = strlen (doc);

    for (gsize i = 0; i < len; i++)
      {
        g_autoptr(JsonNode) part = gg_json_parse (doc, (gssize) i, 0, &error);
        g_assert_null (part);
        g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_PARSE);
        g_clear_error (&error);
      }
  }
}

static void
test_parse_depth (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) deep = g_string_new (NULL);
  g_autoptr(JsonNode) ok = NULL;
  g_autoptr(JsonNode) node = NULL;

  /* 100,000 '[' must not reach json-glib's recursive parser. */
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  node = gg_json_parse (deep->str, -1, 0, &error);
  g_assert_null (node);
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_TOO_DEEP);
  g_assert_nonnull (strstr (error->message, "128"));
  g_clear_error (&error);

  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, ']');
  node = gg_json_parse (deep->str, -1, 0, &error);
  g_assert_null (node);
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_TOO_DEEP);
  g_clear_error (&error);

  /* Exactly at the limit is fine, one more is not. */
  g_string_assign (deep, "");
  for (guint i = 0; i < 3; i++)
    g_string_append (deep, "{\"a\":[");
  g_string_append (deep, "1");
  for (guint i = 0; i < 3; i++)
    g_string_append (deep, "]}");
  ok = gg_json_parse (deep->str, -1, 6, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ok);
  node = gg_json_parse (deep->str, -1, 5, &error);
  g_assert_null (node);
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_TOO_DEEP);
  g_clear_error (&error);

  /* Huge limits are clamped: json-glib recurses. */
  g_string_assign (deep, "");
  for (guint i = 0; i < 5000; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < 5000; i++)
    g_string_append_c (deep, ']');
  node = gg_json_parse (deep->str, -1, G_MAXUINT, &error);
  g_assert_null (node);
  g_assert_error (error, GG_JSON_ERROR, GG_JSON_ERROR_TOO_DEEP);
  g_clear_error (&error);

  /* Brackets inside strings do not count. */
  g_clear_pointer (&ok, json_node_unref);
  ok = gg_json_parse ("[\"[[[[[[[[[[{{{{{{{{\"]", -1, 1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ok);
}

static void
test_to_string_strings (void)
{
  static const struct {
    const char *in;
    const char *out;
  } cases[] = {
    { "plain", "\"plain\"" },
    { "quote\"back\\slash", "\"quote\\\"back\\\\slash\"" },
    { "line\nfeed\r\ttab\b\f", "\"line\\nfeed\\r\\ttab\\b\\f\"" },
    { "\x01\x1f\x7f", "\"\\u0001\\u001f\x7f\"" },
    { "a/b</script>", "\"a/b</script>\"" },
    { "\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80", "\"\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80\"" },
    { "", "\"\"" },
    /* Invalid UTF-8 from a careless caller still yields valid JSON. */
    { "bad\xff", "\"bad\xef\xbf\xbd\"" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), cases[i].in);
      g_autofree char *out = gg_json_to_string (node);
      g_autoptr(JsonNode) back = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_cmpstr (out, ==, cases[i].out);
      g_assert_null (strchr (out, '\n'));
      back = gg_json_parse (out, -1, 0, &error);
      g_assert_no_error (error);
      if (g_utf8_validate (cases[i].in, -1, NULL))
        g_assert_cmpstr (json_node_get_string (back), ==, cases[i].in);
    }

  /* Every control character, escaped and read back. */
  for (int c = 1; c < 0x20; c++)
    {
      char in[2] = { (char) c, 0 };
      g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), in);
      g_autofree char *out = gg_json_to_string (node);
      g_autoptr(JsonNode) back = parse_ok (out);

      for (const char *p = out; *p; p++)
        g_assert_cmpint ((guchar) *p, >=, 0x20);
      g_assert_cmpstr (json_node_get_string (back), ==, in);
    }
}

static void
test_to_string_numbers (void)
{
  static const struct {
    double      d;
    const char *out;
  } doubles[] = {
    { 0.1, "0.1" },
    { 1.0, "1.0" },
    { -0.0, "-0.0" },
    { 0.30000000000000004, "0.30000000000000004" },
    { 1e20, "1e+20" },
    { 1.5e-7, "1.5e-07" },
    { 123456.789, "123456.789" },
    { 1.7976931348623157e308, "1.7976931348623157e+308" },
    { 5e-324, "4.94065645841247e-324" },  /* denormal: not the shortest, still exact */
  };

  for (guint i = 0; i < G_N_ELEMENTS (doubles); i++)
    {
      g_autoptr(JsonNode) node = json_node_init_double (json_node_alloc (), doubles[i].d);
      g_autofree char *out = gg_json_to_string (node);
      g_autoptr(JsonNode) back = parse_ok (out);

      g_assert_cmpstr (out, ==, doubles[i].out);
      /* Reads back as the same double. */
      g_assert_cmpint (json_node_get_value_type (back), ==, G_TYPE_DOUBLE);
      g_assert_true (json_node_get_double (back) == doubles[i].d);
    }

  {
    g_autoptr(JsonNode) inf = json_node_init_double (json_node_alloc (), 1.0 / 0.0);
    g_autoptr(JsonNode) min = json_node_init_int (json_node_alloc (), G_MININT64);
    g_autofree char *s1 = gg_json_to_string (inf);
    g_autofree char *s2 = gg_json_to_string (min);

    g_assert_cmpstr (s1, ==, "null");
    g_assert_cmpstr (s2, ==, "-9223372036854775808");
  }
}

static void
test_object_to_string (void)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autofree char *out = NULL;

  json_object_set_string_member (object, "name", "Ann");
  json_object_set_int_member (object, "gold", 12);
  json_object_set_array_member (object, "bag", json_array_new ());
  out = gg_json_object_to_string (object);
  g_assert_cmpstr (out, ==, "{\"name\":\"Ann\",\"gold\":12,\"bag\":[]}");
}

static void
assert_equal (const char *a,
              const char *b,
              gboolean    expected)
{
  g_autoptr(JsonNode) na = parse_ok (a);
  g_autoptr(JsonNode) nb = parse_ok (b);

  if (gg_json_equal (na, nb) != expected || gg_json_equal (nb, na) != expected)
    g_error ("%s == %s should be %d", a, b, expected);
}

static void
test_equal (void)
{
  assert_equal ("1", "1.0", TRUE);
  assert_equal ("1", "1.5", FALSE);
  assert_equal ("-0", "0.0", TRUE);
  assert_equal ("9007199254740993", "9007199254740992.0", FALSE);
  assert_equal ("9223372036854775807", "9223372036854775808.0", FALSE);
  assert_equal ("\"a\"", "\"a\"", TRUE);
  assert_equal ("\"a\"", "\"b\"", FALSE);
  assert_equal ("\"1\"", "1", FALSE);
  assert_equal ("null", "null", TRUE);
  assert_equal ("null", "false", FALSE);
  assert_equal ("true", "true", TRUE);
  assert_equal ("true", "1", FALSE);
  assert_equal ("{\"a\":1,\"b\":[1,2]}", "{\"b\":[1.0,2],\"a\":1}", TRUE);
  assert_equal ("{\"a\":1}", "{\"a\":1,\"b\":2}", FALSE);
  assert_equal ("{\"a\":1}", "{\"b\":1}", FALSE);
  assert_equal ("[1,2]", "[2,1]", FALSE);
  assert_equal ("[1,2]", "[1,2,3]", FALSE);
  assert_equal ("[]", "{}", FALSE);
  assert_equal ("[{}]", "[{}]", TRUE);

  g_assert_true (gg_json_equal (NULL, NULL));
  {
    g_autoptr(JsonNode) n = parse_ok ("1");
    g_assert_false (gg_json_equal (n, NULL));
    g_assert_true (gg_json_equal (n, n));
  }
}

static void
test_speed (void)
{
  g_autoptr(GString) doc = g_string_new ("[");
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GTimer) timer = g_timer_new ();
  guint rounds = 200;

  for (guint i = 0; i < 1000; i++)
    g_string_append_printf (doc, "%s{\"id\":%u,\"name\":\"npc \\\"%u\\\"\\n\",\"x\":%u.25,\"ok\":true}",
                            i > 0 ? "," : "", i, i, i);
  g_string_append_c (doc, ']');
  node = parse_ok (doc->str);

  for (guint i = 0; i < rounds; i++)
    {
      g_autofree char *out = gg_json_to_string (node);
      if (i == 0)
        g_assert_cmpstr (out, ==, doc->str);
    }
  g_test_message ("gg_json_to_string: %.1f MB/s",
                  doc->len * rounds / g_timer_elapsed (timer, NULL) / 1e6);

  g_timer_start (timer);
  for (guint i = 0; i < rounds / 10; i++)
    {
      g_autoptr(JsonNode) again = parse_ok (doc->str);
    }
  g_test_message ("gg_json_parse: %.1f MB/s",
                  doc->len * (rounds / 10) / g_timer_elapsed (timer, NULL) / 1e6);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json/parse/valid", test_parse_valid);
  g_test_add_func ("/json/parse/big-integers", test_parse_big_integers);
  g_test_add_func ("/json/parse/same-tree-as-json-glib", test_parse_same_tree_as_json_glib);
  g_test_add_func ("/json/parse/invalid", test_parse_invalid);
  g_test_add_func ("/json/parse/invalid-utf8", test_parse_invalid_utf8);
  g_test_add_func ("/json/parse/length", test_parse_length);
  g_test_add_func ("/json/parse/depth", test_parse_depth);
  g_test_add_func ("/json/to-string/strings", test_to_string_strings);
  g_test_add_func ("/json/to-string/numbers", test_to_string_numbers);
  g_test_add_func ("/json/to-string/object", test_object_to_string);
  g_test_add_func ("/json/equal", test_equal);
  g_test_add_func ("/json/to-string/speed", test_speed);

  return g_test_run ();
}
