/* test-a2g-store-records.c: the store contract's records and replays,
 * telemetry and counters (see test-a2g-store.c), each rule against every
 * backend, with the concurrent reports and request_id claims the service
 * relies on being atomic.
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

void a2g_store_add_record_tests (void);

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
  g_assert_cmpint (report (f, a2g_store_other (f), CLIENT, "d_3", "pirate-1"), ==, GG_A2G_REPORT_ACCEPTED);
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
    gg_a2g_store_record_report_async (i % 2 ? a2g_store_other (f) : f->store, CLIENT, "d_1", "pirate-1", "won", FALSE,
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
    claim_replay (f, i % 2 ? a2g_store_other (f) : f->store, "r-1");
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
  claim_replay (f, a2g_store_other (f), "r-1");
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
  claim_replay (f, a2g_store_other (f), "r-1");
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
  seen = situation (f, a2g_store_other (f), "pirate-1");
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
  both = add_counters (f, a2g_store_other (f), second, G_N_ELEMENTS (second));
  node = gg_json_parse (both, -1, 64, NULL);
  totals = json_node_get_object (node);
  g_assert_cmpuint (json_object_get_size (totals), ==, 3);
  g_assert_cmpint (json_object_get_int_member (totals, "decisions.model"), ==, 5);
  g_assert_cmpint (json_object_get_int_member (totals, "tokens.input"), ==, 120);
  g_assert_cmpint (json_object_get_int_member (totals, "fallbacks.busy"), ==, 1);
}

/** a2g_store_add_record_tests: adds this file's rules for every backend */
void
a2g_store_add_record_tests (void)
{
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
