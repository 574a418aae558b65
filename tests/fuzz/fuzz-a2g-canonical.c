/* fuzz-a2g-canonical.c: RFC 8785 canonical JSON (gg_json_canonical_string,
 * behind A2G's manifest, context and policy hashes and model-record's step
 * digests) on any document the strict parser accepts: the canonical text
 * parses again, is its own canonical form, and has the same digest.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gamegate.h>

#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *canonical = NULL;
  g_autofree char *twice = NULL;
  g_autofree char *digest = NULL;
  g_autofree char *digest_again = NULL;

  fuzz_init ();
  root = gg_json_parse ((const char *) data, (gssize) size, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (root == NULL)
    return 0;
  canonical = gg_json_canonical_string (root);
  /* Integers beyond 2^53 are written as the double they denote, which
   * the strict parser refuses as an integer out of range: nothing to
   * compare then. */
  again = gg_json_parse (canonical, -1, GG_JSON_DEFAULT_MAX_DEPTH, &error);
  if (again == NULL)
    return 0;
  twice = gg_json_canonical_string (again);
  g_assert_cmpstr (twice, ==, canonical);
  digest = gg_json_canonical_digest (root);
  digest_again = gg_json_canonical_digest (again);
  g_assert_cmpstr (digest, ==, digest_again);
  return 0;
}
