/* gg-a2g-redis-players.c: the Redis store's concurrent sessions per
 * player (a join token's sub), shared by every replica: one script claims
 * a slot, checking each of the player's claims against its real session,
 * so a session that ended (by not being used) frees its slot on every
 * replica at once. A session's lookup keeps its player's claims alive
 * (gg-a2g-redis-sessions.c), so an idle player's expire with the last of
 * its sessions.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-redis-private.h"

/* KEYS: the player's claims (zset), the client's claim owner; ARGV:
 * client_id, max, session ttl ms, pending ms (at most the ttl), the
 * session keys' prefix ("P{s:"). A claim counts while its session lives
 * (and the client is still this player's), or until its score (the
 * pending time after the claim) before it is opened.
 * Returns 0 (claimed), the ms until the soonest other claim could end,
 * or -1 when the client's live or pending session is another player's. */
GgA2gRedisScript _gg_a2g_redis_script_player_claim = { GG_A2G_REDIS_NOW_MS
  "local max, ttl, pending = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])\n"
  "local live, mine, soonest = 0, false, nil\n"
  "local prev = redis.call('GET', KEYS[2])\n"
  "if prev and prev ~= KEYS[1] then\n"
  "  local at = redis.call('ZSCORE', prev, ARGV[1])\n"
  "  if redis.call('EXISTS', ARGV[5] .. ARGV[1] .. '}') == 1 or (at and tonumber(at) > now) then return -1 end\n"
  "end\n"
  "local m = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')\n"
  "for i = 1, #m, 2 do\n"
  "  local c, at, left = m[i], tonumber(m[i + 1]), nil\n"
  "  local s = ARGV[5] .. c .. '}'\n"
  "  if redis.call('GET', s .. ':sub') == KEYS[1] then\n"
  "    if redis.call('EXISTS', s) == 1 then\n"
  "      left = redis.call('PTTL', s); if left < 0 then left = ttl end\n"
  "    elseif at > now then left = at - now end\n"
  "  end\n"
  "  if not left then redis.call('ZREM', KEYS[1], c)\n"
  "  elseif c == ARGV[1] then mine = true\n"
  "  else live = live + 1; if not soonest or left < soonest then soonest = left end end\n"
  "end\n"
  "if not mine and live >= max then return math.max(soonest or ttl, 1) end\n"
  "if prev and prev ~= KEYS[1] then redis.call('ZREM', prev, ARGV[1]) end\n"
  "redis.call('ZADD', KEYS[1], now + pending, ARGV[1])\n"
  "redis.call('SET', KEYS[2], KEYS[1], 'PX', ttl + pending)\n"
  "if redis.call('PTTL', KEYS[1]) < ttl + pending then redis.call('PEXPIRE', KEYS[1], ttl + pending) end\n"
  "return 0\n" };

static void
on_claimed (GgA2gRedisStore *self,
            redisReply      *reply,
            GTask           *task)
{
  (void) self;
  if (reply->type != REDIS_REPLY_INTEGER)
    {
      _gg_a2g_redis_task_fail (task);
      return;
    }
  /* The script's -1: the client_id is another player's. */
  g_task_return_int (task, reply->integer == -1 ? GG_A2G_PLAYER_CLAIM_OTHER_PLAYER : (gssize) reply->integer);
  g_object_unref (task);
}

static void
player_claim (GgA2gStore          *store,
              const char          *game,
              const char          *sub,
              const char          *client_id,
              guint                max,
              gint64               ttl_s,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_player_claim, 2);

  /* A game id has no '/': "<game>/<sub>" names one player of one game. */
  _gg_a2g_redis_cmd_addf (cmd, "%su:%s/%s", self->prefix, game, sub);
  _gg_a2g_redis_cmd_addf (cmd, "%s{s:%s}:sub", self->prefix, client_id);
  _gg_a2g_redis_cmd_add (cmd, client_id);
  _gg_a2g_redis_cmd_addf (cmd, "%u", MAX (max, 1));
  _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, ttl_s * 1000);
  _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, MIN (GG_A2G_PLAYER_CLAIM_PENDING_S, ttl_s) * 1000);
  _gg_a2g_redis_cmd_addf (cmd, "%s{s:", self->prefix);
  _gg_a2g_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_claimed);
}

/** _gg_a2g_redis_players_iface_init: @iface: the store interface to fill */
void
_gg_a2g_redis_players_iface_init (GgA2gStoreInterface *iface)
{
  iface->player_claim = player_claim;
}
