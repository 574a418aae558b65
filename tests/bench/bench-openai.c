/* bench-openai.c: what the model-openai backend costs per model step on
 * top of the server's own response time, and how many streamed deltas per
 * second it forwards. The server is the in-process fake OpenAI server, so
 * the figures include libsoup's HTTP on both ends of a loopback socket.
 * Prints figures; asserts nothing about speed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-openai-private.h"
#include "gg-test-plugin.h"
#include "openai-test-util.h"

#define STEPS 2000
#define WARMUP 50
#define STREAM_RUNS 5
#define STREAM_DELTAS 5000

static GgModel *
make_model (GgBus      *bus,
            const char *base_url)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) spec = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *path = gg_test_find_plugin ("model-openai");
  g_autofree char *config_text = g_strdup_printf ("[model-openai]\nbase-url=%s\nmodel=bench\n", base_url);

  if (path == NULL)
    return NULL;
  if (!ot_load_plugin (bus, config_text, &error))
    g_error ("%s", error->message);
  json_node_take_object (spec, json_object_new ());
  json_object_set_string_member (json_node_get_object (spec), "type", "openai");
  return gg_bus_create_model (bus, spec, &error);
}

typedef struct {
  gboolean done;
  guint64 deltas;
  gint64 finished_us;
} Step;

static void
on_delta (const char *delta,
          gboolean    is_reset,
          gpointer    user_data)
{
  ((Step *) user_data)->deltas++;
}

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Step *step = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GgModelReply) reply = gg_model_step_finish (GG_MODEL (source), result, &error);

  if (reply == NULL)
    g_error ("step failed: %s", error->message);
  step->finished_us = g_get_monotonic_time ();
  step->done = TRUE;
}

static gint64
run_step (GgModel        *model,
          GgModelRequest *request,
          Step           *step)
{
  gint64 start = g_get_monotonic_time ();

  gg_model_step_async (model, request, on_delta, step, NULL, on_done, step);
  while (!step->done)
    g_main_context_iteration (NULL, TRUE);
  return step->finished_us - start;
}

typedef struct {
  gboolean done;
  gint64 finished_us;
} Bare;

static void
on_bare_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Bare *bare = user_data;
  g_autoptr(GBytes) body = soup_session_send_and_read_finish (SOUP_SESSION (source), result, NULL);

  if (body == NULL)
    g_error ("bare exchange failed");
  bare->finished_us = g_get_monotonic_time ();
  bare->done = TRUE;
}

/* The same HTTP exchange straight through libsoup, without the backend. */
static gint64
run_bare (SoupSession *session,
          const char  *url,
          GBytes      *body)
{
  g_autoptr(SoupMessage) message = soup_message_new (SOUP_METHOD_POST, url);
  gint64 start = g_get_monotonic_time ();
  Bare bare = { 0 };

  soup_message_set_request_body_from_bytes (message, "application/json", body);
  soup_session_send_and_read_async (session, message, G_PRIORITY_DEFAULT, NULL, on_bare_done, &bare);
  while (!bare.done)
    g_main_context_iteration (NULL, TRUE);
  return bare.finished_us - start;
}

static int
compare_int64 (gconstpointer a,
               gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

static double
percentile (GArray *values,
            double  p)
{
  guint index = (guint) (p * (values->len - 1) + 0.5);
  return g_array_index (values, gint64, index) / 1000.0;
}

int
main (int argc, char **argv)
{
  g_autoptr(FakeOpenai) fake = fake_openai_new ();
  g_autofree char *base_url = fake_openai_get_base_url (fake);
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgModel) model = make_model (bus, base_url);
  g_autoptr(GgModelRequest) request = gg_model_request_new ();
  g_autoptr(GArray) totals = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) overheads = g_array_new (FALSE, FALSE, sizeof (gint64));
  JsonObject *entry = json_object_new ();
  double deltas_per_s_best = 0, deltas_per_s_sum = 0;

  if (model == NULL)
    {
      g_printerr ("model-openai is not built or GAMEGATE_PLUGIN_PATH is not set\n");
      return 77;
    }
  request->instructions = g_strdup ("You are a gate guard. Answer in one short sentence.");
  json_object_set_string_member (entry, "role", "user");
  json_object_set_string_member (entry, "text", "Who goes there?");
  json_array_add_object_element (request->transcript, entry);

  /* Non-streamed steps: the step's wall time minus the time the server
   * spent between receiving the request and finishing its response. */
  request->stream = FALSE;
  for (int i = 0; i < WARMUP + STEPS; i++)
    {
      Step step = { 0 };
      gint64 total, served, overhead;

      fake_openai_push_text (fake, "Halt! Who goes there?");
      total = run_step (model, request, &step);
      served = fake_openai_get_last_served_us (fake);
      if (i < WARMUP)
        continue;
      overhead = total - served;
      g_array_append_val (totals, total);
      g_array_append_val (overheads, overhead);
    }
  g_array_sort (totals, compare_int64);
  g_array_sort (overheads, compare_int64);
  /* The same exchanges without the backend, for what libsoup itself costs. */
  {
    g_autoptr(SoupSession) session = soup_session_new ();
    g_autoptr(GArray) bare = g_array_new (FALSE, FALSE, sizeof (gint64));
    g_autofree char *url = g_strconcat (base_url, "/chat/completions", NULL);
    g_autoptr(GBytes) body = NULL;
    g_autoptr(GArray) own = g_array_new (FALSE, FALSE, sizeof (gint64));
    GgOpenaiSettings settings = { 0 };
    g_autofree char *answer = NULL;

    settings.base_url = base_url;
    settings.model = (char *) "bench";
    settings.temperature = -1;
    {
      g_autoptr(JsonNode) node = gg_openai_build_request (request, &settings, FALSE, NULL);
      char *text = gg_json_to_string (node);
      body = g_bytes_new_take (text, strlen (text));
    }
    for (int i = 0; i < WARMUP + STEPS; i++)
      {
        gint64 t;
        fake_openai_push_text (fake, "Halt! Who goes there?");
        t = run_bare (session, url, body);
        if (i >= WARMUP)
          g_array_append_val (bare, t);
      }
    g_array_sort (bare, compare_int64);

    /* The backend's own work per step, without any I/O. */
    answer = g_strdup ("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"bench\","
                       "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Halt! Who goes there?\","
                       "\"refusal\":null},\"logprobs\":null,\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":20,"
                       "\"completion_tokens\":6,\"total_tokens\":26}}");
    for (int i = 0; i < STEPS; i++)
      {
        gint64 start = g_get_monotonic_time (), t;
        g_autoptr(JsonNode) node = gg_openai_build_request (request, &settings, FALSE, NULL);
        g_autofree char *text = gg_json_to_string (node);
        g_autoptr(GgModelReply) reply = gg_openai_parse_response (answer, strlen (answer), request, NULL);

        g_assert (text != NULL && reply != NULL);
        t = g_get_monotonic_time () - start;
        g_array_append_val (own, t);
      }
    g_array_sort (own, compare_int64);

    g_print ("model-openai step, non-streamed, %d steps over loopback HTTP:\n", STEPS);
    g_print ("  step wall time      p50 %.3f ms  p99 %.3f ms\n", percentile (totals, 0.5), percentile (totals, 0.99));
    g_print ("  backend overhead    p50 %.3f ms  p99 %.3f ms  (wall time minus the server's own time)\n",
             percentile (overheads, 0.5), percentile (overheads, 0.99));

    /* Streamed deltas: one answer of many small chunks, no delay. */
    request->stream = TRUE;
    for (int run = 0; run < STREAM_RUNS; run++)
      {
        g_autofree char *text = g_strnfill (STREAM_DELTAS * 4, 'w');
        FakeReply *reply = fake_openai_push_text (fake, text);
        Step step = { 0 };
        gint64 total;
        double rate;

        reply->text_pieces = STREAM_DELTAS;
        total = run_step (model, request, &step);
        rate = step.deltas / (total / (double) G_USEC_PER_SEC);
        deltas_per_s_sum += rate;
        deltas_per_s_best = MAX (deltas_per_s_best, rate);
      }
    g_print ("  bare libsoup POST   p50 %.3f ms  p99 %.3f ms  (same exchange, no backend)\n",
             percentile (bare, 0.5), percentile (bare, 0.99));
    g_print ("  backend CPU only    p50 %.3f ms  p99 %.3f ms  (build + serialize + parse, no I/O)\n",
             percentile (own, 0.5), percentile (own, 0.99));
    g_print ("  added over bare     p50 %.3f ms\n",
             percentile (totals, 0.5) - percentile (bare, 0.5));
  }
  g_print ("model-openai streaming, %d deltas per answer, %d answers:\n", STREAM_DELTAS, STREAM_RUNS);
  g_print ("  deltas forwarded    %.0f /s mean, %.0f /s best (fake server and client on one thread)\n",
           deltas_per_s_sum / STREAM_RUNS, deltas_per_s_best);

  /* The decoder alone: a pre-rendered event stream fed in 16 KiB reads. */
  {
    GString *sse = g_string_new (NULL);
    guint64 deltas = 0;
    gint64 start, elapsed;

    for (int i = 0; i < STREAM_DELTAS; i++)
      g_string_append (sse, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                            "\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"word\"},"
                            "\"logprobs\":null,\"finish_reason\":null}]}\n\n");
    g_string_append (sse, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    start = g_get_monotonic_time ();
    for (int run = 0; run < STREAM_RUNS; run++)
      {
        Step step = { 0 };
        g_autoptr(GgOpenaiStream) stream = gg_openai_stream_new (on_delta, &step);
        for (gsize off = 0; off < sse->len; off += 16384)
          if (!gg_openai_stream_feed (stream, sse->str + off, MIN (16384, sse->len - off), NULL))
            g_error ("decoding failed");
        if (!gg_openai_stream_finish (stream, NULL))
          g_error ("decoding failed");
        deltas += step.deltas;
      }
    elapsed = g_get_monotonic_time () - start;
    g_print ("  decoder alone       %.0f deltas/s (SSE parse + chunk JSON + assembly)\n",
             deltas / (elapsed / (double) G_USEC_PER_SEC));
    g_string_free (sse, TRUE);
  }

  g_clear_object (&model);
  g_clear_object (&bus);
  for (int i = 0; i < 20 && g_main_context_iteration (NULL, FALSE); i++)
    ;
  return 0;
}
