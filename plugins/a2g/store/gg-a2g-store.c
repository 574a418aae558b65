/* gg-a2g-store.c: the store interface and its operations on sessions and
 * who may open them (manifests, sessions and tokens, per-player sessions,
 * join-token ids), one typed _finish each; the operations on what
 * sessions and games accumulate are in gg-a2g-store-state.c. See
 * gg-a2g-store.h for the topics; each operation's rules are in its
 * documentation, which tests/a2g/test-a2g-store.c checks against both
 * backends.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

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
