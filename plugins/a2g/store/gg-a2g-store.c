/* gg-a2g-store.c: the store interface's entry points and the plain data
 * that crosses it (see gg-a2g-store.h for the contract).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-store.h"

G_DEFINE_INTERFACE (GgA2gStore, gg_a2g_store, G_TYPE_OBJECT)

static void
gg_a2g_store_default_init (GgA2gStoreInterface *iface)
{
}

#define IFACE(self) GG_A2G_STORE_GET_IFACE (self)

GG_A2G_STORE_OP (manifest_put, const char *hash, const char *canonical,)
{
  IFACE (self)->manifest_put (self, hash, canonical, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (manifest_get, const char *hash,)
{
  IFACE (self)->manifest_get (self, hash, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (session_open, const char *client_id, const char *game, const char *manifest_hash,
                 gint64 ttl_s, gint64 grace_s,)
{
  IFACE (self)->session_open (self, client_id, game, manifest_hash, ttl_s, grace_s, cancellable, callback,
                              user_data);
}

GG_A2G_STORE_OP (session_lookup, const char *client_id, const char *token,)
{
  IFACE (self)->session_lookup (self, client_id, token, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (session_set_context, const char *client_id, GgA2gContext *context,)
{
  IFACE (self)->session_set_context (self, client_id, context, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (session_count,)
{
  IFACE (self)->session_count (self, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (cache_get, const char *key,)
{
  IFACE (self)->cache_get (self, key, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (cache_put, GgA2gCacheEntry *entry,)
{
  IFACE (self)->cache_put (self, entry, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (cache_list, const char *manifest_hash,)
{
  IFACE (self)->cache_list (self, manifest_hash, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (rate_take, const char *bucket, double rate, double burst,)
{
  IFACE (self)->rate_take (self, bucket, rate, burst, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (budget_reserve, const GgA2gBudgetLimit *limits, guint n_limits, gint64 amount,)
{
  IFACE (self)->budget_reserve (self, limits, n_limits, amount, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (budget_settle, gint64 reservation, gint64 used,)
{
  IFACE (self)->budget_settle (self, reservation, used, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (budget_list, const char *prefix,)
{
  IFACE (self)->budget_list (self, prefix, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (counters_add, const GgA2gCounter *deltas, guint n_deltas,)
{
  IFACE (self)->counters_add (self, deltas, n_deltas, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (record_report, const char *client_id, const char *decision_id, const char *entity,
                 const char *outcome, gboolean has_reward, double reward,)
{
  IFACE (self)->record_report (self, client_id, decision_id, entity, outcome, has_reward, reward,
                               cancellable, callback, user_data);
}

GG_A2G_STORE_OP (record_recent, const char *client_id, const char *entity, guint max,)
{
  IFACE (self)->record_recent (self, client_id, entity, max, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (replay_claim, const char *client_id, const char *request_id, gint64 ttl_s,)
{
  IFACE (self)->replay_claim (self, client_id, request_id, ttl_s, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (replay_finish, const char *client_id, const char *request_id, GBytes *answer,)
{
  IFACE (self)->replay_finish (self, client_id, request_id, answer, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (telemetry_put, const char *client_id, GPtrArray *entries, guint max_tracked,)
{
  IFACE (self)->telemetry_put (self, client_id, entries, max_tracked, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (situation, const char *client_id, const char *entity, double radius,)
{
  IFACE (self)->situation (self, client_id, entity, radius, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (jti_claim, const char *jti, gint64 expires_unix_s,)
{
  IFACE (self)->jti_claim (self, jti, expires_unix_s, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (sub_session_claim, const char *game, const char *sub, const char *client_id, guint max,
                 gint64 ttl_s,)
{
  IFACE (self)->sub_session_claim (self, game, sub, client_id, max, ttl_s, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (cache_get_many, const char * const *keys, guint n_keys,)
{
  IFACE (self)->cache_get_many (self, keys, n_keys, cancellable, callback, user_data);
}

GG_A2G_STORE_OP (record_put_many, const char *client_id, GPtrArray *records,)
{
  IFACE (self)->record_put_many (self, client_id, records, cancellable, callback, user_data);
}

static void
cache_hit_free (gpointer entry)
{
  if (entry != NULL)
    gg_a2g_cache_entry_unref (entry);
}

/**
 * gg_a2g_cache_hits_new:
 * @n_keys: how many keys a cache_get_many() reads
 *
 * Returns: (transfer full): @n_keys NULL elements (misses) that free
 *   the entries put in their place
 */
GPtrArray *
gg_a2g_cache_hits_new (guint n_keys)
{
  GPtrArray *hits = g_ptr_array_new_full (n_keys, cache_hit_free);

  g_ptr_array_set_size (hits, n_keys);
  return hits;
}

/** gg_a2g_store_finish_pointer: Returns: (transfer full) (nullable): the result */
gpointer
gg_a2g_store_finish_pointer (GgA2gStore   *self,
                             GAsyncResult *result,
                             GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/** gg_a2g_store_finish_boolean: Returns: the result */
gboolean
gg_a2g_store_finish_boolean (GgA2gStore   *self,
                             GAsyncResult *result,
                             GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/** gg_a2g_store_finish_int: Returns: the result, -1 with @error set */
gssize
gg_a2g_store_finish_int (GgA2gStore   *self,
                         GAsyncResult *result,
                         GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), -1);
  return g_task_propagate_int (G_TASK (result), error);
}

/* ---- plain data ----------------------------------------------------------- */

/** gg_a2g_session_ref: Returns: (transfer full): @session */
GgA2gSession *
gg_a2g_session_ref (GgA2gSession *session)
{
  g_atomic_ref_count_inc (&session->ref);
  return session;
}

/** gg_a2g_session_unref: @session: (transfer full): a session */
void
gg_a2g_session_unref (GgA2gSession *session)
{
  if (!g_atomic_ref_count_dec (&session->ref))
    return;
  g_free (session->client_id);
  g_free (session->id);
  g_free (session->game);
  g_free (session->manifest_hash);
  if (session->token != NULL)
    memset (session->token, 0, strlen (session->token));
  g_free (session->token);
  g_clear_pointer (&session->context, gg_a2g_context_unref);
  g_free (session);
}

/** gg_a2g_cache_entry_new: Returns: (transfer full): an empty entry */
GgA2gCacheEntry *
gg_a2g_cache_entry_new (void)
{
  GgA2gCacheEntry *entry = g_new0 (GgA2gCacheEntry, 1);

  g_atomic_ref_count_init (&entry->ref);
  return entry;
}

/** gg_a2g_cache_entry_ref: Returns: (transfer full): @entry */
GgA2gCacheEntry *
gg_a2g_cache_entry_ref (GgA2gCacheEntry *entry)
{
  g_atomic_ref_count_inc (&entry->ref);
  return entry;
}

/** gg_a2g_cache_entry_unref: @entry: (transfer full): an entry */
void
gg_a2g_cache_entry_unref (GgA2gCacheEntry *entry)
{
  if (!g_atomic_ref_count_dec (&entry->ref))
    return;
  g_free (entry->key);
  g_free (entry->manifest_hash);
  g_free (entry->type);
  g_clear_pointer (&entry->situation, json_node_unref);
  g_clear_pointer (&entry->legal_actions, json_node_unref);
  g_free (entry->action);
  g_free (entry->reason);
  g_free (entry);
}

/** gg_a2g_record_new: Returns: (transfer full): an empty record */
GgA2gRecord *
gg_a2g_record_new (void)
{
  GgA2gRecord *record = g_new0 (GgA2gRecord, 1);

  g_atomic_ref_count_init (&record->ref);
  return record;
}

/** gg_a2g_record_ref: Returns: (transfer full): @record */
GgA2gRecord *
gg_a2g_record_ref (GgA2gRecord *record)
{
  g_atomic_ref_count_inc (&record->ref);
  return record;
}

/** gg_a2g_record_unref: @record: (transfer full): a record */
void
gg_a2g_record_unref (GgA2gRecord *record)
{
  if (!g_atomic_ref_count_dec (&record->ref))
    return;
  g_free (record->decision_id);
  g_free (record->entity);
  g_free (record->type);
  g_free (record->action);
  g_free (record->reason);
  g_free (record->situation_key);
  g_free (record->outcome);
  g_free (record);
}

/** gg_a2g_telemetry_free: @entry: (transfer full) (nullable): an entry */
void
gg_a2g_telemetry_free (GgA2gTelemetry *entry)
{
  if (entry == NULL)
    return;
  g_free (entry->entity);
  g_free (entry->type);
  g_free (entry->faction);
  g_clear_pointer (&entry->scalars, json_object_unref);
  g_free (entry);
}
