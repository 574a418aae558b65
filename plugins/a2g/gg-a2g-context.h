/* gg-a2g-context.h: a session's context (spec /v1/context): the active
 * scope chain, profile assignments and extra texts, and the context hash
 * that is part of every cache key.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "gg-a2g-manifest.h"

G_BEGIN_DECLS

#define GG_A2G_MAX_CONTEXT_TEXTS 16

typedef struct {
  gatomicrefcount ref;
  JsonObject *state;         /* {"scopes":[…],"profiles":{…},"texts":{…}}: what a store keeps */
  JsonArray *chain;          /* [{"scope","text"}], outermost first */
  GHashTable *profile_texts; /* profile -> effective text */
  GHashTable *assignments;   /* entity -> profile */
  char *hash;                /* "sha256:…" */
} GgA2gContext;

GgA2gContext *gg_a2g_context_build        (GgA2gManifest *manifest,
                                           JsonObject    *state,
                                           GError       **error);
GgA2gContext *gg_a2g_context_update       (GgA2gManifest *manifest,
                                           GgA2gContext  *current,
                                           JsonObject    *request,
                                           GError       **error);
GgA2gContext *gg_a2g_context_ref          (GgA2gContext *context);
void          gg_a2g_context_unref        (GgA2gContext *context);
const char   *gg_a2g_context_profile_text (GgA2gContext *context,
                                           const char   *profile);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgA2gContext, gg_a2g_context_unref)

G_END_DECLS
