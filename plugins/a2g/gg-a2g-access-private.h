/* gg-a2g-access-private.h: the pure string checks under gg-a2g-access.c's
 * request checks, on a header's text rather than a SoupServerMessage, so
 * that the fuzzer (tests/fuzz/fuzz-a2g-headers.c) reaches them. Internal
 * to the plugin.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char     *_gg_a2g_credential_from_header (const char *authorization,
                                          gboolean    basic,
                                          gboolean   *bearer);
gboolean  _gg_a2g_origin_matches_host    (const char *origin,
                                          const char *host);

G_END_DECLS
