/* gg-openai-settings.c: a model's settings: copies, URL checks, and the
 * members of a per-request model value put over the `[model-openai]` group.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "gg-openai-private.h"

/**
 * gg_openai_settings_copy:
 * @dest: (out caller-allocates): receives a copy
 * @src: settings
 */
void
gg_openai_settings_copy (GgOpenaiSettings       *dest,
                         const GgOpenaiSettings *src)
{
  *dest = *src;
  dest->base_url = g_strdup (src->base_url);
  dest->model = g_strdup (src->model);
  dest->api_key = g_strdup (src->api_key);
}

/**
 * gg_openai_settings_clear:
 * @settings: settings to free the members of; the key is wiped first
 */
void
gg_openai_settings_clear (GgOpenaiSettings *settings)
{
  g_clear_pointer (&settings->base_url, g_free);
  g_clear_pointer (&settings->model, g_free);
  if (settings->api_key != NULL)
    explicit_bzero (settings->api_key, strlen (settings->api_key));
  g_clear_pointer (&settings->api_key, g_free);
}

/**
 * gg_openai_normalize_url:
 * @url: an API root such as `http://127.0.0.1:8080/v1/`
 * @error: return location for a #GError
 *
 * Returns: (transfer full): @url without trailing slashes, or %NULL when
 *   it is not an absolute http(s) URL without query or fragment
 */
char *
gg_openai_normalize_url (const char  *url,
                         GError     **error)
{
  g_autoptr(GUri) uri = NULL;
  const char *scheme;
  g_autofree char *text = NULL;
  gsize len;

  if (url == NULL || *url == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "is empty");
      return NULL;
    }
  uri = g_uri_parse (url, G_URI_FLAGS_ENCODED, NULL);
  if (uri == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "is not a URL");
      return NULL;
    }
  scheme = g_uri_get_scheme (uri);
  if ((g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0) ||
      g_uri_get_host (uri) == NULL || *g_uri_get_host (uri) == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "must be an http:// or https:// URL with a host");
      return NULL;
    }
  if (g_uri_get_query (uri) != NULL || g_uri_get_fragment (uri) != NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "must not have a query or a fragment");
      return NULL;
    }
  text = g_strdup (url);
  len = strlen (text);
  while (len > 0 && text[len - 1] == '/')
    text[--len] = '\0';
  return g_steal_pointer (&text);
}

/**
 * gg_openai_redact_url:
 * @url: (nullable): a URL
 *
 * Returns: (transfer full): @url without any user or password, for
 *   messages and logs
 */
char *
gg_openai_redact_url (const char *url)
{
  g_autoptr(GUri) uri = NULL;

  if (url == NULL)
    return g_strdup ("(no URL)");
  uri = g_uri_parse (url, G_URI_FLAGS_ENCODED, NULL);
  if (uri == NULL)
    return g_strdup ("(invalid URL)");
  return g_uri_join (G_URI_FLAGS_ENCODED, g_uri_get_scheme (uri), NULL, g_uri_get_host (uri),
                     g_uri_get_port (uri), g_uri_get_path (uri), NULL, NULL);
}

/* ---- per-request model values ----------------------------------------- */

static gboolean
spec_error (GError    **error,
            const char *member,
            const char *message)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "model.%s: %s", member, message);
  return FALSE;
}

static gboolean
number_member (JsonNode *node,
               double   *out)
{
  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
    case G_TYPE_DOUBLE:
      *out = json_node_get_double (node);
      return isfinite (*out);
    default:
      return FALSE;
    }
}

static gboolean
int_member (JsonNode *node,
            gint64   *out)
{
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  *out = json_node_get_int (node);
  return TRUE;
}

/* Only variables that look like they hold a key may be named from a
 * request: a model value must not turn into a way of sending, say, $HOME
 * or a session token to a server of the caller's choice. */
static gboolean
is_key_variable_name (const char *name)
{
  if (name == NULL || *name == '\0' || strlen (name) > 128)
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!(g_ascii_isupper (*p) || g_ascii_isdigit (*p) || *p == '_'))
      return FALSE;
  return !g_ascii_isdigit (*name) &&
         (g_str_has_suffix (name, "_API_KEY") || g_str_has_suffix (name, "_KEY") ||
          g_str_has_suffix (name, "_TOKEN"));
}

static void
wipe_key (char **key)
{
  if (*key == NULL)
    return;
  explicit_bzero (*key, strlen (*key));
  g_clear_pointer (key, g_free);
}

/**
 * gg_openai_settings_apply_spec:
 * @settings: a model's settings, the configured ones so far
 * @spec: the model value `{"type": "openai", …}`
 * @configured_url: the `[model-openai]` base URL
 * @error: return location for %G_IO_ERROR_INVALID_ARGUMENT naming the member
 *
 * Puts a request's model members over the configured settings.
 *
 * Returns: %TRUE when @spec was valid
 */
gboolean
gg_openai_settings_apply_spec (GgOpenaiSettings  *settings,
            JsonObject        *spec,
            const char        *configured_url,
            GError           **error)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;
  gboolean url_changed = FALSE, key_given = FALSE;

  json_object_iter_init_ordered (&iter, spec);
  while (json_object_iter_next_ordered (&iter, &name, &member))
    {
      gboolean is_string = JSON_NODE_HOLDS_VALUE (member) &&
                           json_node_get_value_type (member) == G_TYPE_STRING;
      double number;
      gint64 integer;

      if (g_str_equal (name, "type"))
        continue;
      else if (g_str_equal (name, "baseUrl"))
        {
          g_autoptr(GError) url_error = NULL;
          char *url;

          if (!is_string)
            return spec_error (error, name, "must be a string");
          url = gg_openai_normalize_url (json_node_get_string (member), &url_error);
          if (url == NULL)
            return spec_error (error, name, url_error->message);
          g_free (settings->base_url);
          settings->base_url = url;
          url_changed = g_strcmp0 (url, configured_url) != 0;
        }
      else if (g_str_equal (name, "model"))
        {
          if (!is_string || *json_node_get_string (member) == '\0')
            return spec_error (error, name, "must be a non-empty string");
          g_free (settings->model);
          settings->model = g_strdup (json_node_get_string (member));
        }
      else if (g_str_equal (name, "apiKeyEnv"))
        {
          const char *value;

          if (!is_string || !is_key_variable_name (json_node_get_string (member)))
            return spec_error (error, name, "must name an environment variable ending in "
                                            "_API_KEY, _KEY or _TOKEN");
          value = g_getenv (json_node_get_string (member));
          if (value == NULL || *value == '\0')
            return spec_error (error, name, "the environment variable is not set");
          wipe_key (&settings->api_key);
          settings->api_key = g_strdup (value);
          key_given = TRUE;
        }
      else if (g_str_equal (name, "temperature"))
        {
          if (!number_member (member, &number) || number < 0 || number > 2)
            return spec_error (error, name, "must be a number from 0 to 2");
          settings->temperature = number;
        }
      else if (g_str_equal (name, "maxTokens"))
        {
          if (!int_member (member, &integer) || integer < 1)
            return spec_error (error, name, "must be an integer ≥ 1");
          settings->max_tokens = integer;
        }
      else if (g_str_equal (name, "contextSize"))
        {
          if (!int_member (member, &integer) || integer < 1 || integer > G_MAXINT32)
            return spec_error (error, name, "must be a positive integer");
          settings->context_size = integer;
        }
      else if (g_str_equal (name, "timeoutSeconds"))
        {
          if (!number_member (member, &number) || number <= 0 || number > 86400)
            return spec_error (error, name, "must be a number above 0 and at most 86400");
          settings->timeout_s = number;
        }
      else if (g_str_equal (name, "retries"))
        {
          if (!int_member (member, &integer) || integer < 0 || integer > 10)
            return spec_error (error, name, "must be an integer from 0 to 10");
          settings->retries = integer;
        }
      else if (g_str_equal (name, "acceptsTopK"))
        {
          if (!JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_BOOLEAN)
            return spec_error (error, name, "must be a boolean");
          settings->accepts_top_k = json_node_get_boolean (member);
        }
      else
        {
          g_autofree char *message = g_strdup_printf ("unknown member (known: baseUrl, model, "
                                                      "apiKeyEnv, temperature, maxTokens, "
                                                      "contextSize, timeoutSeconds, retries, "
                                                      "acceptsTopK)");
          return spec_error (error, name, message);
        }
    }

  /* The configured key belongs to the configured server: never send it to
   * a URL a request chose. */
  if (url_changed && !key_given)
    wipe_key (&settings->api_key);
  if (settings->model == NULL || *settings->model == '\0')
    return spec_error (error, "model", "no model name given (set it here or as 'model' in "
                                       "the [model-openai] group)");
  return TRUE;
}
