/* gg-oam-npc-update.c: npc/state, npc/update and npc/reset (oam spec
 * section 6), queued behind the NPC's turns: the save state; persona,
 * options and memory changed by merge patches and tools replaced; the
 * conversation forgotten.
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


/* ---- npc/state, npc/update, npc/reset ---------------------------------- */

static void
state_run (GgOamOp *op)
{
  NpcOp *data = op->data;
  JsonObject *object;

  if (!gg_oam_npc_start_or_cancel (op))
    return;
  object = gg_oam_npc_result (data->npc);
  json_object_set_member (object, "state", gg_oam_npc_state (data->npc));
  gg_oam_op_return_result (op, gg_oam_npc_object_node (object));
}

void
gg_oam_npc_state_get (GgOamConnection  *conn,
           GgJsonRpcRequest *request,
           JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  GgOamNpc *npc = gg_oam_npc_lookup (conn, params, &error);
  gboolean settle;
  JsonObject *object;

  if (npc == NULL || !gg_oam_param_bool (params, NULL, "settle", TRUE, &settle, &error))
    {
      gg_oam_return_error (request, error);
      return;
    }
  if (settle)
    {
      gg_oam_npc_push (npc, request, state_run, gg_oam_npc_op_new (conn, npc, request, params));
      return;
    }
  object = gg_oam_npc_result (npc);
  json_object_set_member (object, "state", gg_oam_npc_state (npc));
  gg_oam_npc_return_object (request, object);
}

static void
update_run (GgOamOp *op)
{
  NpcOp *data = op->data;
  GgOamNpc *npc = data->npc;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(JsonObject) old_persona = json_object_ref (npc->persona);
  g_autoptr(JsonObject) old_options = json_object_ref (npc->options);
  g_autoptr(JsonObject) old_given = json_object_ref (npc->given_options);
  g_autoptr(JsonArray) old_tools = json_array_ref (npc->tools);
  g_autoptr(JsonArray) old_defs = json_array_ref (npc->tool_defs);
  g_autoptr(JsonNode) old_memory = gg_oam_npc_memory_json (npc);
  g_autoptr(JsonObject) persona = NULL;
  g_autoptr(JsonObject) options = NULL;
  g_autoptr(JsonArray) tools = NULL;
  JsonNode *patch;
  JsonObject *object;

  if (!gg_oam_npc_start_or_cancel (op))
    return;
  for (guint i = 0; i < data->warnings->len; i++)
    g_ptr_array_add (warnings, g_strdup (g_ptr_array_index (data->warnings, i)));
  /* All or nothing: build everything, then swap. */
  patch = gg_oam_param (data->params, "persona");
  if (patch != NULL)
    {
      g_autoptr(JsonNode) base = json_node_new (JSON_NODE_OBJECT);
      g_autoptr(JsonNode) merged = NULL;

      json_node_set_object (base, npc->persona);
      merged = gg_json_merge_patch (base, patch);
      if (!JSON_NODE_HOLDS_OBJECT (merged))
        {
          error = gg_oam_invalid_params ("'persona' must be an object");
          goto fail;
        }
      persona = gg_oam_npc_parse_persona (json_node_get_object (merged), "persona", warnings, &error);
      if (persona == NULL)
        goto fail;
    }
  patch = gg_oam_param (data->params, "options");
  if (patch != NULL)
    {
      g_autoptr(JsonNode) base = json_node_new (JSON_NODE_OBJECT);
      g_autoptr(JsonNode) merged = NULL;

      json_node_set_object (base, npc->given_options);
      merged = gg_json_merge_patch (base, patch);
      if (!JSON_NODE_HOLDS_OBJECT (merged))
        {
          error = gg_oam_invalid_params ("'options' must be an object");
          goto fail;
        }
      options = gg_oam_npc_parse_options (json_node_get_object (merged), &data->conn->settings, warnings, &error);
      if (options == NULL)
        goto fail;
      g_clear_pointer (&npc->given_options, json_object_unref);
      npc->given_options = json_object_ref (json_node_get_object (merged));
    }
  if (json_object_has_member (data->params, "tools"))
    {
      JsonArray *defs;

      if (!gg_oam_param_array (data->params, NULL, "tools", FALSE, &defs, &error))
        goto fail;
      tools = gg_oam_tools_parse (defs, "tools", warnings, &error);
      if (tools == NULL)
        goto fail;
      g_clear_pointer (&npc->tool_defs, json_array_unref);
      npc->tool_defs = defs != NULL ? json_array_ref (defs) : json_array_new ();
    }
  if (persona != NULL)
    {
      g_clear_pointer (&npc->persona, json_object_unref);
      npc->persona = json_object_ref (persona);
    }
  if (options != NULL)
    {
      g_clear_pointer (&npc->options, json_object_unref);
      npc->options = json_object_ref (options);
    }
  if (tools != NULL)
    {
      g_clear_pointer (&npc->tools, json_array_unref);
      npc->tools = json_array_ref (tools);
    }
  patch = gg_oam_param (data->params, "memory");
  if (patch != NULL)
    {
      g_autoptr(JsonNode) merged = gg_json_merge_patch (old_memory, patch);

      if (!JSON_NODE_HOLDS_OBJECT (merged) ||
          !gg_oam_npc_parse_memory (npc, json_node_get_object (merged), "memory", &error))
        {
          if (error == NULL)
            error = gg_oam_invalid_params ("'memory' must be an object");
          goto restore;
        }
    }
  if (!gg_oam_npc_check_tools (npc, &error))
    goto restore;
  object = gg_oam_npc_result (npc);
  json_object_set_member (object, "warnings", gg_oam_warnings_to_json (warnings));
  gg_oam_op_return_result (op, gg_oam_npc_object_node (object));
  return;

restore:
  g_clear_pointer (&npc->persona, json_object_unref);
  npc->persona = g_steal_pointer (&old_persona);
  g_clear_pointer (&npc->options, json_object_unref);
  npc->options = g_steal_pointer (&old_options);
  g_clear_pointer (&npc->tools, json_array_unref);
  npc->tools = g_steal_pointer (&old_tools);
  gg_oam_npc_parse_memory (npc, json_node_get_object (old_memory), "memory", NULL);
fail:
  g_clear_pointer (&npc->given_options, json_object_unref);
  npc->given_options = g_steal_pointer (&old_given);
  g_clear_pointer (&npc->tool_defs, json_array_unref);
  npc->tool_defs = g_steal_pointer (&old_defs);
  gg_oam_op_return_error (op, error);
}

static void
reset_run (GgOamOp *op)
{
  NpcOp *data = op->data;
  GgOamNpc *npc = data->npc;
  gboolean clear = FALSE;

  if (!gg_oam_npc_start_or_cancel (op))
    return;
  gg_oam_param_bool (data->params, NULL, "clearMemory", FALSE, &clear, NULL);
  g_clear_pointer (&npc->history, json_array_unref);
  npc->history = json_array_new ();
  npc->turn_count = 0;
  npc->turns_since_compaction = 0;
  if (clear)
    {
      g_ptr_array_set_size (npc->facts, 0);
      npc->relationship = 0;
      g_clear_pointer (&npc->summary, g_free);
    }
  gg_oam_op_return_result (op, gg_oam_npc_object_node (gg_oam_npc_result (npc)));
}

static void
queue_simple (GgOamConnection  *conn,
              GgJsonRpcRequest *request,
              JsonObject       *params,
              GgOamOpFunc       run)
{
  g_autoptr(GError) error = NULL;
  GgOamNpc *npc = gg_oam_npc_lookup (conn, params, &error);
  gboolean flag;

  if (npc == NULL ||
      (run == reset_run && !gg_oam_param_bool (params, NULL, "clearMemory", FALSE, &flag, &error)))
    {
      gg_oam_return_error (request, error);
      return;
    }
  if (run == update_run)
    {
      JsonObject *unused;
      JsonArray *unused_array;

      if (!gg_oam_param_object (params, NULL, "persona", FALSE, &unused, &error) ||
          !gg_oam_param_object (params, NULL, "options", FALSE, &unused, &error) ||
          !gg_oam_param_object (params, NULL, "memory", FALSE, &unused, &error) ||
          !gg_oam_param_array (params, NULL, "tools", FALSE, &unused_array, &error))
        {
          gg_oam_return_error (request, error);
          return;
        }
    }
  {
    NpcOp *data = gg_oam_npc_op_new (conn, npc, request, params);

    if (run == update_run)
      {
        static const char * const update_params[] = { "npc", "persona", "options", "memory", "tools", NULL };
        gg_oam_warn_unknown (params, NULL, update_params, data->warnings);
      }
    gg_oam_npc_push (npc, request, run, data);
  }
}

void
gg_oam_npc_update (GgOamConnection *conn, GgJsonRpcRequest *request, JsonObject *params)
{
  queue_simple (conn, request, params, update_run);
}

void
gg_oam_npc_reset (GgOamConnection *conn, GgJsonRpcRequest *request, JsonObject *params)
{
  queue_simple (conn, request, params, reset_run);
}
