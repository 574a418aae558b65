/* gg-a2g-process-counters.c: the process store's counters of /v1/usage:
 * the store keeps the totals itself, so that the local profile counts
 * through the same operation as replicas sharing Redis (where the totals
 * are every replica's).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-process-private.h"

static void
counters_add (GgA2gStore          *store,
              const GgA2gCounter  *deltas,
              guint                n_deltas,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  JsonObject *totals = json_object_new ();
  GHashTableIter iter;
  const char *name;
  gint64 *value;

  for (guint i = 0; i < n_deltas; i++)
    {
      value = g_hash_table_lookup (self->counters, deltas[i].name);
      if (value == NULL)
        {
          value = g_new0 (gint64, 1);
          g_hash_table_insert (self->counters, g_strdup (deltas[i].name), value);
        }
      *value += deltas[i].value;
    }
  g_hash_table_iter_init (&iter, self->counters);
  while (g_hash_table_iter_next (&iter, (gpointer *) &name, (gpointer *) &value))
    json_object_set_int_member (totals, name, *value);
  RETURN_POINTER (totals, json_object_unref);
}

/** _gg_a2g_process_counters_init: @self: the store, being made */
void
_gg_a2g_process_counters_init (GgA2gProcessStore *self)
{
  self->counters = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/** _gg_a2g_process_counters_iface_init: @iface: the store interface to fill */
void
_gg_a2g_process_counters_iface_init (GgA2gStoreInterface *iface)
{
  iface->counters_add = counters_add;
}
