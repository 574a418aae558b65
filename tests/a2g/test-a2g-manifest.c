/* test-a2g-manifest.c: every rule of the manifest (spec section 3), each
 * broken on its own, refused with the JSON path and the rule; and the
 * defaults a valid manifest gets. (test-a2g-session.c checks that the same
 * refusals reach a game as 400 invalid.)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <gamegate.h>

#include "gg-a2g-errors.h"
#include "gg-a2g-manifest.h"

static const char *base =
  "{\"a2g\":\"0.1\",\"game\":\"orbital-freight\",\"version\":\"0.9.2\",\"world\":\"A station.\","
  "\"entity_types\":{\"pirate\":{\"description\":\"A raider.\","
  "\"observations\":{\"hp\":{\"type\":\"integer\",\"min\":0,\"max\":100,\"bucket\":10},"
  "\"cargo_seen\":{\"type\":\"enum\",\"values\":[\"none\",\"ore\"]},\"cornered\":{\"type\":\"boolean\"},"
  "\"name\":{\"type\":\"string\"}},"
  "\"actions\":{\"attack\":{\"description\":\"Fire.\"},\"flee\":{}}}},"
  "\"scopes\":{\"station\":{\"text\":\"Security.\"}},\"profiles\":{\"coward\":{\"text\":\"Scared.\"}}}";

static JsonNode *
parse (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = gg_json_parse (json, -1, 64, &error);

  g_assert_no_error (error);
  return node;
}

static void
expect_refusal (JsonNode   *manifest,
                const char *message)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgA2gManifest) parsed = gg_a2g_manifest_parse (manifest, &error);

  g_assert_null (parsed);
  g_assert_error (error, GG_A2G_ERROR, GG_A2G_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==, message);
}

static void
expect_patch (const char *patch,
              const char *message)
{
  g_autoptr(JsonNode) target = parse (base);
  g_autoptr(JsonNode) diff = parse (patch);
  g_autoptr(JsonNode) merged = gg_json_merge_patch (target, diff);

  expect_refusal (merged, message);
}

static char *
repeat (char   c,
        gsize  n)
{
  char *text = g_malloc (n + 1);

  memset (text, c, n);
  text[n] = '\0';
  return text;
}

static void
test_valid_defaults (void)
{
  g_autoptr(JsonNode) node = parse (base);
  g_autoptr(GError) error = NULL;
  g_autoptr(GgA2gManifest) manifest = gg_a2g_manifest_parse (node, &error);
  GgA2gEntityType *type;
  GgA2gObservation *name;

  g_assert_no_error (error);
  g_assert_cmpstr (manifest->game, ==, "orbital-freight");
  g_assert_true (g_str_has_prefix (manifest->hash, "sha256:"));
  g_assert_cmpuint (strlen (manifest->hash), ==, 7 + 64);
  type = gg_a2g_manifest_get_type (manifest, "pirate");
  g_assert_nonnull (type);
  g_assert_cmpint (type->ttl_ms, ==, 2000);
  g_assert_cmpint (type->token_budget, ==, 1000);
  g_assert_cmpint (type->cache, ==, GG_A2G_CACHE_GAME);
  g_assert_cmpint (type->memory, ==, 3);
  g_assert_cmpint (type->min_confidence, ==, 0);
  g_assert_cmpuint (type->actions->len, ==, 2);
  name = gg_a2g_entity_type_get_observation (type, "name");
  g_assert_cmpuint (name->max_length, ==, 64);
  g_assert_cmpstr (g_hash_table_lookup (manifest->scopes, "station"), ==, "Security.");
}

static void
test_rules (void)
{
  static const struct {
    const char *patch, *message;
  } rows[] = {
    { "{\"a2g\":\"1.0\"}", "a2g: must be a 0.x version string" },
    { "{\"game\":null}", "game: is required" },
    { "{\"game\":\"Orbital\"}", "game: must match ^[a-z][a-z0-9_:.-]{0,63}$" },
    { "{\"game\":7}", "game: must match ^[a-z][a-z0-9_:.-]{0,63}$" },
    { "{\"version\":3}", "version: must be a string" },
    { "{\"world\":[]}", "world: must be a string" },
    { "{\"entity_types\":null}", "entity_types: is required" },
    { "{\"entity_types\":[]}", "entity_types: must be an object" },
    { "{\"entity_types\":{\"pirate\":null}}", "entity_types: at least 1 entity type" },
    { "{\"entity_types\":{\"Pirate\":{\"actions\":{\"a\":{}}}}}",
      "entity_types.Pirate: type ids must match ^[a-z][a-z0-9_:.-]{0,63}$" },
    { "{\"entity_types\":{\"pirate\":3}}", "entity_types.pirate: must be an object" },
    { "{\"entity_types\":{\"pirate\":{\"description\":false}}}",
      "entity_types.pirate.description: must be a string" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":[]}}}",
      "entity_types.pirate.observations: must be an object" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":{\"9hp\":{\"type\":\"boolean\"}}}}}",
      "entity_types.pirate.observations.9hp: observation ids must match ^[a-z][a-z0-9_:.-]{0,63}$" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":{\"hp\":1}}}}",
      "entity_types.pirate.observations.hp: must be an object" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":{\"hp\":{\"type\":null}}}}}",
      "entity_types.pirate.observations.hp.type: is required" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":{\"hp\":{\"type\":\"float\"}}}}}",
      "entity_types.pirate.observations.hp.type: must be integer, number, boolean, enum or string" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":{\"hp\":{\"min\":null}}}}}",
      "entity_types.pirate.observations.hp.min: is required for integer and number observations" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":{\"hp\":{\"max\":null}}}}}",
      "entity_types.pirate.observations.hp.max: is required for integer and number observations" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":{\"hp\":{\"min\":\"0\"}}}}}",
      "entity_types.pirate.observations.hp.min: must be a number" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":{\"hp\":{\"min\":0.5}}}}}",
      "entity_types.pirate.observations.hp.min: must be an integer" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":{\"hp\":{\"min\":200}}}}}",
      "entity_types.pirate.observations.hp.max: must not be below min" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":{\"hp\":{\"bucket\":0}}}}}",
      "entity_types.pirate.observations.hp.bucket: must be a number above 0" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":{\"cargo_seen\":{\"values\":null}}}}}",
      "entity_types.pirate.observations.cargo_seen.values: is required for enum observations" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":{\"cargo_seen\":{\"values\":\"ore\"}}}}}",
      "entity_types.pirate.observations.cargo_seen.values: must be an array of ids" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":{\"cargo_seen\":{\"values\":[]}}}}}",
      "entity_types.pirate.observations.cargo_seen.values: 1 to 64 values" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":{\"cargo_seen\":{\"values\":[\"ore\",\"Gold\"]}}}}}",
      "entity_types.pirate.observations.cargo_seen.values[1]: must be an id matching ^[a-z][a-z0-9_:.-]{0,63}$" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":{\"cargo_seen\":{\"values\":[\"ore\",\"ore\"]}}}}}",
      "entity_types.pirate.observations.cargo_seen.values[1]: duplicate value" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":{\"name\":{\"max_length\":257}}}}}",
      "entity_types.pirate.observations.name.max_length: must be between 1 and 256" },
    { "{\"entity_types\":{\"pirate\":{\"observations\":{\"name\":{\"max_length\":0}}}}}",
      "entity_types.pirate.observations.name.max_length: must be between 1 and 256" },
    { "{\"entity_types\":{\"pirate\":{\"actions\":null}}}", "entity_types.pirate.actions: is required" },
    { "{\"entity_types\":{\"pirate\":{\"actions\":[\"attack\"]}}}", "entity_types.pirate.actions: must be an object" },
    { "{\"entity_types\":{\"pirate\":{\"actions\":{\"attack\":null,\"flee\":null}}}}",
      "entity_types.pirate.actions: at least 1 action" },
    { "{\"entity_types\":{\"pirate\":{\"actions\":{\"Attack!\":{}}}}}",
      "entity_types.pirate.actions.Attack!: action ids must match ^[a-z][a-z0-9_:.-]{0,63}$" },
    { "{\"entity_types\":{\"pirate\":{\"actions\":{\"attack\":\"fire\"}}}}",
      "entity_types.pirate.actions.attack: must be an object" },
    { "{\"entity_types\":{\"pirate\":{\"actions\":{\"attack\":{\"description\":1}}}}}",
      "entity_types.pirate.actions.attack.description: must be a string" },
    { "{\"entity_types\":{\"pirate\":{\"cache\":\"shared\"}}}",
      "entity_types.pirate.cache: must be game, session or off" },
    { "{\"entity_types\":{\"pirate\":{\"ttl_ms\":0}}}", "entity_types.pirate.ttl_ms: must be between 1 and 3600000" },
    { "{\"entity_types\":{\"pirate\":{\"ttl_ms\":\"1s\"}}}", "entity_types.pirate.ttl_ms: must be an integer" },
    { "{\"entity_types\":{\"pirate\":{\"token_budget\":0}}}",
      "entity_types.pirate.token_budget: must be between 1 and 1000000" },
    { "{\"entity_types\":{\"pirate\":{\"memory\":17}}}", "entity_types.pirate.memory: must be between 0 and 16" },
    { "{\"entity_types\":{\"pirate\":{\"memory\":2.5}}}", "entity_types.pirate.memory: must be an integer" },
    { "{\"entity_types\":{\"pirate\":{\"min_confidence\":101}}}",
      "entity_types.pirate.min_confidence: must be between 0 and 100" },
    { "{\"scopes\":[]}", "scopes: must be an object" },
    { "{\"scopes\":{\"Station\":{\"text\":\"x\"}}}", "scopes.Station: scope ids must match ^[a-z][a-z0-9_:.-]{0,63}$" },
    { "{\"scopes\":{\"station\":\"x\"}}", "scopes.station: must be an object with a text" },
    { "{\"profiles\":{\"coward\":{\"text\":5}}}", "profiles.coward.text: must be a string" },
    { "{\"profiles\":{\"co ward\":{\"text\":\"x\"}}}",
      "profiles.co ward: profile ids must match ^[a-z][a-z0-9_:.-]{0,63}$" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_test_message ("%s", rows[i].patch);
      expect_patch (rows[i].patch, rows[i].message);
    }
}

static void
test_lengths (void)
{
  g_autofree char *world = repeat ('w', 2001);
  g_autofree char *text = repeat ('t', 2001);
  g_autofree char *description = repeat ('d', 281);
  g_autofree char *long_id = repeat ('a', 65);
  g_autofree char *patch = NULL;
  /* Characters, not bytes: 2000 two-byte characters are fine. */
  g_autoptr(GString) wide = g_string_new (NULL);
  g_autoptr(JsonNode) ok = NULL;
  g_autoptr(GgA2gManifest) manifest = NULL;

  patch = g_strdup_printf ("{\"world\":\"%s\"}", world);
  expect_patch (patch, "world: at most 2000 characters");
  g_free (patch);
  patch = g_strdup_printf ("{\"scopes\":{\"station\":{\"text\":\"%s\"}}}", text);
  expect_patch (patch, "scopes.station.text: at most 2000 characters");
  g_free (patch);
  patch = g_strdup_printf ("{\"profiles\":{\"coward\":{\"text\":\"%s\"}}}", text);
  expect_patch (patch, "profiles.coward.text: at most 2000 characters");
  g_free (patch);
  patch = g_strdup_printf ("{\"entity_types\":{\"pirate\":{\"description\":\"%s\"}}}", description);
  expect_patch (patch, "entity_types.pirate.description: at most 280 characters");
  g_free (patch);
  patch = g_strdup_printf ("{\"entity_types\":{\"pirate\":{\"actions\":{\"flee\":{\"description\":\"%s\"}}}}}",
                           description);
  expect_patch (patch, "entity_types.pirate.actions.flee.description: at most 280 characters");
  g_free (patch);
  patch = g_strdup_printf ("{\"game\":\"%s\"}", long_id);
  expect_patch (patch, "game: must match ^[a-z][a-z0-9_:.-]{0,63}$");

  for (guint i = 0; i < 2000; i++)
    g_string_append (wide, "\xc3\xa9");
  g_free (patch);
  patch = g_strdup_printf ("{\"world\":\"%s\"}", wide->str);
  {
    g_autoptr(JsonNode) target = parse (base);
    g_autoptr(JsonNode) diff = parse (patch);
    ok = gg_json_merge_patch (target, diff);
  }
  manifest = gg_a2g_manifest_parse (ok, NULL);
  g_assert_nonnull (manifest);
}

static void
test_counts (void)
{
  g_autoptr(GString) types = g_string_new ("{\"game\":\"g\",\"entity_types\":{");
  g_autoptr(GString) actions = g_string_new ("{\"entity_types\":{\"pirate\":{\"actions\":{");
  g_autoptr(GString) observations = g_string_new ("{\"entity_types\":{\"pirate\":{\"observations\":{");
  g_autoptr(GString) values = g_string_new ("{\"entity_types\":{\"pirate\":{\"observations\":{\"cargo_seen\":{\"values\":[");
  g_autoptr(JsonNode) node = NULL;

  for (guint i = 0; i < 65; i++)
    g_string_append_printf (types, "%s\"t%u\":{\"actions\":{\"a\":{}}}", i > 0 ? "," : "", i);
  g_string_append (types, "}}");
  node = parse (types->str);
  expect_refusal (node, "entity_types: at most 64 entity types");

  for (guint i = 0; i < 31; i++)
    g_string_append_printf (actions, "%s\"a%u\":{}", i > 0 ? "," : "", i);
  g_string_append (actions, "}}}}");
  expect_patch (actions->str, "entity_types.pirate.actions: at most 32 actions");

  for (guint i = 0; i < 29; i++)
    g_string_append_printf (observations, "%s\"o%u\":{\"type\":\"boolean\"}", i > 0 ? "," : "", i);
  g_string_append (observations, "}}}}");
  expect_patch (observations->str, "entity_types.pirate.observations: at most 32 observations");

  for (guint i = 0; i < 65; i++)
    g_string_append_printf (values, "%s\"v%u\"", i > 0 ? "," : "", i);
  g_string_append (values, "]}}}}}");
  expect_patch (values->str, "entity_types.pirate.observations.cargo_seen.values: 1 to 64 values");
}

static void
test_size (void)
{
  g_autoptr(GString) big = g_string_new ("{\"game\":\"g\",\"entity_types\":{");
  g_autoptr(JsonNode) node = NULL;

  /* 40 types, each with 32 long action descriptions: over 64 KiB. */
  for (guint t = 0; t < 40; t++)
    {
      g_string_append_printf (big, "%s\"t%u\":{\"actions\":{", t > 0 ? "," : "", t);
      for (guint a = 0; a < 32; a++)
        g_string_append_printf (big, "%s\"a%u\":{\"description\":\"%s\"}", a > 0 ? "," : "", a,
                                "0123456789012345678901234567890123456789012345678901234567890123456789");
      g_string_append (big, "}}");
    }
  g_string_append (big, "}}");
  node = parse (big->str);
  expect_refusal (node, "manifest: at most 65536 bytes of canonical JSON");
}

static void
test_not_object (void)
{
  g_autoptr(JsonNode) node = parse ("[1]");

  expect_refusal (node, "manifest: must be an object");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/a2g/manifest/valid-defaults", test_valid_defaults);
  g_test_add_func ("/a2g/manifest/rules", test_rules);
  g_test_add_func ("/a2g/manifest/lengths", test_lengths);
  g_test_add_func ("/a2g/manifest/counts", test_counts);
  g_test_add_func ("/a2g/manifest/size", test_size);
  g_test_add_func ("/a2g/manifest/not-object", test_not_object);
  return g_test_run ();
}
