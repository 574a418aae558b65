/* gg-a2g-redis-sentinel.c: the primary of `redis=sentinel:NAME@...`, as
 * the sentinels name it (SENTINEL get-master-addr-by-name, each sentinel
 * in turn until one answers), asked again every second and at once when
 * the primary is lost or answers READONLY: a failover is followed within
 * about a second of the sentinels' +switch-master. A named primary is
 * written to only once its own ROLE says "master" (gg-a2g-redis-node.c),
 * so a replica never is, even while sentinels disagree.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-redis-private.h"

#define ASK_INTERVAL_US (1 * G_USEC_PER_SEC)
#define ASK_DEGRADED_INTERVAL_US (200 * 1000)

static void
switch_to (GgA2gRedisStore *self,
           const char      *host,
           int              port)
{
  g_autofree char *name = _gg_a2g_redis_address_name (NULL, host, port);
  GgA2gRedisNode *old = self->primary, *named;

  if (old != NULL && strcmp (old->name, name) == 0)
    return;
  named = _gg_a2g_redis_node_for (self, host, port);
  if (named == NULL)
    return;
  g_message ("a2g: the sentinels name %s the shared store's primary", name);
  self->primary = named;
  if (old != NULL)
    {
      /* Its commands in flight fail (FALLBACK busy): none goes to it again. */
      g_hash_table_remove (self->nodes, old->name);
    }
  _gg_a2g_redis_node_changed (self, self->primary, old != NULL ? "a failover" : NULL);
}

static void
on_master (GgA2gRedisStore *self,
           GgA2gRedisNode  *sentinel,
           redisReply      *reply)
{
  g_autofree char *host = NULL;
  int port;

  self->sentinel_asked = FALSE;
  if (self->closing || reply == NULL)
    return;
  if (!_gg_a2g_redis_parse_master_addr (reply, &host, &port))
    {
      g_debug ("a2g: the sentinel at %s does not name the primary %s", sentinel->name, self->master_name);
      self->sentinel_at_us = 0;   /* the next sentinel, on the next tick */
      return;
    }
  switch_to (self, host, port);
}

/** _gg_a2g_redis_sentinel_tick: asks a sentinel for the primary when due */
void
_gg_a2g_redis_sentinel_tick (GgA2gRedisStore *self)
{
  gint64 now = g_get_monotonic_time ();
  gint64 interval = self->up ? ASK_INTERVAL_US : ASK_DEGRADED_INTERVAL_US;
  g_autoptr(GPtrArray) sentinels = g_ptr_array_new ();
  GHashTableIter iter;
  GgA2gRedisNode *node;
  GgA2gRedisCmd *cmd;

  if (self->sentinel_asked || now - self->sentinel_at_us < interval)
    return;
  g_hash_table_iter_init (&iter, self->nodes);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &node))
    if (node->role == GG_A2G_REDIS_NODE_SENTINEL && node->ready)
      g_ptr_array_add (sentinels, node);
  if (sentinels->len == 0)
    return;
  node = sentinels->pdata[self->sentinel_next++ % sentinels->len];
  self->sentinel_asked = TRUE;
  self->sentinel_at_us = now;
  cmd = _gg_a2g_redis_cmd_new ("SENTINEL");
  _gg_a2g_redis_cmd_add (cmd, "get-master-addr-by-name");
  _gg_a2g_redis_cmd_add (cmd, self->master_name);
  _gg_a2g_redis_node_ask (node, cmd, on_master);
}
