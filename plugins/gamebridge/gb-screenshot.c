/* gb-screenshot.c: the `screenshot` tool of the bridge toolset (gamegate's
 * extension, docs/game-bridge-extensions.md).
 *
 * On an HTTP game: optionally wait until the command `after_command` was
 * applied (completedCommandId, else two frames), then GET /screenshot
 * (gb-screenshot-http.c). An image with a side over `screenshot-max-side`
 * is asked for once more scaled down to fit; a game that ignores width and
 * height then gets a clear refusal.
 *
 * On another plugin's target (a GABP mod): its tool tagged `screenshot`
 * (else the first one named `.../screenshot`) is called with the same
 * arguments; its result carries `{"image": {"mimeType", "data"}}`, checked
 * like an HTTP answer (the base64 strictly, then the bytes).
 *
 * Either way the image reaches the agent as it came: the bytes the game
 * served, in base64 once, never decoded or re-encoded.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-errors.h"
#include "gb-screenshot-http.h"
#include "gb-screenshot.h"
#include "gb-target.h"

static const char screenshot_schema[] =
  "{\"type\":\"object\",\"properties\":{"
  "\"width\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535,"
  "\"description\":\"Scale the frame down to at most this many pixels wide\"},"
  "\"height\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535,"
  "\"description\":\"Scale the frame down to at most this many pixels high\"},"
  "\"region\":{\"type\":\"object\",\"description\":\"Only this part of the frame, in pixels of the whole frame\","
  "\"properties\":{\"x\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":65535},"
  "\"y\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":65535},"
  "\"width\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},"
  "\"height\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535}},"
  "\"required\":[\"x\",\"y\",\"width\",\"height\"],\"additionalProperties\":false},"
  "\"after_command\":{\"type\":\"integer\",\"minimum\":1,"
  "\"description\":\"Take it once the command with this commandId was applied (HTTP games)\"}},"
  "\"additionalProperties\":false}";

const char *
gb_screenshot_schema (void)
{
  return screenshot_schema;
}

typedef struct {
  GgTarget            *target;
  GbImageLimits        limits;
  guint                timeout_ms;
  GbScreenshotRequest  request;
  gint64               after_command;   /* 0: none */
  const char          *confirmation;
  gint64               deadline;
  gint64               base_frame;      /* frames-advanced: -1 = not yet */
  guint                poll_source;
  gboolean             retried;
  char                *tool;            /* a mod's screenshot tool */
} Shot;

static void
shot_free (Shot *s)
{
  g_clear_handle_id (&s->poll_source, g_source_remove);
  g_clear_object (&s->target);
  g_free (s->tool);
  g_free (s);
}

static void
return_error (GTask  *task,
              GError *error)
{
  g_task_return_error (task, error);
  g_object_unref (task);
}

static guint
int_arg (JsonObject *o,
         const char *name)
{
  return o != NULL && json_object_has_member (o, name) ? (guint) json_object_get_int_member (o, name) : 0;
}

static guint
http_port (Shot *s)
{
  return gb_connector_get_port (gb_http_target_get_connector (GB_HTTP_TARGET (s->target)));
}

/* The body: what the agent reads as text, and the image beside it. */
static JsonObject *
make_body (Shot              *s,
           const guint8      *data,
           gsize              length,
           const GbImageInfo *info,
           gint64             frame,
           JsonNode          *base64)   /* nullable: encode @data */
{
  JsonObject *body = json_object_new ();
  JsonObject *image = json_object_new ();

  if (frame >= 0)
    json_object_set_int_member (body, "frame", frame);
  json_object_set_string_member (body, "mimeType", info->mime_type);
  json_object_set_int_member (body, "width", info->width);
  json_object_set_int_member (body, "height", info->height);
  json_object_set_int_member (body, "bytes", (gint64) length);
  if (s->after_command > 0)
    {
      json_object_set_int_member (body, "afterCommand", s->after_command);
      json_object_set_string_member (body, "confirmation", s->confirmation);
    }
  if (s->tool != NULL)
    json_object_set_string_member (body, "source", s->tool);
  json_object_set_string_member (image, "mimeType", info->mime_type);
  if (base64 != NULL)
    json_object_set_member (image, "data", json_node_ref (base64));  /* orphaned by check_mod_image() */
  else
    {
      g_autofree char *text = g_base64_encode (data, length);

      json_object_set_string_member (image, "data", text);
    }
  json_object_set_object_member (body, "image", image);
  return body;
}

/* An image error, named after where the image came from. */
static GError *
bad_image (Shot         *s,
           const GError *cause)
{
  g_autofree char *where = GB_IS_HTTP_TARGET (s->target)
    ? g_strdup_printf ("GET /screenshot on http://127.0.0.1:%u", http_port (s))
    : g_strdup_printf ("%s's tool %s", gg_target_get_id (s->target), s->tool);
  const char *hint = "";

  if (g_error_matches (cause, GB_IMAGE_ERROR, GB_IMAGE_ERROR_TOO_LARGE))
    hint = ". It was asked to scale down to fit and did not: ask for a region, or raise screenshot-max-side";
  else if (g_error_matches (cause, GB_IMAGE_ERROR, GB_IMAGE_ERROR_TOO_MANY_BYTES))
    hint = ". Ask for a smaller width and height, or raise screenshot-max-bytes";
  return g_error_new (GB_ERROR, GB_ERROR_BAD_IMAGE, "BadImage: %s: %s%s", where, cause->message, hint);
}

/* The request again, scaled down to fit the limit: once. */
static gboolean
retry_scaled (Shot *s)
{
  guint side = s->limits.max_side;

  if (s->retried)
    return FALSE;
  s->retried = TRUE;
  s->request.width = s->request.width > 0 ? MIN (s->request.width, side) : side;
  s->request.height = s->request.height > 0 ? MIN (s->request.height, side) : side;
  return TRUE;
}

/* ---- an HTTP game ---------------------------------------------------------- */

static void fetch (GTask *task);

static void
on_fetched (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  GTask *task = user_data;
  Shot *s = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GbScreenshot) shot = gb_screenshot_http_finish (result, &error);
  gsize length;
  const guint8 *data;

  if (shot == NULL)
    {
      if (g_error_matches (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_TOO_LARGE) && retry_scaled (s))
        {
          g_clear_error (&error);
          fetch (task);
          return;
        }
      if (error->domain == GB_IMAGE_ERROR)
        {
          GError *named = bad_image (s, error);

          g_error_free (error);
          error = named;
        }
      return_error (task, error);
      return;
    }
  data = g_bytes_get_data (shot->bytes, &length);
  g_task_return_pointer (task, make_body (s, data, length, &shot->info, shot->frame, NULL),
                         (GDestroyNotify) json_object_unref);
  g_object_unref (task);
}

static void
fetch (GTask *task)
{
  Shot *s = g_task_get_task_data (task);

  gb_screenshot_http_async (gb_http_target_get_connector (GB_HTTP_TARGET (s->target)), &s->request,
                            g_task_get_cancellable (task), on_fetched, task);
}

static void poll_state (GTask *task);

static gboolean
on_poll_timer (gpointer user_data)
{
  Shot *s = g_task_get_task_data (user_data);

  s->poll_source = 0;
  poll_state (user_data);
  return G_SOURCE_REMOVE;
}

static gint64
int_member (JsonNode   *state,
            const char *name)
{
  JsonNode *n = JSON_NODE_HOLDS_OBJECT (state) ? json_object_get_member (json_node_get_object (state), name) : NULL;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64)
    return G_MININT64;
  return json_node_get_int (n);
}

/* after_command: completedCommandId caught up, or (a game without it) two
 * frames went by since the first look. */
static void
on_state (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  GTask *task = user_data;
  Shot *s = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonNode) state = gb_connector_state_finish (GB_CONNECTOR (source), result, &error);
  gint64 completed, frame;

  if (state == NULL)
    {
      return_error (task, error);
      return;
    }
  completed = int_member (state, "completedCommandId");
  frame = int_member (state, "frame");
  if (completed != G_MININT64 && completed >= s->after_command)
    {
      s->confirmation = "completedCommandId";
      fetch (task);
      return;
    }
  if (completed == G_MININT64 && frame != G_MININT64)
    {
      if (s->base_frame < 0)
        s->base_frame = frame;
      else if (frame >= s->base_frame + 2)
        {
          s->confirmation = "frames-advanced";
          fetch (task);
          return;
        }
    }
  if (g_get_monotonic_time () >= s->deadline)
    {
      g_autofree char *what = g_strdup_printf ("#%" G_GINT64_FORMAT, s->after_command);

      gb_error_command_timeout (&error, what, http_port (s), s->timeout_ms);
      return_error (task, error);
      return;
    }
  if (g_task_return_error_if_cancelled (task))
    {
      g_object_unref (task);
      return;
    }
  s->poll_source = g_timeout_add (GB_POLL_INTERVAL_MS, on_poll_timer, task);
}

static void
poll_state (GTask *task)
{
  Shot *s = g_task_get_task_data (task);

  gb_connector_state_async (gb_http_target_get_connector (GB_HTTP_TARGET (s->target)),
                            g_task_get_cancellable (task), on_state, task);
}

/* ---- another plugin's target ---------------------------------------------------- */

static void call_mod_tool (GTask *task);

static JsonObject *
mod_arguments (Shot *s)
{
  JsonObject *args = json_object_new ();

  if (s->request.width > 0)
    json_object_set_int_member (args, "width", s->request.width);
  if (s->request.height > 0)
    json_object_set_int_member (args, "height", s->request.height);
  if (s->request.has_region)
    {
      JsonObject *region = json_object_new ();

      json_object_set_int_member (region, "x", s->request.region[0]);
      json_object_set_int_member (region, "y", s->request.region[1]);
      json_object_set_int_member (region, "width", s->request.region[2]);
      json_object_set_int_member (region, "height", s->request.region[3]);
      json_object_set_object_member (args, "region", region);
    }
  return args;
}

/* The image of a mod's result: strict base64 of a checked image. */
static gboolean
check_mod_image (JsonObject          *result,
                 const GbImageLimits *limits,
                 GbImageInfo         *info,
                 gsize               *length,
                 JsonNode           **base64,
                 GError             **error)
{
  JsonNode *image = json_object_get_member (result, "image");
  JsonNode *data, *mime;
  g_autoptr(GBytes) bytes = NULL;
  const char *text;

  if (image == NULL || !JSON_NODE_HOLDS_OBJECT (image))
    {
      g_set_error_literal (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_NOT_AN_IMAGE,
                           "its result has no \"image\" object ({\"mimeType\", \"data\"})");
      return FALSE;
    }
  data = json_object_get_member (json_node_get_object (image), "data");
  mime = json_object_get_member (json_node_get_object (image), "mimeType");
  if (data == NULL || !JSON_NODE_HOLDS_VALUE (data) || json_node_get_value_type (data) != G_TYPE_STRING ||
      mime == NULL || !JSON_NODE_HOLDS_VALUE (mime) || json_node_get_value_type (mime) != G_TYPE_STRING)
    {
      g_set_error_literal (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED,
                           "its \"image\" needs the strings \"mimeType\" and \"data\" (base64)");
      return FALSE;
    }
  text = json_node_get_string (data);
  bytes = gb_image_check_base64 (text, strlen (text), limits, info, error);
  if (bytes == NULL)
    return FALSE;
  if (!g_str_equal (json_node_get_string (mime), info->mime_type))
    {
      g_set_error (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED,
                   "its \"mimeType\" says %.40s but the bytes are %s", json_node_get_string (mime), info->mime_type);
      return FALSE;
    }
  *length = g_bytes_get_size (bytes);
  /* Moved, not copied: the text is the size of the image. */
  *base64 = json_node_ref (data);
  json_object_remove_member (json_node_get_object (image), "data");
  return TRUE;
}

static void
on_mod_shot (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  GTask *task = user_data;
  Shot *s = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonNode) node = gg_target_call_tool_finish (GG_TARGET (source), result, &error);
  g_autoptr(JsonNode) base64 = NULL;
  GbImageInfo info;
  gsize length = 0;
  JsonObject *o;
  gint64 frame;

  if (node == NULL)
    {
      return_error (task, error);
      return;
    }
  o = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  if (o == NULL)
    {
      g_autoptr(GError) cause = g_error_new_literal (GB_IMAGE_ERROR, GB_IMAGE_ERROR_NOT_AN_IMAGE,
                                                     "its result is not an object");

      return_error (task, bad_image (s, cause));
      return;
    }
  if (!check_mod_image (o, &s->limits, &info, &length, &base64, &error))
    {
      g_autoptr(GError) cause = error;

      if (g_error_matches (cause, GB_IMAGE_ERROR, GB_IMAGE_ERROR_TOO_LARGE) && retry_scaled (s))
        {
          call_mod_tool (task);
          return;
        }
      return_error (task, bad_image (s, cause));
      return;
    }
  frame = json_object_has_member (o, "frame") ? int_member (node, "frame") : -1;
  g_task_return_pointer (task, make_body (s, NULL, length, &info, frame >= 0 ? frame : -1, base64),
                         (GDestroyNotify) json_object_unref);
  g_object_unref (task);
}

static void
call_mod_tool (GTask *task)
{
  Shot *s = g_task_get_task_data (task);
  g_autoptr(JsonObject) args = mod_arguments (s);

  gg_target_call_tool_async (s->target, s->tool, args, g_task_get_cancellable (task), on_mod_shot, task);
}

static gboolean
has_tag (JsonObject *tool,
         const char *tag)
{
  JsonNode *node = json_object_get_member (tool, "tags");
  JsonArray *tags = node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;

  for (guint i = 0; tags != NULL && i < json_array_get_length (tags); i++)
    {
      JsonNode *t = json_array_get_element (tags, i);

      if (JSON_NODE_HOLDS_VALUE (t) && json_node_get_value_type (t) == G_TYPE_STRING &&
          g_str_equal (json_node_get_string (t), tag))
        return TRUE;
    }
  return FALSE;
}

const char *
gb_screenshot_find_tool (JsonArray *tools)
{
  const char *named = NULL;

  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonNode *t = json_array_get_element (tools, i);
      const char *name = JSON_NODE_HOLDS_OBJECT (t)
        ? json_object_get_string_member_with_default (json_node_get_object (t), "name", NULL) : NULL;

      if (name == NULL)
        continue;
      if (has_tag (json_node_get_object (t), "screenshot"))
        return name;
      if (named == NULL && (g_str_has_suffix (name, "/screenshot") || g_str_equal (name, "screenshot")))
        named = name;
    }
  return named;
}

static void
on_mod_tools (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  Shot *s = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonArray) tools = gg_target_list_tools_finish (GG_TARGET (source), result, &error);

  if (tools == NULL)
    {
      return_error (task, error);
      return;
    }
  s->tool = g_strdup (gb_screenshot_find_tool (tools));
  if (s->tool == NULL)
    {
      return_error (task, g_error_new (GB_ERROR, GB_ERROR_NO_SCREENSHOT,
                                       "NoScreenshot: %s offers no screenshot tool (a tool tagged \"screenshot\", or "
                                       "named .../screenshot, whose result carries {\"image\": {\"mimeType\", "
                                       "\"data\"}})", gg_target_get_id (s->target)));
      return;
    }
  call_mod_tool (task);
}

/* ---- the tool ----------------------------------------------------------------- */

/**
 * gb_screenshot_tool_async:
 * @target: any bus target
 * @arguments: the tool's arguments, checked against gb_screenshot_schema()
 * @limits: the image limits for targets other than HTTP games
 * @timeout_ms: how long after_command may wait
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the body
 * @user_data: data for @callback
 */
void
gb_screenshot_tool_async (GgTarget            *target,
                          JsonObject          *arguments,
                          const GbImageLimits *limits,
                          guint                timeout_ms,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  Shot *s = g_new0 (Shot, 1);
  JsonObject *region = arguments != NULL && json_object_has_member (arguments, "region")
                       ? json_object_get_object_member (arguments, "region") : NULL;
  GError *error = NULL;

  g_task_set_source_tag (task, gb_screenshot_tool_async);
  g_task_set_task_data (task, s, (GDestroyNotify) shot_free);
  s->target = g_object_ref (target);
  s->limits = GB_IS_HTTP_TARGET (target)
    ? *gb_connector_get_image_limits (gb_http_target_get_connector (GB_HTTP_TARGET (target))) : *limits;
  s->timeout_ms = timeout_ms;
  s->base_frame = -1;
  /* Never more than the limit: the game scales down to it. */
  s->request.width = MIN (int_arg (arguments, "width"), s->limits.max_side);
  s->request.height = MIN (int_arg (arguments, "height"), s->limits.max_side);
  if (region != NULL)
    {
      s->request.has_region = TRUE;
      s->request.region[0] = int_arg (region, "x");
      s->request.region[1] = int_arg (region, "y");
      s->request.region[2] = int_arg (region, "width");
      s->request.region[3] = int_arg (region, "height");
    }
  s->after_command = int_arg (arguments, "after_command");

  if (!GB_IS_HTTP_TARGET (target))
    {
      if (s->after_command > 0)
        {
          gb_error_usage (&error, "after_command waits for an HTTP game's command; %s's tools return once "
                          "they were applied", gg_target_get_id (target));
          return_error (task, error);
          return;
        }
      gg_target_list_tools_async (target, cancellable, on_mod_tools, task);
      return;
    }
  if (s->after_command > 0)
    {
      s->deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
      poll_state (task);
      return;
    }
  fetch (task);
}

JsonObject *
gb_screenshot_tool_finish (GAsyncResult  *result,
                           GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- after call_tool -------------------------------------------------------------- */

static void
on_after_call_shot (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  JsonObject *call_result = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) body = gb_screenshot_tool_finish (result, &error);

  if (body == NULL)
    json_object_set_string_member (call_result, "screenshotError", error->message);
  else
    {
      JsonObject *image = gb_screenshot_steal_image (body);

      json_object_set_object_member (call_result, "screenshot", json_object_ref (body));
      json_object_set_object_member (call_result, "image", image);
    }
  g_task_return_pointer (task, json_object_ref (call_result), (GDestroyNotify) json_object_unref);
}

/**
 * gb_screenshot_after_call_async:
 * @target: the target the call ran on
 * @call_result: the call's result object (referenced, then extended)
 * @screenshot: call_tool's `screenshot`: %TRUE, or the tool's arguments
 * @limits: the image limits for targets other than HTTP games
 * @timeout_ms: the bridge timeout
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with @call_result, extended
 * @user_data: data for @callback
 */
void
gb_screenshot_after_call_async (GgTarget            *target,
                                JsonObject          *call_result,
                                JsonNode            *screenshot,
                                const GbImageLimits *limits,
                                guint                timeout_ms,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  g_autoptr(JsonObject) none = json_object_new ();

  g_task_set_task_data (task, json_object_ref (call_result), (GDestroyNotify) json_object_unref);
  gb_screenshot_tool_async (target, JSON_NODE_HOLDS_OBJECT (screenshot) ? json_node_get_object (screenshot) : none,
                            limits, timeout_ms, cancellable, on_after_call_shot, task);
}

JsonObject *
gb_screenshot_after_call_finish (GAsyncResult  *result,
                                 GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- images in results --------------------------------------------------------------- */

JsonObject *
gb_screenshot_take_image (JsonObject          *result,
                          const GbImageLimits *limits,
                          const char          *source,
                          GError             **error)
{
  g_autoptr(JsonNode) base64 = NULL;
  g_autoptr(GError) cause = NULL;
  JsonObject *summary, *image;
  GbImageInfo info;
  gsize length = 0;

  if (!json_object_has_member (result, "image"))
    return NULL;
  if (!check_mod_image (result, limits, &info, &length, &base64, &cause))
    {
      g_set_error (error, GB_ERROR, GB_ERROR_BAD_IMAGE, "BadImage: %s: %s", source, cause->message);
      return NULL;
    }
  image = json_object_new ();
  json_object_set_string_member (image, "mimeType", info.mime_type);
  json_object_set_member (image, "data", g_steal_pointer (&base64));
  summary = json_object_new ();
  json_object_set_string_member (summary, "mimeType", info.mime_type);
  json_object_set_int_member (summary, "width", info.width);
  json_object_set_int_member (summary, "height", info.height);
  json_object_set_int_member (summary, "bytes", (gint64) length);
  json_object_set_object_member (result, "image", summary);
  return image;
}

JsonObject *
gb_screenshot_steal_image (JsonObject *result)
{
  JsonNode *node = json_object_get_member (result, "image");
  JsonObject *image;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  image = json_object_ref (json_node_get_object (node));
  json_object_remove_member (result, "image");
  return image;
}
