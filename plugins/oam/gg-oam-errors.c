/* gg-oam-errors.c: oam's error vocabulary (spec section 8). Every error a
 * handler returns goes through gg_oam_error_translate(), so model, schema,
 * JSON-path and I/O errors all reach the client with the spec's code and a
 * `data.code` string.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-oam-errors.h"

static const struct {
  int code;
  const char *name;
} error_names[] = {
  { GG_OAM_PARSE_ERROR, "parse_error" },
  { GG_OAM_INVALID_MESSAGE, "invalid_message" },
  { GG_OAM_METHOD_NOT_FOUND, "method_not_found" },
  { GG_OAM_INVALID_PARAMS, "invalid_params" },
  { GG_OAM_INTERNAL_ERROR, "internal_error" },
  { -32001, "model_unavailable" },
  { -32002, "guardrail_violation" },
  { -32003, "refusal" },
  { -32004, "context_size_exceeded" },
  { -32005, "rate_limited" },
  { -32006, "unsupported_language" },
  { -32007, "invalid_schema" },
  { -32008, "tool_failed" },
  { -32009, "cancelled" },
  { -32010, "busy" },
  { -32011, "invalid_request" },
  { -32012, "generation_failed" },
  { GG_OAM_SESSION_NOT_FOUND, "session_not_found" },
  { GG_OAM_SESSION_EXISTS, "session_exists" },
  { GG_OAM_SESSION_LIMIT, "session_limit" },
  { GG_OAM_SHUT_DOWN, "shut_down" },
  { GG_OAM_TIMEOUT, "timeout" },
  { GG_OAM_NPC_NOT_FOUND, "npc_not_found" },
  { GG_OAM_NPC_EXISTS, "npc_exists" },
  { GG_OAM_WORLD_NOT_FOUND, "world_not_found" },
  { GG_OAM_WORLD_EXISTS, "world_exists" },
  { GG_OAM_WORLD_ERROR, "world_error" },
  { GG_OAM_LIMIT_REACHED, "limit_reached" },
  { GG_OAM_SUBSCRIPTION_NOT_FOUND, "subscription_not_found" },
};

/**
 * gg_oam_error_code_name:
 * @code: a JSON-RPC error code of the oam table
 *
 * Returns: the stable `data.code` string of @code, or "internal_error"
 */
const char *
gg_oam_error_code_name (int code)
{
  for (gsize i = 0; i < G_N_ELEMENTS (error_names); i++)
    if (error_names[i].code == code)
      return error_names[i].name;
  return "internal_error";
}

static GError *
error_new_valist (int         code,
                  JsonObject *extra,
                  const char *format,
                  va_list     args)
{
  g_autoptr(JsonObject) data = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *message = g_strdup_vprintf (format, args);

  /* `data.code` first, then whatever the caller adds. */
  json_object_set_string_member (data, "code", gg_oam_error_code_name (code));
  if (extra != NULL)
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *value;

      json_object_iter_init_ordered (&iter, extra);
      while (json_object_iter_next_ordered (&iter, &name, &value))
        if (g_strcmp0 (name, "code") != 0)
          json_object_set_member (data, name, json_node_copy (value));
    }
  json_node_set_object (node, data);
  return gg_jsonrpc_error_new (code, node, "%s", message);
}

/**
 * gg_oam_error_new:
 * @code: a JSON-RPC error code of the oam table
 * @data: (nullable): extra `data` members (copied), e.g. `session`
 * @format: printf-style message
 *
 * Returns: (transfer full): a %GG_JSONRPC_ERROR whose `data.code` names @code
 */
GError *
gg_oam_error_new (int         code,
                  JsonObject *data,
                  const char *format,
                  ...)
{
  va_list args;
  GError *error;

  va_start (args, format);
  error = error_new_valist (code, data, format, args);
  va_end (args);
  return error;
}

/**
 * gg_oam_error_new_member:
 * @code: a JSON-RPC error code
 * @member: the `data` member naming the object (`session`, `npc`, `world`)
 * @value: its value
 * @format: printf-style message
 *
 * Returns: (transfer full): an error with `data.code` and `data.<member>`
 */
GError *
gg_oam_error_new_member (int         code,
                         const char *member,
                         const char *value,
                         const char *format,
                         ...)
{
  g_autoptr(JsonObject) data = json_object_new ();
  va_list args;
  GError *error;

  json_object_set_string_member (data, member, value);
  va_start (args, format);
  error = error_new_valist (code, data, format, args);
  va_end (args);
  return error;
}

/**
 * gg_oam_error_limit:
 * @code: %GG_OAM_SESSION_LIMIT or %GG_OAM_LIMIT_REACHED
 * @limit: the configured limit, sent as `data.limit`
 * @format: printf-style message
 *
 * Returns: (transfer full): the error
 */
GError *
gg_oam_error_limit (int         code,
                    gint64      limit,
                    const char *format,
                    ...)
{
  g_autoptr(JsonObject) data = json_object_new ();
  va_list args;
  GError *error;

  json_object_set_int_member (data, "limit", limit);
  va_start (args, format);
  error = error_new_valist (code, data, format, args);
  va_end (args);
  return error;
}

/**
 * gg_oam_error_cancelled:
 *
 * Returns: (transfer full): the -32009 error of a cancelled request
 */
GError *
gg_oam_error_cancelled (void)
{
  return gg_oam_error_new (GG_OAM_CANCELLED, NULL, "The request was cancelled");
}

/**
 * gg_oam_error_is_cancelled:
 * @error: an error
 *
 * Returns: whether @error means cancellation in any of the vocabularies
 */
gboolean
gg_oam_error_is_cancelled (const GError *error)
{
  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
         g_error_matches (error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED) ||
         g_error_matches (error, GG_JSONRPC_ERROR, GG_OAM_CANCELLED);
}

/**
 * gg_oam_error_translate:
 * @error: any error a handler ran into
 *
 * Maps @error onto the oam table: %GG_JSONRPC_ERROR passes through (with a
 * `data.code` added when missing), %GG_MODEL_ERROR keeps its code and data,
 * cancellation becomes -32009 and anything else -32603.
 *
 * Returns: (transfer full): a %GG_JSONRPC_ERROR
 */
GError *
gg_oam_error_translate (const GError *error)
{
  if (error->domain == GG_JSONRPC_ERROR)
    {
      JsonNode *data = gg_jsonrpc_error_get_data (error);

      if (data != NULL && JSON_NODE_HOLDS_OBJECT (data) &&
          json_object_has_member (json_node_get_object (data), "code"))
        return g_error_copy (error);
      return gg_oam_error_new (error->code,
                               data != NULL && JSON_NODE_HOLDS_OBJECT (data) ?
                               json_node_get_object (data) : NULL,
                               "%s", error->message);
    }
  if (gg_oam_error_is_cancelled (error))
    return gg_oam_error_cancelled ();
  if (error->domain == GG_MODEL_ERROR)
    {
      JsonObject *data = gg_model_error_get_data (error);

      return gg_oam_error_new (gg_model_error_rpc_code (error->code), data,
                               "%s", error->message);
    }
  if (error->domain == GG_SCHEMA_ERROR)
    {
      g_autoptr(JsonObject) data = json_object_new ();

      json_object_set_string_member (data, "path", gg_schema_error_get_path (error) ?
                                     gg_schema_error_get_path (error) : "#");
      json_object_set_string_member (data, "schemaPath", gg_schema_error_get_schema_path (error) ?
                                     gg_schema_error_get_schema_path (error) : "#");
      return gg_oam_error_new (GG_OAM_INVALID_SCHEMA, data, "%s", error->message);
    }
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
    return gg_oam_error_new (GG_OAM_INVALID_PARAMS, NULL, "Invalid params: %s", error->message);
  return gg_oam_error_new (GG_OAM_INTERNAL_ERROR, NULL, "%s", error->message);
}

/**
 * gg_oam_error_to_json:
 * @error: any error
 *
 * Returns: (transfer full): `{"code", "message", "data"}` of the translated
 *   error, as decision/decideMany reports a failed item
 */
JsonNode *
gg_oam_error_to_json (const GError *error)
{
  g_autoptr(GError) rpc = gg_oam_error_translate (error);
  g_autoptr(JsonObject) object = json_object_new ();
  JsonNode *data = gg_jsonrpc_error_get_data (rpc);
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_int_member (object, "code", rpc->code);
  json_object_set_string_member (object, "message", rpc->message);
  if (data != NULL)
    json_object_set_member (object, "data", json_node_copy (data));
  json_node_set_object (node, object);
  return node;
}

/**
 * gg_oam_return_error:
 * @request: (transfer full): the request to answer
 * @error: the failure; translated onto the oam table
 */
void
gg_oam_return_error (GgJsonRpcRequest *request,
                     const GError     *error)
{
  g_autoptr(GError) rpc = gg_oam_error_translate (error);

  gg_jsonrpc_request_return_gerror (request, rpc);
}
