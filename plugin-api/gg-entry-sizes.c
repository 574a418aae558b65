/* gg-entry-sizes.c: the compact JSON sizes of a model's transcript entries,
 * remembered from one turn to the next.
 *
 * A session hands every turn its whole history, and trimming needs the size
 * of each entry; measuring them all again made a turn's cost grow with the
 * length of the session. The entries are shared, not copied, from turn to
 * turn (and must not be modified, see gg_agent_turn_new()), so a size is
 * remembered per entry object. The memory lives on the model (one per
 * session or NPC) and holds only the entries of the model's latest turn:
 * every lookup round builds a fresh table from the previous one, so entries
 * a session dropped are released at its next turn, with no cache size to
 * tune.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-agent-turn-private.h"

typedef struct {
  gsize bytes;
  guint members;   /* cheap guard against an entry modified in place */
} EntrySize;

static GQuark
entry_sizes_quark (void)
{
  static GQuark quark;

  if (quark == 0)
    quark = g_quark_from_static_string ("gg-agent-entry-sizes");
  return quark;
}

static GHashTable *
entry_sizes_table_new (void)
{
  /* Keys hold a reference: a remembered address cannot be reused by
   * another object while it is in the table. */
  return g_hash_table_new_full (g_direct_hash, g_direct_equal,
                                (GDestroyNotify) json_object_unref, g_free);
}

/**
 * _gg_agent_entry_sizes:
 * @owner: the object the sizes are remembered on (the turn's model)
 * @entries: (element-type JsonObject): transcript entries
 * @sizes: (element-type gsize): receives the compact JSON size of each entry,
 *   appended in order
 *
 * Same figures as _gg_agent_entry_bytes() on each entry; entries measured
 * for @owner's previous call are not measured again.
 */
void
_gg_agent_entry_sizes (GObject   *owner,
                       GPtrArray *entries,
                       GArray    *sizes)
{
  GHashTable *previous;
  GHashTable *current;

  /* A turn without history (a one-off on a session's model) keeps what the
   * session's turns remembered. */
  if (entries->len == 0)
    return;
  previous = g_object_get_qdata (owner, entry_sizes_quark ());
  current = entry_sizes_table_new ();

  for (guint i = 0; i < entries->len; i++)
    {
      JsonObject *entry = g_ptr_array_index (entries, i);
      guint members = json_object_get_size (entry);
      EntrySize *size = g_hash_table_lookup (current, entry);

      if (size == NULL)
        {
          gpointer key = NULL;
          gpointer value = NULL;

          if (previous != NULL && g_hash_table_steal_extended (previous, entry, &key, &value))
            {
              size = value;
              if (size->members != members)
                {
                  size->bytes = _gg_agent_entry_bytes (entry);
                  size->members = members;
                }
            }
          else
            {
              key = json_object_ref (entry);
              size = g_new (EntrySize, 1);
              size->bytes = _gg_agent_entry_bytes (entry);
              size->members = members;
            }
          g_hash_table_insert (current, key, size);
        }
      g_array_append_val (sizes, size->bytes);
    }
  /* Frees the previous table with what it still holds. */
  g_object_set_qdata_full (owner, entry_sizes_quark (), current,
                           (GDestroyNotify) g_hash_table_unref);
}
