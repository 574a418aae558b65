/* gg-gabp-target.c: a GABP mod on the bus.
 *
 * Tools come from tools/list and keep their schemas and tags; a few
 * gamegate/ tools are added for what GABP offers beyond tools (recent
 * events, attention, resources, state/set), each only when the mod's
 * capabilities list the method. Events are passed on in seq order per
 * channel and the recent ones kept (gg-gabp-event-log.c). A session the
 * mod refuses is reported as status "error" with the reason.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-gabp-event-log.h"
#include "gg-gabp-names.h"
#include "gg-gabp-target.h"

struct _GgGabpTarget
{
  GObject parent_instance;

  char            *name;
  char            *id;
  GgGabpClient    *client;
  GgGabpAttention *gate;
  GCancellable    *cancellable;  /* session setup calls */
  JsonArray       *tools;        /* bus format, nullable until listed */
  GHashTable      *tool_tags;    /* name -> JsonArray (tags) */
  GgGabpEventLog  *events;
  const char      *status;
  char            *last_error;   /* why the last session attempt failed, nullable */
};

static void gg_gabp_target_iface_init (GgTargetInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GgGabpTarget, gg_gabp_target, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_TARGET, gg_gabp_target_iface_init))

/* The gamegate/ tools: name, GABP method needed (NULL: always), tags, schema. */
typedef struct {
  const char *name;
  const char *method;
  const char *description;
  const char *tag;
  const char *parameters;
} SyntheticTool;

static const SyntheticTool synthetic_tools[] = {
  { "gamegate/events", NULL,
    "Recent events of this game (up to 256), oldest first, from cursor `since` on; "
    "pass the returned `next` as `since` to continue.",
    "observation",
    "{\"type\":\"object\",\"properties\":{\"since\":{\"type\":\"integer\",\"minimum\":0},"
    "\"channel\":{\"type\":\"string\"},\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":256}},"
    "\"additionalProperties\":false}" },
  { "gamegate/attention_current", "attention/current",
    "The game's open attention item, or null.", "attention-bypass",
    "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}" },
  { "gamegate/attention_ack", "attention/ack",
    "Acknowledge an attention item so that ordinary tools run again.", "attention-bypass",
    "{\"type\":\"object\",\"properties\":{\"attentionId\":{\"type\":\"string\",\"minLength\":1}},"
    "\"required\":[\"attentionId\"],\"additionalProperties\":false}" },
  { "gamegate/resources_list", "resources/list",
    "List the game's resources, optionally filtered by a glob pattern.", "read-only",
    "{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":\"string\"}},\"additionalProperties\":false}" },
  { "gamegate/resources_read", "resources/read",
    "Read one resource by URI.", "read-only",
    "{\"type\":\"object\",\"properties\":{\"uri\":{\"type\":\"string\"}},\"required\":[\"uri\"],"
    "\"additionalProperties\":false}" },
  { "gamegate/state_set", "state/set",
    "Apply state updates to the game.", NULL,
    "{\"type\":\"object\",\"properties\":{\"updates\":{\"type\":\"object\"},\"playerId\":{\"type\":\"string\"},"
    "\"validate\":{\"type\":\"boolean\"}},\"required\":[\"updates\"],\"additionalProperties\":false}" },
};

static void
gg_gabp_target_dispose (GObject *object)
{
  GgGabpTarget *self = GG_GABP_TARGET (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->client != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->client, self);
      gg_gabp_client_stop (self->client);
      g_clear_object (&self->client);
    }
  G_OBJECT_CLASS (gg_gabp_target_parent_class)->dispose (object);
}

static void
gg_gabp_target_finalize (GObject *object)
{
  GgGabpTarget *self = GG_GABP_TARGET (object);

  g_free (self->name);
  g_free (self->id);
  g_free (self->last_error);
  g_clear_object (&self->gate);
  g_clear_pointer (&self->tools, json_array_unref);
  g_hash_table_unref (self->tool_tags);
  gg_gabp_event_log_free (self->events);
  G_OBJECT_CLASS (gg_gabp_target_parent_class)->finalize (object);
}

static void
gg_gabp_target_class_init (GgGabpTargetClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = gg_gabp_target_dispose;
  object_class->finalize = gg_gabp_target_finalize;
}

static void
gg_gabp_target_init (GgGabpTarget *self)
{
  self->gate = gg_gabp_attention_new ();
  self->tool_tags = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           (GDestroyNotify) json_array_unref);
  self->events = gg_gabp_event_log_new ();
  self->status = "connecting";
}

static void
set_status (GgGabpTarget *self,
            const char   *status)
{
  if (g_strcmp0 (self->status, status) == 0)
    return;
  self->status = status;
  gg_target_emit_status_changed (GG_TARGET (self));
}

/* A call while there is no session: why, in the words list_instances uses. */
static void
return_not_connected (GTask        *task,
                      GgGabpTarget *self,
                      const char   *what)
{
  if (self->last_error != NULL)
    g_task_return_new_error (task, GG_TARGET_ERROR, GG_TARGET_ERROR_UNREACHABLE,
                             "%s: %s", what, self->last_error);
  else
    g_task_return_new_error (task, GG_TARGET_ERROR, GG_TARGET_ERROR_UNREACHABLE,
                             "%s: the mod is not connected (%s)", what, self->status);
}

/* Events ---------------------------------------------------------------- */

/* The log hands over each event it keeps, a gap report first. */
static void
emit_event (const char *channel,
            guint64     seq,
            JsonNode   *payload,
            gpointer    user_data)
{
  GgGabpTarget *self = user_data;

  if (!g_str_equal (channel, GG_GABP_GAP_CHANNEL))
    gg_gabp_attention_handle_event (self->gate, channel, payload);
  gg_target_emit_event (GG_TARGET (self), channel, seq, payload);
}

static void
on_client_event (GgGabpClient *client,
                 const char   *channel,
                 guint64       seq,
                 JsonNode     *payload,
                 GgGabpTarget *self)
{
  gg_gabp_event_log_add (self->events, self->id, channel, seq, payload, emit_event, self);
}

/**
 * gg_gabp_target_events_since:
 * @self: a target
 * @cursor: the first cursor wanted
 * @channel: (nullable): only this channel
 * @limit: at most this many (0: all kept)
 *
 * Returns: (transfer full): `{"events":[{"cursor","channel","seq","payload"}],"next"}`
 */
JsonNode *
gg_gabp_target_events_since (GgGabpTarget *self,
                             guint64       cursor,
                             const char   *channel,
                             guint         limit)
{
  return gg_gabp_event_log_since (self->events, cursor, channel, limit);
}

/* Session setup ----------------------------------------------------------- */

static JsonNode *
parse_static (const char *json)
{
  return json_from_string (json, NULL);
}

static void
set_tools (GgGabpTarget *self,
           JsonArray    *gabp_tools)
{
  g_autoptr(JsonArray) tools = json_array_new ();

  g_hash_table_remove_all (self->tool_tags);
  for (guint i = 0; gabp_tools != NULL && i < json_array_get_length (gabp_tools); i++)
    {
      JsonObject *in = json_array_get_object_element (gabp_tools, i);
      JsonObject *out = json_object_new ();
      JsonNode *tags;

      json_object_set_string_member (out, "name", json_object_get_string_member (in, "name"));
      json_object_set_string_member (out, "title", json_object_get_string_member (in, "title"));
      json_object_set_string_member (out, "description", json_object_get_string_member (in, "description"));
      json_object_set_member (out, "parameters", json_node_copy (json_object_get_member (in, "inputSchema")));
      json_object_set_member (out, "outputSchema", json_node_copy (json_object_get_member (in, "outputSchema")));
      tags = json_object_get_member (in, "tags");
      if (tags != NULL)
        {
          json_object_set_member (out, "tags", json_node_copy (tags));
          g_hash_table_replace (self->tool_tags, g_strdup (json_object_get_string_member (in, "name")),
                                json_array_ref (json_node_get_array (tags)));
        }
      if (json_object_has_member (in, "deprecated"))
        json_object_set_member (out, "deprecated", json_node_copy (json_object_get_member (in, "deprecated")));
      json_array_add_object_element (tools, out);
    }

  for (gsize i = 0; i < G_N_ELEMENTS (synthetic_tools); i++)
    {
      const SyntheticTool *tool = &synthetic_tools[i];
      JsonObject *out;

      if (tool->method != NULL && !gg_gabp_client_supports (self->client, tool->method))
        continue;
      out = json_object_new ();
      json_object_set_string_member (out, "name", tool->name);
      json_object_set_string_member (out, "title", tool->name);
      json_object_set_string_member (out, "description", tool->description);
      json_object_set_member (out, "parameters", parse_static (tool->parameters));
      if (tool->tag != NULL)
        {
          JsonArray *tags = json_array_new ();
          json_array_add_string_element (tags, tool->tag);
          json_object_set_array_member (out, "tags", json_array_ref (tags));
          g_hash_table_replace (self->tool_tags, g_strdup (tool->name), tags);
        }
      json_array_add_object_element (tools, out);
    }

  g_clear_pointer (&self->tools, json_array_unref);
  self->tools = g_steal_pointer (&tools);
  gg_target_emit_tools_changed (GG_TARGET (self));
}

static void
on_tools_listed (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GgGabpTarget *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = gg_gabp_client_call_finish (GG_GABP_CLIENT (source), result, &error);

  if (node == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message ("%s: tools/list failed: %s", self->id, error->message);
      if (self->tools == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        set_tools (self, NULL);
      return;
    }
  set_tools (self, json_object_get_array_member (json_node_get_object (node), "tools"));
  set_status (self, "ready");
}

static void
on_setup_call_done (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = gg_gabp_client_call_finish (GG_GABP_CLIENT (source), result, &error);

  if (node == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_debug ("session setup call failed: %s", error->message);
}

static void
on_attention_current (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  GgGabpTarget *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = gg_gabp_client_call_finish (GG_GABP_CLIENT (source), result, &error);

  if (node == NULL)
    return;
  gg_gabp_attention_set_current (self->gate,
                                 json_object_get_member (json_node_get_object (node), "attention"));
}

static void
on_client_ready (GgGabpClient *client,
                 JsonObject   *welcome,
                 GgGabpTarget *self)
{
  JsonObject *caps = json_object_get_object_member (welcome, "capabilities");
  JsonArray *events = caps != NULL && json_object_has_member (caps, "events")
                        ? json_object_get_array_member (caps, "events") : NULL;

  g_clear_pointer (&self->last_error, g_free);
  gg_gabp_event_log_new_session (self->events);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();

  /* Order matters: the subscription and the attention state are asked for
   * before the tools are announced ready. */
  if (events != NULL && json_array_get_length (events) > 0 &&
      gg_gabp_client_supports (client, "events/subscribe"))
    {
      g_autoptr(JsonObject) params = json_object_new ();
      json_object_set_array_member (params, "channels", json_array_ref (events));
      gg_gabp_client_call_async (client, "events/subscribe", params, self->cancellable,
                                 on_setup_call_done, NULL);
    }
  if (gg_gabp_client_supports (client, "attention/current"))
    gg_gabp_client_call_async (client, "attention/current", NULL, self->cancellable,
                               on_attention_current, self);
  gg_gabp_client_call_async (client, "tools/list", NULL, self->cancellable, on_tools_listed, self);
}

static void
on_client_disconnected (GgGabpClient *client,
                        GError       *why,
                        GgGabpTarget *self)
{
  set_status (self, "disconnected");
}

/* The mod answered session/hello with an error (a refused token, most
 * often) or not at all: status "error" with the reason, until a session
 * is made; the client keeps retrying with its backoff meanwhile. */
static void
on_handshake_failed (GgGabpClient *client,
                     GError       *why,
                     GgGabpTarget *self)
{
  g_free (self->last_error);
  if (g_error_matches (why, GG_GABP_ERROR, GG_GABP_ERROR_AUTH_FAILED))
    self->last_error = g_strdup_printf ("the mod refused the token (%d %s)", why->code, why->message);
  else if (why->domain == GG_GABP_ERROR)
    self->last_error = g_strdup_printf ("the mod refused the session (%d %s)", why->code, why->message);
  else
    self->last_error = g_strdup_printf ("the session with the mod failed: %s", why->message);
  if (g_strcmp0 (self->status, "error") == 0)
    return;
  self->status = "error";
  gg_target_emit_status_changed (GG_TARGET (self));
}

/**
 * gg_gabp_target_new:
 * @name: the game's name; the target id is `gabp:<name>`
 * @client: (transfer none): the connection to the mod (started by the caller)
 *
 * Returns: (transfer full): the target
 */
GgGabpTarget *
gg_gabp_target_new (const char   *name,
                    GgGabpClient *client)
{
  GgGabpTarget *self = g_object_new (GG_TYPE_GABP_TARGET, NULL);

  self->name = g_strdup (name);
  self->id = g_strconcat ("gabp:", name, NULL);
  self->client = g_object_ref (client);
  g_signal_connect (client, "ready", G_CALLBACK (on_client_ready), self);
  g_signal_connect (client, "disconnected", G_CALLBACK (on_client_disconnected), self);
  g_signal_connect (client, "handshake-failed", G_CALLBACK (on_handshake_failed), self);
  g_signal_connect (client, "event", G_CALLBACK (on_client_event), self);
  return self;
}

/** gg_gabp_target_get_client: Returns: (transfer none): the connection. */
GgGabpClient *
gg_gabp_target_get_client (GgGabpTarget *self)
{
  return self->client;
}

/** gg_gabp_target_get_attention: Returns: (transfer none): the attention gate. */
GgGabpAttention *
gg_gabp_target_get_attention (GgGabpTarget *self)
{
  return self->gate;
}

/** gg_gabp_target_get_status: Returns: "connecting", "ready", "disconnected" or "error". */
const char *
gg_gabp_target_get_status (GgGabpTarget *self)
{
  return self->status;
}

/** gg_gabp_target_is_ready: Returns: %TRUE when connected with tools listed. */
gboolean
gg_gabp_target_is_ready (GgGabpTarget *self)
{
  return g_str_equal (self->status, "ready") &&
         gg_gabp_client_get_state (self->client) == GG_GABP_CLIENT_READY;
}

/* GgTarget --------------------------------------------------------------- */

static const char *
target_get_id (GgTarget *target)
{
  return GG_GABP_TARGET (target)->id;
}

static JsonObject *
target_get_info (GgTarget *target)
{
  GgGabpTarget *self = GG_GABP_TARGET (target);
  JsonObject *info = json_object_new ();
  JsonObject *welcome = gg_gabp_client_get_welcome (self->client);
  JsonObject *attention = gg_gabp_attention_get_current (self->gate);

  json_object_set_string_member (info, "id", self->id);
  json_object_set_string_member (info, "kind", "gabp");
  json_object_set_string_member (info, "name", self->name);
  json_object_set_string_member (info, "status", self->status);
  if (self->last_error != NULL)
    json_object_set_string_member (info, "error", self->last_error);
  if (welcome != NULL)
    {
      json_object_set_member (info, "agentId", json_node_copy (json_object_get_member (welcome, "agentId")));
      json_object_set_member (info, "app", json_node_copy (json_object_get_member (welcome, "app")));
      json_object_set_member (info, "capabilities", json_node_copy (json_object_get_member (welcome, "capabilities")));
    }
  if (attention != NULL)
    json_object_set_object_member (info, "attention", json_object_ref (attention));
  else
    json_object_set_null_member (info, "attention");
  return info;
}

/* Maps a GABP call failure to the bus's vocabulary. */
static GError *
map_error (const char *what,
           GError     *error)
{
  GgTargetError code = GG_TARGET_ERROR_TOOL_FAILED;

  if (error->domain == GG_GABP_ERROR)
    {
      switch (error->code)
        {
        case GG_GABP_ERROR_TOOL_NOT_FOUND:
        case GG_GABP_ERROR_METHOD_NOT_FOUND:
        case GG_GABP_ERROR_RESOURCE_NOT_FOUND:
          code = GG_TARGET_ERROR_TOOL_NOT_FOUND;
          break;
        case GG_GABP_ERROR_INVALID_PARAMS:
          code = GG_TARGET_ERROR_INVALID_ARGUMENTS;
          break;
        case GG_GABP_ERROR_AUTH_FAILED:
        case GG_GABP_ERROR_NO_SESSION:
          code = GG_TARGET_ERROR_UNREACHABLE;
          break;
        default:
          code = GG_TARGET_ERROR_TOOL_FAILED;
        }
      return g_error_new (GG_TARGET_ERROR, code, "%s: the mod answered %d: %s",
                          what, error->code, error->message);
    }
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return g_error_copy (error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    code = GG_TARGET_ERROR_TIMEOUT;
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA) ||
           error->domain == GG_SCHEMA_ERROR)
    code = GG_TARGET_ERROR_PROTOCOL;
  else
    code = GG_TARGET_ERROR_UNREACHABLE;
  return g_error_new (GG_TARGET_ERROR, code, "%s: %s", what, error->message);
}

static void
target_list_tools_async (GgTarget            *target,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  GgGabpTarget *self = GG_GABP_TARGET (target);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  if (self->tools == NULL)
    {
      return_not_connected (task, self, self->id);
      return;
    }
  g_task_return_pointer (task, json_array_ref (self->tools), (GDestroyNotify) json_array_unref);
}

static JsonArray *
target_list_tools_finish (GgTarget      *target,
                          GAsyncResult  *result,
                          GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

typedef struct {
  char *what;
  char *method;
} CallData;

static void
call_data_free (CallData *data)
{
  g_free (data->what);
  g_free (data->method);
  g_free (data);
}

static void
on_call_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GgGabpTarget *self = g_task_get_source_object (task);
  CallData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = gg_gabp_client_call_finish (GG_GABP_CLIENT (source), result, &error);

  if (node == NULL)
    {
      g_task_return_error (task, map_error (data->what, error));
      return;
    }
  if (g_str_equal (data->method, "attention/ack") && JSON_NODE_HOLDS_OBJECT (node))
    gg_gabp_attention_set_current (self->gate,
                                   json_object_get_member (json_node_get_object (node), "currentAttention"));
  else if (g_str_equal (data->method, "attention/current") && JSON_NODE_HOLDS_OBJECT (node))
    gg_gabp_attention_set_current (self->gate,
                                   json_object_get_member (json_node_get_object (node), "attention"));
  g_task_return_pointer (task, g_steal_pointer (&node), (GDestroyNotify) json_node_unref);
}

static void
start_call (GgGabpTarget *self,
            GTask        *task,
            const char   *what,
            const char   *method,
            JsonObject   *params)
{
  CallData *data = g_new0 (CallData, 1);

  data->what = g_strdup (what);
  data->method = g_strdup (method);
  g_task_set_task_data (task, data, (GDestroyNotify) call_data_free);
  if (gg_gabp_client_get_state (self->client) != GG_GABP_CLIENT_READY)
    {
      return_not_connected (task, self, what);
      g_object_unref (task);
      return;
    }
  gg_gabp_client_call_async (self->client, method, params, g_task_get_cancellable (task),
                             on_call_done, task);
}

static gboolean
call_synthetic (GgGabpTarget *self,
                GTask        *task,
                const char   *name,
                JsonObject   *arguments)
{
  const SyntheticTool *tool = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (synthetic_tools); i++)
    if (g_str_equal (synthetic_tools[i].name, name))
      tool = &synthetic_tools[i];
  if (tool == NULL)
    return FALSE;

  if (tool->method == NULL)
    {
      JsonNode *since = arguments != NULL ? json_object_get_member (arguments, "since") : NULL;
      JsonNode *channel = arguments != NULL ? json_object_get_member (arguments, "channel") : NULL;
      JsonNode *limit = arguments != NULL ? json_object_get_member (arguments, "limit") : NULL;

      if ((since != NULL && (!JSON_NODE_HOLDS_VALUE (since) || json_node_get_value_type (since) != G_TYPE_INT64 || json_node_get_int (since) < 0)) ||
          (channel != NULL && (!JSON_NODE_HOLDS_VALUE (channel) || json_node_get_value_type (channel) != G_TYPE_STRING)) ||
          (limit != NULL && (!JSON_NODE_HOLDS_VALUE (limit) || json_node_get_value_type (limit) != G_TYPE_INT64 || json_node_get_int (limit) < 1)))
        g_task_return_new_error (task, GG_TARGET_ERROR, GG_TARGET_ERROR_INVALID_ARGUMENTS,
                                 "%s: `since` and `limit` must be non-negative integers, `channel` a string", name);
      else
        g_task_return_pointer (task,
                               gg_gabp_target_events_since (self,
                                                            since != NULL ? (guint64) json_node_get_int (since) : 0,
                                                            channel != NULL ? json_node_get_string (channel) : NULL,
                                                            limit != NULL ? (guint) MIN (json_node_get_int (limit), 256) : 0),
                               (GDestroyNotify) json_node_unref);
      g_object_unref (task);
      return TRUE;
    }
  if (!gg_gabp_client_supports (self->client, tool->method))
    {
      g_task_return_new_error (task, GG_TARGET_ERROR, GG_TARGET_ERROR_TOOL_NOT_FOUND,
                               "%s: the mod does not offer %s", self->id, tool->method);
      g_object_unref (task);
      return TRUE;
    }
  start_call (self, task, name, tool->method, arguments);
  return TRUE;
}

static void
target_call_tool_async (GgTarget            *target,
                        const char          *name,
                        JsonObject          *arguments,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  GgGabpTarget *self = GG_GABP_TARGET (target);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(JsonObject) params = NULL;
  g_autoptr(GError) error = NULL;

  g_task_set_source_tag (task, target_call_tool_async);
  if (g_str_has_prefix (name, "gamegate/") && call_synthetic (self, task, name, arguments))
    return;
  /* A name GABP cannot carry is no tool of this mod: say so, rather than
   * what the outgoing schema check would say about the name's pattern. */
  if (!gg_gabp_name_is_valid (name))
    {
      g_task_return_new_error (task, GG_TARGET_ERROR, GG_TARGET_ERROR_TOOL_NOT_FOUND,
                               "%s has no tool '%s'", self->id, name);
      g_object_unref (task);
      return;
    }
  if (!gg_gabp_attention_check (self->gate, name, g_hash_table_lookup (self->tool_tags, name), &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  params = json_object_new ();
  json_object_set_string_member (params, "name", name);
  json_object_set_object_member (params, "arguments",
                                 arguments != NULL ? json_object_ref (arguments) : json_object_new ());
  start_call (self, task, name, "tools/call", params);
}

static JsonNode *
target_call_tool_finish (GgTarget      *target,
                         GAsyncResult  *result,
                         GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
on_state_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = gg_gabp_client_call_finish (GG_GABP_CLIENT (source), result, &error);

  if (node == NULL)
    g_task_return_error (task, map_error ("state/get", error));
  else
    g_task_return_pointer (task,
                           json_node_copy (json_object_get_member (json_node_get_object (node), "state")),
                           (GDestroyNotify) json_node_unref);
}

static void
target_get_state_async (GgTarget            *target,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  GgGabpTarget *self = GG_GABP_TARGET (target);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  if (gg_gabp_client_get_state (self->client) != GG_GABP_CLIENT_READY)
    {
      return_not_connected (task, self, self->id);
      return;
    }
  if (!gg_gabp_client_supports (self->client, "state/get"))
    {
      g_task_return_new_error (task, GG_TARGET_ERROR, GG_TARGET_ERROR_TOOL_NOT_FOUND,
                               "%s: the mod does not offer state/get", self->id);
      return;
    }
  gg_gabp_client_call_async (self->client, "state/get", NULL, cancellable, on_state_done,
                             g_steal_pointer (&task));
}

static JsonNode *
target_get_state_finish (GgTarget      *target,
                         GAsyncResult  *result,
                         GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
gg_gabp_target_iface_init (GgTargetInterface *iface)
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
