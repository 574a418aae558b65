/* gg-oam-queue.h: per-session (and per-NPC) operation queues.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

typedef struct _GgOamQueue GgOamQueue;
typedef struct _GgOamOp GgOamOp;

/* Starts the operation; it finishes with gg_oam_op_return_*() now or later. */
typedef void (*GgOamOpFunc) (GgOamOp *op);

struct _GgOamOp {
  GgOamQueue *queue;            /* unowned while queued or running */
  GgJsonRpcRequest *request;    /* owned until answered; NULL for internal work */
  GCancellable *cancellable;
  GgOamOpFunc run;
  gpointer data;
  GDestroyNotify destroy;
  gboolean running;
  gboolean committed;           /* took effect: later cancels do not count it */
  gboolean internal;            /* background work, not counted as a request */
};

GgOamQueue *gg_oam_queue_new          (void);
void        gg_oam_queue_free         (GgOamQueue *queue);
GgOamOp    *gg_oam_op_new             (GgJsonRpcRequest *request,
                                       GgOamOpFunc       run,
                                       gpointer          data,
                                       GDestroyNotify    destroy);
void        gg_oam_queue_push         (GgOamQueue *queue,
                                       GgOamOp    *op);
void        gg_oam_queue_push_front   (GgOamQueue *queue,
                                       GgOamOp    *op);
guint       gg_oam_queue_cancel       (GgOamQueue *queue);
gboolean    gg_oam_queue_is_busy      (GgOamQueue *queue);
guint       gg_oam_queue_get_pending  (GgOamQueue *queue);
gboolean    gg_oam_op_commit          (GgOamOp *op);
void        gg_oam_op_return_result   (GgOamOp  *op,
                                       JsonNode *result);
void        gg_oam_op_return_error    (GgOamOp      *op,
                                       const GError *error);

G_END_DECLS
