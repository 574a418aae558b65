/* fuzz-main.c: the plain build's driver. Linked into every fuzz target
 * when the build is not a libFuzzer one, it feeds each seed file (or each
 * file of each directory) named on the command line to the target once, so
 * the regression corpus runs under the normal suite, asan and valgrind.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib.h>
#include <string.h>

#include "fuzz-common.h"

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

static gboolean
replay_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree guint8 *exact = NULL;
  gsize length = 0;

  if (!g_file_get_contents (path, &contents, &length, &error))
    {
      g_printerr ("fuzz-replay: %s\n", error->message);
      return FALSE;
    }
  /* Exactly @length bytes, no terminating NUL: a read past the end is
   * caught by the sanitizers as libFuzzer would catch it. */
  exact = g_memdup2 (contents, MAX (length, 1));
  LLVMFuzzerTestOneInput (exact, length);
  return TRUE;
}

int
main (int    argc,
      char **argv)
{
  static const uint8_t empty[1];
  guint replayed = 0;

  /* libFuzzer always runs the empty input first; so does the replay. */
  LLVMFuzzerTestOneInput (empty, 0);
  for (int i = 1; i < argc; i++)
    {
      if (g_file_test (argv[i], G_FILE_TEST_IS_DIR))
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(GDir) dir = g_dir_open (argv[i], 0, &error);
          g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
          const char *name;

          if (dir == NULL)
            {
              g_printerr ("fuzz-replay: %s\n", error->message);
              return 1;
            }
          while ((name = g_dir_read_name (dir)) != NULL)
            g_ptr_array_add (names, g_build_filename (argv[i], name, NULL));
          g_ptr_array_sort (names, compare_names);
          for (guint j = 0; j < names->len; j++)
            {
              if (!replay_file (names->pdata[j]))
                return 1;
              replayed++;
            }
        }
      else
        {
          if (!replay_file (argv[i]))
            return 1;
          replayed++;
        }
    }
  g_print ("fuzz-replay: %u inputs replayed\n", replayed);
  /* A missing or empty corpus is a broken test, not a pass. */
  return replayed > 0 ? 0 : 1;
}
