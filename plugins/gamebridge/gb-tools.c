/* gb-tools.c: the seven tools of spec section 4, as the GbMcpToolsProvider
 * the MCP side serves. A call reads top to bottom: its arguments checked
 * against the tool's schema, the instance it names resolved once
 * (gb-bridge.c), then one tool's code (gb-call-tool.c, gb-toolsets.c,
 * gb-instance-tools.c, gb-instances.c), whose result object is wrapped here
 * into the one CallToolResult.
 *
 * A result that carries an image (gamegate's screenshot, gb-screenshot.c)
 * becomes MCP image content beside its text; call_tool's `screenshot` takes
 * one once the call returned, so an agent acts and sees in one round trip.
 *
 * Games are reached only through the bus: every live HTTP game is a
 * GbHttpTarget added to it, and any other plugin's target (a GABP mod) is
 * callable by its `instance` id. Composite tools registered on the bus are
 * resolved before anything a game offers.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-call-tool.h"
#include "gb-instance-tools.h"
#include "gb-instances.h"
#include "gb-screenshot.h"
#include "gb-toolsets.h"
#include "gb-tools.h"

#define DEFAULT_GRACE_MS  3000

static const struct {
  const char *name;
  const char *description;
  const char *schema;
} bridge_tools[] = {
  { "list_instances",
    "Find running game instances: registry entries plus a sweep of the scan range. Returns "
    "{registryDir, live[], stale[], notAGame[], free[]}.",
    "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}" },
  { "launch_instance",
    "Start a game instance from the project's launch declaration (gamebridge.json); returns once it answers "
    "GET /health: {port, pid, name, version, cwd, readyInMs, logFile}.",
    "{\"type\":\"object\",\"properties\":{\"port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535,"
    "\"description\":\"A port to use; omit to let the bridge choose\"},"
    "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":3600000,"
    "\"description\":\"How long to wait for the game to answer (default: readyTimeoutMs of the declaration)\"}},"
    "\"additionalProperties\":false}" },
  { "stop_instance",
    "Close an instance this bridge launched: its own close command first, then terminate it. "
    "Returns {port, stopped, how}.",
    "{\"type\":\"object\",\"properties\":{\"port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},"
    "\"graceMs\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":600000,"
    "\"description\":\"How long the clean close may take (default 3000)\"}},\"additionalProperties\":false}" },
  { "list_toolsets",
    "The instance's toolsets (from its manifest) plus bridge and passthrough.",
    "{\"type\":\"object\",\"properties\":{\"port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},"
    "\"instance\":{\"type\":\"string\",\"description\":\"A target id from list_instances (gabp:..., http:...)\"}},"
    "\"additionalProperties\":false}" },
  { "describe_toolset",
    "The exact JSON Schemas of one toolset's tools.",
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"minLength\":1},"
    "\"port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},\"instance\":{\"type\":\"string\"}},"
    "\"required\":[\"name\"],\"additionalProperties\":false}" },
  { "call_tool",
    "Call a tool by name (composite, the game's manifest, then passthrough as a raw command); waits until "
    "the command was applied and returns the state after it. With screenshot, the game's frame after it too.",
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"minLength\":1},"
    "\"port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},"
    "\"instance\":{\"type\":\"string\",\"description\":\"A target id from list_instances, instead of port\"},"
    "\"arguments\":{\"type\":\"object\"},"
    "\"screenshot\":{\"type\":[\"boolean\",\"object\"],\"description\":\"Also return the frame once the call "
    "returned: true, or the screenshot tool's arguments (width, height, region)\"}},"
    "\"required\":[\"name\"],\"additionalProperties\":false}" },
  { "instance_log",
    "The last lines (at most 200) of a launched instance's output.",
    "{\"type\":\"object\",\"properties\":{\"port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},"
    "\"lines\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":200}},\"additionalProperties\":false}" },
};

/* ---- the provider --------------------------------------------------------- */

static JsonObject *
schema_of (guint i)
{
  g_autoptr(JsonNode) node = gg_json_parse (bridge_tools[i].schema, -1, 16, NULL);

  return json_object_ref (json_node_get_object (node));
}

/* The tools above as GbTool, which keep their compiled input schemas, and
 * last call_tool's `screenshot` object: every call checks its arguments,
 * so they are parsed and compiled once per thread (as the bridge toolset,
 * gb-bridge-toolset.c), not on every call. */
#define SCREENSHOT_ARGUMENT G_N_ELEMENTS (bridge_tools)

static GPrivate per_thread_checks = G_PRIVATE_INIT ((GDestroyNotify) g_ptr_array_unref);

static GbTool *
checked_tool (guint i)
{
  GPtrArray *tools = g_private_get (&per_thread_checks);

  if (tools == NULL)
    {
      tools = g_ptr_array_new_with_free_func ((GDestroyNotify) gb_tool_free);
      for (guint k = 0; k <= SCREENSHOT_ARGUMENT; k++)
        {
          GbTool *tool = g_new0 (GbTool, 1);
          g_autoptr(JsonNode) node = NULL;

          if (k < SCREENSHOT_ARGUMENT)
            {
              tool->name = g_strdup (bridge_tools[k].name);
              tool->input_schema = schema_of (k);
            }
          else
            {
              tool->name = g_strdup ("screenshot");
              node = gg_json_parse (gb_screenshot_schema (), -1, 16, NULL);
              tool->input_schema = json_object_ref (json_node_get_object (node));
            }
          g_ptr_array_add (tools, tool);
        }
      g_private_set (&per_thread_checks, tools);
    }
  return g_ptr_array_index (tools, i);
}

static JsonArray *
provider_list_tools (gpointer provider)
{
  GbBridge *self = provider;
  JsonArray *tools = json_array_new ();
  GHashTableIter iter;
  gpointer value;

  for (guint i = 0; i < G_N_ELEMENTS (bridge_tools); i++)
    {
      JsonObject *o = json_object_new ();

      json_object_set_string_member (o, "name", bridge_tools[i].name);
      json_object_set_string_member (o, "description", bridge_tools[i].description);
      json_object_set_object_member (o, "inputSchema", schema_of (i));
      json_array_add_object_element (tools, o);
    }
  if (!self->options.eager)
    return tools;

  /* --eager: every tool of every known game, flatly, first name wins. */
  g_hash_table_remove_all (self->eager_names);
  g_hash_table_iter_init (&iter, self->targets);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      GbManifest *manifest = gb_connector_peek_manifest (gb_http_target_get_connector (value));

      for (guint i = 0; manifest != NULL && i < manifest->toolsets->len; i++)
        {
          GbToolset *toolset = g_ptr_array_index (manifest->toolsets, i);

          for (guint j = 0; j < toolset->tools->len; j++)
            {
              GbTool *tool = g_ptr_array_index (toolset->tools, j);
              JsonObject *o;
              gboolean reserved = FALSE;

              for (guint k = 0; k < G_N_ELEMENTS (bridge_tools); k++)
                reserved |= g_str_equal (bridge_tools[k].name, tool->name);
              if (reserved || g_hash_table_contains (self->eager_names, tool->name))
                continue;
              g_hash_table_insert (self->eager_names, g_strdup (tool->name), g_strdup (toolset->name));
              o = gb_tool_to_json (tool);
              /* Flat tools take the port beside their own arguments. */
              if (json_object_has_member (json_object_get_object_member (o, "inputSchema"), "properties"))
                {
                  JsonObject *props = json_object_get_object_member (json_object_get_object_member (o, "inputSchema"),
                                                                     "properties");
                  if (!json_object_has_member (props, "port"))
                    {
                      JsonObject *port = json_object_new ();

                      json_object_set_string_member (port, "type", "integer");
                      json_object_set_string_member (port, "description", "The game's port (default: --port)");
                      json_object_set_object_member (props, "port", port);
                    }
                }
              json_array_add_object_element (tools, o);
            }
        }
    }
  return tools;
}

/* ---- call_tool: check, resolve once, dispatch, wrap ---------------------------- */

static JsonObject *
copy_object (JsonObject *o)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), o);
  g_autoptr(JsonNode) copy = gg_json_copy (node);

  return json_object_ref (json_node_get_object (copy));
}

static JsonObject *
wrap (JsonNode *node)
{
  JsonObject *result = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonObject *text = json_object_new ();
  g_autoptr(JsonObject) image = JSON_NODE_HOLDS_OBJECT (node)
                                ? gb_screenshot_steal_image (json_node_get_object (node)) : NULL;
  g_autofree char *json = gg_json_to_string (node);

  json_object_set_string_member (text, "type", "text");
  json_object_set_string_member (text, "text", json);
  json_array_add_object_element (content, text);
  /* The image itself goes as it came: its base64 is moved, never copied. */
  if (image != NULL)
    {
      JsonObject *item = json_object_new ();

      json_object_set_string_member (item, "type", "image");
      json_object_set_member (item, "data", json_node_ref (json_object_get_member (image, "data")));
      json_object_set_string_member (item, "mimeType", json_object_get_string_member (image, "mimeType"));
      json_object_remove_member (image, "data");
      json_array_add_object_element (content, item);
    }
  json_object_set_array_member (result, "content", content);
  if (JSON_NODE_HOLDS_OBJECT (node))
    json_object_set_member (result, "structuredContent", json_node_copy (node));
  else
    {
      JsonObject *wrapped = json_object_new ();

      json_object_set_member (wrapped, "result", json_node_copy (node));
      json_object_set_object_member (result, "structuredContent", wrapped);
    }
  return result;
}

/* Every tool completes here with its result object: the one CallToolResult. */
static void
on_tool_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  g_autoptr(JsonObject) r = g_task_propagate_pointer (G_TASK (result), &error);
  g_autoptr(JsonNode) node = NULL;

  if (r == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  node = json_node_init_object (json_node_alloc (), r);
  g_task_return_pointer (task, wrap (node), (GDestroyNotify) json_object_unref);
}

static void
on_instances_listed (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  JsonObject *r = gb_instances_list_finish (g_task_get_task_data (task), result, &error);

  if (r == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, r, (GDestroyNotify) json_object_unref);
}

/* call_tool with `screenshot`: the call's result, then the frame after it. */
typedef struct {
  GbBridge *bridge;
  GTask    *task;
  GgTarget *target;
  JsonNode *screenshot;
} SeeAfter;

static void
on_called_then_see (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  SeeAfter *see = user_data;
  GError *error = NULL;
  g_autoptr(JsonObject) r = gb_call_tool_finish (result, &error);

  if (r == NULL)
    {
      g_task_return_error (see->task, error);
      g_object_unref (see->task);
    }
  else
    gb_screenshot_after_call_async (see->target, r, see->screenshot, &see->bridge->image_limits,
                                    (guint) see->bridge->options.timeout_ms, g_task_get_cancellable (see->task),
                                    on_tool_done, see->task);
  g_object_unref (see->target);
  json_node_unref (see->screenshot);
  g_free (see);
}

/* call_tool, and a flat --eager tool: @inner holds the tool's arguments
 * (and maybe `port`, which names the target and is no argument). */
static void
start_call_tool (GbBridge   *self,
                 GTask      *task,
                 const char *name,
                 JsonObject *args,
                 JsonObject *inner)
{
  GError *error = NULL;
  g_autoptr(GgTarget) target = gb_bridge_resolve_target (self, args, inner, &error);
  JsonNode *screenshot = json_object_get_member (args, "screenshot");

  if (target == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  json_object_remove_member (inner, "port");
  if (screenshot != NULL && JSON_NODE_HOLDS_OBJECT (screenshot))
    {
      if (!gb_tool_check (checked_tool (SCREENSHOT_ARGUMENT), json_node_get_object (screenshot), &error))
        {
          g_task_return_error (task, error);
          g_object_unref (task);
          return;
        }
    }
  if (screenshot != NULL && (JSON_NODE_HOLDS_OBJECT (screenshot) || json_node_get_boolean (screenshot)))
    {
      SeeAfter *see = g_new0 (SeeAfter, 1);

      see->bridge = self;
      see->task = task;
      see->target = g_object_ref (target);
      see->screenshot = json_node_ref (screenshot);
      gb_call_tool_async (self, target, name, inner, g_task_get_cancellable (task), on_called_then_see, see);
      return;
    }
  gb_call_tool_async (self, target, name, inner, g_task_get_cancellable (task), on_tool_done, task);
}

/* One of the seven tools, its arguments checked against its schema. */
static void
dispatch (GbBridge   *self,
          GTask      *task,
          const char *name,
          JsonObject *args,
          GbMcpCall  *call)
{
  GCancellable *cancellable = g_task_get_cancellable (task);
  GError *error = NULL;

  if (g_str_equal (name, "list_instances"))
    {
      GTask *list = g_task_new (NULL, cancellable, on_tool_done, task);

      g_task_set_task_data (list, self, NULL);
      gb_instances_list_async (self, cancellable, on_instances_listed, list);
    }
  else if (g_str_equal (name, "launch_instance"))
    gb_instance_tools_launch_async (self, args, call, cancellable, on_tool_done, task);
  else if (g_str_equal (name, "stop_instance"))
    gb_instance_tools_stop_async (self, gb_bridge_resolve_port (self, args, NULL),
                                  (guint) json_object_get_int_member_with_default (args, "graceMs", DEFAULT_GRACE_MS),
                                  cancellable, on_tool_done, task);
  else if (g_str_equal (name, "instance_log"))
    {
      g_autoptr(JsonObject) r = gb_instance_tools_log (self, gb_bridge_resolve_port (self, args, NULL),
                                                       (guint) json_object_get_int_member_with_default (args, "lines",
                                                                                                        GB_LOG_LINES),
                                                       &error);
      g_autoptr(JsonNode) node = r != NULL ? json_node_init_object (json_node_alloc (), r) : NULL;

      if (node == NULL)
        g_task_return_error (task, error);
      else
        g_task_return_pointer (task, wrap (node), (GDestroyNotify) json_object_unref);
      g_object_unref (task);
    }
  else if (g_str_equal (name, "call_tool"))
    {
      JsonNode *inner = json_object_get_member (args, "arguments");
      g_autoptr(JsonObject) copy = inner != NULL ? copy_object (json_node_get_object (inner)) : json_object_new ();

      start_call_tool (self, task, json_object_get_string_member (args, "name"), args, copy);
    }
  else /* list_toolsets, describe_toolset */
    {
      g_autoptr(GgTarget) target = gb_bridge_resolve_target (self, args, NULL, &error);

      if (target == NULL)
        {
          g_task_return_error (task, error);
          g_object_unref (task);
          return;
        }
      gb_toolsets_async (self, target, g_str_equal (name, "describe_toolset")
                                       ? json_object_get_string_member (args, "name") : NULL,
                         cancellable, on_tool_done, task);
    }
}

static JsonObject *
provider_call_tool_finish (gpointer       provider,
                           GAsyncResult  *result,
                           GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
provider_call_tool_async (gpointer             provider,
                          const char          *name,
                          JsonObject          *arguments,
                          GbMcpCall           *call,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  GbBridge *self = provider;
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  g_autoptr(JsonObject) args = arguments != NULL ? json_object_ref (arguments) : json_object_new ();
  GError *error = NULL;
  gint known = -1;

  /* The bus tap: what follows on the bus carries this request's id. */
  if (gg_bus_is_observed (self->bus) && cancellable != NULL)
    {
      g_autofree char *id = gg_bus_new_correlation (self->bus, "mcp");
      g_autoptr(JsonNode) payload = json_node_new (JSON_NODE_OBJECT);
      JsonObject *object = json_object_new ();
      GgBusRecord record = { .kind = "request", .plugin = "mcp", .name = "tools/call",
                             .correlation = id, .duration_us = -1, .payload = payload };

      json_object_set_string_member (object, "tool", name);
      json_object_set_object_member (object, "arguments", json_object_ref (args));
      json_node_take_object (payload, object);
      gg_bus_set_correlation (cancellable, "mcp", NULL, id);
      gg_bus_report (self->bus, &record);
    }

  for (guint i = 0; i < G_N_ELEMENTS (bridge_tools); i++)
    if (g_str_equal (bridge_tools[i].name, name))
      known = (gint) i;
  if (known < 0)
    {
      /* The flat list may have grown since the client last asked for it. */
      if (self->options.eager && !g_hash_table_contains (self->eager_names, name))
        json_array_unref (provider_list_tools (self));
      if (self->options.eager && g_hash_table_contains (self->eager_names, name))
        {
          g_autoptr(JsonObject) inner = copy_object (args);
          g_autoptr(JsonObject) none = json_object_new ();

          start_call_tool (self, task, name, none, inner);
          return;
        }
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "Unknown tool: %s", name);
      g_object_unref (task);
      return;
    }
  if (!gb_tool_check (checked_tool ((guint) known), args, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  dispatch (self, task, name, args, call);
}

static const GbMcpToolsProvider provider = {
  provider_list_tools,
  provider_call_tool_async,
  provider_call_tool_finish,
};

const GbMcpToolsProvider *
gb_tools_provider (void)
{
  return &provider;
}
