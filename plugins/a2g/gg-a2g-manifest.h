/* gg-a2g-manifest.h: a game's A2G manifest (spec section 3), checked
 * against every rule and kept parsed for the decision pipeline.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define GG_A2G_MAX_MANIFEST_BYTES  (64 * 1024)
#define GG_A2G_MAX_TEXT_CHARS      2000
#define GG_A2G_MAX_DESCRIPTION     280

typedef enum {
  GG_A2G_OBS_INTEGER,
  GG_A2G_OBS_NUMBER,
  GG_A2G_OBS_BOOLEAN,
  GG_A2G_OBS_ENUM,
  GG_A2G_OBS_STRING,
} GgA2gObsKind;

typedef enum {
  GG_A2G_CACHE_GAME,
  GG_A2G_CACHE_SESSION,
  GG_A2G_CACHE_OFF,
} GgA2gCacheMode;

typedef struct {
  char *id;
  GgA2gObsKind kind;
  double min, max;
  double bucket;       /* 0: none */
  char **values;       /* enum */
  guint max_length;    /* string */
} GgA2gObservation;

typedef struct {
  char *id;
  char *description;   /* nullable */
} GgA2gAction;

typedef struct {
  char *id;
  char *description;   /* nullable */
  GPtrArray *observations;  /* GgA2gObservation, manifest order */
  GPtrArray *actions;       /* GgA2gAction, manifest order */
  gint64 ttl_ms;
  gint64 token_budget;
  GgA2gCacheMode cache;
  gint64 memory;
  gint64 min_confidence;
} GgA2gEntityType;

typedef struct {
  gatomicrefcount ref;
  char *hash;          /* "sha256:…" */
  char *canonical;     /* the canonical JSON text */
  char *game;
  char *version;       /* nullable */
  char *world;         /* nullable */
  GHashTable *types;   /* id -> GgA2gEntityType */
  GHashTable *scopes;  /* id -> text */
  GHashTable *profiles;/* id -> text */
} GgA2gManifest;

gboolean          gg_a2g_id_valid              (const char *id);
GgA2gManifest    *gg_a2g_manifest_parse        (JsonNode  *node,
                                                GError   **error);
GgA2gManifest    *gg_a2g_manifest_ref          (GgA2gManifest *manifest);
void              gg_a2g_manifest_unref        (GgA2gManifest *manifest);
GgA2gEntityType  *gg_a2g_manifest_get_type     (GgA2gManifest *manifest,
                                                const char    *id);
GgA2gObservation *gg_a2g_entity_type_get_observation (GgA2gEntityType *type,
                                                      const char      *id);
GgA2gAction      *gg_a2g_entity_type_get_action      (GgA2gEntityType *type,
                                                      const char      *id);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgA2gManifest, gg_a2g_manifest_unref)

G_END_DECLS
