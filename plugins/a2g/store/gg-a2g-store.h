/* gg-a2g-store.h: the one interface behind which the a2g plugin keeps its
 * state: sessions and their tokens, manifests, the decision cache, rate
 * buckets, token budgets, decision records (for reports and memory),
 * request_id replays and per-session telemetry.
 *
 * The local profile uses the in-memory implementation
 * (gg-a2g-memory-store.c). The interface is shaped for a shared store
 * (Redis through hiredis, asynchronous on the GLib main loop) so that
 * replicas can share state:
 *
 * - Every operation is asynchronous (callback + GTask), because a shared
 *   store answers over the network. Implementations complete each one
 *   through a GTask whose source object is the store, returning what the
 *   matching gg_a2g_store_*_finish() reads (pointer, boolean or int). The
 *   in-memory store completes them on the next main-loop iteration.
 * - Every operation that must be atomic across replicas is ONE call, so a
 *   shared implementation can make it one script or transaction: opening
 *   or renewing a session (new token, previous one kept for the grace
 *   period), looking a session up with its token (which also renews its
 *   idle expiry), taking from a rate bucket, reserving a budget, settling
 *   a reservation, accepting a report once, claiming a request_id,
 *   claiming one of a player's concurrent sessions.
 * - A decide request's entities reach the store together where they can:
 *   their cache entries are read in one operation (cache_get_many) and
 *   their decision records written in one (record_put_many), so that a
 *   shared store answers a request of 16 entities in one round trip per
 *   step rather than 16.
 * - Values cross the interface as plain data (strings, numbers, JSON) that
 *   serialise as they are. The one exception is a session's context
 *   (GgA2gContext), whose JSON `state` is what a shared store keeps; the
 *   derived fields are recomputed from it and the manifest.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "gg-a2g-context.h"

G_BEGIN_DECLS

/* A session as the store has it, a snapshot: read-only for callers. */
typedef struct {
  gatomicrefcount ref;
  char *client_id;
  char *id;              /* random: scopes the session cache */
  char *game;
  char *manifest_hash;
  char *token;           /* the current session token */
  gint64 ttl_s;          /* expires_in */
  GgA2gContext *context; /* nullable: none set yet */
} GgA2gSession;

GgA2gSession *gg_a2g_session_ref   (GgA2gSession *session);
void          gg_a2g_session_unref (GgA2gSession *session);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgA2gSession, gg_a2g_session_unref)

/* One cached decision. @key is "game:<hex>" or "session:<session id>:<hex>". */
typedef struct {
  gatomicrefcount ref;
  char *key;
  char *manifest_hash;
  char *type;
  JsonNode *situation;      /* the quantised observations */
  JsonNode *legal_actions;  /* sorted */
  char *action;
  gint64 confidence;
  char *reason;
  gint64 expires_us;        /* monotonic */
} GgA2gCacheEntry;

GgA2gCacheEntry *gg_a2g_cache_entry_new   (void);
GgA2gCacheEntry *gg_a2g_cache_entry_ref   (GgA2gCacheEntry *entry);
void             gg_a2g_cache_entry_unref (GgA2gCacheEntry *entry);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgA2gCacheEntry, gg_a2g_cache_entry_unref)

/* One decision, kept for reports and memory as long as its session lives. */
typedef struct {
  gatomicrefcount ref;
  char *decision_id;
  char *entity;
  char *type;
  char *action;
  gint64 confidence;
  char *reason;          /* nullable */
  char *situation_key;   /* hex: the cache key of the situation */
  char *outcome;         /* nullable until reported */
  double reward;
  gboolean has_reward;
} GgA2gRecord;

GgA2gRecord *gg_a2g_record_new   (void);
GgA2gRecord *gg_a2g_record_ref   (GgA2gRecord *record);
void         gg_a2g_record_unref (GgA2gRecord *record);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgA2gRecord, gg_a2g_record_unref)

typedef enum {
  GG_A2G_REPORT_ACCEPTED,
  GG_A2G_REPORT_UNKNOWN,
  GG_A2G_REPORT_OTHER_SESSION,
  GG_A2G_REPORT_OTHER_ENTITY,
  GG_A2G_REPORT_ALREADY_REPORTED,
} GgA2gReportResult;

/* One budget a reservation draws on. */
typedef struct {
  const char *scope;     /* "session:<client_id>", "game:<game>" */
  gint64 limit;          /* tokens per window; 0: unlimited (still counted) */
  gint64 window_s;
  const char *window;    /* "hour", "day" */
} GgA2gBudgetLimit;

/* One of the service's counters (/v1/usage) and what to add to it. */
typedef struct {
  const char *name;      /* "decisions.model", "fallbacks.busy", "tokens.input", ... */
  gint64 value;
} GgA2gCounter;

/* The latest telemetry entry of one entity: scalars only. */
typedef struct {
  char *entity;
  char *type;            /* nullable */
  char *faction;         /* nullable */
  gboolean has_pos;
  double pos[3];
  guint dims;
  JsonObject *scalars;   /* the other kept members */
} GgA2gTelemetry;

void gg_a2g_telemetry_free (GgA2gTelemetry *entry);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgA2gTelemetry, gg_a2g_telemetry_free)

#define GG_A2G_TYPE_STORE (gg_a2g_store_get_type ())
G_DECLARE_INTERFACE (GgA2gStore, gg_a2g_store, GG, A2G_STORE, GObject)

struct _GgA2gStoreInterface {
  GTypeInterface g_iface;

  /* Manifests by hash (canonical JSON text). get: pointer (char*, NULL = unknown). */
  void (*manifest_put)    (GgA2gStore *self, const char *hash, const char *canonical,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  void (*manifest_get)    (GgA2gStore *self, const char *hash,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  /* Open or renew: pointer (GgA2gSession*). A renewal keeps context,
   * records, telemetry and usage; the previous token stays valid for
   * @grace_s seconds. */
  void (*session_open)    (GgA2gStore *self, const char *client_id, const char *game,
                           const char *manifest_hash, gint64 ttl_s, gint64 grace_s,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  /* pointer (GgA2gSession*), or GG_A2G_ERROR_UNKNOWN_SESSION /
   * GG_A2G_ERROR_UNAUTHORIZED; renews the idle expiry. */
  void (*session_lookup)  (GgA2gStore *self, const char *client_id, const char *token,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  /* boolean */
  void (*session_set_context) (GgA2gStore *self, const char *client_id, GgA2gContext *context,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  /* int: live sessions */
  void (*session_count)   (GgA2gStore *self,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);

  /* pointer (GgA2gCacheEntry*, NULL = miss) */
  void (*cache_get)       (GgA2gStore *self, const char *key,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  /* boolean */
  void (*cache_put)       (GgA2gStore *self, GgA2gCacheEntry *entry,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  /* pointer (GPtrArray of GgA2gCacheEntry*): the game-wide entries of a manifest */
  void (*cache_list)      (GgA2gStore *self, const char *manifest_hash,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);

  /* int: 0 if taken, else the milliseconds until a token is there */
  void (*rate_take)       (GgA2gStore *self, const char *bucket, double rate, double burst,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  /* int: a reservation id (> 0), or 0 when one of the budgets is spent */
  void (*budget_reserve)  (GgA2gStore *self, const GgA2gBudgetLimit *limits, guint n_limits,
                           gint64 amount,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  /* boolean: replaces the reservation by what was really used */
  void (*budget_settle)   (GgA2gStore *self, gint64 reservation, gint64 used,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  /* pointer (JsonArray*): [{"scope","used","limit","window"}] of the scopes
   * starting with @prefix */
  void (*budget_list)     (GgA2gStore *self, const char *prefix,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  /* pointer (JsonObject*: name -> the service's total of every counter
   * there is): adds @deltas to the service's counters and reads them all
   * back, in one step (a shared store: one script for all replicas'). */
  void (*counters_add)    (GgA2gStore *self, const GgA2gCounter *deltas, guint n_deltas,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);

  /* int (GgA2gReportResult): accepts a report once */
  void (*record_report)   (GgA2gStore *self, const char *client_id, const char *decision_id,
                           const char *entity, const char *outcome, gboolean has_reward, double reward,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  /* pointer (GPtrArray of GgA2gRecord*): the entity's latest decisions, newest first */
  void (*record_recent)   (GgA2gStore *self, const char *client_id, const char *entity, guint max,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);

  /* pointer (GBytes*): the stored answer, or NULL when the caller now owns
   * the request_id (and must finish it); waits while another holds it */
  void (*replay_claim)    (GgA2gStore *self, const char *client_id, const char *request_id,
                           gint64 ttl_s,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  /* boolean: stores the answer (NULL: gives the claim up) */
  void (*replay_finish)   (GgA2gStore *self, const char *client_id, const char *request_id,
                           GBytes *answer,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);

  /* int: entries kept (new entities beyond @max_tracked are not) */
  void (*telemetry_put)   (GgA2gStore *self, const char *client_id, GPtrArray *entries,
                           guint max_tracked,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  /* pointer (JsonObject*, NULL without telemetry): nearby, members, population */
  void (*situation)       (GgA2gStore *self, const char *client_id, const char *entity,
                           double radius,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);

  /* boolean: TRUE when @jti (a join token's id, scoped by the caller) was
   * not seen yet: it is then kept until @expires_unix_s (wall clock, the
   * token's exp) and refused after that (a shared store: SET NX EX). */
  void (*jti_claim)       (GgA2gStore *self, const char *jti, gint64 expires_unix_s,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);

  /* int: 0 when @client_id may open (or renew) a session of the player
   * @sub (a join token's) of @game: fewer than @max (at least 1) of the
   * player's sessions live, or @client_id is one of them already. It then
   * counts for @sub while its session lives (sessions live by use), and
   * for GG_A2G_SUB_CLAIM_PENDING_S (at most @ttl_s, the session TTL)
   * before the session is opened: a session opened (or renewed) after the
   * claim ends after that, so an ended session never counts. Else the
   * milliseconds until one of the player's sessions could end (the
   * soonest, if unused from now on). A claim drops the player's
   * client_ids whose session ended, or which another player's claim took
   * since; an idle player's claims are kept no longer than its sessions.
   * GG_A2G_SUB_CLAIM_OTHER_PLAYER when @client_id's session (live, or
   * claimed and being opened) is another player's: a join token never
   * takes over someone else's session. */
  void (*sub_session_claim) (GgA2gStore *self, const char *game, const char *sub, const char *client_id,
                             guint max, gint64 ttl_s,
                             GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  /* pointer (GPtrArray of GgA2gCacheEntry*, from gg_a2g_cache_hits_new()):
   * what cache_get() answers for each of @keys, in their order (NULL
   * elements: misses) */
  void (*cache_get_many)  (GgA2gStore *self, const char * const *keys, guint n_keys,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  /* boolean (FALSE: no such session): keeps each of @records
   * (GgA2gRecord*), in their order, for reports and memory while the
   * session lives */
  void (*record_put_many) (GgA2gStore *self, const char *client_id, GPtrArray *records,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
};

/* How long a sub_session_claim() counts before its session is opened. */
#define GG_A2G_SUB_CLAIM_PENDING_S 10
/* sub_session_claim(): the client_id is another player's. */
#define GG_A2G_SUB_CLAIM_OTHER_PLAYER (-1)

#define GG_A2G_STORE_OP(name, ...) \
  void gg_a2g_store_##name##_async (GgA2gStore *self, __VA_ARGS__ GCancellable *cancellable, \
                                    GAsyncReadyCallback callback, gpointer user_data)

GG_A2G_STORE_OP (manifest_put, const char *hash, const char *canonical,);
GG_A2G_STORE_OP (manifest_get, const char *hash,);
GG_A2G_STORE_OP (session_open, const char *client_id, const char *game, const char *manifest_hash,
                 gint64 ttl_s, gint64 grace_s,);
GG_A2G_STORE_OP (session_lookup, const char *client_id, const char *token,);
GG_A2G_STORE_OP (session_set_context, const char *client_id, GgA2gContext *context,);
GG_A2G_STORE_OP (session_count,);
GG_A2G_STORE_OP (cache_get, const char *key,);
GG_A2G_STORE_OP (cache_put, GgA2gCacheEntry *entry,);
GG_A2G_STORE_OP (cache_list, const char *manifest_hash,);
GG_A2G_STORE_OP (rate_take, const char *bucket, double rate, double burst,);
GG_A2G_STORE_OP (budget_reserve, const GgA2gBudgetLimit *limits, guint n_limits, gint64 amount,);
GG_A2G_STORE_OP (budget_settle, gint64 reservation, gint64 used,);
GG_A2G_STORE_OP (budget_list, const char *prefix,);
GG_A2G_STORE_OP (counters_add, const GgA2gCounter *deltas, guint n_deltas,);
GG_A2G_STORE_OP (record_report, const char *client_id, const char *decision_id, const char *entity,
                 const char *outcome, gboolean has_reward, double reward,);
GG_A2G_STORE_OP (record_recent, const char *client_id, const char *entity, guint max,);
GG_A2G_STORE_OP (replay_claim, const char *client_id, const char *request_id, gint64 ttl_s,);
GG_A2G_STORE_OP (replay_finish, const char *client_id, const char *request_id, GBytes *answer,);
GG_A2G_STORE_OP (telemetry_put, const char *client_id, GPtrArray *entries, guint max_tracked,);
GG_A2G_STORE_OP (jti_claim, const char *jti, gint64 expires_unix_s,);
GG_A2G_STORE_OP (situation, const char *client_id, const char *entity, double radius,);
GG_A2G_STORE_OP (sub_session_claim, const char *game, const char *sub, const char *client_id, guint max,
                 gint64 ttl_s,);
GG_A2G_STORE_OP (cache_get_many, const char * const *keys, guint n_keys,);
GG_A2G_STORE_OP (record_put_many, const char *client_id, GPtrArray *records,);

/* @n_keys misses, for cache_get_many() to fill. */
GPtrArray *gg_a2g_cache_hits_new (guint n_keys);

/* Finishing: the result kind each operation documents above. */
gpointer gg_a2g_store_finish_pointer (GgA2gStore *self, GAsyncResult *result, GError **error);
gboolean gg_a2g_store_finish_boolean (GgA2gStore *self, GAsyncResult *result, GError **error);
gssize   gg_a2g_store_finish_int     (GgA2gStore *self, GAsyncResult *result, GError **error);

G_END_DECLS
