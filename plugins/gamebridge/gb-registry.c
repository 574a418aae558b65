/* gb-registry.c: the reader of the self-registration directory (spec section 2).
 *
 * Reader rules: entries are advisory (the caller checks them against
 * /health); two entries for one port -> the later `started` wins; an
 * unreadable file is reported, never fatal; nothing is deleted.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "gb-registry.h"

#define MAX_ENTRY_SIZE  (64 * 1024)
#define MAX_ENTRIES     4096

void
gb_registry_entry_free (GbRegistryEntry *entry)
{
  g_free (entry->name);
  g_free (entry->version);
  g_free (entry->host);
  g_free (entry->started);
  g_free (entry->cwd);
  g_free (entry->file);
  g_free (entry);
}

static char *
string_member (JsonObject *o,
               const char *name)
{
  JsonNode *n = json_object_get_member (o, name);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  if (strlen (json_node_get_string (n)) > 4096)
    return NULL;
  return g_strdup (json_node_get_string (n));
}

static gint64
int_member (JsonObject *o,
            const char *name,
            gint64      fallback)
{
  JsonNode *n = json_object_get_member (o, name);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64)
    return fallback;
  return json_node_get_int (n);
}

static GbRegistryEntry *
parse_entry (const char  *path,
             GError     **error)
{
  g_autofree char *data = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) local = NULL;
  GbRegistryEntry *entry;
  JsonObject *o;
  gint64 port;
  GStatBuf st;

  if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE, "not a regular file");
      return NULL;
    }
  if (st.st_size > MAX_ENTRY_SIZE)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "larger than %d bytes", MAX_ENTRY_SIZE);
      return NULL;
    }
  if (!g_file_get_contents (path, &data, NULL, error))
    return NULL;
  root = gg_json_parse (data, -1, 32, &local);
  if (root == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "not valid JSON: %s", local->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "not a JSON object");
      return NULL;
    }
  o = json_node_get_object (root);
  port = int_member (o, "port", -1);
  if (port < 1 || port > 65535)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "no valid port (1..65535)");
      return NULL;
    }
  entry = g_new0 (GbRegistryEntry, 1);
  entry->port = (guint) port;
  entry->pid = MAX (int_member (o, "pid", 0), 0);
  entry->protocol = int_member (o, "protocol", -1);
  entry->name = string_member (o, "name");
  entry->version = string_member (o, "version");
  entry->host = string_member (o, "host");
  entry->started = string_member (o, "started");
  entry->cwd = string_member (o, "cwd");
  entry->file = g_strdup (path);
  return entry;
}

/* ISO 8601 times compare as instants; an unparsable one loses. */
static gboolean
later (const char *a,
       const char *b)
{
  g_autoptr(GDateTime) ta = a != NULL ? g_date_time_new_from_iso8601 (a, NULL) : NULL;
  g_autoptr(GDateTime) tb = b != NULL ? g_date_time_new_from_iso8601 (b, NULL) : NULL;

  if (ta == NULL)
    return FALSE;
  if (tb == NULL)
    return TRUE;
  return g_date_time_compare (ta, tb) >= 0;
}

/**
 * gb_registry_read:
 * @dir: the registry directory
 * @problems: unreadable entries are appended as `{"file","error"}`
 *
 * Returns: (transfer full): port (GUINT_TO_POINTER) -> #GbRegistryEntry;
 *   a missing directory is an empty registry
 */
GHashTable *
gb_registry_read (const char *dir,
                  JsonArray  *problems)
{
  GHashTable *entries = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) gb_registry_entry_free);
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint seen = 0;

  if (d == NULL)
    return entries;
  while ((name = g_dir_read_name (d)) != NULL && seen < MAX_ENTRIES)
    {
      g_autofree char *path = NULL;
      g_autoptr(GError) error = NULL;
      GbRegistryEntry *entry, *old;

      if (!g_str_has_suffix (name, ".json") || name[0] == '.')
        continue;
      seen++;
      path = g_build_filename (dir, name, NULL);
      entry = parse_entry (path, &error);
      if (entry == NULL)
        {
          JsonObject *problem = json_object_new ();

          json_object_set_string_member (problem, "file", path);
          json_object_set_string_member (problem, "error", error->message);
          json_array_add_object_element (problems, problem);
          continue;
        }
      old = g_hash_table_lookup (entries, GUINT_TO_POINTER (entry->port));
      if (old != NULL && !later (entry->started, old->started))
        gb_registry_entry_free (entry);
      else
        g_hash_table_replace (entries, GUINT_TO_POINTER (entry->port), entry);
    }
  return entries;
}
