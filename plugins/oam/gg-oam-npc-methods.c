/* gg-oam-npc-methods.c: the npc methods (oam spec section 6): looking an
 * NPC up, the queued operation every ordered method uses, the immediate
 * methods (cancel, delete, list) and the registration of them all. The
 * others have files of their own: create and restore
 * (gg-oam-npc-create.c), state, update and reset (gg-oam-npc-update.c),
 * talk and bark (gg-oam-npc-talk.c); talk, update, reset and state are
 * ordered per NPC.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-oam-errors.h"
#include "gg-oam-npc.h"
#include "gg-oam-options.h"
#include "gg-oam-params.h"
#include "gg-oam-session.h"
#include "gg-oam-tools.h"
#include "gg-oam-transcript.h"
#include "gg-oam-world.h"

/* ---- lookup and bookkeeping -------------------------------------------- */

GgOamNpc *
gg_oam_npc_lookup (GgOamConnection *conn,
                   JsonObject      *params,
                   GError         **error)
{
  const char *id;
  GgOamNpc *npc;

  if (!gg_oam_param_string (params, NULL, "npc", TRUE, &id, error))
    return NULL;
  npc = g_hash_table_lookup (conn->npcs, id);
  if (npc == NULL)
    g_propagate_error (error, gg_oam_error_new_member (GG_OAM_NPC_NOT_FOUND, "npc", id,
                                                       "NPC '%s' not found", id));
  return npc;
}

JsonObject *
gg_oam_npc_result (GgOamNpc *npc)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "npc", npc->id);
  return object;
}

void
gg_oam_npc_return_object (GgJsonRpcRequest *request,
                          JsonObject       *object)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, object);
  gg_jsonrpc_request_return_result (request, node);
}

JsonNode *
gg_oam_npc_object_node (JsonObject *object)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, object);
  return node;
}

static void
remove_npc (GgOamConnection *conn,
            GgOamNpc        *npc)
{
  gg_oam_report_lifecycle (conn, "npc/deleted", npc->id, NULL, NULL);
  g_ptr_array_remove (conn->npc_order, npc);
  g_hash_table_remove (conn->npcs, npc->id);
}

/**
 * gg_oam_npcs_cancel_all:
 * @conn: a connection
 *
 * Cancels every NPC's work and deletes the NPCs (shutdown, disconnect).
 */
void
gg_oam_npcs_cancel_all (GgOamConnection *conn)
{
  g_autoptr(GPtrArray) npcs = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < conn->npc_order->len; i++)
    g_ptr_array_add (npcs, g_object_ref (g_ptr_array_index (conn->npc_order, i)));
  for (guint i = 0; i < npcs->len; i++)
    {
      GgOamNpc *npc = g_ptr_array_index (npcs, i);

      gg_oam_queue_cancel (npc->queue);
      remove_npc (conn, npc);
    }
}

/**
 * gg_oam_npcs_count_world:
 *
 * Returns: how many of the client's NPCs use @world
 */
guint
gg_oam_npcs_count_world (GgOamConnection *conn,
                         GgOamWorld      *world)
{
  guint count = 0;

  for (guint i = 0; i < conn->npc_order->len; i++)
    if (((GgOamNpc *) g_ptr_array_index (conn->npc_order, i))->world == world)
      count++;
  return count;
}

/**
 * gg_oam_npc_describe:
 * @npc: an NPC id
 * @error: -32050 when there is none
 *
 * Returns: (transfer full): who decides, for decision/decide's `actor`
 */
char *
gg_oam_npc_describe (GgOamConnection *conn,
                     const char      *id,
                     GError         **error)
{
  GgOamNpc *npc = g_hash_table_lookup (conn->npcs, id);
  JsonObject *p;
  GString *text;

  if (npc == NULL)
    {
      g_propagate_error (error, gg_oam_error_new_member (GG_OAM_NPC_NOT_FOUND, "npc", id,
                                                         "NPC '%s' not found", id));
      return NULL;
    }
  p = npc->persona;
  text = g_string_new (NULL);
  g_string_append_printf (text, "You decide as %s", json_object_get_string_member (p, "name"));
  if (*json_object_get_string_member (p, "role") != '\0')
    g_string_append_printf (text, ", %s", json_object_get_string_member (p, "role"));
  g_string_append_c (text, '.');
  if (*json_object_get_string_member (p, "personality") != '\0')
    g_string_append_printf (text, "\nPersonality: %s", json_object_get_string_member (p, "personality"));
  g_string_append_printf (text, "\nYour attitude towards the player: %" G_GINT64_FORMAT " (-100..100).",
                          npc->relationship);
  return g_string_free (text, FALSE);
}

/* ---- operation data ---------------------------------------------------- */


void
gg_oam_npc_op_free (NpcOp *data)
{
  g_clear_object (&data->turn);
  g_clear_pointer (&data->tools, gg_oam_tool_context_free);
  g_clear_pointer (&data->target_tools, json_array_unref);
  g_clear_object (&data->npc);
  g_clear_object (&data->conn);
  g_clear_pointer (&data->params, json_object_unref);
  g_clear_pointer (&data->request_id, json_node_unref);
  g_free (data->line);
  g_free (data->context);
  g_free (data->emotion_sent);
  g_clear_pointer (&data->records, json_array_unref);
  if (data->shown != NULL)
    g_string_free (data->shown, TRUE);
  g_clear_pointer (&data->old, json_array_unref);
  g_clear_pointer (&data->recent, json_array_unref);
  g_clear_pointer (&data->warnings, g_ptr_array_unref);
  g_free (data);
}

NpcOp *
gg_oam_npc_op_new (GgOamConnection  *conn,
                   GgOamNpc         *npc,
                   GgJsonRpcRequest *request,
                   JsonObject       *params)
{
  NpcOp *data = g_new0 (NpcOp, 1);
  JsonNode *id = request != NULL ? gg_jsonrpc_request_get_id (request) : NULL;

  data->conn = g_object_ref (conn);
  data->npc = g_object_ref (npc);
  data->params = params != NULL ? json_object_ref (params) : json_object_new ();
  data->request_id = id != NULL ? json_node_copy (id) : json_node_new (JSON_NODE_NULL);
  data->records = json_array_new ();
  data->shown = g_string_new (NULL);
  data->warnings = g_ptr_array_new_with_free_func (g_free);
  return data;
}

void
gg_oam_npc_push (GgOamNpc         *npc,
                 GgJsonRpcRequest *request,
                 GgOamOpFunc       run,
                 NpcOp            *data)
{
  gg_oam_queue_push (npc->queue, gg_oam_op_new (request, run, data, (GDestroyNotify) gg_oam_npc_op_free));
}

gboolean
gg_oam_npc_start_or_cancel (GgOamOp *op)
{
  g_autoptr(GError) cancelled = NULL;

  if (gg_oam_op_commit (op))
    return TRUE;
  cancelled = gg_oam_error_cancelled ();
  gg_oam_op_return_error (op, cancelled);
  return FALSE;
}

/* ---- immediate --------------------------------------------------------- */

static void
npc_cancel (GgOamConnection  *conn,
            GgJsonRpcRequest *request,
            JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  GgOamNpc *npc = gg_oam_npc_lookup (conn, params, &error);
  g_autoptr(GgOamNpc) hold = NULL;
  JsonObject *object;
  guint count;

  if (npc == NULL)
    {
      gg_oam_return_error (request, error);
      return;
    }
  hold = g_object_ref (npc);
  count = gg_oam_queue_cancel (npc->queue);
  object = gg_oam_npc_result (npc);
  json_object_set_int_member (object, "cancelled", count);
  gg_oam_npc_return_object (request, object);
}

static void
npc_delete (GgOamConnection  *conn,
            GgJsonRpcRequest *request,
            JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  GgOamNpc *npc = gg_oam_npc_lookup (conn, params, &error);
  g_autoptr(GgOamNpc) hold = NULL;
  JsonObject *object;

  if (npc == NULL)
    {
      gg_oam_return_error (request, error);
      return;
    }
  hold = g_object_ref (npc);
  gg_oam_queue_cancel (npc->queue);
  remove_npc (conn, npc);
  object = gg_oam_npc_result (hold);
  json_object_set_boolean_member (object, "deleted", TRUE);
  gg_oam_npc_return_object (request, object);
}

static void
npc_list (GgOamConnection  *conn,
          GgJsonRpcRequest *request,
          JsonObject       *params)
{
  JsonObject *object = json_object_new ();
  JsonArray *list = json_array_new ();

  for (guint i = 0; i < conn->npc_order->len; i++)
    {
      GgOamNpc *npc = g_ptr_array_index (conn->npc_order, i);
      JsonObject *item = json_object_new ();

      json_object_set_string_member (item, "npc", npc->id);
      json_object_set_string_member (item, "name", json_object_get_string_member (npc->persona, "name"));
      json_object_set_string_member (item, "role", json_object_get_string_member (npc->persona, "role"));
      if (npc->world_id != NULL)
        json_object_set_string_member (item, "world", npc->world_id);
      else
        json_object_set_null_member (item, "world");
      json_object_set_string_member (item, "model", npc->model_name);
      json_object_set_member (item, "tools", gg_oam_tools_to_json (npc->tools));
      json_object_set_int_member (item, "turnCount", npc->turn_count);
      json_object_set_int_member (item, "relationship", npc->relationship);
      json_object_set_boolean_member (item, "busy", gg_oam_queue_is_busy (npc->queue));
      json_object_set_int_member (item, "pendingOperations", gg_oam_queue_get_pending (npc->queue));
      json_object_set_string_member (item, "createdAt", npc->created_at);
      json_array_add_object_element (list, item);
    }
  json_object_set_array_member (object, "npcs", list);
  gg_oam_npc_return_object (request, object);
}

/**
 * gg_oam_npc_methods_register:
 * @conn: a connection
 *
 * Adds the npc methods.
 */
void
gg_oam_npc_methods_register (GgOamConnection *conn)
{
  gg_oam_connection_add_method (conn, "npc/create", gg_oam_npc_create);
  gg_oam_connection_add_method (conn, "npc/restore", gg_oam_npc_restore);
  gg_oam_connection_add_method (conn, "npc/talk", gg_oam_npc_talk);
  gg_oam_connection_add_method (conn, "npc/bark", gg_oam_npc_bark);
  gg_oam_connection_add_method (conn, "npc/state", gg_oam_npc_state_get);
  gg_oam_connection_add_method (conn, "npc/update", gg_oam_npc_update);
  gg_oam_connection_add_method (conn, "npc/reset", gg_oam_npc_reset);
  gg_oam_connection_add_method (conn, "npc/cancel", npc_cancel);
  gg_oam_connection_add_method (conn, "npc/delete", npc_delete);
  gg_oam_connection_add_method (conn, "npc/list", npc_list);
}
