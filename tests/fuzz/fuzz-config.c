/* fuzz-config.c: the configuration loader on any bytes. A file it refuses
 * must change nothing; one it accepts is read back through every typed
 * getter, each of which either gives a value or names the bad one.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gamegate.h>

#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GgConfig) config = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) groups = NULL;
  g_auto(GStrv) unread = NULL;

  fuzz_init ();
  /* The loader reads NUL-terminated text; a NUL inside is refused. */
  text = g_strndup ((const char *) data, size);
  config = gg_config_new ();
  gg_config_set_value (config, "base", "kept", "1");
  if (!gg_config_load_data (config, text, "fuzz.conf", &error))
    {
      g_auto(GStrv) left = gg_config_list_groups (config);

      g_assert_nonnull (error);
      g_assert_cmpuint (g_strv_length (left), ==, 1);
      g_assert_true (gg_config_has_key (config, "base", "kept"));
      return 0;
    }
  g_assert_no_error (error);

  groups = gg_config_list_groups (config);
  for (guint i = 0; groups[i] != NULL; i++)
    {
      g_auto(GStrv) keys = gg_config_list_keys (config, groups[i]);

      for (guint j = 0; keys[j] != NULL; j++)
        {
          g_autofree char *s = gg_config_get_string (config, groups[i], keys[j], NULL);
          g_auto(GStrv) list = gg_config_get_string_list (config, groups[i], keys[j]);
          g_autofree char *where = gg_config_get_location (config, groups[i], keys[j]);
          gint64 n;
          double d;
          gboolean b;

          g_assert_true (s != NULL || !gg_config_has_key (config, groups[i], keys[j]));
          g_assert_nonnull (list);
          g_assert_nonnull (where);
          if (!gg_config_get_int (config, groups[i], keys[j], -1000, 1000, 0, &n, &error))
            g_assert_nonnull (error);
          g_clear_error (&error);
          if (!gg_config_get_double (config, groups[i], keys[j], -1e6, 1e6, 0, &d, &error))
            g_assert_nonnull (error);
          g_clear_error (&error);
          if (!gg_config_get_boolean (config, groups[i], keys[j], FALSE, &b, &error))
            g_assert_nonnull (error);
          g_clear_error (&error);
        }
    }
  unread = gg_config_list_unread (config);
  return 0;
}
