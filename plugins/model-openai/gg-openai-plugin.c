/* gg-openai-plugin.c: the model-openai plugin entry: reads the
 * `[model-openai]` group and registers the model type "openai".
 *
 *   [model-openai]
 *   base-url=http://127.0.0.1:8080/v1
 *   model=qwen2.5-7b-instruct
 *   api-key-env=OPENAI_API_KEY      # or api-key-file=~/.config/gamegate/openai.key
 *   timeout=120
 *   max-concurrent-requests=4
 *   retries=2
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <string.h>

#include "gg-openai-private.h"

#define GROUP "model-openai"
#define DEFAULT_BASE_URL "http://127.0.0.1:8080/v1"
#define MAX_KEY_FILE 4096

static GgModel *
create_model (JsonObject  *spec,
              gpointer     user_data,
              GError     **error)
{
  return gg_openai_client_create_model (GG_OPENAI_CLIENT (user_data), spec, error);
}

/* The key file is read once at startup, never while serving. */
static char *
read_key_file (GgConfig    *config,
               const char  *path,
               GError     **error)
{
  g_autofree char *expanded = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize length = 0;
  char *key;

  if (g_str_has_prefix (path, "~/"))
    expanded = g_build_filename (g_get_home_dir (), path + 2, NULL);
  else
    expanded = g_strdup (path);
  if (!g_file_get_contents (expanded, &contents, &length, &local_error))
    {
      /* The message names the file, never its contents. */
      gg_config_set_invalid (config, GROUP, "api-key-file", error,
                             _("cannot read the API key file: %s"), local_error->message);
      return NULL;
    }
  if (length > MAX_KEY_FILE || memchr (contents, '\0', length) != NULL)
    {
      explicit_bzero (contents, length);
      gg_config_set_invalid (config, GROUP, "api-key-file", error,
                             _("the API key file does not hold a key"));
      return NULL;
    }
  key = g_strdup (g_strstrip (contents));
  explicit_bzero (contents, length);
  if (*key == '\0')
    {
      g_free (key);
      gg_config_set_invalid (config, GROUP, "api-key-file", error,
                             _("the API key file is empty"));
      return NULL;
    }
  return key;
}

static gboolean
read_settings (GgConfig          *config,
               GgOpenaiSettings  *settings,
               gint64            *max_concurrent,
               GError           **error)
{
  g_autofree char *url = NULL;
  g_autofree char *key_env = NULL;
  g_autofree char *key_file = NULL;
  g_autoptr(GError) url_error = NULL;
  gint64 timeout;

  memset (settings, 0, sizeof *settings);
  settings->temperature = -1;

  url = gg_config_get_string (config, GROUP, "base-url", DEFAULT_BASE_URL);
  settings->base_url = gg_openai_normalize_url (url, &url_error);
  if (settings->base_url == NULL)
    {
      gg_config_set_invalid (config, GROUP, "base-url", error, "%s", url_error->message);
      return FALSE;
    }
  settings->model = gg_config_get_string (config, GROUP, "model", NULL);
  if (!gg_config_get_int (config, GROUP, "timeout", 1, 86400, 300, &timeout, error) ||
      !gg_config_get_int (config, GROUP, "max-concurrent-requests", 1, 1024, 4, max_concurrent, error) ||
      !gg_config_get_int (config, GROUP, "retries", 0, 10, 2, &settings->retries, error) ||
      !gg_config_get_int (config, GROUP, "retry-delay-ms", 1, 60000, 500, &settings->retry_base_ms, error) ||
      !gg_config_get_int (config, GROUP, "context-size", 0, G_MAXINT32, 0, &settings->context_size, error) ||
      !gg_config_get_int (config, GROUP, "max-tokens", 0, G_MAXINT32, 0, &settings->max_tokens, error) ||
      !gg_config_get_double (config, GROUP, "temperature", -1, 2, -1, &settings->temperature, error))
    return FALSE;
  settings->timeout_s = timeout;
  /* OpenAI's own API rejects top_k; local servers take it. */
  if (!gg_config_get_boolean (config, GROUP, "accepts-top-k",
                              strstr (settings->base_url, "api.openai.com") == NULL,
                              &settings->accepts_top_k, error))
    return FALSE;

  key_env = gg_config_get_string (config, GROUP, "api-key-env", NULL);
  key_file = gg_config_get_string (config, GROUP, "api-key-file", NULL);
  if (key_env != NULL && key_file != NULL)
    {
      gg_config_set_invalid (config, GROUP, "api-key-file", error,
                             _("set api-key-env or api-key-file, not both"));
      return FALSE;
    }
  if (key_env != NULL)
    {
      const char *value = g_getenv (key_env);
      if (value != NULL && *value != '\0')
        settings->api_key = g_strdup (value);
      else
        g_warning (_("[%s] api-key-env: the environment variable %s is not set; "
                     "requests go without an API key"), GROUP, key_env);
    }
  else if (key_file != NULL)
    {
      settings->api_key = read_key_file (config, key_file, error);
      if (settings->api_key == NULL)
        return FALSE;
    }
  return TRUE;
}

static gboolean
openai_setup (GgPlugin  *plugin,
              GError   **error)
{
  GgConfig *config = gg_plugin_get_config (plugin);
  g_autoptr(GgConfig) empty = NULL;
  g_autoptr(GgOpenaiClient) client = NULL;
  GgOpenaiSettings settings;
  gint64 max_concurrent = 4;

  if (config == NULL)
    config = empty = gg_config_new ();
  if (!read_settings (config, &settings, &max_concurrent, error))
    {
      gg_openai_settings_clear (&settings);
      return FALSE;
    }
  client = gg_openai_client_new (&settings, max_concurrent);
  gg_openai_settings_clear (&settings);
  /* On failure the bus does not take the client: the autoptr frees it. */
  if (!gg_bus_register_model_type (gg_plugin_get_bus (plugin), "openai", create_model,
                                   client, g_object_unref, error))
    return FALSE;
  g_steal_pointer (&client);
  return TRUE;
}

GG_PLUGIN_DEFINE ("model-openai", PACKAGE_VERSION,
                  "Models served by any OpenAI-compatible server (llama.cpp, Ollama, vLLM, hosted)",
                  "LGPL-2.1-or-later", openai_setup)
