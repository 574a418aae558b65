/* gg-a2g-redis-private.h: what the files of the Redis store share: the
 * object (gg-a2g-redis-store.c), where its commands go and what their
 * replies mean (gg-a2g-redis-connection.c) through one connection per
 * server (gg-a2g-redis-node.c), the Cluster's slot map and redirections
 * (gg-a2g-redis-cluster.c), the primary the sentinels name
 * (gg-a2g-redis-sentinel.c), the `redis` value (gg-a2g-redis-url.c), and
 * one file per topic of the store interface
 * (gg-a2g-redis-{manifests,sessions,players,jti,cache,limits,records,
 * telemetry,counters}.c), each with the Lua scripts of its operations.
 * The topic files send through the connection; the sessions file also
 * reads manifests (a session opened on another replica) through the
 * manifests file and renews player claims through the players file.
 *
 * Keys (P is `redis-prefix`, "a2g:" by default). Every script's keys share
 * one hash tag, so each atomic operation runs on one slot of a Cluster:
 *   P m:<hash>                 manifest (canonical JSON), 7 days from its last use
 *   P{s:<client_id>}           session hash, expires with the session
 *   P{s:<client_id>}:rec       decision records (hash id -> JSON)
 *   P{s:<client_id>}:recent    per entity, its latest decision ids
 *   P{s:<client_id>}:tel       telemetry (hash entity -> JSON)
 *   P{s:<client_id>}:rp:<id>   request_id replay ("P" pending, "A"+answer)
 *   P{s:<client_id>}:sub       the player's key that claimed it, with the session
 *   P d:<decision_id>          the session a decision was issued to
 *   P sessions                 live sessions (zset, score: expiry in ms); on a
 *   P{n:<part>}sessions        Cluster cut in 16 parts, the count adds them
 *   P j:<jti>                  a join token's id, until the token's exp
 *   P usage                    /v1/usage's counters, every replica's (hash name -> total, no expiry)
 *   P c:<cache key>            cache entry (JSON), PX cache-ttl (read per slot in parallel)
 *   P ci:<manifest hash>       game-wide cache index (zset, bounded)
 *   P r:<bucket>               token bucket
 *   P{u:<game>/<sub>}          a player's claimed sessions (zset client_id, score: until
 *                              when the claim counts: pending, then its session's expiry)
 *   P{b}:<scope>, P{b}:next, P{b}:next:<id>, P{b}:scopes   budgets (one slot: a
 *                              reservation spans scopes atomically)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include "gg-a2g-errors.h"
#include "gg-a2g-redis-store.h"

G_BEGIN_DECLS

/* ---- where: the `redis` value (gg-a2g-redis-url.c) -------------------------- */

typedef enum {
  GG_A2G_REDIS_SINGLE,    /* one primary */
  GG_A2G_REDIS_SENTINEL,  /* the primary the sentinels name */
  GG_A2G_REDIS_CLUSTER,   /* a Redis Cluster: a primary per slot range */
} GgA2gRedisMode;

typedef struct {
  char *unix_path;        /* or: */
  char *host;
  int port;
} GgA2gRedisAddress;

void     _gg_a2g_redis_address_free (GgA2gRedisAddress *address);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgA2gRedisAddress, _gg_a2g_redis_address_free)
char    *_gg_a2g_redis_address_name (const char *unix_path,
                                     const char *host,
                                     int         port);
gboolean _gg_a2g_redis_url_parse    (const char      *url,
                                     GgA2gRedisMode  *mode,
                                     char           **master_name,
                                     GPtrArray      **addresses,
                                     char           **password,
                                     GError         **error);

/* ---- commands and scripts (gg-a2g-redis-connection.c) ----------------------- */

/* One Lua script: an operation that must be atomic across replicas (Redis
 * runs a script as one command). Time in a script is Redis's own (TIME),
 * so replicas agree on it. Every key a script touches is one of its KEYS,
 * and they share a hash tag: on a Cluster each script runs on one slot. */
typedef struct {
  const char *source;
  char sha[41];          /* filled when first sent */
} GgA2gRedisScript;

/* The reading of Redis's clock every script that needs it starts with. */
#define GG_A2G_REDIS_NOW_MS "local t = redis.call('TIME'); local now = t[1] * 1000 + math.floor(t[2] / 1000)\n"

/* Called with the reply (never NULL: a lost connection or an error reply
 * completes the task with GG_A2G_ERROR_UNAVAILABLE before). */
typedef void (*GgA2gRedisReplyFunc) (GgA2gRedisStore *self, redisReply *reply, GTask *task);

/* One command's arguments. Its first key (what a Cluster routes it by) is
 * the argument after the command's name, or a script's first KEYS. */
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
void           _gg_a2g_redis_cmd_free    (GgA2gRedisCmd *cmd);
GgA2gRedisCmd *_gg_a2g_redis_script_new  (GgA2gRedisScript *script,
                                          guint             n_keys);
/* Sends @cmd (consumed) to the primary holding its key; @func gets the
 * reply, @task (consumed) is completed by @func, or with an error when the
 * store (that key's primary) is unreachable. NULL @task: the reply is
 * ignored. */
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
/* One operation's commands to several slots, sent in parallel: @part_func
 * reads each reply (never NULL), @done completes @task once all came,
 * @failed when any did not. */
typedef struct _GgA2gRedisGather GgA2gRedisGather;
typedef void (*GgA2gRedisPartFunc) (GgA2gRedisStore *self, redisReply *reply, guint part, gpointer data);
typedef void (*GgA2gRedisGatheredFunc) (GgA2gRedisStore *self, GTask *task, gpointer data, gboolean failed);
GgA2gRedisGather *_gg_a2g_redis_gather_new  (GgA2gRedisStore        *self,
                                             GTask                  *task,
                                             guint                   n_parts,
                                             GgA2gRedisPartFunc      part_func,
                                             GgA2gRedisGatheredFunc  done,
                                             gpointer                data,
                                             GDestroyNotify          data_free);
void              _gg_a2g_redis_gather_send (GgA2gRedisGather *gather,
                                             guint             part,
                                             GgA2gRedisCmd    *cmd);
/* Which group a key's commands go in: its Cluster slot, 0 on one primary
 * (keys of one group may share a multi-key command). */
guint    _gg_a2g_redis_key_group   (GgA2gRedisStore *self,
                                    const char      *key,
                                    gsize            length);
/* Whether the primary holding @key answers now. */
gboolean _gg_a2g_redis_key_is_up   (GgA2gRedisStore *self,
                                    const char      *key);

/* ---- the connections (gg-a2g-redis-node.c) ------------------------------------ */

typedef struct _GgA2gRedisNode GgA2gRedisNode;

/* An internal command's reply (NULL: none came), on the node it went to. */
typedef void (*GgA2gRedisNodeFunc) (GgA2gRedisStore *self, GgA2gRedisNode *node, redisReply *reply);

typedef struct {
  GgA2gRedisStore *self;
  GTask *task;                /* nullable */
  GgA2gRedisReplyFunc func;
  GgA2gRedisNodeFunc node_func;  /* an internal command's, instead of @func */
  GgA2gRedisCmd *cmd;         /* kept for a resend (NOSCRIPT, MOVED, ASK, TRYAGAIN) */
  GgA2gRedisNode *node;       /* where it is in flight */
  gint64 deadline_us;
  guint redirects;
} GgA2gRedisPending;

typedef enum {
  GG_A2G_REDIS_NODE_DATA,      /* a primary (or cluster node): AUTH and the scripts on connect */
  GG_A2G_REDIS_NODE_CHECKED,   /* a primary named by a sentinel: ready once ROLE says master */
  GG_A2G_REDIS_NODE_SENTINEL,  /* a sentinel: asked, never written to */
} GgA2gRedisNodeRole;

struct _GgA2gRedisNode {
  GgA2gRedisStore *store;     /* borrowed: the store owns its nodes */
  GgA2gRedisNodeRole role;
  char *name;                 /* "HOST:PORT" or the socket path */
  char *unix_path;            /* or: */
  char *host;
  int port;
  redisAsyncContext *ac;
  gboolean connected;
  gboolean ready;             /* data may go to it */
  gboolean seed;              /* named by the configuration: kept */
  gint64 connect_started_us;
  guint backoff_ms;
  guint retry_id;
  gboolean closing;
  GQueue pending;             /* sent, oldest first */
};

GgA2gRedisNode *_gg_a2g_redis_node_new  (GgA2gRedisStore    *self,
                                         GgA2gRedisNodeRole  role,
                                         const char         *unix_path,
                                         const char         *host,
                                         int                 port);
void            _gg_a2g_redis_node_free (GgA2gRedisNode *node);
/* Sends @pending (consumed) on @node; it fails at once when @node is not
 * ready (@internal: connected) for it. */
void            _gg_a2g_redis_node_send (GgA2gRedisNode    *node,
                                         GgA2gRedisPending *pending,
                                         gboolean           internal);
/* An internal command (AUTH, SCRIPT LOAD, ROLE, CLUSTER SLOTS, ASKING, SENTINEL). */
void            _gg_a2g_redis_node_ask  (GgA2gRedisNode     *node,
                                         GgA2gRedisCmd      *cmd,
                                         GgA2gRedisNodeFunc  func);
void            _gg_a2g_redis_node_drop (GgA2gRedisNode *node,
                                         const char     *why);
void            _gg_a2g_redis_node_tick (GgA2gRedisNode *node);
void            _gg_a2g_redis_node_set_ready (GgA2gRedisNode *node,
                                              gboolean        ready);
void            _gg_a2g_redis_pending_free   (GgA2gRedisPending *pending);

/* What the nodes tell the store (gg-a2g-redis-connection.c). */
void _gg_a2g_redis_on_reply      (GgA2gRedisStore   *self,
                                  GgA2gRedisPending *pending,
                                  redisReply        *reply,
                                  GgA2gRedisNode    *node);
void _gg_a2g_redis_node_changed  (GgA2gRedisStore *self,
                                  GgA2gRedisNode  *node,
                                  const char      *why);

void _gg_a2g_redis_connection_start (GgA2gRedisStore *self);
void _gg_a2g_redis_connection_tick  (GgA2gRedisStore *self);
void _gg_a2g_redis_connection_close (GgA2gRedisStore *self);

/* ---- Redis Cluster (gg-a2g-redis-cluster.c) ----------------------------------- */

#define GG_A2G_REDIS_SLOTS 16384
/* Servers one store connects to at most (Redis Cluster's own advice is
 * 1,000 nodes): a slot map or redirection naming more is not followed. */
#define GG_A2G_REDIS_MAX_NODES 1024

/* The slot of @key: CRC16 of its hash tag (the first non-empty {...}) or of all of it. */
guint    _gg_a2g_redis_key_slot          (const char *key,
                                          gsize       length);
/* A MOVED or ASK error's slot and address ("MOVED 3999 127.0.0.1:6381"). */
gboolean _gg_a2g_redis_parse_redirect    (const char  *error,
                                          gboolean    *ask,
                                          guint       *slot,
                                          char       **host,
                                          int         *port);
/* CLUSTER SLOTS's reply: calls @func for each range's primary; FALSE when
 * the reply is not one. */
typedef void (*GgA2gRedisRangeFunc) (guint first, guint last, const char *host, int port, gpointer user_data);
gboolean _gg_a2g_redis_parse_slots       (const redisReply    *reply,
                                          GgA2gRedisRangeFunc  func,
                                          gpointer             user_data);
/* SENTINEL get-master-addr-by-name's reply. */
gboolean _gg_a2g_redis_parse_master_addr (const redisReply  *reply,
                                          char             **host,
                                          int               *port);
GgA2gRedisNode *_gg_a2g_redis_cluster_route  (GgA2gRedisStore *self,
                                              GgA2gRedisCmd   *cmd);
/* Follows a MOVED, ASK or TRYAGAIN answer: TRUE when @pending was taken. */
gboolean _gg_a2g_redis_cluster_redirect  (GgA2gRedisStore   *self,
                                          GgA2gRedisPending *pending,
                                          redisReply        *reply);
void     _gg_a2g_redis_cluster_tick      (GgA2gRedisStore *self);
gboolean _gg_a2g_redis_cluster_is_up     (GgA2gRedisStore *self);
GgA2gRedisNode *_gg_a2g_redis_node_for   (GgA2gRedisStore *self,
                                          const char      *host,
                                          int              port);

/* ---- Sentinel (gg-a2g-redis-sentinel.c) --------------------------------------- */

void     _gg_a2g_redis_sentinel_tick     (GgA2gRedisStore *self);

/* ---- the topics --------------------------------------------------------------- */

/* The parts the service-wide live-session set is cut in on a Cluster (a
 * session is in the part its client_id hashes to; the count adds them). */
#define GG_A2G_REDIS_SESSION_PARTS 16
guint _gg_a2g_redis_session_parts (GgA2gRedisStore *self);
char *_gg_a2g_redis_sessions_key  (GgA2gRedisStore *self,
                                   guint            part);
guint _gg_a2g_redis_session_part  (GgA2gRedisStore *self,
                                   const char      *client_id);

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
void _gg_a2g_redis_player_renew         (GgA2gRedisStore *self,
                                         const char      *player_key,
                                         const char      *client_id,
                                         gint64           ttl_s);
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
extern GgA2gRedisScript _gg_a2g_redis_script_session_mark;
extern GgA2gRedisScript _gg_a2g_redis_script_player_claim;
extern GgA2gRedisScript _gg_a2g_redis_script_player_check;
extern GgA2gRedisScript _gg_a2g_redis_script_player_renew;
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

  /* where (gg-a2g-redis-url.c) */
  char *url;
  char *masked;
  GgA2gRedisMode mode;
  char *master_name;      /* sentinel: the primary's name */
  GPtrArray *addresses;   /* the one server, the sentinels or the seeds (GgA2gRedisAddress) */
  char *password;         /* nullable */
  char *prefix;
  gint64 timeout_ms;

  /* the connections (gg-a2g-redis-connection.c, -node.c) */
  GgA2gRedisScript * const *scripts;  /* NULL-terminated: loaded on each connect */
  GHashTable *nodes;      /* name -> GgA2gRedisNode, every connection */
  GgA2gRedisNode *primary;  /* one primary or sentinel: where data goes */
  gboolean up;
  gboolean ever_up;       /* until then, commands wait for the store (starting) */
  gboolean warned;        /* the loss was logged */
  gboolean closing;
  GQueue delayed;         /* GgA2gRedisPending routed again on the next tick (TRYAGAIN, starting) */
  guint64 commands;       /* sent, for the benchmarks */
  guint tick_id;

  /* cluster (gg-a2g-redis-cluster.c) */
  GgA2gRedisNode **slots;   /* GG_A2G_REDIS_SLOTS: each slot's primary (borrowed from nodes) */
  gboolean map_asked;       /* a CLUSTER SLOTS is in flight */
  gint64 map_at_us;         /* when the map was last asked for */
  gboolean map_wanted;      /* a redirect or a loss: ask again soon */
  guint64 redirects;        /* MOVED and ASK followed, for the tests and benchmarks */

  /* sentinel (gg-a2g-redis-sentinel.c) */
  gboolean sentinel_asked;
  gint64 sentinel_at_us;
  guint sentinel_next;      /* the sentinel asked next */

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
