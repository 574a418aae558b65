/* gb-resources.c: every HTTP game instance the bridge knows, as MCP
 * resources (gamegate's extension, docs/game-bridge-extensions.md):
 *
 *   game://PORT/state       GET /state, application/json
 *   game://PORT/log         the tail of a launched instance's log, text/plain
 *   game://PORT/screenshot  GET /screenshot, a blob as the game served it
 *
 * resources/list names those of the ports the bridge knows (the log only
 * for the instances it launched, the screenshot unless the game said it
 * has none); the templates name every port. A subscription is a watch: every
 * `resource-update-interval-ms` the bridge reads the game's /state (state,
 * screenshot) or the log's tail, and a frame (or a tail) that changed is
 * one notifications/resources/updated, so at most one per interval.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-resources.h"
#include "gb-screenshot.h"

typedef enum {
  KIND_STATE,
  KIND_LOG,
  KIND_SCREENSHOT,
} Kind;

static const char * const kind_names[] = { "state", "log", "screenshot" };

typedef struct {
  GbBridge     *bridge;
  char         *uri;
  guint         port;
  Kind          kind;
  guint         timer;
  GCancellable *cancellable;
  gboolean      pending;
  gint64        last_frame;   /* -1 before the first look */
  guint         last_tail;    /* a hash of the log's tail; 0 before */
} Watch;

static gboolean
parse_uri (const char  *uri,
           guint       *port,
           Kind        *kind,
           GError     **error)
{
  const char *rest, *slash;
  g_autofree char *digits = NULL;
  guint64 value;

  if (!g_str_has_prefix (uri, "game://") || (slash = strchr ((rest = uri + strlen ("game://")), '/')) == NULL)
    goto unknown;
  digits = g_strndup (rest, slash - rest);
  if (strspn (digits, "0123456789") != strlen (digits) ||
      !g_ascii_string_to_unsigned (digits, 10, 1, 65535, &value, NULL))
    goto unknown;
  for (guint i = 0; i < G_N_ELEMENTS (kind_names); i++)
    if (g_str_equal (slash + 1, kind_names[i]))
      {
        *port = (guint) value;
        *kind = (Kind) i;
        return TRUE;
      }
unknown:
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
               "Resource not found: %.200s (the resources are game://PORT/state, game://PORT/log and "
               "game://PORT/screenshot)", uri);
  return FALSE;
}

static char *
make_uri (guint port,
          Kind  kind)
{
  return g_strdup_printf ("game://%u/%s", port, kind_names[kind]);
}

/* ---- list -------------------------------------------------------------------- */

static void
add_resource (JsonArray  *out,
              guint       port,
              Kind        kind,
              const char *game,
              const char *mime_type)
{
  static const char * const descriptions[] = {
    "The game's /state snapshot; subscribe to hear when its frame changes",
    "The last lines of the instance's output (launched by this bridge)",
    "The game's current frame as it serves it; subscribe to hear when its frame changes",
  };
  JsonObject *o = json_object_new ();
  g_autofree char *uri = make_uri (port, kind);
  g_autofree char *name = g_strdup_printf ("%s on port %u: %s", game, port, kind_names[kind]);

  json_object_set_string_member (o, "uri", uri);
  json_object_set_string_member (o, "name", name);
  json_object_set_string_member (o, "description", descriptions[kind]);
  if (mime_type != NULL)
    json_object_set_string_member (o, "mimeType", mime_type);
  json_array_add_object_element (out, o);
}

static gint
compare_ports (gconstpointer a,
               gconstpointer b)
{
  return (gint) GPOINTER_TO_UINT (*(gpointer *) a) - (gint) GPOINTER_TO_UINT (*(gpointer *) b);
}

static JsonArray *
provider_list_resources (gpointer provider)
{
  GbBridge *self = provider;
  g_autoptr(GPtrArray) ports = g_ptr_array_new ();
  JsonArray *out = json_array_new ();
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, self->targets);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (ports, key);
  g_ptr_array_sort (ports, compare_ports);
  for (guint i = 0; i < ports->len; i++)
    {
      guint port = GPOINTER_TO_UINT (ports->pdata[i]);
      GbConnector *connector = gb_http_target_get_connector (g_hash_table_lookup (self->targets, ports->pdata[i]));
      GbManifest *manifest = gb_connector_peek_manifest (connector);
      const char *game = manifest != NULL && manifest->game_name != NULL ? manifest->game_name : "Game";

      add_resource (out, port, KIND_STATE, game, "application/json");
      if (gb_launcher_owns (self->launcher, port))
        add_resource (out, port, KIND_LOG, game, "text/plain");
      if (gb_connector_get_screenshot_support (connector) != 0)
        add_resource (out, port, KIND_SCREENSHOT, game, NULL);
    }
  return out;
}

static JsonArray *
provider_list_templates (gpointer provider)
{
  static const struct {
    const char *uri, *name, *description, *mime_type;
  } templates[] = {
    { "game://{port}/state", "A game's state", "GET /state of the game on that port", "application/json" },
    { "game://{port}/log", "A launched instance's log", "The last lines of its output", "text/plain" },
    { "game://{port}/screenshot", "A game's frame", "GET /screenshot of the game on that port (PNG or JPEG)",
      NULL },
  };
  JsonArray *out = json_array_new ();

  for (guint i = 0; i < G_N_ELEMENTS (templates); i++)
    {
      JsonObject *o = json_object_new ();

      json_object_set_string_member (o, "uriTemplate", templates[i].uri);
      json_object_set_string_member (o, "name", templates[i].name);
      json_object_set_string_member (o, "description", templates[i].description);
      if (templates[i].mime_type != NULL)
        json_object_set_string_member (o, "mimeType", templates[i].mime_type);
      json_array_add_object_element (out, o);
    }
  return out;
}

/* ---- read ---------------------------------------------------------------------- */

typedef struct {
  GbBridge *bridge;
  GgTarget *target;
  char     *uri;
} Read;

static void
read_free (Read *r)
{
  g_clear_object (&r->target);
  g_free (r->uri);
  g_free (r);
}

static JsonArray *
one_content (const char *uri,
             const char *mime_type,
             const char *member,
             JsonNode   *value)
{
  JsonArray *contents = json_array_new ();
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "uri", uri);
  json_object_set_string_member (o, "mimeType", mime_type);
  json_object_set_member (o, member, value);
  json_array_add_object_element (contents, o);
  return contents;
}

/* A game that is not there is a resource that is not there. */
static void
return_error (GTask  *task,
              GError *error)
{
  Read *r = g_task_get_task_data (task);

  gb_bridge_forget_if_offline (r->bridge, r->target, error);
  if (g_error_matches (error, GB_ERROR, GB_ERROR_GAME_OFFLINE) ||
      g_error_matches (error, GB_ERROR, GB_ERROR_NO_SCREENSHOT))
    {
      error->domain = G_IO_ERROR;
      error->code = G_IO_ERROR_NOT_FOUND;
    }
  g_task_return_error (task, error);
  g_object_unref (task);
}

static void
on_state (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  GTask *task = user_data;
  Read *r = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonNode) state = gg_target_get_state_finish (GG_TARGET (source), result, &error);
  g_autofree char *text = NULL;

  if (state == NULL)
    {
      return_error (task, error);
      return;
    }
  text = gg_json_to_string (state);
  g_task_return_pointer (task, one_content (r->uri, "application/json", "text",
                                           json_node_init_string (json_node_alloc (), text)),
                         (GDestroyNotify) json_array_unref);
  g_object_unref (task);
}

static void
on_screenshot (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  GTask *task = user_data;
  Read *r = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonObject) body = gb_screenshot_tool_finish (result, &error);
  g_autoptr(JsonObject) image = NULL;
  JsonNode *data;

  if (body == NULL)
    {
      return_error (task, error);
      return;
    }
  image = gb_screenshot_steal_image (body);
  /* The blob moves from the image into the content: never copied. */
  data = json_node_ref (json_object_get_member (image, "data"));
  json_object_remove_member (image, "data");
  g_task_return_pointer (task, one_content (r->uri, json_object_get_string_member (image, "mimeType"), "blob", data),
                         (GDestroyNotify) json_array_unref);
  g_object_unref (task);
}

static JsonArray *
read_log (GbBridge    *self,
          guint        port,
          const char  *uri,
          GError     **error)
{
  g_autoptr(JsonArray) tail = gb_launcher_get_log (self->launcher, port, GB_LOG_LINES, NULL);
  g_autoptr(GString) text = NULL;

  if (tail == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "Resource not found: %s (no instance on port %u was launched by this bridge, so it has no log "
                   "here)", uri, port);
      return NULL;
    }
  text = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (tail); i++)
    {
      g_string_append (text, json_array_get_string_element (tail, i));
      g_string_append_c (text, '\n');
    }
  return one_content (uri, "text/plain", "text", json_node_init_string (json_node_alloc (), text->str));
}

static void
provider_read_async (gpointer             provider,
                     const char          *uri,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  GbBridge *self = provider;
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  Read *r = g_new0 (Read, 1);
  g_autoptr(JsonObject) none = json_object_new ();
  GError *error = NULL;
  guint port;
  Kind kind;

  r->bridge = self;
  r->uri = g_strdup (uri);
  g_task_set_task_data (task, r, (GDestroyNotify) read_free);
  if (!parse_uri (uri, &port, &kind, &error))
    {
      return_error (task, error);
      return;
    }
  if (kind == KIND_LOG)
    {
      JsonArray *contents = read_log (self, port, uri, &error);

      if (contents == NULL)
        return_error (task, error);
      else
        {
          g_task_return_pointer (task, contents, (GDestroyNotify) json_array_unref);
          g_object_unref (task);
        }
      return;
    }
  r->target = g_object_ref (GG_TARGET (gb_bridge_ensure_target (self, port)));
  if (kind == KIND_STATE)
    gg_target_get_state_async (r->target, cancellable, on_state, task);
  else
    gb_screenshot_tool_async (r->target, none, &self->image_limits, (guint) self->options.timeout_ms, cancellable,
                              on_screenshot, task);
}

static JsonArray *
provider_read_finish (gpointer       provider,
                      GAsyncResult  *result,
                      GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- subscriptions -------------------------------------------------------------- */

static void
watch_free (Watch *w)
{
  g_clear_handle_id (&w->timer, g_source_remove);
  g_cancellable_cancel (w->cancellable);
  g_object_unref (w->cancellable);
  g_free (w->uri);
  g_free (w);
}

static void
changed (Watch *w)
{
  if (w->bridge->server != NULL)
    gb_mcp_server_notify_resource_updated (w->bridge->server, w->uri);
}

static void
on_watch_state (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Watch *w = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) state = gb_connector_state_finish (GB_CONNECTOR (source), result, &error);
  JsonNode *frame;
  gint64 value;

  /* Cancelled: the watch is gone, @w with it. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  w->pending = FALSE;
  if (state == NULL)
    {
      g_debug ("%s: %s", w->uri, error->message);
      return;
    }
  frame = JSON_NODE_HOLDS_OBJECT (state) ? json_object_get_member (json_node_get_object (state), "frame") : NULL;
  if (frame == NULL || !JSON_NODE_HOLDS_VALUE (frame) || json_node_get_value_type (frame) != G_TYPE_INT64)
    return;
  value = json_node_get_int (frame);
  if (w->last_frame >= 0 && value != w->last_frame)
    changed (w);
  w->last_frame = value;
}

static guint
tail_hash (JsonArray *tail)
{
  guint hash = 5381 + json_array_get_length (tail);

  for (guint i = 0; i < json_array_get_length (tail); i++)
    hash = hash * 33 + g_str_hash (json_array_get_string_element (tail, i));
  return hash != 0 ? hash : 1;
}

static gboolean
on_watch_timer (gpointer user_data)
{
  Watch *w = user_data;

  if (w->kind == KIND_LOG)
    {
      g_autoptr(JsonArray) tail = gb_launcher_get_log (w->bridge->launcher, w->port, GB_LOG_LINES, NULL);
      guint hash = tail != NULL ? tail_hash (tail) : 0;

      if (w->last_tail != 0 && hash != 0 && hash != w->last_tail)
        changed (w);
      if (hash != 0)
        w->last_tail = hash;
      return G_SOURCE_CONTINUE;
    }
  /* One look at a time: a slow game is not asked twice. */
  if (w->pending)
    return G_SOURCE_CONTINUE;
  w->pending = TRUE;
  gb_connector_state_async (gb_http_target_get_connector (gb_bridge_ensure_target (w->bridge, w->port)),
                            w->cancellable, on_watch_state, w);
  return G_SOURCE_CONTINUE;
}

static gboolean
provider_subscribe (gpointer     provider,
                    const char  *uri,
                    GError     **error)
{
  GbBridge *self = provider;
  Watch *w;
  guint port;
  Kind kind;

  if (!parse_uri (uri, &port, &kind, error))
    return FALSE;
  w = g_new0 (Watch, 1);
  w->bridge = self;
  w->uri = g_strdup (uri);
  w->port = port;
  w->kind = kind;
  w->last_frame = -1;
  w->cancellable = g_cancellable_new ();
  w->timer = g_timeout_add (self->resource_interval_ms, on_watch_timer, w);
  g_hash_table_replace (self->watches, w->uri, w);
  /* The first look now: what later looks compare with. */
  on_watch_timer (w);
  return TRUE;
}

static void
provider_unsubscribe (gpointer    provider,
                      const char *uri)
{
  GbBridge *self = provider;

  if (self->watches != NULL)
    g_hash_table_remove (self->watches, uri);
}

static const GbMcpResourcesProvider provider = {
  provider_list_resources,
  provider_list_templates,
  provider_read_async,
  provider_read_finish,
  provider_subscribe,
  provider_unsubscribe,
};

const GbMcpResourcesProvider *
gb_resources_provider (void)
{
  return &provider;
}

/* ---- the list follows the bus -------------------------------------------------------- */

static void
on_targets_changed (GgBus    *bus,
                    GgTarget *target,
                    gpointer  user_data)
{
  GbBridge *self = user_data;

  if (GB_IS_HTTP_TARGET (target) && self->server != NULL)
    gb_mcp_server_notify_resources_changed (self->server);
}

void
gb_resources_attach (GbBridge *bridge)
{
  if (bridge->watches == NULL)
    bridge->watches = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) watch_free);
  if (bridge->target_added_handler == 0)
    {
      bridge->target_added_handler = g_signal_connect (bridge->bus, "target-added",
                                                       G_CALLBACK (on_targets_changed), bridge);
      bridge->target_removed_handler = g_signal_connect (bridge->bus, "target-removed",
                                                         G_CALLBACK (on_targets_changed), bridge);
    }
}

void
gb_resources_detach (GbBridge *bridge)
{
  g_clear_signal_handler (&bridge->target_added_handler, bridge->bus);
  g_clear_signal_handler (&bridge->target_removed_handler, bridge->bus);
  if (bridge->watches != NULL)
    g_hash_table_remove_all (bridge->watches);
}
