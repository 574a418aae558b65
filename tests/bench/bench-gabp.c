/* bench-gabp.c: tools/call round trips per second through gamegate (GABP
 * client -> gamegate's mod-side server -> bus -> gamegate's bridge -> the
 * reference mod) against a direct GABP connection to the same mod, with
 * p50/p99 latencies; and messages per second through the GABP codec with
 * schema validation on and off. Prints figures, asserts nothing about
 * speed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "gabp-test-util.h"
#include "gg-gabp-launcher.h"
#include "gg-test-util.h"
#include "gg-gabp-server.h"
#include "gg-gabp-target.h"

#define ROUND_TRIPS 2000
#define CODEC_MESSAGES 20000

typedef struct {
  gboolean  done;
  JsonNode *result;
  GError   *error;
} Call;

static void
on_called (GObject *source, GAsyncResult *result, gpointer data)
{
  Call *call = data;
  call->result = gg_gabp_client_call_finish (GG_GABP_CLIENT (source), result, &call->error);
  call->done = TRUE;
}

static gboolean
call_done (gpointer data)
{
  return ((Call *) data)->done;
}

static gboolean
client_ready (gpointer data)
{
  return gg_gabp_client_get_state (data) == GG_GABP_CLIENT_READY;
}

static gboolean
target_ready (gpointer data)
{
  return gg_gabp_target_is_ready (data);
}

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Runs ROUND_TRIPS sequential tools/call; fills p50/p99 in microseconds. */
static double
run_round_trips (GgGabpClient *client,
                 const char   *tool,
                 double       *p50,
                 double       *p99)
{
  g_autoptr(GArray) samples = g_array_sized_new (FALSE, FALSE, sizeof (double), ROUND_TRIPS);
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(JsonObject) args = json_object_new ();
  gint64 start = g_get_monotonic_time ();
  double seconds;

  json_object_set_string_member (params, "name", tool);
  json_object_set_int_member (args, "n", 42);
  json_object_set_object_member (params, "arguments", json_object_ref (args));
  for (int i = 0; i < ROUND_TRIPS; i++)
    {
      Call call = { 0 };
      gint64 t0 = g_get_monotonic_time ();
      double us;

      gg_gabp_client_call_async (client, "tools/call", params, NULL, on_called, &call);
      gg_test_wait_for (call_done, &call, 10000);
      us = (double) (g_get_monotonic_time () - t0);
      if (call.error != NULL)
        {
          g_printerr ("call failed: %s\n", call.error->message);
          g_error_free (call.error);
          return 0;
        }
      json_node_unref (call.result);
      g_array_append_val (samples, us);
    }
  seconds = (g_get_monotonic_time () - start) / 1e6;
  g_array_sort (samples, compare_doubles);
  *p50 = g_array_index (samples, double, ROUND_TRIPS / 2);
  *p99 = g_array_index (samples, double, ROUND_TRIPS * 99 / 100);
  return ROUND_TRIPS / seconds;
}

static void
count_message (void)
{
}

static double
codec_rate (GgGabpSchemas *schemas,
            gboolean       validate,
            const char    *body)
{
  g_autoptr(GInputStream) in = g_memory_input_stream_new ();
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GgGabpCodec) codec = gg_gabp_codec_new_for_streams (in, out, schemas);
  gsize length = strlen (body);
  gint64 start;
  guint ok = 0;

  gg_gabp_codec_set_validate (codec, validate);
  g_signal_connect (codec, "request", G_CALLBACK (count_message), NULL);
  start = g_get_monotonic_time ();
  for (int i = 0; i < CODEC_MESSAGES; i++)
    ok += gg_gabp_codec_process (codec, body, length);
  if (ok != CODEC_MESSAGES)
    g_printerr ("codec refused %u messages\n", CODEC_MESSAGES - ok);
  return CODEC_MESSAGES / ((g_get_monotonic_time () - start) / 1e6);
}

/* The same through a real `gamegate serve` that launched its own copy of
 * the reference mod. Returns 0 when gamegate could not be driven. */
static double
run_through_daemon (GgGabpSchemas *schemas,
                    double        *p50,
                    double        *p99)
{
  g_autofree char *dir = g_dir_make_tmp ("bench-gabp-XXXXXX", NULL);
  g_autofree char *conf = g_build_filename (dir, "gamegate.conf", NULL);
  g_autoptr(GError) error = NULL;
  guint16 port = gg_loopback_port_pick_free (&error);
  g_autofree char *text = g_strdup_printf ("[gabp]\nmods=ref\nserver-port=%u\nserver-token=%s\nbridge-file=\n"
                                           "rate-limit=0\nref.command=%s/tests/gabp-mod/gabp-mod\n"
                                           "ref.backoff-initial-ms=20\nref.backoff-max-ms=100\n",
                                           port, TEST_TOKEN2, GG_TOP_BUILDDIR);
  const char *args[] = { "--config", conf, "serve", NULL };
  g_autoptr(GgTestProcess) process = NULL;
  g_autoptr(GgGabpClient) client = NULL;
  double rate = 0;
  gint64 deadline;
  int status;

  g_file_set_contents (conf, text, -1, NULL);
  process = gg_test_process_spawn (args, NULL, &error);
  if (process == NULL)
    return 0;
  client = gg_gabp_client_new (schemas, "127.0.0.1", port, TEST_TOKEN2);
  gg_gabp_client_set_backoff (client, 20, 100);
  gg_gabp_client_start (client);
  /* Until the daemon listens and its mod is connected. */
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < deadline)
    {
      if (gg_test_wait_for (client_ready, client, 100))
        {
          g_autoptr(JsonObject) params = json_object_new ();
          Call call = { 0 };

          json_object_set_string_member (params, "name", "gabp-ref/game/echo");
          gg_gabp_client_call_async (client, "tools/call", params, NULL, on_called, &call);
          gg_test_wait_for (call_done, &call, 5000);
          g_clear_pointer (&call.result, json_node_unref);
          if (call.error == NULL)
            {
              rate = run_round_trips (client, "gabp-ref/game/echo", p50, p99);
              break;
            }
          g_clear_error (&call.error);
          gg_test_spin (50);
        }
    }
  gg_gabp_client_stop (client);
  gg_test_process_send_signal (process, SIGTERM);
  gg_test_process_wait (process, 10000, &status);
  g_remove (conf);
  g_rmdir (dir);
  return rate;
}

int
main (int argc, char **argv)
{
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();
  GgTestServer *mod = test_mod_start (0, TEST_TOKEN);
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgGabpClient) direct = gg_gabp_client_new (schemas, "127.0.0.1", mod->port, TEST_TOKEN);
  g_autoptr(GgGabpClient) upstream = gg_gabp_client_new (schemas, "127.0.0.1", mod->port, TEST_TOKEN);
  g_autoptr(GgGabpTarget) target = gg_gabp_target_new ("ref", upstream);
  g_autoptr(GgGabpServer) server = gg_gabp_server_new (bus, schemas);
  g_autoptr(GgGabpClient) via = NULL;
  g_autoptr(GError) error = NULL;
  const char *request = "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440010\",\"type\":\"request\","
                        "\"method\":\"tools/call\",\"params\":{\"name\":\"player/move\",\"arguments\":{\"x\":1,\"y\":2}}}";
  double direct_rate, via_rate, daemon_rate, d50, d99, v50, v99, g50 = 0, g99 = 0;

  gg_gabp_client_start (direct);
  gg_bus_add_target (bus, GG_TARGET (target), NULL);
  gg_gabp_client_start (upstream);
  gg_gabp_server_set_token (server, TEST_TOKEN2);
  /* The benchmark is its own only client: no rate limit. */
  gg_gabp_server_set_limits (server, 10, 0, 1, GG_GABP_DEFAULT_MAX_MESSAGE_SIZE);
  if (!gg_gabp_server_start (server, &error))
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  via = gg_gabp_client_new (schemas, "127.0.0.1", gg_gabp_server_get_port (server), TEST_TOKEN2);
  gg_gabp_client_start (via);
  if (!gg_test_wait_for (client_ready, direct, 5000) || !gg_test_wait_for (target_ready, target, 5000) ||
      !gg_test_wait_for (client_ready, via, 5000))
    {
      g_printerr ("setup failed\n");
      return 1;
    }

  direct_rate = run_round_trips (direct, "game/echo", &d50, &d99);
  via_rate = run_round_trips (via, "gabp-ref/game/echo", &v50, &v99);
  printf ("tools/call direct to the mod:   %8.0f round trips/s  p50 %6.1f us  p99 %6.1f us\n", direct_rate, d50, d99);
  printf ("through gamegate, in process:   %8.0f round trips/s  p50 %6.1f us  p99 %6.1f us\n", via_rate, v50, v99);
  printf ("latency added by gamegate:      p50 %+6.1f us  p99 %+6.1f us\n", v50 - d50, v99 - d99);
  daemon_rate = run_through_daemon (schemas, &g50, &g99);
  if (daemon_rate > 0)
    {
      printf ("through a `gamegate serve`:     %8.0f round trips/s  p50 %6.1f us  p99 %6.1f us\n", daemon_rate, g50, g99);
      printf ("latency added by the daemon:    p50 %+6.1f us  p99 %+6.1f us\n", g50 - d50, g99 - d99);
    }
  else
    printf ("through a `gamegate serve`:     not measured (gamegate could not be driven)\n");
  printf ("codec, validation on:           %8.0f messages/s\n", codec_rate (schemas, TRUE, request));
  printf ("codec, validation off:          %8.0f messages/s\n", codec_rate (schemas, FALSE, request));

  gg_gabp_client_stop (via);
  gg_gabp_server_stop (server);
  gg_gabp_client_stop (upstream);
  gg_gabp_client_stop (direct);
  gg_test_server_free (mod);
  return 0;
}
