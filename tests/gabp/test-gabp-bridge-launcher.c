/* test-gabp-bridge-launcher.c: the GABP bridge's launcher: backoff until the mod
 * starts, the environment it gives the game, launching and stopping it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gabp-bridge-test.h"

static void
test_backoff_until_mod_starts (void)
{
  Fixture f = { 0 };
  g_autoptr(GError) error = NULL;
  guint16 port = gg_loopback_port_pick_free (&error);

  g_assert_no_error (error);
  fixture_connect (&f, port, TEST_TOKEN);
  gg_test_spin (300);
  g_assert_cmpint (gg_gabp_client_get_state (f.client), ==, GG_GABP_CLIENT_CONNECTING);
  f.mod = test_mod_start (port, TEST_TOKEN);
  g_assert_true (gg_test_wait_for (target_ready, f.target, 5000));
  fixture_teardown (&f, NULL);
}

/* Launcher ----------------------------------------------------------------- */

static void
test_launcher_environ (void)
{
  const char *base[] = { "PATH=/usr/bin", "GABP_TOKEN=stale", "GABS_PROFILE=x", "GABP_SERVER_PORT=1", "HOME=/h", NULL };
  g_auto(GStrv) env = gg_gabp_launcher_build_environ (base, 4242, TEST_TOKEN, "ref");

  g_assert_cmpstr (g_environ_getenv (env, "PATH"), ==, "/usr/bin");
  g_assert_cmpstr (g_environ_getenv (env, "HOME"), ==, "/h");
  g_assert_null (g_environ_getenv (env, "GABS_PROFILE"));
  g_assert_cmpstr (g_environ_getenv (env, "GABP_TOKEN"), ==, TEST_TOKEN);
  g_assert_cmpstr (g_environ_getenv (env, "GABP_SERVER_PORT"), ==, "4242");
  g_assert_cmpstr (g_environ_getenv (env, "GABS_GAME_ID"), ==, "ref");
  g_assert_cmpuint (g_strv_length (env), ==, 5);
}

static void
on_stopped (GObject *source, GAsyncResult *result, gpointer data)
{
  g_assert_true (gg_gabp_launcher_stop_finish (GG_GABP_LAUNCHER (source), result, NULL));
  *(gboolean *) data = TRUE;
}

static gboolean
flag_set (gpointer data)
{
  return *(gboolean *) data;
}

static void
test_launcher_launch (void)
{
  g_autofree char *exe = g_build_filename (GG_TOP_BUILDDIR, "tests", "gabp-mod", "gabp-mod", NULL);
  const char *argv[] = { exe, NULL };
  g_autoptr(GgGabpLauncher) launcher = gg_gabp_launcher_new ("ref", argv, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();
  g_autoptr(GgGabpClient) client = NULL;
  g_autoptr(GgGabpTarget) target = NULL;
  g_autofree char *first = NULL;
  gboolean stopped = FALSE;

  g_setenv ("GABP_TOKEN", "stale-token-from-the-parent-environment-000000", TRUE);
  g_assert_true (gg_gabp_launcher_launch (launcher, &error));
  g_assert_no_error (error);
  g_assert_false (gg_gabp_launcher_launch (launcher, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BUSY);
  g_clear_error (&error);
  first = g_strdup (gg_gabp_launcher_get_token (launcher));
  g_assert_cmpuint (strlen (first), ==, 64);

  client = gg_gabp_client_new (schemas, "127.0.0.1", gg_gabp_launcher_get_port (launcher), first);
  gg_gabp_client_set_backoff (client, 20, 100);
  target = gg_gabp_target_new ("launched", client);
  gg_gabp_client_start (client);
  g_assert_true (gg_test_wait_for (target_ready, target, 5000));

  gg_gabp_launcher_stop_async (launcher, 2000, on_stopped, &stopped);
  g_assert_true (gg_test_wait_for (flag_set, &stopped, 5000));
  g_assert_false (gg_gabp_launcher_is_running (launcher));

  /* A new launch gets a new token; the old one is stale. */
  g_assert_true (gg_gabp_launcher_launch (launcher, &error));
  g_assert_cmpstr (gg_gabp_launcher_get_token (launcher), !=, first);
  gg_gabp_client_stop (client);
  stopped = FALSE;
  gg_gabp_launcher_stop_async (launcher, 2000, on_stopped, &stopped);
  g_assert_true (gg_test_wait_for (flag_set, &stopped, 5000));
  g_unsetenv ("GABP_TOKEN");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gabp/bridge/backoff", test_backoff_until_mod_starts);
  g_test_add_func ("/gabp/bridge/launcher/environ", test_launcher_environ);
  g_test_add_func ("/gabp/bridge/launcher/launch", test_launcher_launch);
  return g_test_run ();
}
