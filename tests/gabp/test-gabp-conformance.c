/* test-gabp-conformance.c: the mod-side GABP server of the real
 * `gamegate serve` never drops a bridge's message silently. A request
 * whose id is not a UUID is answered with an error echoing that id; what
 * cannot be answered at all (not JSON, no usable id, over the size limit,
 * a broken response) is a warning naming what was wrong, once per
 * connection.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "gabp-test-util.h"
#include "gg-gabp-launcher.h"
#include "gg-test-util.h"

typedef struct {
  char *dir;
  char *conf;
  guint16 port;
  GgTestProcess *process;
} Daemon;

static void
daemon_start (Daemon *d)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  d->dir = g_dir_make_tmp ("gg-gabp-conf-XXXXXX", NULL);
  d->port = gg_loopback_port_pick_free (&error);
  g_assert_no_error (error);
  text = g_strdup_printf ("[gabp]\nserver-port=%u\nserver-token=%s\nbridge-file=\n", d->port, TEST_TOKEN2);
  d->conf = g_build_filename (d->dir, "gamegate.conf", NULL);
  g_assert_true (g_file_set_contents (d->conf, text, -1, NULL));
  {
    const char *args[] = { "--config", d->conf, "serve", NULL };
    d->process = gg_test_process_spawn (args, NULL, &error);
    g_assert_no_error (error);
  }
  /* Listening once a plain connection succeeds. */
  {
    g_autoptr(GSocketConnection) connection =
      gg_test_connect_with_retry (d->port, gg_test_timeout_ms (10000));

    g_assert_nonnull (connection);
    g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  }
}

static void
daemon_stop (Daemon *d)
{
  int status = -1;

  gg_test_process_send_signal (d->process, SIGTERM);
  g_assert_true (gg_test_process_wait (d->process, gg_test_timeout_ms (10000), &status));
  g_assert_cmpint (status, ==, 0);
  g_remove (d->conf);
  g_rmdir (d->dir);
  g_free (d->conf);
  g_free (d->dir);
}

static void
daemon_free (Daemon *d)
{
  g_clear_pointer (&d->process, gg_test_process_free);
}

static char *
next_text (TestPeer *peer)
{
  g_autoptr(JsonNode) node = test_peer_next (peer, gg_test_timeout_ms (5000));

  g_assert_nonnull (node);
  return gg_json_to_string (node);
}

/* A request the server cannot otherwise read still gets its id back. */
static void
test_non_uuid_ids_are_echoed (void)
{
  Daemon d = { 0 };
  TestPeer *peer;
  g_autofree char *first = NULL, *second = NULL, *third = NULL;
  g_autoptr(JsonObject) welcome = NULL;

  daemon_start (&d);
  peer = test_peer_connect (d.port);
  test_peer_send (peer, "{\"v\":\"gabp/1\",\"id\":\"req-1\",\"type\":\"request\",\"method\":\"session/hello\","
                        "\"params\":{\"token\":\"" TEST_TOKEN2 "\",\"bridgeVersion\":\"1.0\",\"platform\":\"linux\","
                        "\"launchId\":\"x\"}}");
  first = next_text (peer);
  g_assert_cmpstr (first, ==, "{\"v\":\"gabp/1\",\"id\":\"req-1\",\"type\":\"response\",\"error\":{\"code\":-32600,"
                              "\"message\":\"the id must be a UUID\"}}");
  /* an id of the right kind but not a UUID, and a message with no type */
  test_peer_send (peer, "{\"v\":\"gabp/1\",\"id\":\"\",\"type\":\"request\",\"method\":\"tools/list\"}");
  second = next_text (peer);
  g_assert_cmpstr (second, ==, "{\"v\":\"gabp/1\",\"id\":\"\",\"type\":\"response\",\"error\":{\"code\":-32600,"
                               "\"message\":\"the id must be a UUID\"}}");
  test_peer_send (peer, "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440001\",\"method\":\"tools/list\"}");
  third = next_text (peer);
  g_assert_cmpstr (third, ==, "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440001\",\"type\":\"response\","
                              "\"error\":{\"code\":-32600,\"message\":\"the type must be \\\"request\\\", \\\"response\\\" or \\\"event\\\"\"}}");
  /* the connection is fine: a good hello works */
  welcome = test_peer_hello (peer, TEST_TOKEN2);
  g_assert_cmpint (test_response_error_code (welcome), ==, 0);
  test_peer_free (peer);
  daemon_stop (&d);
  g_assert_cmpuint (gg_test_process_count_in_stderr (d.process, "-WARNING **"), ==, 0);
  daemon_free (&d);
}

/* A message the strict parser refuses is still answered when its id can
 * be read: a number beyond a double's range (1 followed by 400 zeros) is
 * an invalid request, as over oam; JSON broken after the id is a parse
 * error. Broken inside the id, it cannot be answered. */
static void
test_unparsable_with_readable_id (void)
{
  Daemon d = { 0 };
  TestPeer *peer;
  g_autofree char *zeros = g_strnfill (400, '0');
  g_autofree char *huge_hello = g_strdup_printf ("{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440011\","
                                                 "\"type\":\"request\",\"method\":\"session/hello\",\"params\":{\"token\":\"t\","
                                                 "\"bridgeVersion\":\"1.0\",\"platform\":\"linux\",\"launchId\":1%s}}", zeros);
  g_autofree char *id_last = g_strdup_printf ("{\"v\":\"gabp/1\",\"type\":\"request\",\"method\":\"tools/list\","
                                              "\"params\":{\"n\":-1%s},\"id\":\"550e8400-e29b-41d4-a716-446655440012\"}", zeros);
  g_autoptr(JsonObject) welcome = NULL;
  struct {
    const char *send;
    const char *answer;
  } cases[] = {
    { huge_hello,
      "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440011\",\"type\":\"response\",\"error\":{\"code\":-32600,"
      "\"message\":\"JSON parse error at line 1, column 175: number out of range\"}}" },
    { id_last,
      "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440012\",\"type\":\"response\",\"error\":{\"code\":-32600,"
      "\"message\":\"JSON parse error at line 1, column 68: number out of range\"}}" },
    /* truncated after the id */
    { "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440013\",\"type\":\"request\",\"method\":\"tools/li",
      "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440013\",\"type\":\"response\",\"error\":{\"code\":-32700,"
      "\"message\":\"JSON parse error at line 1, column 94: unterminated string\"}}" },
    /* cut right after the id */
    { "{\"v\":\"gabp/1\",\"type\":\"request\",\"id\":\"550e8400-e29b-41d4-a716-446655440016\"",
      "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440016\",\"type\":\"response\",\"error\":{\"code\":-32700,"
      "\"message\":\"JSON parse error at line 1, column 75: unexpected end of input\"}}" },
    /* junk after the id, and no type yet: answered like a message without one */
    { "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440014\",type:request}",
      "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440014\",\"type\":\"response\",\"error\":{\"code\":-32700,"
      "\"message\":\"JSON parse error at line 1, column 59: string expected as object key\"}}" },
    /* broken inside the id: nothing to answer with */
    { "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-4466554400\x01", NULL },
    /* a response is never answered, readable id or not */
    { "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440015\",\"type\":\"response\",\"result\":{\"n\":1e999}}", NULL },
  };

  daemon_start (&d);
  peer = test_peer_connect (d.port);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      test_peer_send (peer, cases[i].send);
      if (cases[i].answer != NULL)
        {
          g_autofree char *answer = next_text (peer);

          g_assert_cmpstr (answer, ==, cases[i].answer);
        }
    }
  /* Nothing else was answered, and the connection is fine. */
  welcome = test_peer_hello (peer, TEST_TOKEN2);
  g_assert_cmpint (test_response_error_code (welcome), ==, 0);
  g_assert_true (g_queue_is_empty (&peer->messages));
  test_peer_free (peer);
  daemon_stop (&d);
  g_assert_cmpuint (gg_test_process_count_in_stderr (d.process, "a bridge sent a message that is not JSON, which cannot be "
                                                                "answered: JSON parse error at line 1, column 55: control "
                                                                "character in string (must be escaped)"), ==, 1);
  daemon_free (&d);
}

static void
send_huge (TestPeer *peer)
{
  gsize size = GG_GABP_DEFAULT_MAX_MESSAGE_SIZE + 10;
  g_autofree char *header = g_strdup_printf ("Content-Length: %" G_GSIZE_FORMAT "\r\n\r\n", size);
  g_autofree char *body = g_malloc (size);

  memset (body, ' ', size);
  body[0] = '{';
  body[size - 1] = '}';
  test_peer_send_raw (peer, header, strlen (header));
  test_peer_send_raw (peer, body, size);
}

/* What cannot be answered is a warning naming the problem, once for each
 * connection; the connection lives on. */
static void
test_unanswerable_is_warned_about (void)
{
  Daemon d = { 0 };
  struct {
    const char *send;
    const char *warning;
  } cases[] = {
    { "{oops", "a bridge sent a message that is not JSON, which cannot be answered" },
    { "{\"v\":\"gabp/1\",\"type\":\"request\",\"method\":\"tools/list\"}",
      "a bridge sent a message whose id cannot be read, which cannot be answered: the id is missing" },
    { "{\"v\":\"gabp/1\",\"id\":7,\"type\":\"request\",\"method\":\"tools/list\"}",
      "a bridge sent a message whose id cannot be read, which cannot be answered: the id must be a UUID string" },
    { NULL, "a bridge sent a message whose id cannot be read, which cannot be answered: "
            "message exceeds the maximum size" },
    { "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440002\",\"type\":\"response\"}",
      "a bridge sent an invalid response, which cannot be answered" },
  };
  const char *stderr_text;

  daemon_start (&d);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      TestPeer *peer = test_peer_connect (d.port);
      g_autoptr(JsonObject) welcome = NULL;

      if (cases[i].send != NULL)
        test_peer_send (peer, cases[i].send);
      else
        send_huge (peer);
      /* the same again: on this connection, only the debug log hears of it */
      test_peer_send (peer, "{again");
      welcome = test_peer_hello (peer, TEST_TOKEN2);
      g_assert_cmpint (test_response_error_code (welcome), ==, 0);
      g_assert_true (g_queue_is_empty (&peer->messages));
      test_peer_free (peer);
    }
  daemon_stop (&d);
  stderr_text = gg_test_process_get_stderr (d.process);
  g_test_message ("stderr: %s", stderr_text);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpuint (gg_test_process_count_in_stderr (d.process, cases[i].warning), ==, 1);
  /* one warning per connection: the second message of each was not one */
  g_assert_cmpuint (gg_test_process_count_in_stderr (d.process, "-WARNING **"), ==, G_N_ELEMENTS (cases));
  g_assert_cmpuint (gg_test_process_count_in_stderr (d.process, TEST_TOKEN2), ==, 0);
  daemon_free (&d);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gabp/conformance/non-uuid-ids-are-echoed", test_non_uuid_ids_are_echoed);
  g_test_add_func ("/gabp/conformance/unanswerable-is-warned-about", test_unanswerable_is_warned_about);
  g_test_add_func ("/gabp/conformance/unparsable-with-readable-id", test_unparsable_with_readable_id);
  return g_test_run ();
}
