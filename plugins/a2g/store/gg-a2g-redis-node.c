/* gg-a2g-redis-node.c: one connection of the Redis store to one server (a
 * primary, a cluster node or a sentinel).
 *
 * One hiredis asynchronous connection, driven by a GSource on the main
 * loop (the socket's readiness through g_source_add_unix_fd): nothing here
 * blocks. Commands are pipelined; replies come back in order, so the
 * oldest command's deadline is each command's timeout: when it passes, or
 * the connection drops, every command in flight fails (the store routes
 * the failure: GG_A2G_ERROR_UNAVAILABLE) and the node reconnects with a
 * doubling backoff (100 ms to 5 s). A data node gets AUTH and every
 * topic's scripts on each connect; one a sentinel named is used only once
 * ROLE says it is a primary (a replica is never written to).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-redis-private.h"

#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 5000

static void connect_now (GgA2gRedisNode *node);

/* ---- the GSource driving hiredis ----------------------------------------- */

typedef struct {
  GSource source;
  redisAsyncContext *ac;  /* NULL once hiredis cleaned up */
  gpointer tag;
  GIOCondition events;
} RedisSource;

static void
source_update (RedisSource  *source,
               GIOCondition  add,
               GIOCondition  remove)
{
  source->events = (source->events | add) & ~remove;
  if (source->tag != NULL)
    g_source_modify_unix_fd ((GSource *) source, source->tag, source->events);
}

static void ev_add_read (void *data) { source_update (data, G_IO_IN, 0); }
static void ev_del_read (void *data) { source_update (data, 0, G_IO_IN); }
static void ev_add_write (void *data) { source_update (data, G_IO_OUT, 0); }
static void ev_del_write (void *data) { source_update (data, 0, G_IO_OUT); }

static void
ev_cleanup (void *data)
{
  RedisSource *source = data;

  /* hiredis frees the context: the source goes with it. */
  source->ac = NULL;
  g_source_destroy ((GSource *) source);
  g_source_unref ((GSource *) source);
}

static gboolean
source_dispatch (GSource     *gsource,
                 GSourceFunc  callback,
                 gpointer     user_data)
{
  RedisSource *source = (RedisSource *) gsource;
  GIOCondition ready = source->tag != NULL ? g_source_query_unix_fd (gsource, source->tag) : 0;

  (void) callback;
  (void) user_data;
  if ((ready & (G_IO_OUT | G_IO_ERR | G_IO_HUP)) && source->ac != NULL && (source->events & G_IO_OUT))
    redisAsyncHandleWrite (source->ac);
  if ((ready & (G_IO_IN | G_IO_ERR | G_IO_HUP)) && source->ac != NULL)
    redisAsyncHandleRead (source->ac);
  return G_SOURCE_CONTINUE;
}

static void
source_attach (redisAsyncContext *ac)
{
  static GSourceFuncs funcs = { .dispatch = source_dispatch };
  RedisSource *source = (RedisSource *) g_source_new (&funcs, sizeof (RedisSource));

  source->ac = ac;
  source->tag = g_source_add_unix_fd ((GSource *) source, ac->c.fd, 0);
  g_source_set_name ((GSource *) source, "a2g redis");
  ac->ev.addRead = ev_add_read;
  ac->ev.delRead = ev_del_read;
  ac->ev.addWrite = ev_add_write;
  ac->ev.delWrite = ev_del_write;
  ac->ev.cleanup = ev_cleanup;
  ac->ev.data = source;
  g_source_attach ((GSource *) source, g_main_context_get_thread_default ());
}

/* ---- commands -------------------------------------------------------------- */

void
_gg_a2g_redis_pending_free (GgA2gRedisPending *pending)
{
  if (pending->cmd != NULL)
    _gg_a2g_redis_cmd_free (pending->cmd);
  g_free (pending);
}

static void
on_reply (redisAsyncContext *ac,
          void              *raw,
          void              *privdata)
{
  GgA2gRedisPending *pending = privdata;
  GgA2gRedisNode *node = pending->node;

  (void) ac;
  g_queue_remove (&node->pending, pending);
  pending->node = NULL;
  if (pending->node_func != NULL)
    {
      pending->node_func (node->store, node, raw);
      _gg_a2g_redis_pending_free (pending);
      return;
    }
  _gg_a2g_redis_on_reply (node->store, pending, raw, node);
}

static void
fail_pending (GgA2gRedisNode    *node,
              GgA2gRedisPending *pending)
{
  if (pending->node_func != NULL)
    {
      pending->node_func (node->store, node, NULL);
      _gg_a2g_redis_pending_free (pending);
      return;
    }
  _gg_a2g_redis_on_reply (node->store, pending, NULL, node);
}

void
_gg_a2g_redis_node_send (GgA2gRedisNode    *node,
                         GgA2gRedisPending *pending,
                         gboolean           internal)
{
  guint argc = pending->cmd->args->len;
  g_autofree const char **argv = g_new (const char *, argc);
  g_autofree size_t *lengths = g_new (size_t, argc);

  for (guint i = 0; i < argc; i++)
    {
      gsize length;

      argv[i] = g_bytes_get_data (pending->cmd->args->pdata[i], &length);
      lengths[i] = length;
    }
  pending->deadline_us = g_get_monotonic_time () + node->store->timeout_ms * 1000;
  pending->node = node;
  if (node->ac == NULL || !(internal ? node->connected : node->ready) ||
      redisAsyncCommandArgv (node->ac, on_reply, pending, (int) argc, argv, lengths) != REDIS_OK)
    {
      pending->node = NULL;
      fail_pending (node, pending);
      return;
    }
  node->store->commands++;
  g_queue_push_tail (&node->pending, pending);
}

void
_gg_a2g_redis_node_ask (GgA2gRedisNode     *node,
                        GgA2gRedisCmd      *cmd,
                        GgA2gRedisNodeFunc  func)
{
  GgA2gRedisPending *pending = g_new0 (GgA2gRedisPending, 1);

  pending->self = node->store;
  pending->cmd = cmd;
  pending->node_func = func;
  _gg_a2g_redis_node_send (node, pending, TRUE);
}

static void
ignore_reply (GgA2gRedisStore *self,
              GgA2gRedisNode  *node,
              redisReply      *reply)
{
  (void) self;
  (void) node;
  (void) reply;
}

/* ---- the connection -------------------------------------------------------- */

void
_gg_a2g_redis_node_set_ready (GgA2gRedisNode *node,
                              gboolean        ready)
{
  if (node->ready == ready)
    return;
  node->ready = ready;
  _gg_a2g_redis_node_changed (node->store, node, ready ? NULL : "not a primary");
}

static gboolean
retry (gpointer user_data)
{
  GgA2gRedisNode *node = user_data;

  node->retry_id = 0;
  connect_now (node);
  return G_SOURCE_REMOVE;
}

static void
schedule_retry (GgA2gRedisNode *node)
{
  GSource *source;

  if (node->retry_id != 0 || node->closing)
    return;
  source = g_timeout_source_new (node->backoff_ms);
  g_source_set_callback (source, retry, node, NULL);
  node->retry_id = g_source_attach (source, g_main_context_get_thread_default ());
  g_source_unref (source);
  node->backoff_ms = MIN (node->backoff_ms * 2, BACKOFF_MAX_MS);
}

static void
lost (GgA2gRedisNode *node,
      const char     *why)
{
  gboolean was = node->connected;

  node->connected = FALSE;
  node->ready = FALSE;
  if (was || node->backoff_ms == BACKOFF_MIN_MS)
    _gg_a2g_redis_node_changed (node->store, node, why);
}

static void
on_role (GgA2gRedisStore *self,
         GgA2gRedisNode  *node,
         redisReply      *reply)
{
  (void) self;
  if (reply == NULL)
    return;
  if (reply->type == REDIS_REPLY_ARRAY && reply->elements > 0 && reply->element[0]->type == REDIS_REPLY_STRING &&
      strcmp (reply->element[0]->str, "master") == 0)
    _gg_a2g_redis_node_set_ready (node, TRUE);
  else
    _gg_a2g_redis_node_drop (node, "the sentinels' primary is not a primary (yet)");
}

static void
on_connected (const redisAsyncContext *ac,
              int                      status)
{
  GgA2gRedisNode *node = ac->data;

  if (status != REDIS_OK)
    {
      /* hiredis frees the context after this. */
      node->ac = NULL;
      lost (node, ac->errstr);
      schedule_retry (node);
      return;
    }
  node->connected = TRUE;
  node->backoff_ms = BACKOFF_MIN_MS;
  if (node->role == GG_A2G_REDIS_NODE_SENTINEL)
    {
      _gg_a2g_redis_node_set_ready (node, TRUE);
      return;
    }
  if (node->store->password != NULL)
    {
      GgA2gRedisCmd *cmd = _gg_a2g_redis_cmd_new ("AUTH");
      _gg_a2g_redis_cmd_add (cmd, node->store->password);
      _gg_a2g_redis_node_ask (node, cmd, ignore_reply);
    }
  for (guint i = 0; node->store->scripts[i] != NULL; i++)
    {
      GgA2gRedisCmd *cmd = _gg_a2g_redis_cmd_new ("SCRIPT");
      _gg_a2g_redis_cmd_add (cmd, "LOAD");
      _gg_a2g_redis_cmd_add (cmd, node->store->scripts[i]->source);
      _gg_a2g_redis_node_ask (node, cmd, ignore_reply);
    }
  if (node->role == GG_A2G_REDIS_NODE_CHECKED)
    _gg_a2g_redis_node_ask (node, _gg_a2g_redis_cmd_new ("ROLE"), on_role);
  else
    _gg_a2g_redis_node_set_ready (node, TRUE);
}

static void
on_disconnected (const redisAsyncContext *ac,
                 int                      status)
{
  GgA2gRedisNode *node = ac->data;

  (void) status;
  node->ac = NULL;
  if (node->closing)
    return;
  lost (node, ac->errstr[0] != '\0' ? ac->errstr : "connection closed");
  schedule_retry (node);
}

static void
connect_now (GgA2gRedisNode *node)
{
  redisAsyncContext *ac;

  ac = node->unix_path != NULL ? redisAsyncConnectUnix (node->unix_path) : redisAsyncConnect (node->host, node->port);
  if (ac == NULL || ac->err)
    {
      lost (node, ac != NULL ? ac->errstr : "out of memory");
      if (ac != NULL)
        redisAsyncFree (ac);
      schedule_retry (node);
      return;
    }
  ac->data = node;
  node->ac = ac;
  node->connect_started_us = g_get_monotonic_time ();
  source_attach (ac);
  redisAsyncSetConnectCallback (ac, on_connected);
  redisAsyncSetDisconnectCallback (ac, on_disconnected);
}

/** _gg_a2g_redis_node_drop: closes @node's connection (every command in flight fails) and connects again later */
void
_gg_a2g_redis_node_drop (GgA2gRedisNode *node,
                         const char     *why)
{
  redisAsyncContext *ac = node->ac;

  lost (node, why);
  node->ac = NULL;
  if (ac != NULL)
    {
      /* on_disconnected must not schedule a second retry. */
      node->closing = TRUE;
      redisAsyncFree (ac);
      node->closing = FALSE;
    }
  schedule_retry (node);
}

/** _gg_a2g_redis_node_tick: fails the commands past their timeout (the store's 50 ms tick) */
void
_gg_a2g_redis_node_tick (GgA2gRedisNode *node)
{
  gint64 now = g_get_monotonic_time ();
  GgA2gRedisPending *oldest = g_queue_peek_head (&node->pending);

  if (node->ac != NULL && !node->connected && now - node->connect_started_us > node->store->timeout_ms * 1000)
    _gg_a2g_redis_node_drop (node, "connection timed out");
  else if (node->ac != NULL && oldest != NULL && oldest->deadline_us < now)
    _gg_a2g_redis_node_drop (node, "a command timed out");
}

/**
 * _gg_a2g_redis_node_new:
 * @self: the store
 * @role: what the node is for
 *
 * Returns: (transfer full): a node connecting in the background (the store
 *   keeps it in its nodes)
 */
GgA2gRedisNode *
_gg_a2g_redis_node_new (GgA2gRedisStore    *self,
                        GgA2gRedisNodeRole  role,
                        const char         *unix_path,
                        const char         *host,
                        int                 port)
{
  GgA2gRedisNode *node = g_new0 (GgA2gRedisNode, 1);

  node->store = self;
  node->role = role;
  node->unix_path = g_strdup (unix_path);
  node->host = g_strdup (host);
  node->port = port;
  node->name = _gg_a2g_redis_address_name (unix_path, host, port);
  node->backoff_ms = BACKOFF_MIN_MS;
  connect_now (node);
  return node;
}

/** _gg_a2g_redis_node_free: @node: closed; every command in flight fails */
void
_gg_a2g_redis_node_free (GgA2gRedisNode *node)
{
  redisAsyncContext *ac = node->ac;

  node->closing = TRUE;
  g_clear_handle_id (&node->retry_id, g_source_remove);
  node->ac = NULL;
  node->connected = FALSE;
  node->ready = FALSE;
  if (ac != NULL)
    redisAsyncFree (ac);
  g_free (node->name);
  g_free (node->unix_path);
  g_free (node->host);
  g_free (node);
}
