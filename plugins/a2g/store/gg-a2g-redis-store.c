/* gg-a2g-redis-store.c: the Redis store's connection and its plainest
 * operation (manifests).
 *
 * One hiredis asynchronous connection per replica, driven by a GSource on
 * the main loop (the socket's readiness through g_source_add_unix_fd):
 * nothing here blocks. Commands are pipelined; replies come back in
 * order, so one timer watching the oldest command is each command's
 * timeout: when it passes, or the connection drops, every pending
 * operation fails (GG_A2G_ERROR_UNAVAILABLE) and the replica reconnects
 * with a doubling backoff (100 ms to 5 s). Scripts go as EVALSHA (loaded
 * on every connect), with EVAL when Redis answers NOSCRIPT.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdarg.h>
#include <string.h>

#include <gamegate.h>

#include "gg-a2g-redis-private.h"

#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 5000
#define MANIFEST_TTL_S (7 * 86400)

static void gg_a2g_redis_store_iface_init (GgA2gStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GgA2gRedisStore, gg_a2g_redis_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_A2G_TYPE_STORE, gg_a2g_redis_store_iface_init))

typedef struct {
  GgA2gRedisStore *self;
  GTask *task;            /* nullable */
  RedisReplyFunc func;
  RedisCmd *cmd;          /* kept for an EVAL after NOSCRIPT */
  gint64 deadline_us;
} Pending;

typedef struct {
  GgA2gSession *snapshot;
  char *previous;
  gint64 previous_until_us;
  gint64 expires_us;
} LocalSession;

static void connect_now (GgA2gRedisStore *self);

/* ---- the GSource driving hiredis ----------------------------------------- */

typedef struct {
  GSource source;
  redisAsyncContext *ac;  /* NULL once hiredis cleaned up */
  gpointer tag;
  GIOCondition events;
} RedisSource;

static void
source_update (RedisSource *source, GIOCondition add, GIOCondition remove)
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
source_dispatch (GSource    *gsource,
                 GSourceFunc callback,
                 gpointer    user_data)
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

RedisCmd *
_gg_redis_cmd_new (const char *first)
{
  RedisCmd *cmd = g_new0 (RedisCmd, 1);

  cmd->args = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  _gg_redis_cmd_add (cmd, first);
  return cmd;
}

void
_gg_redis_cmd_add_len (RedisCmd *cmd, const void *data, gsize length)
{
  g_ptr_array_add (cmd->args, g_bytes_new (data, length));
}

void
_gg_redis_cmd_add (RedisCmd *cmd, const char *arg)
{
  _gg_redis_cmd_add_len (cmd, arg, strlen (arg));
}

void
_gg_redis_cmd_addf (RedisCmd *cmd, const char *format, ...)
{
  va_list args;
  char *text;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (cmd->args, g_bytes_new_take (text, strlen (text)));
}

RedisCmd *
_gg_redis_script_new (ScriptId script, guint n_keys)
{
  RedisCmd *cmd = _gg_redis_cmd_new ("EVALSHA");

  _gg_redis_cmd_add (cmd, _gg_a2g_redis_scripts[script].sha);
  _gg_redis_cmd_addf (cmd, "%u", n_keys);
  return cmd;
}

static void
cmd_free (RedisCmd *cmd)
{
  g_ptr_array_unref (cmd->args);
  g_free (cmd);
}

char *
_gg_redis_key (GgA2gRedisStore *self, const char *format, ...)
{
  va_list args;
  g_autofree char *rest = NULL;

  va_start (args, format);
  rest = g_strdup_vprintf (format, args);
  va_end (args);
  return g_strconcat (self->prefix, rest, NULL);
}

gint64
_gg_redis_now_ms (void)
{
  return g_get_real_time () / 1000;
}

void
_gg_redis_task_fail (GTask *task)
{
  if (task == NULL)
    return;
  g_task_return_new_error (task, GG_A2G_ERROR, GG_A2G_ERROR_UNAVAILABLE, "The shared store is unreachable.");
  g_object_unref (task);
}

static void
pending_free (Pending *pending)
{
  if (pending->cmd != NULL)
    cmd_free (pending->cmd);
  g_free (pending);
}

static void send_pending (GgA2gRedisStore *self, Pending *pending);

static void
on_reply (redisAsyncContext *ac,
          void              *raw,
          void              *privdata)
{
  Pending *pending = privdata;
  GgA2gRedisStore *self = pending->self;
  redisReply *reply = raw;

  (void) ac;
  g_queue_remove (&self->pending, pending);
  if (reply != NULL && reply->type == REDIS_REPLY_ERROR && g_str_has_prefix (reply->str, "NOSCRIPT") &&
      pending->cmd != NULL && pending->cmd->args->len >= 2 && self->up)
    {
      /* Not loaded (a restarted Redis): the same call with the source. */
      for (guint i = 0; i < N_SCRIPTS; i++)
        if (strcmp (_gg_a2g_redis_scripts[i].sha, g_bytes_get_data (pending->cmd->args->pdata[1], NULL)) == 0)
          {
            g_ptr_array_index (pending->cmd->args, 0) = (g_bytes_unref (pending->cmd->args->pdata[0]),
                                                         g_bytes_new_static ("EVAL", 4));
            g_ptr_array_index (pending->cmd->args, 1) = (g_bytes_unref (pending->cmd->args->pdata[1]),
                                                         g_bytes_new_static (_gg_a2g_redis_scripts[i].source,
                                                                             strlen (_gg_a2g_redis_scripts[i].source)));
            send_pending (self, pending);
            return;
          }
    }
  if (pending->task != NULL)
    {
      if (reply == NULL)
        _gg_redis_task_fail (pending->task);
      else if (reply->type == REDIS_REPLY_ERROR)
        {
          /* A script error: a bug, never a credential; say it once per reply. */
          g_warning ("a2g: the shared store answered an error: %.200s", reply->str);
          _gg_redis_task_fail (pending->task);
        }
      else
        pending->func (self, reply, pending->task);
    }
  pending->task = NULL;
  pending_free (pending);
}

static void
send_pending (GgA2gRedisStore *self, Pending *pending)
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
      _gg_redis_task_fail (pending->task);
      pending->task = NULL;
      pending_free (pending);
      return;
    }
  self->commands++;
  g_queue_push_tail (&self->pending, pending);
}

void
_gg_redis_send (GgA2gRedisStore *self, RedisCmd *cmd, GTask *task, RedisReplyFunc func)
{
  Pending *pending = g_new0 (Pending, 1);

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
      RedisCmd *cmd = _gg_redis_cmd_new ("AUTH");
      _gg_redis_cmd_add (cmd, self->password);
      _gg_redis_send (self, cmd, NULL, NULL);
    }
  for (guint i = 0; i < N_SCRIPTS; i++)
    {
      RedisCmd *cmd = _gg_redis_cmd_new ("SCRIPT");
      _gg_redis_cmd_add (cmd, "LOAD");
      _gg_redis_cmd_add (cmd, _gg_a2g_redis_scripts[i].source);
      _gg_redis_send (self, cmd, NULL, NULL);
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
  if (self->tick_id == 0)
    return; /* finalizing */
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

static gboolean
tick (gpointer user_data)
{
  GgA2gRedisStore *self = user_data;
  gint64 now = g_get_monotonic_time ();
  Pending *oldest = g_queue_peek_head (&self->pending);

  if (self->ac != NULL && !self->up && now - self->connect_started_us > self->timeout_ms * 1000)
    drop_connection (self, "connection timed out");
  else if (self->ac != NULL && oldest != NULL && oldest->deadline_us < now)
    drop_connection (self, "a command timed out");
  if (now - self->local_swept_us > 10 * G_USEC_PER_SEC)
    {
      GHashTableIter iter;
      LocalSession *local;

      self->local_swept_us = now;
      g_hash_table_iter_init (&iter, self->local);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &local))
        if (local->expires_us <= now)
          g_hash_table_iter_remove (&iter);
    }
  return G_SOURCE_CONTINUE;
}

/* ---- sessions seen here ---------------------------------------------------- */

static void
local_session_free (LocalSession *local)
{
  gg_a2g_session_unref (local->snapshot);
  if (local->previous != NULL)
    memset (local->previous, 0, strlen (local->previous));
  g_free (local->previous);
  g_free (local);
}

void
_gg_redis_local_session_put (GgA2gRedisStore *self, GgA2gSession *session, const char *previous, gint64 grace_s)
{
  LocalSession *local = g_hash_table_lookup (self->local, session->client_id);
  gint64 now = g_get_monotonic_time ();

  if (local == NULL)
    {
      local = g_new0 (LocalSession, 1);
      g_hash_table_insert (self->local, g_strdup (session->client_id), local);
    }
  else
    gg_a2g_session_unref (local->snapshot);
  local->snapshot = gg_a2g_session_ref (session);
  if (previous != NULL)
    {
      if (local->previous != NULL)
        memset (local->previous, 0, strlen (local->previous));
      g_free (local->previous);
      local->previous = g_strdup (previous);
      local->previous_until_us = now + grace_s * G_USEC_PER_SEC;
    }
  local->expires_us = now + session->ttl_s * G_USEC_PER_SEC;
}

GgA2gSession *
_gg_redis_local_session_get (GgA2gRedisStore *self, const char *client_id, const char *token)
{
  LocalSession *local = g_hash_table_lookup (self->local, client_id);
  gint64 now = g_get_monotonic_time ();

  if (local == NULL || local->expires_us <= now || token == NULL)
    return NULL;
  if (gg_secure_equal (token, local->snapshot->token) ||
      (local->previous != NULL && local->previous_until_us > now && gg_secure_equal (token, local->previous)))
    return gg_a2g_session_ref (local->snapshot);
  return NULL;
}

/* ---- manifests ------------------------------------------------------------- */

void
_gg_redis_manifest_remember (GgA2gRedisStore *self, const char *hash, const char *canonical)
{
  g_autoptr(JsonNode) node = NULL;
  GgA2gManifest *manifest;

  if (g_hash_table_contains (self->manifests, hash))
    return;
  node = gg_json_parse (canonical, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  manifest = node != NULL ? gg_a2g_manifest_parse (node, NULL) : NULL;
  if (manifest != NULL)
    g_hash_table_insert (self->manifests, g_strdup (hash), manifest);
}

/**
 * gg_a2g_redis_store_lookup_manifest:
 * @self: the store
 * @hash: a manifest hash
 *
 * Returns: (transfer none) (nullable): a manifest this replica read from
 *   the store (a session opened on another replica)
 */
GgA2gManifest *
gg_a2g_redis_store_lookup_manifest (GgA2gRedisStore *self, const char *hash)
{
  return g_hash_table_lookup (self->manifests, hash);
}

GgA2gContext *
_gg_redis_context_build (GgA2gRedisStore *self, const char *manifest_hash, const char *state)
{
  GgA2gManifest *manifest = g_hash_table_lookup (self->manifests, manifest_hash);
  g_autoptr(JsonNode) node = NULL;

  if (manifest == NULL || state == NULL)
    return NULL;
  node = gg_json_parse (state, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return gg_a2g_context_build (manifest, json_node_get_object (node), NULL);
}

static void
on_boolean (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  (void) self;
  g_task_return_boolean (task, reply->type != REDIS_REPLY_NIL &&
                               !(reply->type == REDIS_REPLY_INTEGER && reply->integer == 0));
  g_object_unref (task);
}

static void
manifest_put (GgA2gStore *store, const char *hash, const char *canonical,
              GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  RedisCmd *cmd = _gg_redis_cmd_new ("SET");

  _gg_redis_manifest_remember (self, hash, canonical);
  _gg_redis_cmd_addf (cmd, "%sm:%s", self->prefix, hash);
  _gg_redis_cmd_add (cmd, canonical);
  _gg_redis_cmd_add (cmd, "EX");
  _gg_redis_cmd_addf (cmd, "%d", MANIFEST_TTL_S);
  _gg_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_boolean);
}

static void
on_manifest (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  char *canonical = NULL;

  if (reply->type == REDIS_REPLY_STRING)
    {
      canonical = g_strndup (reply->str, reply->len);
      _gg_redis_manifest_remember (self, g_task_get_task_data (task), canonical);
    }
  g_task_return_pointer (task, canonical, g_free);
  g_object_unref (task);
}

static void
manifest_get (GgA2gStore *store, const char *hash,
              GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  RedisCmd *cmd = _gg_redis_cmd_new ("GETEX");

  g_task_set_task_data (task, g_strdup (hash), g_free);
  _gg_redis_cmd_addf (cmd, "%sm:%s", self->prefix, hash);
  _gg_redis_cmd_add (cmd, "EX");
  _gg_redis_cmd_addf (cmd, "%d", MANIFEST_TTL_S);
  _gg_redis_send (self, cmd, task, on_manifest);
}

/* ---- the object ------------------------------------------------------------ */

static void
gg_a2g_redis_store_finalize (GObject *object)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (object);
  redisAsyncContext *ac = self->ac;

  /* The benchmarks read this (round trips per decision). */
  g_debug ("a2g: %" G_GUINT64_FORMAT " commands sent to the shared store", self->commands);
  g_clear_handle_id (&self->tick_id, g_source_remove);
  g_clear_handle_id (&self->retry_id, g_source_remove);
  self->ac = NULL;
  if (ac != NULL)
    redisAsyncFree (ac);
  g_hash_table_unref (self->manifests);
  g_hash_table_unref (self->local);
  if (self->password != NULL)
    memset (self->password, 0, strlen (self->password));
  g_free (self->password);
  g_free (self->url);
  g_free (self->masked);
  g_free (self->unix_path);
  g_free (self->host);
  g_free (self->prefix);
  G_OBJECT_CLASS (gg_a2g_redis_store_parent_class)->finalize (object);
}

static void
gg_a2g_redis_store_class_init (GgA2gRedisStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_a2g_redis_store_finalize;
}

static void
gg_a2g_redis_store_init (GgA2gRedisStore *self)
{
  self->manifests = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) gg_a2g_manifest_unref);
  self->local = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) local_session_free);
  self->backoff_ms = BACKOFF_MIN_MS;
}

/**
 * gg_a2g_redis_store_new:
 * @url: a `redis` value checked with gg_a2g_redis_url_check()
 * @prefix: the keys' prefix
 * @timeout_ms: how long a command (or a connect) may take
 * @cache_entries: the game-wide cache index's bound per manifest
 * @cache_ttl_s: how long a cache entry lives
 *
 * Returns: (transfer full): a store connecting in the background
 */
GgA2gRedisStore *
gg_a2g_redis_store_new (const char *url,
                        const char *prefix,
                        gint64      timeout_ms,
                        guint       cache_entries,
                        gint64      cache_ttl_s)
{
  GgA2gRedisStore *self = g_object_new (GG_A2G_TYPE_REDIS_STORE, NULL);
  gboolean ok;

  ok = _gg_redis_url_parse (url, &self->unix_path, &self->host, &self->port, &self->password, NULL);
  g_return_val_if_fail (ok, self);
  self->url = g_strdup (url);
  self->masked = gg_a2g_redis_url_masked (url);
  self->prefix = g_strdup (prefix);
  self->timeout_ms = MAX (timeout_ms, 1);
  self->cache_max = MAX (cache_entries, 1);
  self->cache_ttl_ms = cache_ttl_s * 1000;
  for (guint i = 0; i < N_SCRIPTS; i++)
    if (_gg_a2g_redis_scripts[i].sha[0] == '\0')
      {
        g_autofree char *sha = g_compute_checksum_for_string (G_CHECKSUM_SHA1, _gg_a2g_redis_scripts[i].source, -1);
        memcpy (_gg_a2g_redis_scripts[i].sha, sha, 40);
      }
  self->tick_id = g_timeout_add (50, tick, self);
  connect_now (self);
  return self;
}

/** gg_a2g_redis_store_is_up: Returns: whether Redis answers now */
gboolean
gg_a2g_redis_store_is_up (GgA2gRedisStore *self)
{
  return self->up;
}

/** gg_a2g_redis_store_commands: Returns: the commands sent so far */
guint64
gg_a2g_redis_store_commands (GgA2gRedisStore *self)
{
  return self->commands;
}

static void
gg_a2g_redis_store_iface_init (GgA2gStoreInterface *iface)
{
  iface->manifest_put = manifest_put;
  iface->manifest_get = manifest_get;
  _gg_a2g_redis_sub_iface_init (iface);
  _gg_a2g_redis_cache_iface_init (iface);
  _gg_a2g_redis_session_iface_init (iface);
  _gg_a2g_redis_ops_iface_init (iface);
  _gg_a2g_redis_counters_iface_init (iface);
  _gg_a2g_redis_records_iface_init (iface);
}
