/* test-a2g-situation-key.c: the decision cache's situation keys stay what
 * they are. Replicas of different versions share cache entries through
 * Redis and /v1/policy exports the keys, so the key of a situation must
 * never change: one key is pinned to its value (computed outside gamegate,
 * from the formula of spec section 5 step 3), and the key of many
 * situations (every observation kind, escapes, profiles, unicode) must be
 * the SHA-256 of the canonical JSON of the key object built as a tree.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <gamegate.h>

#include "gg-a2g-canonical.h"
#include "gg-a2g-entry.h"

static const char manifest_json[] =
  "{\"a2g\":\"0.1\",\"game\":\"orbital-freight\",\"version\":\"1.0.0\","
  "\"entity_types\":{\"pirate\":{\"description\":\"A raider.\","
  "\"observations\":{\"hp\":{\"type\":\"integer\",\"min\":0,\"max\":100,\"bucket\":10},"
  "\"target_distance\":{\"type\":\"number\",\"min\":0,\"max\":5000,\"bucket\":250},"
  "\"heading\":{\"type\":\"number\",\"min\":-180,\"max\":180},"
  "\"allies_near\":{\"type\":\"integer\",\"min\":0,\"max\":16},"
  "\"cargo_seen\":{\"type\":\"enum\",\"values\":[\"none\",\"ore\",\"medicine\"]},"
  "\"callsign\":{\"type\":\"string\",\"max_length\":12},\"cornered\":{\"type\":\"boolean\"}},"
  "\"actions\":{\"attack\":{\"description\":\"Fire.\"},\"flee\":{},\"surrender\":{},\"call_help\":{}},"
  "\"ttl_ms\":3000,\"token_budget\":800,\"cache\":\"game\",\"memory\":5}},"
  "\"scopes\":{\"station\":{\"text\":\"Patrols.\"}},"
  "\"profiles\":{\"coward\":{\"text\":\"Scared \\\"of\\\" \\u00e9clairs\\n\\u2603 \\ud83d\\ude00\"}}}";

static GgA2gManifest *manifest;
static GgA2gContext *context;

static JsonObject *
object_of (const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = gg_json_parse (json, -1, GG_JSON_DEFAULT_MAX_DEPTH, &error);

  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_object_ref (json_node_get_object (node));
}

static GgA2gEntry *
entry_of (const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) object = object_of (json);
  GgA2gEntry *entry = gg_a2g_entry_parse (manifest, context, object, 2000, &error);

  g_assert_no_error (error);
  g_assert_nonnull (entry);
  return entry;
}

/* The key as the tree of spec section 5 step 3, canonical, hashed. */
static char *
tree_key (GgA2gEntry *entry)
{
  g_autoptr(JsonObject) key = json_object_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;
  const char *profile_text = gg_a2g_context_profile_text (context, entry->profile);

  json_object_set_string_member (key, "manifest", manifest->hash);
  json_object_set_string_member (key, "context", context->hash);
  if (profile_text != NULL)
    json_object_set_string_member (key, "profile", profile_text);
  else
    json_object_set_null_member (key, "profile");
  json_object_set_string_member (key, "type", entry->type->id);
  json_object_set_object_member (key, "observations", json_object_ref (gg_a2g_entry_get_quantised (entry)));
  json_object_set_array_member (key, "legal_actions", json_array_ref (gg_a2g_entry_get_sorted_actions (entry)));
  node = json_node_init_object (json_node_alloc (), key);
  text = gg_json_canonical_string (node);
  return gg_a2g_sha256_hex (text, -1);
}

static void
test_pinned (void)
{
  g_autoptr(GgA2gEntry) entry = entry_of (
    "{\"entity\":\"pirate-7\",\"type\":\"pirate\",\"profile\":\"coward\","
    "\"observations\":{\"hp\":35,\"target_distance\":900.5,\"heading\":-12.25,\"allies_near\":3,"
    "\"cargo_seen\":\"medicine\",\"callsign\":\"Red \\\"Jack\\\"\\\\\",\"cornered\":false},"
    "\"legal_actions\":[\"surrender\",\"attack\",\"flee\"]}");

  /* What manifest and context the pinned key was computed with. */
  g_assert_cmpstr (manifest->hash, ==, "sha256:54e9c39918d2564757670b28d9bb2804f0e639e7899fb0ffb004c644602bb3d1");
  g_assert_cmpstr (context->hash, ==, "sha256:f0efb4cf9e471e34e77488525a0897cebfc23a82234073390ccfd797be0cdd3c");
  /* Python's json.dumps (sort_keys, no spaces, ensure_ascii off) writes
   * this key object as RFC 8785 does:
   * {"context":"sha256:f0ef…","legal_actions":["attack","flee","surrender"],
   *  "manifest":"sha256:54e9…","observations":{"allies_near":3,
   *  "callsign":"Red \"Jack\"\\","cargo_seen":"medicine","cornered":false,
   *  "heading":-12.25,"hp":3,"target_distance":3},
   *  "profile":"Scared \"of\" éclairs\n☃ 😀","type":"pirate"} */
  g_assert_cmpstr (entry->situation_key, ==, "5a936cfcbfb70677dafa2aebe568e2da9d2c4fe430bb4513ef662436cec6b654");
}

static void
test_tree_form (void)
{
  static const char *entities[] = {
    "{\"entity\":\"pirate-1\",\"type\":\"pirate\",\"legal_actions\":[\"flee\",\"attack\"]}",
    "{\"entity\":\"pirate-2\",\"type\":\"pirate\",\"observations\":null,\"legal_actions\":[\"call_help\",\"attack\"]}",
    "{\"entity\":\"pirate-3\",\"type\":\"pirate\",\"observations\":{\"hp\":100,\"target_distance\":0,"
    "\"heading\":180,\"allies_near\":0,\"cornered\":true},\"legal_actions\":[\"surrender\",\"flee\"]}",
    "{\"entity\":\"pirate-4\",\"type\":\"pirate\",\"observations\":{\"heading\":-0.1,\"callsign\":\"\\u0001tab\\there\"},"
    "\"legal_actions\":[\"attack\",\"flee\",\"surrender\",\"call_help\"]}",
    "{\"entity\":\"pirate-5\",\"type\":\"pirate\",\"profile\":\"coward\",\"observations\":{\"heading\":1e-7,"
    "\"callsign\":\"\\u00e9\\u2603\\ud83d\\ude00/\\u007f\",\"cargo_seen\":\"ore\"},\"legal_actions\":[\"flee\",\"attack\"]}",
    "{\"entity\":\"pirate-6\",\"type\":\"pirate\",\"observations\":{\"hp\":99.0,\"heading\":123.456789012345678,"
    "\"unknown\":1},\"legal_actions\":[\"attack\",\"flee\"]}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (entities); i++)
    {
      g_autoptr(GgA2gEntry) entry = entry_of (entities[i]);
      g_autofree char *expected = tree_key (entry);

      g_assert_cmpstr (entry->situation_key, ==, expected);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  root = gg_json_parse (manifest_json, -1, GG_JSON_DEFAULT_MAX_DEPTH, &error);
  g_assert_no_error (error);
  manifest = gg_a2g_manifest_parse (root, &error);
  g_assert_no_error (error);
  context = gg_a2g_context_build (manifest, NULL, &error);
  g_assert_no_error (error);
  g_test_add_func ("/a2g/situation-key/pinned", test_pinned);
  g_test_add_func ("/a2g/situation-key/tree-form", test_tree_form);
  status = g_test_run ();
  gg_a2g_context_unref (context);
  gg_a2g_manifest_unref (manifest);
  return status;
}
