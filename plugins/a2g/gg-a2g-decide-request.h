/* gg-a2g-decide-request.h: one POST /v1/decide in progress: what it read
 * once for all its entities (the session's manifest and context), its
 * entities (gg-a2g-decide-entity.h) in request order, and what it does
 * once for all of them rather than once per entity: the request_id's
 * replay, one cache read, one deadline timer, one write of the decision
 * records, the decision ids' randomness, and the answer, once the store
 * has its writes.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-a2g-exchange.h"

G_BEGIN_DECLS

typedef struct _GgA2gDecideEntity GgA2gDecideEntity;

typedef struct {
  guint refs;                 /* the run, and every store or model call in flight */
  GgA2gExchange *ex;
  GgA2gManifest *manifest;    /* the session's */
  GgA2gContext *context;      /* the session's, or its manifest's empty one */
  GPtrArray *entities;        /* GgA2gDecideEntity, request order */
  guint pending;              /* entities not settled yet (+1 while starting them) */
  JsonNode *epoch;            /* nullable */
  char *request_id;           /* nullable */
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
} GgA2gDecideRequest;

GgA2gDecideRequest *gg_a2g_decide_request_new             (GgA2gExchange *ex,
                                                           GgA2gManifest *manifest,
                                                           GgA2gContext  *context,
                                                           JsonNode      *epoch,
                                                           const char    *request_id);
GgA2gDecideRequest *gg_a2g_decide_request_ref             (GgA2gDecideRequest *request);
void                gg_a2g_decide_request_unref           (GgA2gDecideRequest *request);
void                gg_a2g_decide_request_start           (GgA2gDecideRequest *request);
void                gg_a2g_decide_request_settled         (GgA2gDecideRequest *request);
void                gg_a2g_decide_request_add_record      (GgA2gDecideRequest *request,
                                                           GgA2gRecord        *record);
char               *gg_a2g_decide_request_new_decision_id (GgA2gDecideRequest *request);
GgA2gDecideRequest *gg_a2g_decide_request_write_begin (GgA2gDecideRequest *request);
void                gg_a2g_decide_request_write_done  (GgA2gDecideRequest *request);

/* Held by each callback of an entity's call: entities live as long as their
 * request, and the request until its last call has come back. */
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgA2gDecideRequest, gg_a2g_decide_request_unref)

G_END_DECLS
