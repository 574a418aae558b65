/* gg-a2g-decide-private.h: what the two halves of POST /v1/decide share:
 * the request and its entities. gg-a2g-decide.c holds each entity's
 * pipeline (forced, cache answer, memory, limits, budgets, the model
 * call, settling); gg-a2g-decide-batch.c what the request does once for
 * all its entities (starting them, one cache read, one deadline timer, one
 * write of the decision records, the decision ids' randomness).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-a2g-entity.h"
#include "gg-a2g-service.h"

G_BEGIN_DECLS

typedef struct _Request Request;

typedef struct {
  Request *request;
  guint index;
  JsonObject *object;         /* the entry as sent (borrowed from the body) */
  GgA2gEntry *entry;          /* NULL when the entry is invalid */
  char *invalid;              /* why */
  JsonObject *answer;         /* set once settled */
  GCancellable *cancellable;  /* the model call's: made with it */
  gint64 deadline_us;         /* monotonic; 0: none (settled at once) */
  gboolean timed_out;
  gint64 reservation;
  gboolean in_model;
  gboolean holds_slot;        /* counted in the model calls in flight */
  GgDecision *decision;
  GPtrArray *memory;          /* GgA2gRecord, newest first */
  JsonObject *situation;
  gint64 started_us;
  gboolean own_cache_read;    /* client profile: the session's entries looked at too */
} Entity;

struct _Request {
  guint refs;                 /* the run, and every store or model call in flight */
  GgA2gExchange *ex;
  GgA2gManifest *manifest;
  GgA2gContext *context;
  GPtrArray *entities;        /* Entity, request order */
  guint pending;
  JsonNode *epoch;
  char *request_id;
  gulong cancel_id;
  GSource *deadline;          /* at the earliest deadline of the unsettled entities */
  GPtrArray *records;         /* GgA2gRecord of the decisions made, written at the end */
  char *random_hex;           /* the decision ids' random part, 16 digits each */
  guint ids_used;
  /* The answer waits for the store writes of its decisions (records,
   * cache entries), so that what follows it, on any replica, sees them. */
  guint writes;
  gboolean finishing;
  gboolean answered;
};

/* gg-a2g-decide.c */
Request *_gg_a2g_decide_request_ref    (Request *request);
void     _gg_a2g_decide_request_unref  (Request *request);
void     _gg_a2g_decide_request_finish (Request *request);
void     _gg_a2g_decide_write_done     (Request *request);
gboolean _gg_a2g_decide_entity_start   (Entity *entity);
gboolean _gg_a2g_decide_cached         (Entity          *entity,
                                        GgA2gCacheEntry *hit);
void     _gg_a2g_decide_timed_out      (Entity *entity);

/* gg-a2g-decide-batch.c */
void     _gg_a2g_decide_request_run     (Request *request);
void     _gg_a2g_decide_deadline_stop   (Request *request);
void     _gg_a2g_decide_records_write   (Request *request);
char    *_gg_a2g_decide_new_decision_id (Request *request);

G_END_DECLS
