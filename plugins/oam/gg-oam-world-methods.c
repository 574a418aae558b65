/* gg-oam-world-methods.c: the world methods (spec section 6, "World state"): the
 * client's world blackboards, subscriptions and world/changed. World methods
 * are synchronous and atomic; the notifications a change causes are sent
 * before its response, one per changed leaf and matching subscription.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-oam-connection.h"
#include "gg-oam-errors.h"
#include "gg-oam-npc.h"
#include "gg-oam-params.h"
#include "gg-oam-world.h"

typedef struct {
  char *id;
  char *world;
  char *path;
} Subscription;

/**
 * gg_oam_subscription_free:
 * @data: a subscription
 */
void
gg_oam_subscription_free (gpointer data)
{
  Subscription *sub = data;

  g_free (sub->id);
  g_free (sub->world);
  g_free (sub->path);
  g_free (sub);
}

static GError *
world_error (const char   *world,
             const char   *path,
             const GError *cause)
{
  g_autoptr(JsonObject) data = json_object_new ();
  g_autofree char *shown = NULL;

  json_object_set_string_member (data, "world", world);
  json_object_set_string_member (data, "path", path);
  /* data.path has it whole; a hostile 800 KB path need not be in the
   * message too. */
  if (g_utf8_strlen (path, -1) > 80)
    {
      g_autofree char *start = g_utf8_substring (path, 0, 64);
      shown = g_strconcat (start, "...", NULL);
    }
  return gg_oam_error_new (GG_OAM_WORLD_ERROR, data, "World '%s', path '%s': %s", world,
                           shown != NULL ? shown : path, cause->message);
}

static JsonObject *
result_object (GgOamWorld *world)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "world", gg_oam_world_get_id (world));
  return object;
}

static void
return_object (GgJsonRpcRequest *request,
               JsonObject       *object)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, object);
  gg_jsonrpc_request_return_result (request, node);
}

/**
 * gg_oam_connection_lookup_world:
 * @conn: a connection
 * @id: a world id
 * @error: -32052 with `data.world` when there is none
 *
 * Returns: (transfer none): the world, or %NULL
 */
GgOamWorld *
gg_oam_connection_lookup_world (GgOamConnection *conn,
                                const char      *id,
                                GError         **error)
{
  GgOamWorld *world = g_hash_table_lookup (conn->worlds, id);

  if (world == NULL)
    g_propagate_error (error, gg_oam_error_new_member (GG_OAM_WORLD_NOT_FOUND, "world", id,
                                                       "World '%s' not found", id));
  return world;
}

static GgOamWorld *
lookup (GgOamConnection *conn,
        JsonObject      *params,
        GError         **error)
{
  const char *id;

  if (!gg_oam_param_string (params, NULL, "world", TRUE, &id, error))
    return NULL;
  return gg_oam_connection_lookup_world (conn, id, error);
}

static void
on_world_changed (GgOamWorld *world,
                  const char *path,
                  JsonNode   *old_value,
                  JsonNode   *new_value,
                  gpointer    user_data)
{
  GgOamConnection *conn = user_data;
  const char *world_id = gg_oam_world_get_id (world);

  /* Only the world this client still has under that id. */
  if (g_hash_table_lookup (conn->worlds, world_id) != world)
    return;
  for (guint i = 0; i < conn->subscription_order->len; i++)
    {
      Subscription *sub = g_hash_table_lookup (conn->subscriptions,
                                               g_ptr_array_index (conn->subscription_order, i));
      g_autoptr(JsonObject) params = NULL;

      if (sub == NULL || !g_str_equal (sub->world, world_id) ||
          !gg_oam_path_is_related (sub->path, path))
        continue;
      params = json_object_new ();
      json_object_set_string_member (params, "world", world_id);
      json_object_set_string_member (params, "subscription", sub->id);
      json_object_set_string_member (params, "path", path);
      if (old_value != NULL)
        json_object_set_member (params, "oldValue", json_node_copy (old_value));
      if (new_value != NULL)
        json_object_set_member (params, "newValue", json_node_copy (new_value));
      gg_oam_connection_notify (conn, "world/changed", params);
    }
}

static void
world_create (GgOamConnection  *conn,
              GgJsonRpcRequest *request,
              JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgOamWorld) world = NULL;
  g_autofree char *generated = NULL;
  JsonObject *state, *object;
  const char *id;

  if (!gg_oam_param_id (params, NULL, "world", FALSE, &id, &error) ||
      !gg_oam_param_object (params, NULL, "state", FALSE, &state, &error))
    goto fail;
  if (id != NULL && g_hash_table_contains (conn->worlds, id))
    {
      error = gg_oam_error_new_member (GG_OAM_WORLD_EXISTS, "world", id, "World '%s' already exists", id);
      goto fail;
    }
  if ((gint64) g_hash_table_size (conn->worlds) >= conn->settings.max_worlds)
    {
      error = gg_oam_error_limit (GG_OAM_LIMIT_REACHED, conn->settings.max_worlds,
                                  "Too many worlds (the limit is %" G_GINT64_FORMAT ")",
                                  conn->settings.max_worlds);
      goto fail;
    }
  if (id == NULL)
    {
      do
        {
          g_free (generated);
          generated = g_strdup_printf ("w%" G_GUINT64_FORMAT, ++conn->next_world);
        }
      while (g_hash_table_contains (conn->worlds, generated));
      id = generated;
    }
  world = gg_oam_world_new (id, state);
  g_signal_connect_object (world, "changed", G_CALLBACK (on_world_changed), conn, 0);
  g_hash_table_insert (conn->worlds, g_strdup (id), g_object_ref (world));
  g_ptr_array_add (conn->world_order, g_strdup (id));

  object = result_object (world);
  json_object_set_int_member (object, "version", gg_oam_world_get_version (world));
  return_object (request, object);
  return;

fail:
  gg_oam_return_error (request, error);
}

static void
world_get (GgOamConnection  *conn,
           GgJsonRpcRequest *request,
           JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) cause = NULL;
  g_autoptr(JsonNode) value = NULL;
  GgOamWorld *world = lookup (conn, params, &error);
  gboolean exists = FALSE;
  const char *path = NULL;
  JsonObject *object;

  if (world == NULL || !gg_oam_param_string (params, NULL, "path", FALSE, &path, &error))
    goto fail;
  if (path == NULL)
    path = "";
  value = gg_oam_world_get (world, path, &exists, &cause);
  if (cause != NULL)
    {
      error = world_error (gg_oam_world_get_id (world), path, cause);
      goto fail;
    }
  object = result_object (world);
  json_object_set_string_member (object, "path", path);
  json_object_set_member (object, "value", value != NULL ? g_steal_pointer (&value)
                                                         : json_node_new (JSON_NODE_NULL));
  json_object_set_boolean_member (object, "exists", exists);
  json_object_set_int_member (object, "version", gg_oam_world_get_version (world));
  return_object (request, object);
  return;

fail:
  gg_oam_return_error (request, error);
}

static void
world_change (GgOamConnection  *conn,
              GgJsonRpcRequest *request,
              JsonObject       *params,
              gboolean          merge)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) cause = NULL;
  g_autoptr(GgOamWorld) world = NULL;
  GgOamWorld *found = lookup (conn, params, &error);
  const char *member = merge ? "patch" : "value";
  const char *path = NULL;
  JsonNode *value;
  JsonObject *object;
  gboolean ok;

  if (found == NULL || !gg_oam_param_string (params, NULL, "path", FALSE, &path, &error))
    goto fail;
  if (path == NULL)
    path = "";
  /* `null` is a value here (world/set) or a deletion (merge patch). */
  value = json_object_get_member (params, member);
  if (value == NULL)
    {
      error = gg_oam_invalid_params ("'%s' is required", member);
      goto fail;
    }
  world = g_object_ref (found);
  ok = merge ? gg_oam_world_merge (world, path, value, &cause)
             : gg_oam_world_set (world, path, value, &cause);
  if (!ok)
    {
      error = world_error (gg_oam_world_get_id (world), path, cause);
      goto fail;
    }
  object = result_object (world);
  json_object_set_string_member (object, "path", path);
  json_object_set_int_member (object, "version", gg_oam_world_get_version (world));
  return_object (request, object);
  return;

fail:
  gg_oam_return_error (request, error);
}

static void
world_set (GgOamConnection *conn, GgJsonRpcRequest *request, JsonObject *params)
{
  world_change (conn, request, params, FALSE);
}

static void
world_merge (GgOamConnection *conn, GgJsonRpcRequest *request, JsonObject *params)
{
  world_change (conn, request, params, TRUE);
}

static void
world_remove (GgOamConnection  *conn,
              GgJsonRpcRequest *request,
              JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) cause = NULL;
  g_autoptr(JsonNode) old_value = NULL;
  g_autoptr(GgOamWorld) world = NULL;
  GgOamWorld *found = lookup (conn, params, &error);
  const char *path;
  JsonObject *object;
  gboolean removed;

  if (found == NULL || !gg_oam_param_string (params, NULL, "path", TRUE, &path, &error))
    goto fail;
  world = g_object_ref (found);
  removed = gg_oam_world_remove (world, path, &old_value, &cause);
  if (cause != NULL)
    {
      error = world_error (gg_oam_world_get_id (world), path, cause);
      goto fail;
    }
  object = result_object (world);
  json_object_set_string_member (object, "path", path);
  json_object_set_boolean_member (object, "removed", removed);
  json_object_set_member (object, "oldValue", old_value != NULL ? g_steal_pointer (&old_value)
                                                                : json_node_new (JSON_NODE_NULL));
  json_object_set_int_member (object, "version", gg_oam_world_get_version (world));
  return_object (request, object);
  return;

fail:
  gg_oam_return_error (request, error);
}

static void
world_snapshot (GgOamConnection  *conn,
                GgJsonRpcRequest *request,
                JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  GgOamWorld *world = lookup (conn, params, &error);
  JsonObject *object;

  if (world == NULL)
    {
      gg_oam_return_error (request, error);
      return;
    }
  object = result_object (world);
  json_object_set_member (object, "state", gg_oam_world_snapshot (world));
  json_object_set_int_member (object, "version", gg_oam_world_get_version (world));
  return_object (request, object);
}

static guint
end_subscriptions (GgOamConnection *conn,
                   const char      *world_id)
{
  guint ended = 0;

  for (guint i = conn->subscription_order->len; i > 0; i--)
    {
      const char *id = g_ptr_array_index (conn->subscription_order, i - 1);
      Subscription *sub = g_hash_table_lookup (conn->subscriptions, id);

      if (sub != NULL && g_str_equal (sub->world, world_id))
        {
          g_hash_table_remove (conn->subscriptions, id);
          g_ptr_array_remove_index (conn->subscription_order, i - 1);
          ended++;
        }
    }
  return ended;
}

static void
world_delete (GgOamConnection  *conn,
              GgJsonRpcRequest *request,
              JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgOamWorld) world = NULL;
  GgOamWorld *found = lookup (conn, params, &error);
  g_autofree char *id = NULL;
  JsonObject *object;
  guint ended;

  if (found == NULL)
    {
      gg_oam_return_error (request, error);
      return;
    }
  world = g_object_ref (found);
  id = g_strdup (gg_oam_world_get_id (world));
  ended = end_subscriptions (conn, id);
  for (guint i = 0; i < conn->world_order->len; i++)
    if (g_str_equal (g_ptr_array_index (conn->world_order, i), id))
      {
        g_ptr_array_remove_index (conn->world_order, i);
        break;
      }
  /* NPCs created with it keep their reference and keep using it. */
  g_hash_table_remove (conn->worlds, id);
  object = result_object (world);
  json_object_set_boolean_member (object, "deleted", TRUE);
  json_object_set_int_member (object, "endedSubscriptions", ended);
  return_object (request, object);
}

static void
world_list (GgOamConnection  *conn,
            GgJsonRpcRequest *request,
            JsonObject       *params)
{
  JsonObject *object = json_object_new ();
  JsonArray *worlds = json_array_new ();

  for (guint i = 0; i < conn->world_order->len; i++)
    {
      const char *id = g_ptr_array_index (conn->world_order, i);
      GgOamWorld *world = g_hash_table_lookup (conn->worlds, id);
      JsonObject *item = json_object_new ();
      guint subscriptions = 0;

      for (guint j = 0; j < conn->subscription_order->len; j++)
        {
          Subscription *sub = g_hash_table_lookup (conn->subscriptions,
                                                   g_ptr_array_index (conn->subscription_order, j));
          if (sub != NULL && g_str_equal (sub->world, id))
            subscriptions++;
        }
      json_object_set_string_member (item, "world", id);
      json_object_set_int_member (item, "version", gg_oam_world_get_version (world));
      json_object_set_int_member (item, "npcs", gg_oam_npcs_count_world (conn, world));
      json_object_set_int_member (item, "subscriptions", subscriptions);
      json_object_set_string_member (item, "createdAt", gg_oam_world_get_created_at (world));
      json_array_add_object_element (worlds, item);
    }
  json_object_set_array_member (object, "worlds", worlds);
  return_object (request, object);
}

static void
world_subscribe (GgOamConnection  *conn,
                 GgJsonRpcRequest *request,
                 JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) cause = NULL;
  g_auto(GStrv) parts = NULL;
  GgOamWorld *world = lookup (conn, params, &error);
  const char *path = NULL;
  Subscription *sub;
  JsonObject *object;

  if (world == NULL || !gg_oam_param_string (params, NULL, "path", FALSE, &path, &error))
    goto fail;
  if (path == NULL)
    path = "";
  parts = gg_json_path_split (path, &cause);
  if (parts == NULL)
    {
      error = world_error (gg_oam_world_get_id (world), path, cause);
      goto fail;
    }
  if ((gint64) g_hash_table_size (conn->subscriptions) >= conn->settings.max_subscriptions)
    {
      error = gg_oam_error_limit (GG_OAM_LIMIT_REACHED, conn->settings.max_subscriptions,
                                  "Too many subscriptions (the limit is %" G_GINT64_FORMAT ")",
                                  conn->settings.max_subscriptions);
      goto fail;
    }
  sub = g_new0 (Subscription, 1);
  do
    {
      g_free (sub->id);
      sub->id = g_strdup_printf ("sub%" G_GUINT64_FORMAT, ++conn->next_subscription);
    }
  while (g_hash_table_contains (conn->subscriptions, sub->id));
  sub->world = g_strdup (gg_oam_world_get_id (world));
  sub->path = g_strdup (path);
  g_hash_table_insert (conn->subscriptions, g_strdup (sub->id), sub);
  g_ptr_array_add (conn->subscription_order, g_strdup (sub->id));

  object = json_object_new ();
  json_object_set_string_member (object, "subscription", sub->id);
  json_object_set_string_member (object, "world", sub->world);
  json_object_set_string_member (object, "path", sub->path);
  return_object (request, object);
  return;

fail:
  gg_oam_return_error (request, error);
}

static void
world_unsubscribe (GgOamConnection  *conn,
                   GgJsonRpcRequest *request,
                   JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  const char *id;
  Subscription *sub;
  JsonObject *object;

  if (!gg_oam_param_string (params, NULL, "subscription", TRUE, &id, &error))
    goto fail;
  sub = g_hash_table_lookup (conn->subscriptions, id);
  if (sub == NULL)
    {
      error = gg_oam_error_new_member (GG_OAM_SUBSCRIPTION_NOT_FOUND, "subscription", id,
                                       "Subscription '%s' not found", id);
      goto fail;
    }
  object = json_object_new ();
  json_object_set_string_member (object, "subscription", sub->id);
  json_object_set_string_member (object, "world", sub->world);
  json_object_set_string_member (object, "path", sub->path);
  json_object_set_boolean_member (object, "unsubscribed", TRUE);
  for (guint i = 0; i < conn->subscription_order->len; i++)
    if (g_str_equal (g_ptr_array_index (conn->subscription_order, i), id))
      {
        g_ptr_array_remove_index (conn->subscription_order, i);
        break;
      }
  g_hash_table_remove (conn->subscriptions, json_object_get_string_member (object, "subscription"));
  return_object (request, object);
  return;

fail:
  gg_oam_return_error (request, error);
}

/**
 * gg_oam_world_methods_register:
 * @conn: a connection
 *
 * Adds the world methods.
 */
void
gg_oam_world_methods_register (GgOamConnection *conn)
{
  gg_oam_connection_add_method (conn, "world/create", world_create);
  gg_oam_connection_add_method (conn, "world/get", world_get);
  gg_oam_connection_add_method (conn, "world/set", world_set);
  gg_oam_connection_add_method (conn, "world/merge", world_merge);
  gg_oam_connection_add_method (conn, "world/remove", world_remove);
  gg_oam_connection_add_method (conn, "world/snapshot", world_snapshot);
  gg_oam_connection_add_method (conn, "world/delete", world_delete);
  gg_oam_connection_add_method (conn, "world/list", world_list);
  gg_oam_connection_add_method (conn, "world/subscribe", world_subscribe);
  gg_oam_connection_add_method (conn, "world/unsubscribe", world_unsubscribe);
}
