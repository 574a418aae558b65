/* test-a2g-sentinel.c: the Redis store on `redis=sentinel:NAME@...` with a
 * real Sentinel setup (one primary, two replicas, three sentinels): two
 * replicas of the store find the primary the sentinels name and serve
 * about 1,000 decides a second (a2g-test-load.h); the primary is killed
 * mid-load: nothing crashes, operations fail as unreachable (a decide's
 * FALLBACK busy) only between the kill and the sentinels' failover, no
 * write ever goes to a replica (the store writes only to a server whose
 * ROLE says master; a write to a replica would fail as READONLY, which
 * the load counts), the store is back by itself, every session opened
 * before is still valid and every report accepted before the kill (more
 * than the replication lag before it) is accepted exactly once.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "a2g-test-load.h"
#include "a2g-test-sentinel.h"
#include "a2g-test-util.h"

/* This test's ports: no other test's. */
#define FIRST_PORT 27300
#define REPLICATION_LAG_MS 100

static A2gRedisSentinel *setup;

static gboolean
switched (gpointer data)
{
  (void) data;
  return a2g_redis_sentinel_switched (setup);
}

static void
test_failover (void)
{
  g_autofree char *url = NULL;
  A2gLoad load = { 0 };
  gint64 killed_us, switched_us, back_us;

  if (setup == NULL)
    {
      g_test_skip ("redis-server or redis-cli is not installed");
      return;
    }
  url = a2g_redis_sentinel_url (setup);
  a2g_load_start (&load, url);
  a2g_load_run_for (500);
  g_assert_cmpuint (load.failed + load.failed_other, ==, 0);
  g_test_expect_message ("gamegate-a2g", G_LOG_LEVEL_WARNING, "a2g: the shared store at sentinel:* is unreachable (*)*");
  g_test_expect_message ("gamegate-a2g", G_LOG_LEVEL_WARNING, "a2g: the shared store at sentinel:* is unreachable (*)*");
  a2g_redis_sentinel_kill_primary (setup);
  killed_us = g_get_monotonic_time ();
  g_assert_true (gg_test_wait_for (switched, NULL, gg_test_timeout_ms (30000)));
  switched_us = g_get_monotonic_time ();
  back_us = a2g_load_wait_back (&load);
  g_test_assert_expected_messages ();
  a2g_load_run_for (1000);
  a2g_load_stop (&load);
  g_test_message ("sentinel failover: %" G_GUINT64_FORMAT " decides, %" G_GUINT64_FORMAT " failed as unreachable; "
                  "the sentinels switched %" G_GINT64_FORMAT " ms after the kill, the store was up again "
                  "%" G_GINT64_FORMAT " ms after it (down-after 500 ms)",
                  load.completed, load.failed, (switched_us - killed_us) / 1000, (back_us - killed_us) / 1000);
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
  setup = a2g_redis_sentinel_start (FIRST_PORT);
  g_test_add_func ("/a2g/sentinel/failover", test_failover);
  status = g_test_run ();
  if (setup != NULL)
    a2g_redis_sentinel_stop (setup);
  return status;
}
