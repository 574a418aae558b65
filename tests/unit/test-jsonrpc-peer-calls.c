/* test-jsonrpc-peer-calls.c: GgJsonRpcPeer calling the other side: results in and
 * out of order, timeouts, cancellation, remote errors, pending calls failed by
 * a close, and two peers talking to each other.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "jsonrpc-peer-test.h"

static void
test_call (void)
{
  Fixture f;
  CallResult r = { 0 };
  g_autoptr(JsonNode) params = json_from_string ("{\"a\":1}", NULL);
  g_autofree char *id = NULL, *line = NULL;

  setup (&f, GG_FRAMING_NEWLINE);
  id = gg_jsonrpc_peer_call_async (f.peer, "ping", params, 0, NULL, call_cb, &r);
  g_assert_cmpstr (id, ==, "1");
  line = next_line (&f);
  g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"a\":1}}");
  /* a string "1" is not the integer 1; unknown ids are ignored */
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":0}");
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"id\":77,\"result\":0}");
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"x\"}}");
  assert_no_output (&f);
  g_assert_false (r.done);
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true}}");
  spin_until (&f, call_done, &r);
  g_assert_no_error (r.error);
  g_assert_true (json_object_get_boolean_member (json_node_get_object (r.result), "ok"));
  call_result_clear (&r);

  /* a prefix makes string ids; no params leaves them out */
  gg_jsonrpc_peer_set_id_prefix (f.peer, "t-");
  g_clear_pointer (&id, g_free);
  id = gg_jsonrpc_peer_call_async (f.peer, "tool/call", NULL, 0, NULL, call_cb, &r);
  g_assert_cmpstr (id, ==, "t-2");
  g_clear_pointer (&line, g_free);
  line = next_line (&f);
  g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":\"t-2\",\"method\":\"tool/call\"}");
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":0}");
  assert_no_output (&f);
  g_assert_false (r.done);
  send_line (&f, "{\"result\":null,\"id\":\"t-2\",\"jsonrpc\":\"2.0\"}");
  spin_until (&f, call_done, &r);
  g_assert_no_error (r.error);
  g_assert_true (JSON_NODE_HOLDS_NULL (r.result));
  call_result_clear (&r);

  /* notify */
  gg_jsonrpc_peer_notify (f.peer, "tool/cancel", params);
  g_clear_pointer (&line, g_free);
  line = next_line (&f);
  g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"method\":\"tool/cancel\",\"params\":{\"a\":1}}");
  teardown (&f);
}

static void
test_out_of_order (void)
{
  Fixture f;
  CallResult r[10] = { { 0 } };
  char *ids[10];

  setup (&f, GG_FRAMING_NEWLINE);
  gg_jsonrpc_peer_set_id_prefix (f.peer, "c");
  for (int i = 0; i < 10; i++)
    {
      g_autofree char *p = g_strdup_printf ("{\"i\":%d}", i);
      g_autoptr(JsonNode) params = json_from_string (p, NULL);

      ids[i] = gg_jsonrpc_peer_call_async (f.peer, "work", params, 0, NULL, call_cb, &r[i]);
    }
  for (int i = 0; i < 10; i++)
    {
      g_autofree char *line = next_line (&f);
      g_autofree char *want = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":\"work\",\"params\":{\"i\":%d}}",
                                               ids[i], i);
      g_assert_cmpstr (line, ==, want);
    }
  /* answer in a shuffled order: 9, 0, 8, 1, ... */
  for (int k = 0; k < 10; k++)
    {
      int i = (k % 2 == 0) ? 9 - k / 2 : k / 2;
      g_autofree char *resp = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"result\":%d}", ids[i], i * 100);

      send_line (&f, resp);
    }
  for (int i = 0; i < 10; i++)
    {
      spin_until (&f, call_done, &r[i]);
      g_assert_no_error (r[i].error);
      g_assert_cmpint (json_node_get_int (r[i].result), ==, i * 100);
      call_result_clear (&r[i]);
      g_free (ids[i]);
    }
  teardown (&f);
}

static void
test_timeout (void)
{
  Fixture f;
  CallResult r = { 0 };
  g_autofree char *id = NULL, *line = NULL;

  setup (&f, GG_FRAMING_NEWLINE);
  id = gg_jsonrpc_peer_call_async (f.peer, "slow", NULL, 50, NULL, call_cb, &r);
  line = next_line (&f);
  spin_until (&f, call_done, &r);
  g_assert_error (r.error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  call_result_clear (&r);
  /* the late answer is ignored */
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":0}");
  assert_no_output (&f);
  g_assert_false (r.done);
  teardown (&f);
}

static void
test_cancel (void)
{
  Fixture f;
  CallResult r = { 0 }, r2 = { 0 };
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *id = NULL, *id2 = NULL, *line = NULL;

  setup (&f, GG_FRAMING_NEWLINE);
  id = gg_jsonrpc_peer_call_async (f.peer, "slow", NULL, 10000, cancellable, call_cb, &r);
  line = next_line (&f);
  g_cancellable_cancel (cancellable);
  spin_until (&f, call_done, &r);
  g_assert_error (r.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  call_result_clear (&r);
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":0}");
  assert_no_output (&f);
  g_assert_false (r.done);

  /* already cancelled: fails without sending */
  id2 = gg_jsonrpc_peer_call_async (f.peer, "slow", NULL, 0, cancellable, call_cb, &r2);
  spin_until (&f, call_done, &r2);
  g_assert_error (r2.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  call_result_clear (&r2);
  assert_no_output (&f);
  teardown (&f);
}

static void
test_remote_error (void)
{
  Fixture f;
  CallResult r = { 0 };
  g_autofree char *id = NULL, *line = NULL;
  JsonNode *data;

  setup (&f, GG_FRAMING_NEWLINE);
  id = gg_jsonrpc_peer_call_async (f.peer, "npc/talk", NULL, 0, NULL, call_cb, &r);
  line = next_line (&f);
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32050,\"message\":\"NPC not found\","
                 "\"data\":{\"code\":\"npc_not_found\",\"npc\":\"gorm\"}}}");
  spin_until (&f, call_done, &r);
  g_assert_error (r.error, GG_JSONRPC_ERROR, -32050);
  g_assert_cmpstr (r.error->message, ==, "NPC not found");
  data = gg_jsonrpc_error_get_data (r.error);
  g_assert_nonnull (data);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (data), "npc"), ==, "gorm");
  {
    /* the data survives a copy of the error */
    g_autoptr(GError) copy = g_error_copy (r.error);
    g_assert_nonnull (gg_jsonrpc_error_get_data (copy));
    g_assert_true (gg_jsonrpc_error_get_data (copy) != data);
  }
  call_result_clear (&r);

  /* a malformed error, a result-less response, both result and error */
  for (int i = 0; i < 3; i++)
    {
      static const char *responses[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":\"nope\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":%s}",
        "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":1,\"error\":{\"code\":1,\"message\":\"\"}}",
      };
      g_autofree char *cid = gg_jsonrpc_peer_call_async (f.peer, "x", NULL, 0, NULL, call_cb, &r);
      g_autofree char *resp = g_strdup_printf (responses[i], cid);

      g_clear_pointer (&line, g_free);
      line = next_line (&f);
      send_line (&f, resp);
      spin_until (&f, call_done, &r);
      g_assert_error (r.error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      call_result_clear (&r);
    }
  assert_no_output (&f);
  g_assert_null (gg_jsonrpc_error_get_data (NULL));
  teardown (&f);
}

static void
test_close_fails_pending (void)
{
  Fixture f;
  CallResult r[3] = { { 0 } }, late = { 0 };

  setup (&f, GG_FRAMING_NEWLINE);
  for (int i = 0; i < 3; i++)
    g_free (gg_jsonrpc_peer_call_async (f.peer, "wait", NULL, 0, NULL, call_cb, &r[i]));
  spin_idle (&f);
  g_assert_cmpint (shutdown (f.pair.write_fd, SHUT_WR), ==, 0);
  for (int i = 0; i < 3; i++)
    {
      spin_until (&f, call_done, &r[i]);
      g_assert_error (r[i].error, G_IO_ERROR, G_IO_ERROR_CLOSED);
      call_result_clear (&r[i]);
    }
  g_assert_cmpuint (f.closed, ==, 1);

  g_free (gg_jsonrpc_peer_call_async (f.peer, "wait", NULL, 0, NULL, call_cb, &late));
  spin_until (&f, call_done, &late);
  g_assert_error (late.error, G_IO_ERROR, G_IO_ERROR_CLOSED);
  call_result_clear (&late);

  gg_jsonrpc_peer_close (f.peer);
  g_assert_cmpuint (f.closed, ==, 1);
  teardown (&f);
}

/* Two peers talking to each other. */
static void
test_peer_to_peer (void)
{
  int sv[2];
  GgFramedStream *streams[2];
  GgJsonRpcPeer *peers[2];
  CallResult r = { 0 };
  g_autoptr(JsonNode) params = json_from_string ("{\"text\":\"héllo\",\"n\":[1,2,3]}", NULL);

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), ==, 0);
  for (int i = 0; i < 2; i++)
    {
      g_autoptr(GSocket) sock = g_socket_new_from_fd (sv[i], NULL);
      g_autoptr(GSocketConnection) conn = g_socket_connection_factory_create_connection (sock);

      streams[i] = gg_framed_stream_new_for_io_stream (G_IO_STREAM (conn), GG_FRAMING_CONTENT_LENGTH);
      peers[i] = gg_jsonrpc_peer_new (streams[i]);
      gg_jsonrpc_peer_start (peers[i]);
    }
  gg_jsonrpc_peer_add_method (peers[1], "echo", echo_cb, NULL, NULL);
  g_free (gg_jsonrpc_peer_call_async (peers[0], "echo", params, 5000, NULL, call_cb, &r));
  while (!r.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (r.error);
  g_assert_true (json_node_equal (r.result, params));
  call_result_clear (&r);

  for (int i = 0; i < 2; i++)
    {
      g_object_unref (peers[i]);
      g_object_unref (streams[i]);
    }
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/jsonrpc-peer/call", test_call);
  g_test_add_func ("/jsonrpc-peer/out-of-order", test_out_of_order);
  g_test_add_func ("/jsonrpc-peer/timeout", test_timeout);
  g_test_add_func ("/jsonrpc-peer/cancel", test_cancel);
  g_test_add_func ("/jsonrpc-peer/remote-error", test_remote_error);
  g_test_add_func ("/jsonrpc-peer/close-fails-pending", test_close_fails_pending);
  g_test_add_func ("/jsonrpc-peer/peer-to-peer", test_peer_to_peer);

  return g_test_run ();
}
