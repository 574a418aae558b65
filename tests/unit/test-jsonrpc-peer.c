/* test-jsonrpc-peer.c: GgJsonRpcPeer driven over a real socketpair. The
 * test writes raw lines and checks the exact bytes the peer writes back.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib-unix.h>

#include "gg-test-stream.h"
#include "gg-test-util.h"

typedef struct {
  GgTestStreamPair  pair;        /* test side of the socketpair */
  GgFramedStream   *fs;
  GgJsonRpcPeer    *peer;
  GPtrArray        *held;        /* GgJsonRpcRequest * kept by "hold" */
  GPtrArray        *notes;       /* method names of notifications seen */
  guint             idle;
  guint             closed;
} Fixture;

static void
echo_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, gg_jsonrpc_request_get_params (request));
  gg_jsonrpc_request_return_result (request, node);
}

static void
hold_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data)
{
  Fixture *f = user_data;

  g_ptr_array_add (f->held, request);
}

static void
drop_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data)
{
  gg_jsonrpc_request_unref (request);
}

static void
fail_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data)
{
  g_autoptr(JsonNode) data = json_from_string ("{\"code\":\"npc_not_found\",\"npc\":\"gorm\"}", NULL);

  gg_jsonrpc_request_return_error (request, -32050, data, "NPC %s not found", "gorm");
}

static void
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

static void
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

static void
on_idle (GgJsonRpcPeer *peer, gpointer user_data)
{
  ((Fixture *) user_data)->idle++;
}

static void
on_closed (GgJsonRpcPeer *peer, gpointer user_data)
{
  ((Fixture *) user_data)->closed++;
}

static void
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

static void
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

typedef gboolean (*Cond) (Fixture *f, gpointer data);

typedef struct {
  Fixture *f;
  Cond     cond;
  gpointer data;
} CondCall;

static gboolean
cond_call (gpointer data)
{
  CondCall *call = data;

  return call->cond (call->f, call->data);
}

/* Runs the main loop until @cond holds; fails the test after 10 s. */
static void
spin_until (Fixture *f, Cond cond, gpointer data)
{
  CondCall call = { f, cond, data };

  gg_test_stream_pair_spin_until (&f->pair, cond_call, &call);
}

static gboolean
drained (Fixture *f, gpointer data)
{
  return !g_main_context_pending (NULL);
}

static void
spin_idle (Fixture *f)
{
  gg_test_stream_pair_spin_idle (&f->pair);
}

static void
feed (Fixture *f, const char *data, gsize len)
{
  gg_test_stream_pair_feed (&f->pair, data, len);
}

static void
send_line (Fixture *f, const char *line)
{
  feed (f, line, strlen (line));
  feed (f, "\n", 1);
}

static gboolean
has_line (Fixture *f, gpointer data)
{
  return memchr (f->pair.received->str, '\n', f->pair.received->len) != NULL;
}

/* The next line the peer wrote (without its newline). */
static char *
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

static void
expect (Fixture *f, const char *in, const char *out)
{
  g_autofree char *line = NULL;

  send_line (f, in);
  line = next_line (f);
  g_assert_cmpstr (line, ==, out);
}

static void
assert_no_output (Fixture *f)
{
  spin_idle (f);
  g_assert_cmpstr (f->pair.received->str, ==, "");
}

#define ERR(id, code, msg, data) \
  "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"error\":{\"code\":" #code ",\"message\":\"" msg "\",\"data\":" data "}}"

/* Incoming */

static void
test_echo (void)
{
  Fixture f;

  setup (&f, GG_FRAMING_NEWLINE);
  expect (&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{\"a\":[1,2.5,true,null,\"x\\\"\\n\\u0001é\"],\"b\":{}}}",
          "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":[1,2.5,true,null,\"x\\\"\\n\\u0001é\"],\"b\":{}}}");
  /* params absent: an empty object, never NULL */
  expect (&f, "{\"method\":\"echo\",\"id\":\"q\",\"jsonrpc\":\"2.0\"}",
          "{\"jsonrpc\":\"2.0\",\"id\":\"q\",\"result\":{}}");
  /* a null member counts as absent (oam section 1), params included */
  expect (&f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"echo\",\"params\":null}",
          "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}");
  g_assert_cmpuint (gg_jsonrpc_peer_get_pending_incoming (f.peer), ==, 0);
  teardown (&f);
}

/* Strings built by the application (e.g. from a game's raw output) may be
 * invalid UTF-8 or NULL: what goes on the wire must still be JSON. */
static void
test_send_bad_strings (void)
{
  Fixture f;
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) null_string = json_node_new (JSON_NODE_VALUE);
  g_autofree char *line = NULL;
  g_autoptr(JsonNode) parsed = NULL;

  setup (&f, GG_FRAMING_NEWLINE);
  json_node_set_string (null_string, NULL);
  json_object_set_string_member (params, "text", "a\xff" "b\xc3");
  json_object_set_member (params, "none", g_steal_pointer (&null_string));
  json_node_set_object (node, params);
  gg_jsonrpc_peer_notify (f.peer, "bad\xfe", node);
  line = next_line (&f);
  g_assert_true (g_utf8_validate (line, -1, NULL));
  parsed = gg_json_parse (line, -1, 0, NULL);
  g_assert_nonnull (parsed);
  g_assert_cmpstr (line, ==,
                   "{\"jsonrpc\":\"2.0\",\"method\":\"bad\xef\xbf\xbd\",\"params\":"
                   "{\"text\":\"a\xef\xbf\xbd" "b\xef\xbf\xbd\",\"none\":null}}");
  teardown (&f);
}

static void
test_validation (void)
{
  Fixture f;
  static const struct { const char *in, *out; } cases[] = {
    { "not json", ERR ("null", -32700, "Parse error: unexpected word", "{\"code\":\"parse_error\"}") },
    { "{\"jsonrpc\":\"2.0\",", ERR ("null", -32700, "Parse error: unexpected end of input", "{\"code\":\"parse_error\"}") },
    { "{\"jsonrpc\":\"2.0\",}", ERR ("null", -32700, "Parse error", "{\"code\":\"parse_error\"}") },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\"} x",
      ERR ("null", -32700, "Parse error: unexpected character", "{\"code\":\"parse_error\"}") },
    { "{} {}", ERR ("null", -32700, "Parse error: more than one value", "{\"code\":\"parse_error\"}") },
    { "{'id':1}", ERR ("null", -32700, "Parse error: unexpected character", "{\"code\":\"parse_error\"}") },
    { "{\"id\":0x10}", ERR ("null", -32700, "Parse error: unexpected character", "{\"code\":\"parse_error\"}") },
    { "{\"a\":\"unterminated}", ERR ("null", -32700, "Parse error: unterminated string", "{\"code\":\"parse_error\"}") },
    { "]", ERR ("null", -32700, "Parse error: unbalanced brackets", "{\"code\":\"parse_error\"}") },
    { "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\"}]",
      ERR ("null", -32600, "Invalid Request: batches are not supported", "{\"code\":\"invalid_message\"}") },
    { "[]", ERR ("null", -32600, "Invalid Request: batches are not supported", "{\"code\":\"invalid_message\"}") },
    { "\"str\"", ERR ("null", -32600, "Invalid Request: not a JSON object", "{\"code\":\"invalid_message\"}") },
    { "42", ERR ("null", -32600, "Invalid Request: not a JSON object", "{\"code\":\"invalid_message\"}") },
    { "{\"id\":1,\"method\":\"echo\"}",
      ERR ("1", -32600, "Invalid Request: \\\"jsonrpc\\\" must be \\\"2.0\\\"", "{\"code\":\"invalid_message\"}") },
    { "{\"jsonrpc\":\"1.0\",\"id\":\"a\",\"method\":\"echo\"}",
      ERR ("\"a\"", -32600, "Invalid Request: \\\"jsonrpc\\\" must be \\\"2.0\\\"", "{\"code\":\"invalid_message\"}") },
    { "{\"jsonrpc\":2.0,\"method\":\"echo\"}",
      ERR ("null", -32600, "Invalid Request: \\\"jsonrpc\\\" must be \\\"2.0\\\"", "{\"code\":\"invalid_message\"}") },
    { "{\"jsonrpc\":\"2.0\"}",
      ERR ("null", -32600, "Invalid Request: missing \\\"method\\\"", "{\"code\":\"invalid_message\"}") },
    { "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":5}",
      ERR ("2", -32600, "Invalid Request: \\\"method\\\" must be a string", "{\"code\":\"invalid_message\"}") },
    { "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":null}",
      ERR ("2", -32600, "Invalid Request: \\\"method\\\" must be a string", "{\"code\":\"invalid_message\"}") },
    { "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"echo\",\"result\":1}",
      ERR ("2", -32600, "Invalid Request: a request cannot carry \\\"result\\\" or \\\"error\\\"", "{\"code\":\"invalid_message\"}") },
    { "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"echo\",\"params\":[1]}",
      ERR ("3", -32602, "Invalid params: \\\"params\\\" must be an object", "{\"code\":\"invalid_params\"}") },
    { "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"echo\",\"params\":\"x\"}",
      ERR ("4", -32600, "Invalid Request: \\\"params\\\" must be an object", "{\"code\":\"invalid_message\"}") },
    { "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"nope\"}",
      ERR ("5", -32601, "Method not found: nope", "{\"code\":\"method_not_found\",\"method\":\"nope\"}") },
    { "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"big\",\"params\":{\"n\":123456789012345678901234}}",
      ERR ("\"x\"", -32600, "Invalid Request: integer out of range", "{\"code\":\"invalid_message\"}") },
    /* invalid UTF-8 inside a string */
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{\"s\":\"\xff\xfe\"}}",
      ERR ("null", -32700, "Parse error: invalid UTF-8", "{\"code\":\"parse_error\"}") },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xc3\"}",
      ERR ("null", -32700, "Parse error: invalid UTF-8", "{\"code\":\"parse_error\"}") },
    /* a lone surrogate escape */
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{\"s\":\"\\ud800\"}}",
      ERR ("null", -32700, "Parse error", "{\"code\":\"parse_error\"}") },
  };

  setup (&f, GG_FRAMING_NEWLINE);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *shown = g_strescape (cases[i].in, NULL);

      g_test_message ("case %u: %s", i, shown);
      expect (&f, cases[i].in, cases[i].out);
    }
  /* notifications never get an answer, even for unknown methods */
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"method\":\"nope\"}");
  send_line (&f, "{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":[1]}");
  assert_no_output (&f);
  /* nothing above reached a handler */
  g_assert_cmpuint (gg_jsonrpc_peer_get_pending_incoming (f.peer), ==, 0);
  teardown (&f);
}

static void
test_nul_byte (void)
{
  Fixture f;
  static const char msg[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{\"s\":\"a\0b\"}}\n";
  g_autofree char *line = NULL;

  setup (&f, GG_FRAMING_NEWLINE);
  feed (&f, msg, sizeof msg - 1);
  line = next_line (&f);
  g_assert_cmpstr (line, ==, ERR ("null", -32700, "Parse error: invalid UTF-8", "{\"code\":\"parse_error\"}"));
  teardown (&f);
}

/* An escaped NUL would silently cut the C string json-glib gives back
 * ("a\u0000b" read as "a"), changing ids, method names and params. */
static void
test_escaped_nul (void)
{
  Fixture f;
  g_autofree char *line = NULL;

  setup (&f, GG_FRAMING_NEWLINE);
  expect (&f, "{\"jsonrpc\":\"2.0\",\"id\":\"a\\u0000b\",\"method\":\"echo\"}",
          ERR ("null", -32700, "Parse error: escaped NUL in a string", "{\"code\":\"parse_error\"}"));
  expect (&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{\"s\":\"x\\u0000\"}}",
          ERR ("null", -32700, "Parse error: escaped NUL in a string", "{\"code\":\"parse_error\"}"));
  /* an escaped backslash followed by u0000 is just text */
  expect (&f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"echo\",\"params\":{\"s\":\"\\\\u0000\"}}",
          "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"s\":\"\\\\u0000\"}}");
  expect (&f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"echo\",\"params\":{\"s\":\"\\u0001\\\"\\u00000\"}}",
          ERR ("null", -32700, "Parse error: escaped NUL in a string", "{\"code\":\"parse_error\"}"));
  teardown (&f);
}

static void
test_ids (void)
{
  Fixture f;
  static const struct { const char *id, *echo; } good[] = {
    { "\"abc\"", "\"abc\"" },
    { "\"a\\\"b\\\\c\\u00e9\\/\"", "\"a\\\"b\\\\cé/\"" },
    { "\"\"", "\"\"" },
    { "0", "0" },
    { "-5", "-5" },
    { "-0", "0" },
    { "9007199254740991", "9007199254740991" },
    { "-9007199254740991", "-9007199254740991" },
    { "2.0", "2" },
    { "1e3", "1000" },
  };
  static const char *bad[] = {
    "9007199254740992", "-9007199254740992", "1.5", "1e400", "-1e400", "null", "true", "false",
    "{}", "[]", "[1]", "{\"a\":1}", "18446744073709551616", "99999999999999999999999999",
  };

  setup (&f, GG_FRAMING_NEWLINE);
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autofree char *in = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"echo\"}", good[i].id);
      g_autofree char *out = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}", good[i].echo);

      g_test_message ("good id %s", good[i].id);
      expect (&f, in, out);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *in = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"echo\"}", bad[i]);

      g_test_message ("bad id %s", bad[i]);
      expect (&f, in, ERR ("null", -32600, "Invalid Request: the id must be a string or an integer",
                           "{\"code\":\"invalid_message\"}"));
    }
  teardown (&f);
}

static void
test_deep_nesting (void)
{
  Fixture f;
  g_autoptr(GString) in = g_string_new (NULL);
  g_autofree char *out = NULL;

  setup (&f, GG_FRAMING_NEWLINE);

  /* 100k brackets: refused before json-glib recurses */
  for (int i = 0; i < 100000; i++)
    g_string_append_c (in, '[');
  expect (&f, in->str, ERR ("null", -32700, "Parse error: nesting deeper than 128 levels",
                            "{\"code\":\"parse_error\"}"));
  g_string_truncate (in, 0);
  for (int i = 0; i < 100000; i++)
    g_string_append (in, "{\"a\":");
  expect (&f, in->str, ERR ("null", -32700, "Parse error: nesting deeper than 128 levels",
                            "{\"code\":\"parse_error\"}"));

  /* brackets inside strings do not count, escaped quotes do not end them */
  g_string_assign (in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{\"s\":\"\\\\\\\"");
  for (int i = 0; i < 1000; i++)
    g_string_append_c (in, '[');
  g_string_append (in, "\"}}");
  send_line (&f, in->str);
  out = next_line (&f);
  g_assert_true (g_str_has_prefix (out, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"s\":\"\\\\\\\"[[[["));

  /* exactly 128 levels are fine (the request object is the first) */
  g_string_assign (in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"echo\",\"params\":{\"x\":");
  for (int i = 0; i < 126; i++)
    g_string_append_c (in, '[');
  for (int i = 0; i < 126; i++)
    g_string_append_c (in, ']');
  g_string_append (in, "}}");
  g_clear_pointer (&out, g_free);
  send_line (&f, in->str);
  out = next_line (&f);
  g_assert_true (g_str_has_prefix (out, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"x\":[[["));

  /* 129 are not */
  g_string_assign (in, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"echo\",\"params\":{\"x\":");
  for (int i = 0; i < 127; i++)
    g_string_append_c (in, '[');
  for (int i = 0; i < 127; i++)
    g_string_append_c (in, ']');
  g_string_append (in, "}}");
  expect (&f, in->str, ERR ("null", -32700, "Parse error: nesting deeper than 128 levels",
                            "{\"code\":\"parse_error\"}"));
  teardown (&f);
}

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
test_oversized (void)
{
  Fixture f;
  g_autofree char *big = g_strnfill (200, 'x');

  setup (&f, GG_FRAMING_NEWLINE);
  gg_framed_stream_set_max_message_size (f.fs, 100);
  expect (&f, big, ERR ("null", -32600, "Invalid Request: message exceeds the maximum size",
                        "{\"code\":\"invalid_message\"}"));
  expect (&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\"}",
          "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
  teardown (&f);
}

static void
test_content_length (void)
{
  Fixture f;
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":\"g1\",\"method\":\"echo\",\"params\":{\"k\":1}}";
  const char *want = "{\"jsonrpc\":\"2.0\",\"id\":\"g1\",\"result\":{\"k\":1}}";
  g_autofree char *in = g_strdup_printf ("Content-Length: %zu\r\n\r\n%s", strlen (body), body);
  g_autofree char *out = g_strdup_printf ("Content-Length: %zu\r\n\r\n%s", strlen (want), want);

  setup (&f, GG_FRAMING_CONTENT_LENGTH);
  feed (&f, in, strlen (in));
  spin_until (&f, has_line, NULL);
  spin_idle (&f);
  g_assert_cmpstr (f.pair.received->str, ==, out);
  teardown (&f);
}

/* Outgoing */

typedef struct {
  gboolean  done;
  JsonNode *result;
  GError   *error;
} CallResult;

static void
call_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  CallResult *r = user_data;

  r->result = gg_jsonrpc_peer_call_finish (GG_JSONRPC_PEER (source), result, &r->error);
  r->done = TRUE;
}

static void
call_result_clear (CallResult *r)
{
  g_clear_pointer (&r->result, json_node_unref);
  g_clear_error (&r->error);
  r->done = FALSE;
}

static gboolean
call_done (Fixture *f, gpointer data)
{
  return ((CallResult *) data)->done;
}

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

/* Hostile input: random bytes and mutated requests. Every answer must be
 * a well-formed JSON-RPC error or result, and the peer must keep going. */
static void
test_random_garbage (gconstpointer data)
{
  Fixture f;
  GgFraming framing = GPOINTER_TO_INT (data);
  const char *valid = "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"echo\",\"params\":{\"a\":[1,{\"b\":\"c\"}],\"d\":-1.5e3}}";
  g_autoptr(JsonParser) parser = json_parser_new ();
  gsize valid_len = strlen (valid);
  /* a mutation may leave `valid` intact; the last request has its own id */
  const char *last = "{\"jsonrpc\":\"2.0\",\"id\":\"last\",\"method\":\"echo\"}";
  guint answers = 0;

  setup (&f, framing);
  for (int i = 0; i < 1500; i++)
    {
      g_autoptr(GString) msg = g_string_new (NULL);

      switch (g_test_rand_int_range (0, 4))
        {
        case 0: /* random bytes */
          for (int k = g_test_rand_int_range (1, 200); k > 0; k--)
            g_string_append_c (msg, (char) g_test_rand_int_range (1, 256));
          break;
        case 1: /* truncated */
          g_string_append_len (msg, valid, g_test_rand_int_range (1, (gint32) valid_len));
          break;
        case 2: /* a few bytes changed */
          g_string_append (msg, valid);
          for (int k = g_test_rand_int_range (1, 4); k > 0; k--)
            msg->str[g_test_rand_int_range (0, (gint32) valid_len)] = (char) g_test_rand_int_range (1, 256);
          break;
        default: /* brackets and quotes */
          for (int k = g_test_rand_int_range (1, 300); k > 0; k--)
            g_string_append_c (msg, "[]{}\"\\:,0-e.a"[g_test_rand_int_range (0, 14)]);
          break;
        }
      if (framing == GG_FRAMING_NEWLINE)
        {
          for (gsize k = 0; k < msg->len; k++)
            if (msg->str[k] == '\n')
              msg->str[k] = ' ';
          send_line (&f, msg->str);
        }
      else
        {
          g_autofree char *header = g_strdup_printf ("Content-Length: %zu\r\n\r\n", msg->len);

          feed (&f, header, strlen (header));
          feed (&f, msg->str, msg->len);
        }
      if (i % 100 == 0)
        spin_idle (&f);
    }
  if (framing == GG_FRAMING_NEWLINE)
    send_line (&f, last);
  else
    {
      g_autofree char *header = g_strdup_printf ("Content-Length: %zu\r\n\r\n", strlen (last));

      feed (&f, header, strlen (header));
      feed (&f, last, strlen (last));
    }

  /* Read answers until the one to the final valid request. */
  for (;;)
    {
      g_autofree char *line = NULL;
      g_autoptr(GError) error = NULL;
      JsonObject *obj;

      if (framing == GG_FRAMING_CONTENT_LENGTH)
        {
          /* header line, blank line, then a body that ends without a newline:
           * strip "Content-Length: n\r\n\r\n" frames by hand */
          char *end;
          gsize n;

          spin_until (&f, has_line, NULL);
          while (strstr (f.pair.received->str, "\r\n\r\n") == NULL)
            spin_until (&f, has_line, NULL);
          g_assert_true (g_str_has_prefix (f.pair.received->str, "Content-Length: "));
          n = g_ascii_strtoull (f.pair.received->str + 16, &end, 10);
          g_assert_true (g_str_has_prefix (end, "\r\n\r\n"));
          g_string_erase (f.pair.received, 0, end + 4 - f.pair.received->str);
          while (f.pair.received->len < n)
            spin_until (&f, drained, NULL);
          line = g_strndup (f.pair.received->str, n);
          g_string_erase (f.pair.received, 0, n);
        }
      else
        line = next_line (&f);

      g_assert_true (json_parser_load_from_data (parser, line, -1, &error));
      g_assert_no_error (error);
      obj = json_node_get_object (json_parser_get_root (parser));
      g_assert_cmpstr (json_object_get_string_member (obj, "jsonrpc"), ==, "2.0");
      g_assert_true (json_object_has_member (obj, "result") != json_object_has_member (obj, "error"));
      answers++;
      if (json_object_has_member (obj, "result"))
        {
          if (g_strcmp0 (line, "{\"jsonrpc\":\"2.0\",\"id\":\"last\",\"result\":{}}") == 0)
            break;
        }
      else
        {
          JsonObject *err = json_object_get_object_member (obj, "error");
          g_assert_true (json_object_has_member (err, "code"));
          g_assert_true (json_object_has_member (err, "message"));
        }
    }
  g_assert_cmpuint (answers, >, 100);
  /* the unmutated request, for comparison */
  if (framing == GG_FRAMING_NEWLINE)
    expect (&f, valid,
                 "{\"jsonrpc\":\"2.0\",\"id\":12,\"result\":{\"a\":[1,{\"b\":\"c\"}],\"d\":-1500}}");
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

  g_test_add_func ("/jsonrpc-peer/echo", test_echo);
  g_test_add_func ("/jsonrpc-peer/validation", test_validation);
  g_test_add_func ("/jsonrpc-peer/send-bad-strings", test_send_bad_strings);
  g_test_add_func ("/jsonrpc-peer/nul-byte", test_nul_byte);
  g_test_add_func ("/jsonrpc-peer/escaped-nul", test_escaped_nul);
  g_test_add_func ("/jsonrpc-peer/ids", test_ids);
  g_test_add_func ("/jsonrpc-peer/deep-nesting", test_deep_nesting);
  g_test_add_func ("/jsonrpc-peer/answers", test_answers);
  g_test_add_func ("/jsonrpc-peer/answer-twice", test_answer_twice);
  g_test_add_func ("/jsonrpc-peer/idle", test_idle);
  g_test_add_func ("/jsonrpc-peer/fallback", test_fallback);
  g_test_add_func ("/jsonrpc-peer/oversized", test_oversized);
  g_test_add_func ("/jsonrpc-peer/content-length", test_content_length);
  g_test_add_func ("/jsonrpc-peer/call", test_call);
  g_test_add_func ("/jsonrpc-peer/out-of-order", test_out_of_order);
  g_test_add_func ("/jsonrpc-peer/timeout", test_timeout);
  g_test_add_func ("/jsonrpc-peer/cancel", test_cancel);
  g_test_add_func ("/jsonrpc-peer/remote-error", test_remote_error);
  g_test_add_func ("/jsonrpc-peer/close-fails-pending", test_close_fails_pending);
  g_test_add_func ("/jsonrpc-peer/answer-after-eof", test_answer_after_eof);
  g_test_add_func ("/jsonrpc-peer/local-close", test_local_close);
  g_test_add_func ("/jsonrpc-peer/peer-to-peer", test_peer_to_peer);
  g_test_add_data_func ("/jsonrpc-peer/random-garbage/newline",
                        GINT_TO_POINTER (GG_FRAMING_NEWLINE), test_random_garbage);
  g_test_add_data_func ("/jsonrpc-peer/random-garbage/content-length",
                        GINT_TO_POINTER (GG_FRAMING_CONTENT_LENGTH), test_random_garbage);

  return g_test_run ();
}
