/* gg-a2g-redis-records.c: the Redis store's decision records and
 * request_id replays, in their session's keys (they expire with it).
 *
 * A decide request's records are written at once (record_put_many): one
 * script writes them all into `{s:<client>}:rec` (the records by decision
 * id) and `:recent` (each entity's latest ids, for memory), then the SETs
 * naming each decision's session (`d:<decision id>`, for other_session)
 * go out together without waiting for one another. A report is accepted
 * once across every replica (one script). A request_id's first claim
 * holds it (`SET NX`); a retry on any replica polls for its answer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <gamegate.h>

#include "gg-a2g-redis-private.h"

#define REPLAY_POLL_MS 20

/* A decide request's records at once. KEYS:
 * session, rec, recent; ARGV: max recent, then decision id, entity,
 * record JSON per record. Returns the session's TTL (ms), 0 without it. */
GgA2gRedisScript _gg_a2g_redis_script_record_put_many = {
  "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end\n"
  "local max = tonumber(ARGV[1]); local lists = {}\n"
  "for i = 2, #ARGV - 2, 3 do\n"
  "  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 2])\n"
  "  local ids = lists[ARGV[i + 1]]\n"
  "  if not ids then\n"
  "    local l = redis.call('HGET', KEYS[3], ARGV[i + 1])\n"
  "    if l then ids = cjson.decode(l) else ids = {} end\n"
  "    lists[ARGV[i + 1]] = ids\n"
  "  end\n"
  "  table.insert(ids, 1, ARGV[i])\n"
  "  while #ids > max do table.remove(ids) end\n"
  "end\n"
  "for entity, ids in pairs(lists) do redis.call('HSET', KEYS[3], entity, cjson.encode(ids)) end\n"
  "local ttl = redis.call('PTTL', KEYS[1])\n"
  "redis.call('PEXPIRE', KEYS[2], ttl); redis.call('PEXPIRE', KEYS[3], ttl)\n"
  "return ttl\n" };

/* KEYS: rec; ARGV: decision id, entity, outcome, has_reward, reward.
 * Returns -1 (not this session's), or a GgA2gReportResult. */
GgA2gRedisScript _gg_a2g_redis_script_record_report = {
  "local j = redis.call('HGET', KEYS[1], ARGV[1])\n"
  "if not j then return -1 end\n"
  "local r = cjson.decode(j)\n"
  "if r.entity ~= ARGV[2] then return 3 end\n"
  "if r.outcome then return 4 end\n"
  "r.outcome = ARGV[3]\n"
  "if ARGV[4] == '1' then r.reward = tonumber(ARGV[5]) end\n"
  "redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(r))\n"
  "return 0\n" };

/* KEYS: rec, recent; ARGV: entity, max. Returns the records' JSON, newest first. */
GgA2gRedisScript _gg_a2g_redis_script_record_recent = {
  "local l = redis.call('HGET', KEYS[2], ARGV[1])\n"
  "if not l then return {} end\n"
  "local ids = cjson.decode(l); local out = {}\n"
  "for i = 1, math.min(#ids, tonumber(ARGV[2])) do\n"
  "  local j = redis.call('HGET', KEYS[1], ids[i])\n"
  "  if j then table.insert(out, j) end\n"
  "end\n"
  "return out\n" };

/* KEYS: session, replay; ARGV: ttl ms. Returns 0 (claimed, or no live
 * session: nothing kept) or the value. */
GgA2gRedisScript _gg_a2g_redis_script_replay_claim = {
  "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end\n"
  "if redis.call('SET', KEYS[2], 'P', 'NX', 'PX', ARGV[1]) then return 0 end\n"
  "return redis.call('GET', KEYS[2])\n" };

/* KEYS: replay; ARGV: "" (give up) or "A" + answer. */
GgA2gRedisScript _gg_a2g_redis_script_replay_finish = {
  "if redis.call('GET', KEYS[1]) ~= 'P' then return 0 end\n"
  "if ARGV[1] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL') end\n"
  "return 1\n" };

/* ---- decision records ------------------------------------------------------ */

static char *
record_to_json (GgA2gRecord *record)
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
record_from_json (const char *text,
                  gsize       length)
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
record_task (GgA2gStore          *store,
             const char          *client_id,
             const char          *decision_id,
             GCancellable        *cancellable,
             GAsyncReadyCallback  callback,
             gpointer             user_data)
{
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  RecordOp *op = g_new0 (RecordOp, 1);

  op->client_id = g_strdup (client_id);
  op->decision_id = g_strdup (decision_id);
  g_task_set_task_data (task, op, (GDestroyNotify) record_op_free);
  return task;
}

static void
on_owner (GgA2gRedisStore *self,
          redisReply      *reply,
          GTask           *task)
{
  RecordOp *op = g_task_get_task_data (task);
  g_autofree char *owner = _gg_a2g_redis_reply_string (reply);

  (void) self;
  g_task_return_int (task, owner != NULL && strcmp (owner, op->client_id) != 0 ? GG_A2G_REPORT_OTHER_SESSION
                                                                                : GG_A2G_REPORT_UNKNOWN);
  g_object_unref (task);
}

static void
on_reported (GgA2gRedisStore *self,
             redisReply      *reply,
             GTask           *task)
{
  RecordOp *op = g_task_get_task_data (task);

  if (reply->type != REDIS_REPLY_INTEGER)
    {
      _gg_a2g_redis_task_fail (task);
      return;
    }
  if (reply->integer < 0)
    {
      GgA2gRedisCmd *cmd = _gg_a2g_redis_cmd_new ("GET");
      _gg_a2g_redis_cmd_addf (cmd, "%sd:%s", self->prefix, op->decision_id);
      _gg_a2g_redis_send (self, cmd, task, on_owner);
      return;
    }
  g_task_return_int (task, (gssize) reply->integer);
  g_object_unref (task);
}

static void
record_report (GgA2gStore          *store,
               const char          *client_id,
               const char          *decision_id,
               const char          *entity,
               const char          *outcome,
               gboolean             has_reward,
               double               reward,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_record_report, 1);
  g_autofree char *rec = _gg_a2g_redis_session_key (self, client_id, ":rec");
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  _gg_a2g_redis_cmd_add (cmd, rec);
  _gg_a2g_redis_cmd_add (cmd, decision_id);
  _gg_a2g_redis_cmd_add (cmd, entity);
  _gg_a2g_redis_cmd_add (cmd, outcome);
  _gg_a2g_redis_cmd_add (cmd, has_reward ? "1" : "0");
  _gg_a2g_redis_cmd_add (cmd, g_ascii_dtostr (number, sizeof number, reward));
  _gg_a2g_redis_send (self, cmd, record_task (store, client_id, decision_id, cancellable, callback, user_data),
                  on_reported);
}

static void
on_recent (GgA2gRedisStore *self,
           redisReply      *reply,
           GTask           *task)
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
record_recent (GgA2gStore          *store,
               const char          *client_id,
               const char          *entity,
               guint                max,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_record_recent, 2);
  g_autofree char *rec = _gg_a2g_redis_session_key (self, client_id, ":rec");
  g_autofree char *recent = _gg_a2g_redis_session_key (self, client_id, ":recent");

  _gg_a2g_redis_cmd_add (cmd, rec);
  _gg_a2g_redis_cmd_add (cmd, recent);
  _gg_a2g_redis_cmd_add (cmd, entity);
  _gg_a2g_redis_cmd_addf (cmd, "%u", max);
  _gg_a2g_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), on_recent);
}

typedef struct {
  char *client_id;
  GPtrArray *records;   /* GgA2gRecord */
} RecordsOp;

static void
records_op_free (RecordsOp *op)
{
  g_free (op->client_id);
  g_ptr_array_unref (op->records);
  g_free (op);
}

static void
on_records_put (GgA2gRedisStore *self,
                redisReply      *reply,
                GTask           *task)
{
  RecordsOp *op = g_task_get_task_data (task);
  gboolean ok = reply->type == REDIS_REPLY_INTEGER && reply->integer > 0;

  /* Who owns each decision id, for other_session: lives as long as the session. */
  for (guint i = 0; ok && i < op->records->len; i++)
    {
      GgA2gRecord *record = g_ptr_array_index (op->records, i);
      GgA2gRedisCmd *cmd = _gg_a2g_redis_cmd_new ("SET");

      _gg_a2g_redis_cmd_addf (cmd, "%sd:%s", self->prefix, record->decision_id);
      _gg_a2g_redis_cmd_add (cmd, op->client_id);
      _gg_a2g_redis_cmd_add (cmd, "PX");
      _gg_a2g_redis_cmd_addf (cmd, "%lld", reply->integer);
      _gg_a2g_redis_send (self, cmd, NULL, NULL);
    }
  g_task_return_boolean (task, ok);
  g_object_unref (task);
}

/* One script for a request's records; the owners' SETs go out together. */
static void
record_put_many (GgA2gStore          *store,
                 const char          *client_id,
                 GPtrArray           *records,
                 GCancellable        *cancellable,
                 GAsyncReadyCallback  callback,
                 gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_record_put_many, 3);
  g_autofree char *session = _gg_a2g_redis_key (self, "{s:%s}", client_id);
  g_autofree char *rec = _gg_a2g_redis_key (self, "{s:%s}:rec", client_id);
  g_autofree char *recent = _gg_a2g_redis_key (self, "{s:%s}:recent", client_id);
  RecordsOp *op = g_new0 (RecordsOp, 1);

  op->client_id = g_strdup (client_id);
  op->records = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_record_unref);
  g_task_set_task_data (task, op, (GDestroyNotify) records_op_free);
  _gg_a2g_redis_cmd_add (cmd, session);
  _gg_a2g_redis_cmd_add (cmd, rec);
  _gg_a2g_redis_cmd_add (cmd, recent);
  _gg_a2g_redis_cmd_addf (cmd, "%d", GG_A2G_STORE_RECENT_PER_ENTITY);
  for (guint i = 0; i < records->len; i++)
    {
      GgA2gRecord *record = g_ptr_array_index (records, i);
      g_autofree char *json = record_to_json (record);

      _gg_a2g_redis_cmd_add (cmd, record->decision_id);
      _gg_a2g_redis_cmd_add (cmd, record->entity);
      _gg_a2g_redis_cmd_add (cmd, json);
      g_ptr_array_add (op->records, gg_a2g_record_ref (record));
    }
  _gg_a2g_redis_send (self, cmd, task, on_records_put);
}

/* ---- request_id replays ---------------------------------------------------- */

typedef struct {
  char *session;   /* the replay lives in it */
  char *key;
  gint64 ttl_ms;
} Claim;

static void
claim_free (Claim *claim)
{
  g_free (claim->session);
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
on_claim (GgA2gRedisStore *self,
          redisReply      *reply,
          GTask           *task)
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
send_claim (GgA2gRedisStore *self,
            GTask           *task)
{
  Claim *claim = g_task_get_task_data (task);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_replay_claim, 2);

  _gg_a2g_redis_cmd_add (cmd, claim->session);
  _gg_a2g_redis_cmd_add (cmd, claim->key);
  _gg_a2g_redis_cmd_addf (cmd, "%" G_GINT64_FORMAT, claim->ttl_ms);
  _gg_a2g_redis_send (self, cmd, task, on_claim);
}

static void
replay_claim (GgA2gStore          *store,
              const char          *client_id,
              const char          *request_id,
              gint64               ttl_s,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  Claim *claim = g_new0 (Claim, 1);
  g_autofree char *suffix = g_strconcat (":rp:", request_id, NULL);

  claim->session = _gg_a2g_redis_session_key (self, client_id, "");
  claim->key = _gg_a2g_redis_session_key (self, client_id, suffix);
  claim->ttl_ms = MAX (ttl_s, 1) * 1000;
  g_task_set_task_data (task, claim, (GDestroyNotify) claim_free);
  send_claim (self, task);
}

static void
replay_finish (GgA2gStore          *store,
               const char          *client_id,
               const char          *request_id,
               GBytes              *answer,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_replay_finish, 1);
  g_autofree char *suffix = g_strconcat (":rp:", request_id, NULL);
  g_autofree char *key = _gg_a2g_redis_session_key (self, client_id, suffix);

  _gg_a2g_redis_cmd_add (cmd, key);
  if (answer == NULL)
    _gg_a2g_redis_cmd_add (cmd, "");
  else
    {
      gsize length;
      const char *data = g_bytes_get_data (answer, &length);
      g_autofree char *value = g_malloc (length + 1);

      value[0] = 'A';
      if (length > 0)
        memcpy (value + 1, data, length);
      _gg_a2g_redis_cmd_add_len (cmd, value, length + 1);
    }
  _gg_a2g_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), _gg_a2g_redis_reply_one);
}

/** _gg_a2g_redis_records_iface_init: @iface: the store interface to fill */
void
_gg_a2g_redis_records_iface_init (GgA2gStoreInterface *iface)
{
  iface->record_put_many = record_put_many;
  iface->record_report = record_report;
  iface->record_recent = record_recent;
  iface->replay_claim = replay_claim;
  iface->replay_finish = replay_finish;
}
