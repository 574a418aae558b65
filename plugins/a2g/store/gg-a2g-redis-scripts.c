/* gg-a2g-redis-scripts.c: the Lua scripts of the Redis store, one per
 * operation that must be atomic across replicas (Redis runs a script as
 * one command). Time is Redis's own (TIME), so replicas agree on it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-redis-private.h"

#define NOW_MS "local t = redis.call('TIME'); local now = t[1] * 1000 + math.floor(t[2] / 1000)\n"

RedisScript _gg_a2g_redis_scripts[N_SCRIPTS] = {
  /* KEYS: session, rec, recent, tel, sessions; ARGV: game, manifest_hash,
   * ttl_s, grace_s, new token, new id, client_id. Returns {id, previous
   * token or "", context or nil}. */
  [SCRIPT_SESSION_OPEN] = { NOW_MS
    "local ttl = tonumber(ARGV[3]) * 1000\n"
    "local cur = redis.call('HMGET', KEYS[1], 'id', 'token', 'mh', 'ctx')\n"
    "local id, prev, ctx = ARGV[6], '', nil\n"
    "if cur[1] then\n"
    "  id, prev = cur[1], cur[2]\n"
    "  redis.call('HSET', KEYS[1], 'prev', cur[2], 'prev_until', now + tonumber(ARGV[4]) * 1000)\n"
    "  if cur[3] == ARGV[2] and cur[4] then ctx = cur[4] else redis.call('HDEL', KEYS[1], 'ctx') end\n"
    "else\n"
    "  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])\n"
    "  redis.call('HSET', KEYS[1], 'id', id)\n"
    "end\n"
    "redis.call('HSET', KEYS[1], 'game', ARGV[1], 'mh', ARGV[2], 'token', ARGV[5], 'ttl', ARGV[3])\n"
    "for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ttl) end\n"
    "redis.call('ZADD', KEYS[5], now + ttl, ARGV[7])\n"
    "return {id, prev, ctx}\n" },

  /* KEYS: session, rec, recent, tel, sessions, sub; ARGV: token, client_id.
   * Returns 0 (unknown), 1 (wrong token) or {id, game, mh, token, ttl, ctx}.
   * A session a player claimed keeps that player's claims alive with it. */
  [SCRIPT_SESSION_LOOKUP] = { NOW_MS
    "local s = redis.call('HMGET', KEYS[1], 'id', 'game', 'mh', 'token', 'ttl', 'prev', 'prev_until', 'ctx')\n"
    "if not s[1] then return 0 end\n"
    "if ARGV[1] ~= s[4] and not (s[6] and ARGV[1] == s[6] and tonumber(s[7]) > now) then return 1 end\n"
    "local ttl = tonumber(s[5]) * 1000\n"
    "for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ttl) end\n"
    "redis.call('ZADD', KEYS[5], now + ttl, ARGV[2])\n"
    "local u = redis.call('GET', KEYS[6])\n"
    "if u then\n"
    "  redis.call('PEXPIRE', KEYS[6], ttl)\n"
    "  if redis.call('PTTL', u) < ttl then redis.call('PEXPIRE', u, ttl) end\n"
    "end\n"
    "return {s[1], s[2], s[3], s[4], s[5], s[8]}\n" },

  /* KEYS: session; ARGV: context state JSON. */
  [SCRIPT_SESSION_CONTEXT] = {
    "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end\n"
    "redis.call('HSET', KEYS[1], 'ctx', ARGV[1])\n"
    "return 1\n" },

  /* KEYS: sessions. */
  [SCRIPT_SESSION_COUNT] = { NOW_MS
    "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)\n"
    "return redis.call('ZCARD', KEYS[1])\n" },

  /* KEYS: bucket; ARGV: rate, burst. Returns 0 (taken) or the ms to wait. */
  [SCRIPT_RATE] = {
    "local t = redis.call('TIME'); local now = t[1] + t[2] / 1000000\n"
    "local rate = tonumber(ARGV[1]); local burst = math.max(tonumber(ARGV[2]), 1)\n"
    "local b = redis.call('HMGET', KEYS[1], 'tokens', 'last')\n"
    "local tokens = tonumber(b[1]) or burst; local last = tonumber(b[2]) or now\n"
    "tokens = math.min(burst, tokens + rate * math.max(0, now - last))\n"
    "local wait = 0\n"
    "if tokens >= 1 then tokens = tokens - 1 else wait = math.max(1, math.ceil((1 - tokens) / rate * 1000)) end\n"
    "redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'last', string.format('%.17g', now))\n"
    "redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)\n"
    "return wait\n" },

  /* KEYS: next, scopes, budget 1..n; ARGV: amount, then per budget: scope
   * name, limit, window_s, window. Returns the reservation id or 0. */
  [SCRIPT_RESERVE] = {
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
    "return id\n" },

  /* KEYS: next; ARGV: id, used, budget key prefix. */
  [SCRIPT_SETTLE] = {
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
    "return 1\n" },

  /* KEYS: scopes; ARGV: budget key prefix, scope prefix. Returns a flat
   * array: scope, used, limit, window. */
  [SCRIPT_BUDGET_LIST] = {
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
    "return out\n" },

  /* KEYS: usage; ARGV: name, delta, name, delta, ... Returns every
   * counter as {name, total, ...} (HGETALL). */
  [SCRIPT_COUNTERS] = {
    "for i = 1, #ARGV - 1, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end\n"
    "return redis.call('HGETALL', KEYS[1])\n" },

  /* KEYS: rec; ARGV: decision id, entity, outcome, has_reward, reward.
   * Returns -1 (not this session's), or a GgA2gReportResult. */
  [SCRIPT_RECORD_REPORT] = {
    "local j = redis.call('HGET', KEYS[1], ARGV[1])\n"
    "if not j then return -1 end\n"
    "local r = cjson.decode(j)\n"
    "if r.entity ~= ARGV[2] then return 3 end\n"
    "if r.outcome then return 4 end\n"
    "r.outcome = ARGV[3]\n"
    "if ARGV[4] == '1' then r.reward = tonumber(ARGV[5]) end\n"
    "redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(r))\n"
    "return 0\n" },

  /* KEYS: rec, recent; ARGV: entity, max. Returns the records' JSON, newest first. */
  [SCRIPT_RECORD_RECENT] = {
    "local l = redis.call('HGET', KEYS[2], ARGV[1])\n"
    "if not l then return {} end\n"
    "local ids = cjson.decode(l); local out = {}\n"
    "for i = 1, math.min(#ids, tonumber(ARGV[2])) do\n"
    "  local j = redis.call('HGET', KEYS[1], ids[i])\n"
    "  if j then table.insert(out, j) end\n"
    "end\n"
    "return out\n" },

  /* KEYS: replay; ARGV: ttl ms. Returns 0 (claimed) or the value. */
  [SCRIPT_REPLAY_CLAIM] = {
    "if redis.call('SET', KEYS[1], 'P', 'NX', 'PX', ARGV[1]) then return 0 end\n"
    "return redis.call('GET', KEYS[1])\n" },

  /* KEYS: replay; ARGV: "" (give up) or "A" + answer. */
  [SCRIPT_REPLAY_FINISH] = {
    "if redis.call('GET', KEYS[1]) ~= 'P' then return 0 end\n"
    "if ARGV[1] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL') end\n"
    "return 1\n" },

  /* KEYS: session, tel; ARGV: max tracked, then entity, JSON pairs. Returns the kept count. */
  [SCRIPT_TELEMETRY_PUT] = {
    "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end\n"
    "local max = tonumber(ARGV[1]); local n = redis.call('HLEN', KEYS[2]); local kept = 0\n"
    "for i = 2, #ARGV, 2 do\n"
    "  if n < max or redis.call('HEXISTS', KEYS[2], ARGV[i]) == 1 then\n"
    "    if redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) == 1 then n = n + 1 end\n"
    "    kept = kept + 1\n"
    "  end\n"
    "end\n"
    "redis.call('PEXPIRE', KEYS[2], redis.call('PTTL', KEYS[1]))\n"
    "return kept\n" },

  /* KEYS: the player's claims (zset), the client's claim owner; ARGV:
   * client_id, max, session ttl ms, pending ms (at most the ttl), the
   * session keys' prefix ("P{s:"). A claim counts while its session lives
   * (and the client is still this player's), or until its score (the
   * pending time after the claim) before it is opened.
   * Returns 0 (claimed), the ms until the soonest other claim could end,
   * or -1 when the client's live or pending session is another player's. */
  [SCRIPT_SUB_CLAIM] = { NOW_MS
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
    "return 0\n" },
  /* A decide request's records at once. KEYS:
   * session, rec, recent; ARGV: max recent, then decision id, entity,
   * record JSON per record. Returns the session's TTL (ms), 0 without it. */
  [SCRIPT_RECORD_PUT_MANY] = {
    "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end\n"
    "local max = tonumber(ARGV[1]); local lists = {}\n"
    "for i = 2, #ARGV - 2, 3 do\n"
    "  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 2])\n"
    "  local ids = lists[ARGV[i + 1]]\n"
    "  if not ids then\n"
    "    local l = redis.call('HGET', KEYS[3], ARGV[i + 1])\n"
    "    if l then ids = cjson.decode(l) else ids = {} end\n"
    "    lists[ARGV[i + 1]] = ids\n"
    "  end\n"
    "  table.insert(ids, 1, ARGV[i])\n"
    "  while #ids > max do table.remove(ids) end\n"
    "end\n"
    "for entity, ids in pairs(lists) do redis.call('HSET', KEYS[3], entity, cjson.encode(ids)) end\n"
    "local ttl = redis.call('PTTL', KEYS[1])\n"
    "redis.call('PEXPIRE', KEYS[2], ttl); redis.call('PEXPIRE', KEYS[3], ttl)\n"
    "return ttl\n" },
};
