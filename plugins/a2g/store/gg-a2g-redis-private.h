/* gg-a2g-redis-private.h: what the files of the Redis store share: the
 * object (gg-a2g-redis-store.c), its one connection and the commands and
 * scripts sent on it (gg-a2g-redis-connection.c), the `redis` URL
 * (gg-a2g-redis-url.c), and one file per topic of the store interface
 * (gg-a2g-redis-{manifests,sessions,players,jti,cache,limits,records,
 * telemetry,counters}.c), each with the Lua scripts of its operations.
 * The topic files send through the connection; the sessions file also
 * reads manifests (a session opened on another replica) through the
 * manifests file. Only the object calls every topic's.
 *
 * Keys (P is `redis-prefix`, "a2g:" by default). A session's keys share a
 * hash tag, but some scripts also touch service-wide or per-player keys,
 * so the store needs one Redis primary, not a Cluster (README):
 *   P m:<hash>                 manifest (canonical JSON), 7 days from its last use
 *   P{s:<client_id>}           session hash, expires with the session
 *   P{s:<client_id>}:rec       decision records (hash id -> JSON)
 *   P{s:<client_id>}:recent    per entity, its latest decision ids
 *   P{s:<client_id>}:tel       telemetry (hash entity -> JSON)
 *   P{s:<client_id>}:rp:<id>   request_id replay ("P" pending, "A"+answer)
 *   P{s:<client_id>}:sub       the player (sub set key) that claimed it, with the session
 *   P d:<decision_id>          the session a decision was issued to
 *   P sessions                 live sessions (zset, score: expiry in ms)
 *   P j:<jti>                  a join token's id, until the token's exp
 *   P usage                    /v1/usage's counters, every replica's (hash name -> total, no expiry)
 *   P c:<cache key>            cache entry (JSON), PX cache-ttl
 *   P ci:<manifest hash>       game-wide cache index (zset, bounded)
 *   P r:<bucket>               token bucket
 *   P u:<game>/<sub>           a player's claimed sessions (zset client_id, score: until
 *                              when a claim counts unopened, ms), as long as its sessions
 *   P{b}:<scope>, P{b}:next, P{b}:next:<id>, P{b}:scopes   budgets
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include "gg-a2g-errors.h"
#include "gg-a2g-redis-store.h"

G_BEGIN_DECLS

/* ---- the connection: commands and scripts ----------------------------------- */

/* One Lua script: an operation that must be atomic across replicas (Redis
 * runs a script as one command). Time in a script is Redis's own (TIME),
 * so replicas agree on it. */
typedef struct {
  const char *source;
  char sha[41];          /* filled when first sent */
} GgA2gRedisScript;

/* The reading of Redis's clock every script that needs it starts with. */
#define GG_A2G_REDIS_NOW_MS "local t = redis.call('TIME'); local now = t[1] * 1000 + math.floor(t[2] / 1000)\n"

/* Called with the reply (never NULL: a lost connection or an error reply
 * completes the task with GG_A2G_ERROR_UNAVAILABLE before). */
typedef void (*GgA2gRedisReplyFunc) (GgA2gRedisStore *self, redisReply *reply, GTask *task);

/* One command's arguments. */
typedef struct {
  GPtrArray *args;            /* GBytes */
  GgA2gRedisScript *script;   /* an EVALSHA's script (sent as EVAL after NOSCRIPT) */
} GgA2gRedisCmd;

GgA2gRedisCmd *_gg_a2g_redis_cmd_new     (const char *first);
void           _gg_a2g_redis_cmd_add     (GgA2gRedisCmd *cmd,
                                          const char    *arg);
void           _gg_a2g_redis_cmd_add_len (GgA2gRedisCmd *cmd,
                                          gconstpointer  data,
                                          gsize          length);
void           _gg_a2g_redis_cmd_addf    (GgA2gRedisCmd *cmd,
                                          const char    *format,
                                          ...) G_GNUC_PRINTF (2, 3);
GgA2gRedisCmd *_gg_a2g_redis_script_new  (GgA2gRedisScript *script,
                                          guint             n_keys);
/* Sends @cmd (consumed); @func gets the reply, @task (consumed) is completed
 * by @func, or with an error when the store is unreachable. NULL @task:
 * the reply is ignored. */
void    _gg_a2g_redis_send         (GgA2gRedisStore     *self,
                                    GgA2gRedisCmd       *cmd,
                                    GTask               *task,
                                    GgA2gRedisReplyFunc  func);
void    _gg_a2g_redis_task_fail    (GTask *task);
/* The GgA2gRedisReplyFunc of the replies every topic reads alike. */
void    _gg_a2g_redis_reply_stored (GgA2gRedisStore *self,
                                    redisReply      *reply,
                                    GTask           *task);
void    _gg_a2g_redis_reply_one    (GgA2gRedisStore *self,
                                    redisReply      *reply,
                                    GTask           *task);
void    _gg_a2g_redis_reply_int    (GgA2gRedisStore *self,
                                    redisReply      *reply,
                                    GTask           *task);
void    _gg_a2g_redis_reply_count  (GgA2gRedisStore *self,
                                    redisReply      *reply,
                                    GTask           *task);
char   *_gg_a2g_redis_key          (GgA2gRedisStore *self,
                                    const char      *format,
                                    ...) G_GNUC_PRINTF (2, 3);
char   *_gg_a2g_redis_session_key  (GgA2gRedisStore *self,
                                    const char      *client_id,
                                    const char      *suffix);
char   *_gg_a2g_redis_reply_string (redisReply *reply);
gint64  _gg_a2g_redis_now_ms       (void);

void _gg_a2g_redis_connection_start (GgA2gRedisStore *self);
void _gg_a2g_redis_connection_tick  (GgA2gRedisStore *self);
void _gg_a2g_redis_connection_close (GgA2gRedisStore *self);

gboolean _gg_a2g_redis_url_parse (const char  *url,
                                  char       **unix_path,
                                  char       **host,
                                  int         *port,
                                  char       **password,
                                  GError     **error);

/* ---- the topics --------------------------------------------------------------- */

void           _gg_a2g_redis_manifests_iface_init (GgA2gStoreInterface *iface);
GgA2gRedisCmd *_gg_a2g_redis_manifest_get_cmd     (GgA2gRedisStore *self,
                                                   const char      *hash,
                                                   gboolean         renew);
GgA2gManifest *_gg_a2g_redis_manifest_from_reply  (GgA2gRedisStore *self,
                                                   const char      *hash,
                                                   redisReply      *reply);

void _gg_a2g_redis_sessions_iface_init  (GgA2gStoreInterface *iface);
void _gg_a2g_redis_sessions_init        (GgA2gRedisStore *self);
void _gg_a2g_redis_sessions_sweep       (GgA2gRedisStore *self);
void _gg_a2g_redis_players_iface_init   (GgA2gStoreInterface *iface);
void _gg_a2g_redis_jti_iface_init       (GgA2gStoreInterface *iface);
void _gg_a2g_redis_cache_iface_init     (GgA2gStoreInterface *iface);
void _gg_a2g_redis_limits_iface_init    (GgA2gStoreInterface *iface);
void _gg_a2g_redis_records_iface_init   (GgA2gStoreInterface *iface);
void _gg_a2g_redis_telemetry_iface_init (GgA2gStoreInterface *iface);
void _gg_a2g_redis_counters_iface_init  (GgA2gStoreInterface *iface);

/* Every topic's scripts, loaded on each connect (gg-a2g-redis-store.c). */
extern GgA2gRedisScript _gg_a2g_redis_script_session_open;
extern GgA2gRedisScript _gg_a2g_redis_script_session_lookup;
extern GgA2gRedisScript _gg_a2g_redis_script_session_context;
extern GgA2gRedisScript _gg_a2g_redis_script_session_count;
extern GgA2gRedisScript _gg_a2g_redis_script_player_claim;
extern GgA2gRedisScript _gg_a2g_redis_script_rate;
extern GgA2gRedisScript _gg_a2g_redis_script_reserve;
extern GgA2gRedisScript _gg_a2g_redis_script_settle;
extern GgA2gRedisScript _gg_a2g_redis_script_budget_list;
extern GgA2gRedisScript _gg_a2g_redis_script_record_put_many;
extern GgA2gRedisScript _gg_a2g_redis_script_record_report;
extern GgA2gRedisScript _gg_a2g_redis_script_record_recent;
extern GgA2gRedisScript _gg_a2g_redis_script_replay_claim;
extern GgA2gRedisScript _gg_a2g_redis_script_replay_finish;
extern GgA2gRedisScript _gg_a2g_redis_script_telemetry_put;
extern GgA2gRedisScript _gg_a2g_redis_script_counters;

/* ---- the object ----------------------------------------------------------------- */

struct _GgA2gRedisStore {
  GObject parent_instance;

  /* where */
  char *url;
  char *masked;
  char *unix_path;        /* or: */
  char *host;
  int port;
  char *password;         /* nullable */
  char *prefix;
  gint64 timeout_ms;

  /* the connection (gg-a2g-redis-connection.c) */
  GgA2gRedisScript * const *scripts;  /* NULL-terminated: loaded on each connect */
  redisAsyncContext *ac;
  gboolean up;
  gboolean warned;        /* the loss was logged */
  gint64 connect_started_us;
  guint backoff_ms;
  guint retry_id;
  gboolean closing;
  GQueue pending;         /* commands sent, oldest first */
  guint64 commands;       /* sent, for the benchmarks */
  guint tick_id;

  /* manifests known here, parsed (gg-a2g-redis-manifests.c) */
  GHashTable *manifests;  /* hash -> GgA2gManifest */
  /* sessions seen here, to answer lookups while Redis is unreachable (the
   * decisions then become FALLBACK busy rather than the request a 503;
   * gg-a2g-redis-sessions.c) */
  GHashTable *seen;       /* client_id -> its last snapshot and tokens */
  gint64 seen_swept_us;
  /* cache */
  guint cache_max;
  gint64 cache_ttl_ms;
};

G_END_DECLS
