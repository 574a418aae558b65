/* gg-config.c: the gateway's key file, with errors that name file and line.
 *
 * GKeyFile holds the values, but its own parse errors carry no line numbers,
 * so every file first goes through a line-oriented validation pass here. The
 * pass is at least as strict as GKeyFile, which lets the validated lines be
 * stored with g_key_file_set_value() directly; a file is committed only when
 * every line of it is valid, so a bad file changes nothing.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* A configuration file is a few kilobytes; anything near this is a mistake
 * (or hostile) and is refused before it is split into lines. */
#define GG_CONFIG_MAX_FILE_SIZE (1024 * 1024)

/* Values quoted back in error messages are cut to this many characters. */
#define GG_CONFIG_MAX_QUOTED 48

G_DEFINE_QUARK (gg-config-error-quark, gg_config_error)

typedef struct {
  char *group;
  char *key;        /* NULL for a group header */
  char *origin;     /* file name, or "command line" */
  guint line;       /* 0 when the value did not come from a file */
  gboolean read;
} GgConfigEntry;

struct _GgConfig {
  GObject parent_instance;

  GKeyFile *keyfile;
  char *origin;
  GHashTable *entries;  /* "group\nkey" or "group" -> GgConfigEntry (borrowed) */
  GPtrArray *order;     /* GgConfigEntry, first-seen order (owned) */
};

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

static char *
entry_id (const char *group,
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
}

/**
 * gg_config_new:
 *
 * Creates an empty configuration; every getter returns its default.
 *
 * Returns: (transfer full): a new #GgConfig
 */
GgConfig *
gg_config_new (void)
{
  return g_object_new (GG_TYPE_CONFIG, NULL);
}

/* Records (or refreshes) where a group or key was last set. */
static GgConfigEntry *
remember (GgConfig   *self,
          const char *group,
          const char *key,
          const char *origin,
          guint       line)
{
  g_autofree char *id = entry_id (group, key);
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
  g_autofree char *id = entry_id (group, key);

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

/* Cuts a (valid UTF-8) text to a length fit for an error message. */
static char *
quote_text (const char *text,
            gssize      length)
{
  g_autofree char *copy = length < 0 ? g_strdup (text) : g_strndup (text, length);

  if (g_utf8_strlen (copy, -1) <= GG_CONFIG_MAX_QUOTED)
    return g_steal_pointer (&copy);

  *g_utf8_offset_to_pointer (copy, GG_CONFIG_MAX_QUOTED) = '\0';
  return g_strconcat (copy, "…", NULL);
}

/* ---- the validation pass ---------------------------------------------- */

typedef struct {
  char *group;
  char *key;    /* NULL for a group header */
  char *value;
  guint line;
} ParsedLine;

static void
parsed_line_free (gpointer data)
{
  ParsedLine *parsed = data;

  g_free (parsed->group);
  g_free (parsed->key);
  g_free (parsed->value);
  g_free (parsed);
}

static gboolean
is_blank (char c)
{
  return c == ' ' || c == '\t';
}

static gboolean
is_key_char (char c)
{
  return g_ascii_isalnum (c) || c == '-' || c == '_' || c == '.';
}

static gboolean
is_key_name (const char *key)
{
  if (*key == '\0')
    return FALSE;
  for (const char *k = key; *k != '\0'; k++)
    if (!is_key_char (*k))
      return FALSE;
  return TRUE;
}

/* Checks the escapes GKeyFile understands in both strings and lists. */
static gboolean
check_escapes (const char *value,
               const char *origin,
               guint       line,
               GError    **error)
{
  for (const char *p = value; *p != '\0'; p++)
    {
      if (*p != '\\')
        continue;
      p++;
      if (*p == '\0')
        {
          g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                       _("%s:%u: backslash at the end of the line"), origin, line);
          return FALSE;
        }
      if (strchr ("sntr\\;", *p) == NULL)
        {
          g_autofree char *escape = quote_text (p - 1, g_utf8_next_char (p) - (p - 1));

          g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                       _("%s:%u: invalid escape sequence “%s”"), origin, line, escape);
          return FALSE;
        }
    }
  return TRUE;
}

/* Parses one line (without its terminator) into @lines. */
static gboolean
parse_line (const char  *text,
            gsize        length,
            const char  *origin,
            guint        line,
            char       **current_group,
            GHashTable  *seen,
            GPtrArray   *lines,
            GError     **error)
{
  const char *p = text;
  const char *end = text + length;

  if (memchr (text, '\0', length) != NULL)
    {
      g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                   _("%s:%u: NUL byte in the line"), origin, line);
      return FALSE;
    }
  if (!g_utf8_validate_len (text, length, NULL))
    {
      g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                   _("%s:%u: invalid UTF-8"), origin, line);
      return FALSE;
    }
  for (const char *q = text; q < end; q++)
    {
      if ((((guchar) *q) < 0x20 && *q != '\t') || *q == 0x7f)
        {
          g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                       _("%s:%u: control character 0x%02x in the line"),
                       origin, line, (guint) (guchar) *q);
          return FALSE;
        }
    }

  while (p < end && is_blank (*p))
    p++;
  while (end > p && is_blank (end[-1]))
    end--;

  if (p == end || *p == '#')
    return TRUE;

  if (*p == '[')
    {
      const char *close = memchr (p, ']', end - p);
      g_autofree char *name = NULL;
      g_autofree char *quoted = NULL;
      guint first;
      ParsedLine *parsed;

      if (close == NULL)
        {
          g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                       _("%s:%u: group header without a closing “]”"), origin, line);
          return FALSE;
        }
      if (close + 1 != end)
        {
          quoted = quote_text (close + 1, end - (close + 1));
          g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                       _("%s:%u: unexpected “%s” after the group header"),
                       origin, line, quoted);
          return FALSE;
        }
      name = g_strndup (p + 1, close - (p + 1));
      if (*name == '\0' || strchr (name, '[') != NULL)
        {
          quoted = quote_text (name, -1);
          g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                       _("%s:%u: invalid group name “%s”"), origin, line, quoted);
          return FALSE;
        }
      first = GPOINTER_TO_UINT (g_hash_table_lookup (seen, name));
      if (first != 0)
        {
          quoted = quote_text (name, -1);
          g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                       _("%s:%u: duplicate group [%s] (first at line %u)"),
                       origin, line, quoted, first);
          return FALSE;
        }
      g_hash_table_insert (seen, g_strdup (name), GUINT_TO_POINTER (line));

      parsed = g_new0 (ParsedLine, 1);
      parsed->group = g_strdup (name);
      parsed->line = line;
      g_ptr_array_add (lines, parsed);

      g_free (*current_group);
      *current_group = g_steal_pointer (&name);
      return TRUE;
    }
  else
    {
      const char *eq = memchr (p, '=', end - p);
      const char *key_end;
      const char *value_start;
      g_autofree char *key = NULL;
      g_autofree char *value = NULL;
      g_autofree char *id = NULL;
      g_autofree char *quoted = NULL;
      guint first;
      ParsedLine *parsed;

      if (eq == NULL)
        {
          quoted = quote_text (p, end - p);
          g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                       _("%s:%u: expected “key=value”, “[group]” or a comment, got “%s”"),
                       origin, line, quoted);
          return FALSE;
        }
      key_end = eq;
      while (key_end > p && is_blank (key_end[-1]))
        key_end--;
      key = g_strndup (p, key_end - p);
      if (!is_key_name (key))
        {
          quoted = quote_text (key, -1);
          g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                       _("%s:%u: invalid key name “%s” (use letters, digits, “-”, “_” and “.”)"),
                       origin, line, quoted);
          return FALSE;
        }
      if (*current_group == NULL)
        {
          quoted = quote_text (key, -1);
          g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                       _("%s:%u: key “%s” is outside of any group"), origin, line, quoted);
          return FALSE;
        }
      id = entry_id (*current_group, key);
      first = GPOINTER_TO_UINT (g_hash_table_lookup (seen, id));
      if (first != 0)
        {
          g_autofree char *quoted_group = quote_text (*current_group, -1);

          quoted = quote_text (key, -1);
          g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                       _("%s:%u: duplicate key “%s” in [%s] (first at line %u)"),
                       origin, line, quoted, quoted_group, first);
          return FALSE;
        }

      value_start = eq + 1;
      while (value_start < end && is_blank (*value_start))
        value_start++;
      value = g_strndup (value_start, end - value_start);
      if (!check_escapes (value, origin, line, error))
        return FALSE;

      g_hash_table_insert (seen, g_steal_pointer (&id), GUINT_TO_POINTER (line));
      parsed = g_new0 (ParsedLine, 1);
      parsed->group = g_strdup (*current_group);
      parsed->key = g_steal_pointer (&key);
      parsed->value = g_steal_pointer (&value);
      parsed->line = line;
      g_ptr_array_add (lines, parsed);
      return TRUE;
    }
}

static gboolean
load_bytes (GgConfig    *self,
            const char  *data,
            gsize        length,
            const char  *origin,
            GError     **error)
{
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (parsed_line_free);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *current_group = NULL;
  gsize pos = 0;
  guint line = 0;

  if (length > GG_CONFIG_MAX_FILE_SIZE)
    {
      g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                   _("%s: the file is larger than %u bytes"), origin,
                   (guint) GG_CONFIG_MAX_FILE_SIZE);
      return FALSE;
    }

  /* Some editors start UTF-8 files with a byte order mark. */
  if (length >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    pos = 3;

  while (pos < length)
    {
      const char *start = data + pos;
      const char *newline = memchr (start, '\n', length - pos);
      gsize line_length = newline != NULL ? (gsize) (newline - start) : length - pos;

      pos += line_length + (newline != NULL ? 1 : 0);
      line++;
      /* CRLF files are accepted, like GKeyFile does. */
      if (line_length > 0 && start[line_length - 1] == '\r')
        line_length--;
      if (!parse_line (start, line_length, origin, line, &current_group, seen, lines, error))
        return FALSE;
    }

  /* Every line is valid: commit. Later files override earlier keys. */
  for (guint i = 0; i < lines->len; i++)
    {
      ParsedLine *parsed = g_ptr_array_index (lines, i);

      remember (self, parsed->group, parsed->key, origin, parsed->line);
      if (parsed->key != NULL)
        g_key_file_set_value (self->keyfile, parsed->group, parsed->key, parsed->value);
    }
  g_free (self->origin);
  self->origin = g_strdup (origin);
  return TRUE;
}

/**
 * gg_config_load_file:
 * @self: a #GgConfig
 * @path: the file to read
 * @error: return location for a #GError
 *
 * Reads @path. Keys it sets override those of files loaded before. On error
 * (%G_FILE_ERROR when the file cannot be read, %GG_CONFIG_ERROR_PARSE with a
 * "file:line: what" message when it is not valid) nothing is changed.
 *
 * Returns: %TRUE on success
 */
gboolean
gg_config_load_file (GgConfig    *self,
                     const char  *path,
                     GError     **error)
{
  g_autoptr(GByteArray) contents = g_byte_array_new ();
  int fd;

  g_return_val_if_fail (GG_IS_CONFIG (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    {
      int saved_errno = errno;
      g_autofree char *display = g_filename_display_name (path);

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("Cannot open %s: %s"), display, g_strerror (saved_errno));
      return FALSE;
    }

  /* Read at most one byte past the limit: /dev/zero or a huge file is
   * refused without being read whole. */
  while (contents->len <= GG_CONFIG_MAX_FILE_SIZE)
    {
      guint8 buffer[8192];
      gssize n = read (fd, buffer, sizeof buffer);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved_errno = errno;
          g_autofree char *display = g_filename_display_name (path);

          g_close (fd, NULL);
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                       _("Cannot read %s: %s"), display, g_strerror (saved_errno));
          return FALSE;
        }
      if (n == 0)
        break;
      g_byte_array_append (contents, buffer, n);
    }
  g_close (fd, NULL);

  return load_bytes (self, (const char *) contents->data, contents->len, path, error);
}

/**
 * gg_config_load_data:
 * @self: a #GgConfig
 * @data: key file text (NUL-terminated)
 * @origin: the name errors use for it, e.g. a file name
 * @error: return location for a #GError
 *
 * Like gg_config_load_file() for text already in memory.
 *
 * Returns: %TRUE on success
 */
gboolean
gg_config_load_data (GgConfig    *self,
                     const char  *data,
                     const char  *origin,
                     GError     **error)
{
  g_return_val_if_fail (GG_IS_CONFIG (self), FALSE);
  g_return_val_if_fail (data != NULL, FALSE);
  g_return_val_if_fail (origin != NULL, FALSE);

  return load_bytes (self, data, strlen (data), origin, error);
}

/**
 * gg_config_get_origin:
 * @self: a #GgConfig
 *
 * Returns: (nullable): the origin of the file loaded last, or %NULL
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
 * @group: a group name
 * @key: a key name
 * @value: the value, written as in a key file (escapes allowed)
 *
 * Overrides a key from the command line; errors about it name the origin
 * "command line", and gg_config_list_unread() reports it when no plugin
 * reads it, like a key from a file.
 */
void
gg_config_set_value (GgConfig   *self,
                     const char *group,
                     const char *key,
                     const char *value)
{
  g_return_if_fail (GG_IS_CONFIG (self));
  g_return_if_fail (group != NULL && key != NULL && value != NULL);

  if (lookup (self, group, NULL) == NULL)
    remember (self, group, NULL, _("command line"), 0);
  remember (self, group, key, _("command line"), 0);
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
 * Returns: (transfer full) (nullable): the unescaped value, or a copy of
 *   @default_value
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
 * Reads a ";"-separated list ("\;" for a literal ";").
 *
 * Returns: (transfer full) (nullable): the items, or %NULL if the key is not set
 */
char **
gg_config_get_string_list (GgConfig   *self,
                           const char *group,
                           const char *key)
{
  char **list;

  g_return_val_if_fail (GG_IS_CONFIG (self), NULL);
  g_return_val_if_fail (group != NULL && key != NULL, NULL);

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
  g_autofree char *quoted = quote_text (raw != NULL ? raw : "", -1);

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

  entry = lookup_read (self, group, key);
  if (entry == NULL)
    {
      *out_value = default_value;
      return TRUE;
    }
  raw = g_key_file_get_value (self->keyfile, group, key, NULL);
  if (raw == NULL || !g_ascii_string_to_signed (raw, 10, min, max, &value, NULL))
    {
      g_autofree char *what =
        g_strdup_printf (_("expected an integer between %" G_GINT64_FORMAT
                           " and %" G_GINT64_FORMAT), min, max);
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
 * read, one message each: "file:line: unknown key 'x' in [group]". The host warns about them after
 * every plugin has been set up.
 *
 * Returns: (transfer full): a %NULL-terminated array, possibly empty
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
 * Returns: (transfer full): the names of every group, in the order first seen
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
