/* test-json-canonical.c: RFC 8785 canonical JSON and its digest, against
 * the RFC's own examples (sections 3.2.2 and 3.2.3, appendix B) and key
 * orders permuted.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <gamegate.h>

static char *
canonical (const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_from_string (json, &error);

  g_assert_no_error (error);
  return gg_json_canonical_string (node);
}

static void
assert_canonical (const char *json,
                  const char *expected)
{
  g_autofree char *text = canonical (json);

  g_assert_cmpstr (text, ==, expected);
}

/* Section 3.2.2: numbers, strings and literals. */
static void
test_rfc_sample (void)
{
  assert_canonical ("{\"numbers\": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],"
                    " \"string\": \"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\","
                    " \"literals\": [null, true, false]}",
                    "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
                    "\"string\":\"\xe2\x82\xac" "$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}");
}

/* Section 3.2.3: keys sorted by UTF-16 code units, not by code points. */
static void
test_rfc_sorting (void)
{
  assert_canonical ("{\"\\u20ac\": \"Euro Sign\", \"\\r\": \"Carriage Return\", \"\\ufb33\": \"Hebrew Letter Dalet With Dagesh\","
                    " \"1\": \"One\", \"\\ud83d\\ude00\": \"Emoji: Grinning Face\", \"\\u0080\": \"Control\","
                    " \"\\u00f6\": \"Latin Small Letter O With Diaeresis\"}",
                    "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\xc2\x80\":\"Control\","
                    "\"\xc3\xb6\":\"Latin Small Letter O With Diaeresis\",\"\xe2\x82\xac\":\"Euro Sign\","
                    "\"\xf0\x9f\x98\x80\":\"Emoji: Grinning Face\",\"\xef\xac\xb3\":\"Hebrew Letter Dalet With Dagesh\"}");
}

/* Appendix B: IEEE 754 doubles as ECMAScript writes them. */
static void
test_rfc_numbers (void)
{
  static const struct { const char *in, *out; } cases[] = {
    { "0", "0" },
    { "-0.0", "0" },
    { "5e-324", "5e-324" },
    { "-5e-324", "-5e-324" },
    { "1.7976931348623157e308", "1.7976931348623157e+308" },
    { "-1.7976931348623157e308", "-1.7976931348623157e+308" },
    { "9007199254740992", "9007199254740992" },
    { "-9007199254740992", "-9007199254740992" },
    { "2.9514790517935283e20", "295147905179352830000" },
    { "9.999999999999997e22", "9.999999999999997e+22" },
    { "1e23", "1e+23" },
    { "1e21", "1e+21" },
    { "9.999999999999999e20", "999999999999999900000" },
    { "0.000001", "0.000001" },
    { "1e-7", "1e-7" },
    { "4.35", "4.35" },
    { "0.1", "0.1" },
    /* Integers a double holds exactly, and one beyond (rounded). */
    { "-35", "-35" },
    { "100.0", "100" },
    { "1e15", "1000000000000000" },
    { "-1e16", "-10000000000000000" },
    { "9007199254740993", "9007199254740992" },
    { "18014398509481990", "18014398509481990" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *json = g_strdup_printf ("[%s]", cases[i].in);
      g_autofree char *expected = g_strdup_printf ("[%s]", cases[i].out);

      assert_canonical (json, expected);
    }
}

/* The same document in other key orders and spellings: one digest. */
static void
test_digest_permutations (void)
{
  static const char * const spellings[] = {
    "{\"b\":1,\"a\":{\"y\":[1,2],\"x\":\"\\u0041\"}}",
    "{\"a\":{\"x\":\"A\",\"y\":[1.0,2e0]},\"b\":1}",
    "{ \"a\" : { \"y\" : [ 1 , 2 ] , \"x\" : \"A\" } , \"b\" : 10e-1 }",
  };
  g_autofree char *first = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (spellings); i++)
    {
      g_autoptr(JsonNode) node = json_from_string (spellings[i], NULL);
      g_autofree char *digest = gg_json_canonical_digest (node);

      g_assert_true (g_str_has_prefix (digest, "sha256:"));
      g_assert_cmpuint (strlen (digest), ==, 7 + 64);
      if (first == NULL)
        first = g_strdup (digest);
      g_assert_cmpstr (digest, ==, first);
    }
  {
    g_autoptr(JsonNode) other = json_from_string ("{\"a\":{\"x\":\"A\",\"y\":[2,1]},\"b\":1}", NULL);
    g_autofree char *digest = gg_json_canonical_digest (other);

    g_assert_cmpstr (digest, !=, first);
  }
}

/* Streaming writers: the appenders write what gg_json_canonical_string() does. */
static void
test_append (void)
{
  g_autoptr(GString) out = g_string_new ("[");
  g_autoptr(JsonNode) node = json_from_string ("{\"b\":[1.50,true,null],\"a\":\"\\u0001\\\"\\n\u00e9\"}", NULL);
  g_autofree char *whole = gg_json_canonical_string (node);

  gg_json_canonical_append (out, node);
  g_string_append_c (out, ',');
  gg_json_canonical_append_string (out, "q\"\\\t\x7f\xf0\x9f\x98\x80/");
  g_string_append_c (out, ']');
  g_assert_cmpstr (whole, ==, "{\"a\":\"\\u0001\\\"\\n\xc3\xa9\",\"b\":[1.5,true,null]}");
  g_assert_cmpstr (out->str, ==, "[{\"a\":\"\\u0001\\\"\\n\xc3\xa9\",\"b\":[1.5,true,null]},"
                                 "\"q\\\"\\\\\\t\x7f\xf0\x9f\x98\x80/\"]");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json/canonical/append", test_append);
  g_test_add_func ("/json/canonical/rfc-sample", test_rfc_sample);
  g_test_add_func ("/json/canonical/rfc-sorting", test_rfc_sorting);
  g_test_add_func ("/json/canonical/rfc-numbers", test_rfc_numbers);
  g_test_add_func ("/json/canonical/digest-permutations", test_digest_permutations);
  return g_test_run ();
}
