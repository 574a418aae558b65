/* test-gb-discovery.c: the registry reader, scan ranges and the launch
 * declaration: good input, and broken, truncated, oversized and hostile.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "gb-bridge.h"

static char *
tmpdir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("gb-discovery-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static void
rm_rf (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        rm_rf (path);
      else
        g_unlink (path);
    }
  g_rmdir (dir);
}

static void
write_file (const char *dir,
            const char *name,
            const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

static void
test_registry (void)
{
  g_autofree char *dir = tmpdir ();
  g_autofree char *sub = g_build_filename (dir, "sub.json", NULL);
  g_autofree char *big = g_strnfill (70000, ' ');
  g_autoptr(JsonArray) problems = json_array_new ();
  g_autoptr(GHashTable) entries = NULL;
  g_autoptr(GHashTable) none = NULL;
  GbRegistryEntry *e;

  write_file (dir, "100.json", "{\"name\":\"Old\",\"port\":7820,\"pid\":100,\"started\":\"2026-08-20T22:27:19.774Z\"}");
  write_file (dir, "200.json", "{\"name\":\"New\",\"version\":\"0.9.2\",\"protocol\":1,\"port\":7820,\"pid\":200,"
                               "\"host\":\"127.0.0.1\",\"started\":\"2026-08-21T08:00:00Z\",\"cwd\":\"/home/dev\"}");
  write_file (dir, "300.json", "{\"name\":\"No time\",\"port\":7820,\"pid\":300}");
  write_file (dir, "400.json", "{\"name\":\"Other\",\"port\":7821,\"pid\":-5,\"started\":17}");
  write_file (dir, "broken.json", "{\"port\":78");
  write_file (dir, "array.json", "[1]");
  write_file (dir, "noport.json", "{\"name\":\"x\"}");
  write_file (dir, "badport.json", "{\"port\":70000}");
  write_file (dir, "strport.json", "{\"port\":\"7820\"}");
  write_file (dir, "binary.json", "\xff\xfe\x00garbage");
  write_file (dir, "huge.json", big);
  write_file (dir, "ignored.txt", "not an entry");
  write_file (dir, ".hidden.json", "{\"port\":1}");
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);

  entries = gb_registry_read (dir, problems);
  g_assert_cmpuint (g_hash_table_size (entries), ==, 2);
  e = g_hash_table_lookup (entries, GUINT_TO_POINTER (7820));
  /* Two entries for one port: the later `started` wins. */
  g_assert_cmpstr (e->name, ==, "New");
  g_assert_cmpint (e->pid, ==, 200);
  g_assert_cmpstr (e->version, ==, "0.9.2");
  g_assert_cmpint (e->protocol, ==, 1);
  g_assert_cmpstr (e->cwd, ==, "/home/dev");
  e = g_hash_table_lookup (entries, GUINT_TO_POINTER (7821));
  g_assert_cmpint (e->pid, ==, 0);
  g_assert_null (e->started);
  /* Unreadable files are reported, not fatal. */
  g_assert_cmpuint (json_array_get_length (problems), ==, 8);
  for (guint i = 0; i < json_array_get_length (problems); i++)
    {
      JsonObject *p = json_array_get_object_element (problems, i);

      g_assert_true (g_str_has_prefix (json_object_get_string_member (p, "file"), dir));
      g_assert_true (g_utf8_validate (json_object_get_string_member (p, "error"), -1, NULL));
    }
  none = gb_registry_read ("/nonexistent/registry/dir", problems);
  g_assert_cmpuint (g_hash_table_size (none), ==, 0);
  rm_rf (dir);
}

static void
test_scan_range (void)
{
  const struct { const char *spec; guint n; guint first; guint last; } good[] = {
    { "7777,7800-7810", 12, 7777, 7810 },
    { "7777", 1, 7777, 7777 },
    { " 7800 - 7802 , 7801 ", 3, 7800, 7802 },
    { "1-512", 512, 1, 512 },
    { "65535", 1, 65535, 65535 },
  };
  const char *bad[] = { "", ",", "x", "7800-", "-7800", "7810-7800", "0", "65536", "1-2-3", "7777,,7778",
                        "1-513", "1-300,400-700", "99999999999999999999", "7777;7778", "1e3" };
  g_autofree char *huge = g_strnfill (5000, '1');

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GArray) ports = gb_scan_parse_range (good[i].spec, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (ports->len, ==, good[i].n);
      g_assert_cmpuint (g_array_index (ports, guint, 0), ==, good[i].first);
      g_assert_cmpuint (g_array_index (ports, guint, ports->len - 1), ==, good[i].last);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GArray) ports = gb_scan_parse_range (bad[i], &error);

      g_assert_null (ports);
      g_assert_error (error, GB_ERROR, GB_ERROR_USAGE);
    }
  g_assert_null (gb_scan_parse_range (huge, NULL));
  g_assert_null (gb_scan_parse_range (NULL, NULL));
}

static void
test_launch_config (void)
{
  g_autofree char *dir = tmpdir ();
  g_autofree char *deep = g_build_filename (dir, "a", "b", NULL);
  g_autofree char *decl = g_build_filename (dir, "gamebridge.json", NULL);
  g_autofree char *found = NULL;
  g_autofree char *described = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GbLaunchConfig) config = NULL;
  g_autoptr(GbLaunchConfig) argv_config = NULL;
  g_autofree char *argv_decl = NULL;
  const char *bad[] = {
    "", "{", "[]", "{}", "{\"launch\":5}", "{\"launch\":{}}", "{\"launch\":{\"command\":\"\"}}",
    "{\"launch\":{\"argv\":[]}}", "{\"launch\":{\"argv\":[1]}}", "{\"launch\":{\"argv\":[\"\"]}}",
    "{\"launch\":{\"command\":\"x\",\"cwd\":5}}", "{\"launch\":{\"command\":\"x\",\"portRange\":\"a-b\"}}",
    "{\"launch\":{\"command\":\"x\",\"portRange\":\"9-1\"}}", "{\"launch\":{\"command\":\"x\",\"portRange\":7820}}",
    "{\"launch\":{\"command\":\"x\",\"readyTimeoutMs\":0}}", "{\"launch\":{\"command\":\"x\",\"readyTimeoutMs\":\"5\"}}",
    "{\"launch\":{\"command\":\"x\",\"env\":[]}}", "{\"launch\":{\"command\":\"x\",\"env\":{\"A\":1}}}",
    "{\"launch\":{\"command\":\"x\",\"env\":{\"A=B\":\"1\"}}}", "{\"launch\":{\"command\":\"x\",\"env\":{\"\":\"1\"}}}",
  };

  g_assert_cmpint (g_mkdir_with_parents (deep, 0700), ==, 0);
  write_file (dir, "gamebridge.json",
              "{\"name\":\"Orbital Freight\",\"launch\":{\"command\":\"./gradlew run -PdebugPort={port} --console=plain\","
              "\"cwd\":\"a\",\"portRange\":\"7820-7839\",\"readyTimeoutMs\":180000,\"env\":{\"ORBITAL_DEV\":\"1\"}}}");
  /* Found by walking up. */
  found = gb_launch_config_find (deep);
  g_assert_cmpstr (found, ==, decl);
  config = gb_launch_config_load (found, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (config->name, ==, "Orbital Freight");
  g_assert_cmpstr (config->cwd, ==, (g_free (found), found = g_build_filename (dir, "a", NULL)));
  g_assert_cmpuint (config->port_first, ==, 7820);
  g_assert_cmpuint (config->port_last, ==, 7839);
  g_assert_cmpuint (config->ready_timeout_ms, ==, 180000);
  g_assert_cmpstr (config->env[0], ==, "ORBITAL_DEV=1");
  described = gb_launch_config_describe_command (config, 7821);
  g_assert_cmpstr (described, ==, "./gradlew run -PdebugPort=7821 --console=plain");

  /* .gamebridge.json, argv, defaults. */
  write_file (deep, ".gamebridge.json", "{\"launch\":{\"argv\":[\"game\",\"--port\",\"{port}\",\"two words\"]}}");
  argv_decl = gb_launch_config_find (deep);
  g_assert_true (g_str_has_suffix (argv_decl, "/a/b/.gamebridge.json"));
  argv_config = gb_launch_config_load (argv_decl, &error);
  g_assert_no_error (error);
  g_assert_null (argv_config->name);
  g_assert_cmpstr (argv_config->cwd, ==, deep);
  g_assert_cmpuint (argv_config->port_first, ==, 7820);
  g_assert_cmpuint (argv_config->ready_timeout_ms, ==, 180000);
  g_free (described);
  described = gb_launch_config_describe_command (argv_config, 9);
  g_assert_cmpstr (described, ==, "game --port 9 'two words'");

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) bad_error = NULL;
      g_autoptr(GbLaunchConfig) c = NULL;

      write_file (dir, "gamebridge.json", bad[i]);
      c = gb_launch_config_load (decl, &bad_error);
      g_assert_null (c);
      g_assert_error (bad_error, GB_ERROR, GB_ERROR_USAGE);
      g_assert_nonnull (strstr (bad_error->message, decl));
    }
  {
    g_autofree char *huge = g_strnfill (300 * 1024, ' ');
    g_autoptr(GError) huge_error = NULL;

    write_file (dir, "gamebridge.json", huge);
    g_assert_null (gb_launch_config_load (decl, &huge_error));
    g_assert_error (huge_error, GB_ERROR, GB_ERROR_USAGE);
  }
  rm_rf (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gamebridge/discovery/registry-reader", test_registry);
  g_test_add_func ("/gamebridge/discovery/scan-range", test_scan_range);
  g_test_add_func ("/gamebridge/launch/declaration", test_launch_config);
  return g_test_run ();
}
