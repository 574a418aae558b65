/* gg-a2g-join.h: join tokens (JWTs) of the client profile, verified with
 * libjwt (see gg-a2g-join.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-a2g-access.h"

G_BEGIN_DECLS

typedef struct {
  char *sub;
  char *jti;
  char *manifest_hash;
  gint64 exp;            /* Unix seconds */
} GgA2gJoinClaims;

gboolean gg_a2g_join_verify       (const GgA2gAccess *access,
                                   const char        *token,
                                   const char        *game,
                                   gint64             now_s,
                                   GgA2gJoinClaims   *claims,
                                   const char       **message);
void     gg_a2g_join_claims_clear (GgA2gJoinClaims *claims);

G_END_DECLS
