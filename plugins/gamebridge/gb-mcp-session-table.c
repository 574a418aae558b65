/* gb-mcp-session-table.c: the Streamable HTTP sessions by Mcp-Session-Id,
 * kept in the order of their last use, so that the transport can forget
 * the ones idle too long and, when the table is full, end the least
 * recently used one that may go (clients that leave without DELETE, as the
 * official TypeScript SDK's close() does, would otherwise fill it). Both
 * walks start at the least recent end: expiry stops at the first session
 * used recently enough, eviction at the first that may go, so a request
 * costs about the same with 1 session as with the whole table.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-mcp-session-table.h"

typedef struct {
  GbMcpSession *session;   /* referenced */
  GList         link;      /* in lru; data = this entry */
} Entry;

struct _GbMcpSessionTable {
  GHashTable *by_id;       /* session->id -> Entry */
  GQueue      lru;         /* Entry, least recently used first */
};

static void
entry_free (gpointer data)
{
  Entry *entry = data;

  gb_mcp_session_unref (entry->session);
  g_free (entry);
}

GbMcpSessionTable *
gb_mcp_session_table_new (void)
{
  GbMcpSessionTable *table = g_new0 (GbMcpSessionTable, 1);

  table->by_id = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, entry_free);
  g_queue_init (&table->lru);
  return table;
}

void
gb_mcp_session_table_free (GbMcpSessionTable *table)
{
  if (table == NULL)
    return;
  gb_mcp_session_table_remove_all (table);
  g_hash_table_unref (table->by_id);
  g_free (table);
}

guint
gb_mcp_session_table_size (GbMcpSessionTable *table)
{
  return g_hash_table_size (table->by_id);
}

void
gb_mcp_session_table_add (GbMcpSessionTable *table,
                          GbMcpSession      *session)
{
  Entry *entry = g_new0 (Entry, 1);

  g_return_if_fail (session->id != NULL);
  g_return_if_fail (!g_hash_table_contains (table->by_id, session->id));

  entry->session = gb_mcp_session_ref (session);
  entry->link.data = entry;
  session->last_activity = g_get_monotonic_time ();
  g_queue_push_tail_link (&table->lru, &entry->link);
  g_hash_table_insert (table->by_id, session->id, entry);
}

GbMcpSession *
gb_mcp_session_table_lookup (GbMcpSessionTable *table,
                             const char        *id)
{
  Entry *entry = g_hash_table_lookup (table->by_id, id);

  return entry != NULL ? entry->session : NULL;
}

void
gb_mcp_session_table_touch (GbMcpSessionTable *table,
                            GbMcpSession      *session)
{
  Entry *entry = session->id != NULL ? g_hash_table_lookup (table->by_id, session->id) : NULL;

  if (entry == NULL || entry->session != session)
    return;
  session->last_activity = g_get_monotonic_time ();
  g_queue_unlink (&table->lru, &entry->link);
  g_queue_push_tail_link (&table->lru, &entry->link);
}

void
gb_mcp_session_table_remove (GbMcpSessionTable *table,
                             GbMcpSession      *session)
{
  Entry *entry = session->id != NULL ? g_hash_table_lookup (table->by_id, session->id) : NULL;

  if (entry == NULL || entry->session != session)
    return;
  g_queue_unlink (&table->lru, &entry->link);
  g_hash_table_remove (table->by_id, session->id);
}

void
gb_mcp_session_table_remove_all (GbMcpSessionTable *table)
{
  while (table->lru.head != NULL)
    {
      Entry *entry = table->lru.head->data;

      gb_mcp_session_table_remove (table, entry->session);
    }
}

GPtrArray *
gb_mcp_session_table_expired (GbMcpSessionTable *table,
                              gint64             idle_us,
                              GbMcpSessionFilter may_expire)
{
  GPtrArray *expired = g_ptr_array_new_with_free_func ((GDestroyNotify) gb_mcp_session_unref);
  gint64 now = g_get_monotonic_time ();

  for (GList *l = table->lru.head; l != NULL; l = l->next)
    {
      GbMcpSession *session = ((Entry *) l->data)->session;

      /* Every later one was used more recently. */
      if (now - session->last_activity <= idle_us)
        break;
      if (may_expire (session))
        g_ptr_array_add (expired, gb_mcp_session_ref (session));
    }
  return expired;
}

GbMcpSession *
gb_mcp_session_table_least_recent (GbMcpSessionTable *table,
                                   GbMcpSessionFilter may_evict)
{
  for (GList *l = table->lru.head; l != NULL; l = l->next)
    {
      GbMcpSession *session = ((Entry *) l->data)->session;

      if (may_evict (session))
        return session;
    }
  return NULL;
}
