/* gg-a2g-process-records.c: the process store's decision records (kept
 * for reports, accepted once, and for the entities' memory) and request_id
 * replays (a retry waits for the first answer), each within its session:
 * they go with it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-errors.h"
#include "gg-a2g-process-private.h"

#define MAX_RECORDS_PER_SESSION 100000

typedef struct {
  GBytes *answer;       /* NULL while pending */
  gint64 expires_us;
  GQueue waiters;       /* GTask */
} Replay;

static void
replay_free (Replay *replay)
{
  GTask *task;

  /* Waiters of a session that goes away become owners: they answer anew. */
  while ((task = g_queue_pop_head (&replay->waiters)) != NULL)
    {
      g_task_return_pointer (task, NULL, NULL);
      g_object_unref (task);
    }
  g_clear_pointer (&replay->answer, g_bytes_unref);
  g_free (replay);
}

/* ---- decision records ------------------------------------------------------ */

static void
record_add (GgA2gProcessSession *session,
            GgA2gRecord         *record)
{
  GQueue *recent;

  g_hash_table_insert (session->records, record->decision_id, gg_a2g_record_ref (record));
  g_queue_push_tail (&session->record_order, record);
  recent = g_hash_table_lookup (session->recent, record->entity);
  if (recent == NULL)
    {
      recent = g_queue_new ();
      g_hash_table_insert (session->recent, g_strdup (record->entity), recent);
    }
  g_queue_push_head (recent, record);
  if (g_queue_get_length (recent) > GG_A2G_STORE_RECENT_PER_ENTITY)
    g_queue_pop_tail (recent);
  /* A bound for a session that decides forever: the oldest records go. */
  while (g_queue_get_length (&session->record_order) > MAX_RECORDS_PER_SESSION)
    {
      GgA2gRecord *oldest = g_queue_pop_head (&session->record_order);
      GQueue *list = g_hash_table_lookup (session->recent, oldest->entity);

      if (list != NULL)
        g_queue_remove (list, oldest);
      g_hash_table_remove (session->records, oldest->decision_id);
    }
}

static void
record_put_many (GgA2gStore          *store,
                 const char          *client_id,
                 GPtrArray           *records,
                 GCancellable        *cancellable,
                 GAsyncReadyCallback  callback,
                 gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  GgA2gProcessSession *session = _gg_a2g_process_live_session (self, client_id);

  for (guint i = 0; session != NULL && i < records->len; i++)
    record_add (session, g_ptr_array_index (records, i));
  RETURN_BOOLEAN (session != NULL);
}

static void
record_report (GgA2gStore          *store,
               const char          *client_id,
               const char          *decision_id,
               const char          *entity,
               const char          *outcome,
               gboolean             has_reward,
               double               reward,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  GgA2gProcessSession *session = _gg_a2g_process_live_session (self, client_id);
  GgA2gRecord *record = session != NULL ? g_hash_table_lookup (session->records, decision_id) : NULL;

  if (record == NULL)
    {
      /* Issued to another live session? Then say so, and nothing more
       * (a session that ended, not swept yet, holds nothing any more). */
      gint64 now = g_get_monotonic_time ();
      GHashTableIter iter;
      GgA2gProcessSession *other;

      g_hash_table_iter_init (&iter, self->sessions);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &other))
        if (other != session && _gg_a2g_process_session_left_us (other, now) > 0 &&
            g_hash_table_contains (other->records, decision_id))
          {
            RETURN_INT (GG_A2G_REPORT_OTHER_SESSION);
            return;
          }
      RETURN_INT (GG_A2G_REPORT_UNKNOWN);
      return;
    }
  if (g_strcmp0 (record->entity, entity) != 0)
    {
      RETURN_INT (GG_A2G_REPORT_OTHER_ENTITY);
      return;
    }
  if (record->outcome != NULL)
    {
      RETURN_INT (GG_A2G_REPORT_ALREADY_REPORTED);
      return;
    }
  record->outcome = g_strdup (outcome);
  record->has_reward = has_reward;
  record->reward = reward;
  RETURN_INT (GG_A2G_REPORT_ACCEPTED);
}

static void
record_recent (GgA2gStore          *store,
               const char          *client_id,
               const char          *entity,
               guint                max,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  GgA2gProcessSession *session = _gg_a2g_process_live_session (self, client_id);
  GQueue *recent = session != NULL ? g_hash_table_lookup (session->recent, entity) : NULL;
  GPtrArray *records = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_record_unref);

  for (GList *l = recent != NULL ? recent->head : NULL; l != NULL && records->len < max; l = l->next)
    g_ptr_array_add (records, gg_a2g_record_ref (l->data));
  RETURN_POINTER (records, g_ptr_array_unref);
}

/* ---- request_id replays ---------------------------------------------------- */

static void
replay_claim (GgA2gStore          *store,
              const char          *client_id,
              const char          *request_id,
              gint64               ttl_s,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  GgA2gProcessSession *session = _gg_a2g_process_live_session (self, client_id);
  Replay *replay;

  if (session == NULL)
    {
      RETURN_POINTER (NULL, NULL);
      return;
    }
  if (session->replays == NULL)
    session->replays = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) replay_free);
  replay = g_hash_table_lookup (session->replays, request_id);
  if (replay != NULL && replay->answer != NULL && replay->expires_us <= g_get_monotonic_time ())
    {
      g_hash_table_remove (session->replays, request_id);
      replay = NULL;
    }
  if (replay == NULL)
    {
      replay = g_new0 (Replay, 1);
      replay->expires_us = g_get_monotonic_time () + ttl_s * G_USEC_PER_SEC;
      g_hash_table_insert (session->replays, g_strdup (request_id), replay);
      RETURN_POINTER (NULL, NULL);
      return;
    }
  if (replay->answer != NULL)
    {
      RETURN_POINTER (g_bytes_ref (replay->answer), g_bytes_unref);
      return;
    }
  g_queue_push_tail (&replay->waiters, g_task_new (store, cancellable, callback, user_data));
}

static void
replay_finish (GgA2gStore          *store,
               const char          *client_id,
               const char          *request_id,
               GBytes              *answer,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  GgA2gProcessSession *session = _gg_a2g_process_live_session (self, client_id);
  Replay *replay = session != NULL && session->replays != NULL ?
                   g_hash_table_lookup (session->replays, request_id) : NULL;
  GTask *task;

  if (replay == NULL || replay->answer != NULL)
    {
      RETURN_BOOLEAN (FALSE);
      return;
    }
  if (answer == NULL)
    {
      /* Given up: the first waiter owns it now, or nobody does. */
      task = g_queue_pop_head (&replay->waiters);
      if (task == NULL)
        g_hash_table_remove (session->replays, request_id);
      else
        {
          g_task_return_pointer (task, NULL, NULL);
          g_object_unref (task);
        }
      RETURN_BOOLEAN (TRUE);
      return;
    }
  replay->answer = g_bytes_ref (answer);
  replay->expires_us = g_get_monotonic_time () + (replay->expires_us - g_get_monotonic_time ());
  while ((task = g_queue_pop_head (&replay->waiters)) != NULL)
    {
      g_task_return_pointer (task, g_bytes_ref (answer), (GDestroyNotify) g_bytes_unref);
      g_object_unref (task);
    }
  RETURN_BOOLEAN (TRUE);
}

/** _gg_a2g_process_replays_sweep: forgets the answered replays past their time */
void
_gg_a2g_process_replays_sweep (GgA2gProcessStore *self)
{
  gint64 now = g_get_monotonic_time ();
  GHashTableIter iter;
  GgA2gProcessSession *session;

  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &session))
    {
      GHashTableIter replays;
      Replay *replay;

      if (session->replays == NULL)
        continue;
      g_hash_table_iter_init (&replays, session->replays);
      while (g_hash_table_iter_next (&replays, NULL, (gpointer *) &replay))
        if (replay->answer != NULL && replay->expires_us <= now)
          g_hash_table_iter_remove (&replays);
    }
}

/** _gg_a2g_process_records_iface_init: @iface: the store interface to fill */
void
_gg_a2g_process_records_iface_init (GgA2gStoreInterface *iface)
{
  iface->record_put_many = record_put_many;
  iface->record_report = record_report;
  iface->record_recent = record_recent;
  iface->replay_claim = replay_claim;
  iface->replay_finish = replay_finish;
}
