/* a2g-test-cluster.h: a real Redis Cluster for the tests (redis-server
 * --cluster-enabled, redis-cli --cluster create): primaries with a replica
 * each on loopback TCP ports found free in a range of the test's own (the
 * cluster bus takes each port - 10000: both below the ephemeral ports), a
 * short node timeout so that a failover takes about a second, and every
 * server killed when the test ends, however it ends.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _A2gRedisCluster A2gRedisCluster;

A2gRedisCluster *a2g_redis_cluster_start   (guint            first_port,
                                            guint            primaries,
                                            guint            node_timeout_ms);
void             a2g_redis_cluster_stop    (A2gRedisCluster *cluster);
char            *a2g_redis_cluster_url     (A2gRedisCluster *cluster);
guint            a2g_redis_cluster_port    (A2gRedisCluster *cluster,
                                            guint            node);
guint            a2g_redis_cluster_nodes   (A2gRedisCluster *cluster);
int              a2g_redis_cluster_pid     (A2gRedisCluster *cluster,
                                            guint            node);
void             a2g_redis_cluster_kill    (A2gRedisCluster *cluster,
                                            guint            node);
gboolean         a2g_redis_cluster_is_primary (A2gRedisCluster *cluster,
                                               guint            node);
gboolean         a2g_redis_cluster_wait_ok (A2gRedisCluster *cluster,
                                            guint            timeout_ms);
char            *a2g_redis_cli             (guint        port,
                                            const char  *first,
                                            ...) G_GNUC_NULL_TERMINATED;
guint            a2g_redis_bus_port        (guint port);
guint            a2g_redis_find_ports      (guint first,
                                            guint n);
GSubprocess     *a2g_redis_spawn           (GPtrArray *argv);
void             a2g_redis_remove_dir      (const char *path);

G_END_DECLS
