/* gg-cli.c: the command line of `gamegate`.
 *
 * Parsing happens twice. The first pass picks out only what is needed to
 * load the configuration and the plugins (--config, --plugin-dir, -v,
 * --version) and leaves everything else alone. Once the plugins are loaded
 * the front ends are known, so the second pass parses the whole command line
 * strictly, with the options of the chosen front end added.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-cli.h"

#include <glib/gi18n-lib.h>
#include <stdio.h>
#include <string.h>

/**
 * gg_cli_options_clear:
 * @options: parsed options
 *
 * Frees what @options holds.
 */
void
gg_cli_options_clear (GgCliOptions *options)
{
  g_clear_pointer (&options->config_file, g_free);
  g_clear_pointer (&options->plugin_dirs, g_strfreev);
  g_clear_pointer (&options->set_values, g_strfreev);
  g_clear_pointer (&options->command, g_free);
}

static void
fill_global_entries (GOptionEntry *entries,
                     GgCliOptions *options)
{
  const GOptionEntry global[] = {
    { "config", 0, 0, G_OPTION_ARG_FILENAME, &options->config_file,
      N_("Read the configuration from FILE"), N_("FILE") },
    { "plugin-dir", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &options->plugin_dirs,
      N_("Also search DIR for plugins (repeatable)"), N_("DIR") },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &options->set_values,
      N_("Override one configuration key (repeatable)"), N_("GROUP.KEY=VALUE") },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &options->verbose,
      N_("Print debug messages of gamegate and its plugins"), NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &options->version,
      N_("Print the version and exit"), NULL },
    { "print-config", 0, 0, G_OPTION_ARG_NONE, &options->print_config,
      N_("Print the effective configuration, each value with its origin, and exit"), NULL },
    { "help", 'h', 0, G_OPTION_ARG_NONE, &options->help,
      N_("Show this help and exit"), NULL },
    G_OPTION_ENTRY_NULL
  };

  memcpy (entries, global, sizeof global);
}

#define N_GLOBAL_ENTRIES 8

/* The first argument that is not an option, if any. */
static char *
find_command (char **args)
{
  for (guint i = 1; args[i] != NULL; i++)
    {
      if (g_str_equal (args[i], "--"))
        return args[i + 1] != NULL ? g_strdup (args[i + 1]) : NULL;
      if (args[i][0] != '-')
        return g_strdup (args[i]);
    }
  return NULL;
}

/**
 * gg_cli_parse_global:
 * @argv: the full command line
 * @options: (out caller-allocates): filled with the global options
 * @error: return location for a #GError
 *
 * First pass: global options before or after the subcommand; everything
 * it does not know is left for gg_cli_parse_full().
 *
 * Returns: %TRUE on success
 */
gboolean
gg_cli_parse_global (const char * const *argv,
                     GgCliOptions       *options,
                     GError            **error)
{
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_auto(GStrv) args = g_strdupv ((char **) argv);
  GOptionEntry entries[N_GLOBAL_ENTRIES];

  fill_global_entries (entries, options);
  g_option_context_set_help_enabled (context, FALSE);
  g_option_context_set_ignore_unknown_options (context, TRUE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse_strv (context, &args, error))
    return FALSE;

  options->command = find_command (args);
  return TRUE;
}

static char *
commands_summary (GgBus *bus)
{
  g_autoptr(GPtrArray) frontends = gg_bus_list_frontends (bus);
  g_autoptr(GString) text = g_string_new (_("Commands:"));
  struct { const char *name; const char *summary; } builtin[] = {
    { "serve", _("Run the daemon: every front end on its socket (the default)") },
    { "plugins", _("List the plugins found, and why any was refused") },
    { "tap", _("Watch what crosses the bus of a running daemon") },
  };
  int width = 8;

  for (guint i = 0; i < frontends->len; i++)
    width = MAX (width, (int) strlen (gg_frontend_get_name (g_ptr_array_index (frontends, i))));

  for (guint i = 0; i < G_N_ELEMENTS (builtin); i++)
    g_string_append_printf (text, "\n  %-*s  %s", width, builtin[i].name, builtin[i].summary);
  for (guint i = 0; i < frontends->len; i++)
    {
      GgFrontend *frontend = g_ptr_array_index (frontends, i);
      const char *summary = gg_frontend_get_summary (frontend);

      g_string_append_printf (text, "\n  %-*s  %s", width, gg_frontend_get_name (frontend),
                              summary != NULL ? summary : "");
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/**
 * gg_cli_parse_full:
 * @argv: the full command line
 * @bus: the bus, whose front ends are the subcommands
 * @frontend: (nullable): the front end chosen by the subcommand
 * @options: the result of gg_cli_parse_global(); its help flag is updated
 * @help: (out) (optional): the help text when --help was given
 * @error: return location for a #GError
 *
 * Second pass: the whole command line, strictly, with @frontend's options.
 *
 * Returns: %TRUE on success
 */
gboolean
gg_cli_parse_full (const char * const *argv,
                   GgBus              *bus,
                   GgFrontend         *frontend,
                   GgCliOptions       *options,
                   char              **help,
                   GError            **error)
{
  g_autoptr(GOptionContext) context = g_option_context_new (_("[COMMAND]"));
  g_auto(GgCliOptions) again = { 0 };
  g_auto(GStrv) args = g_strdupv ((char **) argv);
  g_autofree char *summary = commands_summary (bus);
  GOptionEntry entries[N_GLOBAL_ENTRIES];
  GOptionGroup *main_group;
  gboolean seen_command = FALSE;

  /* The globals were taken in the first pass; parse them again into scratch
   * space so that they are accepted (and shown by --help). */
  fill_global_entries (entries, &again);
  g_option_context_set_help_enabled (context, FALSE);
  g_option_context_set_summary (context, summary);
  main_group = g_option_group_new ("gamegate", _("Global options:"), _("Show global options"),
                                   NULL, NULL);
  g_option_group_add_entries (main_group, entries);
  g_option_group_set_translation_domain (main_group, GETTEXT_PACKAGE);
  g_option_context_set_main_group (context, main_group);
  if (frontend != NULL)
    {
      GOptionGroup *group = gg_frontend_get_option_group (frontend);

      if (group != NULL)
        g_option_context_add_group (context, group);
    }

  if (!g_option_context_parse_strv (context, &args, error))
    return FALSE;
  options->help |= again.help;

  if (help != NULL && options->help)
    *help = g_option_context_get_help (context, FALSE, NULL);
  if (options->help)
    return TRUE;

  for (guint i = 1; args[i] != NULL; i++)
    {
      if (!seen_command && g_strcmp0 (args[i], options->command) == 0)
        {
          seen_command = TRUE;
          continue;
        }
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   _("Unexpected argument “%s”"), args[i]);
      return FALSE;
    }
  return TRUE;
}

/**
 * gg_cli_print_plugins:
 * @host: the host, with its plugins loaded
 *
 * Prints `gamegate plugins` on stdout: one block per plugin, every refused
 * module with its reason, the front ends, model types and default model.
 */
void
gg_cli_print_plugins (GgHost *host)
{
  GPtrArray *plugins = gg_plugin_loader_get_plugins (host->loader);
  GPtrArray *refusals = gg_plugin_loader_get_refusals (host->loader);
  g_autoptr(GPtrArray) frontends = gg_bus_list_frontends (host->bus);
  g_auto(GStrv) model_types = gg_bus_list_model_types (host->bus);
  JsonNode *default_model = gg_bus_get_default_model (host->bus);
  g_autofree char *default_text = NULL;
  int width = 0;

  if (plugins->len == 0)
    printf ("%s\n\n", _("No plugins loaded."));
  for (guint i = 0; i < plugins->len; i++)
    {
      GgPlugin *plugin = g_ptr_array_index (plugins, i);

      printf ("%s\n", gg_plugin_get_name (plugin));
      printf ("  %s: %s\n", _("version"), gg_plugin_get_version (plugin));
      printf ("  %s: %s\n", _("licence"), gg_plugin_get_license (plugin));
      printf ("  %s: %s\n", _("path"), gg_plugin_get_path (plugin));
      printf ("  %s: %s\n\n", _("description"), gg_plugin_get_description (plugin));
    }

  for (guint i = 0; i < refusals->len; i++)
    {
      GgPluginRefusal *refusal = g_ptr_array_index (refusals, i);

      printf ("%s: %s\n", refusal->disabled ? _("disabled") : _("refused"), refusal->path);
      printf ("  %s: %s\n\n", _("reason"), refusal->reason);
    }

  /* Front ends with their summaries, like `gamegate --help` lists them. */
  printf ("%s:", _("front ends"));
  if (frontends->len == 0)
    printf (" %s", _("(none)"));
  for (guint i = 0; i < frontends->len; i++)
    width = MAX (width, (int) strlen (gg_frontend_get_name (g_ptr_array_index (frontends, i))));
  for (guint i = 0; i < frontends->len; i++)
    {
      GgFrontend *frontend = g_ptr_array_index (frontends, i);
      const char *summary = gg_frontend_get_summary (frontend);

      printf ("\n  %-*s  %s", width, gg_frontend_get_name (frontend), summary != NULL ? summary : "");
    }
  printf ("\n%s:", _("model types"));
  if (model_types == NULL || model_types[0] == NULL)
    printf (" %s", _("(none)"));
  for (guint i = 0; model_types != NULL && model_types[i] != NULL; i++)
    printf (" %s", model_types[i]);
  if (default_model != NULL)
    default_text = json_to_string (default_model, FALSE);
  printf ("\n%s: %s\n", _("default model"),
          default_text != NULL ? default_text : _("(none)"));
  fflush (stdout);
}
