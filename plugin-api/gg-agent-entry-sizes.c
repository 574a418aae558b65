/* gg-agent-entry-sizes.c: the compact JSON sizes of a model's transcript entries,
 * remembered from one turn to the next.
 *
 * A session hands every turn its whole history, and trimming needs the size
 * of each entry; measuring them all again made a turn's cost grow with the
 * length of the session. The entries are shared, not copied, from turn to
 * turn (and must not be modified, see gg_agent_turn_new()), so a size is
 * remembered per entry object; the latest turn's entries, with theirs, are
 * kept in order too, so that the next turn of the same history, which
 * begins with them, finds them by address in one pass. The memory lives
 * on the model (one per session or NPC) and keeps at most about twice the
 * entries of the model's latest turn (see the sweep below).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-agent-turn-private.h"

typedef struct {
  GHashTable *sizes;  /* JsonObject (referenced) -> EntrySize */
  guint64 pass;       /* counts the lookup rounds */
  GPtrArray *last;    /* JsonObject (referenced): the latest round's entries */
  GArray *last_sizes; /* gsize: theirs */
} EntrySizes;

typedef struct {
  gsize bytes;
  guint64 seen;       /* the last round that asked for the entry */
} EntrySize;

static GQuark
entry_sizes_quark (void)
{
  static GQuark quark;

  if (quark == 0)
    quark = g_quark_from_static_string ("gg-agent-entry-sizes");
  return quark;
}

static void
entry_sizes_free (EntrySizes *cache)
{
  g_hash_table_unref (cache->sizes);
  g_ptr_array_unref (cache->last);
  g_array_unref (cache->last_sizes);
  g_free (cache);
}

static gboolean
entry_not_seen (gpointer key,
                gpointer value,
                gpointer user_data)
{
  return ((EntrySize *) value)->seen != *(guint64 *) user_data;
}

/**
 * _gg_agent_entry_sizes:
 * @owner: the object the sizes are remembered on (the turn's model)
 * @entries: (element-type JsonObject): transcript entries
 * @sizes: (element-type gsize): receives the compact JSON size of each entry,
 *   appended in order
 *
 * Same figures as _gg_agent_entry_bytes() on each entry; entries measured
 * for @owner before are not measured again.
 */
void
_gg_agent_entry_sizes (GObject   *owner,
                       GPtrArray *entries,
                       GArray    *sizes)
{
  EntrySizes *cache;
  guint base = sizes->len;
  guint same = 0;
  guint live;

  /* A turn without history (a one-off on a session's model) has nothing
   * to measure and must not make the session's sizes look stale. */
  if (entries->len == 0)
    return;
  cache = g_object_get_qdata (owner, entry_sizes_quark ());
  if (cache == NULL)
    {
      cache = g_new0 (EntrySizes, 1);
      /* Keys hold a reference: a remembered address cannot be reused by
       * another object while it is in the table. */
      cache->sizes = g_hash_table_new_full (g_direct_hash, g_direct_equal,
                                            (GDestroyNotify) json_object_unref, g_free);
      cache->last = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
      cache->last_sizes = g_array_new (FALSE, FALSE, sizeof (gsize));
      g_object_set_qdata_full (owner, entry_sizes_quark (), cache, (GDestroyNotify) entry_sizes_free);
    }
  cache->pass++;

  /* A session's history grows at its end: the entries the latest round
   * began with are compared by address, not looked up one by one. */
  while (same < entries->len && same < cache->last->len &&
         g_ptr_array_index (entries, same) == g_ptr_array_index (cache->last, same))
    same++;
  g_array_append_vals (sizes, cache->last_sizes->data, same);
  live = same;

  for (guint i = same; i < entries->len; i++)
    {
      JsonObject *entry = g_ptr_array_index (entries, i);
      EntrySize *size = g_hash_table_lookup (cache->sizes, entry);

      if (size == NULL)
        {
          size = g_new (EntrySize, 1);
          size->bytes = _gg_agent_entry_bytes (entry);
          size->seen = 0;
          g_hash_table_insert (cache->sizes, json_object_ref (entry), size);
        }
      if (size->seen != cache->pass)
        {
          size->seen = cache->pass;
          live++;
        }
      g_array_append_val (sizes, size->bytes);
    }

  g_ptr_array_set_size (cache->last, same);
  for (guint i = same; i < entries->len; i++)
    g_ptr_array_add (cache->last, json_object_ref (g_ptr_array_index (entries, i)));
  g_array_set_size (cache->last_sizes, same);
  g_array_append_vals (cache->last_sizes, &g_array_index (sizes, gsize, base + same), entries->len - same);

  /* Entries the latest round did not ask for (a session's dropped history,
   * a closed session sharing the model) go once they are as many as the
   * live ones: memory stays within twice the latest history, and the sweep
   * costs O(1) per lookup amortised. */
  if (g_hash_table_size (cache->sizes) > 2 * live + 64)
    g_hash_table_foreach_remove (cache->sizes, entry_not_seen, &cache->pass);
}
