/* refgame-registry.c: writing and removing the instance registry entry.
 *
 * Writer rules of the contract: write only after the port is bound, only our
 * own <pid>.json, atomically; a failure never breaks the game (the caller only
 * warns); removal is safe to run twice.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "refgame-registry.h"
#include "refgame-manifest.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <unistd.h>

/**
 * rg_registry_dir:
 *
 * Returns: (transfer full): $GAME_BRIDGE_INSTANCES, else $GAME_BRIDGE_HOME/instances,
 *   else ~/.game-bridge/instances.
 */
char *
rg_registry_dir (void)
{
  const char *dir = g_getenv ("GAME_BRIDGE_INSTANCES");
  const char *home = g_getenv ("GAME_BRIDGE_HOME");

  if (dir != NULL && *dir != '\0')
    return g_strdup (dir);
  if (home != NULL && *home != '\0')
    return g_build_filename (home, "instances", NULL);
  return g_build_filename (g_get_home_dir (), ".game-bridge", "instances", NULL);
}

/* ISO 8601 UTC with milliseconds, e.g. 2026-08-20T22:27:19.774Z. */
static char *
started_now (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *seconds = g_date_time_format (now, "%Y-%m-%dT%H:%M:%S");

  return g_strdup_printf ("%s.%03dZ", seconds, g_date_time_get_microsecond (now) / 1000);
}

/**
 * rg_registry_write:
 * @port: the bound debug port
 * @error: where a failure goes
 *
 * Writes this process's entry, creating the directory if needed.
 *
 * Returns: (transfer full): the entry's path, or %NULL.
 */
char *
rg_registry_write (guint    port,
                   GError **error)
{
  g_autofree char *dir = rg_registry_dir ();
  g_autofree char *name = g_strdup_printf ("%ld.json", (long) getpid ());
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *started = started_now ();
  g_autofree char *cwd_raw = g_get_current_dir ();
  g_autofree char *cwd = g_filename_display_name (cwd_raw);  /* JSON needs UTF-8 */
  g_autofree char *text = NULL;
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "cannot create %s: %s", dir, g_strerror (saved));
      return NULL;
    }

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, RG_GAME_NAME);
  json_builder_set_member_name (b, "version");
  json_builder_add_string_value (b, RG_GAME_VERSION);
  json_builder_set_member_name (b, "protocol");
  json_builder_add_int_value (b, RG_GAME_PROTOCOL);
  json_builder_set_member_name (b, "port");
  json_builder_add_int_value (b, port);
  json_builder_set_member_name (b, "pid");
  json_builder_add_int_value (b, getpid ());
  json_builder_set_member_name (b, "host");
  json_builder_add_string_value (b, "127.0.0.1");
  json_builder_set_member_name (b, "started");
  json_builder_add_string_value (b, started);
  json_builder_set_member_name (b, "cwd");
  json_builder_add_string_value (b, cwd);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  text = json_to_string (root, TRUE);

  if (!g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, error))
    return NULL;
  return g_steal_pointer (&path);
}

/**
 * rg_registry_remove:
 * @path: (nullable): an entry written by rg_registry_write()
 *
 * Deletes the entry; an entry already gone is fine.
 */
void
rg_registry_remove (const char *path)
{
  if (path == NULL)
    return;
  if (g_unlink (path) != 0 && errno != ENOENT)
    g_printerr ("refgame: cannot remove the registry entry %s: %s\n", path, g_strerror (errno));
}
