/* gg-config-report.c: the effective configuration, as `gamegate
 * --print-config` shows it: every key a plugin read (with the default it
 * passed) or a file or --set gave, each value with where it came from, and
 * secrets masked. The getters of gg-config.c record each read here.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "gg-config-private.h"

#define MASK "********"

void
_gg_config_read_free (gpointer data)
{
  GgConfigRead *read = data;

  g_free (read->group);
  g_free (read->key);
  g_free (read->default_value);
  g_free (read->env_variable);
  g_free (read);
}

static GgConfigRead *
find_or_add_read (GgConfig   *self,
                  const char *group,
                  const char *key)
{
  g_autofree char *id = _gg_config_entry_id (group, key);
  GgConfigRead *read = g_hash_table_lookup (self->reads, id);

  if (read == NULL)
    {
      read = g_new0 (GgConfigRead, 1);
      read->group = g_strdup (group);
      read->key = g_strdup (key);
      g_ptr_array_add (self->read_order, read);
      g_hash_table_insert (self->reads, g_steal_pointer (&id), read);
    }
  return read;
}

/* Records that a getter read @key with @default_value (NULL: none). */
void
_gg_config_note_read (GgConfig   *self,
                      const char *group,
                      const char *key,
                      const char *default_value)
{
  GgConfigRead *read = find_or_add_read (self, group, key);

  g_free (read->default_value);
  read->default_value = g_strdup (default_value);
}

/**
 * gg_config_get_env:
 * @self: a #GgConfig
 * @group: a group name
 * @key: the key whose default @variable stands in for
 * @variable: an environment variable name
 *
 * Reads an environment variable that replaces the default of @key (a key
 * set in a file or with --set still wins), so that the effective
 * configuration can say the value came from the environment. Does not
 * count as reading @key.
 *
 * Returns: (transfer none) (nullable): the variable's value, or %NULL
 *   when it is unset or empty
 *
 * Since: 1.0
 */
const char *
gg_config_get_env (GgConfig   *self,
                   const char *group,
                   const char *key,
                   const char *variable)
{
  const char *value;
  GgConfigRead *read;

  g_return_val_if_fail (GG_IS_CONFIG (self), NULL);
  g_return_val_if_fail (group != NULL && key != NULL && variable != NULL, NULL);

  value = g_getenv (variable);
  if (value == NULL || *value == '\0')
    return NULL;
  read = find_or_add_read (self, group, key);
  g_free (read->env_variable);
  read->env_variable = g_strdup (variable);
  return value;
}

/* Secrets by the last word of the key's name: token, secret, password, ...
 * or key (api-key, server-token; not api-key-file, max-tokens or
 * session-token-budget, which name a path, a count and a limit). */
static gboolean
is_secret_key (const char *key)
{
  static const char * const secret_words[] = {
    "token", "secret", "password", "passwd", "passphrase", "credential", "credentials",
    "key", "apikey",
  };
  const char *last = key + strlen (key);
  g_autofree char *word = NULL;

  while (last > key && strchr ("-_.", last[-1]) == NULL)
    last--;
  word = g_ascii_strdown (last, -1);
  for (guint s = 0; s < G_N_ELEMENTS (secret_words); s++)
    if (g_str_equal (word, secret_words[s]))
      return TRUE;
  return FALSE;
}

/* A URL's password (`scheme://user:PASSWORD@host`, as in `[a2g] redis`)
 * masked, whatever the key is called; NULL when @value has none. */
static char *
mask_url_password (const char *value)
{
  const char *authority = strstr (value, "://");
  const char *end, *at, *colon;

  if (authority == NULL)
    return NULL;
  authority += 3;
  end = authority + strcspn (authority, "/?#");
  at = g_strrstr_len (authority, end - authority, "@");
  colon = at != NULL ? memchr (authority, ':', at - authority) : NULL;
  if (colon == NULL)
    return NULL;
  return g_strdup_printf ("%.*s%s%s", (int) (colon + 1 - value), value, MASK, at);
}

/**
 * _gg_config_shown_value:
 * @key: a key name
 * @value: its value
 *
 * Returns: (transfer full): @value as a report or an error may show it:
 *   masked whole for a key naming a secret, its password masked in a URL
 */
char *
_gg_config_shown_value (const char *key,
                        const char *value)
{
  char *masked;

  if (is_secret_key (key))
    return g_strdup (MASK);
  masked = mask_url_password (value);
  return masked != NULL ? masked : g_strdup (value);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

static void
append_value (GString    *out,
              const char *key,
              const char *value,
              const char *origin)
{
  if (value == NULL)
    {
      /* TRANSLATORS: a key no file, variable or default gives a value */
      g_string_append_printf (out, "#%s=  # %s\n", key, _("unset"));
      return;
    }
  {
    g_autofree char *shown = _gg_config_shown_value (key, value);

    g_string_append_printf (out, "%s=%s  # %s\n", key, shown, origin);
  }
}

static void
append_key (GgConfig   *self,
            GString    *out,
            const char *group,
            const char *key)
{
  g_autofree char *id = _gg_config_entry_id (group, key);
  GgConfigEntry *entry = g_hash_table_lookup (self->entries, id);
  GgConfigRead *read = g_hash_table_lookup (self->reads, id);

  if (entry != NULL)
    {
      g_autofree char *raw = g_key_file_get_value (self->keyfile, group, key, NULL);
      g_autofree char *origin = NULL;

      if (entry->line > 0)
        /* TRANSLATORS: where a value came from: "file PATH:LINE" */
        origin = g_strdup_printf (_("file %s:%u"), entry->origin, entry->line);
      else
        origin = g_strdup ("--set");
      if (read == NULL && !entry->read)
        {
          g_autofree char *unknown = g_strdup_printf ("%s, %s", origin, _("read by no plugin"));

          append_value (out, key, raw != NULL ? raw : "", unknown);
        }
      else
        append_value (out, key, raw != NULL ? raw : "", origin);
      return;
    }
  if (read != NULL && read->env_variable != NULL)
    {
      g_autofree char *origin = g_strdup_printf (_("environment %s"), read->env_variable);

      append_value (out, key, g_getenv (read->env_variable), origin);
      return;
    }
  append_value (out, key, read != NULL ? read->default_value : NULL, _("default"));
}

/**
 * gg_config_dump_effective:
 * @self: a #GgConfig
 *
 * The effective configuration as key-file text: one `[group]` block per
 * group, sorted, holding every key set in a file or with --set and every key
 * a plugin has read so far, each as `key=value  # origin` where origin is
 * `default`, `file PATH:LINE`, `environment NAME` or `--set`. Keys without
 * any value are shown commented out. Values of keys whose name ends in a
 * word naming a secret (token, secret, password, key, ...) are masked.
 *
 * Returns: (transfer full): the text
 *
 * Since: 1.0
 */
char *
gg_config_dump_effective (GgConfig *self)
{
  g_autoptr(GPtrArray) groups = g_ptr_array_new ();
  g_autoptr(GString) out = g_string_new (NULL);

  g_return_val_if_fail (GG_IS_CONFIG (self), NULL);

  for (guint i = 0; i < self->order->len; i++)
    {
      GgConfigEntry *entry = g_ptr_array_index (self->order, i);

      if (!g_ptr_array_find_with_equal_func (groups, entry->group, g_str_equal, NULL))
        g_ptr_array_add (groups, entry->group);
    }
  for (guint i = 0; i < self->read_order->len; i++)
    {
      GgConfigRead *read = g_ptr_array_index (self->read_order, i);

      if (!g_ptr_array_find_with_equal_func (groups, read->group, g_str_equal, NULL))
        g_ptr_array_add (groups, read->group);
    }
  g_ptr_array_sort (groups, compare_names);

  for (guint g = 0; g < groups->len; g++)
    {
      const char *group = g_ptr_array_index (groups, g);
      g_autoptr(GPtrArray) keys = g_ptr_array_new ();

      for (guint i = 0; i < self->order->len; i++)
        {
          GgConfigEntry *entry = g_ptr_array_index (self->order, i);

          if (entry->key != NULL && g_str_equal (entry->group, group))
            g_ptr_array_add (keys, entry->key);
        }
      for (guint i = 0; i < self->read_order->len; i++)
        {
          GgConfigRead *read = g_ptr_array_index (self->read_order, i);

          if (g_str_equal (read->group, group) &&
              !g_ptr_array_find_with_equal_func (keys, read->key, g_str_equal, NULL))
            g_ptr_array_add (keys, read->key);
        }
      g_ptr_array_sort (keys, compare_names);

      g_string_append_printf (out, "%s[%s]\n", g > 0 ? "\n" : "", group);
      for (guint k = 0; k < keys->len; k++)
        append_key (self, out, group, g_ptr_array_index (keys, k));
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}
