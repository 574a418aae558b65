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
#include "gg-a2g-memory-store.h"

#define MAX_RECENT 16
#define MAX_RECORDS_PER_SESSION 100000

typedef struct {
  GBytes *answer;       /* NULL while pending */
  gint64 expires_us;
  GQueue waiters;       /* GTask */
} Replay;

typedef struct {
  GgA2gSession *snapshot;
  char *previous_token;
  gint64 previous_until_us;
  gint64 last_used_us;
  GHashTable *records;   /* decision_id -> GgA2gRecord */
  GQueue record_order;   /* GgA2gRecord (borrowed), oldest first */
  GHashTable *recent;    /* entity -> GQueue of GgA2gRecord (borrowed), newest first */
  GHashTable *telemetry; /* entity -> GgA2gTelemetry */
  GHashTable *replays;   /* request_id -> Replay */
} MemSession;

typedef struct {
  GgA2gCacheEntry *entry;
  GList *link;
} CacheNode;

typedef struct {
  gint64 used;
  gint64 reserved;
  gint64 limit;
  gint64 window_s;
  gint64 window_start_us;
  char *window;
} Budget;

typedef struct {
  GPtrArray *scopes;     /* char* */
  gint64 amount;
} Reservation;

typedef struct {
  double tokens;
  gint64 last_us;
} Bucket;

struct _GgA2gMemoryStore {
  GObject parent_instance;

  GHashTable *manifests;   /* hash -> canonical */
  GHashTable *sessions;    /* client_id -> MemSession */
  GHashTable *cache;       /* key -> CacheNode */
  GQueue lru;              /* char *key (owned by the node's entry), most recent first */
  guint cache_max;
  gint64 cache_ttl_us;
  GHashTable *budgets;     /* scope -> Budget */
  GHashTable *reservations;/* id -> Reservation */
  gint64 next_reservation;
  GHashTable *buckets;     /* name -> Bucket */
  guint sweep_id;
};

static void gg_a2g_memory_store_iface_init (GgA2gStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GgA2gMemoryStore, gg_a2g_memory_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_A2G_TYPE_STORE, gg_a2g_memory_store_iface_init))

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
  g_hash_table_unref (self->buckets);
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
  self->buckets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
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

static GTask *
task_new (gpointer             self,
          GCancellable        *cancellable,
          GAsyncReadyCallback  callback,
          gpointer             user_data)
{
  return g_task_new (self, cancellable, callback, user_data);
}

#define RETURN_POINTER(value, destroy) \
  G_STMT_START { GTask *t_ = task_new (store, cancellable, callback, user_data); \
                 g_task_return_pointer (t_, (value), (GDestroyNotify) (destroy)); \
                 g_object_unref (t_); } G_STMT_END
#define RETURN_BOOLEAN(value) \
  G_STMT_START { GTask *t_ = task_new (store, cancellable, callback, user_data); \
                 g_task_return_boolean (t_, (value)); g_object_unref (t_); } G_STMT_END
#define RETURN_INT(value) \
  G_STMT_START { GTask *t_ = task_new (store, cancellable, callback, user_data); \
                 g_task_return_int (t_, (value)); g_object_unref (t_); } G_STMT_END
#define RETURN_ERROR(code, message) \
  G_STMT_START { GTask *t_ = task_new (store, cancellable, callback, user_data); \
                 g_task_return_new_error (t_, GG_A2G_ERROR, (code), "%s", (message)); \
                 g_object_unref (t_); } G_STMT_END

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
      session->replays = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) replay_free);
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

static MemSession *
live_session (GgA2gMemoryStore *self,
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
  MemSession *session = live_session (self, client_id);
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
  MemSession *session = live_session (self, client_id);
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

static void
cache_get (GgA2gStore *store, const char *key,
           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  CacheNode *node = g_hash_table_lookup (self->cache, key);

  if (node != NULL && node->entry->expires_us <= g_get_monotonic_time ())
    {
      cache_remove (self, node);
      node = NULL;
    }
  if (node == NULL)
    {
      RETURN_POINTER (NULL, NULL);
      return;
    }
  g_queue_unlink (&self->lru, node->link);
  g_queue_push_head_link (&self->lru, node->link);
  RETURN_POINTER (gg_a2g_cache_entry_ref (node->entry), gg_a2g_cache_entry_unref);
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

/* ---- decision records ------------------------------------------------------ */

static void
record_put (GgA2gStore *store, const char *client_id, GgA2gRecord *record,
            GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  MemSession *session = live_session (self, client_id);
  GQueue *recent;

  if (session == NULL)
    {
      RETURN_BOOLEAN (FALSE);
      return;
    }
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
  RETURN_BOOLEAN (TRUE);
}

static void
record_report (GgA2gStore *store, const char *client_id, const char *decision_id, const char *entity,
               const char *outcome, gboolean has_reward, double reward,
               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  MemSession *session = live_session (self, client_id);
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
  MemSession *session = live_session (self, client_id);
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
  MemSession *session = live_session (self, client_id);
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
  g_queue_push_tail (&replay->waiters, task_new (store, cancellable, callback, user_data));
}

static void
replay_finish (GgA2gStore *store, const char *client_id, const char *request_id, GBytes *answer,
               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  MemSession *session = live_session (self, client_id);
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
  MemSession *session = live_session (self, client_id);
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

typedef struct {
  GgA2gTelemetry *entry;
  double distance;
} Near;

static int
compare_near (gconstpointer a,
              gconstpointer b)
{
  const Near *x = a, *y = b;

  if (x->distance != y->distance)
    return x->distance < y->distance ? -1 : 1;
  return strcmp (x->entry->entity, y->entry->entity);
}

static int
compare_telemetry (gconstpointer a,
                   gconstpointer b)
{
  const GgA2gTelemetry *x = *(GgA2gTelemetry * const *) a, *y = *(GgA2gTelemetry * const *) b;

  return strcmp (x->entity, y->entity);
}

static void
situation (GgA2gStore *store, const char *client_id, const char *entity, double radius,
           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gMemoryStore *self = GG_A2G_MEMORY_STORE (store);
  MemSession *session = live_session (self, client_id);
  GgA2gTelemetry *me;
  g_autoptr(GArray) near = NULL;
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(GHashTable) population = NULL;
  g_autoptr(GList) types = NULL;
  JsonObject *result, *counts;
  JsonArray *nearby, *members;
  GHashTableIter iter;
  GgA2gTelemetry *other;

  if (session == NULL || g_hash_table_size (session->telemetry) == 0)
    {
      RETURN_POINTER (NULL, NULL);
      return;
    }
  me = g_hash_table_lookup (session->telemetry, entity);
  near = g_array_new (FALSE, FALSE, sizeof (Near));
  all = g_ptr_array_new ();
  population = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_iter_init (&iter, session->telemetry);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &other))
    {
      g_ptr_array_add (all, other);
      if (other->type != NULL)
        g_hash_table_insert (population, other->type,
                             GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (population, other->type)) + 1));
      if (me != NULL && other != me && me->has_pos && other->has_pos)
        {
          double sum = 0;
          Near item = { other, 0 };

          for (guint d = 0; d < MAX (me->dims, other->dims); d++)
            sum += (me->pos[d] - other->pos[d]) * (me->pos[d] - other->pos[d]);
          item.distance = sqrt (sum);
          if (item.distance <= radius)
            g_array_append_val (near, item);
        }
    }
  g_array_sort (near, compare_near);
  g_ptr_array_sort (all, compare_telemetry);
  result = json_object_new ();
  nearby = json_array_new ();
  for (guint i = 0; i < near->len && i < 8; i++)
    {
      Near *item = &g_array_index (near, Near, i);
      JsonObject *object = json_object_new ();

      json_object_set_string_member (object, "entity", item->entry->entity);
      if (item->entry->type != NULL)
        json_object_set_string_member (object, "type", item->entry->type);
      if (item->entry->faction != NULL)
        json_object_set_string_member (object, "faction", item->entry->faction);
      json_object_set_double_member (object, "distance", round (item->distance * 10) / 10);
      json_array_add_object_element (nearby, object);
    }
  members = json_array_new ();
  for (guint i = 0; me != NULL && me->faction != NULL && i < all->len; i++)
    {
      other = g_ptr_array_index (all, i);
      if (other != me && g_strcmp0 (other->faction, me->faction) == 0 && json_array_get_length (members) < 16)
        json_array_add_string_element (members, other->entity);
    }
  counts = json_object_new ();
  types = g_hash_table_get_keys (population);
  types = g_list_sort (types, (GCompareFunc) strcmp);
  for (GList *l = types; l != NULL; l = l->next)
    json_object_set_int_member (counts, l->data, GPOINTER_TO_UINT (g_hash_table_lookup (population, l->data)));
  json_object_set_array_member (result, "nearby", nearby);
  json_object_set_array_member (result, "members", members);
  json_object_set_object_member (result, "population", counts);
  RETURN_POINTER (result, json_object_unref);
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
  iface->cache_put = cache_put;
  iface->cache_list = cache_list;
  iface->rate_take = rate_take;
  iface->budget_reserve = budget_reserve;
  iface->budget_settle = budget_settle;
  iface->budget_list = budget_list;
  iface->record_put = record_put;
  iface->record_report = record_report;
  iface->record_recent = record_recent;
  iface->replay_claim = replay_claim;
  iface->replay_finish = replay_finish;
  iface->telemetry_put = telemetry_put;
  iface->situation = situation;
}
