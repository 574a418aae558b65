/* gb-call-tool.c: call_tool on a target already resolved (spec section 4):
 *  1. a composite tool of that name, when it suits the game;
 *  2. on a target of another plugin (a GABP mod), the bridge toolset:
 *     get_state and wait_for over its state, health from its status,
 *     raw_command as a call of the named tool, screenshot through its
 *     screenshot tool (close has no meaning there);
 *  3. the target's own call_tool (an HTTP game resolves the bridge toolset,
 *     its manifest and passthrough itself: gb-target.c).
 * The result is the section 4 object: port (HTTP) or instance, tool, via,
 * then what the tool returned. An image in another plugin's tool result
 * (gamegate's extension) is checked and lifted beside it, as `image`.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-bridge-toolset.h"
#include "gb-call-tool.h"
#include "gb-errors.h"
#include "gb-screenshot.h"
#include "gb-state-tools.h"

typedef struct {
  GbBridge *bridge;
  GgTarget *target;
  char *name;
  JsonObject *arguments;
  GgCompositeTool *composite;
} Call;

static void
call_free (Call *c)
{
  g_clear_object (&c->target);
  g_free (c->name);
  g_clear_pointer (&c->arguments, json_object_unref);
  g_clear_pointer (&c->composite, gg_composite_tool_unref);
  g_free (c);
}

static void
return_error (GTask  *task,
              GError *error)
{
  g_task_return_error (task, error);
  g_object_unref (task);
}

/* `{port | instance, tool, via}`, then @members (copied). */
static void
return_result (GTask      *task,
               const char *via,
               JsonObject *members)
{
  Call *c = g_task_get_task_data (task);
  JsonObject *r = json_object_new ();
  g_autoptr(GList) names = members != NULL ? json_object_get_members (members) : NULL;

  if (GB_IS_HTTP_TARGET (c->target))
    json_object_set_int_member (r, "port",
                                gb_connector_get_port (gb_http_target_get_connector (GB_HTTP_TARGET (c->target))));
  else
    json_object_set_string_member (r, "instance", gg_target_get_id (c->target));
  json_object_set_string_member (r, "tool", c->name);
  json_object_set_string_member (r, "via", via);
  for (GList *l = names; l != NULL; l = l->next)
    json_object_set_member (r, l->data, json_node_copy (json_object_get_member (members, l->data)));
  g_task_return_pointer (task, r, (GDestroyNotify) json_object_unref);
  g_object_unref (task);
}

/* ---- the target's own call_tool ---------------------------------------------- */

/* An image in another plugin's tool result goes beside it, checked. */
static gboolean
lift_image (Call      *c,
            JsonObject *members,
            JsonNode   *node,
            GError    **error)
{
  g_autofree char *source = NULL;
  JsonObject *image;

  if (!JSON_NODE_HOLDS_OBJECT (node) || !json_object_has_member (json_node_get_object (node), "image"))
    return TRUE;
  source = g_strdup_printf ("%s's tool %s", gg_target_get_id (c->target), c->name);
  image = gb_screenshot_take_image (json_node_get_object (node), &c->bridge->image_limits, source, error);
  if (image == NULL)
    return FALSE;
  json_object_set_object_member (members, "image", image);
  return TRUE;
}

static void
on_target_call (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  GTask *task = user_data;
  Call *c = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonNode) node = gg_target_call_tool_finish (GG_TARGET (source), result, &error);
  g_autoptr(JsonObject) wrapped = NULL;

  if (node == NULL)
    {
      gb_bridge_forget_if_offline (c->bridge, c->target, error);
      return_error (task, error);
      return;
    }
  /* An HTTP game's target already answers with the section 4 object. */
  if (GB_IS_HTTP_TARGET (c->target) && JSON_NODE_HOLDS_OBJECT (node))
    {
      g_task_return_pointer (task, json_node_dup_object (node), (GDestroyNotify) json_object_unref);
      g_object_unref (task);
      return;
    }
  wrapped = json_object_new ();
  if (!lift_image (c, wrapped, node, &error))
    {
      return_error (task, error);
      return;
    }
  json_object_set_member (wrapped, "result", g_steal_pointer (&node));
  return_result (task, "target", wrapped);
}

/* ---- the bridge toolset on another plugin's target ------------------------------ */

static void
on_state_tool (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  GTask *task = user_data;
  GError *error = NULL;
  g_autoptr(JsonObject) body = gb_state_tool_finish (result, &error);

  if (body == NULL)
    return_error (task, error);
  else
    return_result (task, "bridge", body);
}

/* `{ok, status}`: a target of another plugin has no /health; its status
 * says whether it can be driven. */
static void
run_health (GTask *task)
{
  Call *c = g_task_get_task_data (task);
  g_autoptr(JsonObject) info = gg_target_get_info (c->target);
  g_autoptr(JsonObject) body = json_object_new ();
  const char *status = json_object_get_string_member_with_default (info, "status", "unknown");

  json_object_set_boolean_member (body, "ok", g_str_equal (status, "ready") || g_str_equal (status, "live"));
  json_object_set_string_member (body, "status", status);
  if (json_object_has_member (info, "error"))
    json_object_set_member (body, "error", json_node_copy (json_object_get_member (info, "error")));
  return_result (task, "bridge", body);
}

static void
on_raw_call (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  GTask *task = user_data;
  Call *c = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonNode) node = gg_target_call_tool_finish (GG_TARGET (source), result, &error);
  g_autoptr(JsonObject) body = NULL;

  if (node == NULL)
    {
      return_error (task, error);
      return;
    }
  body = json_object_new ();
  if (!lift_image (c, body, node, &error))
    {
      return_error (task, error);
      return;
    }
  json_object_set_member (body, "result", g_steal_pointer (&node));
  return_result (task, "bridge", body);
}

static void
on_screenshot (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  GTask *task = user_data;
  GError *error = NULL;
  g_autoptr(JsonObject) body = gb_screenshot_tool_finish (result, &error);

  if (body == NULL)
    return_error (task, error);
  else
    return_result (task, "bridge", body);
}

static void
run_bridge_tool (GTask *task)
{
  Call *c = g_task_get_task_data (task);
  GbToolset *bridge = gb_bridge_toolset_get ();
  GbTool *tool = NULL;
  GError *error = NULL;

  for (guint i = 0; i < bridge->tools->len; i++)
    if (g_str_equal (((GbTool *) g_ptr_array_index (bridge->tools, i))->name, c->name))
      tool = g_ptr_array_index (bridge->tools, i);
  if (!gb_tool_check (tool, c->arguments, &error))
    {
      return_error (task, error);
      return;
    }
  if (gb_state_tool_has (c->name))
    gb_state_tool_async (c->target, c->name, c->arguments, (guint) c->bridge->options.timeout_ms,
                         g_task_get_cancellable (task), on_state_tool, task);
  else if (g_str_equal (c->name, "health"))
    run_health (task);
  else if (g_str_equal (c->name, "screenshot"))
    gb_screenshot_tool_async (c->target, c->arguments, &c->bridge->image_limits,
                              (guint) c->bridge->options.timeout_ms, g_task_get_cancellable (task),
                              on_screenshot, task);
  else if (g_str_equal (c->name, "raw_command"))
    {
      g_autoptr(JsonNode) copy = json_node_init_object (json_node_alloc (), c->arguments);
      g_autoptr(JsonNode) args = gg_json_copy (copy);
      g_autofree char *cmd = g_strdup (json_object_get_string_member (json_node_get_object (args), "cmd"));

      json_object_remove_member (json_node_get_object (args), "cmd");
      gg_target_call_tool_async (c->target, cmd, json_node_get_object (args), g_task_get_cancellable (task),
                                 on_raw_call, task);
    }
  else /* close */
    {
      gb_error_usage (&error, "%s has no close command: the bridge closes only HTTP games; a GABP mod's game "
                      "is closed through its own tools (list_toolsets shows them)", gg_target_get_id (c->target));
      return_error (task, error);
    }
}

/* ---- composites -------------------------------------------------------------------- */

static void
on_composite_done (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  Call *c = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonNode) node = gg_composite_tool_call_finish (c->composite, result, &error);
  g_autoptr(JsonObject) body = NULL;

  if (node == NULL)
    {
      return_error (task, error);
      return;
    }
  body = json_object_new ();
  json_object_set_member (body, "result", g_steal_pointer (&node));
  return_result (task, "composite", body);
}

static void
run_call (GTask *task)
{
  Call *c = g_task_get_task_data (task);

  if (c->composite != NULL)
    gg_composite_tool_call_async (c->composite, c->target, c->arguments, g_task_get_cancellable (task),
                                  on_composite_done, task);
  else if (!GB_IS_HTTP_TARGET (c->target) && gb_bridge_toolset_has (c->name))
    run_bridge_tool (task);
  else
    gg_target_call_tool_async (c->target, c->name, c->arguments, g_task_get_cancellable (task),
                               on_target_call, task);
}

static void
on_composite_manifest (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  GTask *task = user_data;
  Call *c = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GbManifest) manifest = gb_connector_manifest_finish (GB_CONNECTOR (source), result, &error);

  if (manifest == NULL)
    {
      gb_bridge_forget_if_offline (c->bridge, c->target, error);
      return_error (task, error);
      return;
    }
  /* A composite that does not suit this game leaves the name to the game. */
  if (!gg_composite_tool_applies_to (c->composite, manifest->game_name))
    g_clear_pointer (&c->composite, gg_composite_tool_unref);
  run_call (task);
}

/**
 * gb_call_tool_async:
 * @bridge: the bridge
 * @target: the target the call names, resolved once by the caller
 * @name: the tool's name
 * @arguments: the tool's own arguments (without `port`)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the section 4 result object
 * @user_data: data for @callback
 *
 * Runs call_tool.
 */
void
gb_call_tool_async (GbBridge            *bridge,
                    GgTarget            *target,
                    const char          *name,
                    JsonObject          *arguments,
                    GCancellable        *cancellable,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  Call *c = g_new0 (Call, 1);

  c->bridge = bridge;
  c->target = g_object_ref (target);
  c->name = g_strdup (name);
  c->arguments = json_object_ref (arguments);
  g_task_set_task_data (task, c, (GDestroyNotify) call_free);
  c->composite = gg_bus_lookup_composite_tool (bridge->bus, name);
  if (c->composite != NULL && gg_composite_tool_get_only (c->composite) != NULL)
    {
      if (GB_IS_HTTP_TARGET (c->target))
        {
          gb_connector_manifest_async (gb_http_target_get_connector (GB_HTTP_TARGET (c->target)), FALSE,
                                       cancellable, on_composite_manifest, task);
          return;
        }
      else
        {
          g_autoptr(JsonObject) info = gg_target_get_info (c->target);

          if (!gg_composite_tool_applies_to (c->composite,
                                             json_object_get_string_member_with_default (info, "name", NULL)))
            g_clear_pointer (&c->composite, gg_composite_tool_unref);
        }
    }
  run_call (task);
}

JsonObject *
gb_call_tool_finish (GAsyncResult  *result,
                     GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}
