/* bench-a2g-cluster.c: the Redis store's part of a decide, on one Redis
 * primary, on a 3-primary Redis Cluster, and on that Cluster while one of
 * its primaries is killed and its replica promoted, with one and with two
 * store replicas (in this process) sharing the keys, side by side in one
 * run. A decide request here is what the service asks the store for one:
 * its session looked up, its 16 entities' cache entries read (hits) and
 * their 16 records written, 64 requests in flight.
 *
 * Printed per row: decisions (entities) per second, requests per second,
 * Redis commands per decision (the store counts what it sends; a script
 * is one command), the Redis servers' CPU time per decision (from /proc,
 * every node of the Cluster added) and this process's, and during the
 * failover how many requests failed as unreachable (FALLBACK busy for a
 * game) and for how long. The HTTP side of a decide is bench-a2g-redis's.
 *
 * Exits 77 without redis-server and redis-cli. Asserts nothing about speed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "a2g-test-cluster.h"
#include "a2g-test-redis.h"
#include "a2g-test-util.h"
#include "bench-a2g-http.h"
#include "gg-a2g-redis-store.h"

#define FIRST_PORT 27500
#define ENTITIES 16
#define IN_FLIGHT 64
#define SESSIONS 64
#define MEASURE_US (1500 * 1000)

typedef struct {
  GgA2gStore *stores[2];
  guint n_stores;
  char *client_ids[SESSIONS];
  char *tokens[SESSIONS];
  char *keys[ENTITIES];
  guint64 requests, failed, next;
  gint64 first_failure_us, last_failure_us;
  gboolean stopping;
  guint in_flight;
} Bench;

typedef struct {
  Bench *bench;
  GgA2gStore *store;
  guint session;
} Request;

static void request_start (Bench *bench);

static void
request_done (Request *request,
              GError  *error)
{
  Bench *bench = request->bench;

  if (error != NULL)
    {
      gint64 now = g_get_monotonic_time ();

      bench->failed++;
      if (bench->first_failure_us == 0)
        bench->first_failure_us = now;
      bench->last_failure_us = now;
    }
  else
    bench->requests++;
  bench->in_flight--;
  g_free (request);
  if (!bench->stopping)
    request_start (bench);
}

static void
on_recorded (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  gg_a2g_store_record_put_many_finish (GG_A2G_STORE (source), result, &error);
  request_done (user_data, error);
}

static void
on_cached (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Request *request = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) hits = gg_a2g_store_cache_get_many_finish (GG_A2G_STORE (source), result, &error);
  g_autoptr(GPtrArray) records = NULL;

  if (error != NULL)
    {
      request_done (request, error);
      return;
    }
  records = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_record_unref);
  for (guint i = 0; i < ENTITIES; i++)
    {
      GgA2gRecord *record = gg_a2g_record_new ();

      record->decision_id = g_strdup_printf ("d_%" G_GUINT64_FORMAT "_%u", request->bench->next++, i);
      record->entity = g_strdup_printf ("pirate-%u", i);
      record->type = g_strdup ("pirate");
      record->action = g_strdup ("flee");
      record->confidence = 70;
      record->situation_key = g_strdup (request->bench->keys[i]);
      g_ptr_array_add (records, record);
    }
  gg_a2g_store_record_put_many_async (request->store, request->bench->client_ids[request->session], records, NULL,
                                      on_recorded, request);
}

static void
on_looked_up (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Request *request = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GgA2gSession) session = gg_a2g_store_session_lookup_finish (GG_A2G_STORE (source), result, &error);

  if (error != NULL)
    {
      request_done (request, error);
      return;
    }
  gg_a2g_store_cache_get_many_async (request->store, (const char * const *) request->bench->keys, ENTITIES, NULL,
                                     on_cached, request);
}

static void
request_start (Bench *bench)
{
  Request *request = g_new0 (Request, 1);

  request->bench = bench;
  request->session = (guint) (bench->next % SESSIONS);
  request->store = bench->stores[bench->next % bench->n_stores];
  bench->next++;
  bench->in_flight++;
  gg_a2g_store_session_lookup_async (request->store, bench->client_ids[request->session],
                                     bench->tokens[request->session], NULL, on_looked_up, request);
}

static gboolean
got (gpointer data)
{
  return *(GAsyncResult **) data != NULL;
}

static void
keep (GObject      *source,
      GAsyncResult *result,
      gpointer      user_data)
{
  (void) source;
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static gboolean
store_up (gpointer store)
{
  return gg_a2g_redis_store_is_up (store);
}

static void
bench_init (Bench      *bench,
            const char *url,
            guint       n_stores)
{
  static guint prefix;
  g_autofree char *keys = g_strdup_printf ("bc%u:", ++prefix);
  g_autoptr(JsonNode) node = gg_json_parse (a2g_test_manifest, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  g_autoptr(GgA2gManifest) manifest = gg_a2g_manifest_parse (node, NULL);

  memset (bench, 0, sizeof *bench);
  bench->n_stores = n_stores;
  for (guint i = 0; i < n_stores; i++)
    {
      bench->stores[i] = GG_A2G_STORE (gg_a2g_redis_store_new (url, keys, 1000, 1024, 600));
      if (!gg_test_wait_for (store_up, bench->stores[i], 10000))
        g_error ("bench-a2g-cluster: the store at %s is not up", url);
    }
  for (guint i = 0; i < ENTITIES; i++)
    {
      g_autoptr(GAsyncResult) put = NULL;
      g_autoptr(GgA2gCacheEntry) entry = gg_a2g_cache_entry_new ();

      bench->keys[i] = g_strdup_printf ("game:%s:%02u", manifest->hash, i);
      entry->key = g_strdup (bench->keys[i]);
      entry->manifest_hash = g_strdup (manifest->hash);
      entry->type = g_strdup ("pirate");
      entry->action = g_strdup ("flee");
      entry->confidence = 70;
      gg_a2g_store_cache_put_async (bench->stores[0], entry, NULL, keep, &put);
      g_assert_true (gg_test_wait_for (got, &put, 10000));
    }
  for (guint i = 0; i < SESSIONS; i++)
    {
      g_autoptr(GAsyncResult) opened = NULL;
      g_autoptr(GgA2gSession) session = NULL;

      bench->client_ids[i] = g_strdup_printf ("c_bench_%04u", i);
      gg_a2g_store_session_open_async (bench->stores[0], bench->client_ids[i], manifest->game, manifest, 600, 30,
                                       NULL, keep, &opened);
      g_assert_true (gg_test_wait_for (got, &opened, 10000));
      session = gg_a2g_store_session_open_finish (bench->stores[0], opened, NULL);
      g_assert_nonnull (session);
      bench->tokens[i] = g_strdup (session->token);
    }
}

static gboolean
drained (gpointer data)
{
  return ((Bench *) data)->in_flight == 0;
}

static void
bench_clear (Bench *bench)
{
  for (guint i = 0; i < bench->n_stores; i++)
    g_clear_object (&bench->stores[i]);
  for (guint i = 0; i < SESSIONS; i++)
    {
      g_free (bench->client_ids[i]);
      g_free (bench->tokens[i]);
    }
  for (guint i = 0; i < ENTITIES; i++)
    g_free (bench->keys[i]);
}

static guint64
commands (Bench *bench)
{
  guint64 total = 0;

  for (guint i = 0; i < bench->n_stores; i++)
    total += gg_a2g_redis_store_commands (GG_A2G_REDIS_STORE (bench->stores[i]));
  return total;
}

static guint64
servers_cpu_ns (const int *pids,
                guint      n)
{
  guint64 total = 0;

  for (guint i = 0; i < n; i++)
    if (pids[i] > 0)
      total += bench_process_cpu_ns (pids[i]);
  return total;
}

typedef void (*During) (gpointer data);

/* Runs @bench for MEASURE_US (calling @during once, at a third of it) and prints its row. */
static void
bench_run (Bench      *bench,
           const char *setup,
           const int  *pids,
           guint       n_pids,
           During      during,
           gpointer    data)
{
  guint64 commands_before = commands (bench), cpu_before, self_before, decisions;
  gint64 start = g_get_monotonic_time (), elapsed, killed_us = 0;
  double redis_us, self_us;

  cpu_before = servers_cpu_ns (pids, n_pids);
  self_before = bench_process_cpu_ns (getpid ());
  for (guint i = 0; i < IN_FLIGHT; i++)
    request_start (bench);
  while ((elapsed = g_get_monotonic_time () - start) < MEASURE_US)
    {
      if (during != NULL && killed_us == 0 && elapsed > MEASURE_US / 3)
        {
          killed_us = g_get_monotonic_time ();
          during (data);
        }
      g_main_context_iteration (NULL, TRUE);
    }
  bench->stopping = TRUE;
  g_assert_true (gg_test_wait_for (drained, bench, 20000));
  elapsed = g_get_monotonic_time () - start;
  decisions = bench->requests * ENTITIES;
  redis_us = decisions > 0 ? (servers_cpu_ns (pids, n_pids) - cpu_before) / 1000.0 / decisions : 0;
  self_us = decisions > 0 ? (bench_process_cpu_ns (getpid ()) - self_before) / 1000.0 / decisions : 0;
  printf ("%-34s %10.0f %9.0f %9.2f %9.2f %9.2f", setup, decisions / (elapsed / 1e6), bench->requests / (elapsed / 1e6),
          decisions > 0 ? (double) (commands (bench) - commands_before) / decisions : 0, redis_us, self_us);
  if (killed_us != 0)
    printf ("   %" G_GUINT64_FORMAT " requests busy, %" G_GINT64_FORMAT " ms to %" G_GINT64_FORMAT " ms after the kill",
            bench->failed, bench->failed > 0 ? (bench->first_failure_us - killed_us) / 1000 : 0,
            bench->failed > 0 ? (bench->last_failure_us - killed_us) / 1000 : 0);
  else if (bench->failed > 0)
    printf ("   (%" G_GUINT64_FORMAT " requests failed)", bench->failed);
  printf ("\n");
}

static void
kill_a_primary (gpointer data)
{
  A2gRedisCluster *cluster = data;

  for (guint i = 0; i < a2g_redis_cluster_nodes (cluster); i++)
    if (a2g_redis_cluster_is_primary (cluster, i))
      {
        a2g_redis_cluster_kill (cluster, i);
        return;
      }
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *server = g_find_program_in_path ("redis-server");
  g_autofree char *cli = g_find_program_in_path ("redis-cli");
  g_autofree char *single_url = NULL, *cluster_url = NULL;
  A2gRedisCluster *cluster;
  int pids[8];
  guint n_pids = 0;
  Bench bench;

  (void) argc;
  (void) argv;
  if (server == NULL || cli == NULL)
    {
      printf ("bench-a2g-cluster: redis-server or redis-cli is not installed\n");
      return 77;
    }
  g_log_set_handler ("gamegate-a2g", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE, g_log_default_handler, NULL);
  g_assert_true (a2g_redis_setup ());
  single_url = a2g_redis_url ();
  cluster = a2g_redis_cluster_start (FIRST_PORT, 3, 1000);
  cluster_url = a2g_redis_cluster_url (cluster);
  printf ("the Redis store's part of a decide (session lookup, 16 cache hits, 16 records), %d in flight\n", IN_FLIGHT);
  printf ("%-34s %10s %9s %9s %9s %9s\n", "setup", "decide/s", "req/s", "cmd/dec", "Redis us", "store us");
  pids[0] = a2g_redis_pid ();
  for (guint n = 1; n <= 2; n++)
    {
      g_autofree char *label = g_strdup_printf ("one primary, %u replica%s", n, n > 1 ? "s" : "");

      bench_init (&bench, single_url, n);
      bench_run (&bench, label, pids, 1, NULL, NULL);
      bench_clear (&bench);
    }
  for (guint i = 0; i < a2g_redis_cluster_nodes (cluster); i++)
    pids[n_pids++] = a2g_redis_cluster_pid (cluster, i);
  for (guint n = 1; n <= 2; n++)
    {
      g_autofree char *label = g_strdup_printf ("3-shard cluster, %u replica%s", n, n > 1 ? "s" : "");

      bench_init (&bench, cluster_url, n);
      bench_run (&bench, label, pids, n_pids, NULL, NULL);
      bench_clear (&bench);
    }
  bench_init (&bench, cluster_url, 2);
  bench_run (&bench, "3-shard cluster failing over, 2 r.", pids, n_pids, kill_a_primary, cluster);
  bench_clear (&bench);
  a2g_redis_cluster_stop (cluster);
  a2g_redis_teardown ();
  return 0;
}
