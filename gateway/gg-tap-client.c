/* gg-tap-client.c: `gamegate tap`: connects to a running `gamegate serve`'s
 * bus tap and prints what crosses the bus, live, one line per record:
 * readable by a person, or the records themselves as JSON lines (--json).
 * The filters go to the server on connect, so that what is filtered out is
 * never even queued, and are applied here again for the records that were
 * on their way before the server read them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gunixsocketaddress.h>
#include <glib/gi18n-lib.h>
#include <stdio.h>
#include <string.h>

#include "gg-tap-client.h"
#include "gg-tap-server.h"

/* How much of a payload a person sees on a line. */
#define SHOWN_PAYLOAD 120

static char *
format_time (const char *iso)
{
  g_autoptr(GDateTime) utc = iso != NULL ? g_date_time_new_from_iso8601 (iso, NULL) : NULL;
  g_autoptr(GDateTime) local = utc != NULL ? g_date_time_to_local (utc) : NULL;
  g_autofree char *seconds = NULL;

  if (local == NULL)
    return g_strdup ("--:--:--.---");
  seconds = g_date_time_format (local, "%H:%M:%S");
  return g_strdup_printf ("%s.%03d", seconds, g_date_time_get_microsecond (local) / 1000);
}

static const char *
string_member (JsonObject *record,
               const char *name)
{
  return json_object_get_string_member_with_default (record, name, NULL);
}

/* `12:01:03.114 mcp → gabp:rimworld tool-call inventory/get [mcp-3] {…}` */
static char *
format_record (JsonObject *record)
{
  g_autoptr(GString) line = g_string_new (NULL);
  g_autofree char *time = format_time (string_member (record, "time"));
  const char *kind = string_member (record, "kind");
  const char *plugin = string_member (record, "plugin");
  const char *target = string_member (record, "target");
  const char *session = string_member (record, "session");
  const char *name = string_member (record, "name");
  const char *correlation = string_member (record, "correlation");
  JsonNode *payload = json_object_get_member (record, "payload");

  if (g_strcmp0 (kind, "dropped") == 0)
    {
      /* unsigned long, not G_GINT64_FORMAT: xgettext cannot see through
       * a format macro and would cut the message at it. */
      gulong count = (gulong) MAX (json_object_get_int_member_with_default (record, "count", 0), 0);

      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "(%lu record dropped: this reader was too slow)",
                                           "(%lu records dropped: this reader was too slow)", count), count);
    }
  g_string_append_printf (line, "%s %s", time, plugin != NULL ? plugin : "-");
  if (target != NULL)
    g_string_append_printf (line, " %s %s",
                            g_strcmp0 (kind, "tool-result") == 0 || g_strcmp0 (kind, "target-event") == 0 ?
                            "←" : "→", target);
  if (session != NULL)
    g_string_append_printf (line, " (%s)", session);
  g_string_append_printf (line, " %s", kind != NULL ? kind : "?");
  if (name != NULL)
    g_string_append_printf (line, " %s", name);
  if (json_object_has_member (record, "durationUs"))
    {
      g_string_append_printf (line, " %.2f ms",
                              (double) json_object_get_int_member (record, "durationUs") / 1000.0);
      if (json_object_get_boolean_member_with_default (record, "ok", TRUE))
        g_string_append_printf (line, " %s", _("ok"));
    }
  if (!json_object_get_boolean_member_with_default (record, "ok", TRUE))
    g_string_append_printf (line, " %s: %s", _("error"), string_member (record, "error"));
  if (correlation != NULL)
    g_string_append_printf (line, " [%s]", correlation);
  if (payload != NULL)
    {
      g_autofree char *text = JSON_NODE_HOLDS_VALUE (payload) &&
                              json_node_get_value_type (payload) == G_TYPE_STRING ?
                              g_strdup (json_node_get_string (payload)) : json_to_string (payload, FALSE);

      if (g_utf8_strlen (text, -1) > SHOWN_PAYLOAD)
        {
          char *end = g_utf8_offset_to_pointer (text, SHOWN_PAYLOAD);
          *end = '\0';
          g_string_append_printf (line, " %s…", text);
        }
      else
        g_string_append_printf (line, " %s", text);
    }
  return g_string_free (g_steal_pointer (&line), FALSE);
}

static char *
filter_line (const GgTapFilter *filter)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  if (filter->plugin != NULL)
    json_object_set_string_member (object, "plugin", filter->plugin);
  if (filter->target != NULL)
    json_object_set_string_member (object, "target", filter->target);
  if (filter->session != NULL)
    json_object_set_string_member (object, "session", filter->session);
  if (filter->errors)
    json_object_set_boolean_member (object, "errors", TRUE);
  json_node_set_object (node, object);
  g_autofree char *text = json_to_string (node, FALSE);
  return g_strconcat (text, "\n", NULL);
}

/**
 * gg_tap_run:
 * @host: the host, with its configuration read (no plugins needed)
 * @argv: the whole command line
 *
 * Returns: the exit status
 */
int
gg_tap_run (GgHost *host,
            char  **argv)
{
  g_auto(GgTapFilter) filter = { 0 };
  g_autofree char *socket_path = NULL;
  g_autofree char *config_file = NULL;
  g_auto(GStrv) plugin_dirs = NULL, set_values = NULL;
  gboolean json = FALSE, verbose = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the records as JSON lines"), NULL },
    { "plugin", 0, 0, G_OPTION_ARG_STRING, &filter.plugin,
      N_("Only records of the front end PLUGIN"), N_("PLUGIN") },
    { "target", 0, 0, G_OPTION_ARG_STRING, &filter.target,
      N_("Only records about the target ID"), N_("ID") },
    { "session", 0, 0, G_OPTION_ARG_STRING, &filter.session,
      N_("Only records of the session or NPC ID"), N_("ID") },
    { "errors", 0, 0, G_OPTION_ARG_NONE, &filter.errors, N_("Only failures"), NULL },
    { "socket", 0, 0, G_OPTION_ARG_FILENAME, &socket_path,
      N_("Connect to PATH (default: [gateway] tap-socket)"), N_("PATH") },
    /* Global options, already applied. */
    { "config", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &config_file, NULL, NULL },
    { "plugin-dir", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME_ARRAY, &plugin_dirs, NULL, NULL },
    { "set", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING_ARRAY, &set_values, NULL, NULL },
    { "verbose", 'v', G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &verbose, NULL, NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("tap — watch what crosses the bus of a running gamegate"));
  g_auto(GStrv) args = g_strdupv (argv);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketClient) client = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GSocketConnection) connection = NULL;
  g_autoptr(GDataInputStream) input = NULL;
  g_autofree char *request = NULL;
  char *line;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  if (!g_option_context_parse_strv (context, &args, &error))
    {
      g_printerr ("%s: %s\n", g_get_prgname (), error->message);
      return GG_EXIT_USAGE;
    }
  if (g_strv_length (args) > 2)
    {
      g_printerr (_("%s: tap: unexpected argument “%s”\n"), g_get_prgname (), args[2]);
      return GG_EXIT_USAGE;
    }
  if (socket_path == NULL)
    socket_path = gg_config_get_string (host->config, "gateway", "tap-socket", NULL);
  if (socket_path == NULL)
    socket_path = gg_tap_default_socket_path ();
  if (*socket_path == '\0')
    {
      g_printerr (_("%s: tap: the tap is disabled ([gateway] tap-socket is empty)\n"), g_get_prgname ());
      return GG_EXIT_USAGE;
    }

  client = g_socket_client_new ();
  address = g_unix_socket_address_new (socket_path);
  connection = g_socket_client_connect (client, G_SOCKET_CONNECTABLE (address), NULL, &error);
  if (connection == NULL)
    {
      g_printerr (_("%s: tap: cannot connect to %s: %s (is “%s serve” running?)\n"),
                  g_get_prgname (), socket_path, error->message, g_get_prgname ());
      return GG_EXIT_FAILURE;
    }
  request = filter_line (&filter);
  if (!g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (connection)),
                                  request, strlen (request), NULL, NULL, &error))
    {
      g_printerr (_("%s: tap: %s\n"), g_get_prgname (), error->message);
      return GG_EXIT_FAILURE;
    }

  /* On stderr, so that stdout holds records only. */
  g_printerr (_("Watching the bus at %s\n"), socket_path);
  input = g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (connection)));
  while ((line = g_data_input_stream_read_line_utf8 (input, NULL, NULL, &error)) != NULL)
    {
      g_autofree char *text = line;
      g_autoptr(JsonNode) node = gg_json_parse (text, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);

      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node) ||
          !gg_tap_filter_matches (&filter, json_node_get_object (node)))
        continue;
      if (json)
        printf ("%s\n", text);
      else
        {
          g_autofree char *shown = format_record (json_node_get_object (node));
          printf ("%s\n", shown);
        }
      fflush (stdout);
    }
  if (error != NULL)
    {
      g_printerr (_("%s: tap: %s\n"), g_get_prgname (), error->message);
      return GG_EXIT_FAILURE;
    }
  return GG_EXIT_OK;
}
