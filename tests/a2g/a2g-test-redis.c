/* a2g-test-redis.c: a real `redis-server` for the tests (see
 * a2g-test-redis.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>
#include <sys/prctl.h>

#include <glib/gstdio.h>

#include "a2g-test-redis.h"

static void
die_with_parent (gpointer user_data)
{
  (void) user_data;
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

/** a2g_redis_available: Returns: whether `redis-server` is installed */
gboolean
a2g_redis_available (void)
{
  g_autofree char *server = g_find_program_in_path ("redis-server");

  return server != NULL;
}

/** a2g_redis_new: Returns: a started server in a new temporary directory */
A2gRedis *
a2g_redis_new (void)
{
  g_autoptr(GError) error = NULL;
  A2gRedis *redis = g_new0 (A2gRedis, 1);

  redis->dir = g_dir_make_tmp ("gg-a2g-redis-XXXXXX", &error);
  g_assert_no_error (error);
  redis->socket = g_build_filename (redis->dir, "redis.sock", NULL);
  a2g_redis_start (redis);
  return redis;
}

/** a2g_redis_start: starts the (stopped) server and waits for its socket */
void
a2g_redis_start (A2gRedis *redis)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                                                       G_SUBPROCESS_FLAGS_STDERR_SILENCE);

  g_assert_null (redis->server);
  /* A test that aborts leaves no server behind. */
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  redis->server = g_subprocess_launcher_spawn (launcher, &error, "redis-server",
                                               "--unixsocket", redis->socket, "--unixsocketperm", "700",
                                               "--port", "0", "--save", "", "--appendonly", "no",
                                               "--dir", redis->dir, NULL);
  g_assert_no_error (error);
  for (guint i = 0; i < 500 && !g_file_test (redis->socket, G_FILE_TEST_EXISTS); i++)
    g_usleep (10000);
  g_assert_true (g_file_test (redis->socket, G_FILE_TEST_EXISTS));
}

/** a2g_redis_stop: stops the server (SIGTERM) and waits for it */
void
a2g_redis_stop (A2gRedis *redis)
{
  g_assert_nonnull (redis->server);
  g_subprocess_send_signal (redis->server, SIGTERM);
  g_assert_true (g_subprocess_wait (redis->server, NULL, NULL));
  g_clear_object (&redis->server);
  g_unlink (redis->socket);
}

/** a2g_redis_free: stops the server if it runs, removes its directory */
void
a2g_redis_free (A2gRedis *redis)
{
  if (redis->server != NULL)
    a2g_redis_stop (redis);
  g_rmdir (redis->dir);
  g_free (redis->socket);
  g_free (redis->dir);
  g_free (redis);
}

/**
 * a2g_redis_cli:
 * @args: one command and its arguments, NULL-terminated
 *
 * Returns: what `redis-cli` printed for the command, without the final newline
 */
char *
a2g_redis_cli (A2gRedis           *redis,
               const char * const *args)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  char *out = NULL;
  int status = -1;

  g_ptr_array_add (argv, "redis-cli");
  g_ptr_array_add (argv, "-s");
  g_ptr_array_add (argv, redis->socket);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  g_strchomp (out);
  return out;
}
