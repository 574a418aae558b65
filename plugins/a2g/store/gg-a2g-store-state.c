/* gg-a2g-store-state.c: the store interface's operations on what sessions
 * and games accumulate (cache, limits and budgets, records and replays,
 * telemetry, counters), one typed _finish each; the interface itself and
 * its session operations are in gg-a2g-store.c. Each operation's rules
 * are in its documentation, which tests/a2g/test-a2g-store-state.c checks
 * against both backends.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-store.h"

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
