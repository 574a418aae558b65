/* gg-a2g-redis-cache.c: the Redis store's decision cache: one JSON value
 * per entry with its TTL (`SET PX`), and, for the game-wide entries, an
 * index per manifest (a sorted set by expiry) for exports. A decide
 * request reads all its entities' entries at once: one MGET on one
 * primary, on a Cluster one MGET per slot the keys fall in, all sent in
 * parallel (one round trip).
 *
 * The cache's size is bounded by Redis's own eviction (maxmemory with
 * volatile-lru: every entry has its TTL); the per-manifest index used for
 * exports is bounded to `cache-entries`.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gamegate.h>

#include "gg-a2g-redis-private.h"

static char *
cache_entry_to_json (GgA2gCacheEntry *entry,
                     gint64           expires_ms)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "key");
  json_builder_add_string_value (builder, entry->key);
  json_builder_set_member_name (builder, "manifest_hash");
  json_builder_add_string_value (builder, entry->manifest_hash);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, entry->type);
  json_builder_set_member_name (builder, "situation");
  json_builder_add_value (builder, entry->situation != NULL ? json_node_copy (entry->situation) : json_node_new (JSON_NODE_NULL));
  json_builder_set_member_name (builder, "legal_actions");
  json_builder_add_value (builder, entry->legal_actions != NULL ? json_node_copy (entry->legal_actions)
                                                                : json_node_new (JSON_NODE_NULL));
  json_builder_set_member_name (builder, "action");
  json_builder_add_string_value (builder, entry->action);
  json_builder_set_member_name (builder, "confidence");
  json_builder_add_int_value (builder, entry->confidence);
  json_builder_set_member_name (builder, "reason");
  json_builder_add_string_value (builder, entry->reason);
  json_builder_set_member_name (builder, "expires_ms");
  json_builder_add_int_value (builder, expires_ms);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}

static GgA2gCacheEntry *
cache_entry_from_json (const char *text,
                       gsize       length)
{
  g_autoptr(JsonNode) node = gg_json_parse (text, (gssize) length, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  GgA2gCacheEntry *entry;
  JsonObject *object;
  JsonNode *member;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  object = json_node_get_object (node);
  entry = gg_a2g_cache_entry_new ();
  entry->key = g_strdup (json_object_get_string_member_with_default (object, "key", ""));
  entry->manifest_hash = g_strdup (json_object_get_string_member_with_default (object, "manifest_hash", ""));
  entry->type = g_strdup (json_object_get_string_member_with_default (object, "type", ""));
  member = json_object_get_member (object, "situation");
  entry->situation = member != NULL && !JSON_NODE_HOLDS_NULL (member) ? json_node_copy (member) : NULL;
  member = json_object_get_member (object, "legal_actions");
  entry->legal_actions = member != NULL && !JSON_NODE_HOLDS_NULL (member) ? json_node_copy (member) : NULL;
  entry->action = g_strdup (json_object_get_string_member_with_default (object, "action", ""));
  entry->confidence = json_object_get_int_member_with_default (object, "confidence", 0);
  entry->reason = g_strdup (json_object_get_string_member_with_default (object, "reason", NULL));
  entry->expires_us = g_get_monotonic_time () +
                      (json_object_get_int_member_with_default (object, "expires_ms", 0) - _gg_a2g_redis_now_ms ()) * 1000;
  return entry;
}

static void
on_cache_get (GgA2gRedisStore *self,
              redisReply      *reply,
              GTask           *task)
{
  GgA2gCacheEntry *entry = NULL;

  (void) self;
  if (reply->type == REDIS_REPLY_STRING)
    entry = cache_entry_from_json (reply->str, reply->len);
  g_task_return_pointer (task, entry, (GDestroyNotify) gg_a2g_cache_entry_unref);
  g_object_unref (task);
}

static void
cache_get (GgA2gStore          *store,
           const char          *key,
           GCancellable        *cancellable,
           GAsyncReadyCallback  callback,
           gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_cmd_new ("GET");

  _gg_a2g_redis_cmd_addf (cmd, "%sc:%s", self->prefix, key);
  _gg_a2g_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_cache_get);
}

/* ---- reading keys of many slots at once ------------------------------------ */

typedef void (*ValuesFunc) (GgA2gRedisStore *self, GTask *task, GPtrArray *values);

typedef struct {
  GPtrArray *values;      /* per key: GBytes, or NULL (missing) */
  GArray *positions;      /* per part: GArray of the keys' indices */
  ValuesFunc func;
} ManyGet;

static void
many_get_free (ManyGet *get)
{
  g_ptr_array_unref (get->values);
  g_array_unref (get->positions);
  g_free (get);
}

static void
on_part_values (GgA2gRedisStore *self,
                redisReply      *reply,
                guint            part,
                gpointer         data)
{
  ManyGet *get = data;
  GArray *positions = g_array_index (get->positions, GArray *, part);

  (void) self;
  for (size_t i = 0; reply->type == REDIS_REPLY_ARRAY && i < reply->elements && i < positions->len; i++)
    if (reply->element[i]->type == REDIS_REPLY_STRING)
      g_ptr_array_index (get->values, g_array_index (positions, guint, i)) =
        g_bytes_new (reply->element[i]->str, reply->element[i]->len);
}

static void
on_values (GgA2gRedisStore *self,
           GTask           *task,
           gpointer         data,
           gboolean         failed)
{
  ManyGet *get = data;

  /* A slot unreachable: its keys read as missing (a cache miss). */
  (void) failed;
  get->func (self, task, get->values);
}

static void
positions_free (gpointer data)
{
  g_array_unref (*(GArray **) data);
}

/* The values of @keys (full key names, at least one), read with one MGET
 * per slot in parallel; @func gets them in @keys' order and completes @task. */
static void
get_many (GgA2gRedisStore *self,
          GPtrArray       *keys,
          GTask           *task,
          ValuesFunc       func)
{
  g_autoptr(GHashTable) parts = g_hash_table_new (NULL, NULL);   /* slot -> part + 1 */
  g_autoptr(GPtrArray) cmds = g_ptr_array_new ();
  ManyGet *get = g_new0 (ManyGet, 1);
  GgA2gRedisGather *gather;

  get->values = g_ptr_array_new_full (keys->len, (GDestroyNotify) g_bytes_unref);
  g_ptr_array_set_size (get->values, keys->len);
  get->positions = g_array_new (FALSE, FALSE, sizeof (GArray *));
  g_array_set_clear_func (get->positions, positions_free);
  get->func = func;
  for (guint i = 0; i < keys->len; i++)
    {
      const char *key = keys->pdata[i];
      guint group = _gg_a2g_redis_key_group (self, key, strlen (key));
      guint part = GPOINTER_TO_UINT (g_hash_table_lookup (parts, GUINT_TO_POINTER (group + 1)));

      if (part == 0)
        {
          GArray *positions = g_array_new (FALSE, FALSE, sizeof (guint));

          g_array_append_val (get->positions, positions);
          g_ptr_array_add (cmds, _gg_a2g_redis_cmd_new ("MGET"));
          part = cmds->len;
          g_hash_table_insert (parts, GUINT_TO_POINTER (group + 1), GUINT_TO_POINTER (part));
        }
      g_array_append_val (g_array_index (get->positions, GArray *, part - 1), i);
      _gg_a2g_redis_cmd_add (cmds->pdata[part - 1], key);
    }
  gather = _gg_a2g_redis_gather_new (self, task, cmds->len, on_part_values, on_values, get,
                                     (GDestroyNotify) many_get_free);
  for (guint part = 0; part < cmds->len; part++)
    _gg_a2g_redis_gather_send (gather, part, cmds->pdata[part]);
}

static void
on_cache_get_many (GgA2gRedisStore *self,
                   GTask           *task,
                   GPtrArray       *values)
{
  GPtrArray *hits = gg_a2g_cache_hits_new (values->len);

  (void) self;
  for (guint i = 0; i < values->len; i++)
    if (values->pdata[i] != NULL)
      {
        gsize length;
        const char *text = g_bytes_get_data (values->pdata[i], &length);

        g_ptr_array_index (hits, i) = cache_entry_from_json (text, length);
      }
  g_task_return_pointer (task, hits, (GDestroyNotify) g_ptr_array_unref);
  g_object_unref (task);
}

/* Every entity's entry at once (one round trip). */
static void
cache_get_many (GgA2gStore          *store,
                const char * const  *keys,
                guint                n_keys,
                GCancellable        *cancellable,
                GAsyncReadyCallback  callback,
                gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  g_autoptr(GPtrArray) names = NULL;

  if (n_keys == 0)
    {
      g_task_return_pointer (task, gg_a2g_cache_hits_new (0), (GDestroyNotify) g_ptr_array_unref);
      g_object_unref (task);
      return;
    }
  names = g_ptr_array_new_full (n_keys, g_free);
  for (guint i = 0; i < n_keys; i++)
    g_ptr_array_add (names, g_strdup_printf ("%sc:%s", self->prefix, keys[i]));
  get_many (self, names, task, on_cache_get_many);
}

static void
cache_put (GgA2gStore          *store,
           GgA2gCacheEntry     *entry,
           GCancellable        *cancellable,
           GAsyncReadyCallback  callback,
           gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  gint64 expires_ms = _gg_a2g_redis_now_ms () + self->cache_ttl_ms;
  g_autofree char *json = cache_entry_to_json (entry, expires_ms);
  g_autofree char *index = g_strdup_printf ("%sci:%s", self->prefix, entry->manifest_hash);
  GgA2gRedisCmd *cmd;

  entry->expires_us = g_get_monotonic_time () + self->cache_ttl_ms * 1000;
  if (g_str_has_prefix (entry->key, "game:"))
    {
      /* The export index: expired entries out, at most cache-entries kept. */
      cmd = _gg_a2g_redis_cmd_new ("ZADD");
      _gg_a2g_redis_cmd_add (cmd, index);
      _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, expires_ms);
      _gg_a2g_redis_cmd_add (cmd, entry->key);
      _gg_a2g_redis_send (self, cmd, NULL, NULL);
      cmd = _gg_a2g_redis_cmd_new ("ZREMRANGEBYSCORE");
      _gg_a2g_redis_cmd_add (cmd, index);
      _gg_a2g_redis_cmd_add (cmd, "-inf");
      _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, _gg_a2g_redis_now_ms ());
      _gg_a2g_redis_send (self, cmd, NULL, NULL);
      cmd = _gg_a2g_redis_cmd_new ("ZREMRANGEBYRANK");
      _gg_a2g_redis_cmd_add (cmd, index);
      _gg_a2g_redis_cmd_add (cmd, "0");
      _gg_a2g_redis_cmd_addf (cmd, "-%u", self->cache_max + 1);
      _gg_a2g_redis_send (self, cmd, NULL, NULL);
      cmd = _gg_a2g_redis_cmd_new ("PEXPIRE");
      _gg_a2g_redis_cmd_add (cmd, index);
      _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, self->cache_ttl_ms);
      _gg_a2g_redis_send (self, cmd, NULL, NULL);
    }
  cmd = _gg_a2g_redis_cmd_new ("SET");
  _gg_a2g_redis_cmd_addf (cmd, "%sc:%s", self->prefix, entry->key);
  _gg_a2g_redis_cmd_add (cmd, json);
  _gg_a2g_redis_cmd_add (cmd, "PX");
  _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, self->cache_ttl_ms);
  _gg_a2g_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), _gg_a2g_redis_reply_stored);
}

static void
on_cache_values (GgA2gRedisStore *self,
                 GTask           *task,
                 GPtrArray       *values)
{
  GPtrArray *entries = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_cache_entry_unref);
  const char *manifest_hash = g_task_get_task_data (task);
  gint64 now = g_get_monotonic_time ();

  (void) self;
  for (guint i = 0; i < values->len; i++)
    if (values->pdata[i] != NULL)
      {
        gsize length;
        const char *text = g_bytes_get_data (values->pdata[i], &length);
        GgA2gCacheEntry *entry = cache_entry_from_json (text, length);

        if (entry != NULL && entry->expires_us > now && g_strcmp0 (entry->manifest_hash, manifest_hash) == 0)
          g_ptr_array_add (entries, entry);
        else if (entry != NULL)
          gg_a2g_cache_entry_unref (entry);
      }
  g_task_return_pointer (task, entries, (GDestroyNotify) g_ptr_array_unref);
  g_object_unref (task);
}

static void
on_cache_index (GgA2gRedisStore *self,
                redisReply      *reply,
                GTask           *task)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  for (size_t i = 0; reply->type == REDIS_REPLY_ARRAY && i < reply->elements; i++)
    if (reply->element[i]->type == REDIS_REPLY_STRING)
      g_ptr_array_add (names, g_strdup_printf ("%sc:%.*s", self->prefix, (int) reply->element[i]->len,
                                               reply->element[i]->str));
  if (names->len == 0)
    {
      g_task_return_pointer (task, g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_cache_entry_unref),
                             (GDestroyNotify) g_ptr_array_unref);
      g_object_unref (task);
      return;
    }
  get_many (self, names, task, on_cache_values);
}

static void
cache_list (GgA2gStore          *store,
            const char          *manifest_hash,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_cmd_new ("ZRANGEBYSCORE");

  g_task_set_task_data (task, g_strdup (manifest_hash), g_free);
  _gg_a2g_redis_cmd_addf (cmd, "%sci:%s", self->prefix, manifest_hash);
  _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, _gg_a2g_redis_now_ms ());
  _gg_a2g_redis_cmd_add (cmd, "+inf");
  _gg_a2g_redis_send (self, cmd, task, on_cache_index);
}

void
_gg_a2g_redis_cache_iface_init (GgA2gStoreInterface *iface)
{
  iface->cache_get = cache_get;
  iface->cache_get_many = cache_get_many;
  iface->cache_put = cache_put;
  iface->cache_list = cache_list;
}
