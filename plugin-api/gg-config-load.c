/* gg-config-load.c: reading key files into a #GgConfig.
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

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "gg-config-private.h"

/* A configuration file is a few kilobytes; anything near this is a mistake
 * (or hostile) and is refused before it is split into lines. */
#define GG_CONFIG_MAX_FILE_SIZE (1024 * 1024)

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

gboolean
_gg_config_is_key_name (const char *key)
{
  if (*key == '\0')
    return FALSE;
  for (const char *k = key; *k != '\0'; k++)
    if (!is_key_char (*k))
      return FALSE;
  return TRUE;
}

gboolean
_gg_config_is_group_name (const char *group)
{
  if (*group == '\0' || !g_utf8_validate (group, -1, NULL))
    return FALSE;
  for (const char *g = group; *g != '\0'; g++)
    if (*g == '[' || *g == ']' || (guchar) *g < 0x20 || *g == 0x7f)
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
          g_autofree char *escape = _gg_config_quote_text (p - 1, g_utf8_next_char (p) - (p - 1));

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
          quoted = _gg_config_quote_text (close + 1, end - (close + 1));
          g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                       _("%s:%u: unexpected “%s” after the group header"),
                       origin, line, quoted);
          return FALSE;
        }
      name = g_strndup (p + 1, close - (p + 1));
      if (!_gg_config_is_group_name (name))
        {
          quoted = _gg_config_quote_text (name, -1);
          g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                       _("%s:%u: invalid group name “%s”"), origin, line, quoted);
          return FALSE;
        }
      first = GPOINTER_TO_UINT (g_hash_table_lookup (seen, name));
      if (first != 0)
        {
          quoted = _gg_config_quote_text (name, -1);
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
          quoted = _gg_config_quote_text (p, end - p);
          g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                       _("%s:%u: expected “key=value”, “[group]” or a comment, got “%s”"),
                       origin, line, quoted);
          return FALSE;
        }
      key_end = eq;
      while (key_end > p && is_blank (key_end[-1]))
        key_end--;
      key = g_strndup (p, key_end - p);
      if (!_gg_config_is_key_name (key))
        {
          quoted = _gg_config_quote_text (key, -1);
          g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                       _("%s:%u: invalid key name “%s” (use letters, digits, “-”, “_” and “.”)"),
                       origin, line, quoted);
          return FALSE;
        }
      if (*current_group == NULL)
        {
          quoted = _gg_config_quote_text (key, -1);
          g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE,
                       _("%s:%u: key “%s” is outside of any group"), origin, line, quoted);
          return FALSE;
        }
      id = _gg_config_entry_id (*current_group, key);
      first = GPOINTER_TO_UINT (g_hash_table_lookup (seen, id));
      if (first != 0)
        {
          g_autofree char *quoted_group = _gg_config_quote_text (*current_group, -1);

          quoted = _gg_config_quote_text (key, -1);
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

      _gg_config_remember (self, parsed->group, parsed->key, origin, parsed->line);
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
 *
 * Since: 1.0
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
 *
 * Since: 1.0
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
