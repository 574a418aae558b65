/* gg-a2g-decide-entity.h: one entity of a POST /v1/decide going through
 * the decision pipeline (gg-a2g-decide-entity.c), within its request
 * (gg-a2g-decide-request.h), which owns it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-a2g-decide-request.h"
#include "gg-a2g-entry.h"

G_BEGIN_DECLS

struct _GgA2gDecideEntity {
  GgA2gDecideRequest *request; /* borrowed: the request owns its entities */
  JsonObject *object;          /* the entry as sent (borrowed from the body) */
  GgA2gEntry *entry;           /* NULL when the entry is invalid */
  char *invalid;               /* why */
  gboolean settled;            /* its answer is one of these: */
  GgA2gRecord *record;         /* a decision's (borrowed: the request's records hold it) */
  GgA2gSource source;          /* a decision's */
  GgA2gFallback code;          /* a fallback's (record NULL) */
  char *message;               /* a fallback's, nullable */
  GCancellable *cancellable;   /* the model call's: made with it */
  gint64 started_us;
  gint64 deadline_us;          /* monotonic; 0: none (settled at once) */
  gboolean timed_out;
  gboolean own_cache_read;     /* client profile: the session's entries looked at too */
  GPtrArray *memory;           /* GgA2gRecord, newest first */
  gboolean holds_slot;         /* counted in the model calls in flight */
  gint64 reservation;
  JsonObject *situation_context;
  GgDecision *decision;
  gboolean in_model;
};

GgA2gDecideEntity *gg_a2g_decide_entity_new       (GgA2gDecideRequest *request,
                                                   JsonObject         *object,
                                                   gint64              default_deadline_ms);
void               gg_a2g_decide_entity_free      (GgA2gDecideEntity *entity);
void               gg_a2g_decide_entity_append_answer (GgA2gDecideEntity *entity,
                                                       GString           *out);
gboolean           gg_a2g_decide_entity_start     (GgA2gDecideEntity *entity);
char              *gg_a2g_decide_entity_cache_key (GgA2gDecideEntity *entity);
gboolean           gg_a2g_decide_entity_cached    (GgA2gDecideEntity *entity,
                                                   GgA2gCacheEntry   *hit);
gboolean           gg_a2g_decide_entity_waits     (GgA2gDecideEntity *entity);
void               gg_a2g_decide_entity_time_out  (GgA2gDecideEntity *entity);
void               gg_a2g_decide_entity_cancel    (GgA2gDecideEntity *entity);

G_END_DECLS
