/* gg-a2g-access.h: who may use the A2G service outside the local profile
 * (a2g-security.md): the registered games with the SHA-256 of their API
 * keys and their registered manifest hashes, and what the transport must
 * be (TLS, or a TLS-terminating proxy on loopback); who may read the
 * console, /v1/usage and /v1/policy, and from which origin.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <libsoup/soup.h>
#include <gamegate.h>

#include "gg-a2g-errors.h"

G_BEGIN_DECLS

typedef struct _GgA2gAccess GgA2gAccess;

/* The profile of a2g-security.md the service runs (`[a2g] profile`). */
typedef enum {
  GG_A2G_PROFILE_LOCAL,      /* loopback only, no credentials */
  GG_A2G_PROFILE_SERVER,     /* registered games with API keys, over TLS */
  GG_A2G_PROFILE_CLIENT,     /* players' join tokens, over TLS */
} GgA2gProfile;

/* What a request outside the local profile reads (gg_a2g_access_check_reader). */
typedef enum {
  GG_A2G_READER_CONSOLE,     /* GET /, its files, /v1/console/events */
  GG_A2G_READER_USAGE,       /* GET /v1/usage */
  GG_A2G_READER_POLICY,      /* GET /v1/policy */
} GgA2gReader;

/* A studio's public key for join tokens (client profile). */
typedef struct {
  char *alg;                 /* "ES256" or "RS256": the only one it verifies */
  char *pem;
  gsize pem_length;
} GgA2gJoinKey;

gboolean     gg_a2g_profile_parse            (const char   *name,
                                              GgA2gProfile *profile);
const char  *gg_a2g_profile_name             (GgA2gProfile profile);
GgA2gAccess *gg_a2g_access_load              (GgConfig     *config,
                                              const char   *group,
                                              GgA2gProfile  profile,
                                              GError      **error);
void         gg_a2g_access_free              (GgA2gAccess *access);
GgA2gProfile gg_a2g_access_get_profile       (const GgA2gAccess *access);
const char  *gg_a2g_access_get_service_id    (const GgA2gAccess *access);
const GgA2gJoinKey *gg_a2g_access_find_join_key (const GgA2gAccess *access,
                                                 const char        *game,
                                                 const char        *kid);
GTlsCertificate *gg_a2g_access_get_certificate (const GgA2gAccess *access);
gboolean     gg_a2g_access_check_transport   (const GgA2gAccess *access,
                                              SoupServerMessage *msg,
                                              const char       **message);
gboolean     gg_a2g_access_check_api_key     (const GgA2gAccess *access,
                                              SoupServerMessage *msg,
                                              const char        *game,
                                              GgA2gError        *code,
                                              const char       **message);
gboolean     gg_a2g_access_manifest_registered (const GgA2gAccess *access,
                                                const char        *game,
                                                const char        *manifest_hash);
gboolean     gg_a2g_access_check_origin      (const GgA2gAccess *access,
                                              SoupServerMessage *msg);
gboolean     gg_a2g_access_check_reader      (const GgA2gAccess *access,
                                              SoupServerMessage *msg,
                                              GgA2gReader        reader,
                                              const char        *manifest_hash,
                                              GgA2gError        *code,
                                              const char       **message);
const char  *gg_a2g_access_get_reader_game   (SoupServerMessage *msg);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgA2gAccess, gg_a2g_access_free)

G_END_DECLS
