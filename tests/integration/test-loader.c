/* test-loader.c: the plugin loader refuses every broken module with one
 * clear warning and keeps going with the rest; in-process and through
 * `gamegate plugins`.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "gg-plugin-loader.h"
#include "gg-test-util.h"

#define PLUGINS_DIR GG_TEST_BUILDDIR "/plugins"
#define GOOD_DIR PLUGINS_DIR "/good"
#define BROKEN_DIR PLUGINS_DIR "/broken"
#define SHADOW_DIR PLUGINS_DIR "/shadow"

static const char * const hermetic_env[] = {
  "GAMEGATE_PLUGIN_PATH", "GAMEGATE_CONFIG=/dev/null", NULL
};

typedef struct {
  const char *file;
  const char *reason;
} Expected;

static const Expected broken_expected[] = {
  { "abi-major.so", "built for plugin ABI 2.0, this gamegate provides ABI 1.0" },
  { "abi-minor.so", "needs plugin ABI 1.1, newer than this gamegate's 1.0" },
  { "dup-b.so", "another plugin named “test-dup” was already loaded from " BROKEN_DIR "/dup-a.so" },
  { "no-entry.so", "no gg_plugin_describe() entry point" },
  { "no-version.so", "descriptor field 'version' is missing" },
  { "notes.so.txt", "not a shared module (.so)" },
  { "setup-error.so", "setup failed: the fixture's game engine is not installed" },
};

/* ---- in-process ------------------------------------------------------- */

static GgPluginLoader *
new_loader (GgBus *bus, GgConfig *config)
{
  return gg_plugin_loader_new (bus, config);
}

static void
test_refusals_in_process (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GgPluginLoader) loader = new_loader (bus, config);
  g_autoptr(GError) error = NULL;
  GPtrArray *refusals;
  GPtrArray *plugins;

  gg_plugin_loader_add_directory (loader, BROKEN_DIR, TRUE);
  gg_plugin_loader_add_directory (loader, GOOD_DIR, TRUE);
  /* The same directory again, spelled differently: searched once. */
  gg_plugin_loader_add_directory (loader, GOOD_DIR "/../good/", TRUE);

  {
    g_autoptr(GgTestLogCapture) capture =
      gg_test_log_capture_new (G_LOG_DOMAIN, G_LOG_LEVEL_WARNING, "Refusing plugin /*: *");

    g_assert_true (gg_plugin_loader_load_all (loader, &error));
    g_assert_no_error (error);
    /* Exactly one warning per refused module. */
    g_assert_cmpuint (gg_test_log_capture_count (capture), ==, G_N_ELEMENTS (broken_expected));
  }

  refusals = gg_plugin_loader_get_refusals (loader);
  g_assert_cmpuint (refusals->len, ==, G_N_ELEMENTS (broken_expected));
  for (guint i = 0; i < refusals->len; i++)
    {
      GgPluginRefusal *refusal = g_ptr_array_index (refusals, i);
      g_autofree char *path = g_build_filename (BROKEN_DIR, broken_expected[i].file, NULL);

      g_assert_cmpstr (refusal->path, ==, path);
      g_assert_cmpstr (refusal->reason, ==, broken_expected[i].reason);
      g_assert_false (refusal->disabled);
    }

  plugins = gg_plugin_loader_get_plugins (loader);
  g_assert_cmpuint (plugins->len, ==, 2);
  g_assert_cmpstr (gg_plugin_get_name (g_ptr_array_index (plugins, 0)), ==, "test-dup");
  g_assert_cmpstr (gg_plugin_get_path (g_ptr_array_index (plugins, 0)), ==, BROKEN_DIR "/dup-a.so");
  g_assert_cmpstr (gg_plugin_get_name (g_ptr_array_index (plugins, 1)), ==, "test-echo");
  g_assert_cmpstr (gg_plugin_get_version (g_ptr_array_index (plugins, 1)), ==, "1.0.0");
  g_assert_nonnull (gg_bus_lookup_frontend (bus, "echo"));
}

static void
test_config_error_in_process (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GgPluginLoader) loader = new_loader (bus, config);
  g_autoptr(GError) error = NULL;

  g_assert_true (gg_config_load_data (config, "[test-echo]\nmax-line=0\n", "e.conf", &error));
  gg_plugin_loader_add_directory (loader, GOOD_DIR, TRUE);
  g_assert_false (gg_plugin_loader_load_all (loader, &error));
  g_assert_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_INVALID_VALUE);
  g_assert_cmpstr (error->message, ==,
                   "e.conf:2: [test-echo] max-line: expected an integer between 1 and 4096, got “0”");
  g_assert_cmpuint (gg_plugin_loader_get_plugins (loader)->len, ==, 0);
}

static void
test_disabled_in_process (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GgPluginLoader) loader = new_loader (bus, config);
  g_autoptr(GError) error = NULL;
  const char *disabled[] = { " test-echo ", "", NULL };
  GgPluginRefusal *refusal;

  gg_plugin_loader_set_disabled (loader, disabled);
  g_assert_true (gg_plugin_loader_is_disabled (loader, "test-echo"));
  gg_plugin_loader_add_directory (loader, GOOD_DIR, TRUE);
  /* No warning: the user asked for it. */
  g_assert_true (gg_plugin_loader_load_all (loader, &error));
  g_assert_cmpuint (gg_plugin_loader_get_plugins (loader)->len, ==, 0);
  g_assert_cmpuint (gg_plugin_loader_get_refusals (loader)->len, ==, 1);
  refusal = g_ptr_array_index (gg_plugin_loader_get_refusals (loader), 0);
  g_assert_true (refusal->disabled);
  g_assert_cmpstr (refusal->name, ==, "test-echo");
  g_assert_null (gg_bus_lookup_frontend (bus, "echo"));
}

static void
test_missing_directory_in_process (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GgPluginLoader) loader = new_loader (bus, config);
  g_autoptr(GError) error = NULL;

  gg_plugin_loader_add_directory (loader, PLUGINS_DIR "/does-not-exist", FALSE);
  gg_plugin_loader_add_directory (loader, "", TRUE);
  g_assert_true (gg_plugin_loader_load_all (loader, &error));

  gg_plugin_loader_add_directory (loader, PLUGINS_DIR "/also-missing", TRUE);
  {
    g_autoptr(GgTestLogCapture) capture =
      gg_test_log_capture_new (G_LOG_DOMAIN, G_LOG_LEVEL_WARNING,
                               "Cannot search plugin directory " PLUGINS_DIR "/also-missing: *");

    g_assert_true (gg_plugin_loader_load_all (loader, &error));
    g_assert_cmpuint (gg_test_log_capture_count (capture), ==, 1);
  }
  g_assert_cmpuint (gg_plugin_loader_get_refusals (loader)->len, ==, 0);
}

/* ---- through the gamegate binary --------------------------------------- */

static void
test_plugins_listing (void)
{
  const char *args[] = { "--plugin-dir", BROKEN_DIR, "--plugin-dir", GOOD_DIR, "plugins", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GgTestProcess) process = gg_test_process_spawn (args, hermetic_env, &error);
  g_autofree char *out = NULL;
  int status = -1;

  g_assert_no_error (error);
  gg_test_process_close_stdin (process);
  out = gg_test_process_read_stdout (process, gg_test_timeout_ms (20000));
  g_assert_true (gg_test_process_wait (process, gg_test_timeout_ms (20000), &status));
  g_assert_cmpint (status, ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (broken_expected); i++)
    {
      g_autofree char *block = g_strdup_printf ("refused: %s/%s\n  reason: %s\n",
                                                BROKEN_DIR, broken_expected[i].file,
                                                broken_expected[i].reason);
      g_autofree char *warning = g_strdup_printf ("Refusing plugin %s/%s: %s\n",
                                                  BROKEN_DIR, broken_expected[i].file,
                                                  broken_expected[i].reason);
      g_autofree char *any_warning = g_strdup_printf ("Refusing plugin %s/%s:",
                                                      BROKEN_DIR, broken_expected[i].file);

      g_assert_nonnull (strstr (out, block));
      g_assert_cmpuint (gg_test_process_count_in_stderr (process, warning), ==, 1);
      g_assert_cmpuint (gg_test_process_count_in_stderr (process, any_warning), ==, 1);
    }
  g_assert_cmpuint (gg_test_process_count_in_stderr (process, "WARNING"), ==,
                    G_N_ELEMENTS (broken_expected));

  g_assert_nonnull (strstr (out,
                            "test-echo\n"
                            "  version: 1.0.0\n"
                            "  licence: LGPL-2.1-or-later\n"
                            "  path: " GOOD_DIR "/test-echo.so\n"
                            "  description: Echoes lines on stdio and a Unix socket\n"));
  g_assert_nonnull (strstr (out, "test-dup\n  version: 1.0.0\n"));
  g_assert_nonnull (strstr (out, "front ends:\n  echo  Echo lines back (test fixture)\nmodel types: "));
  g_assert_nonnull (strstr (out, "default model: (none)\n"));
  g_assert_null (strstr (out, "Refusing"));
}

static void
test_good_plugin_still_works (void)
{
  const char *args[] = { "--plugin-dir", BROKEN_DIR, "--plugin-dir", GOOD_DIR, "echo", NULL };
  g_autofree char *out = NULL;

  g_assert_cmpint (gg_test_run (args, hermetic_env, "still here\n", &out, NULL), ==, 0);
  g_assert_cmpstr (out, ==, "still here\n");
}

static void
check_winner (const char * const *args,
              const char * const *env,
              const char         *version,
              const char         *winner_dir,
              const char         *loser_dir)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *block = g_strdup_printf ("test-echo\n  version: %s\n  licence: LGPL-2.1-or-later\n"
                                            "  path: %s/test-echo.so\n", version, winner_dir);
  g_autofree char *refusal = g_strdup_printf ("refused: %s/test-echo.so\n  reason: another plugin "
                                              "named “test-echo” was already loaded from %s/test-echo.so\n",
                                              loser_dir, winner_dir);

  g_assert_cmpint (gg_test_run (args, env, NULL, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, block));
  g_assert_nonnull (strstr (out, refusal));
}

static void
test_first_directory_wins (void)
{
  const char *good_first[] = { "--plugin-dir", GOOD_DIR, "--plugin-dir", SHADOW_DIR, "plugins", NULL };
  const char *shadow_first[] = { "plugins", "--plugin-dir", SHADOW_DIR, "--plugin-dir", GOOD_DIR, NULL };
  const char *env_first[] = { "--plugin-dir", GOOD_DIR, "plugins", NULL };
  const char *env[] = { "GAMEGATE_PLUGIN_PATH=" SHADOW_DIR ":" PLUGINS_DIR "/nowhere",
                        "GAMEGATE_CONFIG=/dev/null", NULL };

  check_winner (good_first, hermetic_env, "1.0.0", GOOD_DIR, SHADOW_DIR);
  check_winner (shadow_first, hermetic_env, "9.9.9-shadow", SHADOW_DIR, GOOD_DIR);
  /* GAMEGATE_PLUGIN_PATH is searched before --plugin-dir. */
  check_winner (env_first, env, "9.9.9-shadow", SHADOW_DIR, GOOD_DIR);
}

static void
test_setup_config_error_exits (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("gg-loader-XXXXXX", &error);
  g_autofree char *conf = g_build_filename (dir, "gamegate.conf", NULL);
  const char *args[] = { "--config", conf, "--plugin-dir", BROKEN_DIR, "--plugin-dir", GOOD_DIR,
                         "plugins", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *expected = NULL;

  g_file_set_contents (conf, "[test-echo]\nmax-line=5000\n", -1, &error);
  g_assert_no_error (error);
  expected = g_strdup_printf ("gamegate: %s:2: [test-echo] max-line: expected an integer "
                              "between 1 and 4096, got “5000”\n", conf);
  g_assert_cmpint (gg_test_run (args, hermetic_env, NULL, &out, &err), ==, 2);
  g_assert_cmpstr (out, ==, "");
  g_assert_true (g_str_has_suffix (err, expected));
  g_unlink (conf);
  g_rmdir (dir);
}

/* Files that are not modules, however they are named, and modules anyone
 * could have replaced. */
static void
test_hostile_files (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("gg-loader-XXXXXX", &error);
  g_autofree char *garbage = g_build_filename (dir, "garbage.so", NULL);
  g_autofree char *empty = g_build_filename (dir, "empty.so", NULL);
  g_autofree char *writable = g_build_filename (dir, "writable.so", NULL);
  g_autofree char *subdir = g_build_filename (dir, "subdir.so", NULL);
  g_autofree char *hidden = g_build_filename (dir, ".hidden.so", NULL);
  g_autofree char *dangling = g_build_filename (dir, "dangling.so", NULL);
  g_autofree char *contents = NULL;
  gsize length = 0;
  const char *args[] = { "--plugin-dir", dir, "plugins", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *expect_garbage = g_strdup_printf ("refused: %s\n  reason: cannot open it: ", garbage);
  g_autofree char *expect_empty = g_strdup_printf ("refused: %s\n  reason: cannot open it: ", empty);
  g_autofree char *expect_writable =
    g_strdup_printf ("refused: %s\n  reason: the file is writable by everyone\n", writable);
  g_autofree char *expect_dangling =
    g_strdup_printf ("refused: %s\n  reason: cannot read it: No such file or directory\n", dangling);

  g_assert_no_error (error);
  g_file_set_contents (garbage, "\x7f" "ELF but not really, just text\n", -1, &error);
  g_file_set_contents (empty, "", 0, &error);
  g_file_set_contents (hidden, "", 0, &error);
  g_file_get_contents (GOOD_DIR "/test-echo.so", &contents, &length, &error);
  g_file_set_contents (writable, contents, length, &error);
  g_assert_no_error (error);
  g_chmod (writable, 0666);
  g_mkdir (subdir, 0700);
  g_assert_cmpint (symlink ("nowhere.so", dangling), ==, 0);

  g_assert_cmpint (gg_test_run (args, hermetic_env, NULL, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, expect_garbage));
  g_assert_nonnull (strstr (out, expect_empty));
  g_assert_nonnull (strstr (out, expect_writable));
  g_assert_nonnull (strstr (out, expect_dangling));
  g_assert_null (strstr (out, "subdir.so"));
  g_assert_null (strstr (out, ".hidden.so"));
  g_assert_nonnull (strstr (out, "No plugins loaded."));

  g_unlink (garbage);
  g_unlink (empty);
  g_unlink (writable);
  g_unlink (hidden);
  g_unlink (dangling);
  g_rmdir (subdir);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/loader/in-process/refusals", test_refusals_in_process);
  g_test_add_func ("/loader/in-process/config-error", test_config_error_in_process);
  g_test_add_func ("/loader/in-process/disabled", test_disabled_in_process);
  g_test_add_func ("/loader/in-process/missing-directory", test_missing_directory_in_process);
  g_test_add_func ("/loader/plugins-listing", test_plugins_listing);
  g_test_add_func ("/loader/good-plugin-still-works", test_good_plugin_still_works);
  g_test_add_func ("/loader/first-directory-wins", test_first_directory_wins);
  g_test_add_func ("/loader/setup-config-error-exits", test_setup_config_error_exits);
  g_test_add_func ("/loader/hostile-files", test_hostile_files);

  return g_test_run ();
}
