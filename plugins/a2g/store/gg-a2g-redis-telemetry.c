/* gg-a2g-redis-telemetry.c: the Redis store's telemetry: each session's
 * latest entry per entity as JSON in `{s:<client>}:tel` (at most
 * `max-tracked-entities`, one script), and the situation context derived
 * from it, within that session only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gamegate.h>

#include "gg-a2g-redis-private.h"
#include "gg-a2g-situation.h"

/* KEYS: session, tel; ARGV: max tracked, then entity, JSON pairs. Returns the kept count. */
GgA2gRedisScript _gg_a2g_redis_script_telemetry_put = {
  "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end\n"
  "local max = tonumber(ARGV[1]); local n = redis.call('HLEN', KEYS[2]); local kept = 0\n"
  "for i = 2, #ARGV, 2 do\n"
  "  if n < max or redis.call('HEXISTS', KEYS[2], ARGV[i]) == 1 then\n"
  "    if redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) == 1 then n = n + 1 end\n"
  "    kept = kept + 1\n"
  "  end\n"
  "end\n"
  "redis.call('PEXPIRE', KEYS[2], redis.call('PTTL', KEYS[1]))\n"
  "return kept\n" };

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
telemetry_from_json (const char *text,
                     gsize       length)
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
telemetry_put (GgA2gStore          *store,
               const char          *client_id,
               GPtrArray           *entries,
               guint                max_tracked,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_script_new (&_gg_a2g_redis_script_telemetry_put, 2);
  g_autofree char *session = _gg_a2g_redis_session_key (self, client_id, "");
  g_autofree char *tel = _gg_a2g_redis_session_key (self, client_id, ":tel");

  _gg_a2g_redis_cmd_add (cmd, session);
  _gg_a2g_redis_cmd_add (cmd, tel);
  _gg_a2g_redis_cmd_addf (cmd, "%u", max_tracked);
  for (guint i = 0; i < entries->len; i++)
    {
      GgA2gTelemetry *entry = g_ptr_array_index (entries, i);
      g_autofree char *json = telemetry_to_json (entry);

      _gg_a2g_redis_cmd_add (cmd, entry->entity);
      _gg_a2g_redis_cmd_add (cmd, json);
    }
  _gg_a2g_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), _gg_a2g_redis_reply_count);
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
on_telemetry (GgA2gRedisStore *self,
              redisReply      *reply,
              GTask           *task)
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
telemetry_situation (GgA2gStore          *store,
                     const char          *client_id,
                     const char          *entity,
                     double               radius,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  Situation *data = g_new0 (Situation, 1);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_cmd_new ("HGETALL");
  g_autofree char *tel = _gg_a2g_redis_session_key (self, client_id, ":tel");

  data->entity = g_strdup (entity);
  data->radius = radius;
  g_task_set_task_data (task, data, (GDestroyNotify) situation_free);
  _gg_a2g_redis_cmd_add (cmd, tel);
  _gg_a2g_redis_send (self, cmd, task, on_telemetry);
}

/** _gg_a2g_redis_telemetry_iface_init: @iface: the store interface to fill */
void
_gg_a2g_redis_telemetry_iface_init (GgA2gStoreInterface *iface)
{
  iface->telemetry_put = telemetry_put;
  iface->telemetry_situation = telemetry_situation;
}
