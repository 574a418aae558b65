/* gg-main.c: `gamegate`: configuration, plugins, then one of its modes.
 *
 * The host has no per-plugin code: it loads whatever modules it finds,
 * and its subcommands beyond `serve` and `plugins` are the front ends the
 * plugins register.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "gg-cli.h"
#include "gg-tap-client.h"
#include "gg-tap-server.h"
#include "gg-host.h"
#include "gg-sd-notify.h"

#define GATEWAY_GROUP "gateway"

static gboolean verbose;

/* -v shows the debug messages of every gamegate* log domain, which
 * G_MESSAGES_DEBUG (a list of exact domains) cannot express. */
static GLogWriterOutput
log_writer (GLogLevelFlags   log_level,
            const GLogField *fields,
            gsize            n_fields,
            gpointer         user_data)
{
  if (verbose && (log_level & (G_LOG_LEVEL_DEBUG | G_LOG_LEVEL_INFO)) != 0)
    {
      for (gsize i = 0; i < n_fields; i++)
        {
          if (g_strcmp0 (fields[i].key, "GLIB_DOMAIN") == 0 && fields[i].length < 0 &&
              g_str_has_prefix (fields[i].value, "gamegate"))
            return g_log_writer_standard_streams (log_level, fields, n_fields, user_data);
        }
    }
  return g_log_writer_default (log_level, fields, n_fields, user_data);
}

static void
print_error (const char *message)
{
  g_printerr ("%s: %s\n", g_get_prgname (), message);
}

/* Precedence: --config, else $GAMEGATE_CONFIG, else the user's file (which
 * may be missing). Command-line options override single keys later. */
static gboolean
load_config (GgConfig    *config,
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

/* --set GROUP.KEY=VALUE: the value as it would be written in the file. */
static gboolean
apply_overrides (GgConfig            *config,
                 const char * const  *overrides,
                 GError             **error)
{
  for (guint i = 0; overrides != NULL && overrides[i] != NULL; i++)
    {
      const char *text = overrides[i];
      const char *eq = strchr (text, '=');
      const char *dot = eq != NULL ? memchr (text, '.', eq - text) : NULL;
      g_autofree char *group = NULL;
      g_autofree char *key = NULL;

      if (dot != NULL)
        {
          group = g_strndup (text, dot - text);
          key = g_strndup (dot + 1, eq - (dot + 1));
        }
      if (group == NULL || *group == '\0' || *key == '\0' ||
          strspn (group, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen (group) ||
          strspn (key, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.") != strlen (key) ||
          !g_utf8_validate (eq + 1, -1, NULL))
        {
          g_autofree char *shown = g_utf8_make_valid (text, MIN (strlen (text), 80));

          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("Invalid --set “%s”: expected GROUP.KEY=VALUE"), shown);
          return FALSE;
        }
      gg_config_set_value (config, group, key, eq + 1);
    }
  return TRUE;
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

/* [gateway] default-model: a JSON model value, or a bare type name. */
static gboolean
apply_default_model (GgHost  *host,
                     GError **error)
{
  g_autofree char *text = gg_config_get_string (host->config, GATEWAY_GROUP, "default-model", NULL);
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
          gg_config_set_invalid (host->config, GATEWAY_GROUP, "default-model", error,
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
      gg_config_set_invalid (host->config, GATEWAY_GROUP, "default-model", error,
                             _("expected a model type name or a JSON object with a “type”"));
      return FALSE;
    }
  if (g_str_equal (type, "system"))
    {
      gg_config_set_invalid (host->config, GATEWAY_GROUP, "default-model", error,
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

/* After setup: keys nobody read and groups nobody owns are most likely
 * typos, which the user should hear about. */
static void
warn_about_config (GgHost             *host,
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
      if (g_str_equal (groups[i], GATEWAY_GROUP) || is_plugin_loaded (host, groups[i]))
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
          g_autofree char *location = gg_config_get_location (host->config, GATEWAY_GROUP,
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
      g_autofree char *location = gg_config_get_location (host->config, GATEWAY_GROUP, "default-model");

      g_warning (_("%s: [gateway] default-model: no loaded plugin provides model type “%s”"),
                 location != NULL ? location : "", type);
    }
}

static void
add_plugin_directories (GgHost       *host,
                        GgCliOptions *options)
{
  const char *env_path = g_getenv ("GAMEGATE_PLUGIN_PATH");

  if (env_path != NULL)
    {
      g_auto(GStrv) dirs = g_strsplit (env_path, G_SEARCHPATH_SEPARATOR_S, -1);

      for (guint i = 0; dirs[i] != NULL; i++)
        gg_plugin_loader_add_directory (host->loader, dirs[i], TRUE);
    }
  for (guint i = 0; options->plugin_dirs != NULL && options->plugin_dirs[i] != NULL; i++)
    gg_plugin_loader_add_directory (host->loader, options->plugin_dirs[i], TRUE);
  gg_plugin_loader_add_directory (host->loader, GG_PLUGIN_DIR, FALSE);
}

static int
run (int argc, char **argv)
{
  g_auto(GgCliOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *help = NULL;
  g_auto(GStrv) disabled = NULL;
  GgFrontend *frontend = NULL;
  GgHost host = { 0 };
  gboolean is_builtin;
  int status;

  if (!gg_cli_parse_global ((const char * const *) argv, &options, &error))
    {
      print_error (error->message);
      return GG_EXIT_USAGE;
    }
  if (options.version)
    {
      printf ("gamegate %s (plugin ABI %d.%d)\n", PACKAGE_VERSION, GG_ABI_MAJOR, GG_ABI_MINOR);
      return GG_EXIT_OK;
    }
  verbose = options.verbose;

  host.notify_socket = gg_sd_notify_take_socket ();
  host.config = gg_config_new ();
  host.bus = gg_bus_new ();
  host.loader = gg_plugin_loader_new (host.bus, host.config);

  if (!load_config (host.config, options.config_file, &error) ||
      !apply_overrides (host.config, (const char * const *) options.set_values, &error) ||
      !apply_default_model (&host, &error))
    {
      print_error (error->message);
      status = GG_EXIT_USAGE;
      goto out;
    }
  /* `gamegate tap` talks to a running daemon: it needs no plugin. */
  if (g_strcmp0 (options.command, "tap") == 0)
    {
      status = gg_tap_run (&host, argv);
      goto out;
    }
  disabled = gg_config_get_string_list (host.config, GATEWAY_GROUP, "disabled-plugins");
  gg_plugin_loader_set_disabled (host.loader, (const char * const *) disabled);

  add_plugin_directories (&host, &options);
  if (!gg_plugin_loader_load_all (host.loader, &error))
    {
      print_error (error->message);
      status = error->domain == GG_CONFIG_ERROR ? GG_EXIT_USAGE : GG_EXIT_FAILURE;
      goto out;
    }

  is_builtin = options.command == NULL || g_str_equal (options.command, "serve") ||
               g_str_equal (options.command, "plugins");
  if (!is_builtin)
    {
      frontend = gg_bus_lookup_frontend (host.bus, options.command);
      if (frontend == NULL && !options.help)
        {
          /* Whatever was typed, quote it readable and short. */
          g_autofree char *shown = g_utf8_make_valid (options.command,
                                                      MIN (strlen (options.command), 80));
          g_autofree char *message =
            g_strdup_printf (_("unknown command “%s”; run “%s --help” to list the commands"),
                             shown, g_get_prgname ());
          print_error (message);
          status = GG_EXIT_USAGE;
          goto out;
        }
    }

  if (!gg_cli_parse_full ((const char * const *) argv, host.bus, frontend, &options, &help, &error))
    {
      print_error (error->message);
      status = GG_EXIT_USAGE;
      goto out;
    }
  if (help != NULL)
    {
      printf ("%s", help);
      status = GG_EXIT_OK;
      goto out;
    }

  /* Read before the warning about keys nobody read. */
  host.tap_socket = gg_config_get_string (host.config, GATEWAY_GROUP, "tap-socket", NULL);
  {
    gint64 drain_ms = GG_TAP_DRAIN_TIMEOUT_MS;

    if (!gg_config_get_int (host.config, GATEWAY_GROUP, "tap-drain-timeout-ms", 0, GG_TAP_MAX_DRAIN_TIMEOUT_MS,
                            GG_TAP_DRAIN_TIMEOUT_MS, &drain_ms, &error))
      {
        print_error (error->message);
        status = GG_EXIT_USAGE;
        goto out;
      }
    host.tap_drain_timeout_ms = (guint) drain_ms;
  }

  if (options.print_config)
    {
      /* After every plugin's setup: their reads name the keys and defaults. */
      g_autofree char *text = gg_config_dump_effective (host.config);

      printf ("%s", text);
      status = GG_EXIT_OK;
      goto out;
    }

  warn_about_config (&host, (const char * const *) disabled);

  if (g_strcmp0 (options.command, "plugins") == 0)
    {
      gg_cli_print_plugins (&host);
      status = GG_EXIT_OK;
    }
  else if (is_builtin)
    status = gg_daemon_run (&host);
  else
    status = gg_stdio_run (&host, frontend);

out:
  g_clear_object (&host.loader);
  g_clear_object (&host.bus);
  g_clear_object (&host.config);
  g_free (host.notify_socket);
  g_free (host.tap_socket);
  return status;
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  g_set_prgname ("gamegate");
  /* stdout is for protocol messages (and for --help, --version, plugins). */
  g_log_writer_default_set_use_stderr (TRUE);
  g_log_set_writer_func (log_writer, NULL, NULL);
  /* A client that goes away must be an error on its stream, not a signal. */
  signal (SIGPIPE, SIG_IGN);

  return run (argc, argv);
}
