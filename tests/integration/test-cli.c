/* test-cli.c: the `gamegate` command line, driven as a user would.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "gg-test-util.h"

#define GOOD_DIR GG_TEST_BUILDDIR "/plugins/good"

/* Only the fixture plugins, and no user configuration. */
static const char * const hermetic_env[] = {
  "GAMEGATE_PLUGIN_PATH", "GAMEGATE_CONFIG=/dev/null", NULL
};

typedef struct {
  char *dir;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;

  f->dir = g_dir_make_tmp ("gg-cli-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  g_autoptr(GFile) dir = g_file_new_for_path (f->dir);
  g_autoptr(GFileEnumerator) e = NULL;
  GFileInfo *info;

  /* Two levels are all the tests create. */
  e = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME, 0, NULL, NULL);
  while (e != NULL && (info = g_file_enumerator_next_file (e, NULL, NULL)) != NULL)
    {
      g_autoptr(GFile) child = g_file_get_child (dir, g_file_info_get_name (info));
      g_autoptr(GFileEnumerator) e2 = g_file_enumerate_children (child, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                                                 0, NULL, NULL);
      GFileInfo *info2;

      while (e2 != NULL && (info2 = g_file_enumerator_next_file (e2, NULL, NULL)) != NULL)
        {
          g_autoptr(GFile) grandchild = g_file_get_child (child, g_file_info_get_name (info2));

          g_file_delete (grandchild, NULL, NULL);
          g_object_unref (info2);
        }
      g_file_delete (child, NULL, NULL);
      g_object_unref (info);
    }
  g_file_delete (dir, NULL, NULL);
  g_free (f->dir);
}

static char *
write_file (Fixture *f, const char *name, const char *contents)
{
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (f->dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);

  g_mkdir_with_parents (parent, 0700);
  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  return path;
}

static void
test_version (void)
{
  const char *args[] = { "--version", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  g_assert_cmpint (gg_test_run (args, hermetic_env, NULL, &out, &err), ==, 0);
  g_assert_cmpstr (out, ==, "gamegate " PACKAGE_VERSION " (plugin ABI 1.0)\n");
  g_assert_cmpstr (err, ==, "");
}

static void
test_help (void)
{
  const char *args[] = { "--plugin-dir", GOOD_DIR, "--help", NULL };
  const char *echo_args[] = { "echo", "--help", "--plugin-dir", GOOD_DIR, NULL };
  g_autofree char *out = NULL;
  g_autofree char *echo_out = NULL;

  g_assert_cmpint (gg_test_run (args, hermetic_env, NULL, &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "Commands:"));
  g_assert_nonnull (strstr (out, "  serve "));
  g_assert_nonnull (strstr (out, "  plugins "));
  g_assert_nonnull (strstr (out, "  echo      Echo lines back (test fixture)"));
  g_assert_nonnull (strstr (out, "--config=FILE"));
  g_assert_nonnull (strstr (out, "--plugin-dir=DIR"));
  g_assert_nonnull (strstr (out, "--verbose"));
  g_assert_null (strstr (out, "--prefix"));

  /* A front end's own options appear in its help. */
  g_assert_cmpint (gg_test_run (echo_args, hermetic_env, NULL, &echo_out, NULL), ==, 0);
  g_assert_nonnull (strstr (echo_out, "--prefix=TEXT"));
}

static void
test_usage_errors (void)
{
  static const struct { const char *args[6]; const char *message; } cases[] = {
    { { "--plugin-dir", GOOD_DIR, "bogus", NULL },
      "gamegate: unknown command “bogus”; run “gamegate --help” to list the commands\n" },
    { { "--plugin-dir", GOOD_DIR, "--bogus", NULL }, "gamegate: Unknown option --bogus\n" },
    { { "--plugin-dir", GOOD_DIR, "plugins", "extra", NULL },
      "gamegate: Unexpected argument “extra”\n" },
    { { "--plugin-dir", GOOD_DIR, "echo", "--prefix", NULL },
      "gamegate: Missing argument for --prefix\n" },
    { { "--plugin-dir", NULL }, "gamegate: Missing argument for --plugin-dir\n" },
    { { "--set", "no-dot=1", NULL }, "gamegate: Invalid --set “no-dot=1”: expected GROUP.KEY=VALUE\n" },
    { { "--set", "test-echo.max-line", NULL },
      "gamegate: Invalid --set “test-echo.max-line”: expected GROUP.KEY=VALUE\n" },
    { { "--set", ".key=1", NULL }, "gamegate: Invalid --set “.key=1”: expected GROUP.KEY=VALUE\n" },
    { { "--set", "Group[x].key=1", NULL },
      "gamegate: Invalid --set “Group[x].key=1”: expected GROUP.KEY=VALUE\n" },
    { { "--plugin-dir", GOOD_DIR, "x\xff\xfe", NULL },
      "gamegate: unknown command “x\xef\xbf\xbd\xef\xbf\xbd”; run “gamegate --help” to list the commands\n" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;

      g_assert_cmpint (gg_test_run (cases[i].args, hermetic_env, NULL, &out, &err), ==, 2);
      g_assert_cmpstr (out, ==, "");
      g_assert_cmpstr (err, ==, cases[i].message);
    }
}

static void
test_oversized_arguments (void)
{
  g_autofree char *huge = g_strnfill (100000, 'y');
  g_autofree char *huge_set = g_strconcat ("test-echo.", huge, "=1", NULL);
  const char *args[] = { "--plugin-dir", GOOD_DIR, huge, NULL };
  const char *set_args[] = { "--set", huge_set, "plugins", NULL };
  g_autofree char *err = NULL;
  g_autofree char *set_err = NULL;

  /* Errors quote the start of what was typed, not all of it. */
  g_assert_cmpint (gg_test_run (args, hermetic_env, NULL, NULL, &err), ==, 2);
  g_assert_cmpuint (strlen (err), <, 200);
  g_assert_nonnull (strstr (err, "unknown command “yyyy"));
  g_assert_cmpint (gg_test_run (set_args, hermetic_env, NULL, NULL, &set_err), ==, 0);
}

static void
test_set_option (void)
{
  const char *bad[] = { "--plugin-dir", GOOD_DIR, "echo", "--set", "test-echo.max-line=abc", NULL };
  const char *typo[] = { "--set", "test-echo.typo=1", "--plugin-dir", GOOD_DIR, "--set", "test-echo.max-line=8",
                         "echo", NULL };
  g_autofree char *err = NULL;
  g_autofree char *out = NULL;
  g_autofree char *typo_err = NULL;

  g_assert_cmpint (gg_test_run (bad, hermetic_env, NULL, NULL, &err), ==, 2);
  g_assert_cmpstr (err, ==, "gamegate: command line: [test-echo] max-line: expected an integer between 1 "
                            "and 4096, got “abc”\n");
  /* max-line=8 is in effect, and the typo is reported. */
  g_assert_cmpint (gg_test_run (typo, hermetic_env, "12345678\n123456789\n", &out, &typo_err), ==, 0);
  g_assert_cmpstr (out, ==, "12345678\nerror: line too long\n");
  g_assert_nonnull (strstr (typo_err, "command line: unknown key 'typo' in [test-echo]"));
  g_assert_null (strstr (typo_err, "max-line"));
}

static void
test_bad_config (Fixture *f, gconstpointer data)
{
  g_autofree char *bad = write_file (f, "bad.conf", "[gateway]\n# fine\nnot a key line\n");
  g_autofree char *good = write_file (f, "good.conf", "[gateway]\n");
  g_autofree char *missing = g_build_filename (f->dir, "missing.conf", NULL);
  g_autofree char *expected = g_strdup_printf (
    "gamegate: %s:3: expected “key=value”, “[group]” or a comment, got “not a key line”\n", bad);
  g_autofree char *env_bad = g_strconcat ("GAMEGATE_CONFIG=", bad, NULL);
  g_autofree char *env_good = g_strconcat ("GAMEGATE_CONFIG=", good, NULL);
  const char *args_option[] = { "--config", bad, "plugins", NULL };
  const char *args_plain[] = { "plugins", NULL };
  const char *args_good_option[] = { "plugins", "--config", good, NULL };
  const char *args_missing[] = { "--config", missing, "plugins", NULL };
  const char *env_with_bad[] = { "GAMEGATE_PLUGIN_PATH", env_bad, NULL };
  const char *env_with_good[] = { "GAMEGATE_PLUGIN_PATH", env_good, NULL };
  g_autofree char *err1 = NULL;
  g_autofree char *err2 = NULL;
  g_autofree char *err3 = NULL;
  g_autofree char *out3 = NULL;
  g_autofree char *err4 = NULL;

  /* From --config, and from GAMEGATE_CONFIG. */
  g_assert_cmpint (gg_test_run (args_option, env_with_good, NULL, NULL, &err1), ==, 2);
  g_assert_cmpstr (err1, ==, expected);
  g_assert_cmpint (gg_test_run (args_plain, env_with_bad, NULL, NULL, &err2), ==, 2);
  g_assert_cmpstr (err2, ==, expected);

  /* --config wins over GAMEGATE_CONFIG. */
  g_assert_cmpint (gg_test_run (args_good_option, env_with_bad, NULL, &out3, &err3), ==, 0);
  g_assert_nonnull (strstr (out3, "default model: (none)"));

  /* A --config file that does not exist is an error, too. */
  g_assert_cmpint (gg_test_run (args_missing, hermetic_env, NULL, NULL, &err4), ==, 2);
  g_assert_nonnull (strstr (err4, missing));
}

static void
test_user_config (Fixture *f, gconstpointer data)
{
  g_autofree char *user = write_file (f, "gamegate/gamegate.conf", "[gateway]\ndefault-model = {\"type\": \n");
  g_autofree char *xdg = g_strconcat ("XDG_CONFIG_HOME=", f->dir, NULL);
  g_autofree char *empty_xdg = g_strconcat ("XDG_CONFIG_HOME=", f->dir, "/nowhere", NULL);
  const char *env_user[] = { "GAMEGATE_PLUGIN_PATH", "GAMEGATE_CONFIG", xdg, NULL };
  const char *env_overridden[] = { "GAMEGATE_PLUGIN_PATH", "GAMEGATE_CONFIG=/dev/null", xdg, NULL };
  const char *env_none[] = { "GAMEGATE_PLUGIN_PATH", "GAMEGATE_CONFIG", empty_xdg, NULL };
  const char *args[] = { "plugins", NULL };
  g_autofree char *err = NULL;
  g_autofree char *prefix = g_strdup_printf ("gamegate: %s:2: [gateway] default-model: not valid JSON", user);

  /* The user's file is read when nothing else is named... */
  g_assert_cmpint (gg_test_run (args, env_user, NULL, NULL, &err), ==, 2);
  g_assert_true (g_str_has_prefix (err, prefix));
  /* ...GAMEGATE_CONFIG replaces it, and a missing one is fine. */
  g_assert_cmpint (gg_test_run (args, env_overridden, NULL, NULL, NULL), ==, 0);
  g_assert_cmpint (gg_test_run (args, env_none, NULL, NULL, NULL), ==, 0);
}

static void
test_config_warnings (Fixture *f, gconstpointer data)
{
  g_autofree char *conf = write_file (f, "warn.conf",
                                      "[test-echo]\nmax-line = 100\ntypo = 1\n\n[no-such-plugin]\nx=1\n");
  const char *args[] = { "--config", conf, "--plugin-dir", GOOD_DIR, "plugins", NULL };
  g_autofree char *err = NULL;
  g_autofree char *typo = g_strdup_printf ("%s:3: unknown key 'typo' in [test-echo]", conf);
  g_autofree char *group = g_strdup_printf ("%s:5: [no-such-plugin] names no loaded plugin", conf);
  g_autofree char *key = g_strdup_printf ("%s:6: unknown key 'x' in [no-such-plugin]", conf);

  g_assert_cmpint (gg_test_run (args, hermetic_env, NULL, NULL, &err), ==, 0);
  g_assert_nonnull (strstr (err, typo));
  g_assert_nonnull (strstr (err, group));
  g_assert_nonnull (strstr (err, key));
  g_assert_null (strstr (err, "max-line"));
}

static void
test_plugin_config_error (Fixture *f, gconstpointer data)
{
  g_autofree char *conf = write_file (f, "echo.conf", "[test-echo]\n\nmax-line = abc\n");
  g_autofree char *rel = write_file (f, "rel.conf", "[test-echo]\nsocket=relative.sock\n");
  const char *args[] = { "--config", conf, "--plugin-dir", GOOD_DIR, "echo", NULL };
  const char *rel_args[] = { "--config", rel, "--plugin-dir", GOOD_DIR, "serve", NULL };
  g_autofree char *err = NULL;
  g_autofree char *rel_err = NULL;
  g_autofree char *expected = g_strdup_printf (
    "gamegate: %s:3: [test-echo] max-line: expected an integer between 1 and 4096, got “abc”\n", conf);
  g_autofree char *rel_expected = g_strdup_printf (
    "gamegate: %s:2: [test-echo] socket: expected an absolute path, got “relative.sock”\n", rel);

  g_assert_cmpint (gg_test_run (args, hermetic_env, "hello\n", NULL, &err), ==, 2);
  g_assert_cmpstr (err, ==, expected);
  g_assert_cmpint (gg_test_run (rel_args, hermetic_env, NULL, NULL, &rel_err), ==, 2);
  g_assert_cmpstr (rel_err, ==, rel_expected);
}

static void
test_default_model (Fixture *f, gconstpointer data)
{
  static const struct { const char *line; int status; const char *output; } cases[] = {
    { "default-model = {\"type\":\"scripted\",\"steps\":[]}", 0,
      "default model: {\"type\":\"scripted\",\"steps\":[]}\n" },
    { "default-model = scripted", 0, "default model: \"scripted\"\n" },
    { "default-model = \"scripted\"", 0, "default model: \"scripted\"\n" },
    { "default-model = {\"type\":", 2, ": [gateway] default-model: not valid JSON" },
    { "default-model = {\"steps\":[]}", 2,
      ": [gateway] default-model: expected a model type name or a JSON object with a “type”, got" },
    { "default-model = [1]", 2, ": [gateway] default-model: expected a model type name" },
    { "default-model = Not A Name", 2, ": [gateway] default-model: expected a model type name" },
    { "default-model = system", 2, ": [gateway] default-model: “system” stands for the default model itself" },
    { NULL /* nested 100000 deep */, 2, ": [gateway] default-model: not valid JSON" },
  };
  g_autoptr(GString) deep = g_string_new ("default-model = {\"type\":\"scripted\",\"x\":");

  /* Deeper than any parser's stack: refused, not a crash. */
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, ']');
  g_string_append_c (deep, '}');

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *line = cases[i].line != NULL ? cases[i].line : deep->str;
      g_autofree char *text = g_strdup_printf ("[gateway]\n%s\n", line);
      g_autofree char *conf = write_file (f, "model.conf", text);
      const char *args[] = { "--config", conf, "plugins", NULL };
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      g_autofree char *location = g_strdup_printf ("%s:2", conf);

      g_test_message ("%.80s", line);
      /* The real plugins (model-scripted) from the test setup's path. */
      g_assert_cmpint (gg_test_run (args, NULL, NULL, &out, &err), ==, cases[i].status);
      if (cases[i].status == 0)
        {
          g_assert_true (g_str_has_suffix (out, cases[i].output));
        }
      else
        {
          g_assert_nonnull (strstr (err, location));
          g_assert_nonnull (strstr (err, cases[i].output));
        }
    }
}

static void
test_disabled_plugins (Fixture *f, gconstpointer data)
{
  g_autofree char *conf = write_file (f, "disabled.conf",
                                      "[gateway]\ndisabled-plugins=test-echo;other\n[test-echo]\nsocket=/x\n");
  const char *args[] = { "--config", conf, "--plugin-dir", GOOD_DIR, "plugins", NULL };
  const char *echo_args[] = { "--config", conf, "--plugin-dir", GOOD_DIR, "echo", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *err2 = NULL;
  g_auto(GStrv) parts = NULL;
  g_autofree char *tail = g_strdup_printf ("%s:2: [gateway] disabled-plugins: no plugin named “other” was found\n",
                                           conf);

  g_assert_cmpint (gg_test_run (args, hermetic_env, NULL, &out, &err), ==, 0);
  /* GLib's warning prefix has a pid and a time: compare what follows it. */
  g_assert_true (g_str_has_suffix (err, tail));
  g_assert_cmpuint (strlen (err), <, strlen (tail) + 80);
  g_assert_nonnull (strstr (out, "disabled: " GOOD_DIR "/test-echo.so\n  reason: disabled in the configuration\n"));
  g_assert_nonnull (strstr (out, "No plugins loaded."));
  /* Empty lists say so rather than ending in a bare colon. */
  g_assert_nonnull (strstr (out, "front ends: (none)\nmodel types: (none)\ndefault model: (none)\n"));
  /* Neither a refusal warning nor noise about its config group: the one
   * warning (checked above) points out the name that matches nothing. */
  parts = g_strsplit (err, "WARNING", -1);
  g_assert_cmpuint (g_strv_length (parts), ==, 2);
  g_assert_cmpint (gg_test_run (echo_args, hermetic_env, NULL, NULL, &err2), ==, 2);
  g_assert_nonnull (strstr (err2, "unknown command “echo”"));
}

static void
test_echo_stdio (void)
{
  const char *args[] = { "echo", "--prefix", "> ", "--plugin-dir", GOOD_DIR, "-v", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GgTestProcess) process = gg_test_process_spawn (args, hermetic_env, &error);
  guint timeout = gg_test_timeout_ms (10000);
  g_autofree char *line1 = NULL;
  g_autofree char *line2 = NULL;
  g_autofree char *rest = NULL;
  int status = -1;

  g_assert_no_error (error);
  gg_test_process_write_line (process, "hello", &error);
  g_assert_no_error (error);
  line1 = gg_test_process_read_line (process, timeout, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (line1, ==, "> hello");

  gg_test_process_write_line (process, "{\"jsonrpc\":\"2.0\",\"text\":\"ünï\"}", &error);
  line2 = gg_test_process_read_line (process, timeout, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (line2, ==, "> {\"jsonrpc\":\"2.0\",\"text\":\"ünï\"}");

  /* End of input ends the session; stdout carried the replies only, even
   * with -v debug output going on. */
  gg_test_process_close_stdin (process);
  rest = gg_test_process_read_stdout (process, timeout);
  g_assert_cmpstr (rest, ==, "");
  g_assert_true (gg_test_process_wait (process, timeout, &status));
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (gg_test_process_get_stderr (process), "Serving echo on stdio"));
}

static void
test_echo_pipe_input (void)
{
  const char *args[] = { "--plugin-dir", GOOD_DIR, "echo", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  g_assert_cmpint (gg_test_run (args, hermetic_env, "a\nb\n\nlast", &out, &err), ==, 0);
  g_assert_cmpstr (out, ==, "a\nb\n\nlast\n");
  g_assert_cmpstr (err, ==, "");
}

static void
check_signal_stdio (int signum)
{
  const char *args[] = { "--plugin-dir", GOOD_DIR, "echo", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GgTestProcess) process = gg_test_process_spawn (args, hermetic_env, &error);
  g_autofree char *line = NULL;
  gint64 start;
  int status = -1;

  g_assert_no_error (error);
  gg_test_process_write_line (process, "ping", &error);
  line = gg_test_process_read_line (process, gg_test_timeout_ms (10000), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (line, ==, "ping");

  /* Running, stdin still open: the signal alone ends it, cleanly. */
  start = g_get_monotonic_time ();
  gg_test_process_send_signal (process, signum);
  g_assert_true (gg_test_process_wait (process, gg_test_timeout_ms (5000), &status));
  g_assert_cmpint (status, ==, 0);
  g_test_message ("exited %.3f s after the signal", (g_get_monotonic_time () - start) / 1e6);
}

static void
test_sigterm_stdio (void)
{
  check_signal_stdio (SIGTERM);
}

static void
test_sigint_stdio (void)
{
  check_signal_stdio (SIGINT);
}

/* A front end that does not finish after the signal: a second signal ends
 * gamegate anyway, with a failure status and a word why. */
static void
test_second_signal_stdio (void)
{
  /* -v: the debug line says when the first signal was handled (two
   * signals before that would be one to GLib). */
  const char *args[] = { "-v", "--plugin-dir", GOOD_DIR, "echo", "--deaf", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GgTestProcess) process = gg_test_process_spawn (args, hermetic_env, &error);
  g_autofree char *line = NULL;
  g_autofree char *after = NULL;
  gint64 deadline;
  int status = -1;

  g_assert_no_error (error);
  gg_test_process_write_line (process, "ping", &error);
  line = gg_test_process_read_line (process, gg_test_timeout_ms (10000), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (line, ==, "ping");

  gg_test_process_send_signal (process, SIGTERM);
  deadline = g_get_monotonic_time () + gg_test_timeout_ms (10000) * (gint64) 1000;
  while (gg_test_process_count_in_stderr (process, "Termination signal: closing the stdio session") == 0 &&
         g_get_monotonic_time () < deadline)
    {
      gboolean tick = FALSE;

      gg_test_wait_until (&tick, 20);
    }
  /* Still serving: the deaf front end ignored the first signal. */
  gg_test_process_write_line (process, "still here", &error);
  after = gg_test_process_read_line (process, gg_test_timeout_ms (10000), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (after, ==, "still here");

  gg_test_process_send_signal (process, SIGTERM);
  g_assert_true (gg_test_process_wait (process, gg_test_timeout_ms (5000), &status));
  g_assert_cmpint (status, ==, 1);
  g_assert_nonnull (strstr (gg_test_process_get_stderr (process),
                            "Second termination signal: exiting without waiting for the session to end"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/version", test_version);
  g_test_add_func ("/cli/help", test_help);
  g_test_add_func ("/cli/usage-errors", test_usage_errors);
  g_test_add_func ("/cli/oversized-arguments", test_oversized_arguments);
  g_test_add_func ("/cli/set-option", test_set_option);
  g_test_add ("/cli/bad-config", Fixture, NULL, fixture_setup, test_bad_config, fixture_teardown);
  g_test_add ("/cli/user-config", Fixture, NULL, fixture_setup, test_user_config, fixture_teardown);
  g_test_add ("/cli/config-warnings", Fixture, NULL, fixture_setup, test_config_warnings, fixture_teardown);
  g_test_add ("/cli/plugin-config-error", Fixture, NULL, fixture_setup, test_plugin_config_error,
              fixture_teardown);
  g_test_add ("/cli/default-model", Fixture, NULL, fixture_setup, test_default_model, fixture_teardown);
  g_test_add ("/cli/disabled-plugins", Fixture, NULL, fixture_setup, test_disabled_plugins,
              fixture_teardown);
  g_test_add_func ("/cli/echo-stdio", test_echo_stdio);
  g_test_add_func ("/cli/echo-pipe-input", test_echo_pipe_input);
  g_test_add_func ("/cli/sigterm-stdio", test_sigterm_stdio);
  g_test_add_func ("/cli/sigint-stdio", test_sigint_stdio);
  g_test_add_func ("/cli/second-signal-stdio", test_second_signal_stdio);

  return g_test_run ();
}
