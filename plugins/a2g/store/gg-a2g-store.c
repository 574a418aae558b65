/* gg-a2g-store.c: the store interface's operations, one typed _finish
 * each, and the plain data that crosses it (see gg-a2g-store.h for the
 * topics; each operation's rules are in its documentation here, which
 * tests/a2g/test-a2g-store.c checks against both backends).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-store.h"

G_DEFINE_INTERFACE (GgA2gStore, gg_a2g_store, G_TYPE_OBJECT)

static void
gg_a2g_store_default_init (GgA2gStoreInterface *iface)
{
}

/* ---- manifests --------------------------------------------------------------- */

/**
 * gg_a2g_store_manifest_lookup:
 * @self: a store
 * @hash: (nullable): a manifest hash
 *
 * The one operation without a round trip: what this process knows, a
 * manifest put here or read here (by manifest_get() or with a session).
 *
 * Returns: (transfer none) (nullable): the manifest
 */
GgA2gManifest *
gg_a2g_store_manifest_lookup (GgA2gStore *self,
                              const char *hash)
{
  if (hash == NULL)
    return NULL;
  return GG_A2G_STORE_GET_IFACE (self)->manifest_lookup (self, hash);
}

/**
 * gg_a2g_store_manifest_put_async:
 *
 * Keeps @manifest (its canonical JSON) under its hash, content-addressed: a
 * manifest kept already stays as it is. From now on manifest_lookup()
 * finds it here.
 */
void
gg_a2g_store_manifest_put_async (GgA2gStore          *self,
                                 GgA2gManifest       *manifest,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->manifest_put (self, manifest, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_manifest_put_finish:
 * Returns: %TRUE once kept
 */
gboolean
gg_a2g_store_manifest_put_finish (GgA2gStore    *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * gg_a2g_store_manifest_get_async:
 *
 * Reads the manifest kept under @hash: the one known here (manifest_lookup()),
 * else the store's (one another replica kept), parsed and known here from now on.
 */
void
gg_a2g_store_manifest_get_async (GgA2gStore          *self,
                                 const char          *hash,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->manifest_get (self, hash, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_manifest_get_finish:
 * Returns: (transfer full) (nullable): the manifest, %NULL when the store
 *   has none (or none that parses)
 */
GgA2gManifest *
gg_a2g_store_manifest_get_finish (GgA2gStore    *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- sessions and tokens ----------------------------------------------------- */

/**
 * gg_a2g_store_session_open_async:
 *
 * Opens a session of @client_id, or renews the live one: a new token; a
 * renewal keeps the session's id, records, telemetry and usage, and its
 * context when @manifest is the same; the previous token stays valid for
 * @grace_s seconds. The session lives @ttl_s from its last use. Its
 * @manifest is one manifest_put() kept (so that other replicas read it).
 */
void
gg_a2g_store_session_open_async (GgA2gStore          *self,
                                 const char          *client_id,
                                 const char          *game,
                                 GgA2gManifest       *manifest,
                                 gint64               ttl_s,
                                 gint64               grace_s,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->session_open (self, client_id, game, manifest, ttl_s, grace_s, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_session_open_finish:
 * Returns: (transfer full): the session
 */
GgA2gSession *
gg_a2g_store_session_open_finish (GgA2gStore    *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * gg_a2g_store_session_lookup_async:
 *
 * Looks @client_id's live session up with one of its tokens (the current
 * one, or the previous one within its grace period), renewing its idle
 * expiry.
 */
void
gg_a2g_store_session_lookup_async (GgA2gStore          *self,
                                   const char          *client_id,
                                   const char          *token,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->session_lookup (self, client_id, token, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_session_lookup_finish:
 * Returns: (transfer full): the session, or %NULL with
 *   %GG_A2G_ERROR_UNKNOWN_SESSION (none live) or
 *   %GG_A2G_ERROR_UNAUTHORIZED (a %NULL or wrong @token)
 */
GgA2gSession *
gg_a2g_store_session_lookup_finish (GgA2gStore    *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * gg_a2g_store_session_set_context_async:
 *
 * Sets the context of @client_id's live session (its `state` is what is
 * kept).
 */
void
gg_a2g_store_session_set_context_async (GgA2gStore          *self,
                                        const char          *client_id,
                                        GgA2gContext        *context,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->session_set_context (self, client_id, context, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_session_set_context_finish:
 * Returns: %TRUE, or %FALSE with %GG_A2G_ERROR_UNKNOWN_SESSION
 */
gboolean
gg_a2g_store_session_set_context_finish (GgA2gStore    *self,
                                         GAsyncResult  *result,
                                         GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * gg_a2g_store_session_count_async:
 *
 * Counts the live sessions (every replica's).
 */
void
gg_a2g_store_session_count_async (GgA2gStore          *self,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->session_count (self, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_session_count_finish:
 * Returns: the count, -1 with @error set
 */
gint64
gg_a2g_store_session_count_finish (GgA2gStore    *self,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), -1);
  return g_task_propagate_int (G_TASK (result), error);
}

/* ---- per-player sessions ----------------------------------------------------- */

/**
 * gg_a2g_store_player_claim_async:
 *
 * Claims one of the sessions the player @sub (a join token's) may have of
 * @game for @client_id: taken when fewer than @max (at least 1) of the
 * player's sessions live, or @client_id is one of them already. The claim
 * then counts for @sub while its session lives (sessions live by use),
 * and for %GG_A2G_PLAYER_CLAIM_PENDING_S (at most @ttl_s, the session TTL)
 * before the session is opened: a session opened (or renewed) after the
 * claim ends after that, so an ended session never counts. A claim drops
 * the player's client_ids whose session ended, or which another player's
 * claim took since; an idle player's claims are kept no longer than its
 * sessions. A join token never takes over someone else's session: a
 * @client_id whose session (live, or claimed and being opened) is another
 * player's is refused.
 */
void
gg_a2g_store_player_claim_async (GgA2gStore          *self,
                                 const char          *game,
                                 const char          *sub,
                                 const char          *client_id,
                                 guint                max,
                                 gint64               ttl_s,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->player_claim (self, game, sub, client_id, max, ttl_s, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_player_claim_finish:
 * Returns: 0 when taken; else the milliseconds until one of the player's
 *   sessions could end (the soonest, if unused from now on), or
 *   %GG_A2G_PLAYER_CLAIM_OTHER_PLAYER; -1 with @error set
 */
gint64
gg_a2g_store_player_claim_finish (GgA2gStore    *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), -1);
  return g_task_propagate_int (G_TASK (result), error);
}

/* ---- join-token ids ---------------------------------------------------------- */

/**
 * gg_a2g_store_jti_claim_async:
 *
 * Claims @jti (a join token's id, scoped by the caller) once: it is then
 * kept until @expires_unix_s (wall clock, the token's exp) and refused
 * until then.
 */
void
gg_a2g_store_jti_claim_async (GgA2gStore          *self,
                              const char          *jti,
                              gint64               expires_unix_s,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->jti_claim (self, jti, expires_unix_s, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_jti_claim_finish:
 * Returns: %TRUE when @jti was not seen yet, %FALSE when it was (or with
 *   @error set)
 */
gboolean
gg_a2g_store_jti_claim_finish (GgA2gStore    *self,
                               GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- cache ------------------------------------------------------------------- */

/**
 * gg_a2g_store_cache_get_async:
 *
 * Reads the live cache entry of @key.
 */
void
gg_a2g_store_cache_get_async (GgA2gStore          *self,
                              const char          *key,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->cache_get (self, key, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_cache_get_finish:
 * Returns: (transfer full) (nullable): the entry, %NULL for a miss
 */
GgA2gCacheEntry *
gg_a2g_store_cache_get_finish (GgA2gStore    *self,
                               GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * gg_a2g_store_cache_get_many_async:
 *
 * Reads what cache_get() answers for each of @keys, at once.
 */
void
gg_a2g_store_cache_get_many_async (GgA2gStore          *self,
                                   const char * const  *keys,
                                   guint                n_keys,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->cache_get_many (self, keys, n_keys, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_cache_get_many_finish:
 * Returns: (transfer full) (element-type GgA2gCacheEntry): @n_keys
 *   elements from gg_a2g_cache_hits_new(), in the order of @keys (%NULL
 *   elements: misses)
 */
GPtrArray *
gg_a2g_store_cache_get_many_finish (GgA2gStore    *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * gg_a2g_store_cache_put_async:
 *
 * Keeps @entry under its key for the cache TTL (its `expires_us` is set);
 * the least recently used entries beyond the store's bound go.
 */
void
gg_a2g_store_cache_put_async (GgA2gStore          *self,
                              GgA2gCacheEntry     *entry,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->cache_put (self, entry, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_cache_put_finish:
 * Returns: %TRUE once kept
 */
gboolean
gg_a2g_store_cache_put_finish (GgA2gStore    *self,
                               GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * gg_a2g_store_cache_list_async:
 *
 * Lists the live game-wide entries (keys "game:…") of @manifest_hash,
 * oldest first.
 */
void
gg_a2g_store_cache_list_async (GgA2gStore          *self,
                               const char          *manifest_hash,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->cache_list (self, manifest_hash, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_cache_list_finish:
 * Returns: (transfer full) (element-type GgA2gCacheEntry): the entries
 */
GPtrArray *
gg_a2g_store_cache_list_finish (GgA2gStore    *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- limits and budgets ------------------------------------------------------ */

/**
 * gg_a2g_store_rate_take_async:
 *
 * Takes one token from the token bucket @bucket, which holds @burst (at
 * least 1) and refills at @rate a second; a @rate of 0 or less is no
 * limit.
 */
void
gg_a2g_store_rate_take_async (GgA2gStore          *self,
                              const char          *bucket,
                              double               rate,
                              double               burst,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->rate_take (self, bucket, rate, burst, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_rate_take_finish:
 * Returns: 0 when taken, else the milliseconds until a token is there;
 *   -1 with @error set
 */
gint64
gg_a2g_store_rate_take_finish (GgA2gStore    *self,
                               GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), -1);
  return g_task_propagate_int (G_TASK (result), error);
}

/**
 * gg_a2g_store_budget_reserve_async:
 *
 * Reserves @amount tokens on every budget of @limits at once, or on none
 * when one of them would go past its limit in its current window.
 */
void
gg_a2g_store_budget_reserve_async (GgA2gStore             *self,
                                   const GgA2gBudgetLimit *limits,
                                   guint                   n_limits,
                                   gint64                  amount,
                                   GCancellable           *cancellable,
                                   GAsyncReadyCallback     callback,
                                   gpointer                user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->budget_reserve (self, limits, n_limits, amount, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_budget_reserve_finish:
 * Returns: a reservation id (> 0), 0 when a budget is spent; -1 with
 *   @error set
 */
gint64
gg_a2g_store_budget_reserve_finish (GgA2gStore    *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), -1);
  return g_task_propagate_int (G_TASK (result), error);
}

/**
 * gg_a2g_store_budget_settle_async:
 *
 * Replaces @reservation by what was really @used, on each of its budgets.
 */
void
gg_a2g_store_budget_settle_async (GgA2gStore          *self,
                                  gint64               reservation,
                                  gint64               used,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->budget_settle (self, reservation, used, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_budget_settle_finish:
 * Returns: %TRUE, %FALSE when there is no such reservation
 */
gboolean
gg_a2g_store_budget_settle_finish (GgA2gStore    *self,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * gg_a2g_store_budget_list_async:
 *
 * Lists the budgets whose scope starts with @prefix, sorted by scope.
 */
void
gg_a2g_store_budget_list_async (GgA2gStore          *self,
                                const char          *prefix,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->budget_list (self, prefix, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_budget_list_finish:
 * Returns: (transfer full): `[{"scope","used","limit","window"}]`
 */
JsonArray *
gg_a2g_store_budget_list_finish (GgA2gStore    *self,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- records and replays ----------------------------------------------------- */

/**
 * gg_a2g_store_record_put_many_async:
 *
 * Keeps each of @records (GgA2gRecord), in their order, for reports and
 * memory while @client_id's session lives.
 */
void
gg_a2g_store_record_put_many_async (GgA2gStore          *self,
                                    const char          *client_id,
                                    GPtrArray           *records,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->record_put_many (self, client_id, records, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_record_put_many_finish:
 * Returns: %TRUE, %FALSE when there is no such session
 */
gboolean
gg_a2g_store_record_put_many_finish (GgA2gStore    *self,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * gg_a2g_store_record_report_async:
 *
 * Accepts the report of @decision_id's @outcome (and @reward) once, for a
 * decision issued to @client_id's session and @entity. A decision of
 * another live session is that session's; one whose session ended is
 * unknown (records go with their session).
 */
void
gg_a2g_store_record_report_async (GgA2gStore          *self,
                                  const char          *client_id,
                                  const char          *decision_id,
                                  const char          *entity,
                                  const char          *outcome,
                                  gboolean             has_reward,
                                  double               reward,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->record_report (self, client_id, decision_id, entity, outcome, has_reward, reward, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_record_report_finish:
 * Returns: what became of the report; %GG_A2G_REPORT_UNKNOWN with @error
 *   set
 */
GgA2gReportResult
gg_a2g_store_record_report_finish (GgA2gStore    *self,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  gssize value;

  g_return_val_if_fail (g_task_is_valid (result, self), GG_A2G_REPORT_UNKNOWN);
  value = g_task_propagate_int (G_TASK (result), error);
  return value < 0 ? GG_A2G_REPORT_UNKNOWN : (GgA2gReportResult) value;
}

/**
 * gg_a2g_store_record_recent_async:
 *
 * Reads @entity's latest decisions in @client_id's session (at most @max,
 * of the %GG_A2G_STORE_RECENT_PER_ENTITY kept per entity).
 */
void
gg_a2g_store_record_recent_async (GgA2gStore          *self,
                                  const char          *client_id,
                                  const char          *entity,
                                  guint                max,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->record_recent (self, client_id, entity, max, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_record_recent_finish:
 * Returns: (transfer full) (element-type GgA2gRecord): the records, newest
 *   first
 */
GPtrArray *
gg_a2g_store_record_recent_finish (GgA2gStore    *self,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * gg_a2g_store_replay_claim_async:
 *
 * Claims @request_id in @client_id's session for @ttl_s: the first claim
 * owns it (and must replay_finish() it); a claim while another holds it
 * waits for its answer; a claim after the answer gets the answer. Replays
 * live in their session: outside a live one every claim owns it, and
 * nothing is kept.
 */
void
gg_a2g_store_replay_claim_async (GgA2gStore          *self,
                                 const char          *client_id,
                                 const char          *request_id,
                                 gint64               ttl_s,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->replay_claim (self, client_id, request_id, ttl_s, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_replay_claim_finish:
 * Returns: (transfer full) (nullable): the stored answer, or %NULL when
 *   the caller now owns @request_id
 */
GBytes *
gg_a2g_store_replay_claim_finish (GgA2gStore    *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * gg_a2g_store_replay_finish_async:
 *
 * Stores @answer for @request_id's claim (for the rest of its time), or
 * with a %NULL @answer gives the claim up: the first waiter owns it then.
 */
void
gg_a2g_store_replay_finish_async (GgA2gStore          *self,
                                  const char          *client_id,
                                  const char          *request_id,
                                  GBytes              *answer,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->replay_finish (self, client_id, request_id, answer, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_replay_finish_finish:
 * Returns: %TRUE, %FALSE when @request_id is not claimed and pending
 */
gboolean
gg_a2g_store_replay_finish_finish (GgA2gStore    *self,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- telemetry --------------------------------------------------------------- */

/**
 * gg_a2g_store_telemetry_put_async:
 *
 * Keeps each of @entries (GgA2gTelemetry) as its entity's latest, in
 * @client_id's session; new entities beyond @max_tracked are not kept.
 */
void
gg_a2g_store_telemetry_put_async (GgA2gStore          *self,
                                  const char          *client_id,
                                  GPtrArray           *entries,
                                  guint                max_tracked,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->telemetry_put (self, client_id, entries, max_tracked, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_telemetry_put_finish:
 * Returns: the entries kept (0 without a session); -1 with @error set
 */
gint64
gg_a2g_store_telemetry_put_finish (GgA2gStore    *self,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), -1);
  return g_task_propagate_int (G_TASK (result), error);
}

/**
 * gg_a2g_store_telemetry_situation_async:
 *
 * Derives @entity's situation context from the session's telemetry: the
 * other entities within @radius, its faction's members, the population
 * (gg_a2g_situation_build()).
 */
void
gg_a2g_store_telemetry_situation_async (GgA2gStore          *self,
                                        const char          *client_id,
                                        const char          *entity,
                                        double               radius,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->telemetry_situation (self, client_id, entity, radius, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_telemetry_situation_finish:
 * Returns: (transfer full) (nullable): the situation context, %NULL
 *   without telemetry
 */
JsonObject *
gg_a2g_store_telemetry_situation_finish (GgA2gStore    *self,
                                         GAsyncResult  *result,
                                         GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- counters ---------------------------------------------------------------- */

/**
 * gg_a2g_store_counters_add_async:
 *
 * Adds @deltas to the service's counters and reads them all back, in one
 * step (a shared store: one script for every replica's).
 */
void
gg_a2g_store_counters_add_async (GgA2gStore          *self,
                                 const GgA2gCounter  *deltas,
                                 guint                n_deltas,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GG_A2G_STORE_GET_IFACE (self)->counters_add (self, deltas, n_deltas, cancellable, callback, user_data);
}

/**
 * gg_a2g_store_counters_add_finish:
 * Returns: (transfer full): name -> the service's total, of every counter
 *   there is
 */
JsonObject *
gg_a2g_store_counters_add_finish (GgA2gStore    *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
