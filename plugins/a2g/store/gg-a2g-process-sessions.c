/* gg-a2g-process-sessions.c: the process store's sessions and their
 * tokens. A session lives its TTL from its last use; a renewal issues a
 * new token and keeps the previous one for the grace period. The table
 * of sessions is also where the per-session topics (players, records and
 * replays, telemetry) find a session: _gg_a2g_process_live_session().
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <gamegate.h>

#include "gg-a2g-process-private.h"

static void
wipe (char **secret)
{
  if (*secret != NULL)
    memset (*secret, 0, strlen (*secret));
  g_clear_pointer (secret, g_free);
}

static void
session_free (GgA2gProcessSession *session)
{
  gg_a2g_session_unref (session->snapshot);
  wipe (&session->previous_token);
  g_hash_table_unref (session->recent);
  g_queue_clear (&session->record_order);
  g_hash_table_unref (session->records);
  g_hash_table_unref (session->telemetry);
  g_clear_pointer (&session->replays, g_hash_table_unref);
  g_free (session);
}

static GgA2gProcessSession *
session_new (void)
{
  GgA2gProcessSession *session = g_new0 (GgA2gProcessSession, 1);

  session->records = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) gg_a2g_record_unref);
  session->recent = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_queue_free);
  session->telemetry = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) gg_a2g_telemetry_free);
  return session;
}

/** _gg_a2g_process_session_left_us: Returns: how long @session lives from @now if unused (<= 0: ended) */
gint64
_gg_a2g_process_session_left_us (GgA2gProcessSession *session,
                                 gint64               now)
{
  return session->last_used_us + session->snapshot->ttl_s * G_USEC_PER_SEC - now;
}

/**
 * _gg_a2g_process_live_session:
 * @self: the store
 * @client_id: a client
 *
 * An ended session is freed here, with all it holds.
 *
 * Returns: (transfer none) (nullable): @client_id's live session
 */
GgA2gProcessSession *
_gg_a2g_process_live_session (GgA2gProcessStore *self,
                              const char        *client_id)
{
  GgA2gProcessSession *session = g_hash_table_lookup (self->sessions, client_id);

  if (session != NULL && _gg_a2g_process_session_left_us (session, g_get_monotonic_time ()) <= 0)
    {
      g_hash_table_remove (self->sessions, client_id);
      return NULL;
    }
  return session;
}

/* A snapshot with a new token: the first of a session, or its renewal. */
static GgA2gSession *
snapshot_new (const char    *client_id,
              const char    *game,
              GgA2gManifest *manifest,
              gint64         ttl_s,
              GgA2gSession  *previous)
{
  /* 128 random bits (getrandom). */
  g_autofree char *hex = gg_secure_token_hex (16, NULL);
  g_autofree char *token = g_strconcat ("s_", hex, NULL);
  g_autofree char *id = previous != NULL ? g_strdup (previous->id) : gg_secure_token_hex (8, NULL);
  GgA2gContext *context = NULL;
  GgA2gSession *session;

  /* A renewal for the same manifest keeps the context. */
  if (previous != NULL && previous->context != NULL && g_strcmp0 (previous->manifest_hash, manifest->hash) == 0)
    context = gg_a2g_context_ref (previous->context);
  session = gg_a2g_session_new (client_id, id, game, manifest, manifest->hash, token, ttl_s, context);
  wipe (&hex);
  wipe (&token);
  return session;
}

static void
session_open (GgA2gStore          *store,
              const char          *client_id,
              const char          *game,
              GgA2gManifest       *manifest,
              gint64               ttl_s,
              gint64               grace_s,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  GgA2gProcessSession *session = _gg_a2g_process_live_session (self, client_id);
  gint64 now = g_get_monotonic_time ();

  if (session == NULL)
    {
      session = session_new ();
      session->snapshot = snapshot_new (client_id, game, manifest, ttl_s, NULL);
      g_hash_table_insert (self->sessions, g_strdup (client_id), session);
    }
  else
    {
      GgA2gSession *renewed = snapshot_new (client_id, game, manifest, ttl_s, session->snapshot);

      wipe (&session->previous_token);
      session->previous_token = g_strdup (session->snapshot->token);
      session->previous_until_us = now + grace_s * G_USEC_PER_SEC;
      gg_a2g_session_unref (session->snapshot);
      session->snapshot = renewed;
    }
  session->last_used_us = now;
  RETURN_POINTER (gg_a2g_session_ref (session->snapshot), gg_a2g_session_unref);
}

static void
session_lookup (GgA2gStore          *store,
                const char          *client_id,
                const char          *token,
                GCancellable        *cancellable,
                GAsyncReadyCallback  callback,
                gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  GgA2gProcessSession *session = _gg_a2g_process_live_session (self, client_id);
  gint64 now = g_get_monotonic_time ();
  gboolean ok;

  if (session == NULL)
    {
      RETURN_ERROR (GG_A2G_ERROR_UNKNOWN_SESSION, "Unknown session: open one with /v1/session.");
      return;
    }
  ok = token != NULL &&
       (gg_secure_equal (token, session->snapshot->token) ||
        (session->previous_token != NULL && session->previous_until_us > now &&
         gg_secure_equal (token, session->previous_token)));
  if (!ok)
    {
      RETURN_ERROR (GG_A2G_ERROR_UNAUTHORIZED, "Missing, invalid or expired session token.");
      return;
    }
  session->last_used_us = now;
  RETURN_POINTER (gg_a2g_session_ref (session->snapshot), gg_a2g_session_unref);
}

static void
session_set_context (GgA2gStore          *store,
                     const char          *client_id,
                     GgA2gContext        *context,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  GgA2gProcessSession *session = _gg_a2g_process_live_session (self, client_id);
  GgA2gSession *old;

  if (session == NULL)
    {
      RETURN_ERROR (GG_A2G_ERROR_UNKNOWN_SESSION, "Unknown session: open one with /v1/session.");
      return;
    }
  /* Snapshots are immutable: a new one with the new context. */
  old = session->snapshot;
  session->snapshot = gg_a2g_session_new (old->client_id, old->id, old->game, old->manifest, old->manifest_hash,
                                          old->token, old->ttl_s, gg_a2g_context_ref (context));
  gg_a2g_session_unref (old);
  RETURN_BOOLEAN (TRUE);
}

static void
session_count (GgA2gStore          *store,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);

  _gg_a2g_process_sessions_sweep (self);
  RETURN_INT (g_hash_table_size (self->sessions));
}

/** _gg_a2g_process_sessions_sweep: frees ended sessions, forgets previous tokens past their grace */
void
_gg_a2g_process_sessions_sweep (GgA2gProcessStore *self)
{
  gint64 now = g_get_monotonic_time ();
  GHashTableIter iter;
  GgA2gProcessSession *session;

  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &session))
    if (_gg_a2g_process_session_left_us (session, now) <= 0)
      g_hash_table_iter_remove (&iter);
    else if (session->previous_token != NULL && session->previous_until_us <= now)
      wipe (&session->previous_token);
}

/** _gg_a2g_process_sessions_init: @self: the store, being made */
void
_gg_a2g_process_sessions_init (GgA2gProcessStore *self)
{
  self->sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) session_free);
}

/** _gg_a2g_process_sessions_iface_init: @iface: the store interface to fill */
void
_gg_a2g_process_sessions_iface_init (GgA2gStoreInterface *iface)
{
  iface->session_open = session_open;
  iface->session_lookup = session_lookup;
  iface->session_set_context = session_set_context;
  iface->session_count = session_count;
}
