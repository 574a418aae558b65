/* a2g-test-store.h: the store contract test's fixture: one GgA2gStore of
 * the backend under test (the process store, the Redis store on the
 * tests' real redis-server, or on a real 3-primary Redis Cluster, under a
 * key prefix of its own), for Redis a second replica on the same keys, two parsed manifests, and the results
 * of its asynchronous operations, awaited on the main loop in the order
 * they complete.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-a2g-store.h"

G_BEGIN_DECLS

typedef enum {
  A2G_STORE_PROCESS,
  A2G_STORE_REDIS,
  A2G_STORE_CLUSTER,
} A2gStoreBackend;

/* What each fixture's store is made with. */
#define A2G_STORE_CACHE_ENTRIES 4
#define A2G_STORE_CACHE_TTL_S 2

typedef struct {
  A2gStoreBackend backend;
  GgA2gStore *store;
  GgA2gStore *replica;      /* Redis, Cluster: another replica sharing the keys; NULL otherwise */
  GgA2gManifest *manifest;  /* orbital-freight */
  GgA2gManifest *miner;     /* deep-miner */
  GQueue results;           /* GAsyncResult, in the order the operations completed */
  GQueue waiting;           /* GAsyncResult of operations awaited apart (a2g_store_collect_apart) */
  GAsyncResult *last;       /* what a2g_store_await() gave last */
} A2gStoreFixture;

typedef void (*A2gStoreTest) (A2gStoreFixture *f,
                              gconstpointer    backend);

void          a2g_store_fixture_setup    (A2gStoreFixture *f,
                                          gconstpointer    backend);
void          a2g_store_fixture_teardown (A2gStoreFixture *f,
                                          gconstpointer    backend);
gboolean      a2g_store_fixture_skip     (A2gStoreFixture *f);
GgA2gStore   *a2g_store_new_replica      (A2gStoreFixture *f);
void          a2g_store_collect          (GObject      *source,
                                          GAsyncResult *result,
                                          gpointer      user_data);
GAsyncResult *a2g_store_await            (A2gStoreFixture *f);
void          a2g_store_collect_apart    (GObject      *source,
                                          GAsyncResult *result,
                                          gpointer      user_data);
GAsyncResult *a2g_store_await_apart      (A2gStoreFixture *f);
void          a2g_store_await_count      (A2gStoreFixture *f,
                                          guint            n);
/* Finishes the @n operations in flight with @finish, each on its own
 * source; their values in the order they completed. */
typedef gint64 (*A2gStoreIntFinish) (GgA2gStore *self, GAsyncResult *result, GError **error);
GArray       *a2g_store_await_ints       (A2gStoreFixture   *f,
                                          guint              n,
                                          A2gStoreIntFinish  finish);
/* The other replica for Redis and a Cluster, the one store otherwise. */
GgA2gStore   *a2g_store_other            (A2gStoreFixture *f);
GgA2gSession *a2g_store_open             (A2gStoreFixture *f,
                                          GgA2gStore      *store,
                                          const char      *client_id,
                                          GgA2gManifest   *manifest,
                                          gint64           ttl_s);
void          a2g_store_add_tests        (const char   *path,
                                          A2gStoreTest  test);
void          a2g_store_tests_teardown   (void);

G_END_DECLS
