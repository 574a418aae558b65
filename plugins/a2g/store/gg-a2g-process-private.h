/* gg-a2g-process-private.h: what the files of the process store share:
 * the object (gg-a2g-process-store.c) and one file per topic of the store
 * interface (gg-a2g-process-{manifests,sessions,players,jti,cache,limits,
 * records,telemetry,counters}.c). Each topic fills its part of the
 * interface and keeps its part of the object; the sessions file owns the
 * session table the per-session topics (players, records and replays,
 * telemetry) look their sessions up in. No topic file calls another's but
 * the sessions file's, and only the object calls every topic's.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-a2g-errors.h"
#include "gg-a2g-process-store.h"

G_BEGIN_DECLS

/* One session and what the store keeps for it, freed with it. */
typedef struct {
  GgA2gSession *snapshot;
  char *previous_token;
  gint64 previous_until_us;
  gint64 last_used_us;
  GHashTable *records;   /* decision_id -> GgA2gRecord */
  GQueue record_order;   /* GgA2gRecord (borrowed), oldest first */
  GHashTable *recent;    /* entity -> GQueue of GgA2gRecord (borrowed), newest first */
  GHashTable *replays;   /* nullable until a claim: request_id -> its replay (gg-a2g-process-records.c) */
  GHashTable *telemetry; /* entity -> GgA2gTelemetry */
} GgA2gProcessSession;

struct _GgA2gProcessStore {
  GObject parent_instance;

  /* manifests */
  GHashTable *manifests;   /* hash -> GgA2gManifest */
  /* sessions and tokens */
  GHashTable *sessions;    /* client_id -> GgA2gProcessSession */
  /* per-player sessions */
  GHashTable *players;     /* "<game>/<sub>" -> (client_id -> gint64* pending until, monotonic us) */
  GHashTable *player_of;   /* client_id -> "<game>/<sub>" that claimed it last */
  /* join-token ids */
  GHashTable *jtis;        /* jti -> gint64* wall-clock expiry (s) */
  /* cache */
  GHashTable *cache;       /* key -> its node (gg-a2g-process-cache.c) */
  GQueue lru;              /* char *key (owned by the node's entry), most recent first */
  guint cache_max;
  gint64 cache_ttl_us;
  /* limits and budgets */
  GHashTable *buckets;     /* name -> its bucket (gg-a2g-process-limits.c) */
  GHashTable *budgets;     /* scope -> its budget */
  GHashTable *reservations; /* id -> its reservation */
  gint64 next_reservation;
  /* counters */
  GHashTable *counters;    /* name -> gint64*: /v1/usage's, this process's */

  guint sweep_id;
};

/* Each topic: the interface's operations, the object's state, the sweep. */
void _gg_a2g_process_manifests_iface_init (GgA2gStoreInterface *iface);
void _gg_a2g_process_manifests_init       (GgA2gProcessStore *self);

void                 _gg_a2g_process_sessions_iface_init (GgA2gStoreInterface *iface);
void                 _gg_a2g_process_sessions_init       (GgA2gProcessStore *self);
void                 _gg_a2g_process_sessions_sweep      (GgA2gProcessStore *self);
GgA2gProcessSession *_gg_a2g_process_live_session        (GgA2gProcessStore *self,
                                                          const char        *client_id);
gint64               _gg_a2g_process_session_left_us     (GgA2gProcessSession *session,
                                                          gint64               now);

void _gg_a2g_process_players_iface_init (GgA2gStoreInterface *iface);
void _gg_a2g_process_players_init       (GgA2gProcessStore *self);
void _gg_a2g_process_players_sweep      (GgA2gProcessStore *self);

void _gg_a2g_process_jti_iface_init (GgA2gStoreInterface *iface);
void _gg_a2g_process_jti_init       (GgA2gProcessStore *self);
void _gg_a2g_process_jti_sweep      (GgA2gProcessStore *self);

void _gg_a2g_process_cache_iface_init (GgA2gStoreInterface *iface);
void _gg_a2g_process_cache_init       (GgA2gProcessStore *self);

void _gg_a2g_process_limits_iface_init (GgA2gStoreInterface *iface);
void _gg_a2g_process_limits_init       (GgA2gProcessStore *self);

void _gg_a2g_process_records_iface_init (GgA2gStoreInterface *iface);
void _gg_a2g_process_replays_sweep      (GgA2gProcessStore *self);

void _gg_a2g_process_telemetry_iface_init (GgA2gStoreInterface *iface);

void _gg_a2g_process_counters_iface_init (GgA2gStoreInterface *iface);
void _gg_a2g_process_counters_init       (GgA2gProcessStore *self);

/* Every operation completes through a GTask whose source is the store (the
 * operation's own `store`, `cancellable`, `callback` and `user_data`). */
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
