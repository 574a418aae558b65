/* gb-target.c: one live HTTP game as a GgTarget on the bus (id "http:<port>").
 *
 * call_tool resolves a name in the order of spec section 4 (after the
 * composites, which the MCP side resolves first): the bridge toolset, the
 * game's manifest with one reload on a miss (a rebuilt game's new commands),
 * then passthrough as a raw command. Every result is the section 4 object.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-bridge-toolset.h"
#include "gb-command-sync.h"
#include "gb-errors.h"
#include "gb-screenshot.h"
#include "gb-state-tools.h"
#include "gb-target.h"

struct _GbHttpTarget {
  GObject parent_instance;

  GbConnector *connector;
  char *id;
  JsonObject *info;
};

static void gb_http_target_iface_init (GgTargetInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GbHttpTarget, gb_http_target, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_TARGET, gb_http_target_iface_init))

static void
on_manifest_changed (GbConnector *connector,
                     gpointer     user_data)
{
  gg_target_emit_tools_changed (GG_TARGET (user_data));
}

static void
gb_http_target_finalize (GObject *object)
{
  GbHttpTarget *self = GB_HTTP_TARGET (object);

  g_signal_handlers_disconnect_by_data (self->connector, self);
  g_clear_object (&self->connector);
  g_free (self->id);
  g_clear_pointer (&self->info, json_object_unref);
  G_OBJECT_CLASS (gb_http_target_parent_class)->finalize (object);
}

static void
gb_http_target_class_init (GbHttpTargetClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gb_http_target_finalize;
}

static void
gb_http_target_init (GbHttpTarget *self)
{
}

GbHttpTarget *
gb_http_target_new (GbConnector *connector)
{
  GbHttpTarget *self = g_object_new (GB_TYPE_HTTP_TARGET, NULL);

  self->connector = g_object_ref (connector);
  self->id = g_strdup_printf ("http:%u", gb_connector_get_port (connector));
  g_signal_connect (connector, "manifest-changed", G_CALLBACK (on_manifest_changed), self);
  return self;
}

GbConnector *
gb_http_target_get_connector (GbHttpTarget *self)
{
  return self->connector;
}

/* @info: what discovery learnt (registry entry, launch); merged into get_info. */
void
gb_http_target_set_info (GbHttpTarget *self,
                         JsonObject   *info)
{
  g_clear_pointer (&self->info, json_object_unref);
  self->info = info != NULL ? json_object_ref (info) : NULL;
}

static const char *
target_get_id (GgTarget *target)
{
  return GB_HTTP_TARGET (target)->id;
}

static JsonObject *
target_get_info (GgTarget *target)
{
  GbHttpTarget *self = GB_HTTP_TARGET (target);
  GbManifest *manifest = gb_connector_peek_manifest (self->connector);
  JsonObject *info = json_object_new ();

  if (self->info != NULL)
    {
      g_autoptr(JsonNode) copy = json_node_init_object (json_node_alloc (), self->info);
      g_autoptr(JsonNode) deep = gg_json_copy (copy);
      JsonObject *o = json_node_get_object (deep);
      g_autoptr(GList) names = json_object_get_members (o);

      for (GList *l = names; l != NULL; l = l->next)
        json_object_set_member (info, l->data, json_node_copy (json_object_get_member (o, l->data)));
    }
  json_object_set_string_member (info, "id", self->id);
  json_object_set_string_member (info, "kind", "http");
  json_object_set_int_member (info, "port", gb_connector_get_port (self->connector));
  if (!json_object_has_member (info, "name"))
    {
      if (manifest != NULL && manifest->game_name != NULL)
        json_object_set_string_member (info, "name", manifest->game_name);
      else
        json_object_set_string_member (info, "name", self->id);
    }
  if (!json_object_has_member (info, "status"))
    json_object_set_string_member (info, "status",
                                   manifest != NULL && g_str_equal (manifest->source, "fallback")
                                   ? "live-no-manifest" : "live");
  return info;
}

/* ---- list_tools ---------------------------------------------------------- */

static void
add_tools (JsonArray *out,
           GbToolset *toolset)
{
  for (guint i = 0; i < toolset->tools->len; i++)
    {
      GbTool *tool = g_ptr_array_index (toolset->tools, i);
      JsonObject *o = json_object_new ();
      JsonArray *tags = json_array_new ();
      g_autoptr(JsonNode) schema = json_node_init_object (json_node_alloc (), tool->input_schema);

      json_object_set_string_member (o, "name", tool->name);
      json_object_set_string_member (o, "description", tool->description);
      json_object_set_member (o, "parameters", gg_json_copy (schema));
      json_array_add_string_element (tags, toolset->name);
      json_object_set_array_member (o, "tags", tags);
      json_array_add_object_element (out, o);
    }
}

static void
on_list_manifest (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  g_autoptr(GbManifest) manifest = gb_connector_manifest_finish (GB_CONNECTOR (source), result, &error);
  JsonArray *out;

  if (manifest == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  out = json_array_new ();
  for (guint i = 0; i < manifest->toolsets->len; i++)
    add_tools (out, g_ptr_array_index (manifest->toolsets, i));
  add_tools (out, gb_bridge_toolset_get ());
  g_task_return_pointer (task, out, (GDestroyNotify) json_array_unref);
}

static void
target_list_tools_async (GgTarget            *target,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  GbHttpTarget *self = GB_HTTP_TARGET (target);

  gb_connector_manifest_async (self->connector, FALSE, cancellable, on_list_manifest,
                               g_task_new (self, cancellable, callback, user_data));
}

static JsonArray *
target_list_tools_finish (GgTarget      *target,
                          GAsyncResult  *result,
                          GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- get_state ------------------------------------------------------------ */

static void
on_state_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  JsonNode *state = gb_connector_state_finish (GB_CONNECTOR (source), result, &error);

  if (state == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, state, (GDestroyNotify) json_node_unref);
}

static void
target_get_state_async (GgTarget            *target,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  gb_connector_state_async (GB_HTTP_TARGET (target)->connector, cancellable, on_state_done,
                            g_task_new (target, cancellable, callback, user_data));
}

static JsonNode *
target_get_state_finish (GgTarget      *target,
                         GAsyncResult  *result,
                         GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- call_tool ------------------------------------------------------------ */

typedef struct {
  char *name;
  JsonObject *arguments;
  char *via;
  gboolean reloaded;
} CallData;

static void
call_data_free (CallData *data)
{
  g_free (data->name);
  g_clear_pointer (&data->arguments, json_object_unref);
  g_free (data->via);
  g_free (data);
}

/* port, tool, via first, then what the connector reported. */
static JsonNode *
wrap_result (GbHttpTarget *self,
             CallData     *data,
             JsonObject   *body)
{
  JsonObject *r = json_object_new ();
  g_autoptr(GList) names = json_object_get_members (body);

  json_object_set_int_member (r, "port", gb_connector_get_port (self->connector));
  json_object_set_string_member (r, "tool", data->name);
  json_object_set_string_member (r, "via", data->via);
  for (GList *l = names; l != NULL; l = l->next)
    json_object_set_member (r, l->data, json_node_copy (json_object_get_member (body, l->data)));
  {
    JsonNode *node = json_node_new (JSON_NODE_OBJECT);

    json_node_take_object (node, r);
    return node;
  }
}

static void
return_object (GTask      *task,
               JsonObject *body)
{
  GbHttpTarget *self = g_task_get_source_object (task);
  CallData *data = g_task_get_task_data (task);

  g_task_return_pointer (task, wrap_result (self, data, body), (GDestroyNotify) json_node_unref);
  json_object_unref (body);
}

static void
on_command_done (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  JsonObject *body = gb_connector_command_finish (GB_CONNECTOR (source), result, &error);

  if (body == NULL)
    g_task_return_error (task, error);
  else
    return_object (task, body);
}

static void
send_command (GTask      *task,
              const char *command,
              JsonObject *arguments)
{
  GbHttpTarget *self = g_task_get_source_object (task);

  gb_connector_command_async (self->connector, command, arguments, g_task_get_cancellable (task),
                              on_command_done, task);
}

static void
on_health_done (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  JsonObject *health = gb_connector_health_finish (GB_CONNECTOR (source), result, &error);
  g_autoptr(JsonNode) wrapped = NULL;
  g_autoptr(JsonNode) copy = NULL;

  if (health == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  wrapped = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (wrapped, health);
  copy = gg_json_copy (wrapped);
  return_object (task, json_object_ref (json_node_get_object (copy)));
}

static void
on_screenshot_done (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  JsonObject *body = gb_screenshot_tool_finish (result, &error);

  if (body == NULL)
    g_task_return_error (task, error);
  else
    return_object (task, body);
}

static void
on_state_tool_done (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  JsonObject *body = gb_state_tool_finish (result, &error);

  if (body == NULL)
    g_task_return_error (task, error);
  else
    return_object (task, body);
}

/* ---- resolution ------------------------------------------------------------ */

static void
run_bridge_tool (GTask *task)
{
  GbHttpTarget *self = g_task_get_source_object (task);
  CallData *data = g_task_get_task_data (task);
  GbToolset *bridge = gb_bridge_toolset_get ();
  GError *error = NULL;

  data->via = g_strdup ("bridge");
  for (guint i = 0; i < bridge->tools->len; i++)
    {
      GbTool *tool = g_ptr_array_index (bridge->tools, i);

      if (g_str_equal (tool->name, data->name) &&
          !gb_tool_check (tool, data->arguments, &error))
        {
          g_task_return_error (task, error);
          g_object_unref (task);
          return;
        }
    }
  if (gb_state_tool_has (data->name))
    gb_state_tool_async (GG_TARGET (self), data->name, data->arguments, gb_connector_get_timeout (self->connector),
                         g_task_get_cancellable (task), on_state_tool_done, task);
  else if (g_str_equal (data->name, "health"))
    gb_connector_health_async (self->connector, 0, g_task_get_cancellable (task), on_health_done, task);
  else if (g_str_equal (data->name, "close"))
    send_command (task, "close", NULL);
  else if (g_str_equal (data->name, "screenshot"))
    gb_screenshot_tool_async (GG_TARGET (self), data->arguments, NULL, gb_connector_get_timeout (self->connector),
                              g_task_get_cancellable (task), on_screenshot_done, task);
  else /* raw_command */
    {
      g_autoptr(JsonNode) copy = json_node_init_object (json_node_alloc (), data->arguments);
      g_autoptr(JsonNode) args = gg_json_copy (copy);
      g_autofree char *cmd = g_strdup (json_object_get_string_member (json_node_get_object (args), "cmd"));

      json_object_remove_member (json_node_get_object (args), "cmd");
      send_command (task, cmd, json_node_get_object (args));
    }
}

static void resolve (GTask *task, GbManifest *manifest);

static void
on_call_manifest (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GTask *task = user_data;
  GError *error = NULL;
  g_autoptr(GbManifest) manifest = gb_connector_manifest_finish (GB_CONNECTOR (source), result, &error);

  if (manifest == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  resolve (task, manifest);
}

static void
resolve (GTask      *task,
         GbManifest *manifest)
{
  GbHttpTarget *self = g_task_get_source_object (task);
  CallData *data = g_task_get_task_data (task);
  GbTool *tool = gb_manifest_find_tool (manifest, data->name);
  GError *error = NULL;

  if (tool != NULL)
    {
      data->via = g_strdup (g_str_equal (manifest->source, "file") ? "manifest-file" : "manifest");
      if (!gb_tool_check (tool, data->arguments, &error))
        {
          g_task_return_error (task, error);
          g_object_unref (task);
          return;
        }
      send_command (task, tool->command, data->arguments);
      return;
    }
  /* One reload on a miss: a rebuilt game may have new commands. */
  if (!data->reloaded && !g_str_equal (manifest->source, "fallback"))
    {
      data->reloaded = TRUE;
      gb_connector_manifest_async (self->connector, TRUE, g_task_get_cancellable (task), on_call_manifest, task);
      return;
    }
  data->via = g_strdup ("passthrough");
  send_command (task, data->name, data->arguments);
}

static void
target_call_tool_async (GgTarget            *target,
                        const char          *name,
                        JsonObject          *arguments,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  GbHttpTarget *self = GB_HTTP_TARGET (target);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  CallData *data = g_new0 (CallData, 1);

  data->name = g_strdup (name);
  data->arguments = arguments != NULL ? json_object_ref (arguments) : json_object_new ();
  g_task_set_task_data (task, data, (GDestroyNotify) call_data_free);
  if (gb_bridge_toolset_has (name))
    run_bridge_tool (task);
  else
    gb_connector_manifest_async (self->connector, FALSE, cancellable, on_call_manifest, task);
}

static JsonNode *
target_call_tool_finish (GgTarget      *target,
                         GAsyncResult  *result,
                         GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
gb_http_target_iface_init (GgTargetInterface *iface)
{
  iface->get_id = target_get_id;
  iface->get_info = target_get_info;
  iface->list_tools_async = target_list_tools_async;
  iface->list_tools_finish = target_list_tools_finish;
  iface->call_tool_async = target_call_tool_async;
  iface->call_tool_finish = target_call_tool_finish;
  iface->get_state_async = target_get_state_async;
  iface->get_state_finish = target_get_state_finish;
}
