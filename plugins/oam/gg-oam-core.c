/* gg-oam-core.c: the bridge-level methods: initialize, ping,
 * model/availability, schema/validate, tools/validate and shutdown.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-oam-connection.h"
#include "gg-oam-errors.h"
#include "gg-oam-params.h"
#include "gg-oam-schema.h"
#include "gg-oam-tools.h"

#define PROTOCOL_VERSION "1.0"
#define SHUTDOWN_WAIT_US (2 * G_USEC_PER_SEC)

typedef struct {
  GgOamConnection *conn;
  GgJsonRpcRequest *request;
  gboolean initialize;
  gint64 deadline;
} Pending;

static void
pending_free (Pending *pending)
{
  g_clear_object (&pending->conn);
  if (pending->request != NULL)
    gg_jsonrpc_request_unref (pending->request);
  g_free (pending);
}

static JsonNode *
capabilities (GgOamConnection *conn)
{
  JsonObject *caps = json_object_new ();
  JsonArray *methods = json_array_new ();
  JsonArray *notifications = json_array_new ();
  JsonArray *client_requests = json_array_new ();
  JsonArray *models = json_array_new ();
  g_auto(GStrv) types = gg_bus_list_model_types (conn->bus);
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  for (guint i = 0; i < conn->method_names->len; i++)
    json_array_add_string_element (methods, g_ptr_array_index (conn->method_names, i));
  json_array_add_string_element (notifications, "session/event");
  json_array_add_string_element (notifications, "tool/cancel");
  json_array_add_string_element (notifications, "npc/event");
  json_array_add_string_element (notifications, "world/changed");
  json_array_add_string_element (client_requests, "tool/call");
  json_array_add_string_element (models, "system");
  for (guint i = 0; types != NULL && types[i] != NULL; i++)
    {
      if (g_str_equal (types[i], "system") ||
          (g_str_equal (types[i], "scripted") && !conn->settings.scripted_models))
        continue;
      json_array_add_string_element (models, types[i]);
    }
  json_object_set_array_member (caps, "methods", methods);
  json_object_set_array_member (caps, "notifications", notifications);
  json_object_set_array_member (caps, "clientRequests", client_requests);
  json_object_set_boolean_member (caps, "streaming", TRUE);
  json_object_set_boolean_member (caps, "clientTools", TRUE);
  json_object_set_boolean_member (caps, "structuredOutput", TRUE);
  json_object_set_array_member (caps, "models", models);
  json_object_set_int_member (caps, "maxSessions", conn->settings.max_sessions);
  json_object_set_boolean_member (caps, "batch", FALSE);
  /* Section 11: what gamegate adds (plugins/oam/README.md, Extensions). */
  {
    JsonObject *extensions = json_object_new ();
    JsonObject *gamegate = json_object_new ();

    json_object_set_boolean_member (gamegate, "targetTools", TRUE);
    json_object_set_object_member (extensions, "gamegate", gamegate);
    json_object_set_object_member (caps, "extensions", extensions);
  }
  json_node_take_object (node, caps);
  return node;
}

static void
availability_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Pending *pending = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) availability = gg_model_availability_finish (GG_MODEL (source), result, &error);
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) model = json_node_new (JSON_NODE_OBJECT);

  if (availability == NULL)
    {
      availability = json_object_new ();
      json_object_set_boolean_member (availability, "available", FALSE);
      json_object_set_string_member (availability, "reason", "unknown");
      json_object_set_string_member (availability, "message", error->message);
    }
  json_node_set_object (model, availability);
  if (pending->initialize)
    {
      JsonObject *object = json_object_new ();
      JsonObject *server = json_object_new ();

      json_object_set_string_member (object, "protocolVersion", PROTOCOL_VERSION);
      json_object_set_string_member (server, "name", "gamegate");
      json_object_set_string_member (server, "version", PACKAGE_VERSION);
      json_object_set_object_member (object, "server", server);
      json_object_set_member (object, "capabilities", capabilities (pending->conn));
      json_object_set_member (object, "model", json_node_ref (model));
      json_node_take_object (node, object);
      gg_jsonrpc_request_return_result (g_steal_pointer (&pending->request), node);
    }
  else
    gg_jsonrpc_request_return_result (g_steal_pointer (&pending->request), model);
  pending_free (pending);
}

static void
query_availability (GgOamConnection  *conn,
                    GgJsonRpcRequest *request,
                    gboolean          initialize)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgModel) model = gg_oam_connection_create_model (conn, NULL, NULL, &error);
  Pending *pending;

  if (model == NULL)
    {
      gg_oam_return_error (request, error);
      return;
    }
  pending = g_new0 (Pending, 1);
  pending->conn = g_object_ref (conn);
  pending->request = request;
  pending->initialize = initialize;
  gg_model_availability_async (model, NULL, availability_cb, pending);
}

static void
method_initialize (GgOamConnection  *conn,
                   GgJsonRpcRequest *request,
                   JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  JsonObject *client;
  const char *version;

  if (!gg_oam_param_object (params, NULL, "client", FALSE, &client, &error) ||
      !gg_oam_param_string (params, NULL, "protocolVersion", FALSE, &version, &error))
    goto fail;
  if (version != NULL)
    {
      g_autofree char *major = g_strndup (version, strcspn (version, "."));

      if (!g_str_equal (major, "1"))
        {
          error = gg_oam_invalid_params ("'protocolVersion': version '%s' is not supported "
                                         "(this bridge speaks " PROTOCOL_VERSION ")", version);
          goto fail;
        }
    }
  if (client != NULL)
    g_debug ("oam connection %p: client %s %s", conn,
             gg_oam_object_string (client, "name", "?"),
             gg_oam_object_string (client, "version", "?"));
  query_availability (conn, request, TRUE);
  return;

fail:
  gg_oam_return_error (request, error);
}

static void
method_ping (GgOamConnection  *conn,
             GgJsonRpcRequest *request,
             JsonObject       *params)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, json_object_new ());
  gg_jsonrpc_request_return_result (request, node);
}

static void
method_model_availability (GgOamConnection  *conn,
                           GgJsonRpcRequest *request,
                           JsonObject       *params)
{
  query_availability (conn, request, FALSE);
}

static void
method_schema_validate (GgOamConnection  *conn,
                        GgJsonRpcRequest *request,
                        JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(JsonNode) generation = NULL;
  g_autoptr(JsonNode) node = NULL;
  JsonObject *schema, *object;
  const char *name;

  if (!gg_oam_param_object (params, NULL, "schema", TRUE, &schema, &error) ||
      !gg_oam_param_string (params, NULL, "name", FALSE, &name, &error))
    goto fail;
  generation = gg_oam_schema_convert (gg_oam_param (params, "schema"), name != NULL ? name : "Response",
                                      NULL, warnings, &error);
  if (generation == NULL)
    goto fail;
  object = json_object_new ();
  json_object_set_member (object, "warnings", gg_oam_warnings_to_json (warnings));
  json_object_set_member (object, "generationSchema", g_steal_pointer (&generation));
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, object);
  gg_jsonrpc_request_return_result (request, node);
  return;

fail:
  gg_oam_return_error (request, error);
}

/* tools/validate of target tools (a gamegate extension): each target is
 * asked for its tools, and a tool it lacks, or a target not on the bus
 * yet, is a warning (games come and go). */
typedef struct {
  GgJsonRpcRequest *request;
  JsonNode *result;            /* {"tools": [...], "warnings": [...]} */
  JsonArray *parsed;           /* the normalized definitions, in order */
  guint pending;
} ValidateTargets;

typedef struct {
  ValidateTargets *validate;
  char *target;
} ValidateCall;

static void
validate_targets_finish (ValidateTargets *validate)
{
  if (--validate->pending > 0)
    return;
  gg_jsonrpc_request_return_result (validate->request, validate->result);
  gg_jsonrpc_request_unref (validate->request);
  json_node_unref (validate->result);
  json_array_unref (validate->parsed);
  g_free (validate);
}

/* Warns on every item that @target runs: @unreadable when @listed is
 * %NULL (the target could not be asked), otherwise for each tool it lacks. */
static void
warn_target_items (ValidateTargets *validate,
                   const char      *target,
                   JsonArray       *listed,
                   const char      *unreadable)
{
  JsonArray *items = json_object_get_array_member (json_node_get_object (validate->result), "tools");

  for (guint i = 0; i < json_array_get_length (validate->parsed); i++)
    {
      JsonObject *tool = json_array_get_object_element (validate->parsed, i);
      JsonArray *warnings = json_object_get_array_member (json_array_get_object_element (items, i), "warnings");
      const char *name = json_object_get_string_member_with_default (tool, "tool", NULL);
      gboolean found = FALSE;

      if (g_strcmp0 (json_object_get_string_member_with_default (tool, "target", NULL), target) != 0)
        continue;
      if (listed == NULL)
        {
          json_array_add_string_element (warnings, unreadable);
          continue;
        }
      for (guint j = 0; j < json_array_get_length (listed) && !found; j++)
        found = g_strcmp0 (json_object_get_string_member_with_default (json_array_get_object_element (listed, j),
                                                                      "name", NULL), name) == 0;
      if (!found)
        {
          g_autofree char *text = g_strdup_printf ("%s has no tool '%s'", target, name);
          json_array_add_string_element (warnings, text);
        }
    }
}

static void
on_validate_listed (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  ValidateCall *call = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) listed = gg_target_list_tools_finish (GG_TARGET (source), result, &error);

  if (listed == NULL)
    {
      g_autofree char *why = g_strdup_printf ("%s did not list its tools: %s", call->target, error->message);
      warn_target_items (call->validate, call->target, NULL, why);
    }
  else
    warn_target_items (call->validate, call->target, listed, NULL);
  validate_targets_finish (call->validate);
  g_free (call->target);
  g_free (call);
}

static void
validate_targets (GgOamConnection  *conn,
                  GgJsonRpcRequest *request,
                  JsonArray        *parsed,
                  JsonNode         *result)
{
  ValidateTargets *validate = g_new0 (ValidateTargets, 1);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  validate->request = gg_jsonrpc_request_ref (request);
  validate->result = json_node_ref (result);
  validate->parsed = json_array_ref (parsed);
  validate->pending = 1;
  for (guint i = 0; i < json_array_get_length (parsed); i++)
    {
      const char *target_id = json_object_get_string_member_with_default (json_array_get_object_element (parsed, i),
                                                                          "target", NULL);
      GgTarget *target;
      ValidateCall *call;

      if (target_id == NULL || g_hash_table_contains (seen, target_id))
        continue;
      g_hash_table_add (seen, (gpointer) target_id);
      target = gg_bus_lookup_target (conn->bus, target_id);
      if (target == NULL)
        {
          g_autofree char *why = g_strdup_printf ("%s is not on the bus yet; calls fail until it is", target_id);
          warn_target_items (validate, target_id, NULL, why);
          continue;
        }
      call = g_new0 (ValidateCall, 1);
      call->validate = validate;
      call->target = g_strdup (target_id);
      validate->pending++;
      gg_target_list_tools_async (target, NULL, on_validate_listed, call);
    }
  validate_targets_finish (validate);
}

static void
method_tools_validate (GgOamConnection  *conn,
                       GgJsonRpcRequest *request,
                       JsonObject       *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(JsonArray) parsed = NULL;
  g_autoptr(JsonNode) node = NULL;
  JsonArray *tools, *out;
  JsonObject *object;

  if (!gg_oam_param_array (params, NULL, "tools", TRUE, &tools, &error))
    goto fail;
  /* Whole-set checks first (duplicates, count). */
  parsed = gg_oam_tools_parse (tools, "tools", all, &error);
  if (parsed == NULL)
    goto fail;
  out = json_array_new ();
  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
      g_autofree char *param = g_strdup_printf ("tools[%u]", i);
      g_autoptr(JsonNode) generation = NULL;
      g_autoptr(JsonObject) tool = gg_oam_tool_parse (json_array_get_element (tools, i), param,
                                                      &generation, warnings, NULL);
      JsonObject *item = json_object_new ();

      json_object_set_string_member (item, "name", json_object_get_string_member (tool, "name"));
      json_object_set_member (item, "warnings", gg_oam_warnings_to_json (warnings));
      json_object_set_member (item, "generationSchema", g_steal_pointer (&generation));
      json_array_add_object_element (out, item);
    }
  object = json_object_new ();
  json_object_set_array_member (object, "tools", out);
  json_object_set_member (object, "warnings", gg_oam_warnings_to_json (all));
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, object);
  validate_targets (conn, request, parsed, node);
  return;

fail:
  gg_oam_return_error (request, error);
}

/* Cancelled requests are answered first; the wait is bounded (spec: ~2 s). */
static gboolean
shutdown_poll (gpointer user_data)
{
  Pending *pending = user_data;
  g_autoptr(JsonNode) node = NULL;

  if (gg_jsonrpc_peer_get_pending_incoming (pending->conn->peer) > 1 &&
      g_get_monotonic_time () < pending->deadline)
    return G_SOURCE_CONTINUE;
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, json_object_new ());
  gg_jsonrpc_request_return_result (g_steal_pointer (&pending->request), node);
  return G_SOURCE_REMOVE;
}

static void
method_shutdown (GgOamConnection  *conn,
                 GgJsonRpcRequest *request,
                 JsonObject       *params)
{
  Pending *pending = g_new0 (Pending, 1);

  g_debug ("oam connection %p: shutdown", conn);
  pending->conn = g_object_ref (conn);
  pending->request = request;
  pending->deadline = g_get_monotonic_time () + SHUTDOWN_WAIT_US;
  /* From now on every request fails with -32023; the connection finishes
   * once this answer is flushed. */
  conn->shut_down = TRUE;
  gg_oam_sessions_cancel_all (conn);
  gg_oam_npcs_cancel_all (conn);
  {
    GHashTableIter iter;
    gpointer key;

    g_hash_table_iter_init (&iter, conn->work);
    while (g_hash_table_iter_next (&iter, &key, NULL))
      g_cancellable_cancel (key);
  }
  gg_oam_schedule (5, shutdown_poll, pending, (GDestroyNotify) pending_free);
}

/**
 * gg_oam_core_methods_register:
 * @conn: a connection
 *
 * Adds initialize, ping, model/availability, schema/validate,
 * tools/validate and shutdown.
 */
void
gg_oam_core_methods_register (GgOamConnection *conn)
{
  gg_oam_connection_add_method (conn, "initialize", method_initialize);
  gg_oam_connection_add_method (conn, "ping", method_ping);
  gg_oam_connection_add_method (conn, "model/availability", method_model_availability);
  gg_oam_connection_add_method (conn, "schema/validate", method_schema_validate);
  gg_oam_connection_add_method (conn, "tools/validate", method_tools_validate);
  gg_oam_connection_add_method (conn, "shutdown", method_shutdown);
}
