/* gg-gabp-event-log.c: the events of one GABP mod as the bus sees them:
 * passed on in seq order per channel (a duplicate or late event is
 * dropped, a gap is reported on the `gamegate/gap` channel first; a new
 * session starts every channel afresh), and the most recent ones kept for
 * the `gamegate/events` tool, each with a cursor of its own.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-gabp-event-log.h"

typedef struct {
  guint64   cursor;
  char     *channel;
  guint64   seq;
  JsonNode *payload;
} RecentEvent;

struct _GgGabpEventLog {
  GHashTable *next_seq;     /* channel -> expected seq (guint64 *) */
  GQueue      recent;       /* RecentEvent, oldest first */
  guint64     cursor;       /* cursor of the next event recorded */
  guint64     gap_seq;
};

static void
recent_event_free (RecentEvent *event)
{
  g_free (event->channel);
  json_node_unref (event->payload);
  g_free (event);
}

GgGabpEventLog *
gg_gabp_event_log_new (void)
{
  GgGabpEventLog *self = g_new0 (GgGabpEventLog, 1);

  self->next_seq = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_queue_init (&self->recent);
  return self;
}

void
gg_gabp_event_log_free (GgGabpEventLog *self)
{
  g_hash_table_unref (self->next_seq);
  g_queue_clear_full (&self->recent, (GDestroyNotify) recent_event_free);
  g_free (self);
}

/* A new session: the mod numbers every channel afresh. */
void
gg_gabp_event_log_new_session (GgGabpEventLog *self)
{
  g_hash_table_remove_all (self->next_seq);
}

static void
record_event (GgGabpEventLog *self,
              const char     *channel,
              guint64         seq,
              JsonNode       *payload,
              GgGabpEventEmit emit,
              gpointer        user_data)
{
  RecentEvent *event = g_new0 (RecentEvent, 1);

  event->cursor = self->cursor++;
  event->channel = g_strdup (channel);
  event->seq = seq;
  event->payload = json_node_copy (payload);
  g_queue_push_tail (&self->recent, event);
  while (g_queue_get_length (&self->recent) > GG_GABP_EVENT_LOG_SIZE)
    recent_event_free (g_queue_pop_head (&self->recent));
  emit (channel, seq, payload, user_data);
}

/**
 * gg_gabp_event_log_add:
 * @self: an event log
 * @id: the target's id, for log messages
 * @channel: the event's channel
 * @seq: its sequence number
 * @payload: its payload
 * @emit: called for every event kept: a gap report first, then this one
 * @user_data: data for @emit
 *
 * Takes one event from the mod: a duplicate or late one is dropped, a gap
 * before it is reported on %GG_GABP_GAP_CHANNEL first.
 */
void
gg_gabp_event_log_add (GgGabpEventLog  *self,
                       const char      *id,
                       const char      *channel,
                       guint64          seq,
                       JsonNode        *payload,
                       GgGabpEventEmit  emit,
                       gpointer         user_data)
{
  guint64 *expected = g_hash_table_lookup (self->next_seq, channel);

  if (expected != NULL && seq < *expected)
    {
      g_debug ("%s: dropping event %s #%" G_GUINT64_FORMAT " (expected #%" G_GUINT64_FORMAT ")",
               id, channel, seq, *expected);
      return;
    }
  if (expected != NULL && seq > *expected)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();
      g_autoptr(JsonNode) gap = NULL;

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "channel");
      json_builder_add_string_value (builder, channel);
      json_builder_set_member_name (builder, "expected");
      json_builder_add_int_value (builder, (gint64) *expected);
      json_builder_set_member_name (builder, "received");
      json_builder_add_int_value (builder, (gint64) seq);
      json_builder_end_object (builder);
      gap = json_builder_get_root (builder);
      g_message ("%s: events %s #%" G_GUINT64_FORMAT "..#%" G_GUINT64_FORMAT " are missing",
                 id, channel, *expected, seq - 1);
      record_event (self, GG_GABP_GAP_CHANNEL, self->gap_seq++, gap, emit, user_data);
    }
  if (expected == NULL)
    {
      expected = g_new (guint64, 1);
      g_hash_table_insert (self->next_seq, g_strdup (channel), expected);
    }
  *expected = seq + 1;

  record_event (self, channel, seq, payload, emit, user_data);
}

/**
 * gg_gabp_event_log_since:
 * @self: an event log
 * @cursor: the first cursor wanted
 * @channel: (nullable): only this channel
 * @limit: at most this many (0: all kept)
 *
 * Returns: (transfer full): `{"events":[{"cursor","channel","seq","payload"}],"next"}`
 */
JsonNode *
gg_gabp_event_log_since (GgGabpEventLog *self,
                         guint64         cursor,
                         const char     *channel,
                         guint           limit)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  guint64 next = MAX (cursor, self->cursor - MIN (self->cursor, g_queue_get_length (&self->recent)));
  guint n = 0;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "events");
  json_builder_begin_array (builder);
  for (GList *l = self->recent.head; l != NULL; l = l->next)
    {
      RecentEvent *event = l->data;

      if (event->cursor < cursor)
        continue;
      if (limit > 0 && n >= limit)
        break;
      next = event->cursor + 1;
      if (channel != NULL && !g_str_equal (channel, event->channel))
        continue;
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "cursor");
      json_builder_add_int_value (builder, (gint64) event->cursor);
      json_builder_set_member_name (builder, "channel");
      json_builder_add_string_value (builder, event->channel);
      json_builder_set_member_name (builder, "seq");
      json_builder_add_int_value (builder, (gint64) event->seq);
      json_builder_set_member_name (builder, "payload");
      json_builder_add_value (builder, json_node_copy (event->payload));
      json_builder_end_object (builder);
      n++;
    }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "next");
  json_builder_add_int_value (builder, (gint64) next);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

