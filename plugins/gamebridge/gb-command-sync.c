/* gb-command-sync.c: a command and its confirmation (spec section 1).
 * /command is fire-and-forget: it answers once the command is queued, and
 * the game runs it later. So a command is confirmed by polling /state until
 * completedCommandId catches up with the commandId /command returned (or,
 * for a game without it, until the frame advanced by two: "confirmation":
 * "frames-advanced"); `close` is confirmed by the port going silent.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-command-sync.h"
#include "gb-errors.h"

/* ---- command and sync --------------------------------------------------- */

static gboolean
arg_name_ok (const char *name)
{
  gsize len = strlen (name);

  return len > 0 && len <= 128 && g_utf8_validate (name, -1, NULL);
}

/**
 * gb_command_query:
 * @command: the command (`cmd`)
 * @arguments: (nullable): its arguments
 * @error: BridgeUsageError on a bad name
 *
 * Returns: (transfer full): `/command?cmd=...&k=v`: objects and arrays
 *   JSON-encoded, null skipped, everything escaped
 */
char *
gb_command_query (const char  *command,
                  JsonObject  *arguments,
                  GError     **error)
{
  g_autoptr(GString) q = g_string_new ("/command?cmd=");
  g_autoptr(GList) names = arguments != NULL ? json_object_get_members (arguments) : NULL;

  if (command == NULL || !arg_name_ok (command))
    {
      gb_error_usage (error, "A command name must be 1..128 characters of UTF-8");
      return NULL;
    }
  g_string_append_uri_escaped (q, command, NULL, TRUE);
  for (GList *l = names; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *value = json_object_get_member (arguments, name);
      g_autofree char *text = NULL;

      if (!arg_name_ok (name) || g_str_equal (name, "cmd"))
        {
          gb_error_usage (error, "Bad argument name '%.64s' (1..128 characters, and not 'cmd')", name);
          return NULL;
        }
      if (JSON_NODE_HOLDS_NULL (value))
        continue;
      if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
        text = g_strdup (json_node_get_string (value));
      else
        text = gg_json_to_string (value);
      g_string_append_c (q, '&');
      g_string_append_uri_escaped (q, name, NULL, TRUE);
      g_string_append_c (q, '=');
      g_string_append_uri_escaped (q, text, NULL, TRUE);
    }
  return g_string_free (g_steal_pointer (&q), FALSE);
}

typedef struct {
  char *command;
  gint64 command_id;
  gint64 base_frame;   /* frames-advanced fallback; -1 = not yet */
  gint64 deadline;     /* monotonic µs */
  guint poll_source;
  JsonObject *reply;
} CommandData;

static void
command_data_free (CommandData *data)
{
  g_clear_handle_id (&data->poll_source, g_source_remove);
  g_free (data->command);
  g_clear_pointer (&data->reply, json_object_unref);
  g_free (data);
}

static gint64
int_member (JsonObject *o,
            const char *name,
            gint64      fallback)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return fallback;
  if (json_node_get_value_type (n) == G_TYPE_INT64)
    return json_node_get_int (n);
  if (json_node_get_value_type (n) == G_TYPE_DOUBLE)
    {
      /* A game's 1e300: a cast of a double out of range is undefined. */
      double d = json_node_get_double (n);

      if (d >= 9223372036854775807.0)
        return G_MAXINT64;
      if (d <= -9223372036854775808.0)
        return G_MININT64;
      return (gint64) d;
    }
  return fallback;
}

static JsonArray *
event_strings (JsonObject *state)
{
  JsonArray *out = json_array_new ();
  JsonNode *events = json_object_get_member (state, "events");

  if (events == NULL || !JSON_NODE_HOLDS_ARRAY (events))
    return out;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (events)); i++)
    {
      JsonNode *e = json_array_get_element (json_node_get_array (events), i);

      if (JSON_NODE_HOLDS_OBJECT (e) && json_object_has_member (json_node_get_object (e), "m") &&
          JSON_NODE_HOLDS_VALUE (json_object_get_member (json_node_get_object (e), "m")) &&
          json_node_get_value_type (json_object_get_member (json_node_get_object (e), "m")) == G_TYPE_STRING)
        json_array_add_string_element (out, json_object_get_string_member (json_node_get_object (e), "m"));
      else if (JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_STRING)
        json_array_add_string_element (out, json_node_get_string (e));
      else
        {
          g_autofree char *text = gg_json_to_string (e);

          json_array_add_string_element (out, text);
        }
    }
  return out;
}

/* The section 4 result from the state after the command. */
static JsonObject *
command_result (CommandData *data,
                JsonObject  *state,
                const char  *confirmation)
{
  JsonObject *r = json_object_new ();
  JsonNode *ui, *game;

  json_object_set_string_member (r, "command", data->command);
  json_object_set_boolean_member (r, "applied", TRUE);
  if (data->command_id >= 0)
    json_object_set_int_member (r, "commandId", data->command_id);
  json_object_set_string_member (r, "confirmation", confirmation);
  if (state == NULL)
    return r;
  if (json_object_has_member (state, "frame"))
    json_object_set_member (r, "frame", gg_json_copy (json_object_get_member (state, "frame")));
  ui = json_object_get_member (state, "ui");
  if (ui != NULL && JSON_NODE_HOLDS_OBJECT (ui) && json_object_has_member (json_node_get_object (ui), "screen"))
    json_object_set_member (r, "screen", gg_json_copy (json_object_get_member (json_node_get_object (ui), "screen")));
  game = json_object_get_member (state, "game");
  if (game != NULL)
    json_object_set_member (r, "game", gg_json_copy (game));
  json_object_set_array_member (r, "events", event_strings (state));
  return r;
}

static void poll_once (GTask *task);

static gboolean
on_poll_timer (gpointer user_data)
{
  GTask *task = user_data;
  CommandData *data = g_task_get_task_data (task);

  data->poll_source = 0;
  poll_once (task);
  return G_SOURCE_REMOVE;
}

static void
schedule_poll (GTask *task)
{
  CommandData *data = g_task_get_task_data (task);
  GbConnector *self = g_task_get_source_object (task);

  if (g_get_monotonic_time () > data->deadline)
    {
      GError *error = NULL;

      gb_error_command_timeout (&error, data->command, gb_connector_get_port (self), gb_connector_get_timeout (self));
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  if (g_task_return_error_if_cancelled (task))
    {
      g_object_unref (task);
      return;
    }
  data->poll_source = g_timeout_add (GB_POLL_INTERVAL_MS, on_poll_timer, task);
}

/* close: done once nothing answers on the port. */
static void
on_silence_probe (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GTask *task = user_data;
  CommandData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = gb_connector_get_finish (GB_CONNECTOR (source), result, NULL, &error);

  if (root == NULL && g_error_matches (error, GB_ERROR, GB_ERROR_GAME_OFFLINE))
    {
      g_task_return_pointer (task, command_result (data, NULL, "port-silent"), (GDestroyNotify) json_object_unref);
      g_object_unref (task);
      return;
    }
  if (root == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  schedule_poll (task);
}

static void
on_poll_state (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  GTask *task = user_data;
  CommandData *data = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonNode) root = gb_connector_get_finish (GB_CONNECTOR (source), result, NULL, &error);
  JsonObject *state;
  gint64 completed, frame;

  if (root == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_task_return_new_error (task, GB_ERROR, GB_ERROR_HTTP_STATUS,
                               "HttpStatusError: GET /state on http://127.0.0.1:%u did not return a JSON object",
                               gb_connector_get_port (GB_CONNECTOR (source)));
      g_object_unref (task);
      return;
    }
  state = json_node_get_object (root);
  completed = int_member (state, "completedCommandId", G_MININT64);
  frame = int_member (state, "frame", -1);
  if (completed != G_MININT64 && data->command_id >= 0)
    {
      if (completed >= data->command_id)
        {
          g_task_return_pointer (task, command_result (data, state, "completedCommandId"),
                                 (GDestroyNotify) json_object_unref);
          g_object_unref (task);
          return;
        }
    }
  else if (frame >= 0)
    {
      if (data->base_frame < 0)
        data->base_frame = MAX (frame, int_member (data->reply, "frame", -1));
      /* Both are >= 0 here, so the difference cannot overflow (a game's
       * frame of 2^63-1 made base_frame + 2 do so). */
      else if (frame - data->base_frame >= 2)
        {
          g_task_return_pointer (task, command_result (data, state, "frames-advanced"),
                                 (GDestroyNotify) json_object_unref);
          g_object_unref (task);
          return;
        }
    }
  schedule_poll (task);
}

static void
poll_once (GTask *task)
{
  GbConnector *self = g_task_get_source_object (task);
  CommandData *data = g_task_get_task_data (task);

  if (g_str_equal (data->command, "close"))
    gb_connector_get_async (self, "/health", 0, g_task_get_cancellable (task), on_silence_probe, task);
  else
    gb_connector_get_async (self, "/state", 0, g_task_get_cancellable (task), on_poll_state, task);
}

static void
on_command_sent (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GTask *task = user_data;
  GbConnector *self = GB_CONNECTOR (source);
  CommandData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = gb_connector_get_finish (self, result, NULL, &error);
  JsonObject *reply;
  JsonNode *accepted;

  if (root == NULL)
    {
      /* A game closing itself may go away before it answers. */
      if (g_str_equal (data->command, "close") && g_error_matches (error, GB_ERROR, GB_ERROR_GAME_OFFLINE) &&
          gb_connector_get_last_frame (self) >= 0)
        {
          poll_once (task);
          return;
        }
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  reply = JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  accepted = reply != NULL ? json_object_get_member (reply, "accepted") : NULL;
  if (accepted == NULL || !JSON_NODE_HOLDS_VALUE (accepted) ||
      json_node_get_value_type (accepted) != G_TYPE_BOOLEAN)
    {
      g_task_return_new_error (task, GB_ERROR, GB_ERROR_HTTP_STATUS,
                               "HttpStatusError: GET /command on http://127.0.0.1:%u did not answer "
                               "{\"accepted\": true|false}", gb_connector_get_port (self));
      g_object_unref (task);
      return;
    }
  if (!json_node_get_boolean (accepted))
    {
      const char *code = json_object_has_member (reply, "error") &&
                         JSON_NODE_HOLDS_VALUE (json_object_get_member (reply, "error")) &&
                         json_node_get_value_type (json_object_get_member (reply, "error")) == G_TYPE_STRING
                         ? json_object_get_string_member (reply, "error") : "rejected";
      JsonNode *known = json_object_get_member (reply, "known");
      g_autofree char *known_text = known != NULL ? gg_json_to_string (known) : NULL;

      if (g_str_equal (code, "unknown_command"))
        g_task_return_new_error (task, GB_ERROR, GB_ERROR_USAGE,
                                 "BridgeUsageError: The game on port %u does not know the command '%s'.%s%s",
                                 gb_connector_get_port (self), data->command,
                                 known_text != NULL ? " It accepts: " : "",
                                 known_text != NULL ? known_text : "");
      else
        {
          g_autofree char *text = gg_json_to_string (root);
          g_autofree char *excerpt = g_utf8_substring (text, 0, MIN (g_utf8_strlen (text, -1), 200));

          g_task_return_new_error (task, GB_ERROR, GB_ERROR_COMMAND_REJECTED,
                                   "CommandRejected: The game on port %u did not queue '%s' (%s): %s",
                                   gb_connector_get_port (self), data->command, code, excerpt);
        }
      g_object_unref (task);
      return;
    }
  data->command_id = int_member (reply, "commandId", -1);
  data->reply = json_object_ref (reply);
  poll_once (task);
}

/**
 * gb_connector_command_async:
 * @self: a connector
 * @command: the command to send
 * @arguments: (nullable): its arguments
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the command was applied (or failed)
 * @user_data: data for @callback
 *
 * Sends a command and waits until the game applied it.
 */
void
gb_connector_command_async (GbConnector         *self,
                            const char          *command,
                            JsonObject          *arguments,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  CommandData *data = g_new0 (CommandData, 1);
  g_autoptr(GError) error = NULL;
  g_autofree char *query = gb_command_query (command, arguments, &error);

  data->command = g_strdup (command != NULL ? command : "");
  data->command_id = -1;
  data->base_frame = -1;
  data->deadline = g_get_monotonic_time () + (gint64) gb_connector_get_timeout (self) * 1000;
  g_task_set_task_data (task, data, (GDestroyNotify) command_data_free);
  if (query == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  gb_connector_get_async (self, query, 0, cancellable, on_command_sent, task);
}

JsonObject *
gb_connector_command_finish (GbConnector   *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}
