/* gg-a2g-store.h: the one interface behind which the a2g plugin keeps its
 * state, cut by topic as GIO's GSettingsBackend is by its operations:
 *
 *   manifests               manifest_lookup, manifest_put, manifest_get
 *   sessions and tokens     session_open, session_lookup, session_set_context, session_count
 *   per-player sessions     player_claim (client profile: a join token's sub)
 *   join-token ids          jti_claim
 *   cache                   cache_get, cache_get_many, cache_put, cache_list
 *   limits and budgets      rate_take, budget_reserve, budget_settle, budget_list
 *   records and replays     record_put_many, record_report, record_recent, replay_claim, replay_finish
 *   telemetry               telemetry_put, telemetry_situation
 *   counters                counters_add
 *
 * Two backends implement it, one file per topic each: the store of one
 * process (gg-a2g-process-*.c) and the store replicas share on Redis
 * (gg-a2g-redis-*.c). tests/a2g/test-a2g-store.c holds both to the rules
 * each operation's function documents (gg-a2g-store.c and
 * gg-a2g-store-state.c).
 *
 * - Every operation but manifest_lookup is asynchronous: a backend
 *   completes it through a GTask whose source object is the store, with
 *   what the operation's typed _finish() reads. The process store
 *   completes them on the next main-loop iteration.
 * - Every operation that must be atomic across replicas is ONE call (one
 *   script or transaction in a shared backend): opening or renewing a
 *   session, looking it up with its token (renewing its idle expiry),
 *   claiming a player's session, a join token's id or a request_id,
 *   taking from a rate bucket, reserving a budget, settling it, accepting
 *   a report once.
 * - A decide request's entities reach the store together: their cache
 *   entries in one read (cache_get_many), their records in one write
 *   (record_put_many), so 16 entities cost one round trip per step.
 * - Values cross as plain data that serialises as it is
 *   (gg-a2g-store-data.h); a manifest is kept as its canonical JSON and
 *   handed out parsed, a session's context as its JSON `state`.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "gg-a2g-store-data.h"

G_BEGIN_DECLS

/* The decisions record_recent() finds per entity: the latest this many. */
#define GG_A2G_STORE_RECENT_PER_ENTITY 16
/* How long a player_claim() counts before its session is opened. */
#define GG_A2G_PLAYER_CLAIM_PENDING_S 10
/* player_claim_finish(): the client_id is another player's. */
#define GG_A2G_PLAYER_CLAIM_OTHER_PLAYER (-2)

/* ---- the interface --------------------------------------------------------- */

#define GG_A2G_TYPE_STORE (gg_a2g_store_get_type ())
G_DECLARE_INTERFACE (GgA2gStore, gg_a2g_store, GG, A2G_STORE, GObject)

/* Each operation's rules are those of its gg_a2g_store_*() function. */
struct _GgA2gStoreInterface {
  GTypeInterface g_iface;

  /* manifests */
  GgA2gManifest *(*manifest_lookup) (GgA2gStore *self, const char *hash);
  void (*manifest_put)        (GgA2gStore *self, GgA2gManifest *manifest,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  void (*manifest_get)        (GgA2gStore *self, const char *hash,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);

  /* sessions and tokens */
  void (*session_open)        (GgA2gStore *self, const char *client_id, const char *game,
                               GgA2gManifest *manifest, gint64 ttl_s, gint64 grace_s,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  void (*session_lookup)      (GgA2gStore *self, const char *client_id, const char *token,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  void (*session_set_context) (GgA2gStore *self, const char *client_id, GgA2gContext *context,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  void (*session_count)       (GgA2gStore *self,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);

  /* per-player sessions */
  void (*player_claim)        (GgA2gStore *self, const char *game, const char *sub, const char *client_id,
                               guint max, gint64 ttl_s,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);

  /* join-token ids */
  void (*jti_claim)           (GgA2gStore *self, const char *jti, gint64 expires_unix_s,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);

  /* cache */
  void (*cache_get)           (GgA2gStore *self, const char *key,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  void (*cache_get_many)      (GgA2gStore *self, const char * const *keys, guint n_keys,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  void (*cache_put)           (GgA2gStore *self, GgA2gCacheEntry *entry,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  void (*cache_list)          (GgA2gStore *self, const char *manifest_hash,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);

  /* limits and budgets */
  void (*rate_take)           (GgA2gStore *self, const char *bucket, double rate, double burst,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  void (*budget_reserve)      (GgA2gStore *self, const GgA2gBudgetLimit *limits, guint n_limits, gint64 amount,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  void (*budget_settle)       (GgA2gStore *self, gint64 reservation, gint64 used,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  void (*budget_list)         (GgA2gStore *self, const char *prefix,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);

  /* records and replays */
  void (*record_put_many)     (GgA2gStore *self, const char *client_id, GPtrArray *records,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  void (*record_report)       (GgA2gStore *self, const char *client_id, const char *decision_id,
                               const char *entity, const char *outcome, gboolean has_reward, double reward,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  void (*record_recent)       (GgA2gStore *self, const char *client_id, const char *entity, guint max,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  void (*replay_claim)        (GgA2gStore *self, const char *client_id, const char *request_id, gint64 ttl_s,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  void (*replay_finish)       (GgA2gStore *self, const char *client_id, const char *request_id, GBytes *answer,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);

  /* telemetry */
  void (*telemetry_put)       (GgA2gStore *self, const char *client_id, GPtrArray *entries, guint max_tracked,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
  void (*telemetry_situation) (GgA2gStore *self, const char *client_id, const char *entity, double radius,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);

  /* counters */
  void (*counters_add)        (GgA2gStore *self, const GgA2gCounter *deltas, guint n_deltas,
                               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
};

/* ---- manifests ---------------------------------------------------------------- */

GgA2gManifest   *gg_a2g_store_manifest_lookup       (GgA2gStore          *self,
                                                     const char          *hash);
void             gg_a2g_store_manifest_put_async    (GgA2gStore          *self,
                                                     GgA2gManifest       *manifest,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
gboolean         gg_a2g_store_manifest_put_finish   (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);
void             gg_a2g_store_manifest_get_async    (GgA2gStore          *self,
                                                     const char          *hash,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
GgA2gManifest   *gg_a2g_store_manifest_get_finish   (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);

/* ---- sessions and tokens ------------------------------------------------------ */

void             gg_a2g_store_session_open_async    (GgA2gStore          *self,
                                                     const char          *client_id,
                                                     const char          *game,
                                                     GgA2gManifest       *manifest,
                                                     gint64               ttl_s,
                                                     gint64               grace_s,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
GgA2gSession    *gg_a2g_store_session_open_finish   (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);
void             gg_a2g_store_session_lookup_async  (GgA2gStore          *self,
                                                     const char          *client_id,
                                                     const char          *token,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
GgA2gSession    *gg_a2g_store_session_lookup_finish (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);
void             gg_a2g_store_session_set_context_async  (GgA2gStore          *self,
                                                          const char          *client_id,
                                                          GgA2gContext        *context,
                                                          GCancellable        *cancellable,
                                                          GAsyncReadyCallback  callback,
                                                          gpointer             user_data);
gboolean         gg_a2g_store_session_set_context_finish (GgA2gStore    *self,
                                                          GAsyncResult  *result,
                                                          GError       **error);
void             gg_a2g_store_session_count_async   (GgA2gStore          *self,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
gint64           gg_a2g_store_session_count_finish  (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);

/* ---- per-player sessions ------------------------------------------------------ */

void             gg_a2g_store_player_claim_async    (GgA2gStore          *self,
                                                     const char          *game,
                                                     const char          *sub,
                                                     const char          *client_id,
                                                     guint                max,
                                                     gint64               ttl_s,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
gint64           gg_a2g_store_player_claim_finish   (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);

/* ---- join-token ids ----------------------------------------------------------- */

void             gg_a2g_store_jti_claim_async       (GgA2gStore          *self,
                                                     const char          *jti,
                                                     gint64               expires_unix_s,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
gboolean         gg_a2g_store_jti_claim_finish      (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);

/* ---- cache -------------------------------------------------------------------- */

void             gg_a2g_store_cache_get_async       (GgA2gStore          *self,
                                                     const char          *key,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
GgA2gCacheEntry *gg_a2g_store_cache_get_finish      (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);
void             gg_a2g_store_cache_get_many_async  (GgA2gStore          *self,
                                                     const char * const  *keys,
                                                     guint                n_keys,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
GPtrArray       *gg_a2g_store_cache_get_many_finish (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);
void             gg_a2g_store_cache_put_async       (GgA2gStore          *self,
                                                     GgA2gCacheEntry     *entry,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
gboolean         gg_a2g_store_cache_put_finish      (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);
void             gg_a2g_store_cache_list_async      (GgA2gStore          *self,
                                                     const char          *manifest_hash,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
GPtrArray       *gg_a2g_store_cache_list_finish     (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);

/* ---- limits and budgets ------------------------------------------------------- */

void             gg_a2g_store_rate_take_async       (GgA2gStore          *self,
                                                     const char          *bucket,
                                                     double               rate,
                                                     double               burst,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
gint64           gg_a2g_store_rate_take_finish      (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);
void             gg_a2g_store_budget_reserve_async  (GgA2gStore             *self,
                                                     const GgA2gBudgetLimit *limits,
                                                     guint                   n_limits,
                                                     gint64                  amount,
                                                     GCancellable           *cancellable,
                                                     GAsyncReadyCallback     callback,
                                                     gpointer                user_data);
gint64           gg_a2g_store_budget_reserve_finish (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);
void             gg_a2g_store_budget_settle_async   (GgA2gStore          *self,
                                                     gint64               reservation,
                                                     gint64               used,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
gboolean         gg_a2g_store_budget_settle_finish  (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);
void             gg_a2g_store_budget_list_async     (GgA2gStore          *self,
                                                     const char          *prefix,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
JsonArray       *gg_a2g_store_budget_list_finish    (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);

/* ---- records and replays ------------------------------------------------------ */

void             gg_a2g_store_record_put_many_async (GgA2gStore          *self,
                                                     const char          *client_id,
                                                     GPtrArray           *records,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
gboolean         gg_a2g_store_record_put_many_finish (GgA2gStore         *self,
                                                      GAsyncResult       *result,
                                                      GError            **error);
void             gg_a2g_store_record_report_async   (GgA2gStore          *self,
                                                     const char          *client_id,
                                                     const char          *decision_id,
                                                     const char          *entity,
                                                     const char          *outcome,
                                                     gboolean             has_reward,
                                                     double               reward,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
GgA2gReportResult gg_a2g_store_record_report_finish (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);
void             gg_a2g_store_record_recent_async   (GgA2gStore          *self,
                                                     const char          *client_id,
                                                     const char          *entity,
                                                     guint                max,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
GPtrArray       *gg_a2g_store_record_recent_finish  (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);
void             gg_a2g_store_replay_claim_async    (GgA2gStore          *self,
                                                     const char          *client_id,
                                                     const char          *request_id,
                                                     gint64               ttl_s,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
GBytes          *gg_a2g_store_replay_claim_finish   (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);
void             gg_a2g_store_replay_finish_async   (GgA2gStore          *self,
                                                     const char          *client_id,
                                                     const char          *request_id,
                                                     GBytes              *answer,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
gboolean         gg_a2g_store_replay_finish_finish  (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);

/* ---- telemetry ---------------------------------------------------------------- */

void             gg_a2g_store_telemetry_put_async   (GgA2gStore          *self,
                                                     const char          *client_id,
                                                     GPtrArray           *entries,
                                                     guint                max_tracked,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
gint64           gg_a2g_store_telemetry_put_finish  (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);
void             gg_a2g_store_telemetry_situation_async  (GgA2gStore          *self,
                                                          const char          *client_id,
                                                          const char          *entity,
                                                          double               radius,
                                                          GCancellable        *cancellable,
                                                          GAsyncReadyCallback  callback,
                                                          gpointer             user_data);
JsonObject      *gg_a2g_store_telemetry_situation_finish (GgA2gStore    *self,
                                                          GAsyncResult  *result,
                                                          GError       **error);

/* ---- counters ----------------------------------------------------------------- */

void             gg_a2g_store_counters_add_async    (GgA2gStore          *self,
                                                     const GgA2gCounter  *deltas,
                                                     guint                n_deltas,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
JsonObject      *gg_a2g_store_counters_add_finish   (GgA2gStore          *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);

G_END_DECLS
