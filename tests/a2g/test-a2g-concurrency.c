/* test-a2g-concurrency.c: entities decided side by side against the real
 * `gamegate a2g`: 16 entities with mixed deadlines in one request (the
 * short ones time out, the others are answered, all in about one model
 * call's time), a game that goes away mid-decide (the model call is
 * cancelled at once, nothing is counted a timeout, and the service carries
 * on), and SIGTERM with a
 * decide in flight (answered 503, exit 0).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "a2g-test-util.h"

#define CLIENT "c_5f1c9a27e04b7d13"
#define SLOW(ms) "{\"json\":{\"reason\":\"slow\",\"action\":\"flee\",\"confidence\":70},\"delayMs\":" #ms "}"

static A2gService *
start_with (const char *steps)
{
  g_autofree char *model = a2g_model_config (steps);
  g_autofree char *config = g_strconcat ("[a2g]\n", model, NULL);

  return a2g_service_start (config);
}

static gint64
usage_count (A2gService *service,
             const char *group,
             const char *member)
{
  g_autoptr(A2gResponse) usage = a2g_get (service, "/v1/usage");
  g_autoptr(JsonObject) object = a2g_json (usage);

  return json_object_get_int_member (json_object_get_object_member (object, group), member);
}

static void
test_sixteen_mixed_deadlines (void)
{
  g_autoptr(GString) steps = g_string_new ("[");
  g_autoptr(GString) entities = g_string_new (NULL);
  A2gService *service;
  g_autofree char *token = NULL;
  g_autofree char *body = NULL;
  g_autoptr(A2gResponse) response = NULL;
  g_autoptr(JsonObject) object = NULL;
  JsonArray *decisions;
  gint64 start, elapsed;

  /* Every model answer takes 600 ms; even entities may wait 300 ms only. */
  for (guint i = 0; i < 16; i++)
    g_string_append_printf (steps, "%s" SLOW (600), i > 0 ? "," : "");
  g_string_append (steps, "]");
  service = start_with (steps->str);
  token = a2g_open (service, CLIENT, NULL);
  for (guint i = 0; i < 16; i++)
    g_string_append_printf (entities, "%s{\"entity\":\"pirate-%u\",\"type\":\"pirate\",\"observations\":{\"hp\":%u},"
                            "\"legal_actions\":[\"attack\",\"flee\"],\"deadline_ms\":%u}",
                            i > 0 ? "," : "", i, i * 5, i % 2 == 0 ? 300 : 5000);
  body = g_strdup_printf ("{\"client_id\":\"" CLIENT "\",\"epoch\":9,\"entities\":[%s]}", entities->str);
  start = g_get_monotonic_time ();
  response = a2g_post (service, "/v1/decide", token, body);
  elapsed = g_get_monotonic_time () - start;
  object = a2g_json (response);
  decisions = json_object_get_array_member (object, "decisions");
  g_assert_cmpuint (json_array_get_length (decisions), ==, 16);
  for (guint i = 0; i < 16; i++)
    {
      JsonObject *decision = json_array_get_object_element (decisions, i);
      g_autofree char *entity = g_strdup_printf ("pirate-%u", i);

      /* Request order, whatever order they settled in. */
      g_assert_cmpstr (json_object_get_string_member (decision, "entity"), ==, entity);
      if (i % 2 == 0)
        {
          g_assert_cmpstr (json_object_get_string_member (decision, "code"), ==, "timeout");
          g_assert_false (json_object_has_member (decision, "decision_id"));
        }
      else
        {
          g_assert_cmpstr (json_object_get_string_member (decision, "source"), ==, "model");
          g_assert_cmpstr (json_object_get_string_member (decision, "reason"), ==, "slow");
        }
    }
  /* Concurrent: one model call's time, not sixteen. */
  g_assert_cmpint (elapsed, >=, 600 * 1000);
  if (g_getenv ("GAMEGATE_TEST_WRAPPER") == NULL)
    g_assert_cmpint (elapsed, <, 3 * G_USEC_PER_SEC);
  g_assert_cmpint (usage_count (service, "fallbacks", "timeout"), ==, 8);
  g_assert_cmpint (usage_count (service, "decisions", "model"), ==, 8);
  a2g_service_stop (service);
}

static GSocketConnection *
send_raw (A2gService *service,
          const char *token,
          const char *body)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *request = g_strdup_printf ("POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                              "Content-Type: application/json\r\nAuthorization: Bearer %s\r\n"
                                              "Content-Length: %" G_GSIZE_FORMAT "\r\n\r\n%s",
                                              token, strlen (body), body);
  GSocketConnection *connection = g_socket_client_connect_to_host (client, "127.0.0.1", (guint16) service->port,
                                                                   NULL, &error);

  g_assert_no_error (error);
  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (connection)), request, strlen (request),
                             NULL, NULL, &error);
  g_assert_no_error (error);
  return connection;
}

/* A decide of @entities pirates (30 s deadline). */
static char *
slow_body (guint entities)
{
  GString *body = g_string_new ("{\"client_id\":\"" CLIENT "\",\"entities\":[");

  for (guint i = 0; i < entities; i++)
    g_string_append_printf (body, "%s{\"entity\":\"p%u\",\"type\":\"pirate\",\"observations\":{\"hp\":%u},"
                            "\"legal_actions\":[\"attack\",\"flee\"],\"deadline_ms\":30000}",
                            i > 0 ? "," : "", i, i * 5);
  g_string_append (body, "]}");
  return g_string_free (body, FALSE);
}

static void
test_client_gone (void)
{
  /* The model would take a minute; the deadline is 30 s. One model call
   * at a time: the next decide is busy until the first call has ended. */
  g_autofree char *model = a2g_model_config ("[" SLOW (60000) "," SLOW (0) "]");
  g_autofree char *config = g_strconcat ("[a2g]\nmax-model-calls=1\n", model, NULL);
  A2gService *service = a2g_service_start (config);
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  g_autofree char *body = slow_body (1);
  g_autoptr(GSocketConnection) connection = send_raw (service, token, body);
  const char *next_body = "{\"client_id\":\"" CLIENT "\",\"entities\":[{\"entity\":\"q\",\"type\":\"pirate\","
                          "\"observations\":{\"hp\":50},\"legal_actions\":[\"attack\",\"flee\"],"
                          "\"deadline_ms\":30000}]}";
  gboolean decided = FALSE;
  gint64 start;

  /* Time for the request to reach the model (longer under valgrind). */
  g_usleep (gg_test_timeout_ms (300) * 1000);
  start = g_get_monotonic_time ();
  g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  /* Only a cancelled model call frees the one slot this soon; the next
   * decision is then the script's next answer. */
  while (!decided && g_get_monotonic_time () - start < gg_test_timeout_ms (5000) * 1000)
    {
      g_autoptr(A2gResponse) next = a2g_post (service, "/v1/decide", token, next_body);

      decided = strstr (next->body, "\"source\":\"model\"") != NULL;
      if (!decided)
        {
          g_assert_nonnull (strstr (next->body, "\"message\":\"Too many model calls at once.\""));
          g_usleep (50 * 1000);
        }
    }
  g_assert_true (decided);
  /* Nobody got the abandoned answer: no deadline was missed, none counted. */
  g_assert_cmpint (usage_count (service, "fallbacks", "timeout"), ==, 0);
  g_assert_cmpint (usage_count (service, "decisions", "model"), ==, 1);
  a2g_service_stop (service);
}

static void
test_shutdown_in_flight (void)
{
  A2gService *service = start_with ("[" SLOW (60000) "]");
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  const char *body = "{\"client_id\":\"" CLIENT "\",\"entities\":[{\"entity\":\"p\",\"type\":\"pirate\","
                     "\"legal_actions\":[\"attack\",\"flee\"],\"deadline_ms\":30000}]}";
  g_autoptr(GSocketConnection) connection = send_raw (service, token, body);
  GInputStream *input = g_io_stream_get_input_stream (G_IO_STREAM (connection));
  g_autoptr(GString) answer = g_string_new (NULL);
  char buffer[1024];
  gssize n;
  int status = -1;

  g_usleep (gg_test_timeout_ms (300) * 1000);
  gg_test_process_send_signal (service->process, SIGTERM);
  g_socket_set_timeout (g_socket_connection_get_socket (connection), 10);
  while ((n = g_input_stream_read (input, buffer, sizeof buffer, NULL, NULL)) > 0)
    {
      g_string_append_len (answer, buffer, n);
      if (strstr (answer->str, "}") != NULL)
        break;
    }
  g_test_message ("answer: %s", answer->str);
  g_assert_true (g_str_has_prefix (answer->str, "HTTP/1.1 503 "));
  g_assert_nonnull (strstr (answer->str, "{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"The service is shutting down.\","
                                         "\"code\":\"unavailable\"}"));
  g_assert_true (gg_test_process_wait (service->process, gg_test_timeout_ms (10000), &status));
  g_assert_cmpint (status, ==, 0);
  gg_test_process_free (service->process);
  service->process = NULL;
  a2g_service_stop (service);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/a2g/concurrency/sixteen-mixed-deadlines", test_sixteen_mixed_deadlines);
  g_test_add_func ("/a2g/concurrency/client-gone", test_client_gone);
  g_test_add_func ("/a2g/concurrency/shutdown-in-flight", test_shutdown_in_flight);
  return g_test_run ();
}
