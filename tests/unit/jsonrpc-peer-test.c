/* jsonrpc-peer-test.c: the helpers of jsonrpc-peer-test.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "jsonrpc-peer-test.h"

void
echo_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, gg_jsonrpc_request_get_params (request));
  gg_jsonrpc_request_return_result (request, node);
}

void
hold_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data)
{
  Fixture *f = user_data;

  g_ptr_array_add (f->held, request);
}

void
drop_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data)
{
  gg_jsonrpc_request_unref (request);
}

void
fail_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data)
{
  g_autoptr(JsonNode) data = json_from_string ("{\"code\":\"npc_not_found\",\"npc\":\"gorm\"}", NULL);

  gg_jsonrpc_request_return_error (request, -32050, data, "NPC %s not found", "gorm");
}

void
gerror_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data)
{
  g_autoptr(GError) error = NULL;

  if (g_strcmp0 (json_object_get_string_member_with_default (gg_jsonrpc_request_get_params (request),
                                                             "kind", ""), "rpc") == 0)
    {
      g_autoptr(JsonNode) data = json_from_string ("{\"field\":\"x\"}", NULL);
      error = gg_jsonrpc_error_new (GG_JSONRPC_INVALID_PARAMS, data, "Invalid params: '%s'", "x");
    }
  else
    error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "No such file");
  gg_jsonrpc_request_return_gerror (request, error);
}

void
note_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data)
{
  Fixture *f = user_data;

  g_assert_true (gg_jsonrpc_request_is_notification (request));
  g_assert_null (gg_jsonrpc_request_get_id (request));
  g_assert_null (gg_jsonrpc_request_dup_id_string (request));
  g_assert_true (gg_jsonrpc_request_is_answered (request));
  g_ptr_array_add (f->notes, g_strdup (gg_jsonrpc_request_get_method (request)));
  /* answering a notification sends nothing */
  gg_jsonrpc_request_return_result (request, NULL);
}

void
on_idle (GgJsonRpcPeer *peer, gpointer user_data)
{
  ((Fixture *) user_data)->idle++;
}

void
on_closed (GgJsonRpcPeer *peer, gpointer user_data)
{
  ((Fixture *) user_data)->closed++;
}

void
setup (Fixture *f, GgFraming framing)
{
  g_autoptr(GIOStream) conn = NULL;

  memset (f, 0, sizeof *f);
  conn = gg_test_stream_pair_open_socket (&f->pair);
  f->fs = gg_framed_stream_new_for_io_stream (conn, framing);
  f->peer = gg_jsonrpc_peer_new (f->fs);
  g_assert_true (gg_jsonrpc_peer_get_stream (f->peer) == f->fs);
  f->held = g_ptr_array_new ();
  f->notes = g_ptr_array_new_with_free_func (g_free);
  gg_jsonrpc_peer_add_method (f->peer, "echo", echo_cb, NULL, NULL);
  gg_jsonrpc_peer_add_method (f->peer, "hold", hold_cb, f, NULL);
  gg_jsonrpc_peer_add_method (f->peer, "drop", drop_cb, NULL, NULL);
  gg_jsonrpc_peer_add_method (f->peer, "fail", fail_cb, NULL, NULL);
  gg_jsonrpc_peer_add_method (f->peer, "gerror", gerror_cb, NULL, NULL);
  gg_jsonrpc_peer_add_method (f->peer, "note", note_cb, f, NULL);
  g_signal_connect (f->peer, "idle", G_CALLBACK (on_idle), f);
  g_signal_connect (f->peer, "closed", G_CALLBACK (on_closed), f);
  gg_jsonrpc_peer_start (f->peer);
}

void
teardown (Fixture *f)
{
  for (guint i = 0; i < f->held->len; i++)
    gg_jsonrpc_request_return_result (g_ptr_array_index (f->held, i), NULL);
  g_ptr_array_unref (f->held);
  g_clear_object (&f->peer);
  g_clear_object (&f->fs);
  gg_test_stream_pair_clear (&f->pair);
  g_ptr_array_unref (f->notes);
}

gboolean
cond_call (gpointer data)
{
  CondCall *call = data;

  return call->cond (call->f, call->data);
}

/* Runs the main loop until @cond holds; fails the test after 10 s. */
void
spin_until (Fixture *f, Cond cond, gpointer data)
{
  CondCall call = { f, cond, data };

  gg_test_stream_pair_spin_until (&f->pair, cond_call, &call);
}

gboolean
drained (Fixture *f, gpointer data)
{
  return !g_main_context_pending (NULL);
}

void
spin_idle (Fixture *f)
{
  gg_test_stream_pair_spin_idle (&f->pair);
}

void
feed (Fixture *f, const char *data, gsize len)
{
  gg_test_stream_pair_feed (&f->pair, data, len);
}

void
send_line (Fixture *f, const char *line)
{
  feed (f, line, strlen (line));
  feed (f, "\n", 1);
}

gboolean
has_line (Fixture *f, gpointer data)
{
  return memchr (f->pair.received->str, '\n', f->pair.received->len) != NULL;
}

/* The next line the peer wrote (without its newline). */
char *
next_line (Fixture *f)
{
  char *nl;
  char *line;

  spin_until (f, has_line, NULL);
  nl = memchr (f->pair.received->str, '\n', f->pair.received->len);
  line = g_strndup (f->pair.received->str, nl - f->pair.received->str);
  g_string_erase (f->pair.received, 0, nl - f->pair.received->str + 1);
  return line;
}

void
expect (Fixture *f, const char *in, const char *out)
{
  g_autofree char *line = NULL;

  send_line (f, in);
  line = next_line (f);
  g_assert_cmpstr (line, ==, out);
}

void
assert_no_output (Fixture *f)
{
  spin_idle (f);
  g_assert_cmpstr (f->pair.received->str, ==, "");
}

void
call_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  CallResult *r = user_data;

  r->result = gg_jsonrpc_peer_call_finish (GG_JSONRPC_PEER (source), result, &r->error);
  r->done = TRUE;
}

void
call_result_clear (CallResult *r)
{
  g_clear_pointer (&r->result, json_node_unref);
  g_clear_error (&r->error);
  r->done = FALSE;
}

gboolean
call_done (Fixture *f, gpointer data)
{
  return ((CallResult *) data)->done;
}
