/* fuzz-gb-registry.c: gamebridge's instance registry reader (the files
 * games write into the registry directory). The input is up to eight
 * entry files separated by NUL bytes, written into a fresh directory;
 * every file is either an entry or a problem naming the file.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>

#include "fuzz-common.h"
#include "gb-bridge.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *dir = g_dir_make_tmp ("gg-fuzz-registry-XXXXXX", NULL);
  FuzzInput in = { data, size };
  g_autoptr(JsonArray) problems = json_array_new ();
  g_autoptr(GHashTable) entries = NULL;
  guint files = 0;

  fuzz_init ();
  g_assert_nonnull (dir);
  while (in.size > 0 && files < 8)
    {
      gsize length;
      g_autofree char *body = fuzz_input_piece (&in, '\0', &length);
      g_autofree char *name = g_strdup_printf ("game-%u.json", files++);
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_assert_true (g_file_set_contents (path, body, (gssize) length, NULL));
    }
  entries = gb_registry_read (dir, problems);
  g_assert_nonnull (entries);
  g_assert_cmpuint (g_hash_table_size (entries) + json_array_get_length (problems), <=, files);
  for (guint i = 0; i < files; i++)
    {
      g_autofree char *name = g_strdup_printf ("game-%u.json", i);
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_remove (path);
    }
  g_rmdir (dir);
  return 0;
}
