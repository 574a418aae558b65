/* gg-a2g-redis-records.c: the Redis store's decision records of a whole
 * decide request at once (record_put_many): one script writes them all
 * into the session's keys (`{s:<client>}:rec`, the records by decision id,
 * and `:recent`, each entity's latest ids, which gg-a2g-redis-session.c
 * reads for reports and memory), then the SETs naming each decision's
 * session (`d:<decision id>`) go out together without waiting for one
 * another.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-redis-private.h"

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
on_records_put (GgA2gRedisStore *self, redisReply *reply, GTask *task)
{
  RecordsOp *op = g_task_get_task_data (task);
  gboolean ok = reply->type == REDIS_REPLY_INTEGER && reply->integer > 0;

  /* Who owns each decision id, for other_session: lives as long as the session. */
  for (guint i = 0; ok && i < op->records->len; i++)
    {
      GgA2gRecord *record = g_ptr_array_index (op->records, i);
      RedisCmd *cmd = _gg_redis_cmd_new ("SET");

      _gg_redis_cmd_addf (cmd, "%sd:%s", self->prefix, record->decision_id);
      _gg_redis_cmd_add (cmd, op->client_id);
      _gg_redis_cmd_add (cmd, "PX");
      _gg_redis_cmd_addf (cmd, "%lld", reply->integer);
      _gg_redis_send (self, cmd, NULL, NULL);
    }
  g_task_return_boolean (task, ok);
  g_object_unref (task);
}

/* One script for a request's records; the owners' SETs go out together. */
static void
record_put_many (GgA2gStore *store, const char *client_id, GPtrArray *records,
                 GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  RedisCmd *cmd = _gg_redis_script_new (SCRIPT_RECORD_PUT_MANY, 3);
  g_autofree char *session = _gg_redis_key (self, "{s:%s}", client_id);
  g_autofree char *rec = _gg_redis_key (self, "{s:%s}:rec", client_id);
  g_autofree char *recent = _gg_redis_key (self, "{s:%s}:recent", client_id);
  RecordsOp *op = g_new0 (RecordsOp, 1);

  op->client_id = g_strdup (client_id);
  op->records = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_record_unref);
  g_task_set_task_data (task, op, (GDestroyNotify) records_op_free);
  _gg_redis_cmd_add (cmd, session);
  _gg_redis_cmd_add (cmd, rec);
  _gg_redis_cmd_add (cmd, recent);
  _gg_redis_cmd_addf (cmd, "%d", GG_REDIS_MAX_RECENT);
  for (guint i = 0; i < records->len; i++)
    {
      GgA2gRecord *record = g_ptr_array_index (records, i);
      g_autofree char *json = _gg_redis_record_to_json (record);

      _gg_redis_cmd_add (cmd, record->decision_id);
      _gg_redis_cmd_add (cmd, record->entity);
      _gg_redis_cmd_add (cmd, json);
      g_ptr_array_add (op->records, gg_a2g_record_ref (record));
    }
  _gg_redis_send (self, cmd, task, on_records_put);
}

void
_gg_a2g_redis_records_iface_init (GgA2gStoreInterface *iface)
{
  iface->record_put_many = record_put_many;
}
