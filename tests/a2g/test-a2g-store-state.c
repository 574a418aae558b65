/* test-a2g-store-state.c: the store contract's cache, limits and budgets
 * (see test-a2g-store.c), each rule against every backend, with the
 * concurrent reservations, settlements and bucket takes the service
 * relies on being atomic. Records, replays, telemetry and counters are in
 * test-a2g-store-records.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "a2g-test-store.h"
#include "a2g-test-util.h"
#include "gg-a2g-errors.h"

#define CLIENT "client-0001"
#define OTHER_CLIENT "client-0002"

void a2g_store_add_state_tests (void);

/* ---- cache -------------------------------------------------------------------- */

static GgA2gCacheEntry *
entry_new (A2gStoreFixture *f,
           const char      *key,
           const char      *action)
{
  GgA2gCacheEntry *entry = gg_a2g_cache_entry_new ();

  entry->key = g_strdup (key);
  entry->manifest_hash = g_strdup (f->manifest->hash);
  entry->type = g_strdup ("pirate");
  entry->situation = gg_json_parse ("{\"hp\":40,\"cornered\":true}", -1, 64, NULL);
  entry->legal_actions = gg_json_parse ("[\"attack\",\"flee\"]", -1, 64, NULL);
  entry->action = g_strdup (action);
  entry->confidence = 80;
  entry->reason = g_strdup ("Outgunned.");
  return entry;
}

static void
put (A2gStoreFixture *f,
     GgA2gCacheEntry *entry)
{
  g_autoptr(GError) error = NULL;

  gg_a2g_store_cache_put_async (f->store, entry, NULL, a2g_store_collect, f);
  g_assert_true (gg_a2g_store_cache_put_finish (f->store, a2g_store_await (f), &error));
  g_assert_no_error (error);
}

static void
test_cache_get (A2gStoreFixture *f,
                gconstpointer    backend)
{
  g_autoptr(GgA2gCacheEntry) entry = NULL, hit = NULL;
  g_autoptr(GPtrArray) hits = NULL;
  const char *keys[] = { "game:aa", "game:missing", "session:s1:aa" };
  g_autoptr(GError) error = NULL;
  g_autofree char *situation = NULL;
  gint64 now = g_get_monotonic_time ();

  if (a2g_store_fixture_skip (f))
    return;
  gg_a2g_store_cache_get_async (f->store, "game:aa", NULL, a2g_store_collect, f);
  g_assert_null (gg_a2g_store_cache_get_finish (f->store, a2g_store_await (f), &error));
  g_assert_no_error (error);

  entry = entry_new (f, "game:aa", "flee");
  put (f, entry);
  g_clear_pointer (&entry, gg_a2g_cache_entry_unref);
  entry = entry_new (f, "session:s1:aa", "attack");
  put (f, entry);
  /* Another replica reads what one wrote (Redis). */
  gg_a2g_store_cache_get_async (a2g_store_other (f), "game:aa", NULL, a2g_store_collect, f);
  hit = gg_a2g_store_cache_get_finish (a2g_store_other (f), a2g_store_await (f), &error);
  g_assert_no_error (error);
  g_assert_nonnull (hit);
  g_assert_cmpstr (hit->key, ==, "game:aa");
  g_assert_cmpstr (hit->manifest_hash, ==, f->manifest->hash);
  g_assert_cmpstr (hit->type, ==, "pirate");
  situation = gg_json_to_string (hit->situation);
  g_assert_cmpstr (situation, ==, "{\"hp\":40,\"cornered\":true}");
  g_assert_cmpuint (json_array_get_length (json_node_get_array (hit->legal_actions)), ==, 2);
  g_assert_cmpstr (hit->action, ==, "flee");
  g_assert_cmpint (hit->confidence, ==, 80);
  g_assert_cmpstr (hit->reason, ==, "Outgunned.");
  /* Its expiry: the cache TTL from the put. */
  g_assert_cmpint (hit->expires_us, >, now + (A2G_STORE_CACHE_TTL_S - 1) * G_USEC_PER_SEC);
  g_assert_cmpint (hit->expires_us, <=, g_get_monotonic_time () + A2G_STORE_CACHE_TTL_S * G_USEC_PER_SEC + 100000);

  /* Many at once: in the order of the keys, NULL for a miss. */
  gg_a2g_store_cache_get_many_async (f->store, keys, G_N_ELEMENTS (keys), NULL, a2g_store_collect, f);
  hits = gg_a2g_store_cache_get_many_finish (f->store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hits->len, ==, 3);
  g_assert_cmpstr (((GgA2gCacheEntry *) hits->pdata[0])->action, ==, "flee");
  g_assert_null (hits->pdata[1]);
  g_assert_cmpstr (((GgA2gCacheEntry *) hits->pdata[2])->action, ==, "attack");
  g_clear_pointer (&hits, g_ptr_array_unref);
  gg_a2g_store_cache_get_many_async (f->store, keys, 0, NULL, a2g_store_collect, f);
  hits = gg_a2g_store_cache_get_many_finish (f->store, a2g_store_await (f), &error);
  g_assert_cmpuint (hits->len, ==, 0);

  /* Gone after the TTL. */
  gg_test_spin (A2G_STORE_CACHE_TTL_S * 1000 + 200);
  gg_a2g_store_cache_get_async (f->store, "game:aa", NULL, a2g_store_collect, f);
  g_assert_null (gg_a2g_store_cache_get_finish (f->store, a2g_store_await (f), &error));
}

/* The game-wide entries of one manifest, oldest first, at most
 * cache-entries of them (the latest). */
static void
test_cache_list (A2gStoreFixture *f,
                 gconstpointer    backend)
{
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GError) error = NULL;

  if (a2g_store_fixture_skip (f))
    return;
  for (guint i = 0; i < A2G_STORE_CACHE_ENTRIES + 2; i++)
    {
      g_autofree char *key = g_strdup_printf ("game:%02u", i);
      g_autoptr(GgA2gCacheEntry) entry = entry_new (f, key, "flee");

      put (f, entry);
      /* Redis orders them by expiry (ms). */
      gg_test_spin (5);
    }
  {
    g_autoptr(GgA2gCacheEntry) own = entry_new (f, "session:s1:00", "attack");
    g_autoptr(GgA2gCacheEntry) miner = entry_new (f, "game:miner", "dig");

    g_free (miner->manifest_hash);
    miner->manifest_hash = g_strdup (f->miner->hash);
    put (f, own);
    put (f, miner);
  }
  gg_a2g_store_cache_list_async (f->store, f->manifest->hash, NULL, a2g_store_collect, f);
  entries = gg_a2g_store_cache_list_finish (f->store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  /* The process store's bound counts every entry (the miner's and the
   * session's too); Redis bounds each manifest's index. */
  g_assert_cmpuint (entries->len, <=, A2G_STORE_CACHE_ENTRIES);
  g_assert_cmpuint (entries->len, >=, A2G_STORE_CACHE_ENTRIES - 2);
  for (guint i = 0; i < entries->len; i++)
    {
      g_autofree char *key = g_strdup_printf ("game:%02u", A2G_STORE_CACHE_ENTRIES + 2 - entries->len + i);

      g_assert_cmpstr (((GgA2gCacheEntry *) entries->pdata[i])->key, ==, key);
    }
}

/* Listed in the order they were put (oldest first), whatever was read since. */
static void
test_cache_list_order (A2gStoreFixture *f,
                       gconstpointer    backend)
{
  g_autoptr(GgA2gCacheEntry) first = entry_new (f, "game:first", "flee");
  g_autoptr(GgA2gCacheEntry) second = entry_new (f, "game:second", "attack");
  g_autoptr(GgA2gCacheEntry) hit = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GError) error = NULL;

  if (a2g_store_fixture_skip (f))
    return;
  put (f, first);
  gg_test_spin (5);
  put (f, second);
  gg_a2g_store_cache_get_async (f->store, "game:first", NULL, a2g_store_collect, f);
  hit = gg_a2g_store_cache_get_finish (f->store, a2g_store_await (f), &error);
  g_assert_nonnull (hit);
  gg_a2g_store_cache_list_async (f->store, f->manifest->hash, NULL, a2g_store_collect, f);
  entries = gg_a2g_store_cache_list_finish (f->store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 2);
  g_assert_cmpstr (((GgA2gCacheEntry *) entries->pdata[0])->key, ==, "game:first");
  g_assert_cmpstr (((GgA2gCacheEntry *) entries->pdata[1])->key, ==, "game:second");
}

/* ---- limits and budgets ------------------------------------------------------ */

static void
test_rate_take (A2gStoreFixture *f,
                gconstpointer    backend)
{
  g_autoptr(GArray) waits = NULL;
  guint taken = 0;

  if (a2g_store_fixture_skip (f))
    return;
  /* No rate: no limit. */
  for (guint i = 0; i < 5; i++)
    gg_a2g_store_rate_take_async (f->store, "free", 0, 0, NULL, a2g_store_collect, f);
  waits = a2g_store_await_ints (f, 5, gg_a2g_store_rate_take_finish);
  for (guint i = 0; i < waits->len; i++)
    g_assert_cmpint (g_array_index (waits, gint64, i), ==, 0);
  g_clear_pointer (&waits, g_array_unref);

  /* A burst of 3 (a slow refill) taken by 10 at once, on both replicas:
   * exactly 3, the others told how long until the next token. */
  for (guint i = 0; i < 10; i++)
    gg_a2g_store_rate_take_async (i % 2 ? a2g_store_other (f) : f->store, "slow", 0.01, 3, NULL, a2g_store_collect, f);
  waits = a2g_store_await_ints (f, 10, gg_a2g_store_rate_take_finish);
  for (guint i = 0; i < waits->len; i++)
    {
      gint64 wait_ms = g_array_index (waits, gint64, i);

      taken += wait_ms == 0;
      g_assert_cmpint (wait_ms, <=, 100 * 1000);
    }
  g_assert_cmpuint (taken, ==, 3);
  g_clear_pointer (&waits, g_array_unref);

  /* A refill of 10 a second: a token again within about 100 ms. */
  gg_a2g_store_rate_take_async (f->store, "fast", 10, 1, NULL, a2g_store_collect, f);
  gg_a2g_store_rate_take_async (f->store, "fast", 10, 1, NULL, a2g_store_collect, f);
  waits = a2g_store_await_ints (f, 2, gg_a2g_store_rate_take_finish);
  g_assert_cmpint (g_array_index (waits, gint64, 0), ==, 0);
  g_assert_cmpint (g_array_index (waits, gint64, 1), >, 0);
  g_assert_cmpint (g_array_index (waits, gint64, 1), <=, 100);
}

static const GgA2gBudgetLimit limits[] = {
  { "session:" CLIENT, 100, 3600, "hour" },
  { "game:orbital-freight", 0, 86400, "day" },
};

static gint64
reserve (A2gStoreFixture *f,
         gint64           amount)
{
  g_autoptr(GError) error = NULL;
  gint64 id;

  gg_a2g_store_budget_reserve_async (f->store, limits, G_N_ELEMENTS (limits), amount, NULL, a2g_store_collect, f);
  id = gg_a2g_store_budget_reserve_finish (f->store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  return id;
}

static gboolean
settle (A2gStoreFixture *f,
        gint64           reservation,
        gint64           used)
{
  g_autoptr(GError) error = NULL;
  gboolean ok;

  gg_a2g_store_budget_settle_async (f->store, reservation, used, NULL, a2g_store_collect, f);
  ok = gg_a2g_store_budget_settle_finish (f->store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  return ok;
}

static char *
budgets (A2gStoreFixture *f,
         const char      *prefix)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) list = NULL;
  g_autoptr(JsonNode) node = NULL;

  gg_a2g_store_budget_list_async (f->store, prefix, NULL, a2g_store_collect, f);
  list = gg_a2g_store_budget_list_finish (f->store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  node = json_node_init_array (json_node_alloc (), list);
  return gg_json_to_string (node);
}

static void
test_budget (A2gStoreFixture *f,
             gconstpointer    backend)
{
  gint64 first, second;
  g_autofree char *list = NULL, *games = NULL;

  if (a2g_store_fixture_skip (f))
    return;
  first = reserve (f, 60);
  g_assert_cmpint (first, >, 0);
  /* 60 reserved + 60 > 100: refused, on every budget. */
  g_assert_cmpint (reserve (f, 60), ==, 0);
  /* Settled with what was used: 30 count, the rest is free again. */
  g_assert_true (settle (f, first, 30));
  g_assert_false (settle (f, first, 30));
  g_assert_false (settle (f, 999999, 1));
  second = reserve (f, 60);
  g_assert_cmpint (second, >, first);
  g_assert_true (settle (f, second, 70));
  /* 100 used: nothing more, not even 1. */
  g_assert_cmpint (reserve (f, 1), ==, 0);
  list = budgets (f, "");
  a2g_assert_json (list, "[{\"scope\":\"game:orbital-freight\",\"used\":100,\"limit\":0,\"window\":\"day\"},"
                         "{\"scope\":\"session:client-0001\",\"used\":100,\"limit\":100,\"window\":\"hour\"}]");
  games = budgets (f, "game:");
  a2g_assert_json (games, "[{\"scope\":\"game:orbital-freight\",\"used\":100,\"limit\":0,\"window\":\"day\"}]");
}

/* 20 reservations at once (both replicas) where 5 fit, then all settled at
 * once: exactly 5, and every settled token counted once. */
static void
test_budget_concurrent (A2gStoreFixture *f,
                        gconstpointer    backend)
{
  g_autoptr(GArray) ids = NULL;
  g_autoptr(GArray) settled = NULL;
  g_autofree char *list = NULL;
  guint granted = 0;

  if (a2g_store_fixture_skip (f))
    return;
  for (guint i = 0; i < 20; i++)
    gg_a2g_store_budget_reserve_async (i % 2 ? a2g_store_other (f) : f->store, limits, G_N_ELEMENTS (limits), 20, NULL,
                                       a2g_store_collect, f);
  ids = a2g_store_await_ints (f, 20, gg_a2g_store_budget_reserve_finish);
  for (guint i = 0; i < ids->len; i++)
    if (g_array_index (ids, gint64, i) > 0)
      {
        granted++;
        gg_a2g_store_budget_settle_async (granted % 2 ? a2g_store_other (f) : f->store, g_array_index (ids, gint64, i), 7,
                                          NULL, a2g_store_collect, f);
      }
  g_assert_cmpuint (granted, ==, 5);
  a2g_store_await_count (f, granted);
  for (guint i = 0; i < granted; i++)
    {
      GAsyncResult *result = a2g_store_await (f);
      g_autoptr(GObject) source = g_async_result_get_source_object (result);

      g_assert_true (gg_a2g_store_budget_settle_finish (GG_A2G_STORE (source), result, NULL));
    }
  list = budgets (f, "session:");
  a2g_assert_json (list, "[{\"scope\":\"session:client-0001\",\"used\":35,\"limit\":100,\"window\":\"hour\"}]");
}

/** a2g_store_add_state_tests: adds this file's rules for every backend */
void
a2g_store_add_state_tests (void)
{
  a2g_store_add_tests ("cache/get", test_cache_get);
  a2g_store_add_tests ("cache/list", test_cache_list);
  a2g_store_add_tests ("cache/list-order", test_cache_list_order);
  a2g_store_add_tests ("limits/rate-take", test_rate_take);
  a2g_store_add_tests ("limits/budget", test_budget);
  a2g_store_add_tests ("limits/budget-concurrent", test_budget_concurrent);
}

