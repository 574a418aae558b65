/* gg-a2g-memory-private.h: what the two files of the in-memory store share
 * (gg-a2g-memory-store.c: sessions, manifests, cache, buckets, budgets;
 * gg-a2g-memory-session.c: what each session holds: records, replays,
 * telemetry; gg-a2g-memory-jti.c, gg-a2g-memory-counters.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-a2g-memory-store.h"

G_BEGIN_DECLS

typedef struct {
  GBytes *answer;       /* NULL while pending */
  gint64 expires_us;
  GQueue waiters;       /* GTask */
} Replay;

typedef struct {
  GgA2gSession *snapshot;
  char *previous_token;
  gint64 previous_until_us;
  gint64 last_used_us;
  GHashTable *records;   /* decision_id -> GgA2gRecord */
  GQueue record_order;   /* GgA2gRecord (borrowed), oldest first */
  GHashTable *recent;    /* entity -> GQueue of GgA2gRecord (borrowed), newest first */
  GHashTable *telemetry; /* entity -> GgA2gTelemetry */
  GHashTable *replays;   /* request_id -> Replay */
} MemSession;

typedef struct {
  GgA2gCacheEntry *entry;
  GList *link;
} CacheNode;

typedef struct {
  gint64 used;
  gint64 reserved;
  gint64 limit;
  gint64 window_s;
  gint64 window_start_us;
  char *window;
} Budget;

typedef struct {
  GPtrArray *scopes;     /* char* */
  gint64 amount;
} Reservation;

typedef struct {
  double tokens;
  gint64 last_us;
} Bucket;

struct _GgA2gMemoryStore {
  GObject parent_instance;

  GHashTable *manifests;   /* hash -> canonical */
  GHashTable *sessions;    /* client_id -> MemSession */
  GHashTable *subs;        /* "<game>/<sub>" -> (client_id -> gint64* pending until, monotonic us) */
  GHashTable *sub_owners;  /* client_id -> "<game>/<sub>" that claimed it last */
  GHashTable *cache;       /* key -> CacheNode */
  GQueue lru;              /* char *key (owned by the node's entry), most recent first */
  guint cache_max;
  gint64 cache_ttl_us;
  GHashTable *budgets;     /* scope -> Budget */
  GHashTable *reservations;/* id -> Reservation */
  gint64 next_reservation;
  GHashTable *counters;    /* name -> gint64*: /v1/usage's, this process's */
  GHashTable *buckets;     /* name -> Bucket */
  GHashTable *jtis;        /* join token jti -> gint64* wall-clock expiry (s) */
  guint sweep_id;
};


MemSession *_gg_a2g_memory_live_session (GgA2gMemoryStore *self,
                                         const char       *client_id);
void        _gg_a2g_memory_sub_iface_init (GgA2gStoreInterface *iface);
void        _gg_a2g_memory_sub_sweep      (GgA2gMemoryStore *self);
void        _gg_a2g_memory_replay_free  (Replay *replay);
void        _gg_a2g_memory_session_iface_init (GgA2gStoreInterface *iface);
void        _gg_a2g_memory_jti_iface_init (GgA2gStoreInterface *iface);
void        _gg_a2g_memory_jti_sweep      (GgA2gMemoryStore *self);
void        _gg_a2g_memory_counters_iface_init (GgA2gStoreInterface *iface);

/* Every operation completes through a GTask whose source is the store. */
#define RETURN_POINTER(value, destroy) \
  G_STMT_START { GTask *t_ = g_task_new (store, cancellable, callback, user_data); \
                 g_task_return_pointer (t_, (value), (GDestroyNotify) (destroy)); \
                 g_object_unref (t_); } G_STMT_END
#define RETURN_BOOLEAN(value) \
  G_STMT_START { GTask *t_ = g_task_new (store, cancellable, callback, user_data); \
                 g_task_return_boolean (t_, (value)); g_object_unref (t_); } G_STMT_END
#define RETURN_INT(value) \
  G_STMT_START { GTask *t_ = g_task_new (store, cancellable, callback, user_data); \
                 g_task_return_int (t_, (value)); g_object_unref (t_); } G_STMT_END
#define RETURN_ERROR(code, message) \
  G_STMT_START { GTask *t_ = g_task_new (store, cancellable, callback, user_data); \
                 g_task_return_new_error (t_, GG_A2G_ERROR, (code), "%s", (message)); \
                 g_object_unref (t_); } G_STMT_END

G_END_DECLS
