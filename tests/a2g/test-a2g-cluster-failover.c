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
#include "a2g-test-load.h"
#include "a2g-test-util.h"
#include "gg-a2g-errors.h"
#include "gg-a2g-redis-store.h"

/* This test's ports (6 nodes, and 10000 below for their bus): no other test's. */
#define FIRST_PORT 27200
#define NODE_TIMEOUT_MS 1000
/* Reports accepted this close before the kill may be lost with it. */
#define REPLICATION_LAG_MS 100

static A2gRedisCluster *cluster;

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
  A2gLoad load = { 0 };
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
  {
    g_autofree char *url = a2g_redis_cluster_url (cluster);

    a2g_load_start (&load, url);
  }
  a2g_load_run_for (300);
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
  a2g_load_run_for (300);
  a2g_load_stop (&load);
  redirects = gg_a2g_redis_store_redirects (GG_A2G_REDIS_STORE (load.stores[0])) +
              gg_a2g_redis_store_redirects (GG_A2G_REDIS_STORE (load.stores[1]));
  g_test_message ("reshard: %" G_GUINT64_FORMAT " decides, %" G_GUINT64_FORMAT " redirections followed, "
                  "%" G_GUINT64_FORMAT " failed", load.completed, redirects, load.failed + load.failed_other);
  g_assert_cmpuint (load.failed + load.failed_other, ==, 0);
  g_assert_cmpuint (redirects, >, 0);
  a2g_load_assert_sessions_valid (&load);
  g_assert_cmpuint (a2g_load_assert_reported_once (&load, 0, 0), ==, 0);
  a2g_load_free (&load);
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
  A2gLoad load = { 0 };
  gint64 killed_us, promoted_us, back_us;
  guint victim = 0;

  if (cluster == NULL)
    {
      g_test_skip ("redis-server or redis-cli is not installed");
      return;
    }
  while (!a2g_redis_cluster_is_primary (cluster, victim))
    victim++;
  {
    g_autofree char *url = a2g_redis_cluster_url (cluster);

    a2g_load_start (&load, url);
  }
  a2g_load_run_for (500);
  g_assert_cmpuint (load.failed + load.failed_other, ==, 0);
  /* Each replica says so once, and again when it is back (a message). */
  g_test_expect_message ("gamegate-a2g", G_LOG_LEVEL_WARNING, "a2g: the shared store at cluster:* is unreachable (*)*");
  g_test_expect_message ("gamegate-a2g", G_LOG_LEVEL_WARNING, "a2g: the shared store at cluster:* is unreachable (*)*");
  a2g_redis_cluster_kill (cluster, victim);
  killed_us = g_get_monotonic_time ();
  /* The cluster promotes the replica after the node timeout. */
  g_assert_true (gg_test_wait_for (all_primaries, NULL, gg_test_timeout_ms (20000)));
  promoted_us = g_get_monotonic_time ();
  back_us = a2g_load_wait_back (&load);
  g_test_assert_expected_messages ();
  a2g_load_run_for (1000);
  a2g_load_stop (&load);
  g_test_message ("failover: %" G_GUINT64_FORMAT " decides, %" G_GUINT64_FORMAT " failed as unreachable; "
                  "first %" G_GINT64_FORMAT " ms, last %" G_GINT64_FORMAT " ms after the kill, the store up again "
                  "%" G_GINT64_FORMAT " ms after it, %" G_GINT64_FORMAT " ms after the cluster promoted the replica "
                  "(node timeout %d ms)",
                  load.completed, load.failed, (load.first_failure_us - killed_us) / 1000,
                  (load.last_failure_us - killed_us) / 1000, (back_us - killed_us) / 1000,
                  (back_us - promoted_us) / 1000, NODE_TIMEOUT_MS);
  /* Only unreachable, only while failing over: none before, none once back. */
  a2g_load_check_failover (&load, killed_us, back_us, REPLICATION_LAG_MS);
  a2g_load_free (&load);
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
