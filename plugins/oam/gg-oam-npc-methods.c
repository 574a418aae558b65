/* gg-oam-npc-methods.c: the npc methods (oam spec section 6): create,
 * restore, talk (with the plain-text retry and fallback lines), bark,
 * state, update, reset, cancel, delete, list, and background compaction.
 * talk, update, reset and state are ordered per NPC.
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

#define SUMMARY_INSTRUCTIONS \
  "You summarize a conversation between a player and a game character in two or three sentences, " \
  "keeping names, facts and promises."
#define SUMMARY_PROMPT "Summarize the conversation so far."

/* ---- lookup and bookkeeping -------------------------------------------- */

static GgOamNpc *
lookup (GgOamConnection *conn,
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

static JsonObject *
npc_result (GgOamNpc *npc)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "npc", npc->id);
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

static JsonNode *
object_node (JsonObject *object)
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
  JsonObject *object = npc_result (npc);

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
  return_object (request, created_result (npc, warnings));
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
  return_object (request, created_result (npc, warnings));
  return;

fail:
  gg_oam_return_error (request, error);
}

/* ---- operation data ---------------------------------------------------- */

typedef struct {
  GgOamConnection *conn;
  GgOamNpc *npc;
  JsonObject *params;
  JsonNode *request_id;
  /* talk */
  gboolean stream;
  gboolean structured;
  gboolean retrying;
  char *line;
  char *context;
  GgAgentTurn *turn;
  GgOamToolContext *tools;
  JsonArray *records;
  GString *shown;            /* the line the client has seen */
  gboolean emotion_sent;
  JsonArray *old;            /* compaction: summarized entries */
  JsonArray *recent;
  GPtrArray *warnings;       /* unknown members of the request */
} NpcOp;

static void
npc_op_free (NpcOp *data)
{
  g_clear_object (&data->turn);
  g_clear_pointer (&data->tools, gg_oam_tool_context_free);
  g_clear_object (&data->npc);
  g_clear_object (&data->conn);
  g_clear_pointer (&data->params, json_object_unref);
  g_clear_pointer (&data->request_id, json_node_unref);
  g_free (data->line);
  g_free (data->context);
  g_clear_pointer (&data->records, json_array_unref);
  if (data->shown != NULL)
    g_string_free (data->shown, TRUE);
  g_clear_pointer (&data->old, json_array_unref);
  g_clear_pointer (&data->recent, json_array_unref);
  g_clear_pointer (&data->warnings, g_ptr_array_unref);
  g_free (data);
}

static NpcOp *
npc_op_new (GgOamConnection  *conn,
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

static void
push (GgOamNpc         *npc,
      GgJsonRpcRequest *request,
      GgOamOpFunc       run,
      NpcOp            *data)
{
  gg_oam_queue_push (npc->queue, gg_oam_op_new (request, run, data, (GDestroyNotify) npc_op_free));
}

static gboolean
start_or_cancel (GgOamOp *op)
{
  g_autoptr(GError) cancelled = NULL;

  if (gg_oam_op_commit (op))
    return TRUE;
  cancelled = gg_oam_error_cancelled ();
  gg_oam_op_return_error (op, cancelled);
  return FALSE;
}

/* ---- background compaction --------------------------------------------- */

static guint
split_recent (JsonArray *history,
              gint64     keep)
{
  guint n = json_array_get_length (history);
  gint64 seen = 0;

  if (keep == 0)
    return n;
  for (guint i = n; i > 0; i--)
    if (g_strcmp0 (json_object_get_string_member_with_default (json_array_get_object_element (history, i - 1),
                                                               "role", ""), "user") == 0 &&
        ++seen == keep)
      return i - 1;
  return 0;
}

static void
compact_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  GgOamOp *op = user_data;
  NpcOp *data = op->data;
  GgOamNpc *npc = data->npc;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) outcome = gg_agent_turn_run_finish (GG_AGENT_TURN (source), result, &error);
  const char *summary;

  if (outcome == NULL || !gg_oam_op_commit (op))
    {
      if (error != NULL)
        g_debug ("oam: compaction of NPC %s failed: %s", npc->id, error->message);
      gg_oam_op_return_result (op, NULL);
      return;
    }
  summary = json_object_get_string_member_with_default (outcome, "text", "");
  if (npc->summary != NULL && *npc->summary != '\0')
    {
      char *joined = g_strdup_printf ("%s %s", npc->summary, summary);
      g_free (npc->summary);
      npc->summary = joined;
    }
  else
    {
      g_free (npc->summary);
      npc->summary = g_strdup (summary);
    }
  /* Turns that finished meanwhile cannot exist: compaction is queued. */
  g_clear_pointer (&npc->history, json_array_unref);
  npc->history = json_array_ref (data->recent);
  npc->turns_since_compaction = 0;
  gg_oam_op_return_result (op, NULL);
}

static void
compact_run (GgOamOp *op)
{
  NpcOp *data = op->data;
  GgOamNpc *npc = data->npc;
  g_autoptr(GgAgentTurn) turn = NULL;
  GgAgentPolicy policy;
  guint split;

  if (g_cancellable_is_cancelled (op->cancellable))
    {
      gg_oam_op_return_result (op, NULL);
      return;
    }
  split = split_recent (npc->history, gg_oam_npc_option_int (npc, "keepRecentTurns"));
  if (split == 0)
    {
      gg_oam_op_return_result (op, NULL);
      return;
    }
  data->old = json_array_new ();
  data->recent = json_array_new ();
  for (guint i = 0; i < json_array_get_length (npc->history); i++)
    json_array_add_element (i < split ? data->old : data->recent,
                            json_node_copy (json_array_get_element (npc->history, i)));
  gg_agent_policy_init (&policy);
  policy.tool_choice = GG_TOOL_CHOICE_NONE;
  turn = gg_agent_turn_new (npc->model, SUMMARY_INSTRUCTIONS, data->old, NULL, SUMMARY_PROMPT, NULL, &policy);
  gg_agent_policy_clear (&policy);
  gg_agent_turn_run_async (turn, op->cancellable, compact_cb, op);
}

static void
maybe_compact (GgOamConnection *conn,
               GgOamNpc        *npc)
{
  gint64 after = gg_oam_npc_option_int (npc, "compactAfterTurns");

  if (after <= 0 || npc->turns_since_compaction < after)
    return;
  npc->turns_since_compaction = 0;
  /* Before anything already waiting, so a settling npc/state sees it. */
  gg_oam_queue_push_front (npc->queue, gg_oam_op_new (NULL, compact_run, npc_op_new (conn, npc, NULL, NULL),
                                                      (GDestroyNotify) npc_op_free));
}

/* ---- npc/talk ---------------------------------------------------------- */

static void
emit (NpcOp      *data,
      JsonObject *event)
{
  g_autoptr(JsonObject) params = gg_oam_turn_event_params ("npc", data->npc->id, data->request_id, event);

  gg_oam_connection_notify (data->conn, "npc/event", params);
}

static void
emit_emotion (NpcOp      *data,
              const char *emotion)
{
  g_autoptr(JsonObject) event = json_object_new ();

  json_object_set_string_member (event, "type", "emotion");
  json_object_set_string_member (event, "emotion", emotion);
  emit (data, event);
  data->emotion_sent = TRUE;
}

/* Brings the client's line to @line: a delta when it extends what was
 * shown, a reset otherwise. */
static void
sync_line (NpcOp      *data,
           const char *line)
{
  g_autoptr(JsonObject) event = json_object_new ();

  if (g_str_equal (data->shown->str, line))
    return;
  if (g_str_has_prefix (line, data->shown->str))
    {
      json_object_set_string_member (event, "type", "lineDelta");
      json_object_set_string_member (event, "delta", line + data->shown->len);
    }
  else
    {
      json_object_set_string_member (event, "type", "lineReset");
      json_object_set_string_member (event, "line", line);
    }
  g_string_assign (data->shown, line);
  emit (data, event);
}

static void
on_talk_event (JsonObject *event,
               gpointer    user_data)
{
  NpcOp *data = user_data;
  const char *type = json_object_get_string_member_with_default (event, "type", "");

  if (g_str_equal (type, "toolCallCompleted"))
    json_array_add_object_element (data->records,
                                   json_object_ref (json_object_get_object_member (event, "record")));
  if (!data->stream)
    return;
  if (g_str_equal (type, "toolCallStarted"))
    {
      g_autoptr(JsonObject) copy = json_object_new ();
      JsonObject *call = json_object_get_object_member (event, "call");
      const char *name = json_object_get_string_member_with_default (call, "name", "");

      json_object_set_string_member (copy, "type", "toolCallStarted");
      json_object_set_object_member (copy, "call", json_object_ref (call));
      json_object_set_string_member (copy, "execution",
                                     gg_oam_npc_is_local_tool (data->npc, name) ? "local" : "client");
      emit (data, copy);
    }
  else if (g_str_equal (type, "toolCallCompleted"))
    emit (data, event);
  else if (g_str_equal (type, "text") && !data->structured)
    {
      const char *text = json_object_get_string_member_with_default (event, "text", "");
      g_autofree char *emotion = NULL;
      g_autofree char *line = NULL;
      const char *p = text;

      while (g_ascii_isspace (*p))
        p++;
      /* Wait for the whole [emotion] tag before showing anything. */
      if (*p == '[' && strchr (p, ']') == NULL)
        return;
      gg_oam_npc_parse_text_reply (data->npc, text, &emotion, &line);
      if (!data->emotion_sent)
        emit_emotion (data, emotion);
      sync_line (data, line);
    }
}

static void
npc_execute (GgToolInvocation *invocation,
             gpointer          user_data)
{
  NpcOp *data = user_data;

  if (gg_oam_npc_is_local_tool (data->npc, gg_tool_invocation_get_name (invocation)))
    {
      gg_oam_npc_run_local_tool (data->npc, invocation);
      g_object_unref (invocation);
      return;
    }
  gg_oam_tool_execute (invocation, data->tools);
}

static JsonObject *
usage_of (JsonObject *outcome)
{
  if (outcome != NULL && json_object_has_member (outcome, "usage"))
    return json_object_ref (json_object_get_object_member (outcome, "usage"));
  {
    JsonObject *usage = json_object_new ();

    json_object_set_int_member (usage, "inputTokens", 0);
    json_object_set_int_member (usage, "cachedInputTokens", 0);
    json_object_set_int_member (usage, "outputTokens", 0);
    json_object_set_int_member (usage, "totalTokens", 0);
    return usage;
  }
}

static void
talk_answer (GgOamOp    *op,
             const char *line,
             const char *emotion,
             JsonArray  *player_options,
             gboolean    ends,
             gboolean    is_fallback,
             JsonObject *outcome)
{
  NpcOp *data = op->data;
  JsonObject *object = npc_result (data->npc);

  if (data->stream)
    {
      if (!data->emotion_sent || is_fallback)
        emit_emotion (data, emotion);
      sync_line (data, line);
    }
  json_object_set_string_member (object, "line", line);
  json_object_set_string_member (object, "emotion", emotion);
  json_object_set_array_member (object, "playerOptions",
                                player_options != NULL ? json_array_ref (player_options) : json_array_new ());
  json_object_set_boolean_member (object, "endsConversation", ends);
  json_object_set_array_member (object, "toolCalls", json_array_ref (data->records));
  json_object_set_int_member (object, "relationship", data->npc->relationship);
  json_object_set_boolean_member (object, "isFallback", is_fallback);
  json_object_set_object_member (object, "usage", usage_of (outcome));
  if (data->warnings->len > 0)
    json_object_set_member (object, "warnings", gg_oam_warnings_to_json (data->warnings));
  gg_oam_op_return_result (op, object_node (object));
}

static void start_talk_turn (GgOamOp *op);

static gboolean
is_blocked (const GError *error)
{
  return g_error_matches (error, GG_MODEL_ERROR, GG_MODEL_ERROR_GUARDRAIL_VIOLATION) ||
         g_error_matches (error, GG_MODEL_ERROR, GG_MODEL_ERROR_REFUSAL);
}

static void
talk_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  GgOamOp *op = user_data;
  NpcOp *data = op->data;
  GgOamNpc *npc = data->npc;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) outcome = gg_agent_turn_run_finish (GG_AGENT_TURN (source), result, &error);
  g_autoptr(GgOamConnection) conn = NULL;
  g_autoptr(GgOamNpc) hold = NULL;
  const char *format = gg_oam_npc_option_string (npc, "replyFormat");

  if (g_cancellable_is_cancelled (op->cancellable))
    {
      g_autoptr(GError) cancelled = gg_oam_error_cancelled ();
      gg_oam_op_return_error (op, cancelled);
      return;
    }
  if (outcome == NULL)
    {
      if (is_blocked (error) && data->structured && g_str_equal (format, "automatic"))
        {
          /* One plain-text retry with tools off; gathered tool results are
           * given to it in the prompt. */
          data->structured = FALSE;
          data->retrying = TRUE;
          start_talk_turn (op);
          return;
        }
      if (is_blocked (error) && gg_oam_npc_option_bool (npc, "fallbackOnGuardrail"))
        {
          /* The blocked exchange stays out of the history. */
          if (!gg_oam_op_commit (op))
            return;
          talk_answer (op, gg_oam_npc_next_fallback (npc),
                       json_object_get_string_member (npc->persona, "defaultEmotion"),
                       NULL, FALSE, TRUE, NULL);
          return;
        }
      gg_oam_op_return_error (op, error);
      return;
    }
  if (!gg_oam_op_commit (op))
    {
      g_autoptr(GError) cancelled = gg_oam_error_cancelled ();
      gg_oam_op_return_error (op, cancelled);
      return;
    }

  /* Answering frees the operation (and may start the next one). */
  conn = g_object_ref (data->conn);
  hold = g_object_ref (npc);
  gg_oam_append_entries (npc->history, gg_agent_turn_get_new_entries (GG_AGENT_TURN (source)));
  npc->turn_count++;
  npc->turns_since_compaction++;
  if (data->structured && json_object_has_member (outcome, "structured") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (outcome, "structured")))
    {
      JsonObject *reply = json_object_get_object_member (outcome, "structured");
      const char *emotion = gg_oam_object_string (reply, "emotion", NULL);
      JsonArray *options = json_object_has_member (reply, "player_options") ?
                           json_object_get_array_member (reply, "player_options") : NULL;

      if (emotion == NULL)
        emotion = json_object_get_string_member (npc->persona, "defaultEmotion");
      talk_answer (op, gg_oam_object_string (reply, "line", ""), emotion, options,
                   gg_oam_object_bool (reply, "ends_conversation", FALSE),
                   FALSE, outcome);
    }
  else
    {
      g_autofree char *emotion = NULL;
      g_autofree char *line = NULL;

      gg_oam_npc_parse_text_reply (npc, json_object_get_string_member_with_default (outcome, "text", ""),
                                   &emotion, &line);
      talk_answer (op, line, emotion, NULL, FALSE, FALSE, outcome);
    }
  maybe_compact (conn, hold);
}

static gboolean
talk_policy (NpcOp          *data,
             GgAgentPolicy  *policy,
             JsonArray      *tools,
             GError        **error)
{
  GgOamNpc *npc = data->npc;
  const char *grounding = gg_oam_npc_option_string (npc, "groundingTool");
  g_autoptr(JsonObject) wrapper = json_object_new ();

  gg_agent_policy_init (policy);
  policy->max_tool_rounds = gg_oam_npc_option_int (npc, "maxToolRounds");
  policy->max_tool_calls = gg_oam_npc_option_int (npc, "maxToolCalls");
  policy->tool_timeout_ms = (gint64) (json_object_get_double_member (npc->options, "toolTimeoutSeconds") * 1000.0);
  if (data->retrying)
    {
      policy->tool_choice = GG_TOOL_CHOICE_NONE;
      return TRUE;
    }
  if (gg_oam_param (data->params, "toolChoice") != NULL)
    {
      if (!gg_oam_parse_tool_choice (data->params, NULL, "toolChoice", &policy->tool_choice,
                                     &policy->forced_tool, error))
        return FALSE;
      if (policy->tool_choice == GG_TOOL_CHOICE_TOOL && !gg_oam_tools_has (tools, policy->forced_tool))
        {
          g_propagate_error (error, gg_oam_error_new (GG_OAM_INVALID_REQUEST, NULL,
                                                      "The NPC has no tool '%s'", policy->forced_tool));
          return FALSE;
        }
      return TRUE;
    }
  if (grounding != NULL)
    {
      policy->tool_choice = GG_TOOL_CHOICE_TOOL;
      policy->forced_tool = g_strdup (grounding);
      return TRUE;
    }
  json_object_set_member (wrapper, "toolChoice", json_node_copy (json_object_get_member (npc->options, "toolChoice")));
  return gg_oam_parse_tool_choice (wrapper, "options", "toolChoice", &policy->tool_choice,
                                   &policy->forced_tool, error);
}

static void
start_talk_turn (GgOamOp *op)
{
  NpcOp *data = op->data;
  GgOamNpc *npc = data->npc;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) tools = gg_oam_npc_all_tools (npc);
  g_autofree char *instructions = gg_oam_npc_instructions (npc, !data->structured);
  g_autofree char *prompt = gg_oam_npc_prompt (npc, data->line, data->context);
  g_autoptr(JsonNode) schema = data->structured ? gg_oam_npc_reply_schema (npc) : NULL;
  g_autoptr(JsonObject) context = json_object_new ();
  JsonNode *temperature = json_object_get_member (npc->options, "temperature");
  GgAgentPolicy policy;

  if (!talk_policy (data, &policy, tools, &error))
    {
      gg_agent_policy_clear (&policy);
      gg_oam_op_return_error (op, error);
      return;
    }
  if (data->retrying && json_array_get_length (data->records) > 0)
    {
      GString *text = g_string_new (prompt);

      g_string_append (text, "\nWhat your tools told you this turn:");
      for (guint i = 0; i < json_array_get_length (data->records); i++)
        {
          JsonObject *record = json_array_get_object_element (data->records, i);
          g_autofree char *output = gg_json_to_string (json_object_get_member (record, "output"));

          g_string_append_printf (text, "\n- %s: %s",
                                  json_object_get_string_member (json_object_get_object_member (record, "call"), "name"),
                                  output);
        }
      g_free (prompt);
      prompt = g_string_free (text, FALSE);
    }
  g_clear_object (&data->turn);
  data->turn = gg_agent_turn_new (npc->model, instructions, npc->history, data->retrying ? NULL : tools,
                                  prompt, schema, &policy);
  gg_agent_policy_clear (&policy);
  gg_agent_turn_set_sampling (data->turn, NULL,
                              temperature != NULL && !JSON_NODE_HOLDS_NULL (temperature) ?
                              json_node_get_double (temperature) : -1.0,
                              gg_oam_npc_option_int (npc, "maximumResponseTokens"));
  gg_agent_turn_set_streaming (data->turn, data->stream);
  gg_agent_turn_set_event_func (data->turn, on_talk_event, data, NULL);
  json_object_set_string_member (context, "npc", npc->id);
  g_clear_pointer (&data->tools, gg_oam_tool_context_free);
  data->tools = gg_oam_tool_context_new (data->conn->peer, context, data->request_id);
  gg_agent_turn_set_executor (data->turn, npc_execute, data, NULL);
  gg_agent_turn_run_async (data->turn, op->cancellable, talk_cb, op);
}

static void
talk_run (GgOamOp *op)
{
  NpcOp *data = op->data;

  if (g_cancellable_is_cancelled (op->cancellable))
    {
      g_autoptr(GError) cancelled = gg_oam_error_cancelled ();
      gg_oam_op_return_error (op, cancelled);
      return;
    }
  data->structured = !g_str_equal (gg_oam_npc_option_string (data->npc, "replyFormat"), "text");
  start_talk_turn (op);
}

static void
npc_talk (GgOamConnection  *conn,
          GgJsonRpcRequest *request,
          JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  static const char * const known[] = { "npc", "line", "context", "stream", "toolChoice", NULL };
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  GgOamNpc *npc = lookup (conn, params, &error);
  GgToolChoiceKind kind = GG_TOOL_CHOICE_AUTO;
  g_autofree char *forced = NULL;
  const char *line;
  gboolean stream;
  NpcOp *data;

  gg_oam_warn_unknown (params, NULL, known, warnings);
  if (npc == NULL ||
      !gg_oam_param_string (params, NULL, "line", TRUE, &line, &error) ||
      !gg_oam_param_bool (params, NULL, "stream", FALSE, &stream, &error) ||
      !gg_oam_parse_tool_choice (params, NULL, "toolChoice", &kind, &forced, &error))
    {
      gg_oam_return_error (request, error);
      return;
    }
  data = npc_op_new (conn, npc, request, params);
  g_ptr_array_extend_and_steal (data->warnings, g_steal_pointer (&warnings));
  data->stream = stream;
  data->line = g_strdup (line);
  data->context = gg_oam_param_text (params, "context");
  push (npc, request, talk_run, data);
}

/* ---- npc/bark ---------------------------------------------------------- */

typedef struct {
  GgOamConnection *conn;
  GgJsonRpcRequest *request;
  GCancellable *cancellable;
  char *npc;
} Bark;

static void
bark_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Bark *bark = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) outcome = gg_agent_turn_run_finish (GG_AGENT_TURN (source), result, &error);

  if (outcome != NULL && g_cancellable_is_cancelled (bark->cancellable))
    {
      g_clear_pointer (&outcome, json_object_unref);
      error = gg_oam_error_cancelled ();
    }
  if (outcome == NULL)
    gg_oam_return_error (g_steal_pointer (&bark->request), error);
  else
    {
      JsonObject *object = json_object_new ();

      json_object_set_string_member (object, "npc", bark->npc);
      json_object_set_string_member (object, "line", json_object_get_string_member_with_default (outcome, "text", ""));
      return_object (g_steal_pointer (&bark->request), object);
    }
  gg_oam_connection_end_work (bark->conn, bark->cancellable);
  g_object_unref (bark->cancellable);
  g_object_unref (bark->conn);
  g_free (bark->npc);
  g_free (bark);
}

static void
npc_bark (GgOamConnection  *conn,
          GgJsonRpcRequest *request,
          JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgAgentTurn) turn = NULL;
  g_autofree char *situation = gg_oam_param_text (params, "situation");
  g_autofree char *prompt = NULL;
  GgOamNpc *npc = lookup (conn, params, &error);
  JsonObject *p;
  GString *instructions;
  GgAgentPolicy policy;
  Bark *bark;

  if (npc == NULL)
    {
      gg_oam_return_error (request, error);
      return;
    }
  p = npc->persona;
  instructions = g_string_new (NULL);
  g_string_append_printf (instructions, "You play %s", json_object_get_string_member (p, "name"));
  if (*json_object_get_string_member (p, "role") != '\0')
    g_string_append_printf (instructions, ", %s", json_object_get_string_member (p, "role"));
  g_string_append (instructions, ", a character in a video game.");
  if (*json_object_get_string_member (p, "personality") != '\0')
    g_string_append_printf (instructions, "\nPersonality: %s", json_object_get_string_member (p, "personality"));
  if (*json_object_get_string_member (p, "speakingStyle") != '\0')
    g_string_append_printf (instructions, "\nSpeaking style: %s", json_object_get_string_member (p, "speakingStyle"));
  g_string_append (instructions, "\nSay one short line to nobody in particular, in character. "
                   "Never say you are an AI.");
  prompt = situation != NULL ? g_strdup_printf ("Situation: %s", situation) : g_strdup ("Say something.");

  /* A one-off session: no history, memory or tools. */
  gg_agent_policy_init (&policy);
  policy.tool_choice = GG_TOOL_CHOICE_NONE;
  turn = gg_agent_turn_new (npc->model, instructions->str, NULL, NULL, prompt, NULL, &policy);
  g_string_free (instructions, TRUE);
  gg_agent_policy_clear (&policy);
  gg_agent_turn_set_sampling (turn, NULL, -1.0, gg_oam_npc_option_int (npc, "barkMaximumTokens"));
  bark = g_new0 (Bark, 1);
  bark->conn = g_object_ref (conn);
  bark->request = request;
  bark->cancellable = gg_oam_connection_begin_work (conn);
  bark->npc = g_strdup (npc->id);
  gg_agent_turn_run_async (turn, bark->cancellable, bark_cb, bark);
}

/* ---- npc/state, npc/update, npc/reset ---------------------------------- */

static void
state_run (GgOamOp *op)
{
  NpcOp *data = op->data;
  JsonObject *object;

  if (!start_or_cancel (op))
    return;
  object = npc_result (data->npc);
  json_object_set_member (object, "state", gg_oam_npc_state (data->npc));
  gg_oam_op_return_result (op, object_node (object));
}

static void
npc_state (GgOamConnection  *conn,
           GgJsonRpcRequest *request,
           JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  GgOamNpc *npc = lookup (conn, params, &error);
  gboolean settle;
  JsonObject *object;

  if (npc == NULL || !gg_oam_param_bool (params, NULL, "settle", TRUE, &settle, &error))
    {
      gg_oam_return_error (request, error);
      return;
    }
  if (settle)
    {
      push (npc, request, state_run, npc_op_new (conn, npc, request, params));
      return;
    }
  object = npc_result (npc);
  json_object_set_member (object, "state", gg_oam_npc_state (npc));
  return_object (request, object);
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

  if (!start_or_cancel (op))
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
  object = npc_result (npc);
  json_object_set_member (object, "warnings", gg_oam_warnings_to_json (warnings));
  gg_oam_op_return_result (op, object_node (object));
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

  if (!start_or_cancel (op))
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
  gg_oam_op_return_result (op, object_node (npc_result (npc)));
}

static void
queue_simple (GgOamConnection  *conn,
              GgJsonRpcRequest *request,
              JsonObject       *params,
              GgOamOpFunc       run)
{
  g_autoptr(GError) error = NULL;
  GgOamNpc *npc = lookup (conn, params, &error);
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
    NpcOp *data = npc_op_new (conn, npc, request, params);

    if (run == update_run)
      {
        static const char * const update_params[] = { "npc", "persona", "options", "memory", "tools", NULL };
        gg_oam_warn_unknown (params, NULL, update_params, data->warnings);
      }
    push (npc, request, run, data);
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
  GgOamNpc *npc = lookup (conn, params, &error);
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
  object = npc_result (npc);
  json_object_set_int_member (object, "cancelled", count);
  return_object (request, object);
}

static void
npc_delete (GgOamConnection  *conn,
            GgJsonRpcRequest *request,
            JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  GgOamNpc *npc = lookup (conn, params, &error);
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
  object = npc_result (hold);
  json_object_set_boolean_member (object, "deleted", TRUE);
  return_object (request, object);
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
  return_object (request, object);
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
  gg_oam_connection_add_method (conn, "npc/talk", npc_talk);
  gg_oam_connection_add_method (conn, "npc/bark", npc_bark);
  gg_oam_connection_add_method (conn, "npc/state", npc_state);
  gg_oam_connection_add_method (conn, "npc/update", npc_update);
  gg_oam_connection_add_method (conn, "npc/reset", npc_reset);
  gg_oam_connection_add_method (conn, "npc/cancel", npc_cancel);
  gg_oam_connection_add_method (conn, "npc/delete", npc_delete);
  gg_oam_connection_add_method (conn, "npc/list", npc_list);
}
