/* gg-a2g-redis-session.c: what the Redis store keeps per session: the
 * session and its tokens (opened, renewed and looked up in one script
 * each), its context, decision records (a report accepted once across
 * every replica), request_id replays (a retry on any replica waits for
 * the first answer) and telemetry with the situation derived from it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <gamegate.h>

#include "gg-a2g-redis-private.h"
#include "gg-a2g-situation.h"

#define MAX_RECENT GG_REDIS_MAX_RECENT
#define REPLAY_POLL_MS 20

static char *
skey (GgA2gRedisStore *self, const char *client_id, const char *suffix)
{
  return g_strdup_printf ("%s{s:%s}%s", self->prefix, client_id, suffix);
}

/* The per-session keys every session script renews: session, rec, recent, tel. */
static void
add_session_keys (GgA2gRedisStore *self, RedisCmd *cmd, const char *client_id)
{
  static const char *suffixes[] = { "", ":rec", ":recent", ":tel" };

  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *key = skey (self, client_id, suffixes[i]);
      _gg_redis_cmd_add (cmd, key);
    }
}

static char *
reply_string (redisReply *reply)
{
  return reply != NULL && reply->type == REDIS_REPLY_STRING ? g_strndup (reply->str, reply->len) : NULL;
}

static GgA2gSession *
snapshot_new (const char *client_id, const char *id, const char *game, const char *manifest_hash,
              const char *token, gint64 ttl_s, GgA2gContext *context)
{
  GgA2gSession *session = g_new0 (GgA2gSession, 1);

  g_atomic_ref_count_init (&session->ref);
  session->client_id = g_strdup (client_id);
  session->id = g_strdup (id);
  session->game = g_strdup (game);
  session->manifest_hash = g_strdup (manifest_hash);
  session->token = g_strdup (token);
  session->ttl_s = ttl_s;
  session->context = context;
  return session;
}

/* ---- open, renew, look up -------------------------------------------------- */

typedef struct {
  char *client_id;
  char *game;
  char *manifest_hash;
  char *token;
  gint64 ttl_s;
  gint64 grace_s;
} Open;

static void
open_free (Open *open)
{
  g_free (open->client_id);
  g_free (open->game);
  g_free (open->manifest_hash);
  if (open->token != NULL)
    memset (open->token, 0, strlen (open->token));
  g_free (open->token);
  g_free (open);
}

static void
on_opened (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  Open *open = g_task_get_task_data (task);
  g_autofree char *id = NULL, *previous = NULL, *context = NULL;
  GgA2gSession *session;

  if (reply->type != REDIS_REPLY_ARRAY || reply->elements < 2)
    {
      _gg_redis_task_fail (task);
      return;
    }
  id = reply_string (reply->element[0]);
  previous = reply_string (reply->element[1]);
  context = reply->elements > 2 ? reply_string (reply->element[2]) : NULL;
  session = snapshot_new (open->client_id, id, open->game, open->manifest_hash, open->token, open->ttl_s,
                          _gg_redis_context_build (self, open->manifest_hash, context));
  _gg_redis_local_session_put (self, session, previous != NULL && previous[0] != '\0' ? previous : NULL,
                               open->grace_s);
  if (previous != NULL)
    memset (previous, 0, strlen (previous));
  g_task_return_pointer (task, session, (GDestroyNotify) gg_a2g_session_unref);
  g_object_unref (task);
}

static void
session_open (GgA2gStore *store, const char *client_id, const char *game, const char *manifest_hash,
              gint64 ttl_s, gint64 grace_s,
              GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  Open *open = g_new0 (Open, 1);
  RedisCmd *cmd = _gg_redis_script_new (SCRIPT_SESSION_OPEN, 5);
  g_autofree char *hex = gg_secure_token_hex (16, NULL);
  g_autofree char *id = gg_secure_token_hex (8, NULL);
  g_autofree char *sessions = _gg_redis_key (self, "sessions");

  open->client_id = g_strdup (client_id);
  open->game = g_strdup (game);
  open->manifest_hash = g_strdup (manifest_hash);
  open->token = g_strconcat ("s_", hex, NULL);    /* 128 random bits (getrandom) */
  memset (hex, 0, strlen (hex));
  open->ttl_s = ttl_s;
  open->grace_s = grace_s;
  g_task_set_task_data (task, open, (GDestroyNotify) open_free);
  add_session_keys (self, cmd, client_id);
  _gg_redis_cmd_add (cmd, sessions);
  _gg_redis_cmd_add (cmd, game);
  _gg_redis_cmd_add (cmd, manifest_hash);
  _gg_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, ttl_s);
  _gg_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, grace_s);
  _gg_redis_cmd_add (cmd, open->token);
  _gg_redis_cmd_add (cmd, id);
  _gg_redis_cmd_add (cmd, client_id);
  _gg_redis_send (self, cmd, task, on_opened);
}

typedef struct {
  char *client_id;
  char *fields[6];        /* id, game, mh, token, ttl, ctx */
} Lookup;

static void
lookup_free (Lookup *lookup)
{
  g_free (lookup->client_id);
  for (guint i = 0; i < G_N_ELEMENTS (lookup->fields); i++)
    g_free (lookup->fields[i]);
  g_free (lookup);
}

static void
lookup_complete (GgA2gRedisStore *self, GTask *task)
{
  Lookup *lookup = g_task_get_task_data (task);
  GgA2gSession *session;

  session = snapshot_new (lookup->client_id, lookup->fields[0], lookup->fields[1], lookup->fields[2],
                          lookup->fields[3], g_ascii_strtoll (lookup->fields[4] != NULL ? lookup->fields[4] : "0", NULL, 10),
                          _gg_redis_context_build (self, lookup->fields[2], lookup->fields[5]));
  _gg_redis_local_session_put (self, session, NULL, 0);
  g_task_return_pointer (task, session, (GDestroyNotify) gg_a2g_session_unref);
  g_object_unref (task);
}

static void
on_lookup_manifest (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  Lookup *lookup = g_task_get_task_data (task);
  g_autofree char *canonical = reply_string (reply);

  if (canonical != NULL)
    _gg_redis_manifest_remember (self, lookup->fields[2], canonical);
  lookup_complete (self, task);
}

static void
on_looked_up (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  Lookup *lookup = g_task_get_task_data (task);
  RedisCmd *cmd;

  if (reply->type == REDIS_REPLY_INTEGER)
    {
      if (reply->integer == 0)
        g_task_return_new_error (task, GG_A2G_ERROR, GG_A2G_ERROR_UNKNOWN_SESSION,
                                 "Unknown session: open one with /v1/session.");
      else
        g_task_return_new_error (task, GG_A2G_ERROR, GG_A2G_ERROR_UNAUTHORIZED,
                                 "Missing, invalid or expired session token.");
      g_object_unref (task);
      return;
    }
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements < 5)
    {
      _gg_redis_task_fail (task);
      return;
    }
  for (size_t i = 0; i < reply->elements && i < G_N_ELEMENTS (lookup->fields); i++)
    lookup->fields[i] = reply_string (reply->element[i]);
  if (lookup->fields[2] == NULL || gg_a2g_redis_store_lookup_manifest (self, lookup->fields[2]) != NULL)
    {
      lookup_complete (self, task);
      return;
    }
  /* Opened on another replica: its manifest is read once, here. */
  cmd = _gg_redis_cmd_new ("GET");
  _gg_redis_cmd_addf (cmd, "%sm:%s", self->prefix, lookup->fields[2]);
  _gg_redis_send (self, cmd, task, on_lookup_manifest);
}

static void
session_lookup (GgA2gStore *store, const char *client_id, const char *token,
                GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  Lookup *lookup;
  RedisCmd *cmd;
  g_autofree char *sessions = NULL, *sub = NULL;

  if (token == NULL)
    {
      g_task_return_new_error (task, GG_A2G_ERROR, GG_A2G_ERROR_UNAUTHORIZED,
                               "Missing, invalid or expired session token.");
      g_object_unref (task);
      return;
    }
  if (!gg_a2g_redis_store_is_up (self))
    {
      /* Degraded: a session this replica saw stays usable, so that its
       * decisions fall back (busy) instead of the whole request failing. */
      GgA2gSession *session = _gg_redis_local_session_get (self, client_id, token);

      if (session != NULL)
        g_task_return_pointer (task, session, (GDestroyNotify) gg_a2g_session_unref);
      else
        g_task_return_new_error (task, GG_A2G_ERROR, GG_A2G_ERROR_UNAVAILABLE, "The shared store is unreachable.");
      g_object_unref (task);
      return;
    }
  lookup = g_new0 (Lookup, 1);
  lookup->client_id = g_strdup (client_id);
  g_task_set_task_data (task, lookup, (GDestroyNotify) lookup_free);
  sessions = _gg_redis_key (self, "sessions");
  sub = skey (self, client_id, ":sub");
  cmd = _gg_redis_script_new (SCRIPT_SESSION_LOOKUP, 6);
  add_session_keys (self, cmd, client_id);
  _gg_redis_cmd_add (cmd, sessions);
  _gg_redis_cmd_add (cmd, sub);
  _gg_redis_cmd_add (cmd, token);
  _gg_redis_cmd_add (cmd, client_id);
  _gg_redis_send (self, cmd, task, on_looked_up);
}

static void
on_context_set (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  (void) self;
  if (reply->type == REDIS_REPLY_INTEGER && reply->integer == 1)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_new_error (task, GG_A2G_ERROR, GG_A2G_ERROR_UNKNOWN_SESSION,
                             "Unknown session: open one with /v1/session.");
  g_object_unref (task);
}

static void
session_set_context (GgA2gStore *store, const char *client_id, GgA2gContext *context,
                     GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  RedisCmd *cmd = _gg_redis_script_new (SCRIPT_SESSION_CONTEXT, 1);
  g_autofree char *key = skey (self, client_id, "");
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), context->state);
  g_autofree char *state = json_to_string (node, FALSE);

  _gg_redis_cmd_add (cmd, key);
  _gg_redis_cmd_add (cmd, state);
  _gg_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_context_set);
}

static void
on_count (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  (void) self;
  g_task_return_int (task, reply->type == REDIS_REPLY_INTEGER ? (gssize) reply->integer : 0);
  g_object_unref (task);
}

static void
session_count (GgA2gStore *store,
               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  RedisCmd *cmd = _gg_redis_script_new (SCRIPT_SESSION_COUNT, 1);
  g_autofree char *sessions = _gg_redis_key (self, "sessions");

  _gg_redis_cmd_add (cmd, sessions);
  _gg_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_count);
}

/* ---- decision records ------------------------------------------------------ */

char *
_gg_redis_record_to_json (GgA2gRecord *record)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonNode) node = NULL;

  json_object_set_string_member (object, "decision_id", record->decision_id);
  json_object_set_string_member (object, "entity", record->entity);
  json_object_set_string_member (object, "type", record->type);
  json_object_set_string_member (object, "action", record->action);
  json_object_set_int_member (object, "confidence", record->confidence);
  if (record->reason != NULL)
    json_object_set_string_member (object, "reason", record->reason);
  if (record->situation_key != NULL)
    json_object_set_string_member (object, "situation_key", record->situation_key);
  if (record->outcome != NULL)
    json_object_set_string_member (object, "outcome", record->outcome);
  if (record->has_reward)
    json_object_set_double_member (object, "reward", record->reward);
  node = json_node_init_object (json_node_alloc (), object);
  return json_to_string (node, FALSE);
}

static GgA2gRecord *
record_from_json (const char *text, gsize length)
{
  g_autoptr(JsonNode) node = gg_json_parse (text, (gssize) length, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  JsonObject *object;
  GgA2gRecord *record;
  JsonNode *reward;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  object = json_node_get_object (node);
  record = gg_a2g_record_new ();
  record->decision_id = g_strdup (json_object_get_string_member_with_default (object, "decision_id", ""));
  record->entity = g_strdup (json_object_get_string_member_with_default (object, "entity", ""));
  record->type = g_strdup (json_object_get_string_member_with_default (object, "type", ""));
  record->action = g_strdup (json_object_get_string_member_with_default (object, "action", ""));
  /* cjson (in the report script) writes every number as a double. */
  record->confidence = (gint64) json_object_get_double_member_with_default (object, "confidence", 0);
  record->reason = g_strdup (json_object_get_string_member_with_default (object, "reason", NULL));
  record->situation_key = g_strdup (json_object_get_string_member_with_default (object, "situation_key", NULL));
  record->outcome = g_strdup (json_object_get_string_member_with_default (object, "outcome", NULL));
  reward = json_object_get_member (object, "reward");
  if (reward != NULL && JSON_NODE_HOLDS_VALUE (reward))
    {
      record->has_reward = TRUE;
      record->reward = json_node_get_double (reward);
    }
  return record;
}

typedef struct {
  char *client_id;
  char *decision_id;
} RecordOp;

static void
record_op_free (RecordOp *op)
{
  g_free (op->client_id);
  g_free (op->decision_id);
  g_free (op);
}

static GTask *
record_task (GgA2gStore *store, const char *client_id, const char *decision_id,
             GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  RecordOp *op = g_new0 (RecordOp, 1);

  op->client_id = g_strdup (client_id);
  op->decision_id = g_strdup (decision_id);
  g_task_set_task_data (task, op, (GDestroyNotify) record_op_free);
  return task;
}

static void
on_owner (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  RecordOp *op = g_task_get_task_data (task);
  g_autofree char *owner = reply_string (reply);

  (void) self;
  g_task_return_int (task, owner != NULL && strcmp (owner, op->client_id) != 0 ? GG_A2G_REPORT_OTHER_SESSION
                                                                                : GG_A2G_REPORT_UNKNOWN);
  g_object_unref (task);
}

static void
on_reported (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  RecordOp *op = g_task_get_task_data (task);

  if (reply->type != REDIS_REPLY_INTEGER)
    {
      _gg_redis_task_fail (task);
      return;
    }
  if (reply->integer < 0)
    {
      RedisCmd *cmd = _gg_redis_cmd_new ("GET");
      _gg_redis_cmd_addf (cmd, "%sd:%s", self->prefix, op->decision_id);
      _gg_redis_send (self, cmd, task, on_owner);
      return;
    }
  g_task_return_int (task, (gssize) reply->integer);
  g_object_unref (task);
}

static void
record_report (GgA2gStore *store, const char *client_id, const char *decision_id, const char *entity,
               const char *outcome, gboolean has_reward, double reward,
               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  RedisCmd *cmd = _gg_redis_script_new (SCRIPT_RECORD_REPORT, 1);
  g_autofree char *rec = skey (self, client_id, ":rec");
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  _gg_redis_cmd_add (cmd, rec);
  _gg_redis_cmd_add (cmd, decision_id);
  _gg_redis_cmd_add (cmd, entity);
  _gg_redis_cmd_add (cmd, outcome);
  _gg_redis_cmd_add (cmd, has_reward ? "1" : "0");
  _gg_redis_cmd_add (cmd, g_ascii_dtostr (number, sizeof number, reward));
  _gg_redis_send (self, cmd, record_task (store, client_id, decision_id, cancellable, callback, user_data),
                  on_reported);
}

static void
on_recent (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  GPtrArray *records = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_record_unref);

  (void) self;
  for (size_t i = 0; reply->type == REDIS_REPLY_ARRAY && i < reply->elements; i++)
    if (reply->element[i]->type == REDIS_REPLY_STRING)
      {
        GgA2gRecord *record = record_from_json (reply->element[i]->str, reply->element[i]->len);
        if (record != NULL)
          g_ptr_array_add (records, record);
      }
  g_task_return_pointer (task, records, (GDestroyNotify) g_ptr_array_unref);
  g_object_unref (task);
}

static void
record_recent (GgA2gStore *store, const char *client_id, const char *entity, guint max,
               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  RedisCmd *cmd = _gg_redis_script_new (SCRIPT_RECORD_RECENT, 2);
  g_autofree char *rec = skey (self, client_id, ":rec");
  g_autofree char *recent = skey (self, client_id, ":recent");

  _gg_redis_cmd_add (cmd, rec);
  _gg_redis_cmd_add (cmd, recent);
  _gg_redis_cmd_add (cmd, entity);
  _gg_redis_cmd_addf (cmd, "%u", max);
  _gg_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_recent);
}

/* ---- request_id replays ---------------------------------------------------- */

typedef struct {
  char *key;
  gint64 ttl_ms;
} Claim;

static void
claim_free (Claim *claim)
{
  g_free (claim->key);
  g_free (claim);
}

static void send_claim (GgA2gRedisStore *self, GTask *task);

static gboolean
claim_again (gpointer user_data)
{
  GTask *task = user_data;

  send_claim (GG_A2G_REDIS_STORE (g_task_get_source_object (task)), task);
  return G_SOURCE_REMOVE;
}

static void
on_claim (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  (void) self;
  if (reply->type == REDIS_REPLY_STRING && reply->len == 1 && reply->str[0] == 'P')
    {
      /* Another replica (or request) holds it: wait for its answer. */
      if (g_task_return_error_if_cancelled (task))
        g_object_unref (task);
      else
        g_timeout_add (REPLAY_POLL_MS, claim_again, task);
      return;
    }
  if (reply->type == REDIS_REPLY_STRING && reply->len >= 1 && reply->str[0] == 'A')
    g_task_return_pointer (task, g_bytes_new (reply->str + 1, reply->len - 1), (GDestroyNotify) g_bytes_unref);
  else
    g_task_return_pointer (task, NULL, NULL);
  g_object_unref (task);
}

static void
send_claim (GgA2gRedisStore *self, GTask *task)
{
  Claim *claim = g_task_get_task_data (task);
  RedisCmd *cmd = _gg_redis_script_new (SCRIPT_REPLAY_CLAIM, 1);

  _gg_redis_cmd_add (cmd, claim->key);
  _gg_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, claim->ttl_ms);
  _gg_redis_send (self, cmd, task, on_claim);
}

static void
replay_claim (GgA2gStore *store, const char *client_id, const char *request_id, gint64 ttl_s,
              GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  Claim *claim = g_new0 (Claim, 1);
  g_autofree char *suffix = g_strconcat (":rp:", request_id, NULL);

  claim->key = skey (self, client_id, suffix);
  claim->ttl_ms = MAX (ttl_s, 1) * 1000;
  g_task_set_task_data (task, claim, (GDestroyNotify) claim_free);
  send_claim (self, task);
}

static void
on_boolean (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  (void) self;
  g_task_return_boolean (task, reply->type == REDIS_REPLY_INTEGER && reply->integer == 1);
  g_object_unref (task);
}

static void
replay_finish (GgA2gStore *store, const char *client_id, const char *request_id, GBytes *answer,
               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  RedisCmd *cmd = _gg_redis_script_new (SCRIPT_REPLAY_FINISH, 1);
  g_autofree char *suffix = g_strconcat (":rp:", request_id, NULL);
  g_autofree char *key = skey (self, client_id, suffix);

  _gg_redis_cmd_add (cmd, key);
  if (answer == NULL)
    _gg_redis_cmd_add (cmd, "");
  else
    {
      gsize length;
      const char *data = g_bytes_get_data (answer, &length);
      g_autofree char *value = g_malloc (length + 1);

      value[0] = 'A';
      if (length > 0)
        memcpy (value + 1, data, length);
      _gg_redis_cmd_add_len (cmd, value, length + 1);
    }
  _gg_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_boolean);
}

/* ---- telemetry ------------------------------------------------------------- */

static char *
telemetry_to_json (GgA2gTelemetry *entry)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonNode) node = NULL;

  json_object_set_string_member (object, "entity", entry->entity);
  if (entry->type != NULL)
    json_object_set_string_member (object, "type", entry->type);
  if (entry->faction != NULL)
    json_object_set_string_member (object, "faction", entry->faction);
  if (entry->has_pos)
    {
      JsonArray *pos = json_array_new ();

      for (guint d = 0; d < entry->dims && d < 3; d++)
        json_array_add_double_element (pos, entry->pos[d]);
      json_object_set_array_member (object, "pos", pos);
    }
  if (entry->scalars != NULL)
    json_object_set_object_member (object, "scalars", json_object_ref (entry->scalars));
  node = json_node_init_object (json_node_alloc (), object);
  return json_to_string (node, FALSE);
}

static GgA2gTelemetry *
telemetry_from_json (const char *text, gsize length)
{
  g_autoptr(JsonNode) node = gg_json_parse (text, (gssize) length, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  GgA2gTelemetry *entry;
  JsonObject *object;
  JsonNode *member;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  object = json_node_get_object (node);
  entry = g_new0 (GgA2gTelemetry, 1);
  entry->entity = g_strdup (json_object_get_string_member_with_default (object, "entity", ""));
  entry->type = g_strdup (json_object_get_string_member_with_default (object, "type", NULL));
  entry->faction = g_strdup (json_object_get_string_member_with_default (object, "faction", NULL));
  member = json_object_get_member (object, "pos");
  if (member != NULL && JSON_NODE_HOLDS_ARRAY (member))
    {
      JsonArray *pos = json_node_get_array (member);

      entry->has_pos = TRUE;
      entry->dims = MIN (json_array_get_length (pos), 3);
      for (guint d = 0; d < entry->dims; d++)
        entry->pos[d] = json_array_get_double_element (pos, d);
    }
  member = json_object_get_member (object, "scalars");
  if (member != NULL && JSON_NODE_HOLDS_OBJECT (member))
    entry->scalars = json_object_ref (json_node_get_object (member));
  return entry;
}

static void
on_kept (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  (void) self;
  g_task_return_int (task, reply->type == REDIS_REPLY_INTEGER ? (gssize) reply->integer : 0);
  g_object_unref (task);
}

static void
telemetry_put (GgA2gStore *store, const char *client_id, GPtrArray *entries, guint max_tracked,
               GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  RedisCmd *cmd = _gg_redis_script_new (SCRIPT_TELEMETRY_PUT, 2);
  g_autofree char *session = skey (self, client_id, "");
  g_autofree char *tel = skey (self, client_id, ":tel");

  _gg_redis_cmd_add (cmd, session);
  _gg_redis_cmd_add (cmd, tel);
  _gg_redis_cmd_addf (cmd, "%u", max_tracked);
  for (guint i = 0; i < entries->len; i++)
    {
      GgA2gTelemetry *entry = g_ptr_array_index (entries, i);
      g_autofree char *json = telemetry_to_json (entry);

      _gg_redis_cmd_add (cmd, entry->entity);
      _gg_redis_cmd_add (cmd, json);
    }
  _gg_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_kept);
}

typedef struct {
  char *entity;
  double radius;
} Situation;

static void
situation_free (Situation *situation)
{
  g_free (situation->entity);
  g_free (situation);
}

static void
on_telemetry (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  Situation *situation = g_task_get_task_data (task);
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_telemetry_free);

  (void) self;
  /* HGETALL: field, value, field, value… */
  for (size_t i = 1; reply->type == REDIS_REPLY_ARRAY && i < reply->elements; i += 2)
    if (reply->element[i]->type == REDIS_REPLY_STRING)
      {
        GgA2gTelemetry *entry = telemetry_from_json (reply->element[i]->str, reply->element[i]->len);
        if (entry != NULL)
          g_ptr_array_add (entries, entry);
      }
  g_task_return_pointer (task, gg_a2g_situation_build (entries, situation->entity, situation->radius),
                         (GDestroyNotify) json_object_unref);
  g_object_unref (task);
}

static void
situation (GgA2gStore *store, const char *client_id, const char *entity, double radius,
           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  Situation *data = g_new0 (Situation, 1);
  RedisCmd *cmd = _gg_redis_cmd_new ("HGETALL");
  g_autofree char *tel = skey (self, client_id, ":tel");

  data->entity = g_strdup (entity);
  data->radius = radius;
  g_task_set_task_data (task, data, (GDestroyNotify) situation_free);
  _gg_redis_cmd_add (cmd, tel);
  _gg_redis_send (self, cmd, task, on_telemetry);
}

void
_gg_a2g_redis_session_iface_init (GgA2gStoreInterface *iface)
{
  iface->session_open = session_open;
  iface->session_lookup = session_lookup;
  iface->session_set_context = session_set_context;
  iface->session_count = session_count;
  iface->record_report = record_report;
  iface->record_recent = record_recent;
  iface->replay_claim = replay_claim;
  iface->replay_finish = replay_finish;
  iface->telemetry_put = telemetry_put;
  iface->situation = situation;
}
