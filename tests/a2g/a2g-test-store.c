/* a2g-test-store.c: the store contract test's fixture (see a2g-test-store.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "a2g-test-cluster.h"
#include "a2g-test-redis.h"
#include "a2g-test-store.h"
#include "a2g-test-util.h"
#include "gg-a2g-process-store.h"
#include "gg-a2g-redis-store.h"

/* The Cluster's ports: a range no other test uses. */
#define CLUSTER_FIRST_PORT 27100

static gboolean have_redis;
static A2gRedisCluster *cluster;
static guint prefix;

static GgA2gManifest *
manifest_parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = gg_json_parse (text, -1, GG_JSON_DEFAULT_MAX_DEPTH, &error);
  GgA2gManifest *manifest;

  g_assert_no_error (error);
  manifest = gg_a2g_manifest_parse (node, &error);
  g_assert_no_error (error);
  return manifest;
}

static gboolean
redis_up (gpointer data)
{
  return gg_a2g_redis_store_is_up (data);
}

/** a2g_store_new_replica: Returns: (transfer full): a Redis store on @f's keys, connected */
GgA2gStore *
a2g_store_new_replica (A2gStoreFixture *f)
{
  g_autofree char *url = f->backend == A2G_STORE_CLUSTER ? a2g_redis_cluster_url (cluster) : a2g_redis_url ();
  g_autofree char *keys = g_strdup_printf ("c%u:", prefix);
  GgA2gRedisStore *store;

  g_assert_cmpint (f->backend, !=, A2G_STORE_PROCESS);
  store = gg_a2g_redis_store_new (url, keys, gg_test_timeout_ms (1000), A2G_STORE_CACHE_ENTRIES, A2G_STORE_CACHE_TTL_S);
  g_assert_true (gg_test_wait_for (redis_up, store, gg_test_timeout_ms (5000)));
  return GG_A2G_STORE (store);
}

void
a2g_store_fixture_setup (A2gStoreFixture *f,
                         gconstpointer    backend)
{
  f->backend = GPOINTER_TO_INT (backend);
  f->manifest = manifest_parse (a2g_test_manifest);
  f->miner = manifest_parse (a2g_test_miner_manifest);
  if (f->backend == A2G_STORE_PROCESS)
    {
      f->store = GG_A2G_STORE (gg_a2g_process_store_new (A2G_STORE_CACHE_ENTRIES, A2G_STORE_CACHE_TTL_S));
      return;
    }
  if (!have_redis || (f->backend == A2G_STORE_CLUSTER && cluster == NULL))
    return;
  /* Every test its own keys on the one server. */
  prefix = a2g_redis_new_prefix ();
  f->store = a2g_store_new_replica (f);
  f->replica = a2g_store_new_replica (f);
}

void
a2g_store_fixture_teardown (A2gStoreFixture *f,
                            gconstpointer    backend)
{
  (void) backend;
  g_assert_cmpuint (g_queue_get_length (&f->results), ==, 0);
  g_assert_cmpuint (g_queue_get_length (&f->waiting), ==, 0);
  g_clear_object (&f->last);
  g_clear_object (&f->replica);
  g_clear_object (&f->store);
  g_clear_pointer (&f->manifest, gg_a2g_manifest_unref);
  g_clear_pointer (&f->miner, gg_a2g_manifest_unref);
}

/** a2g_store_fixture_skip: Returns: TRUE (the test skipped) without a redis-server for a Redis test */
gboolean
a2g_store_fixture_skip (A2gStoreFixture *f)
{
  if (f->store != NULL)
    return FALSE;
  g_test_skip ("redis-server (or redis-cli) is not installed");
  return TRUE;
}

/** a2g_store_collect: the callback of every operation: @user_data is the fixture */
void
a2g_store_collect (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  A2gStoreFixture *f = user_data;

  (void) source;
  g_queue_push_tail (&f->results, g_object_ref (result));
}

typedef struct {
  A2gStoreFixture *f;
  guint n;
} Awaited;

static gboolean
completed (gpointer data)
{
  Awaited *awaited = data;

  return g_queue_get_length (&awaited->f->results) >= awaited->n;
}

/** a2g_store_await_count: runs the main loop until @n operations have completed */
void
a2g_store_await_count (A2gStoreFixture *f,
                       guint            n)
{
  Awaited awaited = { f, n };

  g_assert_true (gg_test_wait_for (completed, &awaited, gg_test_timeout_ms (5000)));
}

/** a2g_store_await_ints: Returns: (transfer full): the @n values, in the order they completed */
GArray *
a2g_store_await_ints (A2gStoreFixture   *f,
                      guint              n,
                      A2gStoreIntFinish  finish)
{
  GArray *values = g_array_new (FALSE, FALSE, sizeof (gint64));

  a2g_store_await_count (f, n);
  for (guint i = 0; i < n; i++)
    {
      GAsyncResult *result = a2g_store_await (f);
      g_autoptr(GObject) source = g_async_result_get_source_object (result);
      g_autoptr(GError) error = NULL;
      gint64 value = finish (GG_A2G_STORE (source), result, &error);

      g_assert_no_error (error);
      g_array_append_val (values, value);
    }
  return values;
}

/** a2g_store_other: Returns: (transfer none): the other replica, or the one store */
GgA2gStore *
a2g_store_other (A2gStoreFixture *f)
{
  return f->replica != NULL ? f->replica : f->store;
}

/**
 * a2g_store_await:
 * @f: the fixture
 *
 * Returns: (transfer none): the first operation to complete (not yet
 *   awaited), kept until the next a2g_store_await()
 */
GAsyncResult *
a2g_store_await (A2gStoreFixture *f)
{
  a2g_store_await_count (f, 1);
  g_clear_object (&f->last);
  f->last = g_queue_pop_head (&f->results);
  return f->last;
}

/** a2g_store_collect_apart: the callback of operations awaited apart from the others (a2g_store_await_apart()) */
void
a2g_store_collect_apart (GObject      *source,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  A2gStoreFixture *f = user_data;

  (void) source;
  g_queue_push_tail (&f->waiting, g_object_ref (result));
}

static gboolean
completed_apart (gpointer data)
{
  A2gStoreFixture *f = data;

  return g_queue_get_length (&f->waiting) > 0;
}

/**
 * a2g_store_await_apart:
 * @f: the fixture
 *
 * Operations that wait for others (a request_id's claims while another
 * holds it) complete while those others do: they are collected apart.
 *
 * Returns: (transfer none): the first of them to complete, kept until the
 *   next a2g_store_await() or a2g_store_await_apart()
 */
GAsyncResult *
a2g_store_await_apart (A2gStoreFixture *f)
{
  g_assert_true (gg_test_wait_for (completed_apart, f, gg_test_timeout_ms (5000)));
  g_clear_object (&f->last);
  f->last = g_queue_pop_head (&f->waiting);
  return f->last;
}

/** a2g_store_open: Returns: (transfer full): a session of @client_id opened on @store with @manifest, kept first (as the service does) */
GgA2gSession *
a2g_store_open (A2gStoreFixture *f,
                GgA2gStore      *store,
                const char      *client_id,
                GgA2gManifest   *manifest,
                gint64           ttl_s)
{
  g_autoptr(GError) error = NULL;
  GgA2gSession *session;

  gg_a2g_store_manifest_put_async (store, manifest, NULL, a2g_store_collect, f);
  g_assert_true (gg_a2g_store_manifest_put_finish (store, a2g_store_await (f), &error));
  gg_a2g_store_session_open_async (store, client_id, manifest->game, manifest, ttl_s, 30, NULL, a2g_store_collect, f);
  session = gg_a2g_store_session_open_finish (store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  g_assert_nonnull (session);
  return session;
}

/** a2g_store_tests_teardown: stops the tests' redis-server, when one was started */
void
a2g_store_tests_teardown (void)
{
  if (have_redis)
    a2g_redis_teardown ();
  if (cluster != NULL)
    a2g_redis_cluster_stop (cluster);
  cluster = NULL;
}

/**
 * a2g_store_add_tests:
 * @path: the rule's path under /a2g/store/<backend>/
 * @test: the rule, run against each backend
 */
void
a2g_store_add_tests (const char   *path,
                     A2gStoreTest  test)
{
  static const char *names[] = { "process", "redis", "cluster" };
  static gsize redis_checked;

  if (g_once_init_enter (&redis_checked))
    {
      have_redis = a2g_redis_setup ();
      /* Three primaries, a replica each; a failover would take about a second. */
      if (have_redis)
        cluster = a2g_redis_cluster_start (CLUSTER_FIRST_PORT, 3, 1000);
      g_once_init_leave (&redis_checked, 1);
    }
  for (A2gStoreBackend backend = A2G_STORE_PROCESS; backend <= A2G_STORE_CLUSTER; backend++)
    {
      g_autofree char *name = g_strdup_printf ("/a2g/store/%s/%s", names[backend], path);

      g_test_add (name, A2gStoreFixture, GINT_TO_POINTER (backend), a2g_store_fixture_setup, test,
                  a2g_store_fixture_teardown);
    }
}
