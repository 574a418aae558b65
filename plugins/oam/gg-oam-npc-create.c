/* gg-oam-npc-create.c: npc/create and npc/restore (oam spec section 6):
 * reading the persona, options, memory, tools and world of a new NPC, or
 * all of that from a save state (npc/state's), and registering it.
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
  gg_oam_report_lifecycle (conn, "npc/created", npc->id, NULL, NULL);
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

void
gg_oam_npc_create (GgOamConnection  *conn,
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

void
gg_oam_npc_restore (GgOamConnection  *conn,
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
