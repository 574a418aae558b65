/* a2g-test-store.h: the store contract test's fixture: one GgA2gStore of
 * the backend under test (the process store, or the Redis store on the
 * tests' real redis-server under a key prefix of its own), for Redis a
 * second replica on the same keys, two parsed manifests, and the results
 * of its asynchronous operations, awaited on the main loop in the order
 * they complete.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-a2g-store.h"

G_BEGIN_DECLS

typedef enum {
  STORE_PROCESS,
  STORE_REDIS,
} StoreBackend;

/* What each fixture's store is made with. */
#define STORE_CACHE_ENTRIES 4
#define STORE_CACHE_TTL_S 2

typedef struct {
  StoreBackend backend;
  GgA2gStore *store;
  GgA2gStore *replica;      /* Redis: another replica sharing the keys; NULL otherwise */
  GgA2gManifest *manifest;  /* orbital-freight */
  GgA2gManifest *miner;     /* deep-miner */
  GQueue results;           /* GAsyncResult, in the order the operations completed */
  GQueue waiting;           /* GAsyncResult of operations awaited apart (store_collect_apart) */
  GAsyncResult *last;       /* what store_await() gave last */
} StoreFixture;

void          store_fixture_setup    (StoreFixture  *f,
                                      gconstpointer  backend);
void          store_fixture_teardown (StoreFixture  *f,
                                      gconstpointer  backend);
gboolean      store_fixture_skip     (StoreFixture *f);
GgA2gStore   *store_new_replica      (StoreFixture *f);
void          store_collect          (GObject      *source,
                                      GAsyncResult *result,
                                      gpointer      user_data);
GAsyncResult *store_await            (StoreFixture *f);
void          store_collect_apart    (GObject      *source,
                                      GAsyncResult *result,
                                      gpointer      user_data);
GAsyncResult *store_await_apart      (StoreFixture *f);
void          store_await_count      (StoreFixture *f,
                                      guint         n);
GgA2gSession *store_open             (StoreFixture  *f,
                                      GgA2gStore    *store,
                                      const char    *client_id,
                                      GgA2gManifest *manifest,
                                      gint64         ttl_s);
void          store_add_tests        (const char *path,
                                      void      (*test) (StoreFixture *f, gconstpointer backend));
void          store_tests_teardown   (void);

G_END_DECLS
