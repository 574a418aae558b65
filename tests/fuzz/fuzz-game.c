/* fuzz-game.c: see fuzz-game.h. Tools: `echo` returns its arguments,
 * `fail` fails with the code its `code` argument names, `emit` sends an
 * event on `channel` with `payload`, `state` returns the state. Deliberately
 * tolerant: whatever arguments the fuzzer sends, the game answers.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz-game.h"

struct _FuzzGame {
  GObject parent_instance;
  char *id;
  guint64 seq;
};

static void fuzz_game_target_init (GgTargetInterface *iface);
G_DEFINE_FINAL_TYPE_WITH_CODE (FuzzGame, fuzz_game, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_TARGET, fuzz_game_target_init))

static const char *tools_json =
  "[{\"name\":\"echo\",\"description\":\"Returns its arguments.\",\"parameters\":{\"type\":\"object\"}},"
  "{\"name\":\"fail\",\"description\":\"Fails.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"code\":{\"type\":\"integer\"}}}},"
  "{\"name\":\"emit\",\"description\":\"Sends an event.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"channel\":{\"type\":\"string\"},\"payload\":{}}}},"
  "{\"name\":\"state\",\"description\":\"Reads the state.\",\"parameters\":{\"type\":\"object\"},\"tags\":[\"read-only\"]}]";

static const char *
game_get_id (GgTarget *target)
{
  return FUZZ_GAME (target)->id;
}

static JsonObject *
game_get_info (GgTarget *target)
{
  JsonObject *info = json_object_new ();

  json_object_set_string_member (info, "id", FUZZ_GAME (target)->id);
  json_object_set_string_member (info, "kind", "fuzz");
  json_object_set_string_member (info, "name", "fuzz game");
  json_object_set_string_member (info, "status", "running");
  return info;
}

static void
game_list_tools_async (GgTarget            *target,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (target, cancellable, callback, user_data);
  g_autoptr(JsonNode) tools = gg_json_parse (tools_json, -1, 16, NULL);

  g_task_return_pointer (task, json_array_ref (json_node_get_array (tools)),
                         (GDestroyNotify) json_array_unref);
}

static JsonArray *
game_list_tools_finish (GgTarget      *target,
                        GAsyncResult  *result,
                        GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static JsonNode *
state_node (void)
{
  return gg_json_parse ("{\"player\":{\"hp\":3,\"gold\":60,\"party\":[{\"name\":\"a\"}]},\"turn\":1}",
                        -1, 16, NULL);
}

static void
game_call_tool_async (GgTarget            *target,
                      const char          *name,
                      JsonObject          *arguments,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  FuzzGame *self = FUZZ_GAME (target);
  g_autoptr(GTask) task = g_task_new (target, cancellable, callback, user_data);
  JsonNode *out;

  if (g_str_equal (name, "fail"))
    {
      gint64 code = GG_TARGET_ERROR_TOOL_FAILED;

      if (arguments != NULL && json_object_has_member (arguments, "code") &&
          JSON_NODE_HOLDS_VALUE (json_object_get_member (arguments, "code")) &&
          json_node_get_value_type (json_object_get_member (arguments, "code")) == G_TYPE_INT64)
        code = json_object_get_int_member (arguments, "code");
      if (code < GG_TARGET_ERROR_UNREACHABLE || code > GG_TARGET_ERROR_PROTOCOL)
        code = GG_TARGET_ERROR_TOOL_FAILED;
      g_task_return_new_error (task, GG_TARGET_ERROR, (int) code, "the fuzz game failed (%d)", (int) code);
      return;
    }
  if (g_str_equal (name, "state"))
    {
      g_task_return_pointer (task, state_node (), (GDestroyNotify) json_node_unref);
      return;
    }
  if (g_str_equal (name, "emit"))
    {
      const char *channel = "fuzz";
      JsonNode *payload = NULL;
      g_autoptr(JsonNode) empty = json_node_new (JSON_NODE_NULL);

      if (arguments != NULL && json_object_has_member (arguments, "channel") &&
          JSON_NODE_HOLDS_VALUE (json_object_get_member (arguments, "channel")) &&
          json_node_get_value_type (json_object_get_member (arguments, "channel")) == G_TYPE_STRING)
        channel = json_object_get_string_member (arguments, "channel");
      if (arguments != NULL && json_object_has_member (arguments, "payload"))
        payload = json_object_get_member (arguments, "payload");
      gg_target_emit_event (target, channel, ++self->seq, payload != NULL ? payload : empty);
    }
  if (g_str_equal (name, "echo") || g_str_equal (name, "emit"))
    {
      out = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (out, arguments != NULL ? json_object_ref (arguments) : json_object_new ());
      g_task_return_pointer (task, out, (GDestroyNotify) json_node_unref);
      return;
    }
  g_task_return_new_error (task, GG_TARGET_ERROR, GG_TARGET_ERROR_TOOL_NOT_FOUND, "no tool %s", name);
}

static JsonNode *
game_call_tool_finish (GgTarget      *target,
                       GAsyncResult  *result,
                       GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
game_get_state_async (GgTarget            *target,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (target, cancellable, callback, user_data);

  g_task_return_pointer (task, state_node (), (GDestroyNotify) json_node_unref);
}

static JsonNode *
game_get_state_finish (GgTarget      *target,
                       GAsyncResult  *result,
                       GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
fuzz_game_target_init (GgTargetInterface *iface)
{
  iface->get_id = game_get_id;
  iface->get_info = game_get_info;
  iface->list_tools_async = game_list_tools_async;
  iface->list_tools_finish = game_list_tools_finish;
  iface->call_tool_async = game_call_tool_async;
  iface->call_tool_finish = game_call_tool_finish;
  iface->get_state_async = game_get_state_async;
  iface->get_state_finish = game_get_state_finish;
}

static void
fuzz_game_finalize (GObject *object)
{
  g_free (FUZZ_GAME (object)->id);
  G_OBJECT_CLASS (fuzz_game_parent_class)->finalize (object);
}

static void
fuzz_game_class_init (FuzzGameClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = fuzz_game_finalize;
}

static void
fuzz_game_init (FuzzGame *self)
{
}

FuzzGame *
fuzz_game_new (const char *id)
{
  FuzzGame *self = g_object_new (FUZZ_TYPE_GAME, NULL);

  self->id = g_strdup (id);
  return self;
}
