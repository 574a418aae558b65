/* gg-a2g-process-jti.c: the process store's single-use join token ids:
 * each accepted jti is kept until its token's exp (wall clock), so a
 * repeat within its life is refused; the one-second sweep forgets the
 * expired ones.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-process-private.h"

static void
jti_claim (GgA2gStore          *store,
           const char          *jti,
           gint64               expires_unix_s,
           GCancellable        *cancellable,
           GAsyncReadyCallback  callback,
           gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  gint64 *kept = g_hash_table_lookup (self->jtis, jti);
  gint64 now_s = g_get_real_time () / G_USEC_PER_SEC;

  if (kept != NULL && *kept >= now_s)
    {
      RETURN_BOOLEAN (FALSE);
      return;
    }
  kept = g_new (gint64, 1);
  *kept = expires_unix_s;
  g_hash_table_replace (self->jtis, g_strdup (jti), kept);
  RETURN_BOOLEAN (TRUE);
}

/** _gg_a2g_process_jti_sweep: forgets the jtis whose tokens expired */
void
_gg_a2g_process_jti_sweep (GgA2gProcessStore *self)
{
  gint64 now_s = g_get_real_time () / G_USEC_PER_SEC;
  GHashTableIter iter;
  gint64 *expires;

  g_hash_table_iter_init (&iter, self->jtis);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &expires))
    if (*expires < now_s)
      g_hash_table_iter_remove (&iter);
}

/** _gg_a2g_process_jti_init: @self: the store, being made */
void
_gg_a2g_process_jti_init (GgA2gProcessStore *self)
{
  self->jtis = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/** _gg_a2g_process_jti_iface_init: @iface: the store interface to fill */
void
_gg_a2g_process_jti_iface_init (GgA2gStoreInterface *iface)
{
  iface->jti_claim = jti_claim;
}
