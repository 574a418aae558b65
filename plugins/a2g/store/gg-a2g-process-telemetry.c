/* gg-a2g-process-telemetry.c: the process store's telemetry: each
 * session's latest entry per entity (at most `max-tracked-entities`), and
 * the situation context derived from it, within that session only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-process-private.h"
#include "gg-a2g-situation.h"

static void
telemetry_put (GgA2gStore          *store,
               const char          *client_id,
               GPtrArray           *entries,
               guint                max_tracked,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  GgA2gProcessSession *session = _gg_a2g_process_live_session (self, client_id);
  guint kept = 0;

  for (guint i = 0; session != NULL && i < entries->len; i++)
    {
      GgA2gTelemetry *entry = g_ptr_array_index (entries, i);
      GgA2gTelemetry *copy;

      if (!g_hash_table_contains (session->telemetry, entry->entity) &&
          g_hash_table_size (session->telemetry) >= max_tracked)
        continue;
      copy = gg_a2g_telemetry_copy (entry);
      g_hash_table_replace (session->telemetry, copy->entity, copy);
      kept++;
    }
  RETURN_INT (kept);
}

static void
telemetry_situation (GgA2gStore          *store,
                     const char          *client_id,
                     const char          *entity,
                     double               radius,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  GgA2gProcessSession *session = _gg_a2g_process_live_session (self, client_id);
  g_autoptr(GPtrArray) all = NULL;
  GHashTableIter iter;
  GgA2gTelemetry *other;

  if (session == NULL || g_hash_table_size (session->telemetry) == 0)
    {
      RETURN_POINTER (NULL, NULL);
      return;
    }
  all = g_ptr_array_new ();
  g_hash_table_iter_init (&iter, session->telemetry);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &other))
    g_ptr_array_add (all, other);
  RETURN_POINTER (gg_a2g_situation_build (all, entity, radius), json_object_unref);
}

/** _gg_a2g_process_telemetry_iface_init: @iface: the store interface to fill */
void
_gg_a2g_process_telemetry_iface_init (GgA2gStoreInterface *iface)
{
  iface->telemetry_put = telemetry_put;
  iface->telemetry_situation = telemetry_situation;
}
