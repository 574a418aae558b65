/* gb-mcp-event-store.h: the SSE streams of one Streamable HTTP session and
 * the events each keeps for a client that reconnects with Last-Event-ID
 * (MCP 2025-11-25, "Resumability and Redelivery"). Used by gb-mcp-http.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Streams that carry nothing any more (finished, or a standalone stream a
 * newer one replaced) and no connection, kept per session for a late
 * resume: at most this many, holding at most this many bytes (the newest
 * of them is kept whatever its size). */
#define GB_MCP_EVENT_STORE_MAX_IDLE_STREAMS 8
#define GB_MCP_EVENT_STORE_MAX_IDLE_BYTES   (4 * 1024 * 1024)

typedef struct _GbMcpEventStore  GbMcpEventStore;
typedef struct _GbMcpEventStream GbMcpEventStream;

/* What a Last-Event-ID names. */
typedef enum {
  GB_MCP_EVENT_RESUME_OK,
  GB_MCP_EVENT_RESUME_MALFORMED,   /* not an event id this server makes */
  GB_MCP_EVENT_RESUME_UNKNOWN,     /* no such event in this session */
  GB_MCP_EVENT_RESUME_GONE_STREAM, /* the stream is no longer kept */
  GB_MCP_EVENT_RESUME_GONE_EVENTS, /* events after the id are no longer kept */
} GbMcpEventResume;

GbMcpEventStore  *gb_mcp_event_store_new        (guint            max_events);
void              gb_mcp_event_store_free       (GbMcpEventStore *store);
/* A new stream, ids "<stream>-<n>"; a standalone one (GET) carries messages
 * tied to no request. The store keeps it. */
GbMcpEventStream *gb_mcp_event_store_open       (GbMcpEventStore *store,
                                                 gboolean         standalone);
/* Where a message tied to no request goes: the newest standalone stream
 * with a connection, else the newest standalone stream; NULL if none. */
GbMcpEventStream *gb_mcp_event_store_standalone (GbMcpEventStore *store);
/* The stream @last_event_id belongs to, and the text of its events after
 * that id appended to @replay (GB_MCP_EVENT_RESUME_OK only). */
GbMcpEventResume  gb_mcp_event_store_resume     (GbMcpEventStore   *store,
                                                 const char        *last_event_id,
                                                 GbMcpEventStream **stream,
                                                 GString           *replay);
guint             gb_mcp_event_store_get_max_events (GbMcpEventStore *store);

GbMcpEventStream *gb_mcp_event_stream_ref       (GbMcpEventStream *stream);
void              gb_mcp_event_stream_unref     (GbMcpEventStream *stream);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GbMcpEventStream, gb_mcp_event_stream_unref)
/* One `event: message` with a new id, kept for replay; returns its text. */
char             *gb_mcp_event_stream_add       (GbMcpEventStream *stream,
                                                 const char       *data);
/* The priming event: a new id, `retry` (0: none) and empty data; not kept. */
char             *gb_mcp_event_stream_prime     (GbMcpEventStream *stream,
                                                 guint             retry_ms);
/* Its last event is in (a request's response): nothing follows. */
void              gb_mcp_event_stream_finish    (GbMcpEventStream *stream);
gboolean          gb_mcp_event_stream_is_finished (GbMcpEventStream *stream);
/* The connection (the transport's, not owned) that carries the stream now;
 * NULL when it has none. */
gpointer          gb_mcp_event_stream_get_sink  (GbMcpEventStream *stream);
void              gb_mcp_event_stream_set_sink  (GbMcpEventStream *stream,
                                                 gpointer          sink);

G_END_DECLS
