/* bench-tap.c: what the bus tap costs. Two bus round trips, each measured
 * with nobody listening, with an in-process observer that discards every
 * record, and with the socket tap of `gamegate serve` (gateway/
 * gg-tap-server.c, compiled in) and a reader draining it on a thread:
 * a tool call to an in-process target, and an agent turn (the shared fake
 * model, one tool round on that target, two model steps). The modes are
 * interleaved in rounds so that a busy machine weighs on all of them alike.
 * Prints throughput and latency percentiles side by side; asserts nothing.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>

#include <gamegate.h>

#include "gg-tap-server.h"
#include "gg-test-model.h"

#define ROUNDS 3
#define SECONDS_PER_ROUND 0.7
#define MAX_SAMPLES 2000000

/* ---- an in-process target answering at once ---------------------------- */

#define BENCH_TYPE_TARGET (bench_target_get_type ())
G_DECLARE_FINAL_TYPE (BenchTarget, bench_target, BENCH, TARGET, GObject)

struct _BenchTarget {
  GObject parent_instance;
};

static const char *
target_get_id (GgTarget *target)
{
  return "bench:echo";
}

static void
target_call_tool_async (GgTarget            *target,
                        const char          *name,
                        JsonObject          *arguments,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (target, cancellable, callback, user_data);
  JsonNode *node = json_node_new (JSON_NODE_VALUE);

  json_node_set_int (node, 42);
  g_task_return_pointer (task, node, (GDestroyNotify) json_node_unref);
}

static JsonNode *
target_call_tool_finish (GgTarget      *target,
                         GAsyncResult  *result,
                         GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
target_iface_init (GgTargetInterface *iface)
{
  iface->get_id = target_get_id;
  iface->call_tool_async = target_call_tool_async;
  iface->call_tool_finish = target_call_tool_finish;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (BenchTarget, bench_target, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_TARGET, target_iface_init))

static void bench_target_class_init (BenchTargetClass *klass) { }
static void bench_target_init (BenchTarget *self) { }

/* ---- the round trips --------------------------------------------------- */

static GgBus *bus;
static GgTarget *target;
static JsonObject *arguments;
static JsonNode *model_spec;
static JsonArray *tools;
static gboolean done;

static void
on_called (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(JsonNode) output = gg_target_call_tool_finish (GG_TARGET (source), result, NULL);

  g_assert (output != NULL);
  done = TRUE;
}

static void
tool_call (GCancellable *cancellable)
{
  done = FALSE;
  gg_target_call_tool_async (target, "echo", arguments, cancellable, on_called, NULL);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

/* The same call without gg_target_call_tool_async(): the target's own
 * implementation, so what libgamegate's wrapper (and its tap check) adds
 * shows against it. */
static void
on_called_directly (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(JsonNode) output = GG_TARGET_GET_IFACE (source)->call_tool_finish (GG_TARGET (source), result, NULL);

  g_assert (output != NULL);
  done = TRUE;
}

static void
tool_call_directly (GCancellable *cancellable)
{
  done = FALSE;
  GG_TARGET_GET_IFACE (target)->call_tool_async (target, "echo", arguments, cancellable, on_called_directly, NULL);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

static GgModel *
fake_factory (JsonObject  *spec,
              gpointer     user_data,
              GError     **error)
{
  return GG_MODEL (gg_test_fake_model_new (
    "[{\"toolCalls\":[{\"id\":\"c1\",\"name\":\"echo\",\"arguments\":{\"n\":1}}]},{\"text\":\"Done.\"}]"));
}

static void
run_on_bus (GgToolInvocation *invocation,
            gpointer          user_data)
{
  gg_bus_run_tool_invocation (bus, invocation);
}

static void
on_turn_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(JsonObject) answer = gg_agent_turn_run_finish (GG_AGENT_TURN (source), result, NULL);

  g_assert (answer != NULL);
  done = TRUE;
}

static void
agent_turn (GCancellable *cancellable)
{
  g_autoptr(GgModel) model = gg_bus_create_model (bus, model_spec, NULL);
  g_autoptr(GgAgentTurn) turn = gg_agent_turn_new (model, NULL, NULL, tools, "Go", NULL, NULL);

  gg_agent_turn_set_executor (turn, run_on_bus, NULL, NULL);
  done = FALSE;
  gg_agent_turn_run_async (turn, cancellable, on_turn_done, NULL);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

/* ---- the modes --------------------------------------------------------- */

enum { MODE_DIRECT, MODE_NONE, MODE_DISCARD, MODE_SOCKET, N_MODES };
static const char *mode_names[N_MODES] = { "target called directly", "no observer", "discarding observer",
                                           "socket tap + reader" };

typedef struct {
  gint64 *samples;
  guint n;
  double seconds;
} Figures;

static guint64 discarded;

static void
discard (GgBus      *self,
         JsonObject *record,
         gpointer    user_data)
{
  discarded++;
}

static guint64 read_bytes;

static gpointer
drain (gpointer data)
{
  GSocket *socket = data;
  char buffer[65536];
  gssize n;

  while ((n = g_socket_receive (socket, buffer, sizeof buffer, NULL, NULL)) > 0)
    g_atomic_pointer_add (&read_bytes, n);
  return NULL;
}

static int
compare_gint64 (const void *a,
                const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

static double
percentile (const gint64 *sorted,
            guint         n,
            double        p)
{
  return n == 0 ? 0 : (double) sorted[MIN (n - 1, (guint) (p * n))];
}

static void
measure (const char *what,
         void      (*round_trip) (GCancellable *cancellable),
         void      (*direct) (GCancellable *cancellable),
         const char *socket_path)
{
  Figures figures[N_MODES] = { 0 };
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  /* As a front end does: the request's correlation on its cancellable. */
  gg_bus_set_correlation (cancellable, "bench", "s1", "bench-1");
  for (guint m = 0; m < N_MODES; m++)
    figures[m].samples = g_new (gint64, MAX_SAMPLES);

  for (guint i = 0; i < 2000; i++)
    round_trip (cancellable);

  for (guint round = 0; round < ROUNDS; round++)
    for (guint m = direct != NULL ? MODE_DIRECT : MODE_NONE; m < N_MODES; m++)
      {
        Figures *f = &figures[m];
        void (*trip) (GCancellable *) = m == MODE_DIRECT ? direct : round_trip;
        guint observer = 0;
        GgTapServer *server = NULL;
        g_autoptr(GSocket) reader = NULL;
        GThread *thread = NULL;
        gint64 start, end;

        if (m == MODE_DISCARD)
          observer = gg_bus_add_observer (bus, discard, NULL, NULL);
        else if (m == MODE_SOCKET)
          {
            g_autoptr(GSocketAddress) address = g_unix_socket_address_new (socket_path);
            g_autoptr(GError) error = NULL;

            server = gg_tap_server_new (bus, socket_path, &error);
            g_assert (server != NULL);
            reader = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, NULL);
            g_assert (g_socket_connect (reader, address, NULL, NULL));
            /* Until the server accepted it, nobody listens. */
            while (!gg_bus_is_observed (bus))
              g_main_context_iteration (NULL, TRUE);
            thread = g_thread_new ("tap-reader", drain, reader);
          }

        start = g_get_monotonic_time ();
        end = start + (gint64) (SECONDS_PER_ROUND * G_USEC_PER_SEC);
        for (gint64 now = start; now < end && f->n < MAX_SAMPLES;)
          {
            gint64 before = now;

            trip (cancellable);
            now = g_get_monotonic_time ();
            f->samples[f->n++] = now - before;
          }
        f->seconds += (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;

        if (observer != 0)
          gg_bus_remove_observer (bus, observer);
        if (server != NULL)
          {
            /* Let the queued records go out, then close. */
            for (guint i = 0; i < 200; i++)
              g_main_context_iteration (NULL, FALSE);
            gg_tap_server_free (server);
            g_socket_shutdown (reader, TRUE, TRUE, NULL);
            g_thread_join (thread);
            while (g_main_context_iteration (NULL, FALSE))
              ;
          }
      }

  printf ("%s, %u rounds of %.1f s per mode:\n", what, ROUNDS, SECONDS_PER_ROUND);
  printf ("  %-22s %12s %10s %10s %9s\n", "mode", "per second", "p50 us", "p99 us", "time/trip");
  {
    double base = 0;

    for (guint m = 0; m < N_MODES; m++)
      {
        Figures *f = &figures[m];
        double rate = f->seconds > 0 ? f->n / f->seconds : 0;

        if (f->n == 0)
          {
            g_free (f->samples);
            continue;
          }
        qsort (f->samples, f->n, sizeof (gint64), compare_gint64);
        if (base == 0)
          base = rate;
        printf ("  %-22s %12.0f %10.1f %10.1f %+8.1f%%\n", mode_names[m], rate,
                percentile (f->samples, f->n, 0.50), percentile (f->samples, f->n, 0.99),
                100.0 * (base / rate - 1.0));
        g_free (f->samples);
      }
  }
}

static void
quiet (const char     *domain,
       GLogLevelFlags  level,
       const char     *message,
       gpointer        user_data)
{
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("gg-bench-tap-XXXXXX", &error);
  g_autofree char *socket_path = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_assert (dir != NULL);
  socket_path = g_build_filename (dir, "tap.sock", NULL);
  /* The tap server's "listening on" messages, once per round. */
  g_log_set_handler (G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE, quiet, NULL);
  bus = gg_bus_new ();
  target = g_object_new (BENCH_TYPE_TARGET, NULL);
  g_assert (gg_bus_add_target (bus, target, NULL));
  g_assert (gg_bus_register_model_type (bus, "fake", fake_factory, NULL, NULL, NULL));
  arguments = json_object_new ();
  json_object_set_int_member (arguments, "n", 1);
  json_object_set_string_member (arguments, "token", "not-shown");
  model_spec = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (model_spec, "fake");
  g_assert (json_parser_load_from_data (parser,
    "[{\"name\":\"echo\",\"description\":\"Echo\",\"parameters\":{\"type\":\"object\"},"
    "\"execution\":\"target\",\"target\":\"bench:echo\"}]", -1, NULL));
  tools = json_array_ref (json_node_get_array (json_parser_get_root (parser)));

  printf ("bench-tap: what watching the bus costs (the aim: nobody listening costs a few %% at most)\n");
  measure ("tool call to an in-process target (1 call, its result)", tool_call, tool_call_directly, socket_path);
  measure ("agent turn (2 model steps, 1 tool call on the bus)", agent_turn, NULL, socket_path);
  printf ("time/trip: against the first line of each table\n");
  printf ("records: %" G_GUINT64_FORMAT " discarded in-process, %" G_GUINT64_FORMAT " bytes read from the socket\n",
          discarded, (guint64) read_bytes);

  json_array_unref (tools);
  json_node_unref (model_spec);
  json_object_unref (arguments);
  g_object_unref (target);
  g_object_unref (bus);
  g_rmdir (dir);
  return 0;
}
