/* a2g-test-redis.c: the tests' redis-server (see a2g-test-redis.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/prctl.h>

#include "a2g-test-cluster.h"
#include "a2g-test-redis.h"
#include "gg-test-util.h"

static char *redis_dir;
static char *redis_socket;
static GSubprocess *redis;
static guint prefix_counter;
/* A2G_TEST_REDIS_CLUSTER_PORTS set (the first of the test's own port
 * range): the replicas share a 3-primary Redis Cluster instead. */
static A2gRedisCluster *cluster;

static void
die_with_parent (gpointer user_data)
{
  (void) user_data;
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

/** a2g_redis_start: starts the server (again) and waits for its socket */
void
a2g_redis_start (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                                                       G_SUBPROCESS_FLAGS_STDERR_SILENCE);

  /* A test that aborts leaves no server behind. */
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  redis = g_subprocess_launcher_spawn (launcher, &error, "redis-server",
                                       "--unixsocket", redis_socket, "--unixsocketperm", "700", "--port", "0",
                                       "--save", "", "--appendonly", "no", "--dir", redis_dir, NULL);
  g_assert_no_error (error);
  for (guint i = 0; i < 500 && !g_file_test (redis_socket, G_FILE_TEST_EXISTS); i++)
    g_usleep (10000);
  g_assert_true (g_file_test (redis_socket, G_FILE_TEST_EXISTS));
}

/** a2g_redis_stop: stops the server (everything it held is gone) */
void
a2g_redis_stop (void)
{
  g_subprocess_send_signal (redis, SIGTERM);
  g_assert_true (g_subprocess_wait (redis, NULL, NULL));
  g_clear_object (&redis);
  g_unlink (redis_socket);
}

/**
 * a2g_redis_setup:
 *
 * Returns: %FALSE when redis-server is not installed (the test skips);
 *   otherwise the server is running
 */
gboolean
a2g_redis_setup (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *server = g_find_program_in_path ("redis-server");

  const char *cluster_ports = g_getenv ("A2G_TEST_REDIS_CLUSTER_PORTS");

  if (server == NULL)
    return FALSE;
  if (cluster_ports != NULL)
    {
      cluster = a2g_redis_cluster_start ((guint) g_ascii_strtoull (cluster_ports, NULL, 10), 3, 1000);
      return cluster != NULL;
    }
  /* A connection the server closed must fail a write, not kill the test (as in gamegate). */
  signal (SIGPIPE, SIG_IGN);
  redis_dir = g_dir_make_tmp ("gg-a2g-redis-XXXXXX", &error);
  g_assert_no_error (error);
  redis_socket = g_build_filename (redis_dir, "redis.sock", NULL);
  a2g_redis_start ();
  return TRUE;
}

/** a2g_redis_pid: Returns: the one redis-server's process id (for the benchmarks' CPU figures), 0 on a Cluster */
int
a2g_redis_pid (void)
{
  return redis != NULL ? (int) g_ascii_strtoll (g_subprocess_get_identifier (redis), NULL, 10) : 0;
}

/** a2g_redis_is_single: Returns: whether the tests' Redis is one server (not a Cluster): one a2g_redis_stop() may stop */
gboolean
a2g_redis_is_single (void)
{
  return cluster == NULL;
}

/** a2g_redis_teardown: stops the server (or the Cluster) and removes its directory */
void
a2g_redis_teardown (void)
{
  if (cluster != NULL)
    {
      a2g_redis_cluster_stop (cluster);
      cluster = NULL;
      return;
    }
  if (redis != NULL)
    a2g_redis_stop ();
  g_rmdir (redis_dir);
  g_clear_pointer (&redis_socket, g_free);
  g_clear_pointer (&redis_dir, g_free);
}

/** a2g_redis_new_prefix: Returns: a key prefix no other test used */
guint
a2g_redis_new_prefix (void)
{
  return ++prefix_counter;
}

/** a2g_redis_url: Returns: (transfer full): the server's `redis` URL */
char *
a2g_redis_url (void)
{
  if (cluster != NULL)
    return a2g_redis_cluster_url (cluster);
  return g_strdup_printf ("unix:%s", redis_socket);
}

/**
 * a2g_redis_config:
 * @prefix: from a2g_redis_new_prefix(): the replicas of one test share it
 *
 * Returns: (transfer full): the `redis` and `redis-prefix` lines of [a2g]
 */
char *
a2g_redis_config (guint prefix)
{
  if (cluster != NULL)
    {
      g_autofree char *url = a2g_redis_cluster_url (cluster);
      return g_strdup_printf ("redis=%s\nredis-prefix=t%u:\n", url, prefix);
    }
  return g_strdup_printf ("redis=unix:%s\nredis-prefix=t%u:\n", redis_socket, prefix);
}

/**
 * a2g_redis_config_patient:
 * @prefix: as for a2g_redis_config()
 *
 * Returns: (transfer full): a2g_redis_config() with the default
 *   `redis-timeout-ms` (250) scaled like every test timeout, for tests that
 *   do not test the timeout: a replica under valgrind on a loaded machine
 *   would otherwise take its own slowness for Redis's
 */
char *
a2g_redis_config_patient (guint prefix)
{
  if (cluster != NULL)
    {
      g_autofree char *url = a2g_redis_cluster_url (cluster);
      return g_strdup_printf ("redis=%s\nredis-prefix=t%u:\nredis-timeout-ms=%u\n", url, prefix,
                              gg_test_timeout_ms (250));
    }
  return g_strdup_printf ("redis=unix:%s\nredis-prefix=t%u:\nredis-timeout-ms=%u\n", redis_socket, prefix,
                          gg_test_timeout_ms (250));
}
