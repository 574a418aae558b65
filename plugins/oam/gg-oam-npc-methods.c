/* gg-oam-npc-methods.c: the npc methods (oam spec section 6) but the
 * turns: create, restore, state, update, reset, cancel, delete, list.
 * talk (gg-oam-npc-talk.c), update, reset and state are ordered per NPC.
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

/* ---- create and restore ------------------------------------------------ */

static const char * const create_params[] = {
  "npc", "persona", "tools", "world", "memory", "options", "model", NULL
};
static const char * const restore_params[] = {
  "state", "npc", "tools", "options", "world", "model", NULL
};

static JsonNode *
tool_names (GgOamNpc *npc)
{
  g_autoptr(JsonArray) all = gg_oam_npc_all_tools (npc);

  return gg_oam_tools_to_json (all);
}

/* Everything but the id and the registration; @npc is filled in place. */
static gboolean
npc_configure (GgOamConnection *conn,
               GgOamNpc        *npc,
               JsonObject      *persona,
               const char      *persona_prefix,
               JsonObject      *options,
               JsonArray       *tools,
               JsonObject      *memory,
               const char      *memory_prefix,
               GPtrArray       *warnings,
               GError         **error)
{
  g_autoptr(JsonArray) all = NULL;

  npc->persona = gg_oam_npc_parse_persona (persona, persona_prefix, warnings, error);
  if (npc->persona == NULL)
    return FALSE;
  npc->options = gg_oam_npc_parse_options (options, &conn->settings, warnings, error);
  if (npc->options == NULL)
    return FALSE;
  g_clear_pointer (&npc->given_options, json_object_unref);
  npc->given_options = options != NULL ? json_object_ref (options) : json_object_new ();
  g_clear_pointer (&npc->tools, json_array_unref);
  npc->tools = gg_oam_tools_parse (tools, "tools", warnings, error);
  if (npc->tools == NULL)
    return FALSE;
  g_clear_pointer (&npc->tool_defs, json_array_unref);
  npc->tool_defs = tools != NULL ? json_array_ref (tools) : json_array_new ();
  if (!gg_oam_npc_parse_memory (npc, memory, memory_prefix, error) ||
      !gg_oam_npc_check_tools (npc, error))
    return FALSE;
  all = gg_oam_npc_all_tools (npc);
  if (json_array_get_length (all) > 5)
    g_ptr_array_add (warnings, g_strdup_printf ("%u tools: Apple recommends 3-5 tools per request on-device",
                                                json_array_get_length (all)));
  return TRUE;
}

static gboolean
npc_register (GgOamConnection *conn,
              GgOamNpc        *npc,
              const char      *id,
              GError         **error)
{
  g_autofree char *generated = NULL;

  if (id != NULL && g_hash_table_contains (conn->npcs, id))
    {
      g_propagate_error (error, gg_oam_error_new_member (GG_OAM_NPC_EXISTS, "npc", id,
                                                         "NPC '%s' already exists", id));
      return FALSE;
    }
  if ((gint64) g_hash_table_size (conn->npcs) >= conn->settings.max_npcs)
    {
      g_propagate_error (error, gg_oam_error_limit (GG_OAM_LIMIT_REACHED, conn->settings.max_npcs,
                                                    "Too many NPCs (the limit is %" G_GINT64_FORMAT ")",
                                                    conn->settings.max_npcs));
      return FALSE;
    }
  if (id == NULL)
    {
      do
        {
          g_free (generated);
          generated = g_strdup_printf ("npc%" G_GUINT64_FORMAT, ++conn->next_npc);
        }
      while (g_hash_table_contains (conn->npcs, generated));
      id = generated;
    }
  npc->id = g_strdup (id);
  npc->created_at = gg_oam_now_iso8601 ();
  g_hash_table_insert (conn->npcs, g_strdup (id), g_object_ref (npc));
  g_ptr_array_add (conn->npc_order, npc);
  return TRUE;
}

static JsonObject *
created_result (GgOamNpc  *npc,
                GPtrArray *warnings)
{
  JsonObject *object = gg_oam_npc_result (npc);

  json_object_set_member (object, "tools", tool_names (npc));
  json_object_set_member (object, "warnings", gg_oam_warnings_to_json (warnings));
  return object;
}

static void
npc_create (GgOamConnection  *conn,
            GgJsonRpcRequest *request,
            JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GgOamNpc) npc = g_object_new (GG_TYPE_OAM_NPC, NULL);
  JsonObject *persona, *options, *memory;
  JsonArray *tools;
  const char *id, *world_id;

  gg_oam_warn_unknown (params, NULL, create_params, warnings);
  if (!gg_oam_param_id (params, NULL, "npc", FALSE, &id, &error) ||
      !gg_oam_param_object (params, NULL, "persona", TRUE, &persona, &error) ||
      !gg_oam_param_object (params, NULL, "options", FALSE, &options, &error) ||
      !gg_oam_param_object (params, NULL, "memory", FALSE, &memory, &error) ||
      !gg_oam_param_array (params, NULL, "tools", FALSE, &tools, &error) ||
      !gg_oam_param_string (params, NULL, "world", FALSE, &world_id, &error))
    goto fail;
  if (id != NULL && g_hash_table_contains (conn->npcs, id))
    {
      error = gg_oam_error_new_member (GG_OAM_NPC_EXISTS, "npc", id, "NPC '%s' already exists", id);
      goto fail;
    }
  if (world_id != NULL)
    {
      GgOamWorld *world = gg_oam_connection_lookup_world (conn, world_id, &error);

      if (world == NULL)
        goto fail;
      npc->world = g_object_ref (world);
      npc->world_id = g_strdup (world_id);
    }
  if (!npc_configure (conn, npc, persona, "persona", options, tools, memory, "memory", warnings, &error))
    goto fail;
  npc->model = gg_oam_connection_create_model (conn, params, &npc->model_name, &error);
  if (npc->model == NULL || !npc_register (conn, npc, id, &error))
    goto fail;
  gg_oam_npc_return_object (request, created_result (npc, warnings));
  return;

fail:
  gg_oam_return_error (request, error);
}

static void
npc_restore (GgOamConnection  *conn,
             GgJsonRpcRequest *request,
             JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GgOamNpc) npc = g_object_new (GG_TYPE_OAM_NPC, NULL);
  g_autoptr(JsonArray) entries = NULL;
  g_autoptr(JsonArray) saved_tools_unused = NULL;
  g_autofree char *unused_instructions = NULL;
  JsonObject *state, *persona, *memory, *options = NULL, *inner;
  JsonArray *tools = NULL;
  const char *id = NULL, *world_id = NULL;
  gboolean has_instructions;
  gint64 version;

  gg_oam_warn_unknown (params, NULL, restore_params, warnings);
  if (!gg_oam_param_object (params, NULL, "state", TRUE, &state, &error))
    goto fail;
  /* The whole npc/state result. */
  if (gg_oam_param (state, "state") != NULL && gg_oam_param (state, "persona") == NULL)
    {
      if (!gg_oam_param_object (state, "state", "state", TRUE, &inner, &error))
        goto fail;
      state = inner;
    }
  if (!gg_oam_param_int (state, "state", "version", 1, 1, 1, &version, &error) ||
      !gg_oam_param_object (state, "state", "persona", TRUE, &persona, &error) ||
      !gg_oam_param_object (state, "state", "memory", FALSE, &memory, &error))
    goto fail;

  /* A key you send (even null or []) wins over the saved one. */
  if (json_object_has_member (params, "npc"))
    {
      if (!gg_oam_param_id (params, NULL, "npc", FALSE, &id, &error))
        goto fail;
    }
  else if (!gg_oam_param_id (state, "state", "npc", FALSE, &id, &error))
    goto fail;
  if (json_object_has_member (params, "options"))
    {
      if (!gg_oam_param_object (params, NULL, "options", FALSE, &options, &error))
        goto fail;
    }
  else if (!gg_oam_param_object (state, "state", "options", FALSE, &options, &error))
    goto fail;
  if (json_object_has_member (params, "tools"))
    {
      if (!gg_oam_param_array (params, NULL, "tools", FALSE, &tools, &error))
        goto fail;
    }
  else if (!gg_oam_param_array (state, "state", "tools", FALSE, &tools, &error))
    goto fail;
  if (json_object_has_member (params, "world"))
    {
      if (!gg_oam_param_string (params, NULL, "world", FALSE, &world_id, &error))
        goto fail;
      if (world_id != NULL && gg_oam_connection_lookup_world (conn, world_id, &error) == NULL)
        goto fail;
    }
  else
    {
      if (!gg_oam_param_string (state, "state", "world", FALSE, &world_id, &error))
        goto fail;
      if (world_id != NULL && g_hash_table_lookup (conn->worlds, world_id) == NULL)
        {
          g_ptr_array_add (warnings, g_strdup_printf ("the saved world '%s' no longer exists; dropped", world_id));
          world_id = NULL;
        }
    }
  if (id != NULL && g_hash_table_contains (conn->npcs, id))
    {
      error = gg_oam_error_new_member (GG_OAM_NPC_EXISTS, "npc", id, "NPC '%s' already exists", id);
      goto fail;
    }
  if (world_id != NULL)
    {
      npc->world = g_object_ref (g_hash_table_lookup (conn->worlds, world_id));
      npc->world_id = g_strdup (world_id);
    }
  if (gg_oam_param (state, "transcript") != NULL &&
      !gg_oam_transcript_parse (gg_oam_param (state, "transcript"), "state.transcript", &has_instructions,
                                &unused_instructions, &saved_tools_unused, &entries, &error))
    goto fail;
  /* Saved options carry every option; the restored ones are the base of
   * later merge patches. */
  if (!npc_configure (conn, npc, persona, "state.persona", options, tools, memory, "state.memory",
                      warnings, &error))
    goto fail;
  if (entries != NULL)
    gg_oam_append_entries (npc->history, entries);
  for (guint i = 0; i < json_array_get_length (npc->history); i++)
    if (g_strcmp0 (json_object_get_string_member_with_default (json_array_get_object_element (npc->history, i),
                                                               "role", ""), "user") == 0)
      npc->turn_count++;
  npc->model = gg_oam_connection_create_model (conn, params, &npc->model_name, &error);
  if (npc->model == NULL || !npc_register (conn, npc, id, &error))
    goto fail;
  gg_oam_npc_return_object (request, created_result (npc, warnings));
  return;

fail:
  gg_oam_return_error (request, error);
}

/* ---- operation data ---------------------------------------------------- */


void
gg_oam_npc_op_free (NpcOp *data)
{
  g_clear_object (&data->turn);
  g_clear_pointer (&data->tools, gg_oam_tool_context_free);
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

static void
npc_state (GgOamConnection  *conn,
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

static void
npc_update (GgOamConnection *conn, GgJsonRpcRequest *request, JsonObject *params)
{
  queue_simple (conn, request, params, update_run);
}

static void
npc_reset (GgOamConnection *conn, GgJsonRpcRequest *request, JsonObject *params)
{
  queue_simple (conn, request, params, reset_run);
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
  gg_oam_connection_add_method (conn, "npc/create", npc_create);
  gg_oam_connection_add_method (conn, "npc/restore", npc_restore);
  gg_oam_connection_add_method (conn, "npc/talk", gg_oam_npc_talk);
  gg_oam_connection_add_method (conn, "npc/bark", gg_oam_npc_bark);
  gg_oam_connection_add_method (conn, "npc/state", npc_state);
  gg_oam_connection_add_method (conn, "npc/update", npc_update);
  gg_oam_connection_add_method (conn, "npc/reset", npc_reset);
  gg_oam_connection_add_method (conn, "npc/cancel", npc_cancel);
  gg_oam_connection_add_method (conn, "npc/delete", npc_delete);
  gg_oam_connection_add_method (conn, "npc/list", npc_list);
}
