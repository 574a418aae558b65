/* gg-a2g-redis-connection.c: the commands the Redis store sends and where
 * each goes: to the one primary (given, or named by the sentinels), or on
 * a Cluster to the primary of its first key's slot (gg-a2g-redis-cluster.c),
 * through that server's connection (gg-a2g-redis-node.c). Here too: what a
 * reply means before a topic reads it (NOSCRIPT sends the script's source,
 * MOVED/ASK/TRYAGAIN follow the cluster, READONLY drops a demoted primary,
 * any other error or a lost reply fails the operation), and whether the
 * store as a whole is up, said once in the log each time it changes.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdarg.h>
#include <string.h>

#include "gg-a2g-redis-private.h"

/* ---- commands -------------------------------------------------------------- */

GgA2gRedisCmd *
_gg_a2g_redis_cmd_new (const char *first)
{
  GgA2gRedisCmd *cmd = g_new0 (GgA2gRedisCmd, 1);

  cmd->args = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  _gg_a2g_redis_cmd_add (cmd, first);
  return cmd;
}

void
_gg_a2g_redis_cmd_add_len (GgA2gRedisCmd *cmd,
                           const void    *data,
                           gsize          length)
{
  g_ptr_array_add (cmd->args, g_bytes_new (data, length));
}

void
_gg_a2g_redis_cmd_add (GgA2gRedisCmd *cmd,
                       const char    *arg)
{
  _gg_a2g_redis_cmd_add_len (cmd, arg, strlen (arg));
}

void
_gg_a2g_redis_cmd_addf (GgA2gRedisCmd *cmd, const char *format, ...)
{
  va_list args;
  char *text;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (cmd->args, g_bytes_new_take (text, strlen (text)));
}

static const char *
script_sha (GgA2gRedisScript *script)
{
  if (script->sha[0] == '\0')
    {
      g_autofree char *sha = g_compute_checksum_for_string (G_CHECKSUM_SHA1, script->source, -1);

      memcpy (script->sha, sha, 40);
    }
  return script->sha;
}

GgA2gRedisCmd *
_gg_a2g_redis_script_new (GgA2gRedisScript *script,
                          guint             n_keys)
{
  GgA2gRedisCmd *cmd = _gg_a2g_redis_cmd_new ("EVALSHA");

  cmd->script = script;
  _gg_a2g_redis_cmd_add (cmd, script_sha (script));
  _gg_a2g_redis_cmd_addf (cmd, "%u", n_keys);
  return cmd;
}

void
_gg_a2g_redis_cmd_free (GgA2gRedisCmd *cmd)
{
  g_ptr_array_unref (cmd->args);
  g_free (cmd);
}

char *
_gg_a2g_redis_key (GgA2gRedisStore *self, const char *format, ...)
{
  va_list args;
  g_autofree char *rest = NULL;

  va_start (args, format);
  rest = g_strdup_vprintf (format, args);
  va_end (args);
  return g_strconcat (self->prefix, rest, NULL);
}

/* ---- replies every topic reads alike ------------------------------------- */

/** _gg_a2g_redis_reply_stored: a boolean task: whether the command stored (not nil, not 0) */
void
_gg_a2g_redis_reply_stored (GgA2gRedisStore *self,
                            redisReply      *reply,
                            GTask           *task)
{
  (void) self;
  g_task_return_boolean (task, reply->type != REDIS_REPLY_NIL &&
                               !(reply->type == REDIS_REPLY_INTEGER && reply->integer == 0));
  g_object_unref (task);
}

/** _gg_a2g_redis_reply_one: a boolean task: whether the script answered 1 */
void
_gg_a2g_redis_reply_one (GgA2gRedisStore *self,
                         redisReply      *reply,
                         GTask           *task)
{
  (void) self;
  g_task_return_boolean (task, reply->type == REDIS_REPLY_INTEGER && reply->integer == 1);
  g_object_unref (task);
}

/** _gg_a2g_redis_reply_int: an int task: the integer answered, unavailable otherwise */
void
_gg_a2g_redis_reply_int (GgA2gRedisStore *self,
                         redisReply      *reply,
                         GTask           *task)
{
  (void) self;
  if (reply->type != REDIS_REPLY_INTEGER)
    {
      _gg_a2g_redis_task_fail (task);
      return;
    }
  g_task_return_int (task, (gssize) reply->integer);
  g_object_unref (task);
}

/** _gg_a2g_redis_reply_count: an int task: the integer answered, 0 otherwise */
void
_gg_a2g_redis_reply_count (GgA2gRedisStore *self,
                           redisReply      *reply,
                           GTask           *task)
{
  (void) self;
  g_task_return_int (task, reply->type == REDIS_REPLY_INTEGER ? (gssize) reply->integer : 0);
  g_object_unref (task);
}

/** _gg_a2g_redis_session_key: Returns: (transfer full): the key "P{s:<client_id>}<suffix>" */
char *
_gg_a2g_redis_session_key (GgA2gRedisStore *self,
                           const char      *client_id,
                           const char      *suffix)
{
  return g_strdup_printf ("%s{s:%s}%s", self->prefix, client_id, suffix);
}

/** _gg_a2g_redis_reply_string: Returns: (transfer full) (nullable): @reply's string */
char *
_gg_a2g_redis_reply_string (redisReply *reply)
{
  return reply != NULL && reply->type == REDIS_REPLY_STRING ? g_strndup (reply->str, reply->len) : NULL;
}

gint64
_gg_a2g_redis_now_ms (void)
{
  return g_get_real_time () / 1000;
}

void
_gg_a2g_redis_task_fail (GTask *task)
{
  if (task == NULL)
    return;
  g_task_return_new_error (task, GG_A2G_ERROR, GG_A2G_ERROR_UNAVAILABLE, "The shared store is unreachable.");
  g_object_unref (task);
}

/* ---- routing ---------------------------------------------------------------- */

/* The node @cmd goes to (NULL: none is ready for it). */
static GgA2gRedisNode *
route (GgA2gRedisStore *self,
       GgA2gRedisCmd   *cmd)
{
  if (self->mode == GG_A2G_REDIS_CLUSTER)
    return _gg_a2g_redis_cluster_route (self, cmd);
  return self->primary != NULL && self->primary->ready ? self->primary : NULL;
}

static void
send_routed (GgA2gRedisStore   *self,
             GgA2gRedisPending *pending)
{
  GgA2gRedisNode *node = self->closing ? NULL : route (self, pending->cmd);

  if (node == NULL && !self->closing && !self->ever_up)
    {
      /* Starting (connecting, asking for the slot map): a command waits
       * for the store as long as it would for its reply. */
      gint64 now = g_get_monotonic_time ();

      if (pending->deadline_us == 0)
        pending->deadline_us = now + self->timeout_ms * 1000;
      if (now < pending->deadline_us)
        {
          g_queue_push_tail (&self->delayed, pending);
          return;
        }
    }
  if (node == NULL)
    {
      _gg_a2g_redis_task_fail (pending->task);
      pending->task = NULL;
      _gg_a2g_redis_pending_free (pending);
      return;
    }
  _gg_a2g_redis_node_send (node, pending, FALSE);
}

void
_gg_a2g_redis_send (GgA2gRedisStore     *self,
                    GgA2gRedisCmd       *cmd,
                    GTask               *task,
                    GgA2gRedisReplyFunc  func)
{
  GgA2gRedisPending *pending = g_new0 (GgA2gRedisPending, 1);

  pending->self = self;
  pending->task = task;
  pending->func = func;
  pending->cmd = cmd;
  send_routed (self, pending);
}

/** _gg_a2g_redis_on_reply: @pending's reply (NULL: the connection was lost), from its node */
void
_gg_a2g_redis_on_reply (GgA2gRedisStore   *self,
                        GgA2gRedisPending *pending,
                        redisReply        *reply,
                        GgA2gRedisNode    *node)
{
  if (reply != NULL && reply->type == REDIS_REPLY_ERROR && g_str_has_prefix (reply->str, "NOSCRIPT") &&
      pending->cmd->script != NULL && pending->cmd->args->len >= 2 && !self->closing)
    {
      /* Not loaded (a restarted Redis): the same call with the source. */
      GgA2gRedisScript *script = pending->cmd->script;

      g_ptr_array_index (pending->cmd->args, 0) = (g_bytes_unref (pending->cmd->args->pdata[0]),
                                                   g_bytes_new_static ("EVAL", 4));
      g_ptr_array_index (pending->cmd->args, 1) = (g_bytes_unref (pending->cmd->args->pdata[1]),
                                                   g_bytes_new_static (script->source, strlen (script->source)));
      pending->cmd->script = NULL;
      _gg_a2g_redis_node_send (node, pending, FALSE);
      return;
    }
  if (reply != NULL && reply->type == REDIS_REPLY_ERROR && self->mode == GG_A2G_REDIS_CLUSTER && !self->closing &&
      _gg_a2g_redis_cluster_redirect (self, pending, reply))
    return;
  if (reply != NULL && reply->type == REDIS_REPLY_ERROR && g_str_has_prefix (reply->str, "READONLY"))
    {
      /* A primary that became a replica (a failover): never written to again. */
      _gg_a2g_redis_task_fail (pending->task);
      pending->task = NULL;
      _gg_a2g_redis_pending_free (pending);
      _gg_a2g_redis_node_drop (node, "the primary became a replica");
      return;
    }
  if (pending->task != NULL)
    {
      if (reply == NULL)
        _gg_a2g_redis_task_fail (pending->task);
      else if (reply->type == REDIS_REPLY_ERROR)
        {
          /* A script error or a cluster that is down: never a credential; said once per reply. */
          if (g_str_has_prefix (reply->str, "CLUSTERDOWN") || g_str_has_prefix (reply->str, "LOADING") ||
              g_str_has_prefix (reply->str, "MASTERDOWN") || g_str_has_prefix (reply->str, "TRYAGAIN"))
            g_debug ("a2g: the shared store answered %.200s", reply->str);
          else
            g_warning ("a2g: the shared store answered an error: %.200s", reply->str);
          _gg_a2g_redis_task_fail (pending->task);
          if (self->mode == GG_A2G_REDIS_CLUSTER)
            self->map_wanted = TRUE;
        }
      else
        pending->func (self, reply, pending->task);
    }
  pending->task = NULL;
  _gg_a2g_redis_pending_free (pending);
}

/* ---- one operation on several slots ---------------------------------------- */

struct _GgA2gRedisGather {
  GgA2gRedisStore *self;
  GTask *task;
  guint remaining;
  gboolean failed;
  GgA2gRedisPartFunc part_func;
  GgA2gRedisGatheredFunc done;
  gpointer data;
  GDestroyNotify data_free;
};

typedef struct {
  GgA2gRedisGather *gather;
  guint part;
} GatherPart;

static void
on_part_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  GgA2gRedisGather *gather = user_data;

  (void) source;
  if (!g_task_propagate_boolean (G_TASK (result), NULL))
    gather->failed = TRUE;
  if (--gather->remaining > 0)
    return;
  gather->done (gather->self, gather->task, gather->data, gather->failed);
  if (gather->data_free != NULL)
    gather->data_free (gather->data);
  g_free (gather);
}

static void
on_part_reply (GgA2gRedisStore *self,
               redisReply      *reply,
               GTask           *task)
{
  GatherPart *part = g_task_get_task_data (task);

  part->gather->part_func (self, reply, part->part, part->gather->data);
  g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

/** _gg_a2g_redis_gather_new: Returns: (transfer full): a gather of @n_parts (at least 1) commands completing @task (consumed) */
GgA2gRedisGather *
_gg_a2g_redis_gather_new (GgA2gRedisStore        *self,
                          GTask                  *task,
                          guint                   n_parts,
                          GgA2gRedisPartFunc      part_func,
                          GgA2gRedisGatheredFunc  done,
                          gpointer                data,
                          GDestroyNotify          data_free)
{
  GgA2gRedisGather *gather = g_new0 (GgA2gRedisGather, 1);

  g_return_val_if_fail (n_parts > 0, NULL);
  gather->self = self;
  gather->task = task;
  gather->remaining = n_parts;
  gather->part_func = part_func;
  gather->done = done;
  gather->data = data;
  gather->data_free = data_free;
  return gather;
}

/** _gg_a2g_redis_gather_send: sends @cmd (consumed), @gather's @part (each part once) */
void
_gg_a2g_redis_gather_send (GgA2gRedisGather *gather,
                           guint             part,
                           GgA2gRedisCmd    *cmd)
{
  GTask *task = g_task_new (gather->self, NULL, on_part_done, gather);
  GatherPart *data = g_new (GatherPart, 1);

  data->gather = gather;
  data->part = part;
  g_task_set_task_data (task, data, g_free);
  _gg_a2g_redis_send (gather->self, cmd, task, on_part_reply);
}

/** _gg_a2g_redis_key_group: Returns: the Cluster slot of @key, 0 on one primary */
guint
_gg_a2g_redis_key_group (GgA2gRedisStore *self,
                         const char      *key,
                         gsize            length)
{
  return self->mode == GG_A2G_REDIS_CLUSTER ? _gg_a2g_redis_key_slot (key, length) : 0;
}

/** _gg_a2g_redis_key_is_up: Returns: whether the primary holding @key answers now */
gboolean
_gg_a2g_redis_key_is_up (GgA2gRedisStore *self,
                         const char      *key)
{
  GgA2gRedisNode *node;

  if (self->mode != GG_A2G_REDIS_CLUSTER)
    return self->up;
  node = self->slots[_gg_a2g_redis_key_slot (key, strlen (key))];
  return node != NULL && node->ready;
}

/* ---- the store's state ------------------------------------------------------ */

static void send_delayed (GgA2gRedisStore *self);

static gboolean
compute_up (GgA2gRedisStore *self)
{
  if (self->mode == GG_A2G_REDIS_CLUSTER)
    return _gg_a2g_redis_cluster_is_up (self);
  return self->primary != NULL && self->primary->ready;
}

/** _gg_a2g_redis_node_changed: @node connected, became ready or was lost (@why) */
void
_gg_a2g_redis_node_changed (GgA2gRedisStore *self,
                            GgA2gRedisNode  *node,
                            const char      *why)
{
  gboolean up;

  if (self->closing)
    return;
  if (!node->ready)
    {
      g_debug ("a2g: the shared store's %s at %s is unreachable (%s)",
               node->role == GG_A2G_REDIS_NODE_SENTINEL ? "sentinel" : "node", node->name, why != NULL ? why : "");
      if (self->mode == GG_A2G_REDIS_CLUSTER)
        self->map_wanted = TRUE;
      if (self->mode == GG_A2G_REDIS_SENTINEL && node == self->primary)
        self->sentinel_at_us = 0;   /* ask the sentinels again now */
    }
  if (node->ready && self->mode == GG_A2G_REDIS_CLUSTER && self->map_wanted)
    _gg_a2g_redis_cluster_tick (self);
  up = compute_up (self);
  if (!up && !self->warned && why != NULL && (node->role != GG_A2G_REDIS_NODE_SENTINEL || self->primary == NULL))
    {
      /* Down, or never reached since the start: said once. */
      g_warning ("a2g: the shared store at %s is unreachable (%s): decisions fall back, sessions are refused",
                 self->masked, why);
      self->warned = TRUE;
    }
  if (up == self->up)
    return;
  self->up = up;
  if (up && !self->ever_up)
    {
      self->ever_up = TRUE;
      send_delayed (self);
    }
  if (!up && !self->warned)
    {
      g_warning ("a2g: the shared store at %s is unreachable (%s): decisions fall back, sessions are refused",
                 self->masked, why != NULL ? why : "a node is not ready");
      self->warned = TRUE;
    }
  else if (up && self->warned)
    {
      g_message ("a2g: the shared store at %s is reachable again", self->masked);
      self->warned = FALSE;
    }
  else if (up)
    g_debug ("a2g: connected to the shared store at %s", self->masked);
}

/* What waited (TRYAGAIN: a slot moving; the store starting): routed again. */
static void
send_delayed (GgA2gRedisStore *self)
{
  GQueue again = self->delayed;
  GgA2gRedisPending *pending;

  g_queue_init (&self->delayed);
  while ((pending = g_queue_pop_head (&again)) != NULL)
    send_routed (self, pending);
}

/** _gg_a2g_redis_connection_tick: times commands out, sends the delayed again, follows the layout (every 50 ms) */
void
_gg_a2g_redis_connection_tick (GgA2gRedisStore *self)
{
  GHashTableIter iter;
  GgA2gRedisNode *node;

  g_hash_table_iter_init (&iter, self->nodes);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &node))
    _gg_a2g_redis_node_tick (node);
  send_delayed (self);
  if (self->mode == GG_A2G_REDIS_CLUSTER)
    _gg_a2g_redis_cluster_tick (self);
  else if (self->mode == GG_A2G_REDIS_SENTINEL)
    _gg_a2g_redis_sentinel_tick (self);
}

/** _gg_a2g_redis_node_for: Returns: (transfer none) (nullable): the data node at @host:@port, made when new (NULL past GG_A2G_REDIS_MAX_NODES) */
GgA2gRedisNode *
_gg_a2g_redis_node_for (GgA2gRedisStore *self,
                        const char      *host,
                        int              port)
{
  g_autofree char *name = _gg_a2g_redis_address_name (NULL, host, port);
  GgA2gRedisNode *node = g_hash_table_lookup (self->nodes, name);

  if (node == NULL && g_hash_table_size (self->nodes) >= GG_A2G_REDIS_MAX_NODES)
    {
      g_debug ("a2g: the shared store names more than %d servers: %s is not connected to", GG_A2G_REDIS_MAX_NODES,
               name);
      return NULL;
    }
  if (node == NULL)
    {
      node = _gg_a2g_redis_node_new (self, self->mode == GG_A2G_REDIS_SENTINEL ? GG_A2G_REDIS_NODE_CHECKED
                                                                             : GG_A2G_REDIS_NODE_DATA,
                                     NULL, host, port);
      g_hash_table_insert (self->nodes, g_strdup (node->name), node);
    }
  return node;
}

/** _gg_a2g_redis_connection_start: @self: a store with its addresses: connects in the background */
void
_gg_a2g_redis_connection_start (GgA2gRedisStore *self)
{
  self->nodes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) _gg_a2g_redis_node_free);
  if (self->mode == GG_A2G_REDIS_CLUSTER)
    self->slots = g_new0 (GgA2gRedisNode *, GG_A2G_REDIS_SLOTS);
  for (guint i = 0; i < self->addresses->len; i++)
    {
      GgA2gRedisAddress *address = self->addresses->pdata[i];
      GgA2gRedisNodeRole role = self->mode == GG_A2G_REDIS_SENTINEL ? GG_A2G_REDIS_NODE_SENTINEL
                                                                    : GG_A2G_REDIS_NODE_DATA;
      g_autofree char *name = _gg_a2g_redis_address_name (address->unix_path, address->host, address->port);
      GgA2gRedisNode *node;

      if (g_hash_table_contains (self->nodes, name))
        continue;
      node = _gg_a2g_redis_node_new (self, role, address->unix_path, address->host, address->port);
      node->seed = TRUE;
      g_hash_table_insert (self->nodes, g_strdup (node->name), node);
      if (self->mode == GG_A2G_REDIS_SINGLE)
        self->primary = node;
    }
  self->map_wanted = TRUE;
}

/** _gg_a2g_redis_connection_close: @self: a store being finalized: every pending command fails */
void
_gg_a2g_redis_connection_close (GgA2gRedisStore *self)
{
  GgA2gRedisPending *pending;

  self->closing = TRUE;
  while ((pending = g_queue_pop_head (&self->delayed)) != NULL)
    {
      _gg_a2g_redis_task_fail (pending->task);
      pending->task = NULL;
      _gg_a2g_redis_pending_free (pending);
    }
  self->primary = NULL;
  g_clear_pointer (&self->nodes, g_hash_table_unref);
  g_clear_pointer (&self->slots, g_free);
}
