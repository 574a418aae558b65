/* gg-openai-client.c: what the models of one plugin share: the configured
 * defaults, one HTTP session (its connection limit is the plugin's
 * max-concurrent-requests) and a short-lived cache of `GET /models`.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-openai-private.h"

/* Availability is asked often (every oam initialize); the list of served
 * models changes rarely. */
#define MODELS_CACHE_US        (5 * G_USEC_PER_SEC)
#define MODELS_ERROR_CACHE_US  (1 * G_USEC_PER_SEC)
#define MAX_MODELS_BODY        (4 * 1024 * 1024)

typedef struct {
  GStrv ids;
  GError *error;
  gint64 fetched_at;
} CacheEntry;

struct _GgOpenaiClient {
  GObject parent_instance;
  GgOpenaiSettings defaults;
  SoupSession *session;
  GHashTable *cache; /* base URL + key digest -> CacheEntry */
};

G_DEFINE_FINAL_TYPE (GgOpenaiClient, gg_openai_client, G_TYPE_OBJECT)

static void
cache_entry_free (CacheEntry *entry)
{
  g_strfreev (entry->ids);
  g_clear_error (&entry->error);
  g_free (entry);
}

/* ---- the client -------------------------------------------------------- */

static void
gg_openai_client_finalize (GObject *object)
{
  GgOpenaiClient *self = GG_OPENAI_CLIENT (object);

  gg_openai_settings_clear (&self->defaults);
  g_clear_object (&self->session);
  g_clear_pointer (&self->cache, g_hash_table_unref);
  G_OBJECT_CLASS (gg_openai_client_parent_class)->finalize (object);
}

static void
gg_openai_client_class_init (GgOpenaiClientClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_openai_client_finalize;
}

static void
gg_openai_client_init (GgOpenaiClient *self)
{
  self->cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify) cache_entry_free);
}

/**
 * gg_openai_client_new:
 * @defaults: the `[model-openai]` settings; copied
 * @max_concurrent: HTTP connections at most, per server
 *
 * Returns: (transfer full): a new client
 */
GgOpenaiClient *
gg_openai_client_new (const GgOpenaiSettings *defaults,
                      gint64                  max_concurrent)
{
  GgOpenaiClient *self = g_object_new (GG_TYPE_OPENAI_CLIENT, NULL);
  int conns = (int) CLAMP (max_concurrent, 1, 1024);

  gg_openai_settings_copy (&self->defaults, defaults);
  /* Requests beyond the limit wait in libsoup's queue, in order. */
  self->session = soup_session_new_with_options ("max-conns", conns,
                                                 "max-conns-per-host", conns,
                                                 "user-agent", "gamegate/" PACKAGE_VERSION " ",
                                                 NULL);
  return self;
}

/**
 * gg_openai_client_get_defaults:
 * @self: a client
 *
 * Returns: (transfer none): the `[model-openai]` settings
 */
const GgOpenaiSettings *
gg_openai_client_get_defaults (GgOpenaiClient *self)
{
  return &self->defaults;
}

/**
 * gg_openai_client_get_session:
 * @self: a client
 *
 * Returns: (transfer none): the shared HTTP session
 */
SoupSession *
gg_openai_client_get_session (GgOpenaiClient *self)
{
  return self->session;
}

/* ---- GET /models -------------------------------------------------------- */

typedef struct {
  GgOpenaiSettings settings;
  SoupMessage *message;
  char *cache_key;
} ListModelsData;

static void
list_models_data_free (ListModelsData *data)
{
  g_free (data->cache_key);
  gg_openai_settings_clear (&data->settings);
  g_clear_object (&data->message);
  g_free (data);
}

/**
 * gg_openai_parse_model_ids:
 * @body: a `GET /models` body
 * @error: return location for a %GG_MODEL_ERROR
 *
 * Returns: (transfer full): the model ids listed, or %NULL with @error set
 */
GStrv
gg_openai_parse_model_ids (GBytes  *body,
                           GError **error)
{
  gsize length;
  const char *data = g_bytes_get_data (body, &length);
  g_autoptr(JsonNode) root = gg_json_parse (data, length, 32, NULL);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  JsonNode *list;
  JsonArray *array;
  guint n;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    goto malformed;
  list = json_object_get_member (json_node_get_object (root), "data");
  /* Ollama's own /api/tags uses "models"; accept it as well. */
  if (list == NULL)
    list = json_object_get_member (json_node_get_object (root), "models");
  if (list == NULL || !JSON_NODE_HOLDS_ARRAY (list))
    goto malformed;
  array = json_node_get_array (list);
  n = MIN (json_array_get_length (array), GG_OPENAI_MAX_MODEL_IDS);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *entry = json_array_get_element (array, i);
      JsonObject *object;
      const char *id;

      if (!JSON_NODE_HOLDS_OBJECT (entry))
        continue;
      object = json_node_get_object (entry);
      id = gg_openai_get_string (object, "id");
      if (id == NULL)
        id = gg_openai_get_string (object, "name");
      if (id != NULL)
        g_strv_builder_add (builder, id);
    }
  return g_strv_builder_end (builder);

malformed:
  g_set_error_literal (error, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED,
                       "The model server's model list is malformed");
  return NULL;
}

/* What a server lists may depend on who asks: the key is part of the
 * cache key, as a digest so the secret is not kept twice. */
static char *
cache_key (const GgOpenaiSettings *settings)
{
  g_autofree char *digest = settings->api_key != NULL ?
    g_compute_checksum_for_string (G_CHECKSUM_SHA256, settings->api_key, -1) : NULL;

  return g_strconcat (settings->base_url, "\n", digest != NULL ? digest : "", NULL);
}

static void
cache_store (GgOpenaiClient *self,
             const char     *key,
             GStrv           ids,
             const GError   *error)
{
  CacheEntry *entry = g_new0 (CacheEntry, 1);
  gint64 now = g_get_monotonic_time ();
  GHashTableIter iter;
  CacheEntry *old;

  /* Expired answers go, so many servers asked once do not pile up. */
  g_hash_table_iter_init (&iter, self->cache);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &old))
    if (now - old->fetched_at >= MODELS_CACHE_US)
      g_hash_table_iter_remove (&iter);

  entry->ids = g_strdupv (ids);
  entry->error = error != NULL ? g_error_copy (error) : NULL;
  entry->fetched_at = now;
  g_hash_table_replace (self->cache, g_strdup (key), entry);
}

static void
on_models_read (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GgOpenaiClient *self = g_task_get_source_object (task);
  ListModelsData *data = g_task_get_task_data (task);
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GBytes) body = NULL;
  GStrv ids = NULL;
  guint status;

  body = soup_session_send_and_read_finish (SOUP_SESSION (source), result, &local_error);
  if (body == NULL)
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_task_return_error (task, gg_model_error_new (GG_MODEL_ERROR_CANCELLED, NULL,
                                                         "The request was cancelled"));
          return;
        }
      g_autoptr(GError) mapped = gg_openai_error_from_io (local_error, &data->settings, NULL);
      cache_store (self, data->cache_key, NULL, mapped);
      g_task_return_error (task, g_steal_pointer (&mapped));
      return;
    }
  status = soup_message_get_status (data->message);
  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      gsize length;
      const char *text = g_bytes_get_data (body, &length);
      g_autoptr(GError) mapped = gg_openai_error_from_status (status, text, length, NULL,
                                                              &data->settings, NULL, NULL);
      cache_store (self, data->cache_key, NULL, mapped);
      g_task_return_error (task, g_steal_pointer (&mapped));
      return;
    }
  if (g_bytes_get_size (body) > MAX_MODELS_BODY)
    {
      g_task_return_new_error (task, GG_MODEL_ERROR, GG_MODEL_ERROR_GENERATION_FAILED,
                               "The model server's model list is too large");
      return;
    }
  ids = gg_openai_parse_model_ids (body, &local_error);
  cache_store (self, data->cache_key, ids, local_error);
  if (ids == NULL)
    g_task_return_error (task, g_steal_pointer (&local_error));
  else
    g_task_return_pointer (task, ids, (GDestroyNotify) g_strfreev);
}

/**
 * gg_openai_client_list_models_async:
 * @self: a client
 * @settings: the asking model's settings (URL, key)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the list
 * @user_data: data for @callback
 *
 * Lists the models the server at @settings' URL serves (`GET /models`),
 * from the cache when it was asked within the last seconds.
 */
void
gg_openai_client_list_models_async (GgOpenaiClient         *self,
                                    const GgOpenaiSettings *settings,
                                    GCancellable           *cancellable,
                                    GAsyncReadyCallback     callback,
                                    gpointer                user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autofree char *url = g_strconcat (settings->base_url, "/models", NULL);
  g_autofree char *key = cache_key (settings);
  CacheEntry *entry = g_hash_table_lookup (self->cache, key);
  ListModelsData *data;

  g_task_set_source_tag (task, gg_openai_client_list_models_async);
  if (entry != NULL)
    {
      gint64 age = g_get_monotonic_time () - entry->fetched_at;
      if (age < (entry->error != NULL ? MODELS_ERROR_CACHE_US : MODELS_CACHE_US))
        {
          if (entry->error != NULL)
            g_task_return_error (task, g_error_copy (entry->error));
          else
            g_task_return_pointer (task, g_strdupv (entry->ids), (GDestroyNotify) g_strfreev);
          return;
        }
    }

  data = g_new0 (ListModelsData, 1);
  data->cache_key = g_steal_pointer (&key);
  gg_openai_settings_copy (&data->settings, settings);
  data->message = soup_message_new (SOUP_METHOD_GET, url);
  g_task_set_task_data (task, data, (GDestroyNotify) list_models_data_free);
  if (data->message == NULL)
    {
      g_task_return_new_error (task, GG_MODEL_ERROR, GG_MODEL_ERROR_MODEL_UNAVAILABLE,
                               "The model server URL is invalid");
      return;
    }
  if (settings->api_key != NULL)
    {
      g_autofree char *auth = g_strconcat ("Bearer ", settings->api_key, NULL);
      soup_message_headers_replace (soup_message_get_request_headers (data->message),
                                    "Authorization", auth);
      explicit_bzero (auth, strlen (auth));
    }
  soup_session_send_and_read_async (self->session, data->message, G_PRIORITY_DEFAULT,
                                    cancellable, on_models_read, g_steal_pointer (&task));
}

/**
 * gg_openai_client_list_models_finish:
 * @self: a client
 * @result: the result given to the callback
 * @error: return location for a %GG_MODEL_ERROR
 *
 * Returns: (transfer full): the served model ids, or %NULL with @error set
 */
GStrv
gg_openai_client_list_models_finish (GgOpenaiClient  *self,
                                     GAsyncResult    *result,
                                     GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * gg_openai_client_create_model:
 * @self: a client
 * @spec: the model value `{"type": "openai", …}`
 * @error: return location for %G_IO_ERROR_INVALID_ARGUMENT naming the member
 *
 * Returns: (transfer full): a new model, or %NULL with @error set
 */
GgModel *
gg_openai_client_create_model (GgOpenaiClient  *self,
                               JsonObject      *spec,
                               GError         **error)
{
  GgOpenaiSettings settings;
  GgModel *model = NULL;

  gg_openai_settings_copy (&settings, &self->defaults);
  if (gg_openai_settings_apply_spec (&settings, spec, self->defaults.base_url, error))
    model = gg_openai_model_new (self, &settings);
  gg_openai_settings_clear (&settings);
  return model;
}
