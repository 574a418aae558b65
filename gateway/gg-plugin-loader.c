/* gg-plugin-loader.c: finds, checks and sets up plugin modules.
 *
 * Every module that cannot be used is refused with exactly one warning that
 * names the file and the reason, and is recorded for `gamegate plugins`; the
 * host goes on with the rest. Only a configuration error from a plugin's
 * setup is fatal, since the user asked for something that cannot be done.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-plugin-loader.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <gmodule.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
  char *path;
  gboolean warn_if_missing;  /* named by the user: a missing one is worth a warning */
} SearchDir;

struct _GgPluginLoader {
  GObject parent_instance;

  GgBus *bus;
  GgConfig *config;
  GPtrArray *directories;   /* SearchDir, in search order */
  GHashTable *disabled;     /* plugin name set */
  GPtrArray *plugins;       /* GgPlugin, in load order */
  GPtrArray *refusals;      /* GgPluginRefusal */
  GHashTable *by_name;      /* plugin name -> path of the module that has it */
};

G_DEFINE_FINAL_TYPE (GgPluginLoader, gg_plugin_loader, G_TYPE_OBJECT)

static void
search_dir_free (gpointer data)
{
  SearchDir *dir = data;

  g_free (dir->path);
  g_free (dir);
}

static void
refusal_free (gpointer data)
{
  GgPluginRefusal *refusal = data;

  g_free (refusal->path);
  g_free (refusal->reason);
  g_free (refusal->name);
  g_free (refusal);
}

static void
gg_plugin_loader_finalize (GObject *object)
{
  GgPluginLoader *self = GG_PLUGIN_LOADER (object);

  g_clear_object (&self->bus);
  g_clear_object (&self->config);
  g_ptr_array_unref (self->directories);
  g_hash_table_unref (self->disabled);
  g_ptr_array_unref (self->plugins);
  g_ptr_array_unref (self->refusals);
  g_hash_table_unref (self->by_name);

  G_OBJECT_CLASS (gg_plugin_loader_parent_class)->finalize (object);
}

static void
gg_plugin_loader_class_init (GgPluginLoaderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_plugin_loader_finalize;
}

static void
gg_plugin_loader_init (GgPluginLoader *self)
{
  self->directories = g_ptr_array_new_with_free_func (search_dir_free);
  self->disabled = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->plugins = g_ptr_array_new_with_free_func (g_object_unref);
  self->refusals = g_ptr_array_new_with_free_func (refusal_free);
  self->by_name = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/**
 * gg_plugin_loader_new:
 * @bus: the process's bus, handed to every plugin
 * @config: the configuration, handed to every plugin
 *
 * Returns: (transfer full): a loader with no search directories yet
 */
GgPluginLoader *
gg_plugin_loader_new (GgBus    *bus,
                      GgConfig *config)
{
  GgPluginLoader *self;

  g_return_val_if_fail (GG_IS_BUS (bus), NULL);
  g_return_val_if_fail (GG_IS_CONFIG (config), NULL);

  self = g_object_new (GG_TYPE_PLUGIN_LOADER, NULL);
  self->bus = g_object_ref (bus);
  self->config = g_object_ref (config);
  return self;
}

/**
 * gg_plugin_loader_add_directory:
 * @self: a #GgPluginLoader
 * @directory: a directory to search
 * @warn_if_missing: whether the user named it (a missing one is then warned about)
 *
 * Appends @directory to the search path. Earlier directories win when two
 * modules carry the same plugin name. A directory added twice is searched once.
 */
void
gg_plugin_loader_add_directory (GgPluginLoader *self,
                                const char     *directory,
                                gboolean        warn_if_missing)
{
  g_autofree char *canonical = NULL;
  SearchDir *dir;

  g_return_if_fail (GG_IS_PLUGIN_LOADER (self));
  g_return_if_fail (directory != NULL);

  if (*directory == '\0')
    return;
  canonical = g_canonicalize_filename (directory, NULL);
  for (guint i = 0; i < self->directories->len; i++)
    {
      SearchDir *known = g_ptr_array_index (self->directories, i);

      if (g_strcmp0 (known->path, canonical) == 0)
        {
          known->warn_if_missing |= warn_if_missing;
          return;
        }
    }
  dir = g_new0 (SearchDir, 1);
  dir->path = g_steal_pointer (&canonical);
  dir->warn_if_missing = warn_if_missing;
  g_ptr_array_add (self->directories, dir);
}

/**
 * gg_plugin_loader_set_disabled:
 * @self: a #GgPluginLoader
 * @names: (nullable): plugin names not to set up
 *
 * Plugins named here are found and checked, but not set up, and listed as
 * disabled rather than warned about.
 */
void
gg_plugin_loader_set_disabled (GgPluginLoader     *self,
                               const char * const *names)
{
  g_return_if_fail (GG_IS_PLUGIN_LOADER (self));

  g_hash_table_remove_all (self->disabled);
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      g_autofree char *name = g_strstrip (g_strdup (names[i]));

      if (*name != '\0')
        g_hash_table_add (self->disabled, g_steal_pointer (&name));
    }
}

/**
 * gg_plugin_loader_is_disabled:
 * @self: a #GgPluginLoader
 * @name: a plugin name
 *
 * Returns: whether @name was listed in gg_plugin_loader_set_disabled()
 */
gboolean
gg_plugin_loader_is_disabled (GgPluginLoader *self,
                              const char     *name)
{
  g_return_val_if_fail (GG_IS_PLUGIN_LOADER (self), FALSE);

  return name != NULL && g_hash_table_contains (self->disabled, name);
}

static void
refuse (GgPluginLoader *self,
        const char     *path,
        const char     *name,
        gboolean        disabled,
        const char     *reason)
{
  GgPluginRefusal *refusal = g_new0 (GgPluginRefusal, 1);

  refusal->path = g_strdup (path);
  refusal->reason = g_strdup (reason);
  refusal->name = g_strdup (name);
  refusal->disabled = disabled;
  g_ptr_array_add (self->refusals, refusal);

  if (disabled)
    g_debug ("Not loading plugin %s: %s", path, reason);
  else
    g_warning (_("Refusing plugin %s: %s"), path, reason);
}

/* Whether the file is safe to map into the process: a regular file that
 * nobody but its owner (us or root) can change. */
static gboolean
check_file (const char  *path,
            char       **reason)
{
  struct stat st;

  if (g_stat (path, &st) != 0)
    {
      int saved_errno = errno;

      *reason = g_strdup_printf (_("cannot read it: %s"), g_strerror (saved_errno));
      return FALSE;
    }
  if (!S_ISREG (st.st_mode))
    {
      *reason = g_strdup (_("not a regular file"));
      return FALSE;
    }
  if ((st.st_mode & S_IWOTH) != 0)
    {
      *reason = g_strdup (_("the file is writable by everyone"));
      return FALSE;
    }
  if (st.st_uid != 0 && st.st_uid != getuid ())
    {
      *reason = g_strdup (_("the file belongs to another user"));
      return FALSE;
    }
  return TRUE;
}

/* Loads one module. Returns FALSE only for a fatal (configuration) error. */
static gboolean
load_module (GgPluginLoader  *self,
             const char      *path,
             GError         **error)
{
  g_autofree char *reason = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GgPlugin) plugin = NULL;
  const GgPluginDescriptor *descriptor;
  GgPluginDescribeFunc describe = NULL;
  const char *first_path;
  GModule *module;

  if (!check_file (path, &reason))
    {
      refuse (self, path, NULL, FALSE, reason);
      return TRUE;
    }

  /* LOCAL: plugins never see each other's symbols; LAZY: a module with an
   * unresolvable symbol fails on use rather than taking the host down. */
  module = g_module_open (path, G_MODULE_BIND_LOCAL | G_MODULE_BIND_LAZY);
  if (module == NULL)
    {
      reason = g_strdup_printf (_("cannot open it: %s"), g_module_error ());
      refuse (self, path, NULL, FALSE, reason);
      return TRUE;
    }
  if (!g_module_symbol (module, GG_PLUGIN_ENTRY_SYMBOL, (gpointer *) &describe) ||
      describe == NULL)
    {
      reason = g_strdup_printf (_("no %s() entry point"), GG_PLUGIN_ENTRY_SYMBOL);
      refuse (self, path, NULL, FALSE, reason);
      g_module_close (module);
      return TRUE;
    }

  descriptor = describe ();
  if (!gg_plugin_descriptor_check (descriptor, &local_error))
    {
      refuse (self, path, NULL, FALSE, local_error->message);
      g_module_close (module);
      return TRUE;
    }

  if (gg_plugin_loader_is_disabled (self, descriptor->name))
    {
      refuse (self, path, descriptor->name, TRUE, _("disabled in the configuration"));
      g_module_close (module);
      return TRUE;
    }

  first_path = g_hash_table_lookup (self->by_name, descriptor->name);
  if (first_path != NULL)
    {
      reason = g_strdup_printf (_("another plugin named “%s” was already loaded from %s"),
                                descriptor->name, first_path);
      refuse (self, path, descriptor->name, FALSE, reason);
      g_module_close (module);
      return TRUE;
    }

  /* From here on the module may register GTypes, which can never be
   * unregistered: it stays mapped whatever setup says. */
  g_module_make_resident (module);
  g_hash_table_insert (self->by_name, g_strdup (descriptor->name), g_strdup (path));

  plugin = gg_plugin_new (descriptor, path, self->bus, self->config);
  if (!gg_plugin_setup (plugin, &local_error))
    {
      if (local_error->domain == GG_CONFIG_ERROR)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
      reason = g_strdup_printf (_("setup failed: %s"), local_error->message);
      refuse (self, path, descriptor->name, FALSE, reason);
      return TRUE;
    }

  g_debug ("Loaded plugin %s %s from %s", descriptor->name, descriptor->version, path);
  g_ptr_array_add (self->plugins, g_steal_pointer (&plugin));
  g_module_close (module);  /* drops our handle; the module stays resident */
  return TRUE;
}

static gint
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

static gboolean
load_directory (GgPluginLoader  *self,
                SearchDir       *search_dir,
                GError         **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GDir *dir;
  const char *name;

  dir = g_dir_open (search_dir->path, 0, &local_error);
  if (dir == NULL)
    {
      if (search_dir->warn_if_missing)
        g_warning (_("Cannot search plugin directory %s: %s"),
                   search_dir->path, local_error->message);
      else
        g_debug ("Skipping plugin directory %s: %s", search_dir->path, local_error->message);
      return TRUE;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_dir_close (dir);

  /* A stable order makes "the first one wins" mean something. */
  g_ptr_array_sort (names, compare_names);

  for (guint i = 0; i < names->len; i++)
    {
      const char *entry = g_ptr_array_index (names, i);
      g_autofree char *path = g_build_filename (search_dir->path, entry, NULL);

      /* Hidden files and subdirectories are not candidates at all. */
      if (entry[0] == '.' || g_file_test (path, G_FILE_TEST_IS_DIR))
        continue;
      if (!g_str_has_suffix (entry, ".so"))
        {
          refuse (self, path, NULL, FALSE, _("not a shared module (.so)"));
          continue;
        }
      if (!load_module (self, path, error))
        return FALSE;
    }
  return TRUE;
}

/**
 * gg_plugin_loader_load_all:
 * @self: a #GgPluginLoader
 * @error: return location for a #GError
 *
 * Loads and sets up every module of every search directory, in order.
 * Modules that cannot be used are refused and recorded.
 *
 * Returns: %FALSE, with a %GG_CONFIG_ERROR, when a plugin's setup found a
 *   configuration mistake
 */
gboolean
gg_plugin_loader_load_all (GgPluginLoader  *self,
                           GError         **error)
{
  g_return_val_if_fail (GG_IS_PLUGIN_LOADER (self), FALSE);

  if (!g_module_supported ())
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("This system cannot load modules"));
      return FALSE;
    }
  for (guint i = 0; i < self->directories->len; i++)
    if (!load_directory (self, g_ptr_array_index (self->directories, i), error))
      return FALSE;
  return TRUE;
}

/**
 * gg_plugin_loader_get_plugins:
 * @self: a #GgPluginLoader
 *
 * Returns: (transfer none) (element-type GgPlugin): the plugins set up, in order
 */
GPtrArray *
gg_plugin_loader_get_plugins (GgPluginLoader *self)
{
  g_return_val_if_fail (GG_IS_PLUGIN_LOADER (self), NULL);

  return self->plugins;
}

/**
 * gg_plugin_loader_get_refusals:
 * @self: a #GgPluginLoader
 *
 * Returns: (transfer none) (element-type GgPluginRefusal): the modules not used
 */
GPtrArray *
gg_plugin_loader_get_refusals (GgPluginLoader *self)
{
  g_return_val_if_fail (GG_IS_PLUGIN_LOADER (self), NULL);

  return self->refusals;
}
