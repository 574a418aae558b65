/* gg-a2g-redis-private.h: what the files of the Redis store share: the
 * connection (gg-a2g-redis-store.c), the commands and Lua scripts of each
 * operation (gg-a2g-redis-cache.c, gg-a2g-redis-ops.c, gg-a2g-redis-session.c,
 * gg-a2g-redis-counters.c, gg-a2g-redis-records.c, gg-a2g-redis-sub.c) and
 * the `redis` URL (gg-a2g-redis-url.c).
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

typedef struct {
  const char *source;
  char sha[41];
} RedisScript;

typedef enum {
  SCRIPT_SESSION_OPEN,
  SCRIPT_SESSION_LOOKUP,
  SCRIPT_SESSION_CONTEXT,
  SCRIPT_SESSION_COUNT,
  SCRIPT_RATE,
  SCRIPT_RESERVE,
  SCRIPT_SETTLE,
  SCRIPT_BUDGET_LIST,
  SCRIPT_COUNTERS,
  SCRIPT_RECORD_REPORT,
  SCRIPT_RECORD_RECENT,
  SCRIPT_REPLAY_CLAIM,
  SCRIPT_REPLAY_FINISH,
  SCRIPT_TELEMETRY_PUT,
  SCRIPT_SUB_CLAIM,
  SCRIPT_RECORD_PUT_MANY,
  N_SCRIPTS
} ScriptId;

extern RedisScript _gg_a2g_redis_scripts[N_SCRIPTS];

/* Called with the reply (never NULL: a lost connection or an error reply
 * completes the task with GG_A2G_ERROR_UNAVAILABLE before). */
typedef void (*RedisReplyFunc) (GgA2gRedisStore *self, redisReply *reply, GTask *task);

/* Builds one command's arguments. */
typedef struct {
  GPtrArray *args;   /* GBytes */
} RedisCmd;

RedisCmd *_gg_redis_cmd_new      (const char *first);
void      _gg_redis_cmd_add      (RedisCmd *cmd, const char *arg);
void      _gg_redis_cmd_add_len  (RedisCmd *cmd, const void *data, gsize length);
void      _gg_redis_cmd_addf     (RedisCmd *cmd, const char *format, ...) G_GNUC_PRINTF (2, 3);
RedisCmd *_gg_redis_script_new   (ScriptId script, guint n_keys);
/* Sends @cmd (consumed); @func gets the reply, @task (consumed) is completed
 * by @func, or with an error when the store is unreachable. NULL @task:
 * the reply is ignored. */
void      _gg_redis_send         (GgA2gRedisStore *self, RedisCmd *cmd, GTask *task,
                                  RedisReplyFunc func);
char     *_gg_redis_key          (GgA2gRedisStore *self, const char *format, ...) G_GNUC_PRINTF (2, 3);
void      _gg_redis_task_fail    (GTask *task);
gint64    _gg_redis_now_ms       (void);

void      _gg_a2g_redis_session_iface_init (GgA2gStoreInterface *iface);
void      _gg_a2g_redis_ops_iface_init     (GgA2gStoreInterface *iface);
void      _gg_a2g_redis_counters_iface_init (GgA2gStoreInterface *iface);
void      _gg_a2g_redis_cache_iface_init   (GgA2gStoreInterface *iface);
void      _gg_a2g_redis_sub_iface_init     (GgA2gStoreInterface *iface);
void      _gg_a2g_redis_records_iface_init (GgA2gStoreInterface *iface);

/* Decision ids kept per entity (for memory), and a record as Redis keeps it. */
#define GG_REDIS_MAX_RECENT 16
char     *_gg_redis_record_to_json (GgA2gRecord *record);
gboolean  _gg_redis_url_parse      (const char  *url,
                                    char       **unix_path,
                                    char       **host,
                                    int         *port,
                                    char       **password,
                                    GError     **error);

/* Sessions seen here, to answer lookups while Redis is unreachable (the
 * decisions then become FALLBACK busy rather than the request a 503). */
void          _gg_redis_local_session_put (GgA2gRedisStore *self, GgA2gSession *session,
                                           const char *previous, gint64 grace_s);
GgA2gSession *_gg_redis_local_session_get (GgA2gRedisStore *self, const char *client_id,
                                           const char *token);
GgA2gContext *_gg_redis_context_build     (GgA2gRedisStore *self, const char *manifest_hash,
                                           const char *state);
void          _gg_redis_manifest_remember (GgA2gRedisStore *self, const char *hash,
                                           const char *canonical);

struct _GgA2gRedisStore {
  GObject parent_instance;

  char *url;
  char *masked;
  char *unix_path;        /* or: */
  char *host;
  int port;
  char *password;         /* nullable */
  char *prefix;
  gint64 timeout_ms;
  guint cache_max;
  gint64 cache_ttl_ms;

  redisAsyncContext *ac;
  gboolean up;
  gboolean warned;        /* the loss was logged */
  gint64 connect_started_us;
  guint backoff_ms;
  guint retry_id;
  guint tick_id;
  GQueue pending;         /* Pending, oldest first */
  guint64 commands;       /* sent, for the benchmarks */

  GHashTable *manifests;  /* hash -> GgA2gManifest */
  GHashTable *local;      /* client_id -> LocalSession */
  gint64 local_swept_us;
};

G_END_DECLS
