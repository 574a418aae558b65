/* test-a2g-cluster-failover.c: the Redis store on a real 3-primary,
 * 3-replica Redis Cluster while things happen to the cluster: two replicas
 * of the store serve about 1,000 decides a second (a session lookup, its
 * record written, that decision reported), alternately, over sessions in
 * every part of the slot space, and
 *
 * - reshard: slots move between primaries mid-load (redis-cli --cluster
 *   reshard): MOVED and ASK are followed and no operation fails;
 * - failover: a primary is killed mid-load: nothing crashes, operations of
 *   its slots fail as unreachable (a decide's FALLBACK busy) only between
 *   the kill and the promotion of its replica, the store is back by itself,
 *   every session opened before is still valid, and every report accepted
 *   before the kill (more than the replication lag before it: asynchronous
 *   replication may lose the last writes a dying primary acknowledged) is
 *   accepted exactly once: reporting it again answers "already reported".
 *
 * The failover's figures (first and last failure after the kill, against
 * the cluster's node timeout) are printed; tests/bench/bench-a2g-cluster.c
 * measures the throughput.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "a2g-test-cluster.h"
#include "a2g-test-util.h"
#include "gg-a2g-errors.h"
#include "gg-a2g-redis-store.h"

/* This test's ports (6 nodes, + 10000 for their bus): no other test's. */
#define FIRST_PORT 27200
#define NODE_TIMEOUT_MS 1000
#define N_SESSIONS 128
/* Decides started per 10 ms tick: about 1,000 a second. */
#define PER_TICK 10
/* Reports accepted this close before the kill may be lost with it. */
#define REPLICATION_LAG_MS 100

static A2gRedisCluster *cluster;

typedef struct {
  char *client_id;
  char *token;
} Session;

typedef struct {
  char *decision_id;
  guint session;
  gint64 accepted_us;
} Accepted;

typedef struct {
  GgA2gStore *stores[2];
  GgA2gManifest *manifest;
  Session sessions[N_SESSIONS];
  guint64 started, completed, in_flight, next_id;
  guint64 failed, failed_other;   /* unreachable; anything else */
  gint64 first_failure_us, last_failure_us;
  GPtrArray *accepted;            /* Accepted */
  guint tick_id;
  gboolean stopping;
} Load;

typedef struct {
  Load *load;
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
accepted_free (Accepted *accepted)
{
  g_free (accepted->decision_id);
  g_free (accepted);
}

/* @error: what an operation of @decide failed with (NULL: it did not). */
static gboolean
failed (Decide *decide,
        GError *error)
{
  Load *load = decide->load;
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
  Accepted *accepted;

  if (failed (decide, error))
    return;
  g_assert_cmpint (done, ==, GG_A2G_REPORT_ACCEPTED);
  accepted = g_new0 (Accepted, 1);
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
  Load *load = user_data;

  for (guint i = 0; i < PER_TICK && !load->stopping; i++)
    {
      Decide *decide = g_new0 (Decide, 1);
      Session *session;

      decide->load = load;
      decide->session = (guint) (load->started % N_SESSIONS);
      decide->store = load->stores[load->started % 2];
      decide->decision_id = g_strdup_printf ("d_%06" G_GUINT64_FORMAT, load->next_id++);
      session = &load->sessions[decide->session];
      load->started++;
      load->in_flight++;
      gg_a2g_store_session_lookup_async (decide->store, session->client_id, session->token, NULL, on_looked_up, decide);
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
up (gpointer data)
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

static void
load_start (Load *load)
{
  static guint prefix;
  g_autofree char *url = a2g_redis_cluster_url (cluster);
  g_autofree char *keys = g_strdup_printf ("f%u:", ++prefix);
  g_autoptr(JsonNode) node = gg_json_parse (a2g_test_manifest, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  g_autoptr(GError) error = NULL;

  load->manifest = gg_a2g_manifest_parse (node, &error);
  g_assert_no_error (error);
  load->accepted = g_ptr_array_new_with_free_func ((GDestroyNotify) accepted_free);
  for (guint i = 0; i < 2; i++)
    {
      load->stores[i] = GG_A2G_STORE (gg_a2g_redis_store_new (url, keys, gg_test_timeout_ms (1000), 4, 2));
      g_assert_true (gg_test_wait_for (up, load->stores[i], gg_test_timeout_ms (10000)));
    }
  {
    g_autoptr(GAsyncResult) put = NULL;

    gg_a2g_store_manifest_put_async (load->stores[0], load->manifest, NULL, keep_result, &put);
    g_assert_true (gg_a2g_store_manifest_put_finish (load->stores[0], await (&put), &error));
  }
  for (guint i = 0; i < N_SESSIONS; i++)
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
  return ((Load *) data)->in_flight == 0;
}

static void
load_stop (Load *load)
{
  load->stopping = TRUE;
  g_assert_true (gg_test_wait_for (drained, load, gg_test_timeout_ms (10000)));
  g_clear_handle_id (&load->tick_id, g_source_remove);
}

static void
load_free (Load *load)
{
  for (guint i = 0; i < 2; i++)
    g_clear_object (&load->stores[i]);
  for (guint i = 0; i < N_SESSIONS; i++)
    {
      g_free (load->sessions[i].client_id);
      g_free (load->sessions[i].token);
    }
  g_ptr_array_unref (load->accepted);
  gg_a2g_manifest_unref (load->manifest);
}

/* Runs the main loop for @ms. */
static void
run_for (guint ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, FALSE) || (g_usleep (500), TRUE);
}

/* Every session still valid, on both replicas. */
static void
assert_sessions_valid (Load *load)
{
  for (guint i = 0; i < N_SESSIONS; i++)
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
static guint
assert_reported_once (Load   *load,
                      gint64  before_us,
                      gint64  lag_us)
{
  guint lost = 0;

  for (guint i = 0; i < load->accepted->len; i++)
    {
      Accepted *accepted = load->accepted->pdata[i];
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

static char *
node_id (guint node)
{
  g_autofree char *out = a2g_redis_cli (a2g_redis_cluster_port (cluster, node), "CLUSTER", "MYID", NULL);

  g_assert_nonnull (out);
  return g_strstrip (g_steal_pointer (&out));
}

static void
on_resharded (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_subprocess_wait_check_finish (G_SUBPROCESS (source), result, &error));
  g_assert_no_error (error);
  *(gboolean *) user_data = TRUE;
}

static gboolean
is_true (gpointer data)
{
  return *(gboolean *) data;
}

/* A third of a primary's slots move to another while serving. */
static void
test_reshard (void)
{
  Load load = { 0 };
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GSubprocess) reshard = NULL;
  g_autofree char *from = NULL, *to = NULL;
  guint64 redirects;
  gboolean done = FALSE;
  guint from_node = 0, to_node = 1;

  if (cluster == NULL)
    {
      g_test_skip ("redis-server or redis-cli is not installed");
      return;
    }
  while (!a2g_redis_cluster_is_primary (cluster, from_node))
    from_node++;
  to_node = from_node + 1;
  while (!a2g_redis_cluster_is_primary (cluster, to_node))
    to_node++;
  from = node_id (from_node);
  to = node_id (to_node);
  load_start (&load);
  run_for (300);
  g_ptr_array_add (argv, g_strdup ("redis-cli"));
  g_ptr_array_add (argv, g_strdup ("--cluster"));
  g_ptr_array_add (argv, g_strdup ("reshard"));
  g_ptr_array_add (argv, g_strdup_printf ("127.0.0.1:%u", a2g_redis_cluster_port (cluster, from_node)));
  g_ptr_array_add (argv, g_strdup ("--cluster-from"));
  g_ptr_array_add (argv, g_strdup (from));
  g_ptr_array_add (argv, g_strdup ("--cluster-to"));
  g_ptr_array_add (argv, g_strdup (to));
  g_ptr_array_add (argv, g_strdup ("--cluster-slots"));
  g_ptr_array_add (argv, g_strdup ("1500"));
  g_ptr_array_add (argv, g_strdup ("--cluster-yes"));
  g_ptr_array_add (argv, NULL);
  reshard = a2g_redis_spawn (argv);
  g_subprocess_wait_check_async (reshard, NULL, on_resharded, &done);
  g_assert_true (gg_test_wait_for (is_true, &done, gg_test_timeout_ms (60000)));
  run_for (300);
  load_stop (&load);
  redirects = gg_a2g_redis_store_redirects (GG_A2G_REDIS_STORE (load.stores[0])) +
              gg_a2g_redis_store_redirects (GG_A2G_REDIS_STORE (load.stores[1]));
  g_test_message ("reshard: %" G_GUINT64_FORMAT " decides, %" G_GUINT64_FORMAT " redirections followed, "
                  "%" G_GUINT64_FORMAT " failed", load.completed, redirects, load.failed + load.failed_other);
  g_assert_cmpuint (load.failed + load.failed_other, ==, 0);
  g_assert_cmpuint (redirects, >, 0);
  assert_sessions_valid (&load);
  g_assert_cmpuint (assert_reported_once (&load, 0, 0), ==, 0);
  load_free (&load);
}

/* Three live primaries again (the dead one's replica promoted), and the cluster ok. */
static gboolean
all_primaries (gpointer data)
{
  guint primaries = 0;

  (void) data;
  for (guint i = 0; i < a2g_redis_cluster_nodes (cluster); i++)
    primaries += a2g_redis_cluster_is_primary (cluster, i);
  return primaries == 3 && a2g_redis_cluster_wait_ok (cluster, 1);
}

/* A primary killed while serving; its replica takes over. */
static void
test_failover (void)
{
  Load load = { 0 };
  gint64 killed_us, promoted_us, back_us;
  guint victim = 0;
  guint lost;

  if (cluster == NULL)
    {
      g_test_skip ("redis-server or redis-cli is not installed");
      return;
    }
  while (!a2g_redis_cluster_is_primary (cluster, victim))
    victim++;
  load_start (&load);
  run_for (500);
  g_assert_cmpuint (load.failed + load.failed_other, ==, 0);
  /* Each replica says so once, and again when it is back (a message). */
  g_test_expect_message ("gamegate-a2g", G_LOG_LEVEL_WARNING, "a2g: the shared store at cluster:* is unreachable (*)*");
  g_test_expect_message ("gamegate-a2g", G_LOG_LEVEL_WARNING, "a2g: the shared store at cluster:* is unreachable (*)*");
  a2g_redis_cluster_kill (cluster, victim);
  killed_us = g_get_monotonic_time ();
  /* The cluster promotes the replica after the node timeout. */
  g_assert_true (gg_test_wait_for (all_primaries, NULL, gg_test_timeout_ms (20000)));
  promoted_us = g_get_monotonic_time ();
  g_assert_true (gg_test_wait_for (up, load.stores[0], gg_test_timeout_ms (10000)));
  g_assert_true (gg_test_wait_for (up, load.stores[1], gg_test_timeout_ms (10000)));
  back_us = g_get_monotonic_time ();
  g_test_assert_expected_messages ();
  run_for (1000);
  load_stop (&load);
  g_test_message ("failover: %" G_GUINT64_FORMAT " decides, %" G_GUINT64_FORMAT " failed as unreachable; "
                  "first %" G_GINT64_FORMAT " ms, last %" G_GINT64_FORMAT " ms after the kill, the store up again "
                  "%" G_GINT64_FORMAT " ms after it, %" G_GINT64_FORMAT " ms after the cluster promoted the replica "
                  "(node timeout %d ms)",
                  load.completed, load.failed, (load.first_failure_us - killed_us) / 1000,
                  (load.last_failure_us - killed_us) / 1000, (back_us - killed_us) / 1000,
                  (back_us - promoted_us) / 1000, NODE_TIMEOUT_MS);
  /* Only unreachable, only while failing over: none before, none once back. */
  g_assert_cmpuint (load.failed_other, ==, 0);
  g_assert_cmpint (load.first_failure_us, >=, killed_us);
  g_assert_cmpint (load.last_failure_us, <=, back_us + gg_test_timeout_ms (250) * 1000);
  assert_sessions_valid (&load);
  lost = assert_reported_once (&load, killed_us, REPLICATION_LAG_MS * 1000);
  g_test_message ("failover: %u of the reports accepted in the last %d ms before the kill were lost with it", lost,
                  REPLICATION_LAG_MS);
  load_free (&load);
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  cluster = a2g_redis_cluster_start (FIRST_PORT, 3, NODE_TIMEOUT_MS);
  /* The reshard first: the failover leaves a primary dead. */
  g_test_add_func ("/a2g/cluster/reshard", test_reshard);
  g_test_add_func ("/a2g/cluster/failover", test_failover);
  status = g_test_run ();
  if (cluster != NULL)
    a2g_redis_cluster_stop (cluster);
  return status;
}
