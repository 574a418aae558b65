/* gg-a2g-redis-counters.c: the Redis store's counters of /v1/usage, one
 * hash (P usage) that every replica adds its own to: each replica sends
 * what it counted since its last call (gg-a2g-stats.c, about once a
 * second, not once a decision) and gets every counter's service-wide
 * total back from the same script.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-redis-private.h"

/* KEYS: usage; ARGV: name, delta, name, delta, ... Returns every
 * counter as {name, total, ...} (HGETALL). */
GgA2gRedisScript _gg_a2g_redis_script_counters = {
  "for i = 1, #ARGV - 1, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end\n"
  "return redis.call('HGETALL', KEYS[1])\n" };

static void
on_counters (GgA2gRedisStore *self,
             redisReply      *reply,
             GTask           *task)
{
  JsonObject *totals;

  (void) self;
  if (reply->type != REDIS_REPLY_ARRAY)
    {
      _gg_a2g_redis_task_fail (task);
      return;
    }
  totals = json_object_new ();
  for (size_t i = 0; i + 1 < reply->elements; i += 2)
    {
      redisReply *name = reply->element[i], *value = reply->element[i + 1];
      gint64 number;

      if (name->type == REDIS_REPLY_STRING && value->type == REDIS_REPLY_STRING &&
          g_ascii_string_to_signed (value->str, 10, G_MININT64, G_MAXINT64, &number, NULL))
        json_object_set_int_member (totals, name->str, number);
    }
  g_task_return_pointer (task, totals, (GDestroyNotify) json_object_unref);
  g_object_unref (task);
}

static void
counters_add (GgA2gStore          *store,
              const GgA2gCounter  *deltas,
              guint                n_deltas,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_counters, 1);

  _gg_a2g_redis_cmd_addf (cmd, "%susage", self->prefix);
  for (guint i = 0; i < n_deltas; i++)
    {
      _gg_a2g_redis_cmd_add (cmd, deltas[i].name);
      _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, deltas[i].value);
    }
  _gg_a2g_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_counters);
}

/** _gg_a2g_redis_counters_iface_init: @iface: the store interface to fill */
void
_gg_a2g_redis_counters_iface_init (GgA2gStoreInterface *iface)
{
  iface->counters_add = counters_add;
}
