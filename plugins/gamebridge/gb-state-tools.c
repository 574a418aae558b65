/* gb-state-tools.c: the two bridge tools that read a game's state,
 * get_state {path?} and wait_for {path, equals? | notEquals? | exists?,
 * timeoutMs?} (spec section 4), over any bus target's get_state: an HTTP
 * game's GET /state, a GABP mod's state/get. Both the HTTP target and the
 * call path for other plugins' targets run them from here, so the bridge
 * toolset means the same on every target.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-connector.h"
#include "gb-errors.h"
#include "gb-state-tools.h"

#define MAX_WAIT_MS 600000

typedef struct {
  GgTarget *target;
  char *path;
  /* wait_for */
  JsonNode *equals;
  JsonNode *not_equals;
  int exists;          /* -1 = not asked */
  gint64 started;
  gint64 deadline;
  guint poll_source;
  JsonNode *last_value;
} StateCall;

static void
state_call_free (StateCall *data)
{
  g_clear_handle_id (&data->poll_source, g_source_remove);
  g_clear_object (&data->target);
  g_free (data->path);
  g_clear_pointer (&data->equals, json_node_unref);
  g_clear_pointer (&data->not_equals, json_node_unref);
  g_clear_pointer (&data->last_value, json_node_unref);
  g_free (data);
}

static void
return_body (GTask      *task,
             JsonObject *body)
{
  g_task_return_pointer (task, body, (GDestroyNotify) json_object_unref);
  g_object_unref (task);
}

static void
return_error (GTask  *task,
              GError *error)
{
  g_task_return_error (task, error);
  g_object_unref (task);
}

/* ---- get_state ----------------------------------------------------------- */

static void
on_get_state_done (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  StateCall *data = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonNode) state = gg_target_get_state_finish (GG_TARGET (source), result, &error);
  JsonObject *body;
  JsonNode *value;

  if (state == NULL)
    {
      return_error (task, error);
      return;
    }
  body = json_object_new ();
  if (data->path == NULL)
    {
      json_object_set_member (body, "state", g_steal_pointer (&state));
      return_body (task, body);
      return;
    }
  value = gg_json_path_get (state, data->path, NULL);
  if (value == NULL)
    {
      json_object_unref (body);
      gb_error_usage (&error, "No value at path '%.200s' of the state", data->path);
      return_error (task, error);
      return;
    }
  json_object_set_string_member (body, "path", data->path);
  json_object_set_member (body, "value", gg_json_copy (value));
  return_body (task, body);
}

/* ---- wait_for ------------------------------------------------------------- */

static void wait_poll (GTask *task);

static gboolean
wait_condition (StateCall *data,
                JsonNode  *value)
{
  if (data->exists >= 0 && (value != NULL) != (data->exists == 1))
    return FALSE;
  if (data->equals != NULL && (value == NULL || !gg_json_equal (value, data->equals)))
    return FALSE;
  if (data->not_equals != NULL && value != NULL && gg_json_equal (value, data->not_equals))
    return FALSE;
  if (data->exists < 0 && data->equals == NULL && data->not_equals == NULL)
    return value != NULL;
  return TRUE;
}

static void
wait_finish (GTask    *task,
             gboolean  matched)
{
  StateCall *data = g_task_get_task_data (task);
  JsonObject *body = json_object_new ();

  json_object_set_string_member (body, "path", data->path);
  json_object_set_boolean_member (body, "matched", matched);
  json_object_set_member (body, "value", data->last_value != NULL ? json_node_copy (data->last_value)
                                                                  : json_node_new (JSON_NODE_NULL));
  json_object_set_int_member (body, "waitedMs", (g_get_monotonic_time () - data->started) / 1000);
  return_body (task, body);
}

static gboolean
on_wait_timer (gpointer user_data)
{
  StateCall *data = g_task_get_task_data (user_data);

  data->poll_source = 0;
  wait_poll (user_data);
  return G_SOURCE_REMOVE;
}

static void
on_wait_state (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  GTask *task = user_data;
  StateCall *data = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonNode) state = gg_target_get_state_finish (GG_TARGET (source), result, &error);
  JsonNode *value;

  if (state == NULL)
    {
      return_error (task, error);
      return;
    }
  value = gg_json_path_get (state, data->path, NULL);
  g_clear_pointer (&data->last_value, json_node_unref);
  data->last_value = value != NULL ? gg_json_copy (value) : NULL;
  if (wait_condition (data, value))
    {
      wait_finish (task, TRUE);
      return;
    }
  if (g_get_monotonic_time () >= data->deadline)
    {
      wait_finish (task, FALSE);
      return;
    }
  if (g_task_return_error_if_cancelled (task))
    {
      g_object_unref (task);
      return;
    }
  data->poll_source = g_timeout_add (GB_POLL_INTERVAL_MS, on_wait_timer, task);
}

static void
wait_poll (GTask *task)
{
  StateCall *data = g_task_get_task_data (task);

  gg_target_get_state_async (data->target, g_task_get_cancellable (task), on_wait_state, task);
}

static void
start_wait_for (GTask      *task,
                JsonObject *args,
                guint       default_timeout_ms)
{
  StateCall *data = g_task_get_task_data (task);
  gint64 timeout = default_timeout_ms;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) parts = NULL;

  data->path = g_strdup (json_object_get_string_member (args, "path"));
  parts = gg_json_path_split (data->path, &error);
  if (parts == NULL)
    {
      GError *usage = NULL;

      gb_error_usage (&usage, "Bad path '%.200s': %s", data->path, error->message);
      return_error (task, usage);
      return;
    }
  if (json_object_has_member (args, "equals"))
    data->equals = gg_json_copy (json_object_get_member (args, "equals"));
  if (json_object_has_member (args, "notEquals"))
    data->not_equals = gg_json_copy (json_object_get_member (args, "notEquals"));
  data->exists = json_object_has_member (args, "exists") ? json_object_get_boolean_member (args, "exists") : -1;
  if (json_object_has_member (args, "timeoutMs"))
    timeout = CLAMP (json_object_get_int_member (args, "timeoutMs"), 0, MAX_WAIT_MS);
  data->started = g_get_monotonic_time ();
  data->deadline = data->started + timeout * 1000;
  wait_poll (task);
}

/**
 * gb_state_tool_async:
 * @target: any bus target
 * @name: "get_state" or "wait_for"
 * @arguments: its arguments, already checked against the bridge schema
 * @default_timeout_ms: wait_for's timeout when the arguments give none
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the result body
 * @user_data: data for @callback
 *
 * Runs get_state or wait_for on @target's state. The body is `{state}` or
 * `{path, value}` (get_state), `{path, matched, value, waitedMs}` (wait_for);
 * the caller puts the port or instance, tool and via in front.
 */
void
gb_state_tool_async (GgTarget            *target,
                     const char          *name,
                     JsonObject          *arguments,
                     guint                default_timeout_ms,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  StateCall *data = g_new0 (StateCall, 1);

  data->target = g_object_ref (target);
  data->exists = -1;
  g_task_set_task_data (task, data, (GDestroyNotify) state_call_free);
  if (g_str_equal (name, "wait_for"))
    {
      start_wait_for (task, arguments, default_timeout_ms);
      return;
    }
  data->path = g_strdup (json_object_get_string_member_with_default (arguments, "path", NULL));
  gg_target_get_state_async (target, cancellable, on_get_state_done, task);
}

JsonObject *
gb_state_tool_finish (GAsyncResult  *result,
                      GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

gboolean
gb_state_tool_has (const char *name)
{
  return g_str_equal (name, "get_state") || g_str_equal (name, "wait_for");
}
