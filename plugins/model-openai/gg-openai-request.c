/* gg-openai-request.c: the Chat Completions request body of one model step.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "gg-openai-private.h"

static const char *
member_string (JsonObject *object,
               const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);
  return NULL;
}

static GError *
bad_request (const char *format,
             ...) G_GNUC_PRINTF (1, 2);

static GError *
bad_request (const char *format,
             ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  return gg_model_error_new (GG_MODEL_ERROR_INVALID_REQUEST, NULL, "%s", message);
}

/**
 * gg_openai_tool_wire_name:
 * @name: a tool name (oam allows `A–Z a–z 0–9 _ - .`, 1–64)
 *
 * Returns: (transfer full): @name as OpenAI accepts function names
 *   (`^[a-zA-Z0-9_-]{1,64}$`): other characters become `_`
 */
char *
gg_openai_tool_wire_name (const char *name)
{
  GString *out = g_string_new (NULL);

  for (const char *p = name != NULL ? name : ""; *p != '\0' && out->len < 64; p++)
    g_string_append_c (out, g_ascii_isalnum (*p) || *p == '_' || *p == '-' ? *p : '_');
  if (out->len == 0)
    g_string_append_c (out, '_');
  return g_string_free (out, FALSE);
}

/* The definition of a tool, also in OpenAI's {"type":"function",
 * "function":{…}} wrapper. */
static JsonObject *
unwrap_tool (JsonObject *tool)
{
  JsonNode *function = json_object_get_member (tool, "function");

  if (member_string (tool, "name") == NULL && function != NULL && JSON_NODE_HOLDS_OBJECT (function))
    return json_node_get_object (function);
  return tool;
}

/* Tool call arguments travel as a JSON string on the wire. */
static char *
arguments_string (JsonNode *arguments)
{
  if (arguments == NULL || JSON_NODE_HOLDS_NULL (arguments))
    return g_strdup ("{}");
  if (JSON_NODE_HOLDS_VALUE (arguments) && json_node_get_value_type (arguments) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (arguments));
  return gg_json_to_string (arguments);
}

static JsonObject *
text_message (const char *role,
              const char *text)
{
  JsonObject *message = json_object_new ();

  json_object_set_string_member (message, "role", role);
  json_object_set_string_member (message, "content", text);
  return message;
}

static JsonObject *
tool_calls_message (JsonArray  *calls,
                    guint       entry_index,
                    GError    **error)
{
  g_autoptr(JsonObject) message = json_object_new ();
  g_autoptr(JsonArray) wire_calls = json_array_new ();
  guint n = json_array_get_length (calls);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (calls, i);
      JsonObject *call, *wire, *function;
      const char *id, *name;
      g_autofree char *args = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_propagate_error (error, bad_request ("transcript[%u].toolCalls[%u]: must be an object",
                                                 entry_index, i));
          return NULL;
        }
      call = json_node_get_object (node);
      name = member_string (call, "name");
      if (name == NULL || *name == '\0')
        {
          g_propagate_error (error, bad_request ("transcript[%u].toolCalls[%u].name: must be a string",
                                                 entry_index, i));
          return NULL;
        }
      id = member_string (call, "id");
      args = arguments_string (json_object_get_member (call, "arguments"));

      wire = json_object_new ();
      if (id != NULL)
        json_object_set_string_member (wire, "id", id);
      else
        {
          /* Servers pair results by id; a missing one gets a stable stand-in. */
          g_autofree char *made_up = g_strdup_printf ("call_%u_%u", entry_index, i);
          json_object_set_string_member (wire, "id", made_up);
        }
      json_object_set_string_member (wire, "type", "function");
      function = json_object_new ();
      {
        g_autofree char *wire_name = gg_openai_tool_wire_name (name);
        json_object_set_string_member (function, "name", wire_name);
      }
      json_object_set_string_member (function, "arguments", args);
      json_object_set_object_member (wire, "function", function);
      json_array_add_object_element (wire_calls, wire);
    }
  json_object_set_string_member (message, "role", "assistant");
  json_object_set_null_member (message, "content");
  json_object_set_array_member (message, "tool_calls", g_steal_pointer (&wire_calls));
  return g_steal_pointer (&message);
}

static JsonArray *
build_messages (const GgModelRequest  *request,
                GError               **error)
{
  g_autoptr(JsonArray) messages = json_array_new ();
  guint n = request->transcript != NULL ? json_array_get_length (request->transcript) : 0;

  if (request->instructions != NULL && *request->instructions != '\0')
    json_array_add_object_element (messages, text_message ("system", request->instructions));

  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (request->transcript, i);
      JsonObject *entry;
      const char *role;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_propagate_error (error, bad_request ("transcript[%u]: must be an object", i));
          return NULL;
        }
      entry = json_node_get_object (node);
      role = member_string (entry, "role");
      if (g_strcmp0 (role, "user") == 0 || g_strcmp0 (role, "system") == 0)
        {
          const char *text = member_string (entry, "text");
          if (text == NULL)
            {
              g_propagate_error (error, bad_request ("transcript[%u].text: must be a string", i));
              return NULL;
            }
          json_array_add_object_element (messages, text_message (role, text));
        }
      else if (g_strcmp0 (role, "assistant") == 0)
        {
          JsonNode *calls = json_object_get_member (entry, "toolCalls");
          const char *text = member_string (entry, "text");

          if (calls != NULL && JSON_NODE_HOLDS_ARRAY (calls) &&
              json_array_get_length (json_node_get_array (calls)) > 0)
            {
              JsonObject *message = tool_calls_message (json_node_get_array (calls), i, error);
              if (message == NULL)
                return NULL;
              if (text != NULL && *text != '\0')
                json_object_set_string_member (message, "content", text);
              json_array_add_object_element (messages, message);
            }
          else if (text != NULL)
            json_array_add_object_element (messages, text_message ("assistant", text));
          else if (json_object_has_member (entry, "json"))
            {
              /* A structured answer goes back to the model as its JSON text. */
              g_autofree char *json = gg_json_to_string (json_object_get_member (entry, "json"));
              json_array_add_object_element (messages, text_message ("assistant", json));
            }
          else
            {
              g_propagate_error (error, bad_request ("transcript[%u]: an assistant entry needs "
                                                     "'text' or 'toolCalls'", i));
              return NULL;
            }
        }
      else if (g_strcmp0 (role, "tool") == 0)
        {
          const char *call_id = member_string (entry, "callId");
          JsonNode *output = json_object_get_member (entry, "output");
          g_autofree char *output_text = NULL;
          JsonObject *message;

          if (call_id == NULL)
            {
              g_propagate_error (error, bad_request ("transcript[%u].callId: must be a string", i));
              return NULL;
            }
          if (output != NULL && JSON_NODE_HOLDS_VALUE (output) &&
              json_node_get_value_type (output) == G_TYPE_STRING)
            output_text = g_strdup (json_node_get_string (output));
          else if (output != NULL)
            output_text = gg_json_to_string (output);
          else
            output_text = g_strdup ("");

          message = json_object_new ();
          json_object_set_string_member (message, "role", "tool");
          json_object_set_string_member (message, "tool_call_id", call_id);
          json_object_set_string_member (message, "content", output_text);
          json_array_add_object_element (messages, message);
        }
      else
        {
          g_propagate_error (error, bad_request ("transcript[%u].role: unsupported role '%s'",
                                                 i, role != NULL ? role : "(none)"));
          return NULL;
        }
    }
  return g_steal_pointer (&messages);
}

static JsonArray *
build_tools (JsonArray  *tools,
             GError    **error)
{
  g_autoptr(JsonArray) wire_tools = json_array_new ();
  guint n = json_array_get_length (tools);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (tools, i);
      JsonObject *tool, *wire, *function;
      JsonNode *parameters;
      const char *name, *description;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_propagate_error (error, bad_request ("tools[%u]: must be an object", i));
          return NULL;
        }
      tool = unwrap_tool (json_node_get_object (node));
      name = member_string (tool, "name");
      if (name == NULL || *name == '\0')
        {
          g_propagate_error (error, bad_request ("tools[%u].name: must be a string", i));
          return NULL;
        }
      description = member_string (tool, "description");
      parameters = json_object_get_member (tool, "parameters");

      function = json_object_new ();
      {
        g_autofree char *wire_name = gg_openai_tool_wire_name (name);
        json_object_set_string_member (function, "name", wire_name);
      }
      if (description != NULL)
        json_object_set_string_member (function, "description", description);
      if (parameters != NULL && JSON_NODE_HOLDS_OBJECT (parameters))
        json_object_set_member (function, "parameters", json_node_copy (parameters));
      else
        {
          JsonObject *empty = json_object_new ();
          json_object_set_string_member (empty, "type", "object");
          json_object_set_object_member (empty, "properties", json_object_new ());
          json_object_set_object_member (function, "parameters", empty);
        }
      wire = json_object_new ();
      json_object_set_string_member (wire, "type", "function");
      json_object_set_object_member (wire, "function", function);
      json_array_add_object_element (wire_tools, wire);
    }
  return g_steal_pointer (&wire_tools);
}

/* The name of a json_schema must match ^[a-zA-Z0-9_-]{1,64}$. */
static char *
schema_wire_name (const char *name)
{
  GString *out = g_string_new (NULL);

  for (const char *p = name != NULL ? name : ""; *p != '\0' && out->len < 64; p++)
    g_string_append_c (out, g_ascii_isalnum (*p) || *p == '_' || *p == '-' ? *p : '_');
  if (out->len == 0)
    g_string_append (out, "Response");
  return g_string_free (out, FALSE);
}

static gboolean
apply_sampling (JsonObject             *body,
                const GgModelRequest   *request,
                const GgOpenaiSettings *settings,
                GError                **error)
{
  double temperature = request->temperature >= 0 ? request->temperature : settings->temperature;
  JsonNode *sampling = request->sampling;

  if (sampling != NULL && JSON_NODE_HOLDS_VALUE (sampling) &&
      json_node_get_value_type (sampling) == G_TYPE_STRING)
    {
      if (!g_str_equal (json_node_get_string (sampling), "greedy"))
        {
          g_propagate_error (error, bad_request ("sampling: unknown mode '%s'",
                                                 json_node_get_string (sampling)));
          return FALSE;
        }
      /* Greedy decoding: always the most likely token. */
      temperature = 0;
      if (settings->accepts_top_k)
        json_object_set_int_member (body, "top_k", 1);
    }
  else if (sampling != NULL && JSON_NODE_HOLDS_OBJECT (sampling))
    {
      JsonObject *object = json_node_get_object (sampling);
      JsonNode *top_k = json_object_get_member (object, "topK");
      JsonNode *top_p = json_object_get_member (object, "topP");
      JsonNode *seed = json_object_get_member (object, "seed");

      if (top_k != NULL && JSON_NODE_HOLDS_VALUE (top_k) &&
          json_node_get_value_type (top_k) == G_TYPE_INT64 && json_node_get_int (top_k) >= 1)
        {
          if (settings->accepts_top_k)
            json_object_set_int_member (body, "top_k", json_node_get_int (top_k));
        }
      else if (top_p != NULL && JSON_NODE_HOLDS_VALUE (top_p) &&
               (json_node_get_value_type (top_p) == G_TYPE_DOUBLE ||
                json_node_get_value_type (top_p) == G_TYPE_INT64) &&
               json_node_get_double (top_p) > 0 && json_node_get_double (top_p) <= 1)
        json_object_set_double_member (body, "top_p", json_node_get_double (top_p));
      else
        {
          g_propagate_error (error, bad_request ("sampling: needs 'topK' (integer ≥ 1) or "
                                                 "'topP' (0 < p ≤ 1)"));
          return FALSE;
        }
      if (seed != NULL && JSON_NODE_HOLDS_VALUE (seed) &&
          json_node_get_value_type (seed) == G_TYPE_INT64)
        json_object_set_int_member (body, "seed", json_node_get_int (seed));
    }
  else if (sampling != NULL && !JSON_NODE_HOLDS_NULL (sampling))
    {
      g_propagate_error (error, bad_request ("sampling: must be \"greedy\" or an object"));
      return FALSE;
    }

  if (temperature >= 0 && isfinite (temperature))
    json_object_set_double_member (body, "temperature", temperature);
  if (request->max_tokens > 0)
    json_object_set_int_member (body, "max_tokens", request->max_tokens);
  else if (settings->max_tokens > 0)
    json_object_set_int_member (body, "max_tokens", settings->max_tokens);
  return TRUE;
}

/**
 * gg_openai_build_request:
 * @request: the step's input
 * @settings: the model's settings
 * @stream: whether to ask for server-sent events
 * @error: return location for a %GG_MODEL_ERROR
 *
 * Builds the body of `POST /chat/completions`: messages from instructions
 * and transcript, tools with the tool choice, a strict `json_schema`
 * response format for schema steps, sampling and the answer limit.
 *
 * Returns: (transfer full): the body, or %NULL with @error set
 *   (%GG_MODEL_ERROR_INVALID_REQUEST, %GG_MODEL_ERROR_INVALID_SCHEMA)
 */
JsonNode *
gg_openai_build_request (const GgModelRequest   *request,
                         const GgOpenaiSettings *settings,
                         gboolean                stream,
                         GError                **error)
{
  g_autoptr(JsonObject) body = json_object_new ();
  g_autoptr(JsonArray) messages = NULL;
  guint n_tools = request->tools != NULL ? json_array_get_length (request->tools) : 0;

  json_object_set_string_member (body, "model", settings->model);
  messages = build_messages (request, error);
  if (messages == NULL)
    return NULL;
  json_object_set_array_member (body, "messages", g_steal_pointer (&messages));

  /* With the tool mode "none" the tools stay hidden: some servers ignore
   * tool_choice "none" and some templates still show the tools. */
  if (n_tools > 0 && request->tool_mode != GG_TOOL_MODE_NONE)
    {
      JsonArray *tools = build_tools (request->tools, error);
      if (tools == NULL)
        return NULL;
      json_object_set_array_member (body, "tools", tools);
      if (request->tool_mode == GG_TOOL_MODE_REQUIRED && n_tools == 1)
        {
          /* One visible tool that must be called: name it, which every
           * server honours, where "required" is newer. */
          JsonObject *choice = json_object_new ();
          JsonObject *function = json_object_new ();
          JsonObject *tool = unwrap_tool (json_array_get_object_element (request->tools, 0));
          g_autofree char *wire_name = gg_openai_tool_wire_name (member_string (tool, "name"));

          json_object_set_string_member (function, "name", wire_name);
          json_object_set_string_member (choice, "type", "function");
          json_object_set_object_member (choice, "function", function);
          json_object_set_object_member (body, "tool_choice", choice);
        }
      else
        json_object_set_string_member (body, "tool_choice",
                                       request->tool_mode == GG_TOOL_MODE_REQUIRED ? "required" : "auto");
    }
  else if (request->tool_mode == GG_TOOL_MODE_REQUIRED)
    {
      g_propagate_error (error, bad_request ("a tool call is required but no tool is visible"));
      return NULL;
    }

  if (request->output_schema != NULL)
    {
      gboolean wrapped = FALSE;
      g_autoptr(JsonNode) strict = gg_openai_strict_schema (request->output_schema, &wrapped, error);
      g_autofree char *name = schema_wire_name (request->schema_name);
      JsonObject *format, *json_schema;

      if (strict == NULL)
        return NULL;
      json_schema = json_object_new ();
      json_object_set_string_member (json_schema, "name", name);
      json_object_set_boolean_member (json_schema, "strict", TRUE);
      json_object_set_member (json_schema, "schema", g_steal_pointer (&strict));
      format = json_object_new ();
      json_object_set_string_member (format, "type", "json_schema");
      json_object_set_object_member (format, "json_schema", json_schema);
      json_object_set_object_member (body, "response_format", format);
    }

  if (!apply_sampling (body, request, settings, error))
    return NULL;

  json_object_set_boolean_member (body, "stream", stream);
  if (stream)
    {
      JsonObject *options = json_object_new ();
      json_object_set_boolean_member (options, "include_usage", TRUE);
      json_object_set_object_member (body, "stream_options", options);
    }
  return json_node_init_object (json_node_alloc (), body);
}
