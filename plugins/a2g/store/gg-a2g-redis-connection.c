/* gg-a2g-redis-connection.c: the Redis store's one connection and the
 * commands sent on it.
 *
 * One hiredis asynchronous connection per replica, driven by a GSource on
 * the main loop (the socket's readiness through g_source_add_unix_fd):
 * nothing here blocks. Commands are pipelined; replies come back in
 * order, so one timer watching the oldest command is each command's
 * timeout: when it passes, or the connection drops, every pending
 * operation fails (GG_A2G_ERROR_UNAVAILABLE) and the replica reconnects
 * with a doubling backoff (100 ms to 5 s). Scripts go as EVALSHA (every
 * topic's loaded on every connect), with EVAL when Redis answers NOSCRIPT.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdarg.h>
#include <string.h>

#include "gg-a2g-redis-private.h"

#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 5000

typedef struct {
  GgA2gRedisStore *self;
  GTask *task;            /* nullable */
  GgA2gRedisReplyFunc func;
  GgA2gRedisCmd *cmd;          /* kept for an EVAL after NOSCRIPT */
  gint64 deadline_us;
} RedisPending;

static void connect_now (GgA2gRedisStore *self);

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
  g_source_attach ((GSource *) source, NULL);
}

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

static void
cmd_free (GgA2gRedisCmd *cmd)
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

static void
pending_free (RedisPending *pending)
{
  if (pending->cmd != NULL)
    cmd_free (pending->cmd);
  g_free (pending);
}

static void send_pending (GgA2gRedisStore *self, RedisPending *pending);

static void
on_reply (redisAsyncContext *ac,
          void              *raw,
          void              *privdata)
{
  RedisPending *pending = privdata;
  GgA2gRedisStore *self = pending->self;
  redisReply *reply = raw;

  (void) ac;
  g_queue_remove (&self->pending, pending);
  if (reply != NULL && reply->type == REDIS_REPLY_ERROR && g_str_has_prefix (reply->str, "NOSCRIPT") &&
      pending->cmd != NULL && pending->cmd->script != NULL && pending->cmd->args->len >= 2 && self->up)
    {
      /* Not loaded (a restarted Redis): the same call with the source. */
      GgA2gRedisScript *script = pending->cmd->script;

      g_ptr_array_index (pending->cmd->args, 0) = (g_bytes_unref (pending->cmd->args->pdata[0]),
                                                   g_bytes_new_static ("EVAL", 4));
      g_ptr_array_index (pending->cmd->args, 1) = (g_bytes_unref (pending->cmd->args->pdata[1]),
                                                   g_bytes_new_static (script->source, strlen (script->source)));
      pending->cmd->script = NULL;
      send_pending (self, pending);
      return;
    }
  if (pending->task != NULL)
    {
      if (reply == NULL)
        _gg_a2g_redis_task_fail (pending->task);
      else if (reply->type == REDIS_REPLY_ERROR)
        {
          /* A script error: a bug, never a credential; say it once per reply. */
          g_warning ("a2g: the shared store answered an error: %.200s", reply->str);
          _gg_a2g_redis_task_fail (pending->task);
        }
      else
        pending->func (self, reply, pending->task);
    }
  pending->task = NULL;
  pending_free (pending);
}

static void
send_pending (GgA2gRedisStore *self,
              RedisPending    *pending)
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
  pending->deadline_us = g_get_monotonic_time () + self->timeout_ms * 1000;
  if (self->ac == NULL || !self->up ||
      redisAsyncCommandArgv (self->ac, on_reply, pending, (int) argc, argv, lengths) != REDIS_OK)
    {
      _gg_a2g_redis_task_fail (pending->task);
      pending->task = NULL;
      pending_free (pending);
      return;
    }
  self->commands++;
  g_queue_push_tail (&self->pending, pending);
}

void
_gg_a2g_redis_send (GgA2gRedisStore     *self,
                    GgA2gRedisCmd       *cmd,
                    GTask               *task,
                    GgA2gRedisReplyFunc  func)
{
  RedisPending *pending = g_new0 (RedisPending, 1);

  pending->self = self;
  pending->task = task;
  pending->func = func;
  pending->cmd = cmd;
  send_pending (self, pending);
}

/* ---- the connection -------------------------------------------------------- */

static void
lost (GgA2gRedisStore *self,
      const char      *why)
{
  if (!self->warned)
    {
      g_warning ("a2g: the shared store at %s is unreachable (%s): decisions fall back, sessions are refused",
                 self->masked, why);
      self->warned = TRUE;
    }
  self->up = FALSE;
}

static gboolean
retry (gpointer user_data)
{
  GgA2gRedisStore *self = user_data;

  self->retry_id = 0;
  connect_now (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_retry (GgA2gRedisStore *self)
{
  if (self->retry_id != 0)
    return;
  self->retry_id = g_timeout_add (self->backoff_ms, retry, self);
  self->backoff_ms = MIN (self->backoff_ms * 2, BACKOFF_MAX_MS);
}

static void
on_connected (const redisAsyncContext *ac,
              int                      status)
{
  GgA2gRedisStore *self = ac->data;

  if (status != REDIS_OK)
    {
      /* hiredis frees the context after this. */
      self->ac = NULL;
      lost (self, ac->errstr);
      schedule_retry (self);
      return;
    }
  self->up = TRUE;
  self->backoff_ms = BACKOFF_MIN_MS;
  if (self->password != NULL)
    {
      GgA2gRedisCmd *cmd = _gg_a2g_redis_cmd_new ("AUTH");
      _gg_a2g_redis_cmd_add (cmd, self->password);
      _gg_a2g_redis_send (self, cmd, NULL, NULL);
    }
  for (guint i = 0; self->scripts[i] != NULL; i++)
    {
      GgA2gRedisCmd *cmd = _gg_a2g_redis_cmd_new ("SCRIPT");
      _gg_a2g_redis_cmd_add (cmd, "LOAD");
      _gg_a2g_redis_cmd_add (cmd, self->scripts[i]->source);
      _gg_a2g_redis_send (self, cmd, NULL, NULL);
    }
  if (self->warned)
    g_message ("a2g: the shared store at %s is reachable again", self->masked);
  else
    g_debug ("a2g: connected to the shared store at %s", self->masked);
  self->warned = FALSE;
}

static void
on_disconnected (const redisAsyncContext *ac,
                 int                      status)
{
  GgA2gRedisStore *self = ac->data;

  (void) status;
  self->ac = NULL;
  if (self->closing)
    return;
  lost (self, ac->errstr[0] != '\0' ? ac->errstr : "connection closed");
  schedule_retry (self);
}

static void
connect_now (GgA2gRedisStore *self)
{
  redisAsyncContext *ac;

  ac = self->unix_path != NULL ? redisAsyncConnectUnix (self->unix_path)
                               : redisAsyncConnect (self->host, self->port);
  if (ac == NULL || ac->err)
    {
      lost (self, ac != NULL ? ac->errstr : "out of memory");
      if (ac != NULL)
        redisAsyncFree (ac);
      schedule_retry (self);
      return;
    }
  ac->data = self;
  self->ac = ac;
  self->connect_started_us = g_get_monotonic_time ();
  source_attach (ac);
  redisAsyncSetConnectCallback (ac, on_connected);
  redisAsyncSetDisconnectCallback (ac, on_disconnected);
}

static void
drop_connection (GgA2gRedisStore *self,
                 const char      *why)
{
  redisAsyncContext *ac = self->ac;

  lost (self, why);
  self->ac = NULL;
  /* Every pending callback runs now with no reply: their tasks fail. */
  if (ac != NULL)
    redisAsyncFree (ac);
  schedule_retry (self);
}

/** _gg_a2g_redis_connection_tick: fails the commands past their timeout (the store's 50 ms tick) */
void
_gg_a2g_redis_connection_tick (GgA2gRedisStore *self)
{
  gint64 now = g_get_monotonic_time ();
  RedisPending *oldest = g_queue_peek_head (&self->pending);

  if (self->ac != NULL && !self->up && now - self->connect_started_us > self->timeout_ms * 1000)
    drop_connection (self, "connection timed out");
  else if (self->ac != NULL && oldest != NULL && oldest->deadline_us < now)
    drop_connection (self, "a command timed out");
}

/** _gg_a2g_redis_connection_start: @self: a store with its address: connects in the background */
void
_gg_a2g_redis_connection_start (GgA2gRedisStore *self)
{
  self->backoff_ms = BACKOFF_MIN_MS;
  connect_now (self);
}

/** _gg_a2g_redis_connection_close: @self: a store being finalized: every pending command fails */
void
_gg_a2g_redis_connection_close (GgA2gRedisStore *self)
{
  redisAsyncContext *ac = self->ac;

  self->closing = TRUE;
  g_clear_handle_id (&self->retry_id, g_source_remove);
  self->ac = NULL;
  if (ac != NULL)
    redisAsyncFree (ac);
}
