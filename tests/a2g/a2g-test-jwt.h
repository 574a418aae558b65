/* a2g-test-jwt.h: what the client-profile tests share: the studio's keys
 * (ES256 and RS256, and one nobody registered, made with openssl at test
 * time), join tokens signed with libjwt with any claim changed, the
 * client-profile configuration that registers those keys, and requests
 * (sessions, decisions) as the declared TLS proxy forwards them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <jwt.h>

#include "a2g-test-util.h"

G_BEGIN_DECLS

#define A2G_SERVICE_ID "a2g.orbital-freight.example"

typedef struct {
  char *dir;
  char *es_private, *es_public;
  char *rsa_private, *rsa_public;
  char *rogue_private;            /* an ES256 key nobody registered */
  char *hash;                     /* the test manifest's */
  guint serial;
} A2gJwtKeys;

/* Made by a2g_jwt_keys_make(), once per test program. */
extern A2gJwtKeys a2g_jwt_keys;

/* What a join token carries; NULL members are left out. */
typedef struct {
  const char *kid;
  jwt_alg_t alg;
  const char *key;     /* PEM (private, or the secret for HMAC) */
  const char *aud;
  const char *game;
  const char *manifest_hash;
  const char *sub;
  gint64 exp_in;       /* seconds from now */
  const char *jti;     /* NULL: a fresh one; "-": none */
} A2gJoin;

void         a2g_jwt_keys_make      (void);
void         a2g_jwt_keys_free      (void);
char        *a2g_jwt_client_config  (const char *extra);
A2gJoin      a2g_join_good          (void);
char        *a2g_join_token         (const A2gJoin *join);
A2gResponse *a2g_proxied_post       (A2gService *service,
                                     const char *path,
                                     const char *bearer,
                                     const char *body);
A2gResponse *a2g_join_open          (A2gService *service,
                                     const char *client_id,
                                     const char *token);
char        *a2g_join_session       (A2gService *service,
                                     const char *client_id);
char        *a2g_proxied_decide     (A2gService *service,
                                     const char *client_id,
                                     const char *token,
                                     const char *entry);

G_END_DECLS
