/* test-jsonrpc-peer-answers.c: GgJsonRpcPeer answering requests: every way of
 * answering, answering twice or late, the idle signal, the fallback method,
 * and closing from our side.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "jsonrpc-peer-test.h"

static void
test_answers (void)
{
  Fixture f;

  setup (&f, GG_FRAMING_NEWLINE);
  expect (&f, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"drop\"}",
          ERR ("7", -32603, "Internal error: the request was dropped without an answer",
               "{\"code\":\"internal_error\"}"));
  expect (&f, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"fail\"}",
          ERR ("8", -32050, "NPC gorm not found", "{\"code\":\"npc_not_found\",\"npc\":\"gorm\"}"));
  expect (&f, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"gerror\",\"params\":{\"kind\":\"rpc\"}}",
          ERR ("9", -32602, "Invalid params: 'x'", "{\"code\":\"invalid_params\",\"field\":\"x\"}"));
  expect (&f, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"gerror\"}",
          ERR ("10", -32603, "No such file", "{\"code\":\"internal_error\"}"));
  /* notifications reach their handler; answers to them are dropped */
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"method\":\"note\",\"params\":{}}");
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"method\":\"note\"}");
  assert_no_output (&f);
  g_assert_cmpuint (f.notes->len, ==, 2);
  g_assert_cmpuint (f.idle, ==, 4);
  teardown (&f);
}

static void
test_answer_twice (void)
{
  Fixture f;
  GgJsonRpcRequest *request;
  g_autofree char *line = NULL;

  setup (&f, GG_FRAMING_NEWLINE);
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"id\":\"t\",\"method\":\"hold\"}");
  spin_idle (&f);
  g_assert_cmpuint (f.held->len, ==, 1);
  request = g_ptr_array_steal_index (f.held, 0);
  g_assert_cmpstr (gg_jsonrpc_request_get_method (request), ==, "hold");
  g_assert_false (gg_jsonrpc_request_is_notification (request));
  g_assert_false (gg_jsonrpc_request_is_answered (request));
  g_assert_true (gg_jsonrpc_request_get_peer (request) == f.peer);
  line = gg_jsonrpc_request_dup_id_string (request);
  g_assert_cmpstr (line, ==, "t");
  g_clear_pointer (&line, g_free);

  gg_jsonrpc_request_ref (request);
  gg_jsonrpc_request_return_result (request, NULL);
  g_assert_true (gg_jsonrpc_request_is_answered (request));
  g_test_expect_message ("gamegate", G_LOG_LEVEL_WARNING, "*answered twice*");
  gg_jsonrpc_request_return_error (request, -1, NULL, "late");
  g_test_assert_expected_messages ();

  line = next_line (&f);
  g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":\"t\",\"result\":null}");
  assert_no_output (&f);
  teardown (&f);
}

static void
test_idle (void)
{
  Fixture f;
  g_autofree char *l1 = NULL, *l2 = NULL, *l3 = NULL;

  setup (&f, GG_FRAMING_NEWLINE);
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hold\"}");
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"hold\"}");
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"method\":\"hold\"}"); /* a notification: not counted */
  spin_idle (&f);
  g_assert_cmpuint (f.held->len, ==, 3);
  g_assert_cmpuint (gg_jsonrpc_peer_get_pending_incoming (f.peer), ==, 2);

  /* answered out of order; idle only when none is left */
  gg_jsonrpc_request_return_result (g_ptr_array_index (f.held, 1), NULL);
  g_assert_cmpuint (f.idle, ==, 0);
  gg_jsonrpc_request_unref (g_ptr_array_index (f.held, 2));
  g_assert_cmpuint (f.idle, ==, 0);
  gg_jsonrpc_request_return_result (g_ptr_array_index (f.held, 0), NULL);
  g_assert_cmpuint (f.idle, ==, 1);
  g_ptr_array_set_size (f.held, 0);
  g_assert_cmpuint (gg_jsonrpc_peer_get_pending_incoming (f.peer), ==, 0);

  l1 = next_line (&f);
  l2 = next_line (&f);
  g_assert_cmpstr (l1, ==, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":null}");
  g_assert_cmpstr (l2, ==, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}");

  /* and again for the next burst */
  l3 = NULL;
  expect (&f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"echo\"}",
          "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}");
  g_assert_cmpuint (f.idle, ==, 2);
  teardown (&f);
}

static void
fallback_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);

  json_node_set_string (node, gg_jsonrpc_request_get_method (request));
  gg_jsonrpc_request_return_result (request, node);
}

static void
test_fallback (void)
{
  Fixture f;

  setup (&f, GG_FRAMING_NEWLINE);
  gg_jsonrpc_peer_set_fallback (f.peer, fallback_cb, NULL, NULL);
  expect (&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"any/thing\"}",
          "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"any/thing\"}");
  gg_jsonrpc_peer_set_fallback (f.peer, NULL, NULL, NULL);
  expect (&f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"any/thing\"}",
          ERR ("2", -32601, "Method not found: any/thing",
               "{\"code\":\"method_not_found\",\"method\":\"any/thing\"}"));
  teardown (&f);
}

static void
test_answer_after_eof (void)
{
  Fixture f;
  g_autofree char *line = NULL;

  /* "answer everything, then exit at end of input" */
  setup (&f, GG_FRAMING_NEWLINE);
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hold\"}");
  g_assert_cmpint (shutdown (f.pair.write_fd, SHUT_WR), ==, 0);
  spin_idle (&f);
  g_assert_cmpuint (f.closed, ==, 1);
  g_assert_cmpuint (gg_jsonrpc_peer_get_pending_incoming (f.peer), ==, 1);
  gg_jsonrpc_request_return_result (g_ptr_array_steal_index (f.held, 0), NULL);
  g_assert_cmpuint (f.idle, ==, 1);
  line = next_line (&f);
  g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}");
  gg_jsonrpc_peer_close (f.peer);
  teardown (&f);
}

static void
test_local_close (void)
{
  Fixture f;
  CallResult r = { 0 };

  setup (&f, GG_FRAMING_NEWLINE);
  g_free (gg_jsonrpc_peer_call_async (f.peer, "wait", NULL, 0, NULL, call_cb, &r));
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hold\"}");
  spin_idle (&f);
  gg_jsonrpc_peer_close (f.peer);
  g_assert_cmpuint (f.closed, ==, 1);
  spin_until (&f, call_done, &r);
  g_assert_error (r.error, G_IO_ERROR, G_IO_ERROR_CLOSED);
  call_result_clear (&r);
  /* answering after the close is harmless */
  gg_jsonrpc_request_return_result (g_ptr_array_steal_index (f.held, 0), NULL);
  teardown (&f);
}

static gboolean
all_held (Fixture *f, gpointer data)
{
  return f->held->len == GPOINTER_TO_UINT (data);
}

/* A client that pipelines requests without reading its answers: past
 * GG_JSONRPC_MAX_PENDING_INCOMING unanswered ones, a request is answered
 * at once and not run; once one is answered, requests run again. */
static void
test_pending_bound (void)
{
  Fixture f;
  g_autoptr(GString) batch = g_string_new (NULL);
  g_autofree char *line = NULL;
  GgJsonRpcRequest *request;

  setup (&f, GG_FRAMING_NEWLINE);
  for (guint i = 0; i < 4096; i++)
    g_string_append_printf (batch, "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"hold\"}\n", i);
  feed (&f, batch->str, batch->len);
  spin_until (&f, all_held, GUINT_TO_POINTER (4096));
  g_assert_cmpuint (gg_jsonrpc_peer_get_pending_incoming (f.peer), ==, 4096);

  expect (&f, "{\"jsonrpc\":\"2.0\",\"id\":\"more\",\"method\":\"hold\"}",
          "{\"jsonrpc\":\"2.0\",\"id\":\"more\",\"error\":{\"code\":-32603,\"message\":"
          "\"Too many requests waiting for their answers (the limit is 4096)\",\"data\":{\"code\":\"internal_error\"}}}");
  g_assert_cmpuint (f.held->len, ==, 4096);
  /* Notifications hold nothing and still run. */
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"method\":\"note\"}");
  spin_idle (&f);
  g_assert_cmpuint (f.notes->len, ==, 1);

  request = g_ptr_array_steal_index (f.held, 0);
  gg_jsonrpc_request_return_result (request, NULL);
  line = next_line (&f);
  g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":null}");
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"id\":\"again\",\"method\":\"hold\"}");
  spin_until (&f, all_held, GUINT_TO_POINTER (4096));
  assert_no_output (&f);
  teardown (&f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/jsonrpc-peer/answers", test_answers);
  g_test_add_func ("/jsonrpc-peer/answer-twice", test_answer_twice);
  g_test_add_func ("/jsonrpc-peer/idle", test_idle);
  g_test_add_func ("/jsonrpc-peer/fallback", test_fallback);
  g_test_add_func ("/jsonrpc-peer/answer-after-eof", test_answer_after_eof);
  g_test_add_func ("/jsonrpc-peer/local-close", test_local_close);
  g_test_add_func ("/jsonrpc-peer/pending-bound", test_pending_bound);

  return g_test_run ();
}
