/* bench-jsonrpc.c: throughput and latency of GgFramedStream + GgJsonRpcPeer
 * over a socketpair, in both framings, with small and large messages.
 *
 * A client peer calls a server peer's `echo` method, keeping a window of
 * outstanding calls, on one thread and one main loop (both ends share the
 * core, as a bridge and its game would on a loaded machine). Prints a
 * table; asserts nothing about speed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "gg-test-util.h"


typedef struct {
  GgJsonRpcPeer *client;
  JsonNode      *params;
  gint64         deadline;
  guint          max_calls;
  guint          sent;
  guint          done;
  guint          failed;
  guint          outstanding;
  guint          window;
  GArray        *latencies;   /* gint64 microseconds */
  gint64         started;
  gint64         finished;
} Run;

typedef struct {
  Run    *run;
  gint64  t0;
} Call;

static void issue (Run *run);

static void
echo_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, gg_jsonrpc_request_get_params (request));
  gg_jsonrpc_request_return_result (request, node);
}

static void
call_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Call *call = user_data;
  Run *run = call->run;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = gg_jsonrpc_peer_call_finish (GG_JSONRPC_PEER (source), result, &error);
  gint64 now = g_get_monotonic_time ();
  gint64 latency = now - call->t0;

  g_free (call);
  run->outstanding--;
  if (node == NULL)
    run->failed++;
  else
    {
      run->done++;
      g_array_append_val (run->latencies, latency);
    }
  run->finished = now;
  issue (run);
}

static void
issue (Run *run)
{
  while (run->outstanding < run->window && run->sent < run->max_calls &&
         g_get_monotonic_time () < run->deadline)
    {
      Call *call = g_new0 (Call, 1);

      call->run = run;
      call->t0 = g_get_monotonic_time ();
      run->sent++;
      run->outstanding++;
      g_free (gg_jsonrpc_peer_call_async (run->client, "echo", run->params, 0, NULL, call_cb, call));
    }
}

static int
cmp_i64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

static gint64
percentile (GArray *sorted, double p)
{
  guint i;

  if (sorted->len == 0)
    return 0;
  i = (guint) (p * (sorted->len - 1) + 0.5);
  return g_array_index (sorted, gint64, i);
}

static JsonNode *
make_params (gsize message_size)
{
  g_autoptr(JsonObject) obj = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  /* the envelope `{"jsonrpc":"2.0","id":N,"method":"echo","params":{"text":"..."}}` is ~60 B */
  gsize text_len = message_size > 64 ? message_size - 64 : 1;
  g_autofree char *text = g_strnfill (text_len, 'a');

  json_object_set_string_member (obj, "text", text);
  json_node_set_object (node, obj);
  return node;
}

static void
socket_streams (GgFraming framing, GgFramedStream **a, GgFramedStream **b)
{
  int sv[2];
  g_autoptr(GSocket) s0 = NULL, s1 = NULL;
  g_autoptr(GSocketConnection) c0 = NULL, c1 = NULL;

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    g_error ("socketpair: %s", g_strerror (errno));
  s0 = g_socket_new_from_fd (sv[0], NULL);
  s1 = g_socket_new_from_fd (sv[1], NULL);
  c0 = g_socket_connection_factory_create_connection (s0);
  c1 = g_socket_connection_factory_create_connection (s1);
  *a = gg_framed_stream_new_for_io_stream (G_IO_STREAM (c0), framing);
  *b = gg_framed_stream_new_for_io_stream (G_IO_STREAM (c1), framing);
}

static void
bench_rpc (const char *label, GgFraming framing, gsize message_size, guint window,
           double seconds, guint max_calls)
{
  GgFramedStream *cs, *ss;
  GgJsonRpcPeer *client, *server;
  Run run = { 0 };
  double elapsed, rate;

  socket_streams (framing, &cs, &ss);
  client = gg_jsonrpc_peer_new (cs);
  server = gg_jsonrpc_peer_new (ss);
  gg_jsonrpc_peer_add_method (server, "echo", echo_cb, NULL, NULL);
  gg_jsonrpc_peer_start (client);
  gg_jsonrpc_peer_start (server);

  run.client = client;
  run.params = make_params (message_size);
  run.max_calls = max_calls;
  run.window = window;
  run.latencies = g_array_sized_new (FALSE, FALSE, sizeof (gint64), 1 << 16);
  run.started = g_get_monotonic_time ();
  run.deadline = run.started + (gint64) (seconds * G_USEC_PER_SEC);
  issue (&run);
  while (run.outstanding > 0)
    g_main_context_iteration (NULL, TRUE);

  elapsed = (double) (run.finished - run.started) / G_USEC_PER_SEC;
  rate = elapsed > 0 ? run.done / elapsed : 0;
  g_array_sort (run.latencies, cmp_i64);
  printf ("| %-30s | %6u | %8zu | %8u | %10.0f | %10.0f | %7" G_GINT64_FORMAT " | %7" G_GINT64_FORMAT
          " | %7" G_GINT64_FORMAT " |%s\n",
          label, window, message_size, run.done, rate, 2 * rate,
          percentile (run.latencies, 0.50), percentile (run.latencies, 0.90),
          percentile (run.latencies, 0.99), run.failed > 0 ? " (failures!)" : "");
  fflush (stdout);

  g_array_unref (run.latencies);
  json_node_unref (run.params);
  g_object_unref (client);
  g_object_unref (server);
  g_object_unref (cs);
  g_object_unref (ss);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* The framing alone: one direction, no JSON. */
typedef struct {
  guint  received;
  guint  want;
} Sink;

static void
sink_message (GgFramedStream *stream, GBytes *body, gpointer user_data)
{
  ((Sink *) user_data)->received++;
}

static void
bench_framing (const char *label, GgFraming framing, gsize message_size, guint count)
{
  GgFramedStream *tx, *rx;
  Sink sink = { 0, count };
  g_autofree char *body = g_strnfill (message_size, 'b');
  gint64 t0, t1;
  double rate;

  socket_streams (framing, &tx, &rx);
  g_signal_connect (rx, "message", G_CALLBACK (sink_message), &sink);
  gg_framed_stream_start (rx);

  t0 = g_get_monotonic_time ();
  for (guint sent = 0; sent < count; )
    {
      /* keep about 1 MiB queued so memory stays flat */
      while (sent < count && gg_framed_stream_get_pending_output (tx) < 1024 * 1024)
        {
          gg_framed_stream_send (tx, body, message_size, NULL);
          sent++;
        }
      g_main_context_iteration (NULL, TRUE);
    }
  while (sink.received < count)
    g_main_context_iteration (NULL, TRUE);
  t1 = g_get_monotonic_time ();
  rate = count / ((double) (t1 - t0) / G_USEC_PER_SEC);
  printf ("| %-30s | %6s | %8zu | %8u | %10s | %10.0f | %7s | %7s | %7s |\n",
          label, "-", message_size, count, "-", rate, "-", "-", "-");
  fflush (stdout);

  g_object_unref (tx);
  g_object_unref (rx);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

int
main (int argc, char **argv)
{
  /* Shorter runs when asked (e.g. under valgrind). */
  double scale = g_getenv ("GG_BENCH_SCALE") != NULL ? g_ascii_strtod (g_getenv ("GG_BENCH_SCALE"), NULL) : 1.0;

  if (scale <= 0)
    scale = 1.0;

  printf ("GgFramedStream + GgJsonRpcPeer over a Unix socketpair, both ends on one thread\n"
          "window = calls outstanding; calls/s = echo round trips per second;\n"
          "msgs/s = messages framed and parsed per second (requests + responses)\n\n");
  printf ("| %-30s | %6s | %8s | %8s | %10s | %10s | %7s | %7s | %7s |\n",
          "case", "window", "bytes", "count", "calls/s", "msgs/s", "p50 us", "p90 us", "p99 us");
  printf ("|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n", "--------------------------------", "--------", "----------",
          "----------", "------------", "------------", "---------", "---------", "---------");

  bench_framing ("framing only, newline", GG_FRAMING_NEWLINE, 100, (guint) (1000000 * scale));
  bench_framing ("framing only, content-length", GG_FRAMING_CONTENT_LENGTH, 100, (guint) (1000000 * scale));
  bench_rpc ("json-rpc echo, newline", GG_FRAMING_NEWLINE, 100, 64, 3.0 * scale, G_MAXUINT);
  bench_rpc ("json-rpc echo, content-length", GG_FRAMING_CONTENT_LENGTH, 100, 64, 3.0 * scale, G_MAXUINT);
  bench_rpc ("json-rpc echo, newline", GG_FRAMING_NEWLINE, 100, 1, 1.0 * scale, G_MAXUINT);
  bench_rpc ("json-rpc echo, newline", GG_FRAMING_NEWLINE, 64 * 1024, 64, 2.5 * scale, G_MAXUINT);
  bench_rpc ("json-rpc echo, content-length", GG_FRAMING_CONTENT_LENGTH, 64 * 1024, 64, 2.5 * scale, G_MAXUINT);
  bench_rpc ("json-rpc echo, content-length", GG_FRAMING_CONTENT_LENGTH, 64 * 1024, 1, 1.0 * scale, G_MAXUINT);
  return 0;
}
