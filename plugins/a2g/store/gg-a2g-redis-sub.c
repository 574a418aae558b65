/* gg-a2g-redis-sub.c: the Redis store's concurrent sessions per player (a
 * join token's sub), shared by every replica: one script claims a slot
 * (see SCRIPT_SUB_CLAIM), checking each of the player's claims against
 * its real session, so a session that ended (by not being used) frees its
 * slot on every replica at once. A session's lookup keeps its player's
 * claims alive (SCRIPT_SESSION_LOOKUP), so an idle player's expire with
 * the last of its sessions.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-redis-private.h"

static void
on_claimed (GgA2gRedisStore *self, redisReply *reply, GTask *task)
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
sub_session_claim (GgA2gStore *store, const char *game, const char *sub, const char *client_id, guint max,
                   gint64 ttl_s,
                   GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  RedisCmd *cmd = _gg_redis_script_new (SCRIPT_SUB_CLAIM, 2);

  /* A game id has no '/': "<game>/<sub>" names one player of one game. */
  _gg_redis_cmd_addf (cmd, "%su:%s/%s", self->prefix, game, sub);
  _gg_redis_cmd_addf (cmd, "%s{s:%s}:sub", self->prefix, client_id);
  _gg_redis_cmd_add (cmd, client_id);
  _gg_redis_cmd_addf (cmd, "%u", MAX (max, 1));
  _gg_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, ttl_s * 1000);
  _gg_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, MIN (GG_A2G_SUB_CLAIM_PENDING_S, ttl_s) * 1000);
  _gg_redis_cmd_addf (cmd, "%s{s:", self->prefix);
  _gg_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_claimed);
}

/** _gg_a2g_redis_sub_iface_init: @iface: the store interface to fill */
void
_gg_a2g_redis_sub_iface_init (GgA2gStoreInterface *iface)
{
  iface->sub_session_claim = sub_session_claim;
}
