/* gg-a2g-canonical.h: RFC 8785 (JCS) canonical JSON and the "sha256:" hashes
 * A2G derives from it (manifest hash, context hash, policy hash).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

void   gg_a2g_canonical_number   (GString *out,
                                  double   value);
char  *gg_a2g_canonical_json     (JsonNode *node);
void   gg_a2g_canonical_append   (GString  *out,
                                  JsonNode *node);
char  *gg_a2g_sha256_hex         (const char *data,
                                  gssize      length);
char  *gg_a2g_canonical_hash     (JsonNode *node);

G_END_DECLS
