/* gg-a2g-memory-store.c: every piece of a2g state in this process's memory.
 *
 * Operations complete through GTasks like a networked store's would (on
 * the next main-loop iteration), so the callers are already written for
 * the shared store of the server profile. A one-second sweep frees the
 * sessions that were neither used nor renewed for their TTL, together
 * with everything that belongs to them (records, telemetry, replays).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gamegate.h>

#include "gg-a2g-errors.h"
#include "gg-a2g-memory-private.h"


static void gg_a2g_memory_store_iface_init (GgA2gStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GgA2gMemoryStore, gg_a2g_memory_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_A2G_TYPE_STORE, gg_a2g_memory_store_iface_init))

static void
mem_session_free (MemSession *session)
{
  gg_a2g_session_unref (session->snapshot);
  if (session->previous_token != NULL)
    memset (session->previous_token, 0, strlen (session->previous_token));
  g_free (session->previous_token);
  g_hash_table_unref (session->recent);
  g_queue_clear (&session->record_order);
  g_hash_table_unref (session->records);
  g_hash_table_unref (session->telemetry);
  g_hash_table_unref (session->replays);
  g_free (session);
}

static void
recent_free (GQueue *queue)
{
  g_queue_free (queue);
}

static void
cache_node_free (CacheNode *node)
{
  gg_a2g_cache_entry_unref (node->entry);
  g_free (node);
}

static void
budget_free (Budget *budget)
{
  g_free (budget->window);
  g_free (budget);
}

static void
reservation_free (Reservation *reservation)
{
  g_ptr_array_unref (reservation->scopes);
  g_free (reservation);
}

static void
cache_remove (GgA2gMemoryStore *self,
              CacheNode        *node)
{
  g_queue_delete_link (&self->lru, node->link);
  g_hash_table_remove (self->cache, node->entry->key);
}

static gboolean
sweep (gpointer user_data)
{
  GgA2gMemoryStore *self = user_data;
  gint64 now = g_get_monotonic_time ();
  GHashTableIter iter;
  MemSession *session;

  _gg_a2g_memory_jti_sweep (self);
  _gg_a2g_memory_sub_sweep (self);
  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &session))
    {
      GHashTableIter replays;
      Replay *replay;

      if (session->last_used_us + session->snapshot->ttl_s * G_USEC_PER_SEC <= now)
        {
          g_hash_table_iter_remove (&iter);
          continue;
        }
      if (session->previous_token != NULL && session->previous_until_us <= now)
        {
          memset (session->previous_token, 0, strlen (session->previous_token));
          g_clear_pointer (&session->previous_token, g_free);
        }
      g_hash_table_iter_init (&replays, session->replays);
      while (g_hash_table_iter_next (&replays, NULL, (gpointer *) &replay))
        if (replay->answer != NULL && replay->expires_us <= now)
          g_hash_table_iter_remove (&replays);
    }
  return G_SOURCE_CONTINUE;
}

static void
gg_a2g_memory_store_finalize (GObject *object)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (object);

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
  g_hash_table_unref (self->subs);
  g_hash_table_unref (self->sub_owners);
  G_OBJECT_CLASS (gg_a2g_memory_store_parent_class)->finalize (object);
}

static void
gg_a2g_memory_store_class_init (GgA2gMemoryStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_a2g_memory_store_finalize;
}

static void
gg_a2g_memory_store_init (GgA2gMemoryStore *self)
{
  self->manifests = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) mem_session_free);
  self->cache = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) cache_node_free);
  self->budgets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) budget_free);
  self->reservations = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                              (GDestroyNotify) reservation_free);
  self->counters = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->buckets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->jtis = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->subs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_hash_table_unref);
  self->sub_owners = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->sweep_id = g_timeout_add_seconds (1, sweep, self);
}

/**
 * gg_a2g_memory_store_new:
 * @cache_entries: the most cache entries kept (least recently used out)
 * @cache_ttl_s: how long a cache entry lives
 *
 * Returns: (transfer full): a new, empty store
 */
GgA2gMemoryStore *
gg_a2g_memory_store_new (guint  cache_entries,
                         gint64 cache_ttl_s)
{
  GgA2gMemoryStore *self = g_object_new (GG_A2G_TYPE_MEMORY_STORE, NULL);

  self->cache_max = MAX (cache_entries, 1);
  self->cache_ttl_us = cache_ttl_s * G_USEC_PER_SEC;
  return self;
}

/* ---- manifests ------------------------------------------------------------- */

static void
manifest_put (GgA2gStore *store, const char *hash, const char *canonical,
              GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);

  if (!g_hash_table_contains (self->manifests, hash))
    g_hash_table_insert (self->manifests, g_strdup (hash), g_strdup (canonical));
  RETURN_BOOLEAN (TRUE);
}

static void
manifest_get (GgA2gStore *store, const char *hash,
              GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);

  RETURN_POINTER (g_strdup (g_hash_table_lookup (self->manifests, hash)), g_free);
}

/* ---- sessions -------------------------------------------------------------- */

static GgA2gSession *
snapshot_new (const char   *client_id,
              const char   *game,
              const char   *manifest_hash,
              gint64        ttl_s,
              GgA2gSession *previous)
{
  GgA2gSession *session = g_new0 (GgA2gSession, 1);

  g_atomic_ref_count_init (&session->ref);
  session->client_id = g_strdup (client_id);
  session->game = g_strdup (game);
  session->manifest_hash = g_strdup (manifest_hash);
  session->ttl_s = ttl_s;
  {
    /* 128 random bits (getrandom). */
    g_autofree char *hex = gg_secure_token_hex (16, NULL);
    session->token = g_strconcat ("s_", hex, NULL);
    memset (hex, 0, strlen (hex));
  }
  if (previous != NULL)
    {
      session->id = g_strdup (previous->id);
      /* A renewal for the same manifest keeps the context. */
      if (previous->context != NULL && g_strcmp0 (previous->manifest_hash, manifest_hash) == 0)
        session->context = gg_a2g_context_ref (previous->context);
    }
  else
    session->id = gg_secure_token_hex (8, NULL);
  return session;
}

static void
session_open (GgA2gStore *store, const char *client_id, const char *game, const char *manifest_hash,
              gint64 ttl_s, gint64 grace_s,
              GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  MemSession *session = g_hash_table_lookup (self->sessions, client_id);
  gint64 now = g_get_monotonic_time ();

  if (session != NULL && session->last_used_us + session->snapshot->ttl_s * G_USEC_PER_SEC <= now)
    {
      g_hash_table_remove (self->sessions, client_id);
      session = NULL;
    }
  if (session == NULL)
    {
      session = g_new0 (MemSession, 1);
      session->snapshot = snapshot_new (client_id, game, manifest_hash, ttl_s, NULL);
      session->records = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                (GDestroyNotify) gg_a2g_record_unref);
      session->recent = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) recent_free);
      session->telemetry = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                  (GDestroyNotify) gg_a2g_telemetry_free);
      session->replays = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) _gg_a2g_memory_replay_free);
      g_hash_table_insert (self->sessions, g_strdup (client_id), session);
    }
  else
    {
      GgA2gSession *renewed = snapshot_new (client_id, game, manifest_hash, ttl_s, session->snapshot);

      if (session->previous_token != NULL)
        memset (session->previous_token, 0, strlen (session->previous_token));
      g_free (session->previous_token);
      session->previous_token = g_strdup (session->snapshot->token);
      session->previous_until_us = now + grace_s * G_USEC_PER_SEC;
      gg_a2g_session_unref (session->snapshot);
      session->snapshot = renewed;
    }
  session->last_used_us = now;
  RETURN_POINTER (gg_a2g_session_ref (session->snapshot), gg_a2g_session_unref);
}

MemSession *
_gg_a2g_memory_live_session (GgA2gMemoryStore *self,
                             const char       *client_id)
{
  MemSession *session = g_hash_table_lookup (self->sessions, client_id);

  if (session != NULL &&
      session->last_used_us + session->snapshot->ttl_s * G_USEC_PER_SEC <= g_get_monotonic_time ())
    {
      g_hash_table_remove (self->sessions, client_id);
      return NULL;
    }
  return session;
}

static void
session_lookup (GgA2gStore *store, const char *client_id, const char *token,
                GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  MemSession *session = _gg_a2g_memory_live_session (self, client_id);
  gint64 now = g_get_monotonic_time ();
  gboolean ok;

  if (session == NULL)
    {
      RETURN_ERROR (GG_A2G_ERROR_UNKNOWN_SESSION, "Unknown session: open one with /v1/session.");
      return;
    }
  ok = token != NULL &&
       (gg_secure_equal (token, session->snapshot->token) ||
        (session->previous_token != NULL && session->previous_until_us > now &&
         gg_secure_equal (token, session->previous_token)));
  if (!ok)
    {
      RETURN_ERROR (GG_A2G_ERROR_UNAUTHORIZED, "Missing, invalid or expired session token.");
      return;
    }
  session->last_used_us = now;
  RETURN_POINTER (gg_a2g_session_ref (session->snapshot), gg_a2g_session_unref);
}

static void
session_set_context (GgA2gStore *store, const char *client_id, GgA2gContext *context,
                     GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  MemSession *session = _gg_a2g_memory_live_session (self, client_id);
  GgA2gSession *old, *copy;

  if (session == NULL)
    {
      RETURN_ERROR (GG_A2G_ERROR_UNKNOWN_SESSION, "Unknown session: open one with /v1/session.");
      return;
    }
  /* Snapshots are immutable: a new one with the new context. */
  old = session->snapshot;
  copy = g_new0 (GgA2gSession, 1);
  g_atomic_ref_count_init (&copy->ref);
  copy->client_id = g_strdup (old->client_id);
  copy->id = g_strdup (old->id);
  copy->game = g_strdup (old->game);
  copy->manifest_hash = g_strdup (old->manifest_hash);
  copy->token = g_strdup (old->token);
  copy->ttl_s = old->ttl_s;
  copy->context = gg_a2g_context_ref (context);
  session->snapshot = copy;
  gg_a2g_session_unref (old);
  RETURN_BOOLEAN (TRUE);
}

static void
session_count (GgA2gStore *store,
               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);

  sweep (self);
  RETURN_INT (g_hash_table_size (self->sessions));
}

/* ---- cache ----------------------------------------------------------------- */

/* The live entry of @key (now the most recently used), or NULL. */
static GgA2gCacheEntry *
cache_lookup (GgA2gMemoryStore *self, const char *key, gint64 now)
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
cache_get (GgA2gStore *store, const char *key,
           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  GgA2gCacheEntry *entry = cache_lookup (self, key, g_get_monotonic_time ());

  RETURN_POINTER (entry, gg_a2g_cache_entry_unref);
}

static void
cache_get_many (GgA2gStore *store, const char * const *keys, guint n_keys,
                GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  GPtrArray *hits = gg_a2g_cache_hits_new (n_keys);
  gint64 now = g_get_monotonic_time ();

  for (guint i = 0; i < n_keys; i++)
    g_ptr_array_index (hits, i) = cache_lookup (self, keys[i], now);
  RETURN_POINTER (hits, g_ptr_array_unref);
}

static void
cache_put (GgA2gStore *store, GgA2gCacheEntry *entry,
           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
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

static void
cache_list (GgA2gStore *store, const char *manifest_hash,
            GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  GPtrArray *entries = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_cache_entry_unref);
  gint64 now = g_get_monotonic_time ();

  /* Oldest first, so an export lists entries in the order they were made. */
  for (GList *l = self->lru.tail; l != NULL; l = l->prev)
    {
      CacheNode *node = g_hash_table_lookup (self->cache, l->data);

      if (g_str_has_prefix (node->entry->key, "game:") && node->entry->expires_us > now &&
          g_strcmp0 (node->entry->manifest_hash, manifest_hash) == 0)
        g_ptr_array_add (entries, gg_a2g_cache_entry_ref (node->entry));
    }
  RETURN_POINTER (entries, g_ptr_array_unref);
}

/* ---- rate buckets and budgets --------------------------------------------- */

static void
rate_take (GgA2gStore *store, const char *name, double rate, double burst,
           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  Bucket *bucket;
  gint64 now = g_get_monotonic_time ();

  if (rate <= 0)
    {
      RETURN_INT (0);
      return;
    }
  bucket = g_hash_table_lookup (self->buckets, name);
  if (bucket == NULL)
    {
      bucket = g_new0 (Bucket, 1);
      bucket->tokens = MAX (burst, 1);
      bucket->last_us = now;
      g_hash_table_insert (self->buckets, g_strdup (name), bucket);
    }
  bucket->tokens = MIN (MAX (burst, 1), bucket->tokens + rate * (double) (now - bucket->last_us) / G_USEC_PER_SEC);
  bucket->last_us = now;
  if (bucket->tokens >= 1)
    {
      bucket->tokens -= 1;
      RETURN_INT (0);
      return;
    }
  RETURN_INT ((gssize) MAX (1, ceil ((1 - bucket->tokens) / rate * 1000)));
}

static Budget *
budget_current (GgA2gMemoryStore       *self,
                const GgA2gBudgetLimit *limit,
                gint64                  now)
{
  Budget *budget = g_hash_table_lookup (self->budgets, limit->scope);

  if (budget == NULL)
    {
      budget = g_new0 (Budget, 1);
      budget->window_start_us = now;
      g_hash_table_insert (self->budgets, g_strdup (limit->scope), budget);
    }
  budget->limit = limit->limit;
  budget->window_s = MAX (limit->window_s, 1);
  if (g_strcmp0 (budget->window, limit->window) != 0)
    {
      g_free (budget->window);
      budget->window = g_strdup (limit->window);
    }
  if (now >= budget->window_start_us + budget->window_s * G_USEC_PER_SEC)
    {
      budget->used = 0;
      budget->window_start_us = now;
    }
  return budget;
}

static void
budget_reserve (GgA2gStore *store, const GgA2gBudgetLimit *limits, guint n_limits, gint64 amount,
                GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  gint64 now = g_get_monotonic_time ();
  Reservation *reservation;
  gint64 *id;

  for (guint i = 0; i < n_limits; i++)
    {
      Budget *budget = budget_current (self, &limits[i], now);

      if (budget->limit > 0 && budget->used + budget->reserved + amount > budget->limit)
        {
          RETURN_INT (0);
          return;
        }
    }
  reservation = g_new0 (Reservation, 1);
  reservation->scopes = g_ptr_array_new_with_free_func (g_free);
  reservation->amount = amount;
  for (guint i = 0; i < n_limits; i++)
    {
      Budget *budget = g_hash_table_lookup (self->budgets, limits[i].scope);

      budget->reserved += amount;
      g_ptr_array_add (reservation->scopes, g_strdup (limits[i].scope));
    }
  id = g_new (gint64, 1);
  *id = ++self->next_reservation;
  g_hash_table_insert (self->reservations, id, reservation);
  RETURN_INT ((gssize) *id);
}

static void
budget_settle (GgA2gStore *store, gint64 id, gint64 used,
               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  Reservation *reservation = g_hash_table_lookup (self->reservations, &id);

  if (reservation == NULL)
    {
      RETURN_BOOLEAN (FALSE);
      return;
    }
  for (guint i = 0; i < reservation->scopes->len; i++)
    {
      Budget *budget = g_hash_table_lookup (self->budgets, g_ptr_array_index (reservation->scopes, i));

      if (budget == NULL)
        continue;
      budget->reserved = MAX (0, budget->reserved - reservation->amount);
      budget->used += MAX (used, 0);
    }
  g_hash_table_remove (self->reservations, &id);
  RETURN_BOOLEAN (TRUE);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static void
budget_list (GgA2gStore *store, const char *prefix,
             GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  JsonArray *list = json_array_new ();
  g_autoptr(GPtrArray) scopes = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key;
  gint64 now = g_get_monotonic_time ();

  g_hash_table_iter_init (&iter, self->budgets);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (g_str_has_prefix (key, prefix))
      g_ptr_array_add (scopes, key);
  g_ptr_array_sort (scopes, compare_strings);
  for (guint i = 0; i < scopes->len; i++)
    {
      Budget *budget = g_hash_table_lookup (self->budgets, g_ptr_array_index (scopes, i));
      JsonObject *item = json_object_new ();

      if (now >= budget->window_start_us + budget->window_s * G_USEC_PER_SEC)
        {
          budget->used = 0;
          budget->window_start_us = now;
        }
      json_object_set_string_member (item, "scope", g_ptr_array_index (scopes, i));
      json_object_set_int_member (item, "used", budget->used);
      json_object_set_int_member (item, "limit", budget->limit);
      json_object_set_string_member (item, "window", budget->window);
      json_array_add_object_element (list, item);
    }
  RETURN_POINTER (list, json_array_unref);
}

static void
gg_a2g_memory_store_iface_init (GgA2gStoreInterface *iface)
{
  iface->manifest_put = manifest_put;
  iface->manifest_get = manifest_get;
  iface->session_open = session_open;
  iface->session_lookup = session_lookup;
  iface->session_set_context = session_set_context;
  iface->session_count = session_count;
  iface->cache_get = cache_get;
  iface->cache_get_many = cache_get_many;
  iface->cache_put = cache_put;
  iface->cache_list = cache_list;
  iface->rate_take = rate_take;
  iface->budget_reserve = budget_reserve;
  iface->budget_settle = budget_settle;
  iface->budget_list = budget_list;
  _gg_a2g_memory_counters_iface_init (iface);
  _gg_a2g_memory_session_iface_init (iface);
  _gg_a2g_memory_jti_iface_init (iface);
  _gg_a2g_memory_sub_iface_init (iface);
}
