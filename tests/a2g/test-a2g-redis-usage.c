/* test-a2g-redis-usage.c: /v1/usage is the service's, not a replica's:
 * two `gamegate a2g` replicas on one real `redis-server` (a2g-test-redis.c)
 * answer the same exact counts whichever decided what (each flushes its
 * counts about once a second and before answering), a replica's last
 * counts reach Redis when it stops, and with Redis out of reach /v1/usage
 * is 503 while the counts are kept and added once Redis is back (or, at
 * shutdown, reported as lost). Skips (77) when redis-server is not
 * installed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "a2g-test-redis.h"
#include "a2g-test-util.h"

#define CLIENT "c_5f1c9a27e04b7d13"
#define OTHER "c_0a1b2c3d4e5f6a7b"
#define UNREACHABLE "{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"The shared store is unreachable.\"," \
                    "\"code\":\"unavailable\"}"

static A2gService *
replica (guint prefix)
{
  /* A short timeout where the tests stop the one server; on a Cluster
   * (where none does) a patient one, as slow as the replica may be. */
  g_autofree char *store = a2g_redis_is_single () ? a2g_redis_config (prefix) : a2g_redis_config_patient (prefix);
  g_autofree char *redis = g_strdup_printf ("%s%s", a2g_redis_is_single () ? "redis-timeout-ms=200\n" : "", store);
  g_autofree char *config = g_strdup_printf ("[a2g]\nmodel={\"type\":\"scripted\",\"fallback\":{\"json\":"
                                             "{\"reason\":\"r\",\"action\":\"run\",\"confidence\":70}}}\n"
                                             "%s", redis);
  A2gService *service = a2g_service_start (config);
  gboolean connected = FALSE;

  /* Connected to Redis (which takes a moment under valgrind). */
  for (guint i = 0; i < 200 && !connected; i++)
    {
      g_autoptr(A2gResponse) usage = a2g_get (service, "/v1/usage");

      connected = usage->status == 200;
      if (!connected)
        g_usleep (50000);
    }
  g_assert_true (connected);
  return service;
}

/* Two model decisions (freighters: no cache), one forced, one invalid. */
static void
decide_four (A2gService *service,
             const char *client_id,
             const char *token,
             const char *tag)
{
  g_autofree char *body = g_strdup_printf (
    "{\"client_id\":\"%s\",\"entities\":["
    "{\"entity\":\"freighter-%s1\",\"type\":\"freighter\",\"legal_actions\":[\"run\",\"hide\"]},"
    "{\"entity\":\"freighter-%s2\",\"type\":\"freighter\",\"legal_actions\":[\"run\",\"hide\"]},"
    "{\"entity\":\"pirate-%s3\",\"type\":\"pirate\",\"legal_actions\":[\"attack\"]},"
    "{\"entity\":\"pirate-%s4\",\"type\":\"pirate\",\"observations\":{\"hp\":\"x\"},\"legal_actions\":[\"attack\"]}]}",
    client_id, tag, tag, tag, tag);
  g_autoptr(A2gResponse) response = a2g_post (service, "/v1/decide", token, body);

  g_assert_cmpuint (response->status, ==, 200);
  g_assert_null (strstr (response->body, "\"busy\""));
}

/* The counts of one /v1/usage as one text: {"decisions":…,"fallbacks":…}. */
static char *
counts_of (A2gResponse *response)
{
  g_autoptr(JsonObject) usage = a2g_json (response);
  g_autoptr(JsonObject) counts = json_object_new ();

  g_assert_cmpuint (response->status, ==, 200);
  json_object_set_member (counts, "decisions", json_node_copy (json_object_get_member (usage, "decisions")));
  json_object_set_member (counts, "fallbacks", json_node_copy (json_object_get_member (usage, "fallbacks")));
  return gg_json_object_to_string (counts);
}

static char *
counts (A2gService *service)
{
  g_autoptr(A2gResponse) response = a2g_get (service, "/v1/usage");

  return counts_of (response);
}

static gint64
input_tokens (A2gService *service)
{
  g_autoptr(A2gResponse) response = a2g_get (service, "/v1/usage");
  g_autoptr(JsonObject) usage = a2g_json (response);

  g_assert_cmpuint (response->status, ==, 200);
  return json_object_get_int_member (json_object_get_object_member (usage, "tokens"), "input");
}

/* Asks until the counts are @expected (the other replica flushes within
 * about a second); never more than that. */
static void
assert_counts_reach (A2gService *service,
                     const char *expected)
{
  gint64 deadline = g_get_monotonic_time () + gg_test_timeout_ms (5000) * 1000;
  g_autofree char *got = counts (service);

  while (strcmp (got, expected) != 0 && g_get_monotonic_time () < deadline)
    {
      g_usleep (100000);
      g_free (got);
      got = counts (service);
    }
  g_assert_cmpstr (got, ==, expected);
}

static char *
expected_counts (guint model, guint forced, guint busy, guint invalid)
{
  return g_strdup_printf ("{\"decisions\":{\"model\":%u,\"cache\":0,\"memory\":0,\"forced\":%u},"
                          "\"fallbacks\":{\"busy\":%u,\"budget\":0,\"timeout\":0,\"unavailable\":0,"
                          "\"invalid\":%u,\"low_confidence\":0,\"error\":0}}", model, forced, busy, invalid);
}

static void
test_across (void)
{
  guint prefix = a2g_redis_new_prefix ();
  A2gService *a = replica (prefix), *b = replica (prefix);
  g_autofree char *token = a2g_open (a, CLIENT, NULL);
  g_autofree char *other = a2g_open (b, OTHER, NULL);
  g_autofree char *none = expected_counts (0, 0, 0, 0);
  g_autofree char *after_a = expected_counts (2, 1, 0, 1);
  g_autofree char *after_both = expected_counts (4, 2, 0, 2);
  g_autofree char *on_a = NULL, *on_b = NULL;

  {
    g_autofree char *got = counts (b);
    g_assert_cmpstr (got, ==, none);
  }
  /* Decided on A, asked on B; and the other way round. */
  decide_four (a, CLIENT, token, "a");
  assert_counts_reach (b, after_a);
  decide_four (b, OTHER, other, "b");
  on_b = counts (b);
  g_assert_cmpstr (on_b, ==, after_both);
  assert_counts_reach (a, after_both);
  /* Each decision counted once: a second later, still the same on both. */
  g_usleep (1200000);
  on_a = counts (a);
  g_free (on_b);
  on_b = counts (b);
  g_assert_cmpstr (on_a, ==, after_both);
  g_assert_cmpstr (on_b, ==, after_both);
  g_assert_cmpint (input_tokens (a), >, 0);
  g_assert_cmpint (input_tokens (a), ==, input_tokens (b));
  a2g_service_stop (a);
  a2g_service_stop (b);
}

static void
test_at_shutdown (void)
{
  guint prefix = a2g_redis_new_prefix ();
  A2gService *a = replica (prefix), *b = replica (prefix);
  g_autofree char *token = a2g_open (a, CLIENT, NULL);
  g_autofree char *expected = expected_counts (2, 1, 0, 1);
  g_autofree char *got = NULL;

  /* A stops right after deciding: its last counts go to Redis on the way
   * out, so B's first answer has them. */
  decide_four (a, CLIENT, token, "a");
  a2g_service_stop (a);
  got = counts (b);
  g_assert_cmpstr (got, ==, expected);
  a2g_service_stop (b);
}

static void
decide_busy (A2gService *service,
             const char *token,
             guint       n)
{
  g_autofree char *body = g_strdup_printf ("{\"client_id\":\"" CLIENT "\",\"entities\":[{\"entity\":\"freighter-1\","
                                           "\"type\":\"freighter\",\"legal_actions\":[\"run\",\"hide\"]}]}");

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(A2gResponse) response = a2g_post (service, "/v1/decide", token, body);

      g_assert_cmpuint (response->status, ==, 200);
      g_assert_nonnull (strstr (response->body, "\"code\":\"busy\""));
    }
}

static void
test_unreachable (void)
{
  guint prefix = a2g_redis_new_prefix ();
  A2gService *a = replica (prefix), *b = replica (prefix);
  g_autofree char *token = a2g_open (a, CLIENT, NULL);
  g_autofree char *before = expected_counts (2, 1, 0, 1);
  g_autofree char *after = expected_counts (0, 0, 3, 0);
  gboolean back = FALSE;

  decide_four (a, CLIENT, token, "a");
  {
    /* Flushed to this Redis, which the restart below empties. */
    g_autofree char *got = counts (a);
    g_assert_cmpstr (got, ==, before);
  }
  a2g_redis_stop ();
  decide_busy (a, token, 3);
  {
    /* No figures rather than one replica's. */
    g_autoptr(A2gResponse) on_a = a2g_get (a, "/v1/usage");
    g_autoptr(A2gResponse) on_b = a2g_get (b, "/v1/usage");

    g_assert_cmpuint (on_a->status, ==, 503);
    a2g_assert_json (on_a->body, UNREACHABLE);
    g_assert_cmpuint (on_b->status, ==, 503);
    a2g_assert_json (on_b->body, UNREACHABLE);
  }
  a2g_redis_start ();
  for (guint i = 0; i < 200 && !back; i++)
    {
      g_autoptr(A2gResponse) on_b = a2g_get (b, "/v1/usage");

      back = on_b->status == 200;
      if (!back)
        g_usleep (50000);
    }
  g_assert_true (back);
  /* The three fallbacks counted while Redis was away were kept and added. */
  assert_counts_reach (b, after);
  a2g_service_stop (a);
  a2g_service_stop (b);
}

static void
test_lost_at_shutdown (void)
{
  guint prefix = a2g_redis_new_prefix ();
  A2gService *a = replica (prefix);
  g_autofree char *token = a2g_open (a, CLIENT, NULL);
  int status = -1;

  a2g_redis_stop ();
  decide_busy (a, token, 2);
  /* Stopping without Redis: the exit is clean, the loss said. */
  gg_test_process_send_signal (a->process, SIGTERM);
  g_assert_true (gg_test_process_wait (a->process, gg_test_timeout_ms (10000), &status));
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (gg_test_process_get_stderr (a->process),
                            "2 decisions were not added to the service's counters"));
  g_assert_null (strstr (gg_test_process_get_stderr (a->process), "CRITICAL"));
  g_clear_pointer (&a->process, gg_test_process_free);
  a2g_service_stop (a);
  a2g_redis_start ();
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  if (!a2g_redis_setup ())
    {
      g_print ("1..0 # SKIP redis-server is not installed\n");
      return 77;
    }
  g_test_add_func ("/a2g/redis-usage/across", test_across);
  g_test_add_func ("/a2g/redis-usage/at-shutdown", test_at_shutdown);
  /* They stop the one server (a Cluster's nodes lost: test-a2g-cluster-failover). */
  if (a2g_redis_is_single ())
    g_test_add_func ("/a2g/redis-usage/unreachable", test_unreachable);
  if (a2g_redis_is_single ())
    g_test_add_func ("/a2g/redis-usage/lost-at-shutdown", test_lost_at_shutdown);
  status = g_test_run ();
  a2g_redis_teardown ();
  return status;
}
