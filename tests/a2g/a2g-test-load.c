/* a2g-test-load.c: load on the Redis store (see a2g-test-load.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "a2g-test-load.h"
#include "a2g-test-util.h"
#include "gg-a2g-errors.h"
#include "gg-a2g-redis-store.h"

/* Decides started per 10 ms tick: about 1,000 a second. */
#define PER_TICK 10

typedef struct {
  A2gLoad *load;
  GgA2gStore *store;
  guint session;
  char *decision_id;
} Decide;

static void
decide_free (Decide *decide)
{
  decide->load->in_flight--;
  decide->load->completed++;
  g_free (decide->decision_id);
  g_free (decide);
}

static void
accepted_free (A2gLoadAccepted *accepted)
{
  g_free (accepted->decision_id);
  g_free (accepted);
}

/* @error: what an operation of @decide failed with (NULL: it did not). */
static gboolean
failed (Decide *decide,
        GError *error)
{
  A2gLoad *load = decide->load;
  gint64 now = g_get_monotonic_time ();

  if (error == NULL)
    return FALSE;
  if (g_error_matches (error, GG_A2G_ERROR, GG_A2G_ERROR_UNAVAILABLE))
    load->failed++;
  else
    {
      g_test_message ("unexpected: %s", error->message);
      load->failed_other++;
    }
  if (load->first_failure_us == 0)
    load->first_failure_us = now;
  load->last_failure_us = now;
  decide_free (decide);
  return TRUE;
}

static void
on_reported (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Decide *decide = user_data;
  g_autoptr(GError) error = NULL;
  GgA2gReportResult done = gg_a2g_store_record_report_finish (GG_A2G_STORE (source), result, &error);
  A2gLoadAccepted *accepted;

  if (failed (decide, error))
    return;
  g_assert_cmpint (done, ==, GG_A2G_REPORT_ACCEPTED);
  accepted = g_new0 (A2gLoadAccepted, 1);
  accepted->decision_id = g_steal_pointer (&decide->decision_id);
  accepted->session = decide->session;
  accepted->accepted_us = g_get_monotonic_time ();
  g_ptr_array_add (decide->load->accepted, accepted);
  decide_free (decide);
}

static void
on_recorded (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Decide *decide = user_data;
  g_autoptr(GError) error = NULL;
  gboolean ok = gg_a2g_store_record_put_many_finish (GG_A2G_STORE (source), result, &error);

  if (failed (decide, error))
    return;
  g_assert_true (ok);
  /* The report arrives through the other replica, as a game's may. */
  decide->store = decide->load->stores[decide->store == decide->load->stores[0]];
  gg_a2g_store_record_report_async (decide->store, decide->load->sessions[decide->session].client_id,
                                    decide->decision_id, "pirate-1", "success", TRUE, 1.0, NULL, on_reported, decide);
}

static GPtrArray *
one_record (const char *decision_id)
{
  GPtrArray *records = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_record_unref);
  GgA2gRecord *record = gg_a2g_record_new ();

  record->decision_id = g_strdup (decision_id);
  record->entity = g_strdup ("pirate-1");
  record->type = g_strdup ("pirate");
  record->action = g_strdup ("flee");
  record->confidence = 70;
  record->situation_key = g_strdup ("abc123");
  g_ptr_array_add (records, record);
  return records;
}

static void
on_looked_up (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Decide *decide = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GgA2gSession) session = gg_a2g_store_session_lookup_finish (GG_A2G_STORE (source), result, &error);
  g_autoptr(GPtrArray) records = NULL;

  if (failed (decide, error))
    return;
  g_assert_nonnull (session);
  records = one_record (decide->decision_id);
  gg_a2g_store_record_put_many_async (decide->store, session->client_id, records, NULL, on_recorded, decide);
}

static gboolean
tick (gpointer user_data)
{
  A2gLoad *load = user_data;

  for (guint i = 0; i < PER_TICK && !load->stopping; i++)
    {
      Decide *decide = g_new0 (Decide, 1);
      A2gLoadSession *session;

      decide->load = load;
      decide->session = (guint) (load->started % A2G_LOAD_SESSIONS);
      decide->store = load->stores[load->started % 2];
      decide->decision_id = g_strdup_printf ("d_%06" G_GUINT64_FORMAT, load->next_id++);
      session = &load->sessions[decide->session];
      load->started++;
      load->in_flight++;
      gg_a2g_store_session_lookup_async (decide->store, session->client_id, session->token, NULL, on_looked_up, decide);
    }
  return G_SOURCE_CONTINUE;
}

gboolean
a2g_load_store_up (gpointer data)
{
  return gg_a2g_redis_store_is_up (data);
}

static gboolean
got_result (gpointer data)
{
  return *(GAsyncResult **) data != NULL;
}

static void
keep_result (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  (void) source;
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static GAsyncResult *
await (GAsyncResult **slot)
{
  g_assert_true (gg_test_wait_for (got_result, slot, gg_test_timeout_ms (10000)));
  return *slot;
}

void
a2g_load_start (A2gLoad    *load,
                const char *url)
{
  static guint prefix;
  g_autofree char *keys = g_strdup_printf ("f%u:", ++prefix);
  g_autoptr(JsonNode) node = gg_json_parse (a2g_test_manifest, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  g_autoptr(GError) error = NULL;

  load->manifest = gg_a2g_manifest_parse (node, &error);
  g_assert_no_error (error);
  load->accepted = g_ptr_array_new_with_free_func ((GDestroyNotify) accepted_free);
  for (guint i = 0; i < 2; i++)
    {
      load->stores[i] = GG_A2G_STORE (gg_a2g_redis_store_new (url, keys, gg_test_timeout_ms (1000), 4, 2));
      g_assert_true (gg_test_wait_for (a2g_load_store_up, load->stores[i], gg_test_timeout_ms (10000)));
    }
  {
    g_autoptr(GAsyncResult) put = NULL;

    gg_a2g_store_manifest_put_async (load->stores[0], load->manifest, NULL, keep_result, &put);
    g_assert_true (gg_a2g_store_manifest_put_finish (load->stores[0], await (&put), &error));
  }
  for (guint i = 0; i < A2G_LOAD_SESSIONS; i++)
    {
      g_autoptr(GAsyncResult) opened = NULL;
      g_autoptr(GgA2gSession) session = NULL;

      load->sessions[i].client_id = g_strdup_printf ("client-%04u", i);
      gg_a2g_store_session_open_async (load->stores[i % 2], load->sessions[i].client_id, load->manifest->game,
                                       load->manifest, 600, 30, NULL, keep_result, &opened);
      session = gg_a2g_store_session_open_finish (load->stores[i % 2], await (&opened), &error);
      g_assert_no_error (error);
      load->sessions[i].token = g_strdup (session->token);
    }
  load->tick_id = g_timeout_add (10, tick, load);
}

static gboolean
drained (gpointer data)
{
  return ((A2gLoad *) data)->in_flight == 0;
}

void
a2g_load_stop (A2gLoad *load)
{
  load->stopping = TRUE;
  g_assert_true (gg_test_wait_for (drained, load, gg_test_timeout_ms (10000)));
  g_clear_handle_id (&load->tick_id, g_source_remove);
}

void
a2g_load_free (A2gLoad *load)
{
  for (guint i = 0; i < 2; i++)
    g_clear_object (&load->stores[i]);
  for (guint i = 0; i < A2G_LOAD_SESSIONS; i++)
    {
      g_free (load->sessions[i].client_id);
      g_free (load->sessions[i].token);
    }
  g_ptr_array_unref (load->accepted);
  gg_a2g_manifest_unref (load->manifest);
}

/* Runs the main loop for @ms. */
void
a2g_load_run_for (guint ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, FALSE) || (g_usleep (500), TRUE);
}

/* Every session still valid, on both replicas. */
void
a2g_load_assert_sessions_valid (A2gLoad *load)
{
  for (guint i = 0; i < A2G_LOAD_SESSIONS; i++)
    for (guint s = 0; s < 2; s++)
      {
        g_autoptr(GAsyncResult) found = NULL;
        g_autoptr(GgA2gSession) session = NULL;
        g_autoptr(GError) error = NULL;

        gg_a2g_store_session_lookup_async (load->stores[s], load->sessions[i].client_id, load->sessions[i].token, NULL,
                                           keep_result, &found);
        session = gg_a2g_store_session_lookup_finish (load->stores[s], await (&found), &error);
        g_assert_no_error (error);
        g_assert_nonnull (session);
      }
}

/* Each accepted report (but those of the last @lag_us before @before_us)
 * is accepted once: again, it is "already reported". Returns how many of
 * the others were not (lost with a dying primary). */
guint
a2g_load_assert_reported_once (A2gLoad *load,
                               gint64   before_us,
                               gint64   lag_us)
{
  guint lost = 0;

  for (guint i = 0; i < load->accepted->len; i++)
    {
      A2gLoadAccepted *accepted = load->accepted->pdata[i];
      g_autoptr(GAsyncResult) again = NULL;
      g_autoptr(GError) error = NULL;
      GgA2gReportResult done;

      gg_a2g_store_record_report_async (load->stores[i % 2], load->sessions[accepted->session].client_id,
                                        accepted->decision_id, "pirate-1", "success", TRUE, 1.0, NULL, keep_result,
                                        &again);
      done = gg_a2g_store_record_report_finish (load->stores[i % 2], await (&again), &error);
      g_assert_no_error (error);
      if (before_us == 0 || accepted->accepted_us < before_us - lag_us)
        g_assert_cmpint (done, ==, GG_A2G_REPORT_ALREADY_REPORTED);
      else if (done != GG_A2G_REPORT_ALREADY_REPORTED)
        lost++;
    }
  return lost;
}


/** a2g_load_wait_back: Returns: when both store replicas were up again (after a failover) */
gint64
a2g_load_wait_back (A2gLoad *load)
{
  for (guint i = 0; i < 2; i++)
    g_assert_true (gg_test_wait_for (a2g_load_store_up, load->stores[i], gg_test_timeout_ms (10000)));
  return g_get_monotonic_time ();
}

/**
 * a2g_load_check_failover:
 * @load: stopped, after a failover from @killed_us (the primary killed)
 *   to @back_us (a2g_load_wait_back())
 *
 * Operations failed only as unreachable, only between the two (give or
 * take a command's timeout); every session is still valid; every report
 * accepted before the kill (more than @lag_ms before it) is accepted once.
 */
void
a2g_load_check_failover (A2gLoad *load,
                         gint64   killed_us,
                         gint64   back_us,
                         guint    lag_ms)
{
  guint lost;

  g_assert_cmpuint (load->failed_other, ==, 0);
  g_assert_cmpint (load->first_failure_us, >=, killed_us);
  g_assert_cmpint (load->last_failure_us, <=, back_us + gg_test_timeout_ms (250) * 1000);
  a2g_load_assert_sessions_valid (load);
  lost = a2g_load_assert_reported_once (load, killed_us, lag_ms * (gint64) 1000);
  g_test_message ("%u of the reports accepted in the last %u ms before the kill were lost with it", lost, lag_ms);
}
