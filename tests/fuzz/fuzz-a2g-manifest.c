/* fuzz-a2g-manifest.c: A2G's manifest checks (spec section 3) on any JSON.
 * A manifest that is accepted hashes to the SHA-256 of its canonical form,
 * and its canonical form is accepted again with the same hash (the hash is
 * a fixed point, whatever key order or spelling the game sent).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gamegate.h>
#include <string.h>

#include "fuzz-common.h"
#include "gg-a2g-manifest.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *hex = NULL;
  g_autofree char *expected = NULL;
  GgA2gManifest *manifest, *reparsed;

  fuzz_init ();
  root = gg_json_parse ((const char *) data, (gssize) size, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (root == NULL)
    return 0;
  manifest = gg_a2g_manifest_parse (root, &error);
  if (manifest == NULL)
    {
      /* Every refusal names a path and a rule. */
      g_assert_nonnull (error);
      g_assert_true (error->message[0] != '\0');
      return 0;
    }
  hex = g_compute_checksum_for_string (G_CHECKSUM_SHA256, manifest->canonical, -1);
  expected = g_strconcat ("sha256:", hex, NULL);
  g_assert_cmpstr (manifest->hash, ==, expected);
  g_assert_cmpuint (strlen (manifest->canonical), <=, GG_A2G_MAX_MANIFEST_BYTES);

  again = gg_json_parse (manifest->canonical, -1, GG_JSON_DEFAULT_MAX_DEPTH, &error);
  g_assert_no_error (error);
  reparsed = gg_a2g_manifest_parse (again, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (reparsed->hash, ==, manifest->hash);
  g_assert_cmpstr (reparsed->canonical, ==, manifest->canonical);
  gg_a2g_manifest_unref (reparsed);
  gg_a2g_manifest_unref (manifest);
  return 0;
}
