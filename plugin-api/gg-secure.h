/* gg-secure.h: secrets: random tokens from the kernel and comparisons that
 * take the same time whatever they find.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined (GAMEGATE_INSIDE) && !defined (GAMEGATE_COMPILATION)
#error "Only <gamegate.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

gboolean gg_secure_random        (void    *buffer,
                                  gsize    length,
                                  GError **error);
char    *gg_secure_token_hex     (gsize    n_bytes,
                                  GError **error);
gboolean gg_secure_equal         (const char *a,
                                  const char *b);
gboolean gg_secure_equal_bytes   (const void *a,
                                  gsize       a_length,
                                  const void *b,
                                  gsize       b_length);

G_END_DECLS
