/* gg-oam-content.c: content/generate: schema-shaped items, quests, loot
 * (spec section 6). Runs concurrently with everything else.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "gg-oam-connection.h"
#include "gg-oam-errors.h"
#include "gg-oam-params.h"
#include "gg-oam-schema.h"
#include "gg-oam-tools.h"

#define CONTENT_INSTRUCTIONS \
  "You generate content for a video game. Follow the requested format exactly and keep it consistent " \
  "with the game's context."

typedef struct {
  GgOamConnection *conn;
  GgJsonRpcRequest *request;
  GCancellable *cancellable;
  GPtrArray *warnings;
} Job;

static void
job_free (Job *job)
{
  gg_oam_connection_end_work (job->conn, job->cancellable);
  g_clear_object (&job->cancellable);
  g_clear_object (&job->conn);
  if (job->request != NULL)
    gg_jsonrpc_request_unref (job->request);
  g_ptr_array_unref (job->warnings);
  g_free (job);
}

static void
content_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Job *job = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) outcome = gg_agent_turn_run_finish (GG_AGENT_TURN (source), result, &error);
  g_autoptr(JsonNode) node = NULL;
  JsonObject *object;

  if (outcome != NULL && g_cancellable_is_cancelled (job->cancellable))
    {
      g_clear_pointer (&outcome, json_object_unref);
      error = gg_oam_error_cancelled ();
    }
  if (outcome == NULL)
    {
      gg_oam_return_error (g_steal_pointer (&job->request), error);
      job_free (job);
      return;
    }
  object = json_object_new ();
  json_object_set_member (object, "content",
                          json_object_has_member (outcome, "structured") ?
                          json_node_copy (json_object_get_member (outcome, "structured")) :
                          json_node_new (JSON_NODE_NULL));
  if (job->warnings->len > 0)
    json_object_set_member (object, "warnings", gg_oam_warnings_to_json (job->warnings));
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, object);
  gg_jsonrpc_request_return_result (g_steal_pointer (&job->request), node);
  job_free (job);
}

static const char * const content_params[] = {
  "prompt", "schema", "instructions", "context", "tools", "toolTimeoutSeconds", "temperature",
  "model", NULL
};

static void
content_generate (GgOamConnection  *conn,
                  GgJsonRpcRequest *request,
                  JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(JsonNode) schema = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(GgModel) model = NULL;
  g_autoptr(GgAgentTurn) turn = NULL;
  g_autofree char *context = NULL;
  g_autofree char *prompt_text = NULL;
  g_autofree char *full_instructions = NULL;
  const char *prompt, *instructions;
  JsonObject *schema_object;
  JsonArray *tool_defs;
  GgAgentPolicy policy;
  double temperature;
  gint64 timeout_ms;
  Job *job;

  gg_oam_warn_unknown (params, NULL, content_params, warnings);
  if (!gg_oam_param_string (params, NULL, "prompt", TRUE, &prompt, &error) ||
      !gg_oam_param_object (params, NULL, "schema", TRUE, &schema_object, &error) ||
      !gg_oam_param_string (params, NULL, "instructions", FALSE, &instructions, &error) ||
      !gg_oam_param_array (params, NULL, "tools", FALSE, &tool_defs, &error) ||
      !gg_oam_param_seconds (params, NULL, "toolTimeoutSeconds", conn->settings.tool_timeout_ms,
                             &timeout_ms, &error) ||
      !gg_oam_param_double (params, NULL, "temperature", 0.0, INFINITY, -1.0, &temperature, &error))
    goto fail;
  schema = gg_oam_schema_convert (gg_oam_param (params, "schema"), "Content", NULL, warnings, &error);
  if (schema == NULL)
    goto fail;
  tools = gg_oam_tools_parse (tool_defs, "tools", warnings, &error);
  if (tools == NULL)
    goto fail;
  model = gg_oam_connection_create_model (conn, params, NULL, &error);
  if (model == NULL)
    goto fail;

  context = gg_oam_param_text (params, "context");
  prompt_text = context != NULL ? g_strdup_printf ("Context: %s\n\n%s", context, prompt) : g_strdup (prompt);
  full_instructions = instructions != NULL ? g_strdup_printf ("%s\n\n%s", CONTENT_INSTRUCTIONS, instructions)
                                           : g_strdup (CONTENT_INSTRUCTIONS);
  gg_agent_policy_init (&policy);
  policy.tool_timeout_ms = timeout_ms;
  turn = gg_agent_turn_new (model, full_instructions, NULL, tools, prompt_text, schema, &policy);
  gg_agent_policy_clear (&policy);
  gg_agent_turn_set_sampling (turn, NULL, temperature, 0);
  gg_oam_turn_use_client_tools (turn, conn->bus, conn->peer, NULL, gg_jsonrpc_request_get_id (request));

  job = g_new0 (Job, 1);
  job->conn = g_object_ref (conn);
  job->request = request;
  job->cancellable = gg_oam_connection_begin_work (conn);
  job->warnings = g_steal_pointer (&warnings);
  gg_agent_turn_run_async (turn, job->cancellable, content_cb, job);
  return;

fail:
  gg_oam_return_error (request, error);
}

/**
 * gg_oam_content_methods_register:
 * @conn: a connection
 *
 * Adds content/generate.
 */
void
gg_oam_content_methods_register (GgOamConnection *conn)
{
  gg_oam_connection_add_method (conn, "content/generate", content_generate);
}
