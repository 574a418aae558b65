/* gg-a2g-process-store.c: the process store's object: it holds every
 * topic's state (gg-a2g-process-private.h) and fills the interface from
 * the topic files.
 *
 * Operations complete through GTasks like a networked store's would (on
 * the next main-loop iteration), so the callers are already written for
 * the store replicas share. A one-second sweep frees the sessions that
 * were neither used nor renewed for their TTL, together with everything
 * that belongs to them (records, replays, telemetry), and what the other
 * topics keep past its time (answered replays, join-token ids, players'
 * claims).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-process-private.h"

static void gg_a2g_process_store_iface_init (GgA2gStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GgA2gProcessStore, gg_a2g_process_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_A2G_TYPE_STORE, gg_a2g_process_store_iface_init))

static gboolean
sweep (gpointer user_data)
{
  GgA2gProcessStore *self = user_data;

  _gg_a2g_process_jti_sweep (self);
  _gg_a2g_process_players_sweep (self);
  _gg_a2g_process_sessions_sweep (self);
  _gg_a2g_process_replays_sweep (self);
  return G_SOURCE_CONTINUE;
}

static void
gg_a2g_process_store_finalize (GObject *object)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (object);

  g_clear_handle_id (&self->sweep_id, g_source_remove);
  g_hash_table_unref (self->sessions);
  g_hash_table_unref (self->manifests);
  g_queue_clear (&self->lru);
  g_hash_table_unref (self->cache);
  g_hash_table_unref (self->budgets);
  g_hash_table_unref (self->reservations);
  g_hash_table_unref (self->counters);
  g_hash_table_unref (self->buckets);
  g_hash_table_unref (self->jtis);
  g_hash_table_unref (self->players);
  g_hash_table_unref (self->player_of);
  G_OBJECT_CLASS (gg_a2g_process_store_parent_class)->finalize (object);
}

static void
gg_a2g_process_store_class_init (GgA2gProcessStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_a2g_process_store_finalize;
}

static void
gg_a2g_process_store_init (GgA2gProcessStore *self)
{
  _gg_a2g_process_manifests_init (self);
  _gg_a2g_process_sessions_init (self);
  _gg_a2g_process_players_init (self);
  _gg_a2g_process_jti_init (self);
  _gg_a2g_process_cache_init (self);
  _gg_a2g_process_limits_init (self);
  _gg_a2g_process_counters_init (self);
  self->sweep_id = g_timeout_add_seconds (1, sweep, self);
}

static void
gg_a2g_process_store_iface_init (GgA2gStoreInterface *iface)
{
  _gg_a2g_process_manifests_iface_init (iface);
  _gg_a2g_process_sessions_iface_init (iface);
  _gg_a2g_process_players_iface_init (iface);
  _gg_a2g_process_jti_iface_init (iface);
  _gg_a2g_process_cache_iface_init (iface);
  _gg_a2g_process_limits_iface_init (iface);
  _gg_a2g_process_records_iface_init (iface);
  _gg_a2g_process_telemetry_iface_init (iface);
  _gg_a2g_process_counters_iface_init (iface);
}

/**
 * gg_a2g_process_store_new:
 * @cache_entries: the most cache entries kept (least recently used out)
 * @cache_ttl_s: how long a cache entry lives
 *
 * Returns: (transfer full): a new, empty store
 */
GgA2gProcessStore *
gg_a2g_process_store_new (guint  cache_entries,
                          gint64 cache_ttl_s)
{
  GgA2gProcessStore *self = g_object_new (GG_A2G_TYPE_PROCESS_STORE, NULL);

  self->cache_max = MAX (cache_entries, 1);
  self->cache_ttl_us = cache_ttl_s * G_USEC_PER_SEC;
  return self;
}
