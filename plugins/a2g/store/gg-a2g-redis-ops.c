/* gg-a2g-redis-ops.c: the Redis store's rate buckets, token budgets and
 * join-token ids. Buckets and budgets are one Lua script per operation,
 * so that replicas together hold the configured rates and never reserve
 * past a budget.
 *
 * Join-token ids are `SET NX EXAT` (their token's exp): single use
 * across replicas.
 *
 * Budgets share the hash tag {b} (a reservation touches a session's and
 * a game's budget at once): on Redis Cluster they live in one slot.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-redis-private.h"

static void
on_int (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  (void) self;
  if (reply->type != REDIS_REPLY_INTEGER)
    {
      _gg_redis_task_fail (task);
      return;
    }
  g_task_return_int (task, (gssize) reply->integer);
  g_object_unref (task);
}

static void
rate_take (GgA2gStore *store, const char *bucket, double rate, double burst,
           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  RedisCmd *cmd;

  if (rate <= 0)
    {
      g_task_return_int (task, 0);
      g_object_unref (task);
      return;
    }
  cmd = _gg_redis_script_new (SCRIPT_RATE, 1);
  _gg_redis_cmd_addf (cmd, "%sr:%s", self->prefix, bucket);
  _gg_redis_cmd_add (cmd, g_ascii_dtostr (number, sizeof number, rate));
  _gg_redis_cmd_add (cmd, g_ascii_dtostr (number, sizeof number, burst));
  _gg_redis_send (self, cmd, task, on_int);
}

static void
budget_reserve (GgA2gStore *store, const GgA2gBudgetLimit *limits, guint n_limits, gint64 amount,
                GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  RedisCmd *cmd = _gg_redis_script_new (SCRIPT_RESERVE, n_limits + 2);

  _gg_redis_cmd_addf (cmd, "%s{b}:next", self->prefix);
  _gg_redis_cmd_addf (cmd, "%s{b}:scopes", self->prefix);
  for (guint i = 0; i < n_limits; i++)
    _gg_redis_cmd_addf (cmd, "%s{b}:%s", self->prefix, limits[i].scope);
  _gg_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, amount);
  for (guint i = 0; i < n_limits; i++)
    {
      _gg_redis_cmd_add (cmd, limits[i].scope);
      _gg_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, limits[i].limit);
      _gg_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, limits[i].window_s);
      _gg_redis_cmd_add (cmd, limits[i].window);
    }
  _gg_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_int);
}

static void
on_settled (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  (void) self;
  g_task_return_boolean (task, reply->type == REDIS_REPLY_INTEGER && reply->integer == 1);
  g_object_unref (task);
}

static void
budget_settle (GgA2gStore *store, gint64 reservation, gint64 used,
               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  RedisCmd *cmd = _gg_redis_script_new (SCRIPT_SETTLE, 1);

  _gg_redis_cmd_addf (cmd, "%s{b}:next", self->prefix);
  _gg_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, reservation);
  _gg_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, used);
  _gg_redis_cmd_addf (cmd, "%s{b}:", self->prefix);
  _gg_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_settled);
}

static int
compare_scope (gconstpointer a,
               gconstpointer b)
{
  JsonNode *x = *(JsonNode * const *) a, *y = *(JsonNode * const *) b;

  return strcmp (json_object_get_string_member (json_node_get_object (x), "scope"),
                 json_object_get_string_member (json_node_get_object (y), "scope"));
}

static void
on_budgets (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  JsonArray *list = json_array_new ();

  (void) self;
  for (size_t i = 0; reply->type == REDIS_REPLY_ARRAY && i + 3 < reply->elements; i += 4)
    {
      redisReply **e = reply->element + i;
      JsonObject *item;

      if (e[0]->type != REDIS_REPLY_STRING || e[1]->type != REDIS_REPLY_INTEGER ||
          e[2]->type != REDIS_REPLY_INTEGER || e[3]->type != REDIS_REPLY_STRING)
        continue;
      item = json_object_new ();
      json_object_set_string_member (item, "scope", e[0]->str);
      json_object_set_int_member (item, "used", e[1]->integer);
      json_object_set_int_member (item, "limit", e[2]->integer);
      json_object_set_string_member (item, "window", e[3]->str);
      g_ptr_array_add (items, json_node_init_object (json_node_alloc (), item));
      json_object_unref (item);
    }
  g_ptr_array_sort (items, compare_scope);
  for (guint i = 0; i < items->len; i++)
    json_array_add_element (list, json_node_copy (g_ptr_array_index (items, i)));
  g_task_return_pointer (task, list, (GDestroyNotify) json_array_unref);
  g_object_unref (task);
}

static void
budget_list (GgA2gStore *store, const char *prefix,
             GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  RedisCmd *cmd = _gg_redis_script_new (SCRIPT_BUDGET_LIST, 1);

  _gg_redis_cmd_addf (cmd, "%s{b}:scopes", self->prefix);
  _gg_redis_cmd_addf (cmd, "%s{b}:", self->prefix);
  _gg_redis_cmd_add (cmd, prefix);
  _gg_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_budgets);
}

static void
on_set (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  (void) self;
  /* SET NX: OK when set, nil when the key was there. */
  g_task_return_boolean (task, reply->type == REDIS_REPLY_STATUS);
  g_object_unref (task);
}

static void
jti_claim (GgA2gStore *store, const char *jti, gint64 expires_unix_s,
           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  RedisCmd *cmd = _gg_redis_cmd_new ("SET");

  /* Kept until the token's exp, across every replica. */
  _gg_redis_cmd_addf (cmd, "%sj:%s", self->prefix, jti);
  _gg_redis_cmd_add (cmd, "1");
  _gg_redis_cmd_add (cmd, "NX");
  _gg_redis_cmd_add (cmd, "EXAT");
  _gg_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, MAX (expires_unix_s, g_get_real_time () / G_USEC_PER_SEC + 1));
  _gg_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_set);
}

void
_gg_a2g_redis_ops_iface_init (GgA2gStoreInterface *iface)
{
  iface->jti_claim = jti_claim;
  iface->rate_take = rate_take;
  iface->budget_reserve = budget_reserve;
  iface->budget_settle = budget_settle;
  iface->budget_list = budget_list;
}
