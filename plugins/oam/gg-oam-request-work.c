/* gg-oam-request-work.c: the work each request started, by request id, and
 * `request/cancel`, which cancels one request whatever its method.
 *
 * The protocol cancels by object (`session/cancel`, `npc/cancel`); a
 * decision, a content generation or one turn among several queued on a
 * session has no such handle. `request/cancel {"id": …}` (a gamegate
 * extension, in JSON-RPC's `$/cancelRequest` tradition) cancels exactly
 * the work that request started: the request is answered -32009 (queued
 * work when its turn comes, without running), or normally when it had
 * already taken effect. The C ABI's oam_call_blocking() sends it when it
 * times out.
 *
 * Work registers itself while its request is dispatched (the cancellable
 * of a queued operation, or of gg_oam_connection_begin_work()); the table
 * holds the cancellables weakly, so an entry goes with its work.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-oam-connection.h"
#include "gg-oam-errors.h"
#include "gg-oam-params.h"

/* "s<text>" for a string id, "i<digits>" for an integer; NULL otherwise. */
static char *
id_key (JsonNode *id)
{
  if (id == NULL || !JSON_NODE_HOLDS_VALUE (id))
    return NULL;
  if (json_node_get_value_type (id) == G_TYPE_STRING)
    return g_strconcat ("s", json_node_get_string (id), NULL);
  if (json_node_get_value_type (id) == G_TYPE_INT64)
    return g_strdup_printf ("i%" G_GINT64_FORMAT, json_node_get_int (id));
  return NULL;
}

static void
on_work_gone (gpointer  data,
              GObject  *where_the_object_was)
{
  GgOamConnection *conn = data;

  g_hash_table_remove (conn->request_work, where_the_object_was);
}

/**
 * gg_oam_request_work_track:
 * @cancellable: the cancellable of work a request starts
 *
 * While a request is being dispatched, files @cancellable under its id for
 * `request/cancel`. Work of notifications and internal work is not filed.
 */
void
gg_oam_request_work_track (GCancellable *cancellable)
{
  const GgOamDispatch *current = gg_oam_dispatch_current ();
  GgOamConnection *conn;
  char *key;

  if (current == NULL || gg_jsonrpc_request_is_notification (current->request))
    return;
  conn = current->connection;
  if (conn->request_work == NULL)
    return;
  key = id_key (gg_jsonrpc_request_get_id (current->request));
  if (key == NULL)
    return;
  if (!g_hash_table_contains (conn->request_work, cancellable))
    g_object_weak_ref (G_OBJECT (cancellable), on_work_gone, conn);
  g_hash_table_insert (conn->request_work, cancellable, key);
}

/**
 * gg_oam_request_work_clear:
 * @conn: a connection being disposed
 *
 * Forgets every filed cancellable.
 */
void
gg_oam_request_work_clear (GgOamConnection *conn)
{
  GHashTableIter iter;
  gpointer cancellable;

  if (conn->request_work == NULL)
    return;
  g_hash_table_iter_init (&iter, conn->request_work);
  while (g_hash_table_iter_next (&iter, &cancellable, NULL))
    g_object_weak_unref (cancellable, on_work_gone, conn);
  g_clear_pointer (&conn->request_work, g_hash_table_unref);
}

/* request/cancel {id} → {"cancelled": how many pieces of work}. */
static void
request_cancel (GgOamConnection  *conn,
                GgJsonRpcRequest *request,
                JsonObject       *params)
{
  g_autofree char *key = id_key (gg_oam_param (params, "id"));
  g_autoptr(GPtrArray) matches = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(JsonNode) node = NULL;
  GHashTableIter iter;
  gpointer cancellable, value;
  guint count = 0;

  if (key == NULL)
    {
      g_autoptr(GError) error = gg_oam_invalid_params ("'id' must be a string or an integer");
      gg_oam_return_error (request, error);
      return;
    }
  /* Collected first: a cancel handler may end other work of the table. */
  g_hash_table_iter_init (&iter, conn->request_work);
  while (g_hash_table_iter_next (&iter, &cancellable, &value))
    if (g_str_equal (value, key) && !g_cancellable_is_cancelled (cancellable))
      g_ptr_array_add (matches, g_object_ref (cancellable));
  for (guint i = 0; i < matches->len; i++)
    {
      g_cancellable_cancel (g_ptr_array_index (matches, i));
      count++;
    }
  g_debug ("oam connection %p: request/cancel %s: %u", conn, key, count);
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, json_object_new ());
  json_object_set_int_member (json_node_get_object (node), "cancelled", count);
  gg_jsonrpc_request_return_result (request, node);
}

/**
 * gg_oam_request_methods_register:
 * @conn: a connection
 *
 * Adds `request/cancel`.
 */
void
gg_oam_request_methods_register (GgOamConnection *conn)
{
  conn->request_work = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  gg_oam_connection_add_method (conn, "request/cancel", request_cancel);
}
