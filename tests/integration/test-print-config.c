/* test-print-config.c: `gamegate --print-config` on the built plugins: every
 * value with its origin (default, file:line, environment, --set), secrets
 * masked, keys no plugin reads marked, and configuration errors naming the
 * file and line.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "gg-test-util.h"

#define TOKEN_FROM_ENV "envtoken-0123456789abcdef0123456789abcdef"
#define TOKEN_IN_FILE "filetoken-0123456789abcdef0123456789abcdef"
#define KEY_IN_FILE "sk-key-file-contents-never-printed"

typedef struct {
  char *dir;
  char *conf;
  char *key_file;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;

  f->dir = g_dir_make_tmp ("gg-print-config-XXXXXX", &error);
  g_assert_no_error (error);
  f->conf = g_build_filename (f->dir, "gamegate.conf", NULL);
  f->key_file = g_build_filename (f->dir, "api-key", NULL);
  g_file_set_contents (f->key_file, KEY_IN_FILE "\n", -1, &error);
  g_assert_no_error (error);
  g_chmod (f->key_file, 0600);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  g_unlink (f->conf);
  g_unlink (f->key_file);
  g_rmdir (f->dir);
  g_free (f->conf);
  g_free (f->key_file);
  g_free (f->dir);
}

static void
write_conf (Fixture *f, const char *contents)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (f->conf, contents, -1, &error);
  g_assert_no_error (error);
}

/* The line of @text that starts with "KEY=" inside [GROUP], or NULL. */
static char *
find_line (const char *text, const char *group, const char *key)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  g_autofree char *header = g_strdup_printf ("[%s]", group);
  g_autofree char *prefix = g_strdup_printf ("%s=", key);
  g_autofree char *unset_prefix = g_strdup_printf ("#%s=", key);
  gboolean in_group = FALSE;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (lines[i][0] == '[')
        in_group = g_str_equal (lines[i], header);
      else if (in_group && (g_str_has_prefix (lines[i], prefix) ||
                            g_str_has_prefix (lines[i], unset_prefix)))
        return g_strdup (lines[i]);
    }
  return NULL;
}

static void
assert_line (const char *text, const char *group, const char *key, const char *expected)
{
  g_autofree char *line = find_line (text, group, key);

  if (line == NULL)
    g_error ("no [%s] %s in:\n%s", group, key, text);
  g_assert_cmpstr (line, ==, expected);
}

static gboolean
has_group (const char *text, const char *group)
{
  g_autofree char *header = g_strdup_printf ("[%s]\n", group);

  return strstr (text, header) != NULL;
}

static void
test_origins (Fixture *f, gconstpointer data)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *expected = NULL;
  const char *args[] = { "--config", f->conf, "--set", "oam.max-sessions=3",
                         "--set", "oam.max-sesions=4", "--print-config", NULL };
  const char *env[] = { "GAME_BRIDGE_HTTP_PORT=0", "GABP_TOKEN", NULL };

  write_conf (f,
              "# a comment\n"
              "[gateway]\n"
              "default-model=scripted\n"
              "\n"
              "[oam]\n"
              "max-npcs=5\n"
              "max-sessions=9\n");
  g_assert_cmpint (gg_test_run (args, env, NULL, &out, &err), ==, 0);
  if (!has_group (out, "oam"))
    {
      g_test_skip ("the oam plugin is not built");
      return;
    }

  expected = g_strdup_printf ("default-model=scripted  # file %s:3", f->conf);
  assert_line (out, "gateway", "default-model", expected);
  assert_line (out, "gateway", "disabled-plugins", "#disabled-plugins=  # unset");
  g_free (expected);
  expected = g_strdup_printf ("max-npcs=5  # file %s:6", f->conf);
  assert_line (out, "oam", "max-npcs", expected);
  /* --set wins over the file. */
  assert_line (out, "oam", "max-sessions", "max-sessions=3  # --set");
  assert_line (out, "oam", "max-sesions", "max-sesions=4  # --set, read by no plugin");
  assert_line (out, "oam", "max-worlds", "max-worlds=64  # default");
  assert_line (out, "oam", "scripted-models", "scripted-models=true  # default");
  assert_line (out, "oam", "tool-timeout", "tool-timeout=120  # default");
  assert_line (out, "oam", "socket", "#socket=  # unset");
  if (has_group (out, "gamebridge"))
    assert_line (out, "gamebridge", "http-port", "http-port=0  # environment GAME_BRIDGE_HTTP_PORT");
  /* Only the configuration: no plugin list, no warnings about the typo. */
  g_assert_true (g_regex_match_simple ("^\\[[a-z0-9-]+\\]\n", out, 0, 0));
  g_assert_null (strstr (err, "unknown key"));
}

static void
test_secrets_masked (Fixture *f, gconstpointer data)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *expected = NULL;
  const char *args[] = { "--config", f->conf, "--print-config", NULL };
  const char *env[] = { "GABP_TOKEN=" TOKEN_FROM_ENV, NULL };
  int status;

  contents = g_strdup_printf ("[model-openai]\n"
                              "api-key-file=%s\n"
                              "[gabp]\n"
                              "server=false\n"
                              "[custom]\n"
                              "password=hunter2-never-printed\n"
                              "auth-token=tok-never-printed\n"
                              "max-tokens=12\n"
                              "session-token-budget=500\n"
                              "rimworld.token=mod-token-never-printed\n"
                              "store=tcp://:url-password-never-printed@127.0.0.1:6379\n"
                              "page=https://example.com/a:b@c\n",
                              f->key_file);
  write_conf (f, contents);
  status = gg_test_run (args, env, NULL, &out, &err);
  g_assert_cmpint (status, ==, 0);

  g_assert_null (strstr (out, TOKEN_FROM_ENV));
  g_assert_null (strstr (err, TOKEN_FROM_ENV));
  g_assert_null (strstr (out, KEY_IN_FILE));
  g_assert_null (strstr (err, KEY_IN_FILE));
  g_assert_null (strstr (out, "hunter2"));
  g_assert_null (strstr (out, "tok-never"));
  expected = g_strdup_printf ("password=********  # file %s:6, read by no plugin", f->conf);
  assert_line (out, "custom", "password", expected);
  g_free (expected);
  expected = g_strdup_printf ("auth-token=********  # file %s:7, read by no plugin", f->conf);
  assert_line (out, "custom", "auth-token", expected);
  /* "tokens" is not "token": a limit is shown. */
  g_free (expected);
  expected = g_strdup_printf ("max-tokens=12  # file %s:8, read by no plugin", f->conf);
  assert_line (out, "custom", "max-tokens", expected);
  /* Nor is a budget of tokens; a mod's token is. */
  g_free (expected);
  expected = g_strdup_printf ("session-token-budget=500  # file %s:9, read by no plugin", f->conf);
  assert_line (out, "custom", "session-token-budget", expected);
  g_free (expected);
  expected = g_strdup_printf ("rimworld.token=********  # file %s:10, read by no plugin", f->conf);
  assert_line (out, "custom", "rimworld.token", expected);
  g_assert_null (strstr (out, "mod-token"));
  /* A URL's password, whatever the key is called; an @ past the host is no password. */
  g_free (expected);
  expected = g_strdup_printf ("store=tcp://:********@127.0.0.1:6379  # file %s:11, read by no plugin", f->conf);
  assert_line (out, "custom", "store", expected);
  g_assert_null (strstr (out, "url-password"));
  g_free (expected);
  expected = g_strdup_printf ("page=https://example.com/a:b@c  # file %s:12, read by no plugin", f->conf);
  assert_line (out, "custom", "page", expected);

  if (has_group (out, "model-openai"))
    {
      /* The file's name is shown, never what it holds. */
      g_free (expected);
      expected = g_strdup_printf ("api-key-file=%s  # file %s:2", f->key_file, f->conf);
      assert_line (out, "model-openai", "api-key-file", expected);
    }
  if (has_group (out, "gabp"))
    assert_line (out, "gabp", "server-token", "server-token=********  # environment GABP_TOKEN");

  /* A token in the file is masked too, with its origin. */
  g_free (out);
  g_free (err);
  write_conf (f, "[gabp]\nserver=false\nserver-token=" TOKEN_IN_FILE "\n");
  status = gg_test_run (args, env, NULL, &out, &err);
  g_assert_cmpint (status, ==, 0);
  g_assert_null (strstr (out, TOKEN_IN_FILE));
  g_assert_null (strstr (err, TOKEN_IN_FILE));
  if (has_group (out, "gabp"))
    {
      g_free (expected);
      expected = g_strdup_printf ("server-token=********  # file %s:3", f->conf);
      assert_line (out, "gabp", "server-token", expected);
    }
}

static void
test_error_names_file_and_line (Fixture *f, gconstpointer data)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *expected = NULL;
  const char *args[] = { "--config", f->conf, "--print-config", NULL };

  write_conf (f, "[oam]\nmax-npcs=5\nthis is not a key file line\n");
  g_assert_cmpint (gg_test_run (args, NULL, NULL, &out, &err), ==, 2);
  g_assert_cmpstr (out, ==, "");
  expected = g_strdup_printf ("gamegate: %s:3:", f->conf);
  g_assert_true (g_str_has_prefix (err, expected));

  /* A value a plugin refuses: named by file and line as well. */
  g_free (out);
  g_free (err);
  write_conf (f, "[oam]\n\nmax-npcs=lots\n");
  g_assert_cmpint (gg_test_run (args, NULL, NULL, &out, &err), !=, 0);
  g_free (expected);
  expected = g_strdup_printf ("%s:3: [oam] max-npcs: expected an integer", f->conf);
  if (strstr (err, "[oam]") != NULL || strstr (out, "[oam]") != NULL)
    g_assert_nonnull (strstr (err, expected));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/print-config/origins", Fixture, NULL, fixture_setup, test_origins, fixture_teardown);
  g_test_add ("/print-config/secrets-masked", Fixture, NULL, fixture_setup, test_secrets_masked,
              fixture_teardown);
  g_test_add ("/print-config/error-names-file-and-line", Fixture, NULL, fixture_setup,
              test_error_names_file_and_line, fixture_teardown);
  return g_test_run ();
}
