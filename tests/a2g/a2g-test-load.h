/* a2g-test-load.h: load on the Redis store for the tests of a Redis
 * Cluster or Sentinel failing over: two replicas of the store on one
 * `redis` value serve about 1,000 decides a second (a session lookup, its
 * record written, that decision reported through the other replica) over
 * sessions in every part of the key space, counting what failed, how and
 * when, and keeping every report accepted to check it was accepted once.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-a2g-store.h"

G_BEGIN_DECLS

#define A2G_LOAD_SESSIONS 128

typedef struct {
  char *client_id;
  char *token;
} A2gLoadSession;

typedef struct {
  char *decision_id;
  guint session;
  gint64 accepted_us;
} A2gLoadAccepted;

typedef struct {
  GgA2gStore *stores[2];
  GgA2gManifest *manifest;
  A2gLoadSession sessions[A2G_LOAD_SESSIONS];
  guint64 started, completed, in_flight, next_id;
  guint64 failed, failed_other;   /* unreachable; anything else */
  gint64 first_failure_us, last_failure_us;
  GPtrArray *accepted;            /* A2gLoadAccepted */
  guint tick_id;
  gboolean stopping;
} A2gLoad;

void     a2g_load_start                (A2gLoad    *load,
                                        const char *url);
void     a2g_load_stop                 (A2gLoad *load);
void     a2g_load_free                 (A2gLoad *load);
void     a2g_load_run_for              (guint ms);
gboolean a2g_load_store_up             (gpointer store);
void     a2g_load_assert_sessions_valid (A2gLoad *load);
guint    a2g_load_assert_reported_once (A2gLoad *load,
                                        gint64   before_us,
                                        gint64   lag_us);

gint64   a2g_load_wait_back            (A2gLoad *load);
void     a2g_load_check_failover       (A2gLoad *load,
                                        gint64   killed_us,
                                        gint64   back_us,
                                        guint    lag_ms);

G_END_DECLS
