/* a2g-test-sentinel.h: a real Redis Sentinel setup for the tests: one
 * primary, two replicas and three sentinels (quorum 2, a primary down
 * after 500 ms) on loopback TCP ports found free in the test's own range,
 * the primary killed on demand, every server killed when the test ends.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define A2G_SENTINEL_NAME "gg-primary"

typedef struct _A2gRedisSentinel A2gRedisSentinel;

A2gRedisSentinel *a2g_redis_sentinel_start       (guint first_port);
void              a2g_redis_sentinel_stop        (A2gRedisSentinel *setup);
char             *a2g_redis_sentinel_url         (A2gRedisSentinel *setup);
void              a2g_redis_sentinel_kill_primary (A2gRedisSentinel *setup);
gboolean          a2g_redis_sentinel_switched    (A2gRedisSentinel *setup);

G_END_DECLS
