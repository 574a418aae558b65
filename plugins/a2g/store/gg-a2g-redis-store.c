/* gg-a2g-redis-store.c: the Redis store's object: where it connects (one
 * primary, the one the sentinels name, or a Cluster), the scripts every
 * topic sends (loaded on each connect), the 50 ms tick that times its
 * commands out and follows the layout, and the interface filled from the
 * topic files.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-redis-private.h"

static void gg_a2g_redis_store_iface_init (GgA2gStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GgA2gRedisStore, gg_a2g_redis_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_A2G_TYPE_STORE, gg_a2g_redis_store_iface_init))

static GgA2gRedisScript * const scripts[] = {
  &_gg_a2g_redis_script_session_open,
  &_gg_a2g_redis_script_session_lookup,
  &_gg_a2g_redis_script_session_context,
  &_gg_a2g_redis_script_session_count,
  &_gg_a2g_redis_script_rate,
  &_gg_a2g_redis_script_reserve,
  &_gg_a2g_redis_script_settle,
  &_gg_a2g_redis_script_budget_list,
  &_gg_a2g_redis_script_counters,
  &_gg_a2g_redis_script_record_report,
  &_gg_a2g_redis_script_record_recent,
  &_gg_a2g_redis_script_replay_claim,
  &_gg_a2g_redis_script_replay_finish,
  &_gg_a2g_redis_script_telemetry_put,
  &_gg_a2g_redis_script_player_claim,
  &_gg_a2g_redis_script_record_put_many,
  &_gg_a2g_redis_script_session_mark,
  &_gg_a2g_redis_script_player_check,
  &_gg_a2g_redis_script_player_renew,
  NULL
};

static gboolean
tick (gpointer user_data)
{
  GgA2gRedisStore *self = user_data;

  _gg_a2g_redis_connection_tick (self);
  _gg_a2g_redis_sessions_sweep (self);
  return G_SOURCE_CONTINUE;
}

static void
gg_a2g_redis_store_finalize (GObject *object)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (object);

  /* The benchmarks read this (round trips per decision). */
  g_debug ("a2g: %" G_GUINT64_FORMAT " commands sent to the shared store", self->commands);
  g_clear_handle_id (&self->tick_id, g_source_remove);
  _gg_a2g_redis_connection_close (self);
  g_hash_table_unref (self->manifests);
  g_hash_table_unref (self->seen);
  if (self->password != NULL)
    memset (self->password, 0, strlen (self->password));
  g_free (self->password);
  g_free (self->url);
  g_free (self->masked);
  g_free (self->master_name);
  g_clear_pointer (&self->addresses, g_ptr_array_unref);
  g_free (self->prefix);
  G_OBJECT_CLASS (gg_a2g_redis_store_parent_class)->finalize (object);
}

static void
gg_a2g_redis_store_class_init (GgA2gRedisStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_a2g_redis_store_finalize;
}

static void
gg_a2g_redis_store_init (GgA2gRedisStore *self)
{
  self->scripts = scripts;
  self->manifests = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) gg_a2g_manifest_unref);
  _gg_a2g_redis_sessions_init (self);
}

static void
gg_a2g_redis_store_iface_init (GgA2gStoreInterface *iface)
{
  _gg_a2g_redis_manifests_iface_init (iface);
  _gg_a2g_redis_sessions_iface_init (iface);
  _gg_a2g_redis_players_iface_init (iface);
  _gg_a2g_redis_jti_iface_init (iface);
  _gg_a2g_redis_cache_iface_init (iface);
  _gg_a2g_redis_limits_iface_init (iface);
  _gg_a2g_redis_records_iface_init (iface);
  _gg_a2g_redis_telemetry_iface_init (iface);
  _gg_a2g_redis_counters_iface_init (iface);
}

/**
 * gg_a2g_redis_store_new:
 * @url: a `redis` value checked with gg_a2g_redis_url_check()
 * @prefix: the keys' prefix
 * @timeout_ms: how long a command (or a connect) may take
 * @cache_entries: the game-wide cache index's bound per manifest
 * @cache_ttl_s: how long a cache entry lives
 *
 * Returns: (transfer full): a store connecting in the background
 */
GgA2gRedisStore *
gg_a2g_redis_store_new (const char *url,
                        const char *prefix,
                        gint64      timeout_ms,
                        guint       cache_entries,
                        gint64      cache_ttl_s)
{
  GgA2gRedisStore *self = g_object_new (GG_A2G_TYPE_REDIS_STORE, NULL);
  GSource *source;
  gboolean ok;

  ok = _gg_a2g_redis_url_parse (url, &self->mode, &self->master_name, &self->addresses, &self->password, NULL);
  g_return_val_if_fail (ok, self);
  self->url = g_strdup (url);
  self->masked = gg_a2g_redis_url_masked (url);
  self->prefix = g_strdup (prefix);
  self->timeout_ms = MAX (timeout_ms, 1);
  self->cache_max = MAX (cache_entries, 1);
  self->cache_ttl_ms = cache_ttl_s * 1000;
  source = g_timeout_source_new (50);
  g_source_set_callback (source, tick, self, NULL);
  self->tick_id = g_source_attach (source, g_main_context_get_thread_default ());
  g_source_unref (source);
  _gg_a2g_redis_connection_start (self);
  return self;
}

/** gg_a2g_redis_store_is_up: Returns: whether Redis answers now */
gboolean
gg_a2g_redis_store_is_up (GgA2gRedisStore *self)
{
  return self->up;
}

/** gg_a2g_redis_store_redirects: Returns: the MOVED and ASK answers followed so far */
guint64
gg_a2g_redis_store_redirects (GgA2gRedisStore *self)
{
  return self->redirects;
}

/** gg_a2g_redis_store_commands: Returns: the commands sent so far */
guint64
gg_a2g_redis_store_commands (GgA2gRedisStore *self)
{
  return self->commands;
}
