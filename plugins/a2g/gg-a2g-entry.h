/* gg-a2g-entry.h: one decide entry checked against the manifest (spec
 * section 5 step 1), with what the pipeline reads of the manifest and the
 * context resolved once, and its quantised situation and cache key (step
 * 3).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "gg-a2g-context.h"
#include "gg-a2g-manifest.h"

G_BEGIN_DECLS

/* One observation as the cache key sees it: bucketed, checked, cleaned. */
typedef struct {
  GgA2gObservation *obs;      /* borrowed from the type */
  gboolean is_double;         /* a number without a bucket: @number */
  gint64 integer;             /* integers, bucket indexes, booleans (0/1) */
  double number;
  const char *text;           /* enum: borrowed from the entry's given; string: @owned */
  char *owned;
} GgA2gQuantisedValue;

typedef struct {
  char *entity;
  GgA2gEntityType *type;      /* borrowed from the manifest */
  char *profile;              /* nullable */
  const char *profile_text;   /* nullable: its text in the context (borrowed) */
  JsonObject *given;          /* nullable: the observations as sent (a reference) */
  JsonObject *observations;   /* checked and cleaned, manifest order: made for the prompt (NULL before) */
  GArray *values;             /* GgA2gQuantisedValue, manifest order: what the cache key sees */
  JsonObject *quantised;      /* the same as JSON: made for a cache entry (NULL before) */
  GPtrArray *actions;         /* GgA2gAction of legal_actions, request order (borrowed from the type) */
  GPtrArray *sorted_ids;      /* their ids, sorted, for the key (borrowed from the type) */
  JsonArray *legal_actions;   /* the ids as JSON, request order: made for a model call (NULL before) */
  JsonArray *sorted_actions;  /* sorted, as JSON: made for a cache entry (NULL before) */
  gint64 deadline_ms;
  char *situation_key;        /* hex */
} GgA2gEntry;

GgA2gEntry *gg_a2g_entry_parse        (GgA2gManifest *manifest,
                                       GgA2gContext  *context,
                                       JsonObject    *object,
                                       gint64         default_deadline_ms,
                                       GError       **error);
void        gg_a2g_entry_free         (GgA2gEntry *entry);
char       *gg_a2g_entry_cache_key    (GgA2gEntry   *entry,
                                       const char   *session_id);
JsonObject *gg_a2g_entry_get_observations   (GgA2gEntry *entry);
JsonObject *gg_a2g_entry_get_quantised      (GgA2gEntry *entry);
JsonArray  *gg_a2g_entry_get_legal_actions  (GgA2gEntry *entry);
JsonArray  *gg_a2g_entry_get_sorted_actions (GgA2gEntry *entry);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgA2gEntry, gg_a2g_entry_free)

G_END_DECLS
