/* gg-a2g-redis-cluster.c: the small Redis Cluster client the store needs,
 * on hiredis (no Debian package has one): the slot of a key (CRC16 of its
 * hash tag), the slot map read with CLUSTER SLOTS (a connection per
 * primary, made as the map names it), MOVED answers followed and the map
 * asked for again, ASK followed once (ASKING first, on the same
 * connection), TRYAGAIN sent again on the next tick, and the map asked for
 * every 100 ms while a slot has no ready primary (a failover), every 10 s
 * otherwise. Replies and redirections are input: their parsers here are
 * what tests/fuzz/fuzz-a2g-redis-reply.c drives.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-redis-private.h"

/* How often a command may be redirected before it fails. */
#define MAX_REDIRECTS 8
#define MAP_MIN_INTERVAL_US (100 * 1000)
#define MAP_DEGRADED_INTERVAL_US (100 * 1000)
#define MAP_INTERVAL_US (10 * G_USEC_PER_SEC)

/* ---- what the wire says ----------------------------------------------------- */

/* CRC16-CCITT (XMODEM), Redis Cluster's key hash. */
static guint16
crc16 (const char *data,
       gsize       length)
{
  guint16 crc = 0;

  for (gsize i = 0; i < length; i++)
    {
      crc ^= (guint16) ((guchar) data[i] << 8);
      for (guint bit = 0; bit < 8; bit++)
        crc = (crc & 0x8000) ? (guint16) ((crc << 1) ^ 0x1021) : (guint16) (crc << 1);
    }
  return crc;
}

/** _gg_a2g_redis_key_slot: Returns: @key's slot (its first non-empty {hash tag}, or all of it) */
guint
_gg_a2g_redis_key_slot (const char *key,
                        gsize       length)
{
  const char *open = memchr (key, '{', length);

  if (open != NULL)
    {
      gsize rest = length - (gsize) (open - key) - 1;
      const char *close = memchr (open + 1, '}', rest);

      if (close != NULL && close > open + 1)
        return crc16 (open + 1, (gsize) (close - open - 1)) & (GG_A2G_REDIS_SLOTS - 1);
    }
  return crc16 (key, length) & (GG_A2G_REDIS_SLOTS - 1);
}

static gboolean
parse_address (const char  *text,
               char       **host,
               int         *port)
{
  const char *colon = strrchr (text, ':');
  g_autofree char *address = NULL;
  guint64 number;

  if (colon == NULL || colon == text || !g_ascii_string_to_unsigned (colon + 1, 10, 1, 65535, &number, NULL))
    return FALSE;
  address = g_strndup (text, colon - text);
  if (address[0] == '[' && strlen (address) > 2 && address[strlen (address) - 1] == ']')
    {
      char *inner = g_strndup (address + 1, strlen (address) - 2);
      g_free (address);
      address = inner;
    }
  /* Names would block while resolved: a cluster announces its nodes' addresses. */
  if (!g_hostname_is_ip_address (address))
    return FALSE;
  *host = g_steal_pointer (&address);
  *port = (int) number;
  return TRUE;
}

/**
 * _gg_a2g_redis_parse_redirect:
 * @error: an error reply's text
 * @ask: (out): ASK (follow once) rather than MOVED (the slot moved)
 * @slot: (out):
 * @host: (out) (transfer full):
 * @port: (out):
 *
 * Returns: whether @error is a MOVED or ASK redirection
 */
gboolean
_gg_a2g_redis_parse_redirect (const char  *error,
                              gboolean    *ask,
                              guint       *slot,
                              char       **host,
                              int         *port)
{
  g_auto(GStrv) words = NULL;
  guint64 number;

  if (!g_str_has_prefix (error, "MOVED ") && !g_str_has_prefix (error, "ASK "))
    return FALSE;
  words = g_strsplit (error, " ", 4);
  if (g_strv_length (words) != 3 ||
      !g_ascii_string_to_unsigned (words[1], 10, 0, GG_A2G_REDIS_SLOTS - 1, &number, NULL) ||
      !parse_address (words[2], host, port))
    return FALSE;
  *ask = words[0][0] == 'A';
  *slot = (guint) number;
  return TRUE;
}

/**
 * _gg_a2g_redis_parse_slots:
 * @reply: CLUSTER SLOTS's reply: [[first, last, [host, port, id], replicas...], ...]
 * @func: called for each range's primary
 *
 * Returns: whether @reply is such a reply (@func may have been called
 *   for the ranges before a bad one)
 */
gboolean
_gg_a2g_redis_parse_slots (const redisReply    *reply,
                           GgA2gRedisRangeFunc  func,
                           gpointer             user_data)
{
  if (reply == NULL || reply->type != REDIS_REPLY_ARRAY)
    return FALSE;
  for (size_t i = 0; i < reply->elements; i++)
    {
      const redisReply *range = reply->element[i];
      const redisReply *primary;

      if (range->type != REDIS_REPLY_ARRAY || range->elements < 3 || range->element[0]->type != REDIS_REPLY_INTEGER ||
          range->element[1]->type != REDIS_REPLY_INTEGER || range->element[0]->integer < 0 ||
          range->element[1]->integer >= GG_A2G_REDIS_SLOTS || range->element[0]->integer > range->element[1]->integer)
        return FALSE;
      primary = range->element[2];
      if (primary->type != REDIS_REPLY_ARRAY || primary->elements < 2 || primary->element[0]->type != REDIS_REPLY_STRING ||
          primary->element[1]->type != REDIS_REPLY_INTEGER || primary->element[1]->integer < 1 ||
          primary->element[1]->integer > 65535 || !g_hostname_is_ip_address (primary->element[0]->str))
        return FALSE;
      func ((guint) range->element[0]->integer, (guint) range->element[1]->integer, primary->element[0]->str,
            (int) primary->element[1]->integer, user_data);
    }
  return TRUE;
}

/**
 * _gg_a2g_redis_parse_master_addr:
 * @reply: SENTINEL get-master-addr-by-name's reply: [host, port], or nil
 *
 * Returns: whether @reply names a primary
 */
gboolean
_gg_a2g_redis_parse_master_addr (const redisReply  *reply,
                                 char             **host,
                                 int               *port)
{
  guint64 number;

  if (reply == NULL || reply->type != REDIS_REPLY_ARRAY || reply->elements != 2 ||
      reply->element[0]->type != REDIS_REPLY_STRING || reply->element[1]->type != REDIS_REPLY_STRING ||
      !g_hostname_is_ip_address (reply->element[0]->str) ||
      !g_ascii_string_to_unsigned (reply->element[1]->str, 10, 1, 65535, &number, NULL))
    return FALSE;
  *host = g_strdup (reply->element[0]->str);
  *port = (int) number;
  return TRUE;
}

/* ---- the slot map -------------------------------------------------------------- */

/* The key a command is routed by: a script's first KEYS, else its first argument. */
static GBytes *
cmd_key (GgA2gRedisCmd *cmd)
{
  gsize length;
  const char *name;

  if (cmd->args->len < 2)
    return NULL;
  name = g_bytes_get_data (cmd->args->pdata[0], &length);
  if ((length == 7 && g_ascii_strncasecmp (name, "EVALSHA", 7) == 0) ||
      (length == 4 && g_ascii_strncasecmp (name, "EVAL", 4) == 0))
    return cmd->args->len >= 4 ? cmd->args->pdata[3] : NULL;
  return cmd->args->pdata[1];
}

/** _gg_a2g_redis_cluster_route: Returns: (nullable): the ready primary of @cmd's slot */
GgA2gRedisNode *
_gg_a2g_redis_cluster_route (GgA2gRedisStore *self,
                             GgA2gRedisCmd   *cmd)
{
  GBytes *key = cmd_key (cmd);
  GgA2gRedisNode *node;
  gsize length;
  const char *data;

  if (key == NULL)
    return NULL;
  data = g_bytes_get_data (key, &length);
  node = self->slots[_gg_a2g_redis_key_slot (data, length)];
  if (node == NULL || !node->ready)
    {
      self->map_wanted = TRUE;
      return NULL;
    }
  return node;
}

static void
on_asking (GgA2gRedisStore *self,
           GgA2gRedisNode  *node,
           redisReply      *reply)
{
  (void) self;
  (void) node;
  (void) reply;
}

/** _gg_a2g_redis_cluster_redirect: Returns: whether @pending was sent again (MOVED, ASK, TRYAGAIN) */
gboolean
_gg_a2g_redis_cluster_redirect (GgA2gRedisStore   *self,
                                GgA2gRedisPending *pending,
                                redisReply        *reply)
{
  g_autofree char *host = NULL;
  GgA2gRedisNode *node;
  gboolean ask;
  guint slot;
  int port;

  if (pending->redirects >= MAX_REDIRECTS)
    return FALSE;
  if (g_str_has_prefix (reply->str, "TRYAGAIN"))
    {
      /* A multi-key command while its slot moves: again on the next tick. */
      pending->redirects++;
      g_queue_push_tail (&self->delayed, pending);
      return TRUE;
    }
  if (!_gg_a2g_redis_parse_redirect (reply->str, &ask, &slot, &host, &port))
    return FALSE;
  pending->redirects++;
  self->redirects++;
  node = _gg_a2g_redis_node_for (self, host, port);
  if (node == NULL)
    return FALSE;
  if (!ask)
    {
      self->slots[slot] = node;
      self->map_wanted = TRUE;
    }
  if (!node->ready)
    return FALSE;
  if (ask)
    _gg_a2g_redis_node_ask (node, _gg_a2g_redis_cmd_new ("ASKING"), on_asking);
  _gg_a2g_redis_node_send (node, pending, FALSE);
  return TRUE;
}

typedef struct {
  GgA2gRedisStore *self;
  GgA2gRedisNode **slots;
} NewMap;

static void
add_range (guint       first,
           guint       last,
           const char *host,
           int         port,
           gpointer    user_data)
{
  NewMap *map = user_data;
  GgA2gRedisNode *node = _gg_a2g_redis_node_for (map->self, host, port);

  /* Past the bound: those slots stay without a primary (their operations fail). */
  for (guint slot = first; slot <= last && node != NULL; slot++)
    map->slots[slot] = node;
}

/* Connections to what is no longer a primary go (but @keep, whose reply
 * this is, and the seeds). */
static void
forget_unmapped (GgA2gRedisStore *self,
                 GgA2gRedisNode  *keep)
{
  g_autoptr(GHashTable) mapped = g_hash_table_new (NULL, NULL);
  GHashTableIter iter;
  GgA2gRedisNode *node;

  for (guint slot = 0; slot < GG_A2G_REDIS_SLOTS; slot++)
    if (self->slots[slot] != NULL)
      g_hash_table_add (mapped, self->slots[slot]);
  g_hash_table_iter_init (&iter, self->nodes);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &node))
    if (node != keep && !node->seed && !g_hash_table_contains (mapped, node) && g_queue_is_empty (&node->pending))
      g_hash_table_iter_remove (&iter);
}

static void
on_slots (GgA2gRedisStore *self,
          GgA2gRedisNode  *node,
          redisReply      *reply)
{
  g_autofree GgA2gRedisNode **slots = NULL;
  NewMap map = { self, NULL };

  self->map_asked = FALSE;
  if (reply == NULL || self->closing)
    return;
  slots = g_new0 (GgA2gRedisNode *, GG_A2G_REDIS_SLOTS);
  map.slots = slots;
  if (!_gg_a2g_redis_parse_slots (reply, add_range, &map))
    {
      g_debug ("a2g: %s did not answer CLUSTER SLOTS with a slot map", node->name);
      self->map_wanted = TRUE;
      return;
    }
  memcpy (self->slots, slots, GG_A2G_REDIS_SLOTS * sizeof *slots);
  self->map_wanted = FALSE;
  forget_unmapped (self, node);
  /* The map may have made the store whole again (or not). */
  _gg_a2g_redis_node_changed (self, node, NULL);
}

/* A connected node to ask for the map: a mapped primary first, else any. */
static GgA2gRedisNode *
map_source (GgA2gRedisStore *self)
{
  GHashTableIter iter;
  GgA2gRedisNode *node, *any = NULL;

  g_hash_table_iter_init (&iter, self->nodes);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &node))
    if (node->ready)
      {
        if (!node->seed)
          return node;
        any = node;
      }
  return any;
}

/** _gg_a2g_redis_cluster_tick: asks for the slot map when due */
void
_gg_a2g_redis_cluster_tick (GgA2gRedisStore *self)
{
  gint64 now = g_get_monotonic_time ();
  gint64 interval = self->up && !self->map_wanted ? MAP_INTERVAL_US
                    : self->up                    ? MAP_MIN_INTERVAL_US
                                                  : MAP_DEGRADED_INTERVAL_US;
  GgA2gRedisNode *source;
  GgA2gRedisCmd *cmd;

  if (self->map_asked || now - self->map_at_us < interval)
    return;
  source = map_source (self);
  if (source == NULL)
    return;
  self->map_asked = TRUE;
  self->map_at_us = now;
  cmd = _gg_a2g_redis_cmd_new ("CLUSTER");
  _gg_a2g_redis_cmd_add (cmd, "SLOTS");
  _gg_a2g_redis_node_ask (source, cmd, on_slots);
}

/** _gg_a2g_redis_cluster_is_up: Returns: whether every slot has a ready primary */
gboolean
_gg_a2g_redis_cluster_is_up (GgA2gRedisStore *self)
{
  for (guint slot = 0; slot < GG_A2G_REDIS_SLOTS; slot++)
    if (self->slots[slot] == NULL || !self->slots[slot]->ready)
      return FALSE;
  return TRUE;
}
