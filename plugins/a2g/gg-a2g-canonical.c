/* gg-a2g-canonical.c: the RFC 8785 canonical JSON and "sha256:" hashes A2G
 * derives its manifest, context and policy hashes from.
 *
 * The serializer itself lives once in plugin-api (gg_json_canonical_string(),
 * also used by model-record's step digests); these are A2G's names for it
 * and the few shapes the plugin needs (a number alone, appending, a hex
 * digest of any text).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gamegate.h>
#include <string.h>

#include "gg-a2g-canonical.h"

/**
 * gg_a2g_canonical_number:
 * @out: where to append
 * @value: a finite double
 *
 * Appends @value as ECMAScript writes it (RFC 8785 section 3.2.2.3).
 */
void
gg_a2g_canonical_number (GString *out,
                         double   value)
{
  g_autoptr(JsonNode) node = json_node_init_double (json_node_alloc (), value);
  g_autofree char *text = gg_json_canonical_string (node);

  g_string_append (out, text);
}

/**
 * gg_a2g_canonical_append:
 * @out: where to append
 * @node: a JSON value (parsed strictly: valid UTF-8, finite numbers)
 *
 * Appends the RFC 8785 form of @node.
 */
void
gg_a2g_canonical_append (GString  *out,
                         JsonNode *node)
{
  g_autofree char *text = gg_json_canonical_string (node);

  g_string_append (out, text);
}

/**
 * gg_a2g_canonical_json:
 * @node: a JSON value
 *
 * Returns: (transfer full): its RFC 8785 canonical text
 */
char *
gg_a2g_canonical_json (JsonNode *node)
{
  return gg_json_canonical_string (node);
}

/**
 * gg_a2g_sha256_hex:
 * @data: bytes
 * @length: their length, or -1 for a string
 *
 * Returns: (transfer full): 64 lowercase hex digits
 */
char *
gg_a2g_sha256_hex (const char *data,
                   gssize      length)
{
  static const char digits[] = "0123456789abcdef";
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  guint8 digest[32];
  gsize digest_length = sizeof digest;
  char *hex = g_malloc (2 * sizeof digest + 1);

  g_checksum_update (checksum, (const guchar *) data, length < 0 ? strlen (data) : (gsize) length);
  g_checksum_get_digest (checksum, digest, &digest_length);
  /* g_checksum_get_string() formats each byte through printf. */
  for (gsize i = 0; i < sizeof digest; i++)
    {
      hex[2 * i] = digits[digest[i] >> 4];
      hex[2 * i + 1] = digits[digest[i] & 0xf];
    }
  hex[2 * sizeof digest] = '\0';
  return hex;
}

/**
 * gg_a2g_canonical_hash:
 * @node: a JSON value
 *
 * Returns: (transfer full): `sha256:` and the hex SHA-256 of its canonical form
 */
char *
gg_a2g_canonical_hash (JsonNode *node)
{
  return gg_json_canonical_digest (node);
}
