/* test-a2g-store-state.c: the store contract's other half (see
 * test-a2g-store.c): the cache, limits and budgets, records and replays,
 * telemetry and counters, each rule against both backends, with the
 * concurrent reservations, settlements, bucket takes, reports and
 * request_id claims the service relies on being atomic.
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

/* The other replica for Redis, the one store otherwise. */
static GgA2gStore *
other_store (A2gStoreFixture *f)
{
  return f->replica != NULL ? f->replica : f->store;
}

/* Finishes the @n operations in flight with @finish, each on its own source. */
typedef gint64 (*IntFinish) (GgA2gStore *self, GAsyncResult *result, GError **error);

static GArray *
await_ints (A2gStoreFixture *f,
            guint            n,
            IntFinish        finish)
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
  gg_a2g_store_cache_get_async (other_store (f), "game:aa", NULL, a2g_store_collect, f);
  hit = gg_a2g_store_cache_get_finish (other_store (f), a2g_store_await (f), &error);
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
  waits = await_ints (f, 5, gg_a2g_store_rate_take_finish);
  for (guint i = 0; i < waits->len; i++)
    g_assert_cmpint (g_array_index (waits, gint64, i), ==, 0);
  g_clear_pointer (&waits, g_array_unref);

  /* A burst of 3 (a slow refill) taken by 10 at once, on both replicas:
   * exactly 3, the others told how long until the next token. */
  for (guint i = 0; i < 10; i++)
    gg_a2g_store_rate_take_async (i % 2 ? other_store (f) : f->store, "slow", 0.01, 3, NULL, a2g_store_collect, f);
  waits = await_ints (f, 10, gg_a2g_store_rate_take_finish);
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
  waits = await_ints (f, 2, gg_a2g_store_rate_take_finish);
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
    gg_a2g_store_budget_reserve_async (i % 2 ? other_store (f) : f->store, limits, G_N_ELEMENTS (limits), 20, NULL,
                                       a2g_store_collect, f);
  ids = await_ints (f, 20, gg_a2g_store_budget_reserve_finish);
  for (guint i = 0; i < ids->len; i++)
    if (g_array_index (ids, gint64, i) > 0)
      {
        granted++;
        gg_a2g_store_budget_settle_async (granted % 2 ? other_store (f) : f->store, g_array_index (ids, gint64, i), 7,
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

/* ---- records and replays ------------------------------------------------------ */

static GgA2gRecord *
record_new (const char *decision_id,
            const char *entity,
            const char *action)
{
  GgA2gRecord *record = gg_a2g_record_new ();

  record->decision_id = g_strdup (decision_id);
  record->entity = g_strdup (entity);
  record->type = g_strdup ("pirate");
  record->action = g_strdup (action);
  record->confidence = 70;
  record->reason = g_strdup ("Low on hull.");
  record->situation_key = g_strdup ("abc123");
  return record;
}

static gboolean
put_records (A2gStoreFixture *f,
             const char      *client_id,
             GPtrArray       *records)
{
  g_autoptr(GError) error = NULL;
  gboolean ok;

  gg_a2g_store_record_put_many_async (f->store, client_id, records, NULL, a2g_store_collect, f);
  ok = gg_a2g_store_record_put_many_finish (f->store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  return ok;
}

static GgA2gReportResult
report (A2gStoreFixture *f,
        GgA2gStore      *store,
        const char      *client_id,
        const char      *decision_id,
        const char      *entity)
{
  g_autoptr(GError) error = NULL;
  GgA2gReportResult result;

  gg_a2g_store_record_report_async (store, client_id, decision_id, entity, "success", TRUE, 0.5, NULL,
                                    a2g_store_collect, f);
  result = gg_a2g_store_record_report_finish (store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  return result;
}

static GPtrArray *
recent (A2gStoreFixture *f,
        const char      *entity,
        guint            max)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *records;

  gg_a2g_store_record_recent_async (f->store, CLIENT, entity, max, NULL, a2g_store_collect, f);
  records = gg_a2g_store_record_recent_finish (f->store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  return records;
}

static void
test_records (A2gStoreFixture *f,
              gconstpointer    backend)
{
  g_autoptr(GPtrArray) records = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_record_unref);
  g_autoptr(GPtrArray) found = NULL;
  g_autoptr(GgA2gSession) session = NULL, other = NULL;
  GgA2gRecord *latest;

  if (a2g_store_fixture_skip (f))
    return;
  g_ptr_array_add (records, record_new ("d_1", "pirate-1", "attack"));
  g_ptr_array_add (records, record_new ("d_2", "pirate-2", "flee"));
  g_ptr_array_add (records, record_new ("d_3", "pirate-1", "flee"));
  /* No session: nothing kept. */
  g_assert_false (put_records (f, CLIENT, records));
  session = a2g_store_open (f, f->store, CLIENT, f->manifest, 60);
  other = a2g_store_open (f, f->store, OTHER_CLIENT, f->manifest, 60);
  g_assert_true (put_records (f, CLIENT, records));

  found = recent (f, "pirate-1", 16);
  g_assert_cmpuint (found->len, ==, 2);
  latest = found->pdata[0];
  g_assert_cmpstr (latest->decision_id, ==, "d_3");
  g_assert_cmpstr (latest->entity, ==, "pirate-1");
  g_assert_cmpstr (latest->type, ==, "pirate");
  g_assert_cmpstr (latest->action, ==, "flee");
  g_assert_cmpint (latest->confidence, ==, 70);
  g_assert_cmpstr (latest->reason, ==, "Low on hull.");
  g_assert_cmpstr (latest->situation_key, ==, "abc123");
  g_assert_null (latest->outcome);
  g_assert_cmpstr (((GgA2gRecord *) found->pdata[1])->decision_id, ==, "d_1");
  g_clear_pointer (&found, g_ptr_array_unref);
  found = recent (f, "pirate-1", 1);
  g_assert_cmpuint (found->len, ==, 1);
  g_clear_pointer (&found, g_ptr_array_unref);

  /* A report is accepted once, for its own session and entity (on any replica). */
  g_assert_cmpint (report (f, other_store (f), CLIENT, "d_3", "pirate-1"), ==, GG_A2G_REPORT_ACCEPTED);
  g_assert_cmpint (report (f, f->store, CLIENT, "d_3", "pirate-1"), ==, GG_A2G_REPORT_ALREADY_REPORTED);
  g_assert_cmpint (report (f, f->store, CLIENT, "d_1", "pirate-2"), ==, GG_A2G_REPORT_OTHER_ENTITY);
  g_assert_cmpint (report (f, f->store, CLIENT, "d_9", "pirate-1"), ==, GG_A2G_REPORT_UNKNOWN);
  g_assert_cmpint (report (f, f->store, OTHER_CLIENT, "d_2", "pirate-2"), ==, GG_A2G_REPORT_OTHER_SESSION);
  found = recent (f, "pirate-1", 16);
  latest = found->pdata[0];
  g_assert_cmpstr (latest->outcome, ==, "success");
  g_assert_true (latest->has_reward);
  g_assert_cmpfloat (latest->reward, ==, 0.5);
}

/* Records go with their session: once it ended, its decisions are
 * unknown to every session (not another session's). */
static void
test_records_session_ended (A2gStoreFixture *f,
                            gconstpointer    backend)
{
  g_autoptr(GPtrArray) records = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_record_unref);
  g_autoptr(GPtrArray) found = NULL;
  g_autoptr(GgA2gSession) ending = NULL, other = NULL;

  if (a2g_store_fixture_skip (f))
    return;
  ending = a2g_store_open (f, f->store, CLIENT, f->manifest, 1);
  other = a2g_store_open (f, f->store, OTHER_CLIENT, f->manifest, 60);
  g_ptr_array_add (records, record_new ("d_1", "pirate-1", "attack"));
  g_assert_true (put_records (f, CLIENT, records));
  g_assert_cmpint (report (f, f->store, OTHER_CLIENT, "d_1", "pirate-1"), ==, GG_A2G_REPORT_OTHER_SESSION);
  gg_test_spin (1200);
  g_assert_cmpint (report (f, f->store, OTHER_CLIENT, "d_1", "pirate-1"), ==, GG_A2G_REPORT_UNKNOWN);
  g_assert_cmpint (report (f, f->store, CLIENT, "d_1", "pirate-1"), ==, GG_A2G_REPORT_UNKNOWN);
  found = recent (f, "pirate-1", 16);
  g_assert_cmpuint (found->len, ==, 0);
}

/* The latest GG_A2G_STORE_RECENT_PER_ENTITY decisions of an entity are found. */
static void
test_records_recent_bound (A2gStoreFixture *f,
                           gconstpointer    backend)
{
  g_autoptr(GPtrArray) records = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_record_unref);
  g_autoptr(GPtrArray) found = NULL;
  g_autoptr(GgA2gSession) session = NULL;

  if (a2g_store_fixture_skip (f))
    return;
  session = a2g_store_open (f, f->store, CLIENT, f->manifest, 60);
  for (guint i = 0; i < GG_A2G_STORE_RECENT_PER_ENTITY + 4; i++)
    {
      g_autofree char *id = g_strdup_printf ("d_%02u", i);

      g_ptr_array_add (records, record_new (id, "pirate-1", "attack"));
    }
  g_assert_true (put_records (f, CLIENT, records));
  found = recent (f, "pirate-1", 100);
  g_assert_cmpuint (found->len, ==, GG_A2G_STORE_RECENT_PER_ENTITY);
  g_assert_cmpstr (((GgA2gRecord *) found->pdata[0])->decision_id, ==, "d_19");
  g_assert_cmpstr (((GgA2gRecord *) found->pdata[found->len - 1])->decision_id, ==, "d_04");
}

/* The same decision reported by many at once: accepted exactly once. */
static void
test_records_concurrent_report (A2gStoreFixture *f,
                                gconstpointer    backend)
{
  g_autoptr(GPtrArray) records = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_record_unref);
  g_autoptr(GgA2gSession) session = NULL;
  guint accepted = 0;

  if (a2g_store_fixture_skip (f))
    return;
  session = a2g_store_open (f, f->store, CLIENT, f->manifest, 60);
  g_ptr_array_add (records, record_new ("d_1", "pirate-1", "attack"));
  g_assert_true (put_records (f, CLIENT, records));
  for (guint i = 0; i < 10; i++)
    gg_a2g_store_record_report_async (i % 2 ? other_store (f) : f->store, CLIENT, "d_1", "pirate-1", "won", FALSE,
                                      0, NULL, a2g_store_collect, f);
  a2g_store_await_count (f, 10);
  for (guint i = 0; i < 10; i++)
    {
      GAsyncResult *result = a2g_store_await (f);
      g_autoptr(GObject) source = g_async_result_get_source_object (result);
      GgA2gReportResult outcome = gg_a2g_store_record_report_finish (GG_A2G_STORE (source), result, NULL);

      g_assert_true (outcome == GG_A2G_REPORT_ACCEPTED || outcome == GG_A2G_REPORT_ALREADY_REPORTED);
      accepted += outcome == GG_A2G_REPORT_ACCEPTED;
    }
  g_assert_cmpuint (accepted, ==, 1);
}

/* Claims are awaited apart: a waiting one completes with another operation. */
static void
claim_replay (A2gStoreFixture *f,
              GgA2gStore      *store,
              const char      *request_id)
{
  gg_a2g_store_replay_claim_async (store, CLIENT, request_id, 60, NULL, a2g_store_collect_apart, f);
}

static GBytes *
claimed (A2gStoreFixture *f)
{
  GAsyncResult *result = a2g_store_await_apart (f);
  g_autoptr(GObject) source = g_async_result_get_source_object (result);
  g_autoptr(GError) error = NULL;
  GBytes *answer = gg_a2g_store_replay_claim_finish (GG_A2G_STORE (source), result, &error);

  g_assert_no_error (error);
  return answer;
}

static gboolean
finish_replay (A2gStoreFixture *f,
               const char      *request_id,
               GBytes          *answer)
{
  g_autoptr(GError) error = NULL;
  gboolean ok;

  gg_a2g_store_replay_finish_async (f->store, CLIENT, request_id, answer, NULL, a2g_store_collect, f);
  ok = gg_a2g_store_replay_finish_finish (f->store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  return ok;
}

/* The first claim owns a request_id; claims meanwhile (any replica) wait
 * and get its answer; later ones get it at once. */
static void
test_replays (A2gStoreFixture *f,
              gconstpointer    backend)
{
  g_autoptr(GBytes) answer = g_bytes_new_static ("{\"decisions\":[]}", 16);
  g_autoptr(GgA2gSession) session = NULL;
  g_autoptr(GBytes) first = NULL;

  if (a2g_store_fixture_skip (f))
    return;
  session = a2g_store_open (f, f->store, CLIENT, f->manifest, 60);
  claim_replay (f, f->store, "r-1");
  first = claimed (f);
  g_assert_null (first);
  for (guint i = 0; i < 6; i++)
    claim_replay (f, i % 2 ? other_store (f) : f->store, "r-1");
  gg_test_spin (100);
  g_assert_cmpuint (g_queue_get_length (&f->waiting), ==, 0);
  g_assert_true (finish_replay (f, "r-1", answer));
  for (guint i = 0; i < 6; i++)
    {
      g_autoptr(GBytes) got = claimed (f);

      g_assert_nonnull (got);
      g_assert_true (g_bytes_equal (got, answer));
    }
  /* Answered: not pending any more. */
  g_assert_false (finish_replay (f, "r-1", answer));
  g_assert_false (finish_replay (f, "r-unknown", answer));
}

/* A claim given up: the first waiter owns the request_id then. */
static void
test_replays_given_up (A2gStoreFixture *f,
                       gconstpointer    backend)
{
  g_autoptr(GBytes) answer = g_bytes_new_static ("{}", 2);
  g_autoptr(GgA2gSession) session = NULL;
  g_autoptr(GBytes) owner = NULL, waiter = NULL, third = NULL;

  if (a2g_store_fixture_skip (f))
    return;
  session = a2g_store_open (f, f->store, CLIENT, f->manifest, 60);
  claim_replay (f, f->store, "r-1");
  owner = claimed (f);
  g_assert_null (owner);
  claim_replay (f, other_store (f), "r-1");
  gg_test_spin (50);
  g_assert_true (finish_replay (f, "r-1", NULL));
  waiter = claimed (f);
  g_assert_null (waiter);
  /* The new owner answers; a claim after gets that. */
  g_assert_true (finish_replay (f, "r-1", answer));
  claim_replay (f, f->store, "r-1");
  third = claimed (f);
  g_assert_true (third != NULL && g_bytes_equal (third, answer));
}

/* Replays live in their session: outside a live one a claim owns the
 * request_id and nothing is kept (every claim owns it, none waits). */
static void
test_replays_no_session (A2gStoreFixture *f,
                         gconstpointer    backend)
{
  g_autoptr(GBytes) answer = g_bytes_new_static ("{}", 2);
  g_autoptr(GBytes) first = NULL, second = NULL;

  if (a2g_store_fixture_skip (f))
    return;
  claim_replay (f, f->store, "r-1");
  first = claimed (f);
  g_assert_null (first);
  claim_replay (f, other_store (f), "r-1");
  second = claimed (f);
  g_assert_null (second);
  g_assert_false (finish_replay (f, "r-1", answer));
}

/* ---- telemetry ------------------------------------------------------------------ */

static GgA2gTelemetry *
telemetry_new (const char *entity,
               const char *type,
               const char *faction,
               double      x,
               double      y)
{
  GgA2gTelemetry *entry = g_new0 (GgA2gTelemetry, 1);

  entry->entity = g_strdup (entity);
  entry->type = g_strdup (type);
  entry->faction = g_strdup (faction);
  entry->has_pos = TRUE;
  entry->dims = 2;
  entry->pos[0] = x;
  entry->pos[1] = y;
  entry->scalars = json_object_new ();
  json_object_set_int_member (entry->scalars, "hp", 40);
  return entry;
}

static gint64
put_telemetry (A2gStoreFixture *f,
               const char      *client_id,
               GPtrArray       *entries,
               guint            max_tracked)
{
  g_autoptr(GError) error = NULL;
  gint64 kept;

  gg_a2g_store_telemetry_put_async (f->store, client_id, entries, max_tracked, NULL, a2g_store_collect, f);
  kept = gg_a2g_store_telemetry_put_finish (f->store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  return kept;
}

static char *
situation (A2gStoreFixture *f,
           GgA2gStore      *store,
           const char      *entity)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) object = NULL;

  gg_a2g_store_telemetry_situation_async (store, CLIENT, entity, 100, NULL, a2g_store_collect, f);
  object = gg_a2g_store_telemetry_situation_finish (store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  return object != NULL ? gg_json_object_to_string (object) : NULL;
}

static void
test_telemetry (A2gStoreFixture *f,
                gconstpointer    backend)
{
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_telemetry_free);
  g_autoptr(GPtrArray) more = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_telemetry_free);
  g_autoptr(GgA2gSession) session = NULL;
  g_autofree char *none = NULL, *seen = NULL;

  if (a2g_store_fixture_skip (f))
    return;
  g_ptr_array_add (entries, telemetry_new ("pirate-1", "pirate", "raiders", 0, 0));
  g_ptr_array_add (entries, telemetry_new ("pirate-2", "pirate", "raiders", 30, 40));
  g_ptr_array_add (entries, telemetry_new ("freighter-1", "freighter", NULL, 300, 0));
  /* No session: nothing kept, no situation. */
  g_assert_cmpint (put_telemetry (f, CLIENT, entries, 16), ==, 0);
  session = a2g_store_open (f, f->store, CLIENT, f->manifest, 60);
  none = situation (f, f->store, "pirate-1");
  g_assert_null (none);
  /* Past max_tracked, new entities are not kept; known ones are updated. */
  g_assert_cmpint (put_telemetry (f, CLIENT, entries, 2), ==, 2);
  g_ptr_array_add (more, telemetry_new ("pirate-2", "pirate", "raiders", 60, 80));
  g_ptr_array_add (more, telemetry_new ("guard-1", "guard", "station", 1, 1));
  g_assert_cmpint (put_telemetry (f, CLIENT, more, 2), ==, 1);
  seen = situation (f, other_store (f), "pirate-1");
  a2g_assert_json (seen, "{\"nearby\":[{\"entity\":\"pirate-2\",\"type\":\"pirate\",\"faction\":\"raiders\","
                         "\"distance\":100.0}],\"members\":[\"pirate-2\"],\"population\":{\"pirate\":2}}");
}

/* ---- counters ---------------------------------------------------------------- */

static char *
add_counters (A2gStoreFixture    *f,
              GgA2gStore         *store,
              const GgA2gCounter *deltas,
              guint               n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) totals = NULL;

  gg_a2g_store_counters_add_async (store, deltas, n, NULL, a2g_store_collect, f);
  totals = gg_a2g_store_counters_add_finish (store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  return gg_json_object_to_string (totals);
}

static void
test_counters (A2gStoreFixture *f,
               gconstpointer    backend)
{
  const GgA2gCounter first[] = { { "decisions.model", 3 }, { "tokens.input", 120 } };
  const GgA2gCounter second[] = { { "decisions.model", 2 }, { "fallbacks.busy", 1 } };
  g_autofree char *none = NULL, *one = NULL, *both = NULL;
  g_autoptr(JsonNode) node = NULL, first_node = NULL;
  JsonObject *totals;

  if (a2g_store_fixture_skip (f))
    return;
  none = add_counters (f, f->store, NULL, 0);
  a2g_assert_json (none, "{}");
  /* The totals of every counter there is, in no order. */
  one = add_counters (f, f->store, first, G_N_ELEMENTS (first));
  first_node = gg_json_parse (one, -1, 64, NULL);
  totals = json_node_get_object (first_node);
  g_assert_cmpuint (json_object_get_size (totals), ==, 2);
  g_assert_cmpint (json_object_get_int_member (totals, "decisions.model"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (totals, "tokens.input"), ==, 120);
  /* Every replica's. */
  both = add_counters (f, other_store (f), second, G_N_ELEMENTS (second));
  node = gg_json_parse (both, -1, 64, NULL);
  totals = json_node_get_object (node);
  g_assert_cmpuint (json_object_get_size (totals), ==, 3);
  g_assert_cmpint (json_object_get_int_member (totals, "decisions.model"), ==, 5);
  g_assert_cmpint (json_object_get_int_member (totals, "tokens.input"), ==, 120);
  g_assert_cmpint (json_object_get_int_member (totals, "fallbacks.busy"), ==, 1);
}

/** a2g_store_add_state_tests: adds this file's rules for both backends */
void
a2g_store_add_state_tests (void)
{
  a2g_store_add_tests ("cache/get", test_cache_get);
  a2g_store_add_tests ("cache/list", test_cache_list);
  a2g_store_add_tests ("cache/list-order", test_cache_list_order);
  a2g_store_add_tests ("limits/rate-take", test_rate_take);
  a2g_store_add_tests ("limits/budget", test_budget);
  a2g_store_add_tests ("limits/budget-concurrent", test_budget_concurrent);
  a2g_store_add_tests ("records/put-report-recent", test_records);
  a2g_store_add_tests ("records/session-ended", test_records_session_ended);
  a2g_store_add_tests ("records/recent-bound", test_records_recent_bound);
  a2g_store_add_tests ("records/concurrent-report", test_records_concurrent_report);
  a2g_store_add_tests ("replays/claim-wait-finish", test_replays);
  a2g_store_add_tests ("replays/given-up", test_replays_given_up);
  a2g_store_add_tests ("replays/no-session", test_replays_no_session);
  a2g_store_add_tests ("telemetry/put-situation", test_telemetry);
  a2g_store_add_tests ("counters/add", test_counters);
}

