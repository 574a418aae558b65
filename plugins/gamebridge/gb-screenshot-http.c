/* gb-screenshot-http.c: GET /screenshot of one HTTP game (gamegate's
 * extension of the contract, docs/game-bridge-extensions.md).
 *
 * The body is read as it arrives and never past the limit: a
 * Content-Length over `screenshot-max-bytes` is refused before a byte of
 * the body is read, a body without one stops being read one byte past the
 * limit. A body shorter than its Content-Length (the game closed the
 * connection early) is cut short, never passed on. The bytes then go
 * through gb_image_check(); they reach the agent as they came.
 *
 * A 404 is NoScreenshot once /health says a game answers there (otherwise
 * NotAGameSurface, as for every other path); what the bridge learnt is kept
 * on the connector for list_toolsets.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-errors.h"
#include "gb-screenshot-http.h"

/* What is read of an answer that is not an image, for its error message. */
#define ERROR_BODY_MAX 4096
#define READ_CHUNK     65536

typedef struct {
  GbConnector  *connector;
  SoupMessage  *msg;
  GInputStream *stream;
  GByteArray   *body;
  gsize         max;             /* the most that may be read */
  goffset       content_length;  /* -1: none */
  guint         status;
  GCancellable *inner;
  GCancellable *parent;
  gulong        parent_handler;
  guint         timer;
  guint         timeout_ms;
  gboolean      timed_out;
  guint8        buf[READ_CHUNK];
} Fetch;

static void
fetch_free (Fetch *f)
{
  g_clear_handle_id (&f->timer, g_source_remove);
  if (f->parent != NULL)
    g_cancellable_disconnect (f->parent, f->parent_handler);
  g_clear_object (&f->parent);
  g_clear_object (&f->inner);
  g_clear_object (&f->stream);
  g_clear_object (&f->msg);
  g_clear_object (&f->connector);
  g_byte_array_unref (f->body);
  g_free (f);
}

void
gb_screenshot_free (GbScreenshot *shot)
{
  if (shot == NULL)
    return;
  g_bytes_unref (shot->bytes);
  g_free (shot);
}

/**
 * gb_screenshot_request_query:
 * @request: what was asked
 *
 * Returns: (transfer full): `/screenshot` with `width`, `height` and
 *   `region=x,y,w,h` as asked
 */
char *
gb_screenshot_request_query (const GbScreenshotRequest *request)
{
  GString *q = g_string_new ("/screenshot");
  char sep = '?';

  if (request->width > 0)
    {
      g_string_append_printf (q, "%cwidth=%u", sep, request->width);
      sep = '&';
    }
  if (request->height > 0)
    {
      g_string_append_printf (q, "%cheight=%u", sep, request->height);
      sep = '&';
    }
  if (request->has_region)
    g_string_append_printf (q, "%cregion=%u,%u,%u,%u", sep, request->region[0], request->region[1],
                            request->region[2], request->region[3]);
  return g_string_free (q, FALSE);
}

static void
return_error (GTask  *task,
              GError *error)
{
  g_task_return_error (task, error);
  g_object_unref (task);
}

/* The connection failed, timed out or was cancelled before an answer. */
static void
return_transport_error (GTask        *task,
                        const GError *cause)
{
  Fetch *f = g_task_get_task_data (task);
  guint port = gb_connector_get_port (f->connector);
  GError *error = NULL;

  if (f->parent != NULL && g_cancellable_is_cancelled (f->parent))
    error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");
  else if (f->timed_out)
    error = g_error_new (GB_ERROR, GB_ERROR_GAME_OFFLINE,
                         "GameOffline: No game answered GET /screenshot on http://127.0.0.1:%u within %ums.",
                         port, f->timeout_ms);
  else
    {
      g_debug ("Port %u: GET /screenshot: %s", port, cause != NULL ? cause->message : "failed");
      gb_error_game_offline (&error, port, gb_connector_get_launch_hint (f->connector));
    }
  return_error (task, error);
}

static void
on_classify_health (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  GTask *task = user_data;
  Fetch *f = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonObject) health = gb_connector_health_finish (GB_CONNECTOR (source), result, &error);

  if (health == NULL)
    {
      return_error (task, error);
      return;
    }
  gb_connector_set_screenshot_support (f->connector, 0);
  return_error (task, g_error_new (GB_ERROR, GB_ERROR_NO_SCREENSHOT,
                                   "NoScreenshot: The game on port %u serves no screenshots: GET /screenshot "
                                   "returned HTTP 404. A game shows its frame by answering GET /screenshot with "
                                   "image/png or image/jpeg (docs/game-bridge-extensions.md).",
                                   gb_connector_get_port (f->connector)));
}

static void
finish_body (GTask *task)
{
  Fetch *f = g_task_get_task_data (task);
  guint port = gb_connector_get_port (f->connector);
  g_autoptr(GbScreenshot) shot = NULL;
  GError *error = NULL;
  const char *frame;
  gint64 value;

  if (f->status < 200 || f->status > 299)
    {
      if (f->status == 404)
        {
          gb_connector_health_async (f->connector, f->timeout_ms, f->parent, on_classify_health, task);
          return;
        }
      gb_error_http_status (&error, port, "/screenshot", f->status, (const char *) f->body->data, f->body->len);
      return_error (task, error);
      return;
    }
  if (f->content_length >= 0 && (goffset) f->body->len < f->content_length)
    {
      return_error (task, g_error_new (GB_IMAGE_ERROR, GB_IMAGE_ERROR_TRUNCATED,
                                       "the answer is cut short: the game promised %" G_GOFFSET_FORMAT
                                       " bytes (Content-Length) and sent %u", f->content_length, f->body->len));
      return;
    }
  shot = g_new0 (GbScreenshot, 1);
  if (!gb_image_check (f->body->data, f->body->len, gb_connector_get_image_limits (f->connector), &shot->info,
                       &error))
    {
      return_error (task, error);
      return;
    }
  shot->bytes = g_byte_array_free_to_bytes (g_steal_pointer (&f->body));
  f->body = g_byte_array_new ();
  frame = soup_message_headers_get_one (soup_message_get_response_headers (f->msg), "X-Frame");
  shot->frame = frame != NULL && g_ascii_string_to_signed (frame, 10, 0, G_MAXINT64, &value, NULL) ? value : -1;
  gb_connector_set_screenshot_support (f->connector, 1);
  g_task_return_pointer (task, g_steal_pointer (&shot), (GDestroyNotify) gb_screenshot_free);
  g_object_unref (task);
}

static void read_more (GTask *task);

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  GTask *task = user_data;
  Fetch *f = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);

  if (n < 0)
    {
      /* Broken off inside the body: what came is cut short. */
      if (!f->timed_out && !(f->parent != NULL && g_cancellable_is_cancelled (f->parent)) &&
          f->status >= 200 && f->status <= 299)
        {
          return_error (task, g_error_new (GB_IMAGE_ERROR, GB_IMAGE_ERROR_TRUNCATED,
                                           "the answer is cut short: the connection broke after %u bytes (%s)",
                                           f->body->len, error->message));
          return;
        }
      return_transport_error (task, error);
      return;
    }
  if (n == 0)
    {
      g_clear_handle_id (&f->timer, g_source_remove);
      finish_body (task);
      return;
    }
  if (f->body->len + (gsize) n > f->max)
    {
      /* An error page is only cut; an image past the limit is refused. */
      if (f->status < 200 || f->status > 299)
        {
          g_byte_array_append (f->body, f->buf, (guint) (f->max - f->body->len));
          g_clear_handle_id (&f->timer, g_source_remove);
          finish_body (task);
          return;
        }
      return_error (task, g_error_new (GB_IMAGE_ERROR, GB_IMAGE_ERROR_TOO_MANY_BYTES,
                                       "the image has more than %" G_GSIZE_FORMAT
                                       " bytes, the limit (screenshot-max-bytes)", f->max));
      return;
    }
  g_byte_array_append (f->body, f->buf, (guint) n);
  read_more (task);
}

static void
read_more (GTask *task)
{
  Fetch *f = g_task_get_task_data (task);
  /* One byte past the limit tells "at the limit" from "over it". */
  gsize room = MIN (sizeof f->buf, f->max + 1 - f->body->len);

  g_input_stream_read_async (f->stream, f->buf, room, G_PRIORITY_DEFAULT, f->inner, on_read, task);
}

static void
on_sent (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  GTask *task = user_data;
  Fetch *f = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  SoupMessageHeaders *headers;

  f->stream = soup_session_send_finish (SOUP_SESSION (source), result, &error);
  if (f->stream == NULL)
    {
      return_transport_error (task, error);
      return;
    }
  f->status = soup_message_get_status (f->msg);
  headers = soup_message_get_response_headers (f->msg);
  if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH)
    f->content_length = soup_message_headers_get_content_length (headers);
  if (f->status >= 200 && f->status <= 299)
    {
      f->max = gb_connector_get_image_limits (f->connector)->max_bytes;
      if (f->content_length > (goffset) f->max)
        {
          return_error (task, g_error_new (GB_IMAGE_ERROR, GB_IMAGE_ERROR_TOO_MANY_BYTES,
                                           "the game announced %" G_GOFFSET_FORMAT " bytes (Content-Length), more "
                                           "than the limit of %" G_GSIZE_FORMAT " (screenshot-max-bytes)",
                                           f->content_length, f->max));
          return;
        }
    }
  else
    f->max = ERROR_BODY_MAX;
  read_more (task);
}

static gboolean
on_timeout (gpointer user_data)
{
  Fetch *f = user_data;

  f->timer = 0;
  f->timed_out = TRUE;
  g_cancellable_cancel (f->inner);
  return G_SOURCE_REMOVE;
}

static void
on_parent_cancelled (GCancellable *parent,
                     gpointer      user_data)
{
  g_cancellable_cancel (user_data);
}

/**
 * gb_screenshot_http_async:
 * @connector: the game's connector (its session, port, timeout and limits)
 * @request: what to ask for
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the checked image
 * @user_data: data for @callback
 *
 * GET /screenshot. Errors: GameOffline, NotAGameSurface, NoScreenshot,
 * HttpStatusError, or a %GB_IMAGE_ERROR (the caller names the source).
 */
void
gb_screenshot_http_async (GbConnector               *connector,
                          const GbScreenshotRequest *request,
                          GCancellable              *cancellable,
                          GAsyncReadyCallback        callback,
                          gpointer                   user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  Fetch *f = g_new0 (Fetch, 1);
  g_autofree char *path = gb_screenshot_request_query (request);
  g_autofree char *uri = g_strdup_printf ("http://127.0.0.1:%u%s", gb_connector_get_port (connector), path);

  g_task_set_source_tag (task, gb_screenshot_http_async);
  f->connector = g_object_ref (connector);
  f->body = g_byte_array_new ();
  f->content_length = -1;
  f->timeout_ms = gb_connector_get_timeout (connector);
  f->inner = g_cancellable_new ();
  if (cancellable != NULL)
    {
      f->parent = g_object_ref (cancellable);
      f->parent_handler = g_cancellable_connect (cancellable, G_CALLBACK (on_parent_cancelled), f->inner, NULL);
    }
  g_task_set_task_data (task, f, (GDestroyNotify) fetch_free);
  f->msg = soup_message_new (SOUP_METHOD_GET, uri);
  f->timer = g_timeout_add (f->timeout_ms, on_timeout, f);
  soup_session_send_async (gb_connector_get_session (connector), f->msg, G_PRIORITY_DEFAULT, f->inner, on_sent,
                           task);
}

GbScreenshot *
gb_screenshot_http_finish (GAsyncResult  *result,
                           GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}
