/* gg-host.c: what every host of the plugins does before and after their
 * setup: read the user's configuration, apply [gateway] default-model,
 * say where plugins are found, warn about configuration nobody read.
 * `gamegate` and libgamegate-oam (which embeds the oam front end in
 * another program) share it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "gg-host.h"

/**
 * gg_host_load_config:
 * @config: the host's configuration
 * @option_file: (nullable): the file named by `--config`
 * @error: a configuration error
 *
 * Precedence: @option_file, else $GAMEGATE_CONFIG, else the user's file
 * (which may be missing). Command-line options override single keys later.
 *
 * Returns: whether the file was read (or there was none)
 */
gboolean
gg_host_load_config (GgConfig    *config,
                     const char  *option_file,
                     GError     **error)
{
  const char *env_file = g_getenv ("GAMEGATE_CONFIG");
  g_autofree char *user_file = NULL;

  if (option_file != NULL)
    return gg_config_load_file (config, option_file, error);
  if (env_file != NULL && *env_file != '\0')
    return gg_config_load_file (config, env_file, error);

  user_file = g_build_filename (g_get_user_config_dir (), "gamegate", "gamegate.conf", NULL);
  if (!g_file_test (user_file, G_FILE_TEST_EXISTS))
    {
      g_debug ("No configuration file %s", user_file);
      return TRUE;
    }
  return gg_config_load_file (config, user_file, error);
}

/* The model type a model value names, or NULL. */
static const char *
spec_type (JsonNode *spec)
{
  if (spec == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_OBJECT (spec))
    {
      JsonNode *member = json_object_get_member (json_node_get_object (spec), "type");

      if (member != NULL && JSON_NODE_HOLDS_VALUE (member) &&
          json_node_get_value_type (member) == G_TYPE_STRING)
        return json_node_get_string (member);
      return NULL;
    }
  if (JSON_NODE_HOLDS_VALUE (spec) && json_node_get_value_type (spec) == G_TYPE_STRING)
    return json_node_get_string (spec);
  return NULL;
}

/**
 * gg_host_apply_default_model:
 * @host: the host, its configuration read
 * @error: a configuration error
 *
 * [gateway] default-model: a JSON model value, or a bare type name.
 *
 * Returns: whether the value (if any) is usable
 */
gboolean
gg_host_apply_default_model (GgHost  *host,
                             GError **error)
{
  g_autofree char *text = gg_config_get_string (host->config, GG_HOST_GATEWAY_GROUP, "default-model", NULL);
  g_autoptr(JsonNode) spec = NULL;
  g_autoptr(GError) local_error = NULL;
  const char *type = NULL;

  if (text == NULL)
    return TRUE;
  g_strstrip (text);

  if (text[0] == '{' || text[0] == '"' || text[0] == '[')
    {
      /* With the depth limit: the value is copied and printed recursively. */
      spec = gg_json_parse (text, -1, GG_JSON_DEFAULT_MAX_DEPTH, &local_error);
      if (spec == NULL)
        {
          gg_config_set_invalid (host->config, GG_HOST_GATEWAY_GROUP, "default-model", error,
                                 _("not valid JSON (%s)"), local_error->message);
          return FALSE;
        }
      type = spec_type (spec);
    }
  else
    {
      spec = json_node_init_string (json_node_alloc (), text);
      type = json_node_get_string (spec);
    }

  if (type == NULL || *type == '\0' || strspn (type, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen (type))
    {
      gg_config_set_invalid (host->config, GG_HOST_GATEWAY_GROUP, "default-model", error,
                             _("expected a model type name or a JSON object with a “type”"));
      return FALSE;
    }
  if (g_str_equal (type, "system"))
    {
      gg_config_set_invalid (host->config, GG_HOST_GATEWAY_GROUP, "default-model", error,
                             _("“system” stands for the default model itself"));
      return FALSE;
    }
  gg_bus_set_default_model (host->bus, spec);
  return TRUE;
}

static gboolean
is_plugin_loaded (GgHost     *host,
                  const char *name)
{
  GPtrArray *plugins = gg_plugin_loader_get_plugins (host->loader);

  for (guint i = 0; i < plugins->len; i++)
    if (g_strcmp0 (gg_plugin_get_name (g_ptr_array_index (plugins, i)), name) == 0)
      return TRUE;
  return FALSE;
}

/**
 * gg_host_warn_about_config:
 * @host: the host, its plugins set up
 * @disabled: (nullable): [gateway] disabled-plugins
 *
 * After setup: keys nobody read and groups nobody owns are most likely
 * typos, which the user should hear about (warnings).
 */
void
gg_host_warn_about_config (GgHost             *host,
                           const char * const *disabled)
{
  g_auto(GStrv) groups = gg_config_list_groups (host->config);
  g_auto(GStrv) unread = NULL;
  const char *type = spec_type (gg_bus_get_default_model (host->bus));

  for (guint i = 0; groups[i] != NULL; i++)
    {
      g_autofree char *location = NULL;

      if (gg_plugin_loader_is_disabled (host->loader, groups[i]))
        {
          /* Settings of a disabled plugin are kept for when it comes back. */
          g_auto(GStrv) keys = gg_config_list_keys (host->config, groups[i]);

          for (guint k = 0; keys[k] != NULL; k++)
            gg_config_has_key (host->config, groups[i], keys[k]);
          continue;
        }
      if (g_str_equal (groups[i], GG_HOST_GATEWAY_GROUP) || is_plugin_loaded (host, groups[i]))
        continue;
      location = gg_config_get_location (host->config, groups[i], NULL);
      g_warning (_("%s: [%s] names no loaded plugin"), location, groups[i]);
    }

  for (guint i = 0; disabled != NULL && disabled[i] != NULL; i++)
    {
      g_autofree char *name = g_strstrip (g_strdup (disabled[i]));
      GPtrArray *refusals = gg_plugin_loader_get_refusals (host->loader);
      gboolean found = *name == '\0';

      for (guint r = 0; r < refusals->len && !found; r++)
        {
          GgPluginRefusal *refusal = g_ptr_array_index (refusals, r);

          found = refusal->disabled && g_strcmp0 (refusal->name, name) == 0;
        }
      if (!found)
        {
          g_autofree char *location = gg_config_get_location (host->config, GG_HOST_GATEWAY_GROUP,
                                                              "disabled-plugins");

          g_warning (_("%s: [gateway] disabled-plugins: no plugin named “%s” was found"),
                     location, name);
        }
    }

  unread = gg_config_list_unread (host->config);
  for (guint i = 0; unread[i] != NULL; i++)
    g_warning ("%s", unread[i]);

  if (type != NULL && !gg_bus_has_model_type (host->bus, type))
    {
      g_autofree char *location = gg_config_get_location (host->config, GG_HOST_GATEWAY_GROUP, "default-model");

      g_warning (_("%s: [gateway] default-model: no loaded plugin provides model type “%s”"),
                 location != NULL ? location : "", type);
    }
}

/**
 * gg_host_add_plugin_directories:
 * @host: the host
 * @extra: (nullable): directories named on the command line
 *
 * Where plugins are searched, in order: $GAMEGATE_PLUGIN_PATH, @extra, the
 * installed plugin directory.
 */
void
gg_host_add_plugin_directories (GgHost             *host,
                                const char * const *extra)
{
  const char *env_path = g_getenv ("GAMEGATE_PLUGIN_PATH");

  if (env_path != NULL)
    {
      g_auto(GStrv) dirs = g_strsplit (env_path, G_SEARCHPATH_SEPARATOR_S, -1);

      for (guint i = 0; dirs[i] != NULL; i++)
        gg_plugin_loader_add_directory (host->loader, dirs[i], TRUE);
    }
  for (guint i = 0; extra != NULL && extra[i] != NULL; i++)
    gg_plugin_loader_add_directory (host->loader, extra[i], TRUE);
  gg_plugin_loader_add_directory (host->loader, GG_PLUGIN_DIR, FALSE);
}
