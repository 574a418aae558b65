/* gg-a2g-redis-store.h: the GgA2gStore on Redis (hiredis, asynchronous on
 * the GLib main loop), so that replicas of the service share sessions,
 * tokens, limits, budgets, the game-wide cache and decision records.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-a2g-store.h"

G_BEGIN_DECLS

#define GG_A2G_TYPE_REDIS_STORE (gg_a2g_redis_store_get_type ())
G_DECLARE_FINAL_TYPE (GgA2gRedisStore, gg_a2g_redis_store, GG, A2G_REDIS_STORE, GObject)

gboolean         gg_a2g_redis_url_check      (const char  *url,
                                              GError     **error);
char            *gg_a2g_redis_url_masked     (const char *url);
GgA2gRedisStore *gg_a2g_redis_store_new      (const char *url,
                                              const char *prefix,
                                              gint64      timeout_ms,
                                              guint       cache_entries,
                                              gint64      cache_ttl_s);
gboolean         gg_a2g_redis_store_is_up    (GgA2gRedisStore *self);
guint64          gg_a2g_redis_store_commands (GgA2gRedisStore *self);
guint64          gg_a2g_redis_store_redirects (GgA2gRedisStore *self);

G_END_DECLS
