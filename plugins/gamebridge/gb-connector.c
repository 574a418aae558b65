/* gb-connector.c: the HTTP client of one game port (spec section 1).
 *
 * Every request carries the timeout; a connection refused or reset is
 * GameOffline, a non-game answer on /health is NotAGameSurface, any other
 * non-2xx is HttpStatusError. An answer a game never gives on /command,
 * /state or /tools (404, or a body that is not JSON) is checked against
 * /health before it is classified: when /health says something else holds
 * the port, the error is NotAGameSurface, not the other server's 404 page.
 * A command is confirmed through /state (gb-command-sync.c). A frame that
 * goes backwards means a new process: the cached manifest is dropped.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "gb-connector.h"
#include "gb-errors.h"

#define MAX_BODY (16 * 1024 * 1024)

struct _GbConnector {
  GObject parent_instance;

  SoupSession *session;
  guint port;
  guint timeout_ms;
  char *launch_hint;
  GbManifest *manifest;       /* cached */
  GbManifest *file_manifest;  /* --manifest */
  gint64 last_frame;          /* -1 = none seen */
  GbImageLimits image_limits;
  int screenshot_support;     /* -1 unknown, 0 no, 1 yes */
};

G_DEFINE_FINAL_TYPE (GbConnector, gb_connector, G_TYPE_OBJECT)

enum { MANIFEST_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
gb_connector_finalize (GObject *object)
{
  GbConnector *self = GB_CONNECTOR (object);

  g_clear_object (&self->session);
  g_free (self->launch_hint);
  g_clear_pointer (&self->manifest, gb_manifest_unref);
  g_clear_pointer (&self->file_manifest, gb_manifest_unref);
  G_OBJECT_CLASS (gb_connector_parent_class)->finalize (object);
}

static void
gb_connector_class_init (GbConnectorClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gb_connector_finalize;
  /* The cached manifest was dropped (a new process) or loaded afresh. */
  signals[MANIFEST_CHANGED] =
    g_signal_new ("manifest-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
gb_connector_init (GbConnector *self)
{
  self->last_frame = -1;
  self->screenshot_support = -1;
  gb_image_limits_init (&self->image_limits);
}

/**
 * gb_connector_new:
 * @session: the shared HTTP session
 * @port: the game's port on 127.0.0.1
 * @timeout_ms: HTTP and command timeout
 * @launch_hint: (nullable): shown in GameOffline, `{port}` substituted
 * @file_manifest: (nullable): the `--manifest` manifest, used when /tools is 404
 *
 * Returns: (transfer full): a connector
 */
GbConnector *
gb_connector_new (SoupSession *session,
                  guint        port,
                  guint        timeout_ms,
                  const char  *launch_hint,
                  GbManifest  *file_manifest)
{
  GbConnector *self = g_object_new (GB_TYPE_CONNECTOR, NULL);

  self->session = g_object_ref (session);
  self->port = port;
  self->timeout_ms = timeout_ms;
  self->launch_hint = g_strdup (launch_hint);
  self->file_manifest = file_manifest != NULL ? gb_manifest_ref (file_manifest) : NULL;
  return self;
}

guint gb_connector_get_port (GbConnector *self) { return self->port; }
guint gb_connector_get_timeout (GbConnector *self) { return self->timeout_ms; }
GbManifest *gb_connector_peek_manifest (GbConnector *self) { return self->manifest; }

void
gb_connector_set_launch_hint (GbConnector *self,
                              const char  *launch_hint)
{
  g_free (self->launch_hint);
  self->launch_hint = g_strdup (launch_hint);
}

void
gb_connector_drop_manifest (GbConnector *self)
{
  if (self->manifest == NULL)
    return;
  g_clear_pointer (&self->manifest, gb_manifest_unref);
  g_signal_emit (self, signals[MANIFEST_CHANGED], 0);
}

/* A frame that goes backwards: another process answers on this port now. */
static void
note_frame (GbConnector *self,
            JsonNode    *root)
{
  JsonNode *frame;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return;
  frame = json_object_get_member (json_node_get_object (root), "frame");
  if (frame == NULL || !JSON_NODE_HOLDS_VALUE (frame) || json_node_get_value_type (frame) != G_TYPE_INT64)
    return;
  if (self->last_frame >= 0 && json_node_get_int (frame) < self->last_frame)
    {
      g_debug ("Port %u: frame went back from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT
               ": a new process, dropping the manifest", self->port, self->last_frame,
               json_node_get_int (frame));
      gb_connector_drop_manifest (self);
      self->screenshot_support = -1;
    }
  self->last_frame = json_node_get_int (frame);
}

/* ---- one GET ------------------------------------------------------------ */

typedef struct {
  char *path;
  GCancellable *inner;
  gulong parent_handler;
  GCancellable *parent;
  guint timer;
  guint timeout_ms;
  gboolean timed_out;
  guint status;
  GError *failure;   /* waiting for /health to classify it */
} GetData;

static void
get_data_free (GetData *data)
{
  g_clear_handle_id (&data->timer, g_source_remove);
  if (data->parent != NULL)
    g_cancellable_disconnect (data->parent, data->parent_handler);
  g_clear_object (&data->parent);
  g_clear_object (&data->inner);
  g_clear_error (&data->failure);
  g_free (data->path);
  g_free (data);
}

static gboolean
on_get_timeout (gpointer user_data)
{
  GetData *data = user_data;

  data->timer = 0;
  data->timed_out = TRUE;
  g_cancellable_cancel (data->inner);
  return G_SOURCE_REMOVE;
}

static void
on_parent_cancelled (GCancellable *parent,
                     gpointer      user_data)
{
  g_cancellable_cancel (user_data);
}

static void
on_classify_health (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GetData *data = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonObject) health = gb_connector_health_finish (GB_CONNECTOR (source), result, &error);

  if (health == NULL && g_error_matches (error, GB_ERROR, GB_ERROR_NOT_A_GAME_SURFACE))
    {
      g_task_return_error (task, error);
      return;
    }
  g_clear_error (&error);
  g_task_return_error (task, g_steal_pointer (&data->failure));
}

/* An answer no game gives: ask /health whose it is before saying anything. */
static void
fail_unlike_a_game (GTask  *task,
                    GError *failure)
{
  GbConnector *self = g_task_get_source_object (task);
  GetData *data = g_task_get_task_data (task);

  if (g_str_equal (data->path, "/health"))
    {
      g_task_return_error (task, failure);
      return;
    }
  data->failure = failure;
  gb_connector_health_async (self, data->timeout_ms, data->parent, on_classify_health, g_object_ref (task));
}

static void
on_get_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GbConnector *self = g_task_get_source_object (task);
  GetData *data = g_task_get_task_data (task);
  SoupMessage *msg = g_object_get_data (G_OBJECT (task), "message");
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = soup_session_send_and_read_finish (SOUP_SESSION (source), result, &error);
  g_autoptr(JsonNode) root = NULL;
  const char *text;
  gsize len = 0;

  g_clear_handle_id (&data->timer, g_source_remove);
  if (body == NULL)
    {
      if (data->parent != NULL && g_cancellable_is_cancelled (data->parent))
        g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");
      else if (data->timed_out)
        g_task_return_new_error (task, GB_ERROR, GB_ERROR_GAME_OFFLINE,
                                 "GameOffline: No game answered GET %s on http://127.0.0.1:%u within %ums.",
                                 data->path, self->port, data->timeout_ms);
      else
        {
          GError *offline = NULL;

          g_debug ("Port %u: GET %s: %s", self->port, data->path, error->message);
          gb_error_game_offline (&offline, self->port, self->launch_hint);
          g_task_return_error (task, offline);
        }
      return;
    }
  data->status = soup_message_get_status (msg);
  text = g_bytes_get_data (body, &len);
  if (data->status < 200 || data->status > 299)
    {
      GError *status_error = NULL;

      gb_error_http_status (&status_error, self->port, data->path, data->status, text, len);
      if (data->status == 404)
        fail_unlike_a_game (task, status_error);
      else
        g_task_return_error (task, status_error);
      return;
    }
  if (len > MAX_BODY)
    {
      g_task_return_new_error (task, GB_ERROR, GB_ERROR_HTTP_STATUS,
                               "HttpStatusError: GET %s on http://127.0.0.1:%u answered more than %d bytes",
                               data->path, self->port, MAX_BODY);
      return;
    }
  root = gg_json_parse (text != NULL ? text : "", (gssize) len, GG_JSON_DEFAULT_MAX_DEPTH, &error);
  if (root == NULL)
    {
      fail_unlike_a_game (task, g_error_new (GB_ERROR, GB_ERROR_HTTP_STATUS,
                                             "HttpStatusError: GET %s on http://127.0.0.1:%u returned HTTP %u with a "
                                             "body that is not JSON: %s", data->path, self->port, data->status,
                                             error->message));
      return;
    }
  note_frame (self, root);
  g_task_return_pointer (task, g_steal_pointer (&root), (GDestroyNotify) json_node_unref);
}

void
gb_connector_get_async (GbConnector         *self,
                        const char          *path_query,
                        guint                timeout_ms,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  GetData *data = g_new0 (GetData, 1);
  g_autofree char *uri = g_strdup_printf ("http://127.0.0.1:%u%s", self->port, path_query);
  SoupMessage *msg;
  const char *q;

  g_task_set_source_tag (task, gb_connector_get_async);
  /* The path without its query, for error messages. */
  q = strchr (path_query, '?');
  data->path = q != NULL ? g_strndup (path_query, q - path_query) : g_strdup (path_query);
  data->timeout_ms = timeout_ms > 0 ? timeout_ms : self->timeout_ms;
  data->inner = g_cancellable_new ();
  if (cancellable != NULL)
    {
      data->parent = g_object_ref (cancellable);
      data->parent_handler = g_cancellable_connect (cancellable, G_CALLBACK (on_parent_cancelled),
                                                    data->inner, NULL);
    }
  g_task_set_task_data (task, data, (GDestroyNotify) get_data_free);
  msg = soup_message_new (SOUP_METHOD_GET, uri);
  if (msg == NULL)
    {
      g_task_return_new_error (task, GB_ERROR, GB_ERROR_USAGE, "BridgeUsageError: Not a valid request: %s",
                               path_query);
      g_object_unref (task);
      return;
    }
  g_object_set_data_full (G_OBJECT (task), "message", msg, g_object_unref);
  data->timer = g_timeout_add (data->timeout_ms, on_get_timeout, data);
  soup_session_send_and_read_async (self->session, msg, G_PRIORITY_DEFAULT, data->inner, on_get_done, task);
}

JsonNode *
gb_connector_get_finish (GbConnector   *self,
                         GAsyncResult  *result,
                         guint         *out_status,
                         GError       **error)
{
  GetData *data = g_task_get_task_data (G_TASK (result));

  if (out_status != NULL)
    *out_status = data->status;
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- health, state ------------------------------------------------------ */

static void
on_health_done (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GbConnector *self = GB_CONNECTOR (source);
  g_autoptr(GError) error = NULL;
  guint status = 0;
  g_autoptr(JsonNode) root = gb_connector_get_finish (self, result, &status, &error);
  JsonObject *o;
  JsonNode *ok;
  GError *not_game = NULL;

  if (root == NULL)
    {
      if (g_error_matches (error, GB_ERROR, GB_ERROR_HTTP_STATUS))
        {
          g_autofree char *what = status >= 200 && status <= 299
            ? g_strdup ("GET /health did not return JSON")
            : g_strdup_printf ("GET /health returned HTTP %u", status);

          gb_error_not_a_game (&not_game, self->port, what);
          g_task_return_error (task, not_game);
        }
      else
        g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  o = JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  ok = o != NULL ? json_object_get_member (o, "ok") : NULL;
  /* gamegate's extension: a game may say whether it serves /screenshot. */
  if (o != NULL && json_object_has_member (o, "screenshot") &&
      JSON_NODE_HOLDS_VALUE (json_object_get_member (o, "screenshot")) &&
      json_node_get_value_type (json_object_get_member (o, "screenshot")) == G_TYPE_BOOLEAN)
    self->screenshot_support = json_object_get_boolean_member (o, "screenshot") ? 1 : 0;
  if (ok == NULL || !JSON_NODE_HOLDS_VALUE (ok) || json_node_get_value_type (ok) != G_TYPE_BOOLEAN ||
      !json_node_get_boolean (ok))
    {
      gb_error_not_a_game (&not_game, self->port, "GET /health did not answer {\"ok\":true}");
      g_task_return_error (task, not_game);
      return;
    }
  g_task_return_pointer (task, json_object_ref (o), (GDestroyNotify) json_object_unref);
}

void
gb_connector_health_async (GbConnector         *self,
                           guint                timeout_ms,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  gb_connector_get_async (self, "/health", timeout_ms, cancellable, on_health_done, task);
}

JsonObject *
gb_connector_health_finish (GbConnector   *self,
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
  GError *error = NULL;
  JsonNode *root = gb_connector_get_finish (GB_CONNECTOR (source), result, NULL, &error);

  if (root == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, root, (GDestroyNotify) json_node_unref);
}

void
gb_connector_state_async (GbConnector         *self,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  gb_connector_get_async (self, "/state", 0, cancellable, on_state_done,
                          g_task_new (self, cancellable, callback, user_data));
}

JsonNode *
gb_connector_state_finish (GbConnector   *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- manifest ----------------------------------------------------------- */

static void
on_tools_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GbConnector *self = GB_CONNECTOR (source);
  g_autoptr(GError) error = NULL;
  guint status = 0;
  g_autoptr(JsonNode) root = gb_connector_get_finish (self, result, &status, &error);
  GbManifest *manifest = NULL;

  /* No manifest (404) or an unreadable one (2xx, not JSON): never fatal. */
  if (root == NULL && !g_error_matches (error, GB_ERROR, GB_ERROR_NOT_A_GAME_SURFACE) &&
      (status == 404 || (status >= 200 && status <= 299)))
    {
      if (status != 404)
        g_message (_("Port %u: GET /tools: %s; using the fallback manifest"), self->port, error->message);
      manifest = self->file_manifest != NULL ? gb_manifest_ref (self->file_manifest) : gb_manifest_new_fallback ();
    }
  else if (root == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  else
    {
      manifest = gb_manifest_parse (root, "game", &error);
      if (manifest == NULL)
        {
          g_message (_("Port %u: GET /tools: %s; using the fallback manifest"), self->port, error->message);
          manifest = gb_manifest_new_fallback ();
        }
      else if (manifest->dropped > 0)
        g_debug ("Port %u: %u malformed manifest entries left out", self->port, manifest->dropped);
    }
  g_clear_pointer (&self->manifest, gb_manifest_unref);
  self->manifest = gb_manifest_ref (manifest);
  g_signal_emit (self, signals[MANIFEST_CHANGED], 0);
  g_task_return_pointer (task, manifest, (GDestroyNotify) gb_manifest_unref);
}

void
gb_connector_manifest_async (GbConnector         *self,
                             gboolean             reload,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  if (self->manifest != NULL && !reload)
    {
      g_task_return_pointer (task, gb_manifest_ref (self->manifest), (GDestroyNotify) gb_manifest_unref);
      g_object_unref (task);
      return;
    }
  gb_connector_get_async (self, "/tools", 0, cancellable, on_tools_done, task);
}

GbManifest *
gb_connector_manifest_finish (GbConnector   *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The last frame /health or /state reported; -1 before any. */
gint64
gb_connector_get_last_frame (GbConnector *self)
{
  return self->last_frame;
}

SoupSession *
gb_connector_get_session (GbConnector *self)
{
  return self->session;
}

const char *
gb_connector_get_launch_hint (GbConnector *self)
{
  return self->launch_hint;
}

const GbImageLimits *
gb_connector_get_image_limits (GbConnector *self)
{
  return &self->image_limits;
}

void
gb_connector_set_image_limits (GbConnector         *self,
                               const GbImageLimits *limits)
{
  self->image_limits = *limits;
}

int
gb_connector_get_screenshot_support (GbConnector *self)
{
  /* A manifest that says so, unless an answer of the game said otherwise. */
  if (self->screenshot_support < 0 && self->manifest != NULL)
    return self->manifest->screenshot;
  return self->screenshot_support;
}

void
gb_connector_set_screenshot_support (GbConnector *self,
                                     int          support)
{
  self->screenshot_support = CLAMP (support, -1, 1);
}
