/* a2g-test-redis.h: one real `redis-server` for the tests of replicas
 * sharing state: started on a Unix socket in a temporary directory (no
 * TCP port, no persistence), stopped and started again mid-test, and the
 * `[a2g]` lines that put a replica on it under a key prefix of its own
 * test. With A2G_TEST_REDIS_CLUSTER_PORTS in the environment, a real
 * 3-primary Redis Cluster instead (a2g-test-cluster.h): the same tests on
 * it, but those that stop the server.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean a2g_redis_setup     (void);
void     a2g_redis_start     (void);
void     a2g_redis_stop      (void);
void     a2g_redis_teardown  (void);
gboolean a2g_redis_is_single (void);
int      a2g_redis_pid       (void);
guint    a2g_redis_new_prefix (void);
char    *a2g_redis_url       (void);
char    *a2g_redis_config    (guint prefix);
char    *a2g_redis_config_patient (guint prefix);

G_END_DECLS
