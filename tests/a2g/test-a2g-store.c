/* test-a2g-store.c: the store contract: every operation of GgA2gStore
 * held to the rules gg-a2g-store.c documents, against both backends, the
 * process store and the Redis store, on a real redis-server and on a real
 * 3-primary, 3-replica Redis Cluster started here (/a2g/store/process/...,
 * /a2g/store/redis/... and /a2g/store/cluster/...: the same test body for
 * each). The atomicity the service relies on is driven as it happens:
 * many operations in flight at once, on two replicas for Redis, and
 * exactly as many succeed as the rule allows.
 *
 * The rules of the cache, limits and budgets are in test-a2g-store-state.c,
 * those of records, replays, telemetry and counters in
 * test-a2g-store-records.c: this program's other parts.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "a2g-test-redis.h"
#include "a2g-test-store.h"
#include "a2g-test-util.h"
#include "gg-a2g-errors.h"
#include "gg-a2g-redis-store.h"

#define CLIENT "client-0001"
#define OTHER_CLIENT "client-0002"
#define GAME "orbital-freight"

void a2g_store_add_state_tests (void);
void a2g_store_add_record_tests (void);

static gboolean
is_hex (const char *text,
        gsize       length)
{
  if (strlen (text) != length)
    return FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_isxdigit (*p))
      return FALSE;
  return TRUE;
}

/* ---- manifests ------------------------------------------------------------- */

static void
test_manifest_put_get (A2gStoreFixture *f,
                       gconstpointer    backend)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgA2gManifest) got = NULL;
  const char *hash = f->manifest->hash;

  if (a2g_store_fixture_skip (f))
    return;
  /* Unknown: no manifest, and no error. */
  g_assert_null (gg_a2g_store_manifest_lookup (f->store, hash));
  gg_a2g_store_manifest_get_async (f->store, hash, NULL, a2g_store_collect, f);
  g_assert_null (gg_a2g_store_manifest_get_finish (f->store, a2g_store_await (f), &error));
  g_assert_no_error (error);

  gg_a2g_store_manifest_put_async (f->store, f->manifest, NULL, a2g_store_collect, f);
  g_assert_true (gg_a2g_store_manifest_put_finish (f->store, a2g_store_await (f), &error));
  g_assert_no_error (error);
  /* Known here at once, without a round trip. */
  g_assert_true (gg_a2g_store_manifest_lookup (f->store, hash) == f->manifest);
  gg_a2g_store_manifest_get_async (f->store, hash, NULL, a2g_store_collect, f);
  got = gg_a2g_store_manifest_get_finish (f->store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  g_assert_true (got == f->manifest);
  g_assert_null (gg_a2g_store_manifest_lookup (f->store, NULL));
}

/* Content-addressed: a second put under the same hash keeps the first. */
static void
test_manifest_put_twice (A2gStoreFixture *f,
                         gconstpointer    backend)
{
  g_autoptr(JsonNode) node = gg_json_parse (a2g_test_manifest, -1, 64, NULL);
  g_autoptr(GgA2gManifest) copy = gg_a2g_manifest_parse (node, NULL);
  g_autoptr(GError) error = NULL;

  if (a2g_store_fixture_skip (f))
    return;
  g_assert_cmpstr (copy->hash, ==, f->manifest->hash);
  gg_a2g_store_manifest_put_async (f->store, f->manifest, NULL, a2g_store_collect, f);
  gg_a2g_store_manifest_put_async (f->store, copy, NULL, a2g_store_collect, f);
  g_assert_true (gg_a2g_store_manifest_put_finish (f->store, a2g_store_await (f), &error));
  g_assert_true (gg_a2g_store_manifest_put_finish (f->store, a2g_store_await (f), &error));
  g_assert_no_error (error);
  g_assert_true (gg_a2g_store_manifest_lookup (f->store, f->manifest->hash) == f->manifest);
}

/* A manifest another replica kept is read (parsed) and known from then on. */
static void
test_manifest_other_replica (A2gStoreFixture *f,
                             gconstpointer    backend)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgA2gManifest) got = NULL;

  if (a2g_store_fixture_skip (f))
    return;
  if (f->replica == NULL)
    {
      g_test_skip ("the process store has no other replica");
      return;
    }
  gg_a2g_store_manifest_put_async (f->store, f->manifest, NULL, a2g_store_collect, f);
  g_assert_true (gg_a2g_store_manifest_put_finish (f->store, a2g_store_await (f), &error));
  g_assert_null (gg_a2g_store_manifest_lookup (f->replica, f->manifest->hash));
  gg_a2g_store_manifest_get_async (f->replica, f->manifest->hash, NULL, a2g_store_collect, f);
  got = gg_a2g_store_manifest_get_finish (f->replica, a2g_store_await (f), &error);
  g_assert_no_error (error);
  g_assert_nonnull (got);
  g_assert_true (got != f->manifest);
  g_assert_cmpstr (got->canonical, ==, f->manifest->canonical);
  g_assert_true (gg_a2g_store_manifest_lookup (f->replica, f->manifest->hash) == got);
}

/* ---- sessions and tokens ---------------------------------------------------- */

static GgA2gSession *
lookup (A2gStoreFixture  *f,
        GgA2gStore       *store,
        const char       *client_id,
        const char       *token,
        GError          **error)
{
  gg_a2g_store_session_lookup_async (store, client_id, token, NULL, a2g_store_collect, f);
  return gg_a2g_store_session_lookup_finish (store, a2g_store_await (f), error);
}

static gint64
count (A2gStoreFixture *f,
       GgA2gStore      *store)
{
  g_autoptr(GError) error = NULL;
  gint64 n;

  gg_a2g_store_session_count_async (store, NULL, a2g_store_collect, f);
  n = gg_a2g_store_session_count_finish (store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  return n;
}

static void
test_session_open (A2gStoreFixture *f,
                   gconstpointer    backend)
{
  g_autoptr(GgA2gSession) session = NULL;
  g_autoptr(GgA2gContext) empty = NULL;

  if (a2g_store_fixture_skip (f))
    return;
  session = a2g_store_open (f, f->store, CLIENT, f->manifest, 60);
  g_assert_cmpstr (session->client_id, ==, CLIENT);
  g_assert_cmpstr (session->game, ==, GAME);
  g_assert_cmpstr (session->manifest_hash, ==, f->manifest->hash);
  g_assert_true (session->manifest == f->manifest);
  g_assert_cmpint (session->ttl_s, ==, 60);
  /* 128 random bits in the token, 64 in the id. */
  g_assert_true (g_str_has_prefix (session->token, "s_"));
  g_assert_true (is_hex (session->token + 2, 32));
  g_assert_true (is_hex (session->id, 16));
  /* No context set: the manifest's empty one. */
  g_assert_null (session->context);
  empty = gg_a2g_context_build (f->manifest, NULL, NULL);
  g_assert_cmpstr (gg_a2g_session_get_context (session)->hash, ==, empty->hash);
  g_assert_cmpint (count (f, f->store), ==, 1);
}

static void
test_session_lookup (A2gStoreFixture *f,
                     gconstpointer    backend)
{
  g_autoptr(GgA2gSession) opened = NULL, found = NULL;
  g_autoptr(GError) error = NULL;
  GgA2gStore *other;

  if (a2g_store_fixture_skip (f))
    return;
  opened = a2g_store_open (f, f->store, CLIENT, f->manifest, 60);
  found = lookup (f, f->store, CLIENT, opened->token, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found->id, ==, opened->id);
  g_assert_cmpstr (found->token, ==, opened->token);
  g_assert_cmpstr (found->manifest_hash, ==, f->manifest->hash);
  g_assert_nonnull (found->manifest);
  g_clear_pointer (&found, gg_a2g_session_unref);

  g_assert_null (lookup (f, f->store, CLIENT, "s_0123456789abcdef0123456789abcdef", &error));
  g_assert_error (error, GG_A2G_ERROR, GG_A2G_ERROR_UNAUTHORIZED);
  g_clear_error (&error);
  g_assert_null (lookup (f, f->store, CLIENT, NULL, &error));
  g_assert_error (error, GG_A2G_ERROR, GG_A2G_ERROR_UNAUTHORIZED);
  g_clear_error (&error);
  g_assert_null (lookup (f, f->store, OTHER_CLIENT, opened->token, &error));
  g_assert_error (error, GG_A2G_ERROR, GG_A2G_ERROR_UNKNOWN_SESSION);
  g_clear_error (&error);

  /* Redis: a session opened on one replica is found on the other, with
   * its manifest, which that replica now knows. */
  other = f->replica;
  if (other == NULL)
    return;
  g_assert_null (gg_a2g_store_manifest_lookup (other, f->manifest->hash));
  found = lookup (f, other, CLIENT, opened->token, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found->id, ==, opened->id);
  g_assert_nonnull (found->manifest);
  g_assert_cmpstr (found->manifest->canonical, ==, f->manifest->canonical);
  g_assert_true (gg_a2g_store_manifest_lookup (other, f->manifest->hash) == found->manifest);
}

/* A renewal: a new token, the same session; the previous token stays
 * valid for the grace period only. */
static void
test_session_renew (A2gStoreFixture *f,
                    gconstpointer    backend)
{
  g_autoptr(GgA2gSession) first = NULL, renewed = NULL, found = NULL;
  g_autoptr(GError) error = NULL;

  if (a2g_store_fixture_skip (f))
    return;
  first = a2g_store_open (f, f->store, CLIENT, f->manifest, 60);
  gg_a2g_store_session_open_async (f->store, CLIENT, GAME, f->manifest, 60, 1, NULL, a2g_store_collect, f);
  renewed = gg_a2g_store_session_open_finish (f->store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (renewed->id, ==, first->id);
  g_assert_cmpstr (renewed->token, !=, first->token);
  g_assert_cmpint (count (f, f->store), ==, 1);
  found = lookup (f, f->store, CLIENT, first->token, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found->token, ==, renewed->token);
  g_clear_pointer (&found, gg_a2g_session_unref);

  gg_test_spin (1200);
  g_assert_null (lookup (f, f->store, CLIENT, first->token, &error));
  g_assert_error (error, GG_A2G_ERROR, GG_A2G_ERROR_UNAUTHORIZED);
  g_clear_error (&error);
  found = lookup (f, f->store, CLIENT, renewed->token, &error);
  g_assert_no_error (error);
}

static void
test_session_context (A2gStoreFixture *f,
                      gconstpointer    backend)
{
  g_autoptr(JsonNode) body = gg_json_parse ("{\"scopes\":[\"station\"],\"profiles\":{\"pirate-1\":\"coward\"}}",
                                            -1, 64, NULL);
  g_autoptr(GgA2gSession) opened = NULL, found = NULL, renewed = NULL, moved = NULL;
  g_autoptr(GgA2gContext) context = NULL;
  g_autoptr(GError) error = NULL;

  if (a2g_store_fixture_skip (f))
    return;
  opened = a2g_store_open (f, f->store, CLIENT, f->manifest, 60);
  context = gg_a2g_context_update (f->manifest, NULL, json_node_get_object (body), &error);
  g_assert_no_error (error);
  gg_a2g_store_session_set_context_async (f->store, CLIENT, context, NULL, a2g_store_collect, f);
  g_assert_true (gg_a2g_store_session_set_context_finish (f->store, a2g_store_await (f), &error));
  g_assert_no_error (error);
  found = lookup (f, f->store, CLIENT, opened->token, &error);
  g_assert_nonnull (found->context);
  g_assert_cmpstr (found->context->hash, ==, context->hash);
  g_assert_cmpstr (gg_a2g_session_get_context (found)->hash, ==, context->hash);

  /* Renewed for the same manifest: kept; for another: gone. */
  renewed = a2g_store_open (f, f->store, CLIENT, f->manifest, 60);
  g_assert_nonnull (renewed->context);
  g_assert_cmpstr (renewed->context->hash, ==, context->hash);
  moved = a2g_store_open (f, f->store, CLIENT, f->miner, 60);
  g_assert_null (moved->context);

  gg_a2g_store_session_set_context_async (f->store, OTHER_CLIENT, context, NULL, a2g_store_collect, f);
  g_assert_false (gg_a2g_store_session_set_context_finish (f->store, a2g_store_await (f), &error));
  g_assert_error (error, GG_A2G_ERROR, GG_A2G_ERROR_UNKNOWN_SESSION);
}

/* A session lives its TTL from its last use: a lookup renews it, an
 * unused one ends (and no longer counts). */
static void
test_session_expiry (A2gStoreFixture *f,
                     gconstpointer    backend)
{
  g_autoptr(GgA2gSession) used = NULL, idle = NULL, found = NULL;
  g_autoptr(GError) error = NULL;

  if (a2g_store_fixture_skip (f))
    return;
  used = a2g_store_open (f, f->store, CLIENT, f->manifest, 2);
  idle = a2g_store_open (f, f->store, OTHER_CLIENT, f->manifest, 2);
  g_assert_cmpint (count (f, f->store), ==, 2);
  gg_test_spin (1200);
  found = lookup (f, f->store, CLIENT, used->token, &error);
  g_assert_no_error (error);
  g_clear_pointer (&found, gg_a2g_session_unref);
  gg_test_spin (1200);
  found = lookup (f, f->store, CLIENT, used->token, &error);
  g_assert_no_error (error);
  g_assert_null (lookup (f, f->store, OTHER_CLIENT, idle->token, &error));
  g_assert_error (error, GG_A2G_ERROR, GG_A2G_ERROR_UNKNOWN_SESSION);
  g_assert_cmpint (count (f, f->store), ==, 1);
}

/* Many openings of one client at once (on two replicas for Redis): one
 * session, every snapshot of it, and the last token current. */
static void
test_session_concurrent_open (A2gStoreFixture *f,
                              gconstpointer    backend)
{
  g_autoptr(GPtrArray) sessions = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_session_unref);
  GgA2gStore *stores[2] = { f->store, f->replica != NULL ? f->replica : f->store };
  g_autoptr(GError) error = NULL;

  if (a2g_store_fixture_skip (f))
    return;
  for (guint i = 0; i < 8; i++)
    gg_a2g_store_session_open_async (stores[i % 2], CLIENT, GAME, f->manifest, 60, 30, NULL, a2g_store_collect, f);
  a2g_store_await_count (f, 8);
  for (guint i = 0; i < 8; i++)
    {
      GAsyncResult *result = a2g_store_await (f);
      GgA2gStore *source = GG_A2G_STORE (g_async_result_get_source_object (result));

      g_ptr_array_add (sessions, gg_a2g_store_session_open_finish (source, result, &error));
      g_object_unref (source);
      g_assert_no_error (error);
      g_assert_cmpstr (((GgA2gSession *) sessions->pdata[i])->id, ==, ((GgA2gSession *) sessions->pdata[0])->id);
    }
  g_assert_cmpint (count (f, f->store), ==, 1);
}

/* ---- per-player sessions --------------------------------------------------- */

static gint64
claim (A2gStoreFixture *f,
       GgA2gStore      *store,
       const char      *sub,
       const char      *client_id,
       guint            max,
       gint64           ttl_s)
{
  g_autoptr(GError) error = NULL;
  gint64 result;

  gg_a2g_store_player_claim_async (store, GAME, sub, client_id, max, ttl_s, NULL, a2g_store_collect, f);
  result = gg_a2g_store_player_claim_finish (store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  return result;
}

static void
test_player_claim (A2gStoreFixture *f,
                   gconstpointer    backend)
{
  g_autoptr(GgA2gSession) session = NULL;
  gint64 wait_ms;

  if (a2g_store_fixture_skip (f))
    return;
  g_assert_cmpint (claim (f, f->store, "player-a", CLIENT, 1, 60), ==, 0);
  /* The same client again: its own claim, taken. */
  g_assert_cmpint (claim (f, f->store, "player-a", CLIENT, 1, 60), ==, 0);
  /* A second client of the player, past max: the time until the soonest
   * claim could end (pending: 10 s at most). */
  wait_ms = claim (f, f->store, "player-a", OTHER_CLIENT, 1, 60);
  g_assert_cmpint (wait_ms, >, 0);
  g_assert_cmpint (wait_ms, <=, GG_A2G_PLAYER_CLAIM_PENDING_S * 1000);
  /* Another player is not held back; but it never takes the client_id
   * claimed by the first. */
  g_assert_cmpint (claim (f, f->store, "player-b", OTHER_CLIENT, 1, 60), ==, 0);
  g_assert_cmpint (claim (f, f->store, "player-b", CLIENT, 2, 60), ==, GG_A2G_PLAYER_CLAIM_OTHER_PLAYER);
  /* Opened, the session counts while it lives, not the pending time. */
  session = a2g_store_open (f, f->store, CLIENT, f->manifest, 60);
  g_assert_cmpint (claim (f, f->store, "player-b", CLIENT, 2, 60), ==, GG_A2G_PLAYER_CLAIM_OTHER_PLAYER);
}

/* A claim whose session is never opened counts for the pending time, at
 * most the session TTL; then the slot is free. */
static void
test_player_claim_pending (A2gStoreFixture *f,
                           gconstpointer    backend)
{
  if (a2g_store_fixture_skip (f))
    return;
  g_assert_cmpint (claim (f, f->store, "player-a", CLIENT, 1, 1), ==, 0);
  g_assert_cmpint (claim (f, f->store, "player-a", OTHER_CLIENT, 1, 1), >, 0);
  gg_test_spin (1200);
  g_assert_cmpint (claim (f, f->store, "player-a", OTHER_CLIENT, 1, 1), ==, 0);
  /* The first client is free for another player now too. */
  g_assert_cmpint (claim (f, f->store, "player-b", CLIENT, 1, 1), ==, 0);
}

/* Claims of one player at once (both replicas): exactly max taken. */
static void
test_player_claim_concurrent (A2gStoreFixture *f,
                              gconstpointer    backend)
{
  GgA2gStore *stores[2] = { f->store, f->replica != NULL ? f->replica : f->store };
  guint taken = 0;

  if (a2g_store_fixture_skip (f))
    return;
  for (guint i = 0; i < 12; i++)
    {
      g_autofree char *client_id = g_strdup_printf ("client-%04u", i);

      gg_a2g_store_player_claim_async (stores[i % 2], GAME, "player-a", client_id, 3, 60, NULL, a2g_store_collect, f);
    }
  a2g_store_await_count (f, 12);
  for (guint i = 0; i < 12; i++)
    {
      GAsyncResult *result = a2g_store_await (f);
      g_autoptr(GObject) source = g_async_result_get_source_object (result);
      g_autoptr(GError) error = NULL;
      gint64 wait_ms = gg_a2g_store_player_claim_finish (GG_A2G_STORE (source), result, &error);

      g_assert_no_error (error);
      g_assert_cmpint (wait_ms, >=, 0);
      taken += wait_ms == 0;
    }
  g_assert_cmpuint (taken, ==, 3);
}

/* ---- join-token ids ---------------------------------------------------------- */

static gboolean
jti (A2gStoreFixture *f,
     GgA2gStore      *store,
     const char      *id,
     gint64           expires_unix_s)
{
  g_autoptr(GError) error = NULL;
  gboolean fresh;

  gg_a2g_store_jti_claim_async (store, id, expires_unix_s, NULL, a2g_store_collect, f);
  fresh = gg_a2g_store_jti_claim_finish (store, a2g_store_await (f), &error);
  g_assert_no_error (error);
  return fresh;
}

static void
test_jti_claim (A2gStoreFixture *f,
                gconstpointer    backend)
{
  gint64 now_s = g_get_real_time () / G_USEC_PER_SEC;
  GgA2gStore *other = f->replica != NULL ? f->replica : f->store;

  if (a2g_store_fixture_skip (f))
    return;
  g_assert_true (jti (f, f->store, GAME ":j-1", now_s + 2));
  g_assert_false (jti (f, f->store, GAME ":j-1", now_s + 2));
  g_assert_false (jti (f, other, GAME ":j-1", now_s + 2));
  g_assert_true (jti (f, other, GAME ":j-2", now_s + 2));
  /* Kept until its token's exp, then forgotten. */
  gg_test_spin (3200);
  g_assert_true (jti (f, f->store, GAME ":j-1", now_s + 60));
}

/* The same jti on many requests at once: exactly one is first. */
static void
test_jti_concurrent (A2gStoreFixture *f,
                     gconstpointer    backend)
{
  GgA2gStore *stores[2] = { f->store, f->replica != NULL ? f->replica : f->store };
  gint64 now_s = g_get_real_time () / G_USEC_PER_SEC;
  guint fresh = 0;

  if (a2g_store_fixture_skip (f))
    return;
  for (guint i = 0; i < 10; i++)
    gg_a2g_store_jti_claim_async (stores[i % 2], GAME ":j-1", now_s + 60, NULL, a2g_store_collect, f);
  a2g_store_await_count (f, 10);
  for (guint i = 0; i < 10; i++)
    {
      GAsyncResult *result = a2g_store_await (f);
      g_autoptr(GObject) source = g_async_result_get_source_object (result);

      fresh += gg_a2g_store_jti_claim_finish (GG_A2G_STORE (source), result, NULL);
    }
  g_assert_cmpuint (fresh, ==, 1);
}

/* ---- a shared store out of reach ---------------------------------------------- */

static gboolean
redis_down (gpointer store)
{
  return !gg_a2g_redis_store_is_up (store);
}

/* Redis down: operations fail with GG_A2G_ERROR_UNAVAILABLE (at once, no
 * waiting), but a session this replica saw still authenticates. */
static void
test_unavailable (A2gStoreFixture *f,
                  gconstpointer    backend)
{
  g_autoptr(GgA2gSession) session = NULL, found = NULL;
  g_autoptr(GError) error = NULL;

  if (a2g_store_fixture_skip (f))
    return;
  if (f->backend != A2G_STORE_REDIS)
    {
      /* A Cluster's nodes lost: test-a2g-cluster-failover. */
      g_test_skip (f->backend == A2G_STORE_PROCESS ? "the process store is always reachable"
                                                   : "one primary only (a Cluster's: test-a2g-cluster-failover)");
      return;
    }
  session = a2g_store_open (f, f->store, CLIENT, f->manifest, 60);
  /* Each replica says so once. */
  g_test_expect_message ("gamegate-a2g", G_LOG_LEVEL_WARNING, "a2g: the shared store at unix:* is unreachable (*)*");
  g_test_expect_message ("gamegate-a2g", G_LOG_LEVEL_WARNING, "a2g: the shared store at unix:* is unreachable (*)*");
  a2g_redis_stop ();
  g_assert_true (gg_test_wait_for (redis_down, f->store, gg_test_timeout_ms (5000)));
  g_assert_true (gg_test_wait_for (redis_down, f->replica, gg_test_timeout_ms (5000)));
  g_test_assert_expected_messages ();
  found = lookup (f, f->store, CLIENT, session->token, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found->id, ==, session->id);
  g_assert_null (lookup (f, f->store, OTHER_CLIENT, session->token, &error));
  g_assert_error (error, GG_A2G_ERROR, GG_A2G_ERROR_UNAVAILABLE);
  g_clear_error (&error);
  gg_a2g_store_session_count_async (f->store, NULL, a2g_store_collect, f);
  g_assert_cmpint (gg_a2g_store_session_count_finish (f->store, a2g_store_await (f), &error), ==, -1);
  g_assert_error (error, GG_A2G_ERROR, GG_A2G_ERROR_UNAVAILABLE);
  g_clear_error (&error);
  gg_a2g_store_rate_take_async (f->store, "b", 1, 1, NULL, a2g_store_collect, f);
  g_assert_cmpint (gg_a2g_store_rate_take_finish (f->store, a2g_store_await (f), &error), ==, -1);
  g_assert_error (error, GG_A2G_ERROR, GG_A2G_ERROR_UNAVAILABLE);
  a2g_redis_start ();
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  a2g_store_add_tests ("manifests/put-get", test_manifest_put_get);
  a2g_store_add_tests ("manifests/put-twice", test_manifest_put_twice);
  a2g_store_add_tests ("manifests/other-replica", test_manifest_other_replica);
  a2g_store_add_tests ("sessions/open", test_session_open);
  a2g_store_add_tests ("sessions/lookup", test_session_lookup);
  a2g_store_add_tests ("sessions/renew", test_session_renew);
  a2g_store_add_tests ("sessions/context", test_session_context);
  a2g_store_add_tests ("sessions/expiry", test_session_expiry);
  a2g_store_add_tests ("sessions/concurrent-open", test_session_concurrent_open);
  a2g_store_add_tests ("players/claim", test_player_claim);
  a2g_store_add_tests ("players/claim-pending", test_player_claim_pending);
  a2g_store_add_tests ("players/claim-concurrent", test_player_claim_concurrent);
  a2g_store_add_tests ("jti/claim", test_jti_claim);
  a2g_store_add_tests ("jti/concurrent", test_jti_concurrent);
  a2g_store_add_tests ("unavailable", test_unavailable);
  a2g_store_add_state_tests ();
  a2g_store_add_record_tests ();
  status = g_test_run ();
  a2g_store_tests_teardown ();
  return status;
}
