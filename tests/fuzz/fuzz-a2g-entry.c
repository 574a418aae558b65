/* fuzz-a2g-entry.c: one /v1/decide entity (spec section 5, step 1)
 * checked against the spec's manifest, with a context activating a scope
 * and a profile. An accepted entry has a cache key and a prompt within
 * its type's token budget; a refused one names what was wrong.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gamegate.h>
#include <string.h>

#include "fuzz-common.h"
#include "gg-a2g-context.h"
#include "gg-a2g-entry.h"
#include "gg-a2g-prompt.h"

static const char manifest_json[] =
  "{\"a2g\":\"0.1\",\"game\":\"orbital-freight\",\"version\":\"0.9.2\","
  "\"world\":\"A cargo-hauling game on an orbital station.\","
  "\"entity_types\":{\"pirate\":{\"description\":\"A raider.\","
  "\"observations\":{\"hp\":{\"type\":\"integer\",\"min\":0,\"max\":100,\"bucket\":10},"
  "\"target_distance\":{\"type\":\"number\",\"min\":0,\"max\":5000,\"bucket\":250},"
  "\"cargo_seen\":{\"type\":\"enum\",\"values\":[\"none\",\"ore\",\"medicine\"]},"
  "\"callsign\":{\"type\":\"string\",\"max_length\":8},\"cornered\":{\"type\":\"boolean\"}},"
  "\"actions\":{\"attack\":{\"description\":\"Fire.\"},\"flee\":{},\"surrender\":{}},"
  "\"ttl_ms\":3000,\"token_budget\":800,\"cache\":\"game\",\"memory\":5}},"
  "\"scopes\":{\"station\":{\"text\":\"Patrols.\"}},\"profiles\":{\"coward\":{\"text\":\"Scared.\"}}}";

static GgA2gManifest *manifest;
static GgA2gContext *context;

static void
setup (void)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) state = NULL;
  g_autoptr(GError) error = NULL;

  if (manifest != NULL)
    return;
  root = gg_json_parse (manifest_json, -1, GG_JSON_DEFAULT_MAX_DEPTH, &error);
  g_assert_no_error (error);
  manifest = gg_a2g_manifest_parse (root, &error);
  g_assert_no_error (error);
  state = gg_json_parse ("{\"scopes\":[\"station\"],\"profiles\":{\"pirate-7\":\"coward\"},\"texts\":{}}", -1,
                         GG_JSON_DEFAULT_MAX_DEPTH, &error);
  g_assert_no_error (error);
  context = gg_a2g_context_build (manifest, json_node_get_object (state), &error);
  g_assert_no_error (error);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GgA2gEntry) entry = NULL;
  g_autofree char *key = NULL;
  g_autofree char *prompt = NULL;
  gint64 tokens = 0;

  fuzz_init ();
  setup ();
  root = gg_json_parse ((const char *) data, (gssize) size, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return 0;
  entry = gg_a2g_entry_parse (manifest, context, json_node_get_object (root), 2000, &error);
  if (entry == NULL)
    {
      g_assert_nonnull (error);
      g_assert_true (error->message[0] != '\0');
      return 0;
    }
  g_assert_cmpuint (entry->actions->len, >, 0);
  key = gg_a2g_entry_cache_key (entry, "s1");
  g_assert_nonnull (key);
  prompt = gg_a2g_prompt_new (entry, manifest, context, NULL, NULL, &tokens);
  g_assert_nonnull (prompt);
  g_assert_cmpint (tokens, >=, 0);
  return 0;
}
