/* test-a2g-events.c: GET /v1/console/events against the real `gamegate
 * a2g`: a snapshot right away with every member of the contract, one a
 * second after, a `decision` event per decided entity (model, forced,
 * FALLBACK) with no token or client_id, and at most 100 decision events a
 * second per stream, the rest counted in `dropped_decisions`.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "a2g-test-util.h"

#define CLIENT "c_5f1c9a27e04b7d13"

typedef struct {
  SoupMessage *msg;
  GInputStream *stream;
  GDataInputStream *lines;
  GError *error;
  gboolean done;
} Events;

static void
on_opened (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Events *events = user_data;

  events->stream = soup_session_send_finish (SOUP_SESSION (source), result, &events->error);
  events->done = TRUE;
}

static Events *
events_open (A2gService *service)
{
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/v1/console/events", service->port);
  Events *events = g_new0 (Events, 1);

  events->msg = soup_message_new ("GET", url);
  soup_session_send_async (service->http, events->msg, G_PRIORITY_DEFAULT, NULL, on_opened, events);
  g_assert_true (gg_test_wait_until (&events->done, gg_test_timeout_ms (10000)));
  g_assert_no_error (events->error);
  g_assert_cmpuint (soup_message_get_status (events->msg), ==, 200);
  g_assert_cmpstr (soup_message_headers_get_content_type (soup_message_get_response_headers (events->msg), NULL), ==,
                   "text/event-stream");
  events->lines = g_data_input_stream_new (events->stream);
  return events;
}

static void
events_close (Events *events)
{
  g_object_unref (events->lines);
  g_input_stream_close (events->stream, NULL, NULL);
  g_object_unref (events->stream);
  g_object_unref (events->msg);
  g_free (events);
}

/* The next event: its name, and its data in @data. */
static char *
events_next (Events  *events,
             char   **data)
{
  g_autofree char *name = NULL;

  *data = NULL;
  for (;;)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *line = gg_test_read_line (events->lines, gg_test_timeout_ms (5000), &error);

      g_assert_no_error (error);
      g_assert_nonnull (line);
      if (g_str_has_prefix (line, "event: "))
        name = g_strdup (line + 7);
      else if (g_str_has_prefix (line, "data: "))
        *data = g_strdup (line + 6);
      else if (*line == '\0' && name != NULL)
        return g_steal_pointer (&name);
    }
}

static char *
next_of (Events     *events,
         const char *wanted)
{
  for (;;)
    {
      char *data = NULL;
      g_autofree char *name = events_next (events, &data);

      if (g_strcmp0 (name, wanted) == 0)
        return data;
      g_free (data);
    }
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static void
test_snapshot_and_decisions (void)
{
  g_autofree char *model = a2g_model_config ("[{\"json\":{\"reason\":\"Hurt.\",\"action\":\"flee\",\"confidence\":72}}]");
  g_autofree char *config = g_strconcat ("[a2g]\n", model, NULL);
  A2gService *service = a2g_service_start (config);
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  Events *events = events_open (service);
  g_autofree char *snapshot = NULL;
  g_autofree char *first = NULL, *second = NULL, *third = NULL;
  g_autofree char *client_hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, CLIENT, -1);
  g_autofree char *session = g_strndup (client_hash, 8);
  gint64 start = g_get_monotonic_time ();

  {
    char *data = NULL;
    g_autofree char *name = events_next (events, &data);

    /* Right away: the first event is a snapshot. */
    g_assert_cmpstr (name, ==, "snapshot");
    snapshot = data;
  }
  a2g_assert_json (snapshot,
    "{\"a2g\":\"0.1\",\"profile\":\"local\",\"sessions\":1,"
    "\"decisions\":{\"model\":0,\"cache\":0,\"memory\":0,\"forced\":0},"
    "\"decisions_per_second\":{\"model\":0.0,\"cache\":0.0,\"memory\":0.0,\"forced\":0.0},"
    "\"cache\":{\"hits\":0,\"misses\":0,\"hit_rate\":0.0},"
    "\"fallbacks\":{\"busy\":0,\"budget\":0,\"timeout\":0,\"unavailable\":0,\"invalid\":0,\"low_confidence\":0,\"error\":0},"
    "\"tokens\":{\"input\":0,\"output\":0},\"budgets\":[],\"dropped_decisions\":0}");
  {
    g_autoptr(A2gResponse) response = a2g_post (service, "/v1/decide", token,
      "{\"client_id\":\"" CLIENT "\",\"entities\":["
      "{\"entity\":\"pirate-7\",\"type\":\"pirate\",\"observations\":{\"hp\":35},\"legal_actions\":[\"attack\",\"flee\"]},"
      "{\"entity\":\"pirate-9\",\"type\":\"pirate\",\"legal_actions\":[\"attack\"]},"
      "{\"entity\":\"pirate-3\",\"type\":\"pirate\",\"observations\":{\"hp\":\"x\"},\"legal_actions\":[\"attack\"]}]}");
    g_assert_cmpuint (response->status, ==, 200);
  }
  /* Settled in the order they finished: the forced and invalid ones first. */
  {
    g_autoptr(GPtrArray) got = g_ptr_array_new_with_free_func (g_free);

    for (guint i = 0; i < 3; i++)
      {
        g_autofree char *data = next_of (events, "decision");
        g_autofree char *no_time = a2g_strip_member (data, "time");
        g_autofree char *no_latency = a2g_strip_member (no_time, "latency_ms");

        g_assert_null (strstr (data, CLIENT));
        g_assert_null (strstr (data, token));
        g_assert_true (g_regex_match_simple ("\"time\":\"20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:"
                                             "[0-6][0-9]\\.[0-9]{3}Z\"", data, 0, 0));
        g_ptr_array_add (got, g_steal_pointer (&no_latency));
      }
    g_ptr_array_sort (got, compare_strings);
    first = g_strdup_printf ("{\"time\":\"*\",\"session\":\"%s\",\"game\":\"orbital-freight\",\"entity\":\"pirate-3\","
                             "\"type\":\"pirate\",\"action\":\"FALLBACK\",\"code\":\"invalid\","
                             "\"message\":\"observations.hp: must be an integer\",\"latency_ms\":\"*\"}", session);
    second = g_strdup_printf ("{\"time\":\"*\",\"session\":\"%s\",\"game\":\"orbital-freight\",\"entity\":\"pirate-7\","
                              "\"type\":\"pirate\",\"action\":\"flee\",\"source\":\"model\",\"confidence\":72,"
                              "\"reason\":\"Hurt.\",\"latency_ms\":\"*\"}", session);
    third = g_strdup_printf ("{\"time\":\"*\",\"session\":\"%s\",\"game\":\"orbital-freight\",\"entity\":\"pirate-9\","
                             "\"type\":\"pirate\",\"action\":\"attack\",\"source\":\"forced\",\"confidence\":100,"
                             "\"latency_ms\":\"*\"}", session);
    a2g_assert_json (g_ptr_array_index (got, 0), first);
    a2g_assert_json (g_ptr_array_index (got, 1), second);
    a2g_assert_json (g_ptr_array_index (got, 2), third);
  }
  {
    /* The next snapshot, about a second after the first, has the counts. */
    g_autofree char *data = next_of (events, "snapshot");
    g_autoptr(JsonNode) node = gg_json_parse (data, -1, 16, NULL);
    JsonObject *object = json_node_get_object (node);
    JsonObject *decisions = json_object_get_object_member (object, "decisions");
    JsonObject *cache = json_object_get_object_member (object, "cache");

    g_assert_cmpint (g_get_monotonic_time () - start, <, gg_test_timeout_ms (3000) * 1000);
    g_assert_cmpint (json_object_get_int_member (decisions, "model"), ==, 1);
    g_assert_cmpint (json_object_get_int_member (decisions, "forced"), ==, 1);
    g_assert_cmpint (json_object_get_int_member (cache, "misses"), ==, 1);
    g_assert_cmpfloat (json_object_get_double_member (cache, "hit_rate"), ==, 0.0);
    g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (object, "decisions_per_second"),
                                                      "model"), ==, 0.1);
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (object, "fallbacks"), "invalid"), ==, 1);
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (object, "tokens"), "input"), >, 0);
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object, "budgets")), ==, 1);
  }
  events_close (events);
  a2g_service_stop (service);
}

static void
test_rate_bound (void)
{
  A2gService *service = a2g_service_start ("[a2g]\n");
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  Events *events = events_open (service);
  g_autoptr(GString) entities = g_string_new (NULL);
  g_autofree char *body = NULL;
  guint decisions = 0;
  gint64 dropped = 0;
  guint snapshots = 0;
  gint64 first_second, last_second;

  g_free (next_of (events, "snapshot"));
  for (guint i = 0; i < 16; i++)
    g_string_append_printf (entities, "%s{\"entity\":\"p%u\",\"type\":\"pirate\",\"legal_actions\":[\"flee\"]}",
                            i > 0 ? "," : "", i);
  body = g_strdup_printf ("{\"client_id\":\"" CLIENT "\",\"entities\":[%s]}", entities->str);
  /* 160 forced decisions, as fast as the service takes them. The bound
   * counts per second of the monotonic clock, which the daemon shares. */
  first_second = g_get_monotonic_time () / G_USEC_PER_SEC;
  for (guint i = 0; i < 10; i++)
    {
      g_autoptr(A2gResponse) response = a2g_post (service, "/v1/decide", token, body);
      g_assert_cmpuint (response->status, ==, 200);
    }
  last_second = g_get_monotonic_time () / G_USEC_PER_SEC;
  /* Every decision is either sent or counted as dropped in a snapshot. */
  while (decisions + (guint) dropped < 160 && snapshots < 30)
    {
      char *data = NULL;
      g_autofree char *name = events_next (events, &data);
      g_autofree char *owned = data;

      if (g_strcmp0 (name, "decision") == 0)
        decisions++;
      else
        {
          g_autoptr(JsonNode) node = gg_json_parse (owned, -1, 16, NULL);
          dropped = json_object_get_int_member (json_node_get_object (node), "dropped_decisions");
          snapshots++;
        }
    }
  g_assert_cmpuint (decisions + (guint) dropped, ==, 160);
  /* No more than 100 in each second they were made in; all in one second
   * (as without a sanitizer), at least 60 dropped. */
  g_assert_cmpuint (decisions, <=, 100 * (last_second - first_second + 1));
  if (first_second == last_second)
    g_assert_cmpint (dropped, >=, 60);
  events_close (events);
  a2g_service_stop (service);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/a2g/events/snapshot-and-decisions", test_snapshot_and_decisions);
  g_test_add_func ("/a2g/events/rate-bound", test_rate_bound);
  return g_test_run ();
}
