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

  if (!gg_host_load_config (host.config, options.config_file, &error) ||
      !apply_overrides (host.config, (const char * const *) options.set_values, &error) ||
      !gg_host_apply_default_model (&host, &error))
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
  disabled = gg_config_get_string_list (host.config, GG_HOST_GATEWAY_GROUP, "disabled-plugins");
  gg_plugin_loader_set_disabled (host.loader, (const char * const *) disabled);

  gg_host_add_plugin_directories (&host, (const char * const *) options.plugin_dirs);
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
  host.tap_socket = gg_config_get_string (host.config, GG_HOST_GATEWAY_GROUP, "tap-socket", NULL);
  {
    gint64 drain_ms = GG_TAP_DRAIN_TIMEOUT_MS;

    if (!gg_config_get_int (host.config, GG_HOST_GATEWAY_GROUP, "tap-drain-timeout-ms", 0, GG_TAP_MAX_DRAIN_TIMEOUT_MS,
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

  gg_host_warn_about_config (&host, (const char * const *) disabled);

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
