/* gb-mcp-session-table.h: the Streamable HTTP sessions by Mcp-Session-Id,
 * in the order they were last used. Used by gb-mcp-http.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gb-mcp-private.h"

G_BEGIN_DECLS

typedef struct _GbMcpSessionTable GbMcpSessionTable;

/* Whether @session may be let go now (the transport's judgement). */
typedef gboolean (*GbMcpSessionFilter) (GbMcpSession *session);

GbMcpSessionTable *gb_mcp_session_table_new          (void);
void               gb_mcp_session_table_free         (GbMcpSessionTable *table);
guint              gb_mcp_session_table_size         (GbMcpSessionTable *table);
/* Keeps a reference; @session->id is its key. The newest used. */
void               gb_mcp_session_table_add          (GbMcpSessionTable *table,
                                                      GbMcpSession      *session);
/* (transfer none) (nullable); does not count as a use. */
GbMcpSession      *gb_mcp_session_table_lookup       (GbMcpSessionTable *table,
                                                      const char        *id);
/* @session was used now: the most recently used one. */
void               gb_mcp_session_table_touch        (GbMcpSessionTable *table,
                                                      GbMcpSession      *session);
void               gb_mcp_session_table_remove       (GbMcpSessionTable *table,
                                                      GbMcpSession      *session);
void               gb_mcp_session_table_remove_all   (GbMcpSessionTable *table);
/* (transfer full) (element-type GbMcpSession): the sessions unused for
 * longer than @idle_us that @may_expire accepts, least recent first. */
GPtrArray         *gb_mcp_session_table_expired      (GbMcpSessionTable *table,
                                                      gint64             idle_us,
                                                      GbMcpSessionFilter may_expire);
/* (transfer none) (nullable): the least recently used session that
 * @may_evict accepts. */
GbMcpSession      *gb_mcp_session_table_least_recent (GbMcpSessionTable *table,
                                                      GbMcpSessionFilter may_evict);

G_END_DECLS
