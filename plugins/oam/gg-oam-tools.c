/* gg-oam-tools.c: client tool definitions (spec section 9) and the executor
 * that turns a GgToolInvocation into a `tool/call` request to the client,
 * with every reply form of section 7 and `tool/cancel` when the turn stops
 * waiting.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-oam-errors.h"
#include "gg-oam-params.h"
#include "gg-oam-schema.h"
#include "gg-oam-tools.h"

#define RECOMMENDED_MAX_TOOLS 5

static gboolean
is_valid_tool_name (const char *name)
{
  gsize length = strlen (name);

  if (length < 1 || length > 64)
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '_' && *p != '-' && *p != '.')
      return FALSE;
  return TRUE;
}

/**
 * gg_oam_tool_parse:
 * @definition: one tool definition (plain, or OpenAI's function wrapper)
 * @param: its parameter name for messages ("tools[0]")
 * @generation_schema: (out) (optional) (transfer full): the converted
 *   `parameters`
 * @warnings: (nullable): unenforced constraints, a missing description
 * @error: -32602 for a malformed definition, -32007 for unusable parameters
 *
 * Returns: (transfer full): the normalized definition
 *   `{"name","description"?,"parameters","timeoutSeconds"?}` the agent turn
 *   takes, plus `"execution":"target","target","tool"` for a tool a game on
 *   the bus runs (a gamegate extension), or %NULL
 */
JsonObject *
gg_oam_tool_parse (JsonNode   *definition,
                   const char *param,
                   JsonNode  **generation_schema,
                   GPtrArray  *warnings,
                   GError    **error)
{
  g_autoptr(JsonObject) tool = json_object_new ();
  g_autofree char *inner_param = NULL;
  JsonObject *object;
  JsonObject *function;
  JsonNode *parameters;
  g_autoptr(JsonNode) converted = NULL;
  const char *name, *description, *execution, *type;
  const char *target = NULL, *target_tool = NULL;
  gint64 timeout_ms;

  if (definition == NULL || !JSON_NODE_HOLDS_OBJECT (definition))
    {
      g_propagate_error (error, gg_oam_invalid_params ("'%s' must be an object", param));
      return NULL;
    }
  object = json_node_get_object (definition);
  inner_param = g_strdup (param);

  /* OpenAI's {"type": "function", "function": {…}} wrapper. */
  if (!gg_oam_param_string (object, param, "type", FALSE, &type, error))
    return NULL;
  if (type != NULL && g_str_equal (type, "function") && gg_oam_param (object, "function") != NULL)
    {
      if (!gg_oam_param_object (object, param, "function", TRUE, &function, error))
        return NULL;
      object = function;
      g_free (inner_param);
      inner_param = g_strdup_printf ("%s.function", param);
    }

  if (!gg_oam_param_string (object, inner_param, "name", TRUE, &name, error) ||
      !gg_oam_param_string (object, inner_param, "description", FALSE, &description, error) ||
      !gg_oam_param_string (object, inner_param, "execution", FALSE, &execution, error) ||
      !gg_oam_param_seconds (object, inner_param, "timeoutSeconds", -1, &timeout_ms, error))
    return NULL;
  if (!is_valid_tool_name (name))
    {
      g_propagate_error (error, gg_oam_invalid_params ("'%s.name' must be 1-64 of A-Z a-z 0-9 _ - .",
                                                       inner_param));
      return NULL;
    }
  if (execution != NULL && !g_str_equal (execution, "client") && !g_str_equal (execution, "target"))
    {
      g_propagate_error (error, gg_oam_invalid_params ("'%s.execution' must be \"client\" or \"target\"",
                                                       inner_param));
      return NULL;
    }
  /* gamegate extension: a game on the bus runs the tool. */
  if (execution != NULL && g_str_equal (execution, "target"))
    {
      if (!gg_oam_param_string (object, inner_param, "target", TRUE, &target, error) ||
          !gg_oam_param_string (object, inner_param, "tool", FALSE, &target_tool, error))
        return NULL;
      if (*target == '\0' || (target_tool != NULL && *target_tool == '\0'))
        {
          g_propagate_error (error, gg_oam_invalid_params ("'%s.%s' must not be empty", inner_param,
                                                           *target == '\0' ? "target" : "tool"));
          return NULL;
        }
    }

  parameters = gg_oam_param (object, "parameters");
  if (parameters != NULL)
    {
      converted = gg_oam_schema_convert (parameters, NULL, name, warnings, error);
      if (converted == NULL)
        return NULL;
    }
  else
    {
      /* No arguments. */
      JsonObject *empty = json_object_new ();

      json_object_set_string_member (empty, "type", "object");
      json_object_set_object_member (empty, "properties", json_object_new ());
      converted = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (converted, empty);
    }

  json_object_set_string_member (tool, "name", name);
  if (description != NULL)
    json_object_set_string_member (tool, "description", description);
  else if (warnings != NULL)
    g_ptr_array_add (warnings, g_strdup_printf ("%s: no description; the model decides from it", name));
  json_object_set_member (tool, "parameters", json_node_copy (converted));
  if (timeout_ms >= 0)
    json_object_set_double_member (tool, "timeoutSeconds", (double) timeout_ms / 1000.0);
  if (target != NULL)
    {
      json_object_set_string_member (tool, "execution", "target");
      json_object_set_string_member (tool, "target", target);
      json_object_set_string_member (tool, "tool", target_tool != NULL ? target_tool : name);
    }
  if (generation_schema != NULL)
    *generation_schema = g_steal_pointer (&converted);
  return g_steal_pointer (&tool);
}

/**
 * gg_oam_tools_parse:
 * @definitions: the `tools` parameter
 * @param: its name for messages ("tools", "options.tools")
 * @warnings: (nullable): where warnings go
 * @error: -32602 (also for duplicate names) or -32007
 *
 * Returns: (transfer full): the normalized definitions, or %NULL
 */
JsonArray *
gg_oam_tools_parse (JsonArray  *definitions,
                    const char *param,
                    GPtrArray  *warnings,
                    GError    **error)
{
  g_autoptr(JsonArray) tools = json_array_new ();
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  guint n = definitions != NULL ? json_array_get_length (definitions) : 0;

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *item_param = g_strdup_printf ("%s[%u]", param, i);
      JsonObject *tool = gg_oam_tool_parse (json_array_get_element (definitions, i), item_param,
                                            NULL, warnings, error);
      const char *name;

      if (tool == NULL)
        return NULL;
      name = json_object_get_string_member (tool, "name");
      if (g_hash_table_contains (names, name))
        {
          json_object_unref (tool);
          g_propagate_error (error, gg_oam_invalid_params ("'%s.name': duplicate tool name", item_param));
          return NULL;
        }
      json_array_add_object_element (tools, tool);
      g_hash_table_add (names, (gpointer) name);
    }
  if (n > RECOMMENDED_MAX_TOOLS && warnings != NULL)
    g_ptr_array_add (warnings, g_strdup_printf ("%u tools: Apple recommends 3-5 tools per request "
                                                "on-device", n));
  return g_steal_pointer (&tools);
}

/**
 * gg_oam_tools_names:
 * @tools: (nullable): normalized definitions
 *
 * Returns: (transfer full): their names, in order
 */
char **
gg_oam_tools_names (JsonArray *tools)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; tools != NULL && i < json_array_get_length (tools); i++)
    g_strv_builder_add (builder, json_object_get_string_member (json_array_get_object_element (tools, i),
                                                                "name"));
  return g_strv_builder_end (builder);
}

/**
 * gg_oam_tools_has:
 * @tools: (nullable): normalized definitions
 * @name: a tool name
 */
gboolean
gg_oam_tools_has (JsonArray  *tools,
                  const char *name)
{
  for (guint i = 0; tools != NULL && i < json_array_get_length (tools); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (tools, i), "name"),
                   name) == 0)
      return TRUE;
  return FALSE;
}

/**
 * gg_oam_tools_to_json:
 * @tools: (nullable): normalized definitions
 *
 * Returns: (transfer full): an array of their names
 */
JsonNode *
gg_oam_tools_to_json (JsonArray *tools)
{
  g_auto(GStrv) names = gg_oam_tools_names (tools);
  JsonArray *array = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  for (guint i = 0; names[i] != NULL; i++)
    json_array_add_string_element (array, names[i]);
  json_node_take_array (node, array);
  return node;
}

/* ---- the executor ------------------------------------------------------ */

struct _GgOamToolContext {
  GgBus *bus;            /* runs the tools a game on the bus serves */
  GgJsonRpcPeer *peer;
  JsonObject *context;   /* {"session": …} / {"npc": …} / {"index": …} */
  JsonNode *request_id;
};

typedef struct {
  GgToolInvocation *invocation;
  GgJsonRpcPeer *peer;
  JsonObject *context;
  JsonNode *request_id;
  char *id;              /* "t-<n>" */
  GCancellable *cancellable;
  gulong cancel_handler;
  gboolean replied;
  GgBus *tap_bus;        /* set while the bus tap watches this call */
  gint64 tap_started;
} ToolCall;

/* The bus tap: a client tool call and its answer, as the calls to games
 * on the bus are reported (target "client"). */
static void
report_client_call (ToolCall     *call,
                    gboolean      is_result,
                    const GError *error,
                    JsonNode     *payload)
{
  const char *plugin = NULL, *session = NULL;
  const char *id = gg_bus_get_correlation (call->cancellable, &plugin, &session);
  GgBusRecord record = {
    .kind = is_result ? "tool-result" : "tool-call", .plugin = plugin, .target = "client",
    .session = session, .name = gg_tool_invocation_get_name (call->invocation), .correlation = id,
    .duration_us = is_result ? g_get_monotonic_time () - call->tap_started : -1,
    .error = error, .payload = payload,
  };

  gg_bus_report (call->tap_bus, &record);
}

/**
 * gg_oam_tool_context_new:
 * @bus: the bus, for tools a game on it runs
 * @peer: the client's peer
 * @context: (nullable): members put first in `tool/call` params
 * @request_id: (nullable): the id of the request that runs the turn
 *
 * Returns: (transfer full): executor data for gg_oam_tool_execute()
 */
GgOamToolContext *
gg_oam_tool_context_new (GgBus         *bus,
                         GgJsonRpcPeer *peer,
                         JsonObject    *context,
                         JsonNode      *request_id)
{
  GgOamToolContext *self = g_new0 (GgOamToolContext, 1);

  self->bus = g_object_ref (bus);
  self->peer = g_object_ref (peer);
  self->context = context != NULL ? json_object_ref (context) : json_object_new ();
  self->request_id = request_id != NULL ? json_node_copy (request_id) : NULL;
  return self;
}

/**
 * gg_oam_tool_context_free:
 * @context: (transfer full): executor data
 */
void
gg_oam_tool_context_free (GgOamToolContext *context)
{
  if (context == NULL)
    return;
  g_object_unref (context->bus);
  g_object_unref (context->peer);
  json_object_unref (context->context);
  g_clear_pointer (&context->request_id, json_node_unref);
  g_free (context);
}

static void
tool_call_free (ToolCall *call)
{
  if (call->cancel_handler != 0)
    g_cancellable_disconnect (call->cancellable, call->cancel_handler);
  g_clear_object (&call->cancellable);
  g_clear_object (&call->invocation);
  g_clear_object (&call->peer);
  g_clear_pointer (&call->context, json_object_unref);
  g_clear_pointer (&call->request_id, json_node_unref);
  g_clear_object (&call->tap_bus);
  g_free (call->id);
  g_free (call);
}

static JsonObject *
base_params (JsonObject *context,
             JsonNode   *request_id)
{
  JsonObject *params = json_object_new ();
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  json_object_iter_init_ordered (&iter, context);
  while (json_object_iter_next_ordered (&iter, &name, &value))
    json_object_set_member (params, name, json_node_copy (value));
  if (request_id != NULL)
    json_object_set_member (params, "requestId", json_node_copy (request_id));
  return params;
}

/* The turn stopped waiting (timeout, cancelled or finished turn): tell the
 * client it may stop; any later response is ignored by the peer. */
static void
on_abandoned (GCancellable *cancellable,
              gpointer      user_data)
{
  ToolCall *call = user_data;
  g_autoptr(JsonNode) node = NULL;
  JsonObject *params;
  const char *reason;

  if (call->replied || call->id == NULL)
    return;
  call->replied = TRUE;
  params = base_params (call->context, call->request_id);
  json_object_set_string_member (params, "id", call->id);
  json_object_set_string_member (params, "callId", gg_tool_invocation_get_call_id (call->invocation));
  reason = gg_tool_invocation_get_abandon_reason (call->invocation);
  json_object_set_string_member (params, "reason", reason != NULL ? reason : "Error: The turn ended.");
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, params);
  gg_jsonrpc_peer_notify (call->peer, "tool/cancel", node);
}

static void
on_tool_reply (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  ToolCall *call = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) reply = gg_jsonrpc_peer_call_finish (GG_JSONRPC_PEER (source), result, &error);

  if (call->replied || gg_tool_invocation_is_finished (call->invocation))
    ;
  else if (reply == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    ; /* abandoned; tool/cancel went out from on_abandoned() */
  else if (reply == NULL)
    {
      call->replied = TRUE;
      if (call->tap_bus != NULL)
        report_client_call (call, TRUE, error, NULL);
      gg_tool_invocation_return_error (call->invocation, error->message);
    }
  else
    {
      JsonObject *object = JSON_NODE_HOLDS_OBJECT (reply) ? json_node_get_object (reply) : NULL;
      JsonNode *output = object != NULL ? json_object_get_member (object, "output") : NULL;

      call->replied = TRUE;
      if (call->tap_bus != NULL)
        report_client_call (call, TRUE, NULL, output != NULL ? output : reply);
      if (output != NULL)
        {
          JsonNode *is_error = json_object_get_member (object, "isError");

          gg_tool_invocation_return_output (call->invocation, output,
                                            is_error != NULL &&
                                            json_node_get_value_type (is_error) == G_TYPE_BOOLEAN &&
                                            json_node_get_boolean (is_error));
        }
      else
        /* Lenient: the whole result is the output. */
        gg_tool_invocation_return_output (call->invocation, reply, FALSE);
    }
  tool_call_free (call);
}

/**
 * gg_oam_tool_execute:
 * @invocation: (transfer full): the call
 * @user_data: a #GgOamToolContext
 *
 * A #GgToolExecutor: sends `tool/call` (id "t-<n>") with the context
 * members, `requestId` and `call`, and answers @invocation with the reply;
 * a tool whose definition says `"execution": "target"` runs on that bus
 * target instead.
 */
void
gg_oam_tool_execute (GgToolInvocation *invocation,
                     gpointer          user_data)
{
  GgOamToolContext *context = user_data;
  JsonObject *definition = gg_tool_invocation_get_tool (invocation);
  g_autoptr(JsonNode) node = NULL;
  ToolCall *call;
  JsonObject *params;

  if (definition != NULL &&
      g_strcmp0 (json_object_get_string_member_with_default (definition, "execution", NULL), "target") == 0)
    {
      gg_bus_run_tool_invocation (context->bus, invocation);
      return;
    }

  call = g_new0 (ToolCall, 1);
  node = json_node_new (JSON_NODE_OBJECT);
  call->invocation = invocation;
  call->peer = g_object_ref (context->peer);
  call->context = json_object_ref (context->context);
  call->request_id = context->request_id != NULL ? json_node_copy (context->request_id) : NULL;
  call->cancellable = g_object_ref (gg_tool_invocation_get_cancellable (invocation));

  if (g_cancellable_is_cancelled (call->cancellable))
    {
      tool_call_free (call);
      return;
    }
  params = base_params (context->context, context->request_id);
  json_object_set_object_member (params, "call",
                                 json_object_ref (gg_tool_invocation_get_call (invocation)));
  json_node_take_object (node, params);
  if (G_UNLIKELY (gg_bus_is_observed (context->bus)))
    {
      call->tap_bus = g_object_ref (context->bus);
      call->tap_started = g_get_monotonic_time ();
      report_client_call (call, FALSE, NULL, gg_tool_invocation_get_arguments (invocation));
    }
  call->id = gg_jsonrpc_peer_call_async (call->peer, "tool/call", node, 0, call->cancellable,
                                         on_tool_reply, call);
  call->cancel_handler = g_cancellable_connect (call->cancellable, G_CALLBACK (on_abandoned),
                                                call, NULL);
}

/**
 * gg_oam_turn_use_client_tools:
 * @turn: an agent turn
 * @bus: the bus, for tools a game on it runs
 * @peer: the client's peer
 * @context: (nullable): members put first in `tool/call` params
 * @request_id: (nullable): the id of the request running @turn
 *
 * Routes @turn's tool calls to the client as `tool/call` requests, and
 * those of target tools to their game on the bus.
 */
void
gg_oam_turn_use_client_tools (GgAgentTurn   *turn,
                              GgBus         *bus,
                              GgJsonRpcPeer *peer,
                              JsonObject    *context,
                              JsonNode      *request_id)
{
  gg_agent_turn_set_executor (turn, gg_oam_tool_execute,
                              gg_oam_tool_context_new (bus, peer, context, request_id),
                              (GDestroyNotify) gg_oam_tool_context_free);
}
