/* test-a2g-canonical.c: RFC 8785 canonical JSON against the RFC's own
 * examples (section 3.2.3 sorting, appendix B numbers, the section 3.2.2
 * sample), key-order permutations and the manifest hash.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <gamegate.h>

#include "gg-a2g-canonical.h"

static char *
canonical (const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = gg_json_parse (json, -1, 64, &error);

  g_assert_no_error (error);
  return gg_a2g_canonical_json (node);
}

static void
test_rfc_sample (void)
{
  /* RFC 8785 section 3.2.2: input and expected output. */
  g_autofree char *out = canonical (
    "{\n  \"numbers\": [333333333.33333329, 1E30, 4.50,\n                2e-3, 0.000000000000000000000000001],\n"
    "  \"string\": \"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\",\n"
    "  \"literals\": [null, true, false]\n}");

  g_assert_cmpstr (out, ==,
                   "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
                   "\"string\":\"\xe2\x82\xac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}");
}

static void
test_rfc_sorting (void)
{
  /* RFC 8785 section 3.2.3: keys sorted by UTF-16 code units. */
  g_autofree char *out = canonical (
    "{\"\\u20ac\":\"Euro Sign\",\"\\r\":\"Carriage Return\",\"\\ufb33\":\"Hebrew Letter Dalet With Dagesh\","
    "\"1\":\"One\",\"\\ud83d\\ude00\":\"Emoji: Grinning Face\",\"\\u0080\":\"Control\","
    "\"\\u00f6\":\"Latin Small Letter O With Diaeresis\"}");
  const char *order[] = { "\\r", "1", "\xc2\x80", "\xc3\xb6", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xef\xac\xb3" };
  const char *p = out;

  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    {
      g_autofree char *key = g_strdup_printf ("\"%s\":", order[i]);
      const char *found = strstr (p, key);

      g_assert_nonnull (found);
      p = found + strlen (key);
    }
}

static void
test_rfc_numbers (void)
{
  /* RFC 8785 appendix B: IEEE 754 bit patterns and their serialisation. */
  static const struct {
    guint64 bits;
    const char *text;
  } rows[] = {
    { 0x0000000000000000, "0" },
    { 0x8000000000000000, "0" },
    { 0x0000000000000001, "5e-324" },
    { 0x8000000000000001, "-5e-324" },
    { 0x7fefffffffffffff, "1.7976931348623157e+308" },
    { 0xffefffffffffffff, "-1.7976931348623157e+308" },
    { 0x4340000000000000, "9007199254740992" },
    { 0xc340000000000000, "-9007199254740992" },
    { 0x4430000000000000, "295147905179352830000" },
    { 0x44b52d02c7e14af5, "9.999999999999997e+22" },
    { 0x44b52d02c7e14af6, "1e+23" },
    { 0x44b52d02c7e14af7, "1.0000000000000001e+23" },
    { 0x444b1ae4d6e2ef4e, "999999999999999700000" },
    { 0x444b1ae4d6e2ef4f, "999999999999999900000" },
    { 0x444b1ae4d6e2ef50, "1e+21" },
    { 0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7" },
    { 0x3eb0c6f7a0b5ed8d, "0.000001" },
    { 0x41b3de4355555553, "333333333.3333332" },
    { 0x41b3de4355555554, "333333333.33333325" },
    { 0x41b3de4355555555, "333333333.3333333" },
    { 0x41b3de4355555556, "333333333.3333334" },
    { 0x41b3de4355555557, "333333333.33333343" },
    { 0xbecbf647612f3696, "-0.0000033333333333333333" },
    { 0x43143ff3c1cb0959, "1424953923781206.2" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GString) out = g_string_new (NULL);
      double value;

      memcpy (&value, &rows[i].bits, sizeof value);
      gg_a2g_canonical_number (out, value);
      g_assert_cmpstr (out->str, ==, rows[i].text);
    }
}

static void
test_integers_and_whitespace (void)
{
  g_autofree char *a = canonical ("[ 1 , -0 , 1.0 , 100 , 1e2 , 12345678901234567 , \"\\u007f\\u2028\" ]");

  /* Integers are doubles: 12345678901234567 is 12345678901234568. */
  g_assert_cmpstr (a, ==, "[1,0,1,100,100,12345678901234568,\"\x7f\xe2\x80\xa8\"]");
}

static void
test_permutations (void)
{
  const char *variants[] = {
    "{\"b\":{\"y\":[1,2,{\"q\":true,\"p\":null}],\"x\":\"s\"},\"a\":1.50,\"c\":\"\\u00e9\"}",
    "{\"a\":1.5,\"c\":\"\xc3\xa9\",\"b\":{\"x\":\"s\",\"y\":[1,2,{\"p\":null,\"q\":true}]}}",
    "{ \"c\" : \"\\u00E9\" , \"b\" : { \"y\" : [ 1.0 , 2e0 , { \"q\" : true , \"p\" : null } ] , \"x\" : \"\\u0073\" } , \"a\" : 15e-1 }",
  };
  g_autofree char *first = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      g_autofree char *out = canonical (variants[i]);

      if (first == NULL)
        first = g_strdup (out);
      g_assert_cmpstr (out, ==, first);
    }
  g_assert_cmpstr (first, ==, "{\"a\":1.5,\"b\":{\"x\":\"s\",\"y\":[1,2,{\"p\":null,\"q\":true}]},\"c\":\"\xc3\xa9\"}");
}

static void
test_hash (void)
{
  g_autoptr(JsonNode) node = gg_json_parse ("{\"b\":2,\"a\":1}", -1, 8, NULL);
  g_autofree char *hash = gg_a2g_canonical_hash (node);
  /* sha256 of {"a":1,"b":2} */
  g_autofree char *expected = g_compute_checksum_for_string (G_CHECKSUM_SHA256, "{\"a\":1,\"b\":2}", -1);
  g_autofree char *prefixed = g_strconcat ("sha256:", expected, NULL);

  g_assert_cmpstr (hash, ==, prefixed);
  g_assert_cmpstr (expected, ==, "43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/a2g/canonical/rfc-sample", test_rfc_sample);
  g_test_add_func ("/a2g/canonical/rfc-sorting", test_rfc_sorting);
  g_test_add_func ("/a2g/canonical/rfc-numbers", test_rfc_numbers);
  g_test_add_func ("/a2g/canonical/integers-whitespace", test_integers_and_whitespace);
  g_test_add_func ("/a2g/canonical/permutations", test_permutations);
  g_test_add_func ("/a2g/canonical/hash", test_hash);
  return g_test_run ();
}
