/* gg-a2g-process-players.c: the process store's concurrent sessions per
 * player (a join token's sub): each player's claimed client_ids, each
 * counted while its session lives (by use) or, before the session is
 * opened, for GG_A2G_PLAYER_CLAIM_PENDING_S (at most the session TTL, so that
 * a session that ended is never counted as pending again); a client_id
 * belongs to one player at a time, and while its claim counts no other
 * player may open it. The one-second sweep forgets ended claims and players
 * without any.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-process-private.h"

/* The microseconds @client_id's claim for the player @key still counts, or
 * -1 when it no longer does (its session ended, the pending time passed,
 * or another player claimed the client_id since). */
static gint64
claim_left_us (GgA2gProcessStore *self,
               const char        *key,
               const char        *client_id,
               gint64             pending_until_us,
               gint64             now)
{
  GgA2gProcessSession *session;

  if (g_strcmp0 (g_hash_table_lookup (self->player_of, client_id), key) != 0)
    return -1;
  session = _gg_a2g_process_live_session (self, client_id);
  if (session != NULL)
    return _gg_a2g_process_session_left_us (session, now);
  if (pending_until_us > now)
    return pending_until_us - now;
  return -1;
}

/* Drops the player's ended claims; counts the others but @client_id's. */
static void
prune (GgA2gProcessStore *self,
       const char        *key,
       GHashTable        *claims,
       const char        *client_id,
       guint             *live,
       gint64            *soonest_us,
       gboolean          *mine)
{
  gint64 now = g_get_monotonic_time ();
  GHashTableIter iter;
  const char *member;
  gint64 *pending_until;

  g_hash_table_iter_init (&iter, claims);
  while (g_hash_table_iter_next (&iter, (gpointer *) &member, (gpointer *) &pending_until))
    {
      gint64 left = claim_left_us (self, key, member, *pending_until, now);

      if (left < 0)
        {
          if (g_strcmp0 (g_hash_table_lookup (self->player_of, member), key) == 0)
            g_hash_table_remove (self->player_of, member);
          g_hash_table_iter_remove (&iter);
        }
      else if (client_id != NULL && strcmp (member, client_id) == 0)
        *mine = TRUE;
      else
        {
          (*live)++;
          *soonest_us = MIN (*soonest_us, left);
        }
    }
}

static void
player_claim (GgA2gStore          *store,
              const char          *game,
              const char          *sub,
              const char          *client_id,
              guint                max,
              gint64               ttl_s,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  /* A game id has no '/': "<game>/<sub>" names one player of one game. */
  g_autofree char *key = g_strconcat (game, "/", sub, NULL);
  GHashTable *claims = g_hash_table_lookup (self->players, key);
  const char *owner = g_hash_table_lookup (self->player_of, client_id);
  gint64 soonest_us = G_MAXINT64;
  gint64 *pending_until;
  gboolean mine = FALSE;
  guint live = 0;

  if (owner != NULL && strcmp (owner, key) != 0)
    {
      GHashTable *other = g_hash_table_lookup (self->players, owner);
      gint64 *other_until = other != NULL ? g_hash_table_lookup (other, client_id) : NULL;

      if (other_until != NULL &&
          claim_left_us (self, owner, client_id, *other_until, g_get_monotonic_time ()) >= 0)
        {
          RETURN_INT (GG_A2G_PLAYER_CLAIM_OTHER_PLAYER);
          return;
        }
    }
  if (claims == NULL)
    {
      claims = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      g_hash_table_insert (self->players, g_strdup (key), claims);
    }
  prune (self, key, claims, client_id, &live, &soonest_us, &mine);
  if (!mine && live >= MAX (max, 1))
    {
      RETURN_INT (MAX ((soonest_us + 999) / 1000, 1));
      return;
    }
  /* A client_id another player had leaves that player's count. */
  if (owner != NULL && strcmp (owner, key) != 0)
    {
      GHashTable *other = g_hash_table_lookup (self->players, owner);

      if (other != NULL)
        g_hash_table_remove (other, client_id);
    }
  /* A session opened after this claim ends after the pending time. */
  pending_until = g_new (gint64, 1);
  *pending_until = g_get_monotonic_time () + MIN (GG_A2G_PLAYER_CLAIM_PENDING_S, ttl_s) * G_USEC_PER_SEC;
  g_hash_table_replace (claims, g_strdup (client_id), pending_until);
  g_hash_table_replace (self->player_of, g_strdup (client_id), g_strdup (key));
  RETURN_INT (0);
}

/** _gg_a2g_process_players_sweep: forgets ended claims and players without any */
void
_gg_a2g_process_players_sweep (GgA2gProcessStore *self)
{
  GHashTableIter iter;
  const char *key;
  GHashTable *claims;

  g_hash_table_iter_init (&iter, self->players);
  while (g_hash_table_iter_next (&iter, (gpointer *) &key, (gpointer *) &claims))
    {
      gint64 soonest_us = G_MAXINT64;
      gboolean mine = FALSE;
      guint live = 0;

      prune (self, key, claims, NULL, &live, &soonest_us, &mine);
      if (g_hash_table_size (claims) == 0)
        g_hash_table_iter_remove (&iter);
    }
}

/** _gg_a2g_process_players_init: @self: the store, being made */
void
_gg_a2g_process_players_init (GgA2gProcessStore *self)
{
  self->players = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_hash_table_unref);
  self->player_of = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/** _gg_a2g_process_players_iface_init: @iface: the store interface to fill */
void
_gg_a2g_process_players_iface_init (GgA2gStoreInterface *iface)
{
  iface->player_claim = player_claim;
}
