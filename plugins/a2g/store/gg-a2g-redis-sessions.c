/* gg-a2g-redis-sessions.c: the Redis store's sessions and their tokens,
 * opened (or renewed) and looked up in one script each, their context,
 * and the live sessions' count. A session opened on another replica
 * brings its manifest here with its first lookup (gg-a2g-redis-manifests.c).
 *
 * On a Cluster every script touches one session's keys only (one hash
 * tag, one slot): the live-session set the count reads is cut in
 * GG_A2G_REDIS_SESSION_PARTS parts, each its own slot, marked after each
 * open and lookup (on one primary, the one set is marked by the open and
 * lookup scripts themselves: no command more), and a player's claims
 * (gg-a2g-redis-players.c) are renewed after them, in the player's slot.
 *
 * The sessions this replica saw are remembered here with their tokens,
 * so that while Redis is unreachable their requests still authenticate
 * and their decisions fall back (busy) instead of the request failing.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <gamegate.h>

#include "gg-a2g-redis-private.h"

/* KEYS: session, rec, recent, tel, sub[, the live sessions (one primary:
 * marked here)]; ARGV: game, manifest_hash, ttl_s, grace_s, new token, new
 * id, client_id. Returns {id, previous token or "", context or false, the
 * claiming player's key or false}. */
GgA2gRedisScript _gg_a2g_redis_script_session_open = { GG_A2G_REDIS_NOW_MS
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
  "if KEYS[6] then redis.call('ZADD', KEYS[6], now + ttl, ARGV[7]) end\n"
  "local u = redis.call('GET', KEYS[5])\n"
  "if u then redis.call('PEXPIRE', KEYS[5], ttl) end\n"
  "return {id, prev, ctx or false, u}\n" };


/* KEYS: session, rec, recent, tel, sub[, the live sessions (one primary:
 * marked here)]; ARGV: token, client_id.
 * Returns 0 (unknown), 1 (wrong token) or {id, game, mh, token, ttl, ctx,
 * the claiming player's key}: that player's claim is renewed apart. */
GgA2gRedisScript _gg_a2g_redis_script_session_lookup = { GG_A2G_REDIS_NOW_MS
  "local s = redis.call('HMGET', KEYS[1], 'id', 'game', 'mh', 'token', 'ttl', 'prev', 'prev_until', 'ctx')\n"
  "if not s[1] then return 0 end\n"
  "if ARGV[1] ~= s[4] and not (s[6] and ARGV[1] == s[6] and tonumber(s[7]) > now) then return 1 end\n"
  "local ttl = tonumber(s[5]) * 1000\n"
  "for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ttl) end\n"
  "if KEYS[6] then redis.call('ZADD', KEYS[6], now + ttl, ARGV[2]) end\n"
  "local u = redis.call('GET', KEYS[5])\n"
  "if u then redis.call('PEXPIRE', KEYS[5], ttl) end\n"
  "return {s[1], s[2], s[3], s[4], s[5], s[8] or false, u or false}\n" };


/* KEYS: session; ARGV: context state JSON. */
GgA2gRedisScript _gg_a2g_redis_script_session_context = {
  "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end\n"
  "redis.call('HSET', KEYS[1], 'ctx', ARGV[1])\n"
  "return 1\n" };


/* KEYS: a part of the live sessions; ARGV: ttl ms, client_id. */
GgA2gRedisScript _gg_a2g_redis_script_session_mark = { GG_A2G_REDIS_NOW_MS
  "redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])\n"
  "return 1\n" };


/* KEYS: a part of the live sessions. Returns its count. */
GgA2gRedisScript _gg_a2g_redis_script_session_count = { GG_A2G_REDIS_NOW_MS
  "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)\n"
  "return redis.call('ZCARD', KEYS[1])\n" };

/** _gg_a2g_redis_session_parts: Returns: how many parts the live-session set is cut in */
guint
_gg_a2g_redis_session_parts (GgA2gRedisStore *self)
{
  return self->mode == GG_A2G_REDIS_CLUSTER ? GG_A2G_REDIS_SESSION_PARTS : 1;
}

/** _gg_a2g_redis_sessions_key: Returns: (transfer full): the key of @part of the live sessions */
char *
_gg_a2g_redis_sessions_key (GgA2gRedisStore *self,
                            guint            part)
{
  if (_gg_a2g_redis_session_parts (self) == 1)
    return _gg_a2g_redis_key (self, "sessions");
  return _gg_a2g_redis_key (self, "{n:%u}sessions", part);
}

/** _gg_a2g_redis_session_part: Returns: the part of the live sessions @client_id is in */
guint
_gg_a2g_redis_session_part (GgA2gRedisStore *self,
                            const char      *client_id)
{
  return _gg_a2g_redis_key_slot (client_id, strlen (client_id)) % _gg_a2g_redis_session_parts (self);
}

/* After an open or a lookup: the session counts as live for @ttl_s from
 * now (on a Cluster its part of the set is another slot's: marked apart;
 * on one primary the script did), and the player who claimed it keeps its
 * claim as long. */
static void
mark_live (GgA2gRedisStore *self,
           const char      *client_id,
           gint64           ttl_s,
           redisReply      *player)
{
  if (_gg_a2g_redis_session_parts (self) > 1)
    {
      g_autofree char *part = _gg_a2g_redis_sessions_key (self, _gg_a2g_redis_session_part (self, client_id));
      GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_session_mark, 1);

      _gg_a2g_redis_cmd_add (cmd, part);
      _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, ttl_s * 1000);
      _gg_a2g_redis_cmd_add (cmd, client_id);
      _gg_a2g_redis_send (self, cmd, NULL, NULL);
    }
  if (player != NULL && player->type == REDIS_REPLY_STRING)
    _gg_a2g_redis_player_renew (self, player->str, client_id, ttl_s);
}

/* The per-session keys every session script renews: session, rec, recent,
 * tel, and reads: sub; on one primary the live sessions too. */
static GgA2gRedisCmd *
session_script_new (GgA2gRedisStore  *self,
                    GgA2gRedisScript *script,
                    const char       *client_id)
{
  static const char *suffixes[] = { "", ":rec", ":recent", ":tel", ":sub" };
  gboolean one_set = _gg_a2g_redis_session_parts (self) == 1;
  GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (script, G_N_ELEMENTS (suffixes) + (one_set ? 1 : 0));

  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *key = _gg_a2g_redis_session_key (self, client_id, suffixes[i]);
      _gg_a2g_redis_cmd_add (cmd, key);
    }
  if (one_set)
    {
      g_autofree char *sessions = _gg_a2g_redis_sessions_key (self, 0);
      _gg_a2g_redis_cmd_add (cmd, sessions);
    }
  return cmd;
}

static GgA2gContext *
context_build (GgA2gManifest *manifest,
               const char    *state)
{
  g_autoptr(JsonNode) node = NULL;

  if (manifest == NULL || state == NULL)
    return NULL;
  node = gg_json_parse (state, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return gg_a2g_context_build (manifest, json_node_get_object (node), NULL);
}

/* ---- sessions seen here ---------------------------------------------------- */

typedef struct {
  GgA2gSession *snapshot;
  char *previous;
  gint64 previous_until_us;
  gint64 expires_us;
} SeenSession;

static void
seen_session_free (SeenSession *seen)
{
  gg_a2g_session_unref (seen->snapshot);
  if (seen->previous != NULL)
    memset (seen->previous, 0, strlen (seen->previous));
  g_free (seen->previous);
  g_free (seen);
}

static void
seen_put (GgA2gRedisStore *self,
           GgA2gSession    *session,
           const char      *previous,
           gint64           grace_s)
{
  SeenSession *seen = g_hash_table_lookup (self->seen, session->client_id);
  gint64 now = g_get_monotonic_time ();

  if (seen == NULL)
    {
      seen = g_new0 (SeenSession, 1);
      g_hash_table_insert (self->seen, g_strdup (session->client_id), seen);
    }
  else
    gg_a2g_session_unref (seen->snapshot);
  seen->snapshot = gg_a2g_session_ref (session);
  if (previous != NULL)
    {
      if (seen->previous != NULL)
        memset (seen->previous, 0, strlen (seen->previous));
      g_free (seen->previous);
      seen->previous = g_strdup (previous);
      seen->previous_until_us = now + grace_s * G_USEC_PER_SEC;
    }
  seen->expires_us = now + session->ttl_s * G_USEC_PER_SEC;
}

static GgA2gSession *
seen_get (GgA2gRedisStore *self,
           const char      *client_id,
           const char      *token)
{
  SeenSession *seen = g_hash_table_lookup (self->seen, client_id);
  gint64 now = g_get_monotonic_time ();

  if (seen == NULL || seen->expires_us <= now || token == NULL)
    return NULL;
  if (gg_secure_equal (token, seen->snapshot->token) ||
      (seen->previous != NULL && seen->previous_until_us > now && gg_secure_equal (token, seen->previous)))
    return gg_a2g_session_ref (seen->snapshot);
  return NULL;
}

/** _gg_a2g_redis_sessions_sweep: forgets, every 10 s, the sessions seen here that ended */
void
_gg_a2g_redis_sessions_sweep (GgA2gRedisStore *self)
{
  gint64 now = g_get_monotonic_time ();
  GHashTableIter iter;
  SeenSession *seen;

  if (now - self->seen_swept_us <= 10 * G_USEC_PER_SEC)
    return;
  self->seen_swept_us = now;
  g_hash_table_iter_init (&iter, self->seen);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &seen))
    if (seen->expires_us <= now)
      g_hash_table_iter_remove (&iter);
}

/** _gg_a2g_redis_sessions_init: @self: the store, being made */
void
_gg_a2g_redis_sessions_init (GgA2gRedisStore *self)
{
  self->seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) seen_session_free);
}

/* ---- open, renew, look up -------------------------------------------------- */

typedef struct {
  char *client_id;
  char *game;
  GgA2gManifest *manifest;
  char *token;
  gint64 ttl_s;
  gint64 grace_s;
} Open;

static void
open_free (Open *open)
{
  g_free (open->client_id);
  g_free (open->game);
  gg_a2g_manifest_unref (open->manifest);
  if (open->token != NULL)
    memset (open->token, 0, strlen (open->token));
  g_free (open->token);
  g_free (open);
}

static void
on_opened (GgA2gRedisStore *self,
           redisReply      *reply,
           GTask           *task)
{
  Open *open = g_task_get_task_data (task);
  g_autofree char *id = NULL, *previous = NULL, *context = NULL;
  GgA2gSession *session;

  if (reply->type != REDIS_REPLY_ARRAY || reply->elements < 2)
    {
      _gg_a2g_redis_task_fail (task);
      return;
    }
  id = _gg_a2g_redis_reply_string (reply->element[0]);
  previous = _gg_a2g_redis_reply_string (reply->element[1]);
  context = reply->elements > 2 ? _gg_a2g_redis_reply_string (reply->element[2]) : NULL;
  session = gg_a2g_session_new (open->client_id, id, open->game, open->manifest, open->manifest->hash, open->token,
                                open->ttl_s, context_build (open->manifest, context));
  seen_put (self, session, previous != NULL && previous[0] != '\0' ? previous : NULL, open->grace_s);
  mark_live (self, open->client_id, open->ttl_s, reply->elements > 3 ? reply->element[3] : NULL);
  if (previous != NULL)
    memset (previous, 0, strlen (previous));
  g_task_return_pointer (task, session, (GDestroyNotify) gg_a2g_session_unref);
  g_object_unref (task);
}

static void
session_open (GgA2gStore          *store,
              const char          *client_id,
              const char          *game,
              GgA2gManifest       *manifest,
              gint64               ttl_s,
              gint64               grace_s,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  Open *open = g_new0 (Open, 1);
  GgA2gRedisCmd *cmd = session_script_new (self, &_gg_a2g_redis_script_session_open, client_id);
  g_autofree char *hex = gg_secure_token_hex (16, NULL);
  g_autofree char *id = gg_secure_token_hex (8, NULL);

  open->client_id = g_strdup (client_id);
  open->game = g_strdup (game);
  open->manifest = gg_a2g_manifest_ref (manifest);
  /* The session's manifest is known here from now on, as with the process store. */
  if (!g_hash_table_contains (self->manifests, manifest->hash))
    g_hash_table_insert (self->manifests, g_strdup (manifest->hash), gg_a2g_manifest_ref (manifest));
  open->token = g_strconcat ("s_", hex, NULL);    /* 128 random bits (getrandom) */
  memset (hex, 0, strlen (hex));
  open->ttl_s = ttl_s;
  open->grace_s = grace_s;
  g_task_set_task_data (task, open, (GDestroyNotify) open_free);
  _gg_a2g_redis_cmd_add (cmd, game);
  _gg_a2g_redis_cmd_add (cmd, manifest->hash);
  _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, ttl_s);
  _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, grace_s);
  _gg_a2g_redis_cmd_add (cmd, open->token);
  _gg_a2g_redis_cmd_add (cmd, id);
  _gg_a2g_redis_cmd_add (cmd, client_id);
  _gg_a2g_redis_send (self, cmd, task, on_opened);
}

typedef struct {
  char *client_id;
  char *fields[6];        /* id, game, mh, token, ttl, ctx */
} Lookup;

static void
lookup_free (Lookup *lookup)
{
  g_free (lookup->client_id);
  for (guint i = 0; i < G_N_ELEMENTS (lookup->fields); i++)
    g_free (lookup->fields[i]);
  g_free (lookup);
}

static void
lookup_complete (GgA2gRedisStore *self,
                 GTask           *task,
                 GgA2gManifest   *manifest)
{
  Lookup *lookup = g_task_get_task_data (task);
  GgA2gSession *session;

  session = gg_a2g_session_new (lookup->client_id, lookup->fields[0], lookup->fields[1], manifest, lookup->fields[2],
                                lookup->fields[3],
                                g_ascii_strtoll (lookup->fields[4] != NULL ? lookup->fields[4] : "0", NULL, 10),
                                context_build (manifest, lookup->fields[5]));
  seen_put (self, session, NULL, 0);
  g_task_return_pointer (task, session, (GDestroyNotify) gg_a2g_session_unref);
  g_object_unref (task);
}

static void
on_lookup_manifest (GgA2gRedisStore *self,
                    redisReply      *reply,
                    GTask           *task)
{
  Lookup *lookup = g_task_get_task_data (task);

  lookup_complete (self, task, _gg_a2g_redis_manifest_from_reply (self, lookup->fields[2], reply));
}

static void
on_looked_up (GgA2gRedisStore *self,
              redisReply      *reply,
              GTask           *task)
{
  Lookup *lookup = g_task_get_task_data (task);
  GgA2gManifest *manifest;

  if (reply->type == REDIS_REPLY_INTEGER)
    {
      if (reply->integer == 0)
        g_task_return_new_error (task, GG_A2G_ERROR, GG_A2G_ERROR_UNKNOWN_SESSION,
                                 "Unknown session: open one with /v1/session.");
      else
        g_task_return_new_error (task, GG_A2G_ERROR, GG_A2G_ERROR_UNAUTHORIZED,
                                 "Missing, invalid or expired session token.");
      g_object_unref (task);
      return;
    }
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements < 5)
    {
      _gg_a2g_redis_task_fail (task);
      return;
    }
  for (size_t i = 0; i < reply->elements && i < G_N_ELEMENTS (lookup->fields); i++)
    lookup->fields[i] = _gg_a2g_redis_reply_string (reply->element[i]);
  mark_live (self, lookup->client_id,
             g_ascii_strtoll (lookup->fields[4] != NULL ? lookup->fields[4] : "0", NULL, 10),
             reply->elements > 6 ? reply->element[6] : NULL);
  manifest = lookup->fields[2] != NULL ? gg_a2g_store_manifest_lookup (GG_A2G_STORE (self), lookup->fields[2]) : NULL;
  if (lookup->fields[2] == NULL || manifest != NULL)
    {
      lookup_complete (self, task, manifest);
      return;
    }
  /* Opened on another replica: its manifest is read once, here. */
  _gg_a2g_redis_send (self, _gg_a2g_redis_manifest_get_cmd (self, lookup->fields[2], FALSE), task, on_lookup_manifest);
}

static void
session_lookup (GgA2gStore          *store,
                const char          *client_id,
                const char          *token,
                GCancellable        *cancellable,
                GAsyncReadyCallback  callback,
                gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  Lookup *lookup;
  GgA2gRedisCmd *cmd;
  g_autofree char *key = NULL;

  if (token == NULL)
    {
      g_task_return_new_error (task, GG_A2G_ERROR, GG_A2G_ERROR_UNAUTHORIZED,
                               "Missing, invalid or expired session token.");
      g_object_unref (task);
      return;
    }
  key = _gg_a2g_redis_session_key (self, client_id, "");
  if (!_gg_a2g_redis_key_is_up (self, key))
    {
      /* Degraded: a session this replica saw stays usable, so that its
       * decisions fall back (busy) instead of the whole request failing. */
      GgA2gSession *session = seen_get (self, client_id, token);

      if (session != NULL)
        g_task_return_pointer (task, session, (GDestroyNotify) gg_a2g_session_unref);
      else
        g_task_return_new_error (task, GG_A2G_ERROR, GG_A2G_ERROR_UNAVAILABLE, "The shared store is unreachable.");
      g_object_unref (task);
      return;
    }
  lookup = g_new0 (Lookup, 1);
  lookup->client_id = g_strdup (client_id);
  g_task_set_task_data (task, lookup, (GDestroyNotify) lookup_free);
  cmd = session_script_new (self, &_gg_a2g_redis_script_session_lookup, client_id);
  _gg_a2g_redis_cmd_add (cmd, token);
  _gg_a2g_redis_cmd_add (cmd, client_id);
  _gg_a2g_redis_send (self, cmd, task, on_looked_up);
}

static void
on_context_set (GgA2gRedisStore *self,
                redisReply      *reply,
                GTask           *task)
{
  (void) self;
  if (reply->type == REDIS_REPLY_INTEGER && reply->integer == 1)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_new_error (task, GG_A2G_ERROR, GG_A2G_ERROR_UNKNOWN_SESSION,
                             "Unknown session: open one with /v1/session.");
  g_object_unref (task);
}

static void
session_set_context (GgA2gStore          *store,
                     const char          *client_id,
                     GgA2gContext        *context,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_session_context, 1);
  g_autofree char *key = _gg_a2g_redis_session_key (self, client_id, "");
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), context->state);
  g_autofree char *state = json_to_string (node, FALSE);

  _gg_a2g_redis_cmd_add (cmd, key);
  _gg_a2g_redis_cmd_add (cmd, state);
  _gg_a2g_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_context_set);
}

static void
on_part_counted (GgA2gRedisStore *self,
                 redisReply      *reply,
                 guint            part,
                 gpointer         data)
{
  gint64 *total = data;

  (void) self;
  (void) part;
  if (reply->type == REDIS_REPLY_INTEGER)
    *total += reply->integer;
}

static void
on_counted (GgA2gRedisStore *self,
            GTask           *task,
            gpointer         data,
            gboolean         failed)
{
  gint64 *total = data;

  (void) self;
  /* A part unreachable: the count is not known. */
  if (failed)
    {
      _gg_a2g_redis_task_fail (task);
      return;
    }
  g_task_return_int (task, (gssize) *total);
  g_object_unref (task);
}

/* The parts' counts, asked in parallel, added. */
static void
session_count (GgA2gStore          *store,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  guint parts = _gg_a2g_redis_session_parts (self);
  GgA2gRedisGather *gather = _gg_a2g_redis_gather_new (self, g_task_new (store, cancellable, callback, user_data),
                                                       parts, on_part_counted, on_counted, g_new0 (gint64, 1),
                                                       g_free);

  for (guint part = 0; part < parts; part++)
    {
      GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_session_count, 1);
      g_autofree char *key = _gg_a2g_redis_sessions_key (self, part);

      _gg_a2g_redis_cmd_add (cmd, key);
      _gg_a2g_redis_gather_send (gather, part, cmd);
    }
}

/** _gg_a2g_redis_sessions_iface_init: @iface: the store interface to fill */
void
_gg_a2g_redis_sessions_iface_init (GgA2gStoreInterface *iface)
{
  iface->session_open = session_open;
  iface->session_lookup = session_lookup;
  iface->session_set_context = session_set_context;
  iface->session_count = session_count;
}
