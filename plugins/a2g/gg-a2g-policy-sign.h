/* gg-a2g-policy-sign.h: the Ed25519 signature of /v1/policy (libsodium),
 * see gg-a2g-policy-sign.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _GgA2gPolicySigner GgA2gPolicySigner;

GgA2gPolicySigner *gg_a2g_policy_signer_load (const char  *path,
                                              GError     **error);
char              *gg_a2g_policy_signer_sign (GgA2gPolicySigner *signer,
                                              const char        *canonical);
void               gg_a2g_policy_signer_free (GgA2gPolicySigner *signer);

G_END_DECLS
