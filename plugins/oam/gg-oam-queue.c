/* gg-oam-queue.c: the per-session queue of section 2.3: turn-affecting
 * operations run one after another in arrival order. An operation is pushed
 * by its handler (so queue order is arrival order) and answered exactly once:
 * with its result, its error, or -32009 when cancelled before it took effect.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-oam-connection.h"
#include "gg-oam-errors.h"
#include "gg-oam-queue.h"

struct _GgOamQueue {
  GQueue waiting;     /* GgOamOp, arrival order */
  GgOamOp *current;
  gboolean pumping;
  gboolean freed;     /* the owner is gone; the running op finishes alone */
};

/**
 * gg_oam_queue_new:
 *
 * Returns: (transfer full): an empty queue
 */
GgOamQueue *
gg_oam_queue_new (void)
{
  return g_new0 (GgOamQueue, 1);
}

static void
op_free (GgOamOp *op)
{
  if (op->destroy != NULL)
    op->destroy (op->data);
  if (op->request != NULL)
    {
      /* Never leave a client waiting. */
      g_autoptr(GError) error = gg_oam_error_cancelled ();
      gg_oam_return_error (g_steal_pointer (&op->request), error);
    }
  g_clear_object (&op->cancellable);
  g_free (op);
}

/**
 * gg_oam_queue_free:
 * @queue: (transfer full): a queue
 *
 * Cancels everything; a running operation is freed when it finishes.
 */
void
gg_oam_queue_free (GgOamQueue *queue)
{
  if (queue == NULL)
    return;
  gg_oam_queue_cancel (queue);
  if (queue->current != NULL)
    {
      queue->freed = TRUE;
      queue->current->queue = queue;
      return;
    }
  g_free (queue);
}

/**
 * gg_oam_op_new:
 * @request: (transfer full) (nullable): the request it answers
 * @run: starts the operation
 * @data: (transfer full): operation data
 * @destroy: frees @data
 *
 * Returns: (transfer full): an operation for gg_oam_queue_push()
 */
GgOamOp *
gg_oam_op_new (GgJsonRpcRequest *request,
               GgOamOpFunc       run,
               gpointer          data,
               GDestroyNotify    destroy)
{
  GgOamOp *op = g_new0 (GgOamOp, 1);

  op->request = request;
  op->run = run;
  op->data = data;
  op->destroy = destroy;
  op->cancellable = g_cancellable_new ();
  gg_oam_tag_cancellable (op->cancellable);
  if (request != NULL)
    gg_oam_request_work_track (op->cancellable);
  op->internal = request == NULL;
  return op;
}

static void
pump (GgOamQueue *queue)
{
  if (queue->pumping)
    return;
  queue->pumping = TRUE;
  while (queue->current == NULL && !g_queue_is_empty (&queue->waiting))
    {
      GgOamOp *op = g_queue_pop_head (&queue->waiting);

      queue->current = op;
      op->running = TRUE;
      op->run (op);
    }
  queue->pumping = FALSE;
}

/**
 * gg_oam_queue_push:
 * @queue: a queue
 * @op: (transfer full): the operation; it starts when the ones before it
 *   are done (right away when the queue is idle)
 */
void
gg_oam_queue_push (GgOamQueue *queue,
                   GgOamOp    *op)
{
  op->queue = queue;
  g_queue_push_tail (&queue->waiting, op);
  pump (queue);
}

/**
 * gg_oam_queue_push_front:
 * @queue: a queue
 * @op: (transfer full): work that must run before everything waiting
 *   (an NPC's compaction after the turn that triggered it)
 */
void
gg_oam_queue_push_front (GgOamQueue *queue,
                         GgOamOp    *op)
{
  op->queue = queue;
  g_queue_push_head (&queue->waiting, op);
  pump (queue);
}

/**
 * gg_oam_queue_cancel:
 * @queue: a queue
 *
 * Cancels the running operation and every queued one; queued ones are
 * answered -32009 at once, the running one when it stops.
 *
 * Returns: how many client requests were cancelled
 */
guint
gg_oam_queue_cancel (GgOamQueue *queue)
{
  guint count = 0;
  GgOamOp *op;

  if (queue->current != NULL && !queue->current->committed &&
      !g_cancellable_is_cancelled (queue->current->cancellable))
    {
      if (!queue->current->internal)
        count++;
      g_cancellable_cancel (queue->current->cancellable);
    }
  while ((op = g_queue_pop_head (&queue->waiting)) != NULL)
    {
      if (!op->internal)
        count++;
      g_cancellable_cancel (op->cancellable);
      op_free (op);
    }
  return count;
}

/**
 * gg_oam_queue_is_busy:
 * @queue: a queue
 *
 * Returns: whether an operation is running
 */
gboolean
gg_oam_queue_is_busy (GgOamQueue *queue)
{
  return queue->current != NULL;
}

/**
 * gg_oam_queue_get_pending:
 * @queue: a queue
 *
 * Returns: operations waiting behind the running one
 */
guint
gg_oam_queue_get_pending (GgOamQueue *queue)
{
  return g_queue_get_length (&queue->waiting);
}

/**
 * gg_oam_op_commit:
 * @op: the running operation
 *
 * Called right before the operation changes state: from now on a cancel
 * does not count it and it reports its result normally.
 *
 * Returns: %FALSE when it was cancelled first (answer -32009 instead)
 */
gboolean
gg_oam_op_commit (GgOamOp *op)
{
  if (g_cancellable_is_cancelled (op->cancellable))
    return FALSE;
  op->committed = TRUE;
  return TRUE;
}

static void
finish (GgOamOp *op)
{
  GgOamQueue *queue = op->queue;

  if (queue != NULL && queue->current == op)
    {
      queue->current = NULL;
      if (queue->freed)
        {
          op_free (op);
          g_free (queue);
          return;
        }
      /* Start the next one before freeing this one: the op may hold the
       * last reference to the queue's owner. */
      pump (queue);
    }
  op_free (op);
}

/**
 * gg_oam_op_return_result:
 * @op: (transfer full): the running operation
 * @result: (transfer full): its result
 *
 * Answers the request and starts the next operation.
 */
void
gg_oam_op_return_result (GgOamOp  *op,
                         JsonNode *result)
{
  if (op->request != NULL)
    gg_jsonrpc_request_return_result (g_steal_pointer (&op->request), result);
  if (result != NULL)
    json_node_unref (result);
  finish (op);
}

/**
 * gg_oam_op_return_error:
 * @op: (transfer full): the running operation
 * @error: its failure
 */
void
gg_oam_op_return_error (GgOamOp      *op,
                        const GError *error)
{
  if (op->request != NULL)
    gg_oam_return_error (g_steal_pointer (&op->request), error);
  finish (op);
}
