/* fuzz-jsonrpc-peer.c: GgJsonRpcPeer dispatch on any stream. The peer has
 * methods that answer at once, answer with an error, answer later, never
 * answer (the peer must say -32603 for them) and notify back, and two
 * outgoing calls of its own (ids 1 and 2, the second cancelled half-way)
 * that the input may answer. The first byte picks the framing, the next
 * four the chunk sizes. In newline framing every line the peer writes must
 * be a JSON-RPC 2.0 object.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gamegate.h>
#include <string.h>

#include "fuzz-common.h"

typedef struct {
  GPtrArray *later;   /* GgJsonRpcRequest, answered after the input ends */
  guint calls_done;
  gboolean closed;
} Run;

static void
method_echo (GgJsonRpcPeer    *peer,
             GgJsonRpcRequest *request,
             gpointer          user_data)
{
  g_autoptr(JsonNode) params = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (params, gg_jsonrpc_request_get_params (request));
  gg_jsonrpc_request_return_result (request, params);
}

static void
method_fail (GgJsonRpcPeer    *peer,
             GgJsonRpcRequest *request,
             gpointer          user_data)
{
  g_autoptr(JsonNode) data = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *id = gg_jsonrpc_request_dup_id_string (request);

  json_node_set_object (data, gg_jsonrpc_request_get_params (request));
  gg_jsonrpc_request_return_error (request, -32000, data, "failed %s", id != NULL ? id : "(none)");
}

static void
method_later (GgJsonRpcPeer    *peer,
              GgJsonRpcRequest *request,
              gpointer          user_data)
{
  Run *run = user_data;

  g_ptr_array_add (run->later, request);
}

static void
method_drop (GgJsonRpcPeer    *peer,
             GgJsonRpcRequest *request,
             gpointer          user_data)
{
  gg_jsonrpc_request_unref (request);
}

static void
method_notify (GgJsonRpcPeer    *peer,
               GgJsonRpcRequest *request,
               gpointer          user_data)
{
  g_autoptr(JsonNode) params = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (params, gg_jsonrpc_request_get_params (request));
  gg_jsonrpc_peer_notify (peer, "notified", params);
  gg_jsonrpc_request_return_result (request, NULL);
}

static void
fallback (GgJsonRpcPeer    *peer,
          GgJsonRpcRequest *request,
          gpointer          user_data)
{
  const char *method = gg_jsonrpc_request_get_method (request);

  if (g_str_has_prefix (method, "x/"))
    gg_jsonrpc_request_return_result (request, NULL);
  else
    gg_jsonrpc_request_return_error (request, GG_JSONRPC_METHOD_NOT_FOUND, NULL,
                                     "no method %s", method);
}

static void
call_done (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = gg_jsonrpc_peer_call_finish (GG_JSONRPC_PEER (source), result, &error);

  g_assert_true (answer != NULL || error != NULL);
  run->calls_done++;
}

static void
on_closed (GgJsonRpcPeer *peer,
           Run           *run)
{
  run->closed = TRUE;
}

/* "i:5" or "s:abc" for an id the peer must echo, NULL for any other. */
static char *
id_key (JsonNode *id)
{
  if (id == NULL || !JSON_NODE_HOLDS_VALUE (id))
    return NULL;
  if (json_node_get_value_type (id) == G_TYPE_STRING)
    return g_strconcat ("s:", json_node_get_string (id), NULL);
  if (json_node_get_value_type (id) == G_TYPE_INT64 &&
      json_node_get_int (id) >= -G_GINT64_CONSTANT (9007199254740991) &&
      json_node_get_int (id) <= G_GINT64_CONSTANT (9007199254740991))
    return g_strdup_printf ("i:%" G_GINT64_FORMAT, json_node_get_int (id));
  return NULL;
}

/* The ids of the input's lines that the peer must answer: every JSON-RPC
 * 2.0 object with a valid id that is not a response (a request, or a
 * message that is neither kind), judged by its id alone. A message of
 * neither kind whose id is one of the peer's own calls (@own_a, @own_b) is
 * taken as a broken answer to that call, by design, and not answered. */
static GHashTable *
expected_answers (const guint8 *data,
                  gsize         size,
                  gsize         max_size,
                  const char   *own_a,
                  const char   *own_b)
{
  GHashTable *ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gsize start = 0;

  for (gsize i = 0; i <= size; i++)
    {
      g_autoptr(JsonNode) node = NULL;
      gsize len;
      JsonObject *object;
      JsonNode *version;
      char *key;

      if (i < size && data[i] != '\n')
        continue;
      len = i - start;
      if (len > 0 && data[start + len - 1] == '\r')
        len--;
      /* The last line without its newline is cut short, not a message. */
      if (i < size && len <= max_size)
        node = gg_json_parse ((const char *) data + start, (gssize) len, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
      start = i + 1;
      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        continue;
      object = json_node_get_object (node);
      version = json_object_get_member (object, "jsonrpc");
      /* The oracle reads the input as untrusted as the peer does. */
      if (version == NULL || json_node_get_value_type (version) != G_TYPE_STRING ||
          g_strcmp0 (json_node_get_string (version), "2.0") != 0 ||
          json_object_has_member (object, "result") || json_object_has_member (object, "error"))
        continue;
      key = id_key (json_object_get_member (object, "id"));
      if (key != NULL && !json_object_has_member (object, "method") &&
          (g_str_equal (key + 2, own_a) || g_str_equal (key + 2, own_b)))
        g_clear_pointer (&key, g_free);
      if (key != NULL)
        g_hash_table_add (ids, key);
    }
  return ids;
}

static void
check_output (GOutputStream *out,
              GHashTable    *expected)
{
  const char *text = g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out));
  gsize size = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out));
  gsize start = 0;

  for (gsize i = 0; i < size; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = NULL;
      JsonObject *object;

      if (text[i] != '\n')
        continue;
      node = gg_json_parse (text + start, (gssize) (i - start), GG_JSON_DEFAULT_MAX_DEPTH + 2, &error);
      if (node == NULL)
        g_error ("the peer wrote invalid JSON: %s: %.*s", error->message, (int) (i - start), text + start);
      if (!JSON_NODE_HOLDS_OBJECT (node))
        g_error ("the peer wrote a non-object: %.*s", (int) (i - start), text + start);
      object = json_node_get_object (node);
      g_assert_cmpstr (json_object_get_string_member_with_default (object, "jsonrpc", ""), ==, "2.0");
      if (json_object_has_member (object, "result") || json_object_has_member (object, "error"))
        {
          g_autofree char *key = id_key (json_object_get_member (object, "id"));

          if (key != NULL)
            g_hash_table_remove (expected, key);
        }
      start = i + 1;
    }
  g_assert_cmpuint (start, ==, size);
  if (g_hash_table_size (expected) > 0)
    {
      g_autofree char *text_copy = g_strndup (text, size);
      g_autofree gpointer *keys = g_hash_table_get_keys_as_array (expected, NULL);
      g_autofree char *ids = g_strjoinv (", ", (char **) keys);

      g_error ("the peer never answered the requests with ids %s; it wrote:\n%s", ids, text_copy);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  FuzzInput in = { data, size };
  guint8 mode = fuzz_input_byte (&in);
  guint32 seed = fuzz_input_u32 (&in);
  GgFraming framing = (mode & 1) ? GG_FRAMING_CONTENT_LENGTH : GG_FRAMING_NEWLINE;
  g_autoptr(GBytes) bytes = g_bytes_new (in.data, in.size);
  g_autoptr(GInputStream) input = fuzz_chunk_stream_new (bytes, seed, 1 + (seed >> 24) % 200);
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GgFramedStream) stream = gg_framed_stream_new (input, out, framing);
  g_autoptr(GgJsonRpcPeer) peer = gg_jsonrpc_peer_new (stream);
  g_autoptr(GCancellable) cancel = g_cancellable_new ();
  g_autoptr(JsonNode) params = gg_json_parse ("{\"a\":1}", -1, 4, NULL);
  g_autofree char *id1 = NULL;
  g_autofree char *id2 = NULL;
  Run run = { g_ptr_array_new (), 0, FALSE };

  fuzz_init ();
  if (mode & 2)
    gg_framed_stream_set_max_message_size (stream, 256);
  gg_jsonrpc_peer_add_method (peer, "echo", method_echo, &run, NULL);
  gg_jsonrpc_peer_add_method (peer, "fail", method_fail, &run, NULL);
  gg_jsonrpc_peer_add_method (peer, "later", method_later, &run, NULL);
  gg_jsonrpc_peer_add_method (peer, "drop", method_drop, &run, NULL);
  gg_jsonrpc_peer_add_method (peer, "notify", method_notify, &run, NULL);
  if (mode & 4)
    gg_jsonrpc_peer_set_fallback (peer, fallback, &run, NULL);
  if (mode & 8)
    gg_jsonrpc_peer_set_id_prefix (peer, "gg-");
  g_signal_connect (peer, "closed", G_CALLBACK (on_closed), &run);
  id1 = gg_jsonrpc_peer_call_async (peer, "ping", params, 0, NULL, call_done, &run);
  id2 = gg_jsonrpc_peer_call_async (peer, "ping", NULL, 0, cancel, call_done, &run);
  gg_jsonrpc_peer_start (peer);

  for (guint i = 0; i < 4 * (in.size + 16) && !run.closed; i++)
    {
      if (i == in.size / 2)
        g_cancellable_cancel (cancel);
      g_main_context_iteration (NULL, FALSE);
    }
  if (!run.closed)
    g_error ("the peer never reported the end of its input");
  fuzz_drain ();
  /* Both calls are over by now: answered, cancelled, or failed at close. */
  g_assert_cmpuint (run.calls_done, ==, 2);
  for (guint i = 0; i < run.later->len; i++)
    gg_jsonrpc_request_return_result (run.later->pdata[i], NULL);
  g_ptr_array_unref (run.later);
  fuzz_drain ();
  if (framing == GG_FRAMING_NEWLINE)
    {
      g_autoptr(GHashTable) expected = expected_answers (in.data, in.size, (mode & 2) ? 256 : G_MAXSIZE, id1, id2);

      check_output (out, expected);
    }
  g_signal_handlers_disconnect_by_data (peer, &run);
  gg_jsonrpc_peer_close (peer);
  fuzz_drain ();
  return 0;
}
