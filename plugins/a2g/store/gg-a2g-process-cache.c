/* gg-a2g-process-cache.c: the process store's decision cache: entries by
 * key with their TTL, the least recently used going first past
 * `cache-entries`; cache_list() reads the game-wide entries of a manifest
 * oldest first, for /v1/policy.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-process-private.h"

typedef struct {
  GgA2gCacheEntry *entry;
  GList *link;           /* in the store's lru */
} CacheNode;

static void
cache_node_free (CacheNode *node)
{
  gg_a2g_cache_entry_unref (node->entry);
  g_free (node);
}

static void
cache_remove (GgA2gProcessStore *self,
              CacheNode         *node)
{
  g_queue_delete_link (&self->lru, node->link);
  g_hash_table_remove (self->cache, node->entry->key);
}

/* The live entry of @key (now the most recently used), or NULL. */
static GgA2gCacheEntry *
cache_lookup (GgA2gProcessStore *self,
              const char        *key,
              gint64             now)
{
  CacheNode *node = g_hash_table_lookup (self->cache, key);

  if (node != NULL && node->entry->expires_us <= now)
    {
      cache_remove (self, node);
      node = NULL;
    }
  if (node == NULL)
    return NULL;
  g_queue_unlink (&self->lru, node->link);
  g_queue_push_head_link (&self->lru, node->link);
  return gg_a2g_cache_entry_ref (node->entry);
}

static void
cache_get (GgA2gStore          *store,
           const char          *key,
           GCancellable        *cancellable,
           GAsyncReadyCallback  callback,
           gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  GgA2gCacheEntry *entry = cache_lookup (self, key, g_get_monotonic_time ());

  RETURN_POINTER (entry, gg_a2g_cache_entry_unref);
}

static void
cache_get_many (GgA2gStore          *store,
                const char * const  *keys,
                guint                n_keys,
                GCancellable        *cancellable,
                GAsyncReadyCallback  callback,
                gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  GPtrArray *hits = gg_a2g_cache_hits_new (n_keys);
  gint64 now = g_get_monotonic_time ();

  for (guint i = 0; i < n_keys; i++)
    g_ptr_array_index (hits, i) = cache_lookup (self, keys[i], now);
  RETURN_POINTER (hits, g_ptr_array_unref);
}

static void
cache_put (GgA2gStore          *store,
           GgA2gCacheEntry     *entry,
           GCancellable        *cancellable,
           GAsyncReadyCallback  callback,
           gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  CacheNode *node = g_hash_table_lookup (self->cache, entry->key);

  if (node != NULL)
    cache_remove (self, node);
  node = g_new0 (CacheNode, 1);
  node->entry = gg_a2g_cache_entry_ref (entry);
  node->entry->expires_us = g_get_monotonic_time () + self->cache_ttl_us;
  g_queue_push_head (&self->lru, node->entry->key);
  node->link = self->lru.head;
  g_hash_table_insert (self->cache, node->entry->key, node);
  while (g_hash_table_size (self->cache) > self->cache_max)
    cache_remove (self, g_hash_table_lookup (self->cache, g_queue_peek_tail (&self->lru)));
  RETURN_BOOLEAN (TRUE);
}

static int
compare_made (gconstpointer a,
              gconstpointer b)
{
  const GgA2gCacheEntry *x = *(GgA2gCacheEntry * const *) a, *y = *(GgA2gCacheEntry * const *) b;

  /* Every entry lives the same TTL from its put. */
  return x->expires_us < y->expires_us ? -1 : x->expires_us > y->expires_us;
}

static void
cache_list (GgA2gStore          *store,
            const char          *manifest_hash,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  GPtrArray *entries = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_cache_entry_unref);
  gint64 now = g_get_monotonic_time ();

  for (GList *l = self->lru.tail; l != NULL; l = l->prev)
    {
      CacheNode *node = g_hash_table_lookup (self->cache, l->data);

      if (g_str_has_prefix (node->entry->key, "game:") && node->entry->expires_us > now &&
          g_strcmp0 (node->entry->manifest_hash, manifest_hash) == 0)
        g_ptr_array_add (entries, gg_a2g_cache_entry_ref (node->entry));
    }
  /* Oldest first, so an export lists entries in the order they were made
   * (as Redis's index by expiry does), not in the order of their last hit. */
  g_ptr_array_sort (entries, compare_made);
  RETURN_POINTER (entries, g_ptr_array_unref);
}

/** _gg_a2g_process_cache_init: @self: the store, being made */
void
_gg_a2g_process_cache_init (GgA2gProcessStore *self)
{
  /* Keyed by the entry's own key. */
  self->cache = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) cache_node_free);
}

/** _gg_a2g_process_cache_iface_init: @iface: the store interface to fill */
void
_gg_a2g_process_cache_iface_init (GgA2gStoreInterface *iface)
{
  iface->cache_get = cache_get;
  iface->cache_get_many = cache_get_many;
  iface->cache_put = cache_put;
  iface->cache_list = cache_list;
}
