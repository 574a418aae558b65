/* test-jsonrpc-peer.c: GgJsonRpcPeer driven over a real socketpair: what it
 * accepts and refuses as messages (validation, ids, strings, NUL bytes,
 * nesting, size, both framings, random garbage). The test writes raw lines
 * and checks the exact bytes the peer writes back.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "jsonrpc-peer-test.h"

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
  g_test_add_func ("/jsonrpc-peer/oversized", test_oversized);
  g_test_add_func ("/jsonrpc-peer/content-length", test_content_length);
  g_test_add_data_func ("/jsonrpc-peer/random-garbage/newline",
                        GINT_TO_POINTER (GG_FRAMING_NEWLINE), test_random_garbage);
  g_test_add_data_func ("/jsonrpc-peer/random-garbage/content-length",
                        GINT_TO_POINTER (GG_FRAMING_CONTENT_LENGTH), test_random_garbage);

  return g_test_run ();
}
