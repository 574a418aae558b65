/* gg-a2g-redis-limits.c: the Redis store's rate buckets and token
 * budgets, one Lua script per operation, so that replicas together hold
 * the configured rates and never reserve past a budget.
 *
 * Budgets share the hash tag {b} (a reservation touches a session's and
 * a game's budget at once): on Redis Cluster they live in one slot.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-redis-private.h"

/* KEYS: bucket; ARGV: rate, burst. Returns 0 (taken) or the ms to wait. */
GgA2gRedisScript _gg_a2g_redis_script_rate = {
  "local t = redis.call('TIME'); local now = t[1] + t[2] / 1000000\n"
  "local rate = tonumber(ARGV[1]); local burst = math.max(tonumber(ARGV[2]), 1)\n"
  "local b = redis.call('HMGET', KEYS[1], 'tokens', 'last')\n"
  "local tokens = tonumber(b[1]) or burst; local last = tonumber(b[2]) or now\n"
  "tokens = math.min(burst, tokens + rate * math.max(0, now - last))\n"
  "local wait = 0\n"
  "if tokens >= 1 then tokens = tokens - 1 else wait = math.max(1, math.ceil((1 - tokens) / rate * 1000)) end\n"
  "redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'last', string.format('%.17g', now))\n"
  "redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)\n"
  "return wait\n" };

/* KEYS: next, scopes, budget 1..n; ARGV: amount, then per budget: scope
 * name, limit, window_s, window. Returns the reservation id or 0. */
GgA2gRedisScript _gg_a2g_redis_script_reserve = {
  "local now = tonumber(redis.call('TIME')[1])\n"
  "local amount = tonumber(ARGV[1]); local n = #KEYS - 2; local names = {}\n"
  "for i = 1, n do\n"
  "  local k = KEYS[i + 2]; local o = 1 + (i - 1) * 4\n"
  "  local limit, win = tonumber(ARGV[o + 2]), math.max(tonumber(ARGV[o + 3]), 1)\n"
  "  local b = redis.call('HMGET', k, 'used', 'reserved', 'start')\n"
  "  local used = tonumber(b[1]) or 0; local res = tonumber(b[2]) or 0; local start = tonumber(b[3]) or now\n"
  "  if now >= start + win then used = 0; start = now end\n"
  "  redis.call('HSET', k, 'used', used, 'reserved', res, 'start', start, 'limit', limit, 'win', win,\n"
  "             'window', ARGV[o + 4])\n"
  "  redis.call('EXPIRE', k, win * 2)\n"
  "  redis.call('SADD', KEYS[2], ARGV[o + 1]); names[i] = ARGV[o + 1]\n"
  "  if limit > 0 and used + res + amount > limit then return 0 end\n"
  "end\n"
  "local id = redis.call('INCR', KEYS[1])\n"
  "for i = 1, n do redis.call('HINCRBY', KEYS[i + 2], 'reserved', amount) end\n"
  "local rk = KEYS[1] .. ':' .. id\n"
  "redis.call('HSET', rk, 'amount', amount, 'scopes', table.concat(names, '\\n'))\n"
  "redis.call('EXPIRE', rk, 86400)\n"
  "return id\n" };

/* KEYS: next; ARGV: id, used, budget key prefix. */
GgA2gRedisScript _gg_a2g_redis_script_settle = {
  "local rk = KEYS[1] .. ':' .. ARGV[1]\n"
  "local r = redis.call('HMGET', rk, 'amount', 'scopes')\n"
  "if not r[1] then return 0 end\n"
  "local amount = tonumber(r[1]); local used = math.max(tonumber(ARGV[2]), 0)\n"
  "for name in string.gmatch(r[2], '[^\\n]+') do\n"
  "  local k = ARGV[3] .. name\n"
  "  if redis.call('EXISTS', k) == 1 then\n"
  "    local res = tonumber(redis.call('HGET', k, 'reserved')) or 0\n"
  "    redis.call('HSET', k, 'reserved', math.max(0, res - amount))\n"
  "    redis.call('HINCRBY', k, 'used', used)\n"
  "  end\n"
  "end\n"
  "redis.call('DEL', rk)\n"
  "return 1\n" };

/* KEYS: scopes; ARGV: budget key prefix, scope prefix. Returns a flat
 * array: scope, used, limit, window. */
GgA2gRedisScript _gg_a2g_redis_script_budget_list = {
  "local now = tonumber(redis.call('TIME')[1]); local out = {}\n"
  "for _, name in ipairs(redis.call('SMEMBERS', KEYS[1])) do\n"
  "  if string.sub(name, 1, #ARGV[2]) == ARGV[2] then\n"
  "    local b = redis.call('HMGET', ARGV[1] .. name, 'used', 'limit', 'window', 'start', 'win')\n"
  "    if b[1] then\n"
  "      local used = tonumber(b[1])\n"
  "      if now >= tonumber(b[4]) + tonumber(b[5]) then used = 0 end\n"
  "      table.insert(out, name); table.insert(out, used); table.insert(out, tonumber(b[2]))\n"
  "      table.insert(out, b[3])\n"
  "    else redis.call('SREM', KEYS[1], name) end\n"
  "  end\n"
  "end\n"
  "return out\n" };

static void
rate_take (GgA2gStore          *store,
           const char          *bucket,
           double               rate,
           double               burst,
           GCancellable        *cancellable,
           GAsyncReadyCallback  callback,
           gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  GgA2gRedisCmd *cmd;

  if (rate <= 0)
    {
      g_task_return_int (task, 0);
      g_object_unref (task);
      return;
    }
  cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_rate, 1);
  _gg_a2g_redis_cmd_addf (cmd, "%sr:%s", self->prefix, bucket);
  _gg_a2g_redis_cmd_add (cmd, g_ascii_dtostr (number, sizeof number, rate));
  _gg_a2g_redis_cmd_add (cmd, g_ascii_dtostr (number, sizeof number, burst));
  _gg_a2g_redis_send (self, cmd, task, _gg_a2g_redis_reply_int);
}

static void
budget_reserve (GgA2gStore             *store,
                const GgA2gBudgetLimit *limits,
                guint                   n_limits,
                gint64                  amount,
                GCancellable           *cancellable,
                GAsyncReadyCallback     callback,
                gpointer                user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_reserve, n_limits + 2);

  _gg_a2g_redis_cmd_addf (cmd, "%s{b}:next", self->prefix);
  _gg_a2g_redis_cmd_addf (cmd, "%s{b}:scopes", self->prefix);
  for (guint i = 0; i < n_limits; i++)
    _gg_a2g_redis_cmd_addf (cmd, "%s{b}:%s", self->prefix, limits[i].scope);
  _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, amount);
  for (guint i = 0; i < n_limits; i++)
    {
      _gg_a2g_redis_cmd_add (cmd, limits[i].scope);
      _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, limits[i].limit);
      _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, limits[i].window_s);
      _gg_a2g_redis_cmd_add (cmd, limits[i].window);
    }
  _gg_a2g_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), _gg_a2g_redis_reply_int);
}

static void
budget_settle (GgA2gStore          *store,
               gint64               reservation,
               gint64               used,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_settle, 1);

  _gg_a2g_redis_cmd_addf (cmd, "%s{b}:next", self->prefix);
  _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, reservation);
  _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, used);
  _gg_a2g_redis_cmd_addf (cmd, "%s{b}:", self->prefix);
  _gg_a2g_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), _gg_a2g_redis_reply_one);
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
on_budgets (GgA2gRedisStore *self,
            redisReply      *reply,
            GTask           *task)
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
budget_list (GgA2gStore          *store,
             const char          *prefix,
             GCancellable        *cancellable,
             GAsyncReadyCallback  callback,
             gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_budget_list, 1);

  _gg_a2g_redis_cmd_addf (cmd, "%s{b}:scopes", self->prefix);
  _gg_a2g_redis_cmd_addf (cmd, "%s{b}:", self->prefix);
  _gg_a2g_redis_cmd_add (cmd, prefix);
  _gg_a2g_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_budgets);
}

/** _gg_a2g_redis_limits_iface_init: @iface: the store interface to fill */
void
_gg_a2g_redis_limits_iface_init (GgA2gStoreInterface *iface)
{
  iface->rate_take = rate_take;
  iface->budget_reserve = budget_reserve;
  iface->budget_settle = budget_settle;
  iface->budget_list = budget_list;
}
