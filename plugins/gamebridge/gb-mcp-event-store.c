/* gb-mcp-event-store.c: the SSE streams of one Streamable HTTP session, for
 * resumability and redelivery (MCP 2025-11-25): every event gets an id
 * "<stream>-<n>", unique in the session and naming its stream, and each
 * stream keeps its last events so that a client that lost its connection
 * gets, on GET with Last-Event-ID, what that stream sent after the id, and
 * then the rest of the stream. The spec forbids replaying another stream's
 * events, hence one buffer per stream.
 *
 * Bounds: a stream keeps its last `max_events` events (`[gamebridge]
 * sse-replay-events`); an id older than those is refused as forgotten, never
 * answered with a gap. Streams with nothing more to carry are kept for a
 * late resume within GB_MCP_EVENT_STORE_MAX_IDLE_*; one still carrying
 * something (a request not answered yet, the newest standalone stream, one
 * with a connection) is kept while its session lives.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-mcp-event-store.h"

typedef struct {
  guint64  seq;
  char    *text;    /* the whole SSE event, as sent */
  gsize    length;
} Event;

struct _GbMcpEventStore {
  GQueue  streams;       /* GbMcpEventStream (referenced), oldest first */
  guint64 next_stream;   /* the number of the next stream, from 1 */
  guint   max_events;
};

struct _GbMcpEventStream {
  grefcount        ref_count;
  GbMcpEventStore *store;       /* not owned; NULL once the store let it go */
  guint64          number;
  gboolean         standalone;
  gboolean         finished;
  GQueue           events;      /* Event, oldest first */
  gsize            bytes;
  guint64          next_seq;
  guint64          first_kept;  /* every event from this seq on is kept */
  gpointer         sink;
};

static void
event_free (gpointer data)
{
  Event *event = data;

  g_free (event->text);
  g_free (event);
}

/**
 * gb_mcp_event_store_new:
 * @max_events: how many events each stream keeps for replay (at least 1)
 *
 * Returns: (transfer full): an empty store
 */
GbMcpEventStore *
gb_mcp_event_store_new (guint max_events)
{
  GbMcpEventStore *store = g_new0 (GbMcpEventStore, 1);

  g_queue_init (&store->streams);
  store->next_stream = 1;
  store->max_events = MAX (max_events, 1);
  return store;
}

static void
drop_stream (GbMcpEventStore *store,
             GList           *link)
{
  GbMcpEventStream *stream = link->data;

  g_queue_delete_link (&store->streams, link);
  stream->store = NULL;
  gb_mcp_event_stream_unref (stream);
}

/**
 * gb_mcp_event_store_free:
 * @store: (transfer full): a store
 *
 * Streams still referenced elsewhere live on, detached from it.
 */
void
gb_mcp_event_store_free (GbMcpEventStore *store)
{
  if (store == NULL)
    return;
  while (store->streams.head != NULL)
    drop_stream (store, store->streams.head);
  g_free (store);
}

guint
gb_mcp_event_store_get_max_events (GbMcpEventStore *store)
{
  return store->max_events;
}

static GbMcpEventStream *
newest_standalone (GbMcpEventStore *store,
                   gboolean         with_sink)
{
  for (GList *l = store->streams.tail; l != NULL; l = l->prev)
    {
      GbMcpEventStream *stream = l->data;

      if (stream->standalone && !stream->finished && (!with_sink || stream->sink != NULL))
        return stream;
    }
  return NULL;
}

/* Nothing more will go out on it: finished, or a standalone stream that a
 * newer one replaced; and no connection carries it. */
static gboolean
is_idle (GbMcpEventStream *stream,
         GbMcpEventStream *current_standalone)
{
  return stream->sink == NULL &&
         (stream->finished || (stream->standalone && stream != current_standalone));
}

/* Lets the oldest idle streams go beyond GB_MCP_EVENT_STORE_MAX_IDLE_*. */
static void
trim (GbMcpEventStore *store)
{
  GbMcpEventStream *current = newest_standalone (store, FALSE);
  guint count = 0;
  gsize bytes = 0;
  GList *l;

  for (l = store->streams.head; l != NULL; l = l->next)
    if (is_idle (l->data, current))
      {
        count++;
        bytes += ((GbMcpEventStream *) l->data)->bytes;
      }
  l = store->streams.head;
  while (l != NULL &&
         (count > GB_MCP_EVENT_STORE_MAX_IDLE_STREAMS ||
          (count > 1 && bytes > GB_MCP_EVENT_STORE_MAX_IDLE_BYTES)))
    {
      GList *next = l->next;
      GbMcpEventStream *stream = l->data;

      if (is_idle (stream, current))
        {
          count--;
          bytes -= stream->bytes;
          drop_stream (store, l);
        }
      l = next;
    }
}

/**
 * gb_mcp_event_store_open:
 * @store: a store
 * @standalone: %TRUE for a GET stream, %FALSE for a request's
 *
 * Returns: (transfer none): a new stream, kept by @store
 */
GbMcpEventStream *
gb_mcp_event_store_open (GbMcpEventStore *store,
                         gboolean         standalone)
{
  GbMcpEventStream *stream = g_new0 (GbMcpEventStream, 1);

  g_ref_count_init (&stream->ref_count);
  stream->store = store;
  stream->number = store->next_stream++;
  stream->standalone = standalone;
  g_queue_init (&stream->events);
  g_queue_push_tail (&store->streams, stream);
  trim (store);
  return stream;
}

/**
 * gb_mcp_event_store_standalone:
 * @store: a store
 *
 * Returns: (transfer none) (nullable): where messages tied to no request go
 */
GbMcpEventStream *
gb_mcp_event_store_standalone (GbMcpEventStore *store)
{
  GbMcpEventStream *stream = newest_standalone (store, TRUE);

  return stream != NULL ? stream : newest_standalone (store, FALSE);
}

static gboolean
parse_id (const char *id,
          guint64    *number,
          guint64    *seq)
{
  const char *dash = strchr (id, '-');
  g_autofree char *head = NULL;

  if (dash == NULL || dash - id > 20 || strlen (dash + 1) > 20)
    return FALSE;
  head = g_strndup (id, dash - id);
  return g_ascii_string_to_unsigned (head, 10, 1, G_MAXUINT64, number, NULL) &&
         g_ascii_string_to_unsigned (dash + 1, 10, 0, G_MAXUINT64, seq, NULL);
}

/**
 * gb_mcp_event_store_resume:
 * @store: a store
 * @last_event_id: the client's `Last-Event-ID`
 * @stream: (out) (transfer none): the stream it names, on success
 * @replay: what to send again: that stream's events after the id
 *
 * Returns: whether the stream can go on from @last_event_id
 */
GbMcpEventResume
gb_mcp_event_store_resume (GbMcpEventStore   *store,
                           const char        *last_event_id,
                           GbMcpEventStream **stream,
                           GString           *replay)
{
  GbMcpEventStream *found = NULL;
  guint64 number, seq;

  *stream = NULL;
  if (!parse_id (last_event_id, &number, &seq))
    return GB_MCP_EVENT_RESUME_MALFORMED;
  for (GList *l = store->streams.head; l != NULL && found == NULL; l = l->next)
    if (((GbMcpEventStream *) l->data)->number == number)
      found = l->data;
  if (found == NULL)
    return number < store->next_stream ? GB_MCP_EVENT_RESUME_GONE_STREAM : GB_MCP_EVENT_RESUME_UNKNOWN;
  if (seq >= found->next_seq)
    return GB_MCP_EVENT_RESUME_UNKNOWN;
  /* Every event after @seq must still be there: never a silent gap. */
  if (seq + 1 < found->first_kept)
    return GB_MCP_EVENT_RESUME_GONE_EVENTS;
  for (GList *l = found->events.head; l != NULL; l = l->next)
    {
      Event *event = l->data;

      if (event->seq > seq)
        g_string_append_len (replay, event->text, (gssize) event->length);
    }
  *stream = found;
  return GB_MCP_EVENT_RESUME_OK;
}

GbMcpEventStream *
gb_mcp_event_stream_ref (GbMcpEventStream *stream)
{
  g_ref_count_inc (&stream->ref_count);
  return stream;
}

void
gb_mcp_event_stream_unref (GbMcpEventStream *stream)
{
  if (stream == NULL || !g_ref_count_dec (&stream->ref_count))
    return;
  g_queue_clear_full (&stream->events, event_free);
  g_free (stream);
}

/**
 * gb_mcp_event_stream_add:
 * @stream: a stream
 * @data: one JSON-RPC message, on one line
 *
 * Returns: (transfer full): the event's text, to send
 */
char *
gb_mcp_event_stream_add (GbMcpEventStream *stream,
                         const char       *data)
{
  Event *event = g_new0 (Event, 1);

  g_return_val_if_fail (strchr (data, '\n') == NULL, NULL);

  event->seq = stream->next_seq++;
  event->text = g_strdup_printf ("id: %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT "\n"
                                 "event: message\ndata: %s\n\n", stream->number, event->seq, data);
  event->length = strlen (event->text);
  g_queue_push_tail (&stream->events, event);
  stream->bytes += event->length;
  while (stream->events.length > (stream->store != NULL ? stream->store->max_events : 1))
    {
      Event *oldest = g_queue_pop_head (&stream->events);

      stream->first_kept = oldest->seq + 1;
      stream->bytes -= oldest->length;
      event_free (oldest);
    }
  return g_strdup (event->text);
}

/**
 * gb_mcp_event_stream_prime:
 * @stream: a stream
 * @retry_ms: the reconnection delay to announce, 0 for none
 *
 * Returns: (transfer full): an event with a new id and empty data, so the
 *   client can resume from here
 */
char *
gb_mcp_event_stream_prime (GbMcpEventStream *stream,
                           guint             retry_ms)
{
  g_autofree char *retry = retry_ms > 0 ? g_strdup_printf ("retry: %u\n", retry_ms) : g_strdup ("");

  return g_strdup_printf ("id: %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT "\n%sdata:\n\n",
                          stream->number, stream->next_seq++, retry);
}

void
gb_mcp_event_stream_finish (GbMcpEventStream *stream)
{
  stream->finished = TRUE;
  if (stream->store != NULL)
    trim (stream->store);
}

gboolean
gb_mcp_event_stream_is_finished (GbMcpEventStream *stream)
{
  return stream->finished;
}

gpointer
gb_mcp_event_stream_get_sink (GbMcpEventStream *stream)
{
  return stream->sink;
}

/**
 * gb_mcp_event_stream_set_sink:
 * @stream: a stream
 * @sink: (nullable): the connection that carries it from now on
 *
 * A stream left without a connection may be let go by its store (when it
 * has nothing more to carry); a caller that goes on using it holds a ref.
 */
void
gb_mcp_event_stream_set_sink (GbMcpEventStream *stream,
                              gpointer          sink)
{
  stream->sink = sink;
  if (sink == NULL && stream->store != NULL)
    trim (stream->store);
}
