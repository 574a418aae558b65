/* gg-oam-decision.c: decision/decide and decision/decideMany (spec section
 * 6): the model writes a one-sentence reason, then an option id
 * (enum-constrained, so always valid), then a confidence. The decision
 * itself is plugin-api's GgDecision (shared with the a2g plugin); this file
 * holds oam's parameters, tools and result shape.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "gg-oam-connection.h"
#include "gg-oam-errors.h"
#include "gg-oam-npc.h"
#include "gg-oam-options.h"
#include "gg-oam-params.h"
#include "gg-oam-tools.h"

#define DECISION_INSTRUCTIONS \
  "You make decisions for a character in a video game. Think in one short sentence, " \
  "then choose exactly one of the options by its id, then rate your confidence from 0 to 100."

static const char * const engine_params[] = {
  "instructions", "temperature", "maxToolRounds", "toolTimeoutSeconds", "model", NULL
};

static const char * const decide_params[] = {
  "situation", "options", "actor", "context", "tools", "toolChoice", "fallbackOptionID",
  "instructions", "temperature", "maxToolRounds", "toolTimeoutSeconds", "model", NULL
};

typedef struct _Batch Batch;

typedef struct {
  GgOamConnection *conn;
  Batch *batch;               /* decideMany, or NULL */
  guint index;
  GgJsonRpcRequest *request;  /* decide only */
  GCancellable *cancellable;
  GgDecision *decision;
  char *fallback;
  GPtrArray *warnings;
  JsonNode *result;           /* decideMany: the item's result */
} Decision;

struct _Batch {
  GgOamConnection *conn;
  GgJsonRpcRequest *request;
  GCancellable *cancellable;
  GPtrArray *decisions;       /* Decision, request order */
  guint next;
  guint running;
  guint done;
  gint64 max_concurrency;
  GPtrArray *warnings;
  gboolean pumping;
};

static void
decision_free (Decision *decision)
{
  g_clear_object (&decision->decision);
  g_clear_object (&decision->cancellable);
  g_clear_object (&decision->conn);
  if (decision->request != NULL)
    gg_jsonrpc_request_unref (decision->request);
  g_free (decision->fallback);
  g_clear_pointer (&decision->warnings, g_ptr_array_unref);
  g_clear_pointer (&decision->result, json_node_unref);
  g_free (decision);
}

static JsonObject *
usage_zero (void)
{
  JsonObject *usage = json_object_new ();

  json_object_set_int_member (usage, "inputTokens", 0);
  json_object_set_int_member (usage, "cachedInputTokens", 0);
  json_object_set_int_member (usage, "outputTokens", 0);
  json_object_set_int_member (usage, "totalTokens", 0);
  return usage;
}

static JsonNode *
decision_result (const char *option,
                 const char *reasoning,
                 gint64      confidence,
                 JsonArray  *tool_calls,
                 JsonObject *usage,
                 gboolean    is_fallback,
                 GPtrArray  *warnings)
{
  JsonObject *object = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (object, "optionID", option);
  json_object_set_string_member (object, "reasoning", reasoning);
  json_object_set_int_member (object, "confidence", confidence);
  json_object_set_array_member (object, "toolCalls", tool_calls != NULL ? json_array_ref (tool_calls)
                                                                         : json_array_new ());
  json_object_set_object_member (object, "usage", usage != NULL ? json_object_ref (usage) : usage_zero ());
  json_object_set_boolean_member (object, "isFallback", is_fallback);
  if (warnings != NULL && warnings->len > 0)
    json_object_set_member (object, "warnings", gg_oam_warnings_to_json (warnings));
  json_node_take_object (node, object);
  return node;
}

static void batch_pump (Batch *batch);

/* Delivers a finished decision: answers decide, or stores the item. */
static void
decision_finish (Decision     *decision,
                 JsonNode     *result,
                 const GError *error)
{
  Batch *batch = decision->batch;

  gg_oam_report_lifecycle (decision->conn, "decision/done", NULL, decision->cancellable, error);
  if (batch == NULL)
    {
      if (result != NULL)
        gg_jsonrpc_request_return_result (g_steal_pointer (&decision->request), result);
      else
        gg_oam_return_error (g_steal_pointer (&decision->request), error);
      gg_oam_connection_end_work (decision->conn, decision->cancellable);
      decision_free (decision);
      return;
    }
  if (result != NULL)
    decision->result = json_node_ref (result);
  else
    {
      JsonObject *object = json_object_new ();

      json_object_set_member (object, "error", gg_oam_error_to_json (error));
      decision->result = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (decision->result, object);
    }
  g_clear_object (&decision->decision);
  batch->running--;
  batch->done++;
  batch_pump (batch);
}

static const GgDecisionFormat oam_format = {
  .reason_key = "reasoning",
  .option_key = "optionID",
};

static void
decide_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Decision *decision = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GgDecisionResult) outcome = gg_decision_run_finish (GG_DECISION (source), result, &error);
  g_autoptr(JsonNode) node = NULL;

  if (outcome != NULL && !outcome->forced && g_cancellable_is_cancelled (decision->cancellable))
    {
      g_clear_pointer (&outcome, gg_decision_result_free);
      error = gg_oam_error_cancelled ();
    }
  if (outcome == NULL)
    {
      if (decision->fallback != NULL &&
          (g_error_matches (error, GG_MODEL_ERROR, GG_MODEL_ERROR_GUARDRAIL_VIOLATION) ||
           g_error_matches (error, GG_MODEL_ERROR, GG_MODEL_ERROR_REFUSAL)))
        {
          node = decision_result (decision->fallback, "", 0, NULL, NULL, TRUE, decision->warnings);
          decision_finish (decision, node, NULL);
          return;
        }
      decision_finish (decision, NULL, error);
      return;
    }
  node = decision_result (outcome->option, outcome->reason, outcome->confidence, outcome->tool_calls,
                          outcome->usage, FALSE, decision->warnings);
  decision_finish (decision, node, NULL);
}

/* Each turn of a decision calls the client's tools. */
typedef struct {
  GgBus *bus;
  GgJsonRpcPeer *peer;
  JsonObject *context;
  JsonNode *request_id;
} ToolSetup;

static void
tool_setup_free (ToolSetup *setup)
{
  g_clear_object (&setup->bus);
  g_clear_object (&setup->peer);
  g_clear_pointer (&setup->context, json_object_unref);
  g_clear_pointer (&setup->request_id, json_node_unref);
  g_free (setup);
}

static void
setup_turn (GgAgentTurn *turn,
            gpointer     user_data)
{
  ToolSetup *setup = user_data;

  gg_oam_turn_use_client_tools (turn, setup->bus, setup->peer, setup->context, setup->request_id);
}

static char *
persona_text (JsonObject *persona)
{
  g_autoptr(GString) text = g_string_new (NULL);
  const char *keys[] = { "personality", "speakingStyle", "backstory", NULL };
  const char *labels[] = { "Personality", "Speaking style", "Backstory" };

  g_string_append_printf (text, "You decide as %s",
                          gg_oam_object_string (persona, "name", "the character"));
  if (gg_oam_object_string (persona, "role", NULL) != NULL)
    g_string_append_printf (text, ", %s", gg_oam_object_string (persona, "role", NULL));
  g_string_append (text, ".");
  for (guint i = 0; keys[i] != NULL; i++)
    if (json_object_has_member (persona, keys[i]) &&
        json_node_get_value_type (json_object_get_member (persona, keys[i])) == G_TYPE_STRING)
      g_string_append_printf (text, "\n%s: %s", labels[i], json_object_get_string_member (persona, keys[i]));
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* Validates one decision's params and builds its turn (or its immediate
 * answer). @engine holds decideMany's shared settings. */
static Decision *
decision_prepare (GgOamConnection  *conn,
                  JsonObject       *params,
                  JsonObject       *engine,
                  const char       *prefix,
                  JsonObject       *tool_context,
                  JsonNode         *request_id,
                  GError          **error)
{
  g_autoptr(JsonObject) merged = json_object_new ();
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(JsonArray) ids = json_array_new ();
  g_autoptr(GString) prompt = g_string_new (NULL);
  g_autoptr(GString) instructions = g_string_new (DECISION_INSTRUCTIONS);
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(GgModel) model = NULL;
  g_autofree char *situation = NULL;
  g_autofree char *context = NULL;
  JsonObjectIter iter;
  const char *name, *fallback, *extra;
  JsonNode *value, *actor;
  JsonArray *options, *tool_defs;
  GgAgentPolicy policy;
  double temperature;
  Decision *decision;

  /* Shared engine settings first; the decision's own members win. */
  if (engine != NULL)
    for (guint i = 0; engine_params[i] != NULL; i++)
      if (gg_oam_param (engine, engine_params[i]) != NULL)
        json_object_set_member (merged, engine_params[i],
                                json_node_copy (json_object_get_member (engine, engine_params[i])));
  json_object_iter_init_ordered (&iter, params);
  while (json_object_iter_next_ordered (&iter, &name, &value))
    if (!JSON_NODE_HOLDS_NULL (value))
      json_object_set_member (merged, name, json_node_copy (value));
  gg_oam_warn_unknown (params, prefix, decide_params, warnings);

  situation = gg_oam_param_text (merged, "situation");
  if (situation == NULL)
    {
      g_autofree char *full = gg_oam_param_name (prefix, "situation");
      g_propagate_error (error, gg_oam_invalid_params ("'%s' is required", full));
      return NULL;
    }
  if (!gg_oam_param_array (merged, prefix, "options", TRUE, &options, error) ||
      !gg_oam_param_string (merged, prefix, "fallbackOptionID", FALSE, &fallback, error) ||
      !gg_oam_param_string (merged, prefix, "instructions", FALSE, &extra, error) ||
      !gg_oam_param_array (merged, prefix, "tools", FALSE, &tool_defs, error) ||
      !gg_oam_param_double (merged, prefix, "temperature", 0.0, INFINITY, -1.0, &temperature, error))
    return NULL;
  if (json_array_get_length (options) == 0)
    {
      g_autofree char *full = gg_oam_param_name (prefix, "options");
      g_propagate_error (error, gg_oam_invalid_params ("'%s' must not be empty", full));
      return NULL;
    }

  g_string_append_printf (prompt, "Situation: %s\n", situation);
  context = gg_oam_param_text (merged, "context");
  if (context != NULL)
    g_string_append_printf (prompt, "Context: %s\n", context);
  g_string_append (prompt, "Options:\n");
  for (guint i = 0; i < json_array_get_length (options); i++)
    {
      JsonNode *item = json_array_get_element (options, i);
      g_autofree char *full = gg_oam_param_name (prefix, "options");
      const char *id = NULL, *description = NULL;

      if (json_node_get_value_type (item) == G_TYPE_STRING)
        id = json_node_get_string (item);
      else if (JSON_NODE_HOLDS_OBJECT (item))
        {
          g_autofree char *item_name = g_strdup_printf ("%s[%u]", full, i);
          if (!gg_oam_param_string (json_node_get_object (item), item_name, "id", TRUE, &id, error) ||
              !gg_oam_param_string (json_node_get_object (item), item_name, "description", FALSE,
                                    &description, error))
            return NULL;
        }
      if (id == NULL || *id == '\0')
        {
          g_propagate_error (error, gg_oam_invalid_params ("'%s[%u]' must be an id string or "
                                                           "{\"id\", \"description\"}", full, i));
          return NULL;
        }
      if (!g_hash_table_add (seen, (gpointer) id))
        {
          g_propagate_error (error, gg_oam_invalid_params ("'%s[%u]': duplicate option id '%s'",
                                                           full, i, id));
          return NULL;
        }
      json_array_add_string_element (ids, id);
      if (description != NULL)
        g_string_append_printf (prompt, "- %s: %s\n", id, description);
      else
        g_string_append_printf (prompt, "- %s\n", id);
    }
  if (fallback != NULL && !g_hash_table_contains (seen, fallback))
    {
      g_autofree char *full = gg_oam_param_name (prefix, "fallbackOptionID");
      g_propagate_error (error, gg_oam_invalid_params ("'%s': '%s' is not one of the options",
                                                       full, fallback));
      return NULL;
    }

  actor = gg_oam_param (merged, "actor");
  if (actor != NULL)
    {
      g_autofree char *text = NULL;

      if (JSON_NODE_HOLDS_OBJECT (actor))
        text = persona_text (json_node_get_object (actor));
      else if (json_node_get_value_type (actor) == G_TYPE_STRING)
        {
          text = gg_oam_npc_describe (conn, json_node_get_string (actor), error);
          if (text == NULL)
            return NULL;
        }
      else
        {
          g_autofree char *full = gg_oam_param_name (prefix, "actor");
          g_propagate_error (error, gg_oam_invalid_params ("'%s' must be a persona object or an NPC id",
                                                           full));
          return NULL;
        }
      g_string_append_printf (instructions, "\n\n%s", text);
    }
  if (extra != NULL)
    g_string_append_printf (instructions, "\n\n%s", extra);

  gg_agent_policy_init (&policy);
  policy.max_tool_rounds = 2;
  policy.tool_timeout_ms = conn->settings.tool_timeout_ms;
  if (!gg_oam_parse_tool_choice (merged, prefix, "toolChoice", &policy.tool_choice,
                                 &policy.forced_tool, error) ||
      !gg_oam_param_int (merged, prefix, "maxToolRounds", 0, G_MAXINT32, 2, &policy.max_tool_rounds, error) ||
      !gg_oam_param_seconds (merged, prefix, "toolTimeoutSeconds", conn->settings.tool_timeout_ms,
                             &policy.tool_timeout_ms, error))
    goto fail;
  tools = gg_oam_tools_parse (tool_defs, prefix != NULL ? prefix : "tools", warnings, error);
  if (tools == NULL)
    goto fail;
  if (policy.tool_choice == GG_TOOL_CHOICE_TOOL && !gg_oam_tools_has (tools, policy.forced_tool))
    {
      g_autofree char *full = gg_oam_param_name (prefix, "toolChoice");
      g_propagate_error (error, gg_oam_invalid_params ("'%s': there is no tool '%s'", full,
                                                       policy.forced_tool));
      goto fail;
    }
  model = gg_oam_connection_create_model (conn, merged, NULL, error);
  if (model == NULL)
    goto fail;

  decision = g_new0 (Decision, 1);
  decision->conn = g_object_ref (conn);
  decision->fallback = g_strdup (fallback);
  decision->warnings = g_steal_pointer (&warnings);
  decision->decision = gg_decision_new (model, instructions->str, prompt->str, ids, &oam_format);
  gg_decision_set_tools (decision->decision, tools, &policy);
  gg_decision_set_temperature (decision->decision, temperature);
  {
    ToolSetup *setup = g_new0 (ToolSetup, 1);

    setup->bus = g_object_ref (conn->bus);
    setup->peer = g_object_ref (conn->peer);
    setup->context = tool_context != NULL ? json_object_ref (tool_context) : NULL;
    setup->request_id = request_id != NULL ? json_node_copy (request_id) : NULL;
    gg_decision_set_turn_func (decision->decision, setup_turn, setup, (GDestroyNotify) tool_setup_free);
  }
  gg_agent_policy_clear (&policy);
  return decision;

fail:
  gg_agent_policy_clear (&policy);
  return NULL;
}

static void
decision_start (Decision *decision)
{
  /* One option is answered without the model (by GgDecision). */
  gg_decision_run_async (decision->decision, decision->cancellable, decide_cb, decision);
}

static void
decision_decide (GgOamConnection  *conn,
                 GgJsonRpcRequest *request,
                 JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  Decision *decision = decision_prepare (conn, params, NULL, NULL, NULL,
                                         gg_jsonrpc_request_get_id (request), &error);

  if (decision == NULL)
    {
      gg_oam_return_error (request, error);
      return;
    }
  decision->request = request;
  decision->cancellable = gg_oam_connection_begin_work (conn);
  decision_start (decision);
}

static void
batch_free (Batch *batch)
{
  gg_oam_connection_end_work (batch->conn, batch->cancellable);
  g_ptr_array_unref (batch->decisions);
  g_clear_object (&batch->cancellable);
  g_clear_object (&batch->conn);
  g_clear_pointer (&batch->warnings, g_ptr_array_unref);
  if (batch->request != NULL)
    gg_jsonrpc_request_unref (batch->request);
  g_free (batch);
}

static gboolean
remove_source (gpointer user_data)
{
  return G_SOURCE_REMOVE;
}

static void
batch_pump (Batch *batch)
{
  /* Single-option items finish synchronously: loop, never recurse. */
  if (batch->pumping)
    return;
  batch->pumping = TRUE;
  while (batch->next < batch->decisions->len && batch->running < batch->max_concurrency)
    {
      Decision *decision = g_ptr_array_index (batch->decisions, batch->next++);

      if (decision->result != NULL)
        {
          batch->done++;
          continue;
        }
      batch->running++;
      decision_start (decision);
    }
  batch->pumping = FALSE;
  if (batch->done == batch->decisions->len && batch->request != NULL)
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
      JsonObject *object = json_object_new ();
      JsonArray *results = json_array_new ();

      for (guint i = 0; i < batch->decisions->len; i++)
        json_array_add_element (results, json_node_ref (((Decision *) g_ptr_array_index (batch->decisions, i))->result));
      json_object_set_array_member (object, "results", results);
      if (batch->warnings->len > 0)
        json_object_set_member (object, "warnings", gg_oam_warnings_to_json (batch->warnings));
      json_node_take_object (node, object);
      gg_jsonrpc_request_return_result (g_steal_pointer (&batch->request), node);
      /* Defer the free: this may run inside a decision's callback. */
      gg_oam_schedule (0, remove_source, batch, (GDestroyNotify) batch_free);
    }
}

static const char * const many_params[] = {
  "requests", "maxConcurrency", "instructions", "temperature", "maxToolRounds",
  "toolTimeoutSeconds", "model", NULL
};

static void
decision_decide_many (GgOamConnection  *conn,
                      GgJsonRpcRequest *request,
                      JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  JsonArray *requests;
  gint64 concurrency;
  Batch *batch;

  if (!gg_oam_param_array (params, NULL, "requests", TRUE, &requests, &error) ||
      !gg_oam_param_int (params, NULL, "maxConcurrency", 1, 64, 2, &concurrency, &error))
    {
      gg_oam_return_error (request, error);
      return;
    }
  batch = g_new0 (Batch, 1);
  batch->conn = g_object_ref (conn);
  batch->request = request;
  batch->cancellable = gg_oam_connection_begin_work (conn);
  batch->decisions = g_ptr_array_new_with_free_func ((GDestroyNotify) decision_free);
  batch->max_concurrency = concurrency;
  batch->warnings = g_ptr_array_new_with_free_func (g_free);
  gg_oam_warn_unknown (params, NULL, many_params, batch->warnings);

  for (guint i = 0; i < json_array_get_length (requests); i++)
    {
      g_autoptr(GError) item_error = NULL;
      g_autofree char *prefix = g_strdup_printf ("requests[%u]", i);
      g_autoptr(JsonObject) tool_context = json_object_new ();
      JsonNode *item = json_array_get_element (requests, i);
      Decision *decision = NULL;

      json_object_set_int_member (tool_context, "index", i);
      if (!JSON_NODE_HOLDS_OBJECT (item))
        item_error = gg_oam_invalid_params ("'%s' must be an object", prefix);
      else
        decision = decision_prepare (conn, json_node_get_object (item), params, prefix, tool_context,
                                     gg_jsonrpc_request_get_id (request), &item_error);
      if (decision == NULL)
        {
          JsonObject *object = json_object_new ();

          decision = g_new0 (Decision, 1);
          decision->conn = g_object_ref (conn);
          json_object_set_member (object, "error", gg_oam_error_to_json (item_error));
          decision->result = json_node_new (JSON_NODE_OBJECT);
          json_node_take_object (decision->result, object);
        }
      decision->batch = batch;
      decision->index = i;
      decision->cancellable = g_object_ref (batch->cancellable);
      g_ptr_array_add (batch->decisions, decision);
    }
  batch_pump (batch);
}

/**
 * gg_oam_decision_methods_register:
 * @conn: a connection
 *
 * Adds decision/decide and decision/decideMany.
 */
void
gg_oam_decision_methods_register (GgOamConnection *conn)
{
  gg_oam_connection_add_method (conn, "decision/decide", decision_decide);
  gg_oam_connection_add_method (conn, "decision/decideMany", decision_decide_many);
}
