/* gg-a2g-memory-session.c: what the in-memory store keeps per session:
 * decision records (reports accepted once, memory), request_id replays
 * (a retry waits for the first answer) and telemetry with the situation
 * context derived from it, within that session only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "gg-a2g-errors.h"
#include "gg-a2g-memory-private.h"
#include "gg-a2g-situation.h"

#define MAX_RECENT 16
#define MAX_RECORDS_PER_SESSION 100000


void
_gg_a2g_memory_replay_free (Replay *replay)
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
record_add (MemSession *session, GgA2gRecord *record)
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
  if (g_queue_get_length (recent) > MAX_RECENT)
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
record_put_many (GgA2gStore *store, const char *client_id, GPtrArray *records,
                 GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  MemSession *session = _gg_a2g_memory_live_session (self, client_id);

  for (guint i = 0; session != NULL && i < records->len; i++)
    record_add (session, g_ptr_array_index (records, i));
  RETURN_BOOLEAN (session != NULL);
}

static void
record_report (GgA2gStore *store, const char *client_id, const char *decision_id, const char *entity,
               const char *outcome, gboolean has_reward, double reward,
               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  MemSession *session = _gg_a2g_memory_live_session (self, client_id);
  GgA2gRecord *record = session != NULL ? g_hash_table_lookup (session->records, decision_id) : NULL;

  if (record == NULL)
    {
      /* Issued to another live session? Then say so, and nothing more. */
      GHashTableIter iter;
      MemSession *other;

      g_hash_table_iter_init (&iter, self->sessions);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &other))
        if (other != session && g_hash_table_contains (other->records, decision_id))
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
record_recent (GgA2gStore *store, const char *client_id, const char *entity, guint max,
               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  MemSession *session = _gg_a2g_memory_live_session (self, client_id);
  GQueue *recent = session != NULL ? g_hash_table_lookup (session->recent, entity) : NULL;
  GPtrArray *records = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_record_unref);

  for (GList *l = recent != NULL ? recent->head : NULL; l != NULL && records->len < max; l = l->next)
    g_ptr_array_add (records, gg_a2g_record_ref (l->data));
  RETURN_POINTER (records, g_ptr_array_unref);
}

/* ---- request_id replays ---------------------------------------------------- */

static void
replay_claim (GgA2gStore *store, const char *client_id, const char *request_id, gint64 ttl_s,
              GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  MemSession *session = _gg_a2g_memory_live_session (self, client_id);
  Replay *replay;

  if (session == NULL)
    {
      RETURN_POINTER (NULL, NULL);
      return;
    }
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
replay_finish (GgA2gStore *store, const char *client_id, const char *request_id, GBytes *answer,
               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  MemSession *session = _gg_a2g_memory_live_session (self, client_id);
  Replay *replay = session != NULL ? g_hash_table_lookup (session->replays, request_id) : NULL;
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

/* ---- telemetry ------------------------------------------------------------- */

static void
telemetry_put (GgA2gStore *store, const char *client_id, GPtrArray *entries, guint max_tracked,
               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  MemSession *session = _gg_a2g_memory_live_session (self, client_id);
  guint kept = 0;

  for (guint i = 0; session != NULL && i < entries->len; i++)
    {
      GgA2gTelemetry *entry = g_ptr_array_index (entries, i);
      GgA2gTelemetry *copy;

      if (!g_hash_table_contains (session->telemetry, entry->entity) &&
          g_hash_table_size (session->telemetry) >= max_tracked)
        continue;
      copy = g_new0 (GgA2gTelemetry, 1);
      *copy = *entry;
      copy->entity = g_strdup (entry->entity);
      copy->type = g_strdup (entry->type);
      copy->faction = g_strdup (entry->faction);
      copy->scalars = entry->scalars != NULL ? json_object_ref (entry->scalars) : NULL;
      g_hash_table_replace (session->telemetry, copy->entity, copy);
      kept++;
    }
  RETURN_INT (kept);
}

static void
situation (GgA2gStore *store, const char *client_id, const char *entity, double radius,
           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  MemSession *session = _gg_a2g_memory_live_session (self, client_id);
  g_autoptr(GPtrArray) all = NULL;
  GHashTableIter iter;
  GgA2gTelemetry *other;

  if (session == NULL || g_hash_table_size (session->telemetry) == 0)
    {
      RETURN_POINTER (NULL, NULL);
      return;
    }
  all = g_ptr_array_new ();
  g_hash_table_iter_init (&iter, session->telemetry);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &other))
    g_ptr_array_add (all, other);
  RETURN_POINTER (gg_a2g_situation_build (all, entity, radius), json_object_unref);
}

/* The operations of this file, in the store's interface. */
void
_gg_a2g_memory_session_iface_init (GgA2gStoreInterface *iface)
{
  iface->record_put_many = record_put_many;
  iface->record_report = record_report;
  iface->record_recent = record_recent;
  iface->replay_claim = replay_claim;
  iface->replay_finish = replay_finish;
  iface->telemetry_put = telemetry_put;
  iface->situation = situation;
}
