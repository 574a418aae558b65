/* a2g-test-redis.h: a real `redis-server` for the tests of replicas
 * sharing state: started on a Unix socket in a temporary directory (no TCP
 * port, no persistence), stopped and started again at will, and killed
 * with the test if the test aborts.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct {
  char *dir;
  char *socket;          /* "redis=unix:<socket>" */
  GSubprocess *server;   /* NULL while stopped */
} A2gRedis;

gboolean  a2g_redis_available (void);
A2gRedis *a2g_redis_new       (void);
void      a2g_redis_start     (A2gRedis *redis);
void      a2g_redis_stop      (A2gRedis *redis);
void      a2g_redis_free      (A2gRedis *redis);
char     *a2g_redis_cli       (A2gRedis           *redis,
                               const char * const *args);

G_END_DECLS
