/* gg-config.c: the gateway's configuration: typed getters whose errors name
 * file and line, and tracking of which keys were read. Loading and validating
 * key files is in gg-config-load.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "gg-config-private.h"

/* Values quoted back in error messages are cut to this many characters. */
#define GG_CONFIG_MAX_QUOTED 48

/**
 * gg_config_error_quark:
 *
 * The error domain of configuration mistakes, %GG_CONFIG_ERROR.
 *
 * Returns: the #GQuark of the domain
 *
 * Since: 1.0
 */
G_DEFINE_QUARK (gg-config-error-quark, gg_config_error)

G_DEFINE_FINAL_TYPE (GgConfig, gg_config, G_TYPE_OBJECT)

static void
gg_config_entry_free (gpointer data)
{
  GgConfigEntry *entry = data;

  g_free (entry->group);
  g_free (entry->key);
  g_free (entry->origin);
  g_free (entry);
}

char *
_gg_config_entry_id (const char *group,
                     const char *key)
{
  /* Group and key names never contain a control character. */
  return key != NULL ? g_strconcat (group, "\n", key, NULL) : g_strdup (group);
}

static void
gg_config_finalize (GObject *object)
{
  GgConfig *self = GG_CONFIG (object);

  g_key_file_unref (self->keyfile);
  g_hash_table_unref (self->entries);
  g_ptr_array_unref (self->order);
  g_hash_table_unref (self->reads);
  g_ptr_array_unref (self->read_order);
  g_free (self->origin);

  G_OBJECT_CLASS (gg_config_parent_class)->finalize (object);
}

static void
gg_config_class_init (GgConfigClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_config_finalize;
}

static void
gg_config_init (GgConfig *self)
{
  self->keyfile = g_key_file_new ();
  self->entries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->order = g_ptr_array_new_with_free_func (gg_config_entry_free);
  self->reads = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->read_order = g_ptr_array_new_with_free_func (_gg_config_read_free);
}

/**
 * gg_config_new:
 *
 * Creates an empty configuration; every getter returns its default.
 *
 * Returns: (transfer full): a new #GgConfig
 *
 * Since: 1.0
 */
GgConfig *
gg_config_new (void)
{
  return g_object_new (GG_TYPE_CONFIG, NULL);
}

/* Records (or refreshes) where a group or key was last set. */
GgConfigEntry *
_gg_config_remember (GgConfig   *self,
                     const char *group,
                     const char *key,
                     const char *origin,
                     guint       line)
{
  g_autofree char *id = _gg_config_entry_id (group, key);
  GgConfigEntry *entry = g_hash_table_lookup (self->entries, id);

  if (entry == NULL)
    {
      entry = g_new0 (GgConfigEntry, 1);
      entry->group = g_strdup (group);
      entry->key = g_strdup (key);
      g_ptr_array_add (self->order, entry);
      g_hash_table_insert (self->entries, g_steal_pointer (&id), entry);
    }
  g_free (entry->origin);
  entry->origin = g_strdup (origin);
  entry->line = line;
  return entry;
}

static GgConfigEntry *
lookup (GgConfig   *self,
        const char *group,
        const char *key)
{
  g_autofree char *id = _gg_config_entry_id (group, key);

  return g_hash_table_lookup (self->entries, id);
}

/* Looks a key up for a getter, marking it read. */
static GgConfigEntry *
lookup_read (GgConfig   *self,
             const char *group,
             const char *key)
{
  GgConfigEntry *entry = lookup (self, group, key);

  if (entry != NULL)
    entry->read = TRUE;
  return entry;
}

static char *
location_of (GgConfigEntry *entry)
{
  if (entry->line > 0)
    return g_strdup_printf ("%s:%u", entry->origin, entry->line);
  return g_strdup (entry->origin);
}

/* Cuts a text to a length fit for an error message, repairing UTF-8. */
char *
_gg_config_quote_text (const char *text,
                       gssize      length)
{
  /* Values set through gg_config_set_value() are not checked for UTF-8. */
  g_autofree char *copy = g_utf8_make_valid (text, length);

  if (g_utf8_strlen (copy, -1) <= GG_CONFIG_MAX_QUOTED)
    return g_steal_pointer (&copy);

  *g_utf8_offset_to_pointer (copy, GG_CONFIG_MAX_QUOTED) = '\0';
  return g_strconcat (copy, "…", NULL);
}

/**
 * gg_config_get_origin:
 * @self: a #GgConfig
 *
 * Gets where the configuration came from, for messages.
 *
 * Returns: (transfer none) (nullable): the origin of the file loaded last, or %NULL
 *
 * Since: 1.0
 */
const char *
gg_config_get_origin (GgConfig *self)
{
  g_return_val_if_fail (GG_IS_CONFIG (self), NULL);

  return self->origin;
}

/**
 * gg_config_has_key:
 * @self: a #GgConfig
 * @group: a group name
 * @key: a key name
 *
 * Whether @key is set in @group. Counts as reading the key.
 *
 * Returns: %TRUE if the key has a value
 *
 * Since: 1.0
 */
gboolean
gg_config_has_key (GgConfig   *self,
                   const char *group,
                   const char *key)
{
  g_return_val_if_fail (GG_IS_CONFIG (self), FALSE);
  g_return_val_if_fail (group != NULL && key != NULL, FALSE);

  return lookup_read (self, group, key) != NULL;
}

/**
 * gg_config_set_value:
 * @self: a #GgConfig
 * @group: a group name (no `[`, `]` or control characters)
 * @key: a key name (letters, digits, `-`, `_` and `.`)
 * @value: the value, written as in a key file (escapes allowed)
 *
 * Overrides a key from the command line (the caller checks the names); errors about it name the origin
 * "command line", and gg_config_list_unread() reports it when no plugin
 * reads it, like a key from a file.
 *
 * Since: 1.0
 */
void
gg_config_set_value (GgConfig   *self,
                     const char *group,
                     const char *key,
                     const char *value)
{
  g_return_if_fail (GG_IS_CONFIG (self));
  g_return_if_fail (group != NULL && _gg_config_is_group_name (group));
  g_return_if_fail (key != NULL && _gg_config_is_key_name (key));
  g_return_if_fail (value != NULL);

  if (lookup (self, group, NULL) == NULL)
    _gg_config_remember (self, group, NULL, _("command line"), 0);
  _gg_config_remember (self, group, key, _("command line"), 0);
  g_key_file_set_value (self->keyfile, group, key, value);
}

/* Undoes key-file escapes for a single string; "\;" stands for ";". */
static char *
unescape (const char *raw)
{
  GString *out = g_string_sized_new (strlen (raw));

  for (const char *p = raw; *p != '\0'; p++)
    {
      if (*p != '\\' || p[1] == '\0')
        {
          g_string_append_c (out, *p);
          continue;
        }
      p++;
      switch (*p)
        {
        case 's': g_string_append_c (out, ' '); break;
        case 'n': g_string_append_c (out, '\n'); break;
        case 't': g_string_append_c (out, '\t'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        default: g_string_append_c (out, *p); break;
        }
    }
  return g_string_free (out, FALSE);
}

/**
 * gg_config_get_string:
 * @self: a #GgConfig
 * @group: a group name
 * @key: a key name
 * @default_value: (nullable): returned when the key is not set
 *
 * Reads a string, undoing the key-file escapes (`\s`, `\n`, `\t`, `\r`,
 * `\\`). Counts as reading the key.
 *
 * Returns: (transfer full) (nullable): the unescaped value, or a copy of
 *   @default_value
 *
 * Since: 1.0
 */
char *
gg_config_get_string (GgConfig   *self,
                      const char *group,
                      const char *key,
                      const char *default_value)
{
  g_autofree char *raw = NULL;

  g_return_val_if_fail (GG_IS_CONFIG (self), NULL);
  g_return_val_if_fail (group != NULL && key != NULL, NULL);

  _gg_config_note_read (self, group, key, default_value);
  if (lookup_read (self, group, key) == NULL)
    return g_strdup (default_value);
  raw = g_key_file_get_value (self->keyfile, group, key, NULL);
  return raw != NULL ? unescape (raw) : g_strdup (default_value);
}

/**
 * gg_config_get_string_list:
 * @self: a #GgConfig
 * @group: a group name
 * @key: a key name
 *
 * Reads a ";"-separated list ("\;" for a literal ";"). Counts as reading
 * the key.
 *
 * Returns: (transfer full) (nullable): the items, or %NULL if the key is not set
 *
 * Since: 1.0
 */
char **
gg_config_get_string_list (GgConfig   *self,
                           const char *group,
                           const char *key)
{
  char **list;

  g_return_val_if_fail (GG_IS_CONFIG (self), NULL);
  g_return_val_if_fail (group != NULL && key != NULL, NULL);

  _gg_config_note_read (self, group, key, NULL);
  if (lookup_read (self, group, key) == NULL)
    return NULL;
  list = g_key_file_get_string_list (self->keyfile, group, key, NULL, NULL);
  /* GKeyFile gives NULL for an empty value: that is an empty list. */
  return list != NULL ? list : g_new0 (char *, 1);
}

static gboolean
set_invalid_value (GgConfig       *self,
                   GgConfigEntry  *entry,
                   GError        **error,
                   const char     *what)
{
  g_autofree char *location = location_of (entry);
  g_autofree char *raw = g_key_file_get_value (self->keyfile, entry->group, entry->key, NULL);
  /* Never a secret: a token's value masked, a URL's password too. */
  g_autofree char *shown = _gg_config_shown_value (entry->key, raw != NULL ? raw : "");
  g_autofree char *quoted = _gg_config_quote_text (shown, -1);

  /* TRANSLATORS: "file:line: [group] key: expected ..., got “value”" */
  g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_INVALID_VALUE,
               _("%s: [%s] %s: %s, got “%s”"),
               location, entry->group, entry->key, what, quoted);
  return FALSE;
}

/**
 * gg_config_get_int:
 * @self: a #GgConfig
 * @group: a group name
 * @key: a key name
 * @min: smallest accepted value
 * @max: largest accepted value
 * @default_value: stored in @out_value when the key is not set
 * @out_value: (out): the value
 * @error: return location for a #GError
 *
 * Reads a decimal integer in [@min, @max]. Anything else is a
 * %GG_CONFIG_ERROR_INVALID_VALUE naming the file, line, group and key.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gg_config_get_int (GgConfig    *self,
                   const char  *group,
                   const char  *key,
                   gint64       min,
                   gint64       max,
                   gint64       default_value,
                   gint64      *out_value,
                   GError     **error)
{
  GgConfigEntry *entry;
  g_autofree char *raw = NULL;
  gint64 value;

  g_return_val_if_fail (GG_IS_CONFIG (self), FALSE);
  g_return_val_if_fail (group != NULL && key != NULL && out_value != NULL, FALSE);
  g_return_val_if_fail (min <= max, FALSE);

  {
    g_autofree char *shown = g_strdup_printf ("%" G_GINT64_FORMAT, default_value);

    _gg_config_note_read (self, group, key, shown);
  }
  entry = lookup_read (self, group, key);
  if (entry == NULL)
    {
      *out_value = default_value;
      return TRUE;
    }
  raw = g_key_file_get_value (self->keyfile, group, key, NULL);
  if (raw == NULL || !g_ascii_string_to_signed (raw, 10, min, max, &value, NULL))
    {
      /* Numbers are formatted apart: G_GINT64_FORMAT cannot stand in a msgid. */
      g_autofree char *low = g_strdup_printf ("%" G_GINT64_FORMAT, min);
      g_autofree char *high = g_strdup_printf ("%" G_GINT64_FORMAT, max);
      g_autofree char *what =
        g_strdup_printf (_("expected an integer between %s and %s"), low, high);
      return set_invalid_value (self, entry, error, what);
    }
  *out_value = value;
  return TRUE;
}

/**
 * gg_config_get_double:
 * @self: a #GgConfig
 * @group: a group name
 * @key: a key name
 * @min: smallest accepted value
 * @max: largest accepted value
 * @default_value: stored in @out_value when the key is not set
 * @out_value: (out): the value
 * @error: return location for a #GError
 *
 * Reads a finite decimal number (C locale) in [@min, @max].
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gg_config_get_double (GgConfig    *self,
                      const char  *group,
                      const char  *key,
                      double       min,
                      double       max,
                      double       default_value,
                      double      *out_value,
                      GError     **error)
{
  GgConfigEntry *entry;
  g_autofree char *raw = NULL;
  char *end = NULL;
  double value = 0.0;

  g_return_val_if_fail (GG_IS_CONFIG (self), FALSE);
  g_return_val_if_fail (group != NULL && key != NULL && out_value != NULL, FALSE);
  g_return_val_if_fail (min <= max, FALSE);

  {
    char shown[G_ASCII_DTOSTR_BUF_SIZE];

    _gg_config_note_read (self, group, key, g_ascii_dtostr (shown, sizeof shown, default_value));
  }
  entry = lookup_read (self, group, key);
  if (entry == NULL)
    {
      *out_value = default_value;
      return TRUE;
    }
  raw = g_key_file_get_value (self->keyfile, group, key, NULL);
  if (raw != NULL && *raw != '\0' && !g_ascii_isspace (*raw))
    value = g_ascii_strtod (raw, &end);
  if (end == NULL || *end != '\0' || !isfinite (value) || value < min || value > max)
    {
      g_autofree char *what =
        g_strdup_printf (_("expected a number between %g and %g"), min, max);
      return set_invalid_value (self, entry, error, what);
    }
  *out_value = value;
  return TRUE;
}

/**
 * gg_config_get_boolean:
 * @self: a #GgConfig
 * @group: a group name
 * @key: a key name
 * @default_value: stored in @out_value when the key is not set
 * @out_value: (out): the value
 * @error: return location for a #GError
 *
 * Reads "true" or "false" (GKeyFile also writes "1" and "0"; both accepted).
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gg_config_get_boolean (GgConfig    *self,
                       const char  *group,
                       const char  *key,
                       gboolean     default_value,
                       gboolean    *out_value,
                       GError     **error)
{
  GgConfigEntry *entry;
  g_autofree char *raw = NULL;

  g_return_val_if_fail (GG_IS_CONFIG (self), FALSE);
  g_return_val_if_fail (group != NULL && key != NULL && out_value != NULL, FALSE);

  _gg_config_note_read (self, group, key, default_value ? "true" : "false");
  entry = lookup_read (self, group, key);
  if (entry == NULL)
    {
      *out_value = default_value;
      return TRUE;
    }
  raw = g_key_file_get_value (self->keyfile, group, key, NULL);
  if (g_strcmp0 (raw, "true") == 0 || g_strcmp0 (raw, "1") == 0)
    *out_value = TRUE;
  else if (g_strcmp0 (raw, "false") == 0 || g_strcmp0 (raw, "0") == 0)
    *out_value = FALSE;
  else
    return set_invalid_value (self, entry, error, _("expected “true” or “false”"));
  return TRUE;
}

/**
 * gg_config_set_invalid:
 * @self: a #GgConfig
 * @group: a group name
 * @key: a key name
 * @error: return location for a #GError
 * @format: printf format saying what is wrong, e.g. "expected an absolute path"
 * @...: arguments for @format
 *
 * Sets @error to a %GG_CONFIG_ERROR_INVALID_VALUE for a value a plugin
 * checked itself: "file:line: [group] key: <what>, got “value”". When the key
 * is not set the message names the group and key only.
 *
 * Since: 1.0
 */
void
gg_config_set_invalid (GgConfig   *self,
                       const char *group,
                       const char *key,
                       GError    **error,
                       const char *format,
                       ...)
{
  g_autofree char *what = NULL;
  GgConfigEntry *entry;
  va_list args;

  g_return_if_fail (GG_IS_CONFIG (self));
  g_return_if_fail (group != NULL && key != NULL && format != NULL);

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);

  entry = lookup_read (self, group, key);
  if (entry != NULL)
    {
      set_invalid_value (self, entry, error, what);
      return;
    }
  if (self->origin != NULL)
    g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_INVALID_VALUE,
                 "%s: [%s] %s: %s", self->origin, group, key, what);
  else
    g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_INVALID_VALUE,
                 "[%s] %s: %s", group, key, what);
}

/**
 * gg_config_list_unread:
 * @self: a #GgConfig
 *
 * Lists keys set in a file or on the command line that no getter has
 * read, one message each: "file:line: unknown key 'x' in [group]". The
 * host warns about them after every plugin has been set up.
 *
 * Returns: (transfer full): a %NULL-terminated array, possibly empty
 *
 * Since: 1.0
 */
char **
gg_config_list_unread (GgConfig *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (GG_IS_CONFIG (self), NULL);

  for (guint i = 0; i < self->order->len; i++)
    {
      GgConfigEntry *entry = g_ptr_array_index (self->order, i);
      g_autofree char *message = NULL;
      g_autofree char *location = NULL;

      if (entry->key == NULL || entry->read)
        continue;
      location = location_of (entry);
      message = g_strdup_printf (_("%s: unknown key '%s' in [%s]"),
                                 location, entry->key, entry->group);
      g_strv_builder_add (builder, message);
    }
  return g_strv_builder_end (builder);
}

/**
 * gg_config_list_groups:
 * @self: a #GgConfig
 *
 * Lists the groups of the configuration.
 *
 * Returns: (transfer full): the names of every group, in the order first seen
 *
 * Since: 1.0
 */
char **
gg_config_list_groups (GgConfig *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (GG_IS_CONFIG (self), NULL);

  for (guint i = 0; i < self->order->len; i++)
    {
      GgConfigEntry *entry = g_ptr_array_index (self->order, i);

      if (entry->key == NULL)
        g_strv_builder_add (builder, entry->group);
    }
  return g_strv_builder_end (builder);
}

/**
 * gg_config_list_keys:
 * @self: a #GgConfig
 * @group: a group name
 *
 * Lists the keys set in @group, for plugins whose keys are not fixed names.
 * Does not count as reading them.
 *
 * Returns: (transfer full): the key names, in the order first seen
 *
 * Since: 1.0
 */
char **
gg_config_list_keys (GgConfig   *self,
                     const char *group)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (GG_IS_CONFIG (self), NULL);
  g_return_val_if_fail (group != NULL, NULL);

  for (guint i = 0; i < self->order->len; i++)
    {
      GgConfigEntry *entry = g_ptr_array_index (self->order, i);

      if (entry->key != NULL && g_str_equal (entry->group, group))
        g_strv_builder_add (builder, entry->key);
    }
  return g_strv_builder_end (builder);
}

/**
 * gg_config_get_location:
 * @self: a #GgConfig
 * @group: a group name
 * @key: (nullable): a key name, or %NULL for the group header
 *
 * Where a group or key was set: "file:line", or "command line".
 * Does not count as reading the key.
 *
 * Returns: (transfer full) (nullable): the location, or %NULL if not set
 *
 * Since: 1.0
 */
char *
gg_config_get_location (GgConfig   *self,
                        const char *group,
                        const char *key)
{
  GgConfigEntry *entry;

  g_return_val_if_fail (GG_IS_CONFIG (self), NULL);
  g_return_val_if_fail (group != NULL, NULL);

  entry = lookup (self, group, key);
  return entry != NULL ? location_of (entry) : NULL;
}
