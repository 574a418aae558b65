/* gg-a2g-redis-jti.c: the Redis store's join-token ids: `SET NX EXAT`
 * (the token's exp), single use across every replica.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-redis-private.h"

static void
on_set (GgA2gRedisStore *self,
        redisReply      *reply,
        GTask           *task)
{
  (void) self;
  /* SET NX: OK when set, nil when the key was there. */
  g_task_return_boolean (task, reply->type == REDIS_REPLY_STATUS);
  g_object_unref (task);
}

static void
jti_claim (GgA2gStore          *store,
           const char          *jti,
           gint64               expires_unix_s,
           GCancellable        *cancellable,
           GAsyncReadyCallback  callback,
           gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_cmd_new ("SET");

  /* Kept until the token's exp, across every replica. */
  _gg_a2g_redis_cmd_addf (cmd, "%sj:%s", self->prefix, jti);
  _gg_a2g_redis_cmd_add (cmd, "1");
  _gg_a2g_redis_cmd_add (cmd, "NX");
  _gg_a2g_redis_cmd_add (cmd, "EXAT");
  _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, MAX (expires_unix_s, g_get_real_time () / G_USEC_PER_SEC + 1));
  _gg_a2g_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_set);
}

/** _gg_a2g_redis_jti_iface_init: @iface: the store interface to fill */
void
_gg_a2g_redis_jti_iface_init (GgA2gStoreInterface *iface)
{
  iface->jti_claim = jti_claim;
}
