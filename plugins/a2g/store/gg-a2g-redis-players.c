/* gg-a2g-redis-players.c: the Redis store's concurrent sessions per
 * player (a join token's sub), shared by every replica. A player's claims
 * live in the player's own slot (P{u:<game>/<sub>}, a sorted set: client_id
 * -> until when the claim counts), so that one script takes a claim
 * atomically on a Cluster too; each open and lookup of the claimed session
 * renews its claim to the session's own expiry (gg-a2g-redis-sessions.c),
 * so a session that ended (by not being used) frees its place on every
 * replica at once.
 *
 * Which player a client_id is claimed by is the session's (P{s:<id>}:sub,
 * in the session's slot): a claim checks it first and moves it last, three
 * steps in two slots. Two players claiming the same client_id at the same
 * instant may both pass the check; a client_id is one device's, so that
 * race is its own and never lets one player past its limit.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-redis-private.h"

/* KEYS: the client's claim owner, the client's session; ARGV: the
 * claiming player's key. Returns 0 (no other player's), -1 (another
 * player's live session) or that other player's key (its claim may be
 * pending). */
GgA2gRedisScript _gg_a2g_redis_script_player_check = {
  "local prev = redis.call('GET', KEYS[1])\n"
  "if not prev or prev == ARGV[1] then return 0 end\n"
  "if redis.call('EXISTS', KEYS[2]) == 1 then return -1 end\n"
  "return prev\n" };

/* KEYS: a player's claims; ARGV: client_id, max, session ttl ms, pending
 * ms (at most the ttl), ask ("1": only whether client_id's claim counts).
 * Returns 0 (claimed), the ms until the soonest other claim could end;
 * with ask, 1 when the claim counts, else 0. */
GgA2gRedisScript _gg_a2g_redis_script_player_claim = { GG_A2G_REDIS_NOW_MS
  "local max, ttl, pending = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])\n"
  "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)\n"
  "if ARGV[5] == '1' then\n"
  "  if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end\n"
  "  return 0\n"
  "end\n"
  "local live, mine, soonest = 0, false, nil\n"
  "local m = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')\n"
  "for i = 1, #m, 2 do\n"
  "  local left = tonumber(m[i + 1]) - now\n"
  "  if m[i] == ARGV[1] then mine = true\n"
  "  else live = live + 1; if not soonest or left < soonest then soonest = left end end\n"
  "end\n"
  "if not mine and live >= max then return math.max(soonest or ttl, 1) end\n"
  "local at = redis.call('ZSCORE', KEYS[1], ARGV[1])\n"
  "if not at or tonumber(at) < now + pending then redis.call('ZADD', KEYS[1], now + pending, ARGV[1]) end\n"
  "if redis.call('PTTL', KEYS[1]) < ttl + pending then redis.call('PEXPIRE', KEYS[1], ttl + pending) end\n"
  "return 0\n" };

/* KEYS: a player's claims; ARGV: client_id, ttl ms. The claim, if it
 * still counts, counts for ttl from now. */
GgA2gRedisScript _gg_a2g_redis_script_player_renew = { GG_A2G_REDIS_NOW_MS
  "local at = redis.call('ZSCORE', KEYS[1], ARGV[1])\n"
  "local ttl = tonumber(ARGV[2])\n"
  "if not at or tonumber(at) <= now then return 0 end\n"
  "if tonumber(at) < now + ttl then redis.call('ZADD', KEYS[1], now + ttl, ARGV[1]) end\n"
  "if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end\n"
  "return 1\n" };

typedef struct {
  char *player;           /* the player's key */
  char *owner;            /* the client's claim owner key */
  char *session;          /* the client's session key */
  char *previous;         /* another player's key that held the client */
  char *client_id;
  guint max;
  gint64 ttl_ms;
  gint64 pending_ms;
} Claim;

static void
claim_free (Claim *claim)
{
  g_free (claim->player);
  g_free (claim->owner);
  g_free (claim->session);
  g_free (claim->previous);
  g_free (claim->client_id);
  g_free (claim);
}

static GgA2gRedisCmd *
claim_cmd (Claim      *claim,
           const char *player,
           gboolean    ask)
{
  GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_player_claim, 1);

  _gg_a2g_redis_cmd_add (cmd, player);
  _gg_a2g_redis_cmd_add (cmd, claim->client_id);
  _gg_a2g_redis_cmd_addf (cmd, "%u", claim->max);
  _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, claim->ttl_ms);
  _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, claim->pending_ms);
  _gg_a2g_redis_cmd_add (cmd, ask ? "1" : "0");
  return cmd;
}

static void
on_owner_set (GgA2gRedisStore *self,
              redisReply      *reply,
              GTask           *task)
{
  (void) self;
  (void) reply;
  g_task_return_int (task, 0);
  g_object_unref (task);
}

static void
on_claimed (GgA2gRedisStore *self,
            redisReply      *reply,
            GTask           *task)
{
  Claim *claim = g_task_get_task_data (task);
  GgA2gRedisCmd *cmd;

  if (reply->type != REDIS_REPLY_INTEGER)
    {
      _gg_a2g_redis_task_fail (task);
      return;
    }
  if (reply->integer != 0)
    {
      g_task_return_int (task, (gssize) reply->integer);
      g_object_unref (task);
      return;
    }
  /* Claimed: the client is this player's from now on. */
  if (claim->previous != NULL)
    {
      cmd = _gg_a2g_redis_cmd_new ("ZREM");
      _gg_a2g_redis_cmd_add (cmd, claim->previous);
      _gg_a2g_redis_cmd_add (cmd, claim->client_id);
      _gg_a2g_redis_send (self, cmd, NULL, NULL);
    }
  cmd = _gg_a2g_redis_cmd_new ("SET");
  _gg_a2g_redis_cmd_add (cmd, claim->owner);
  _gg_a2g_redis_cmd_add (cmd, claim->player);
  _gg_a2g_redis_cmd_add (cmd, "PX");
  _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, claim->ttl_ms + claim->pending_ms);
  _gg_a2g_redis_send (self, cmd, task, on_owner_set);
}

static void
on_previous_asked (GgA2gRedisStore *self,
                   redisReply      *reply,
                   GTask           *task)
{
  Claim *claim = g_task_get_task_data (task);

  if (reply->type != REDIS_REPLY_INTEGER)
    {
      _gg_a2g_redis_task_fail (task);
      return;
    }
  if (reply->integer == 1)
    {
      /* Another player's claim on this client, not opened yet, still counts. */
      g_task_return_int (task, GG_A2G_PLAYER_CLAIM_OTHER_PLAYER);
      g_object_unref (task);
      return;
    }
  _gg_a2g_redis_send (self, claim_cmd (claim, claim->player, FALSE), task, on_claimed);
}

static void
on_checked (GgA2gRedisStore *self,
            redisReply      *reply,
            GTask           *task)
{
  Claim *claim = g_task_get_task_data (task);

  if (reply->type == REDIS_REPLY_INTEGER && reply->integer == -1)
    {
      g_task_return_int (task, GG_A2G_PLAYER_CLAIM_OTHER_PLAYER);
      g_object_unref (task);
      return;
    }
  if (reply->type == REDIS_REPLY_STRING)
    {
      claim->previous = _gg_a2g_redis_reply_string (reply);
      _gg_a2g_redis_send (self, claim_cmd (claim, claim->previous, TRUE), task, on_previous_asked);
      return;
    }
  if (reply->type != REDIS_REPLY_INTEGER)
    {
      _gg_a2g_redis_task_fail (task);
      return;
    }
  _gg_a2g_redis_send (self, claim_cmd (claim, claim->player, FALSE), task, on_claimed);
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
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_player_check, 2);
  Claim *claim = g_new0 (Claim, 1);

  /* A game id has no '/': "<game>/<sub>" names one player of one game. */
  claim->player = _gg_a2g_redis_key (self, "{u:%s/%s}", game, sub);
  claim->owner = _gg_a2g_redis_session_key (self, client_id, ":sub");
  claim->session = _gg_a2g_redis_session_key (self, client_id, "");
  claim->client_id = g_strdup (client_id);
  claim->max = MAX (max, 1);
  claim->ttl_ms = ttl_s * 1000;
  claim->pending_ms = MIN (GG_A2G_PLAYER_CLAIM_PENDING_S, ttl_s) * 1000;
  g_task_set_task_data (task, claim, (GDestroyNotify) claim_free);
  _gg_a2g_redis_cmd_add (cmd, claim->owner);
  _gg_a2g_redis_cmd_add (cmd, claim->session);
  _gg_a2g_redis_cmd_add (cmd, claim->player);
  _gg_a2g_redis_send (self, cmd, task, on_checked);
}

/** _gg_a2g_redis_player_renew: @player_key's claim of @client_id counts @ttl_s from now (a session open or lookup) */
void
_gg_a2g_redis_player_renew (GgA2gRedisStore *self,
                            const char      *player_key,
                            const char      *client_id,
                            gint64           ttl_s)
{
  GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_player_renew, 1);

  _gg_a2g_redis_cmd_add (cmd, player_key);
  _gg_a2g_redis_cmd_add (cmd, client_id);
  _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, ttl_s * 1000);
  _gg_a2g_redis_send (self, cmd, NULL, NULL);
}

/** _gg_a2g_redis_players_iface_init: @iface: the store interface to fill */
void
_gg_a2g_redis_players_iface_init (GgA2gStoreInterface *iface)
{
  iface->player_claim = player_claim;
}
