/* a2g-test-sentinel.c: the tests' Redis Sentinel setup (see
 * a2g-test-sentinel.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "a2g-test-cluster.h"
#include "a2g-test-sentinel.h"
#include "gg-test-util.h"

/* Ports from the base: the primary, two replicas, three sentinels. */
#define N_SERVERS 6

struct _A2gRedisSentinel {
  char *dir;
  guint ports[N_SERVERS];
  GSubprocess *servers[N_SERVERS];
  guint primary_port;
};

static void
add (GPtrArray  *argv,
     const char *arg)
{
  g_ptr_array_add (argv, g_strdup (arg));
}

static gboolean
answers (guint port)
{
  g_autofree char *out = a2g_redis_cli (port, "PING", NULL);

  return out != NULL && g_str_has_prefix (out, "PONG");
}

static void
wait_answers (guint port)
{
  gint64 until = g_get_monotonic_time () + gg_test_timeout_ms (20000) * (gint64) 1000;

  while (!answers (port) && g_get_monotonic_time () < until)
    g_usleep (20000);
  if (!answers (port))
    g_error ("redis on port %u does not answer", port);
}

/* The primary's port as sentinel @port names it, 0 when it names none. */
static guint
named_primary (guint port)
{
  g_autofree char *out = a2g_redis_cli (port, "SENTINEL", "get-master-addr-by-name", A2G_SENTINEL_NAME, NULL);
  g_auto(GStrv) lines = NULL;

  if (out == NULL)
    return 0;
  lines = g_strsplit (out, "\n", -1);
  return g_strv_length (lines) >= 2 ? (guint) g_ascii_strtoull (lines[1], NULL, 10) : 0;
}

static gboolean
sentinels_ready (A2gRedisSentinel *setup)
{
  for (guint i = 1; i < 3; i++)
    {
      g_autofree char *info = a2g_redis_cli (setup->ports[i], "INFO", "replication", NULL);

      /* Each replica in sync with the primary. */
      if (info == NULL || strstr (info, "master_link_status:up") == NULL)
        return FALSE;
    }
  for (guint i = 3; i < N_SERVERS; i++)
    {
      g_autofree char *replicas = a2g_redis_cli (setup->ports[i], "SENTINEL", "replicas", A2G_SENTINEL_NAME, NULL);
      g_autofree char *others = a2g_redis_cli (setup->ports[i], "SENTINEL", "sentinels", A2G_SENTINEL_NAME, NULL);

      /* Each knows both replicas and the two other sentinels. */
      if (named_primary (setup->ports[i]) != setup->primary_port || replicas == NULL || others == NULL ||
          g_strstr_len (replicas, -1, "slave") == NULL || strstr (strstr (replicas, "slave") + 5, "slave") == NULL ||
          g_strstr_len (others, -1, "runid") == NULL || strstr (strstr (others, "runid") + 5, "runid") == NULL)
        return FALSE;
    }
  return TRUE;
}

/**
 * a2g_redis_sentinel_start:
 * @first_port: where to look for free ports (the test's own range)
 *
 * Returns: (transfer full) (nullable): the setup, every sentinel knowing
 *   the primary, both replicas and the other sentinels; NULL when
 *   redis-server or redis-cli is not installed
 */
A2gRedisSentinel *
a2g_redis_sentinel_start (guint first_port)
{
  g_autofree char *server = g_find_program_in_path ("redis-server");
  g_autofree char *cli = g_find_program_in_path ("redis-cli");
  g_autoptr(GError) error = NULL;
  A2gRedisSentinel *setup;
  guint base;
  gint64 until;

  if (server == NULL || cli == NULL)
    return NULL;
  signal (SIGPIPE, SIG_IGN);
  setup = g_new0 (A2gRedisSentinel, 1);
  setup->dir = g_dir_make_tmp ("gg-a2g-sentinel-XXXXXX", &error);
  g_assert_no_error (error);
  base = a2g_redis_find_ports (first_port, N_SERVERS);
  for (guint i = 0; i < N_SERVERS; i++)
    setup->ports[i] = base + i;
  setup->primary_port = setup->ports[0];
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);

      add (argv, "redis-server");
      add (argv, "--port");
      g_ptr_array_add (argv, g_strdup_printf ("%u", setup->ports[i]));
      add (argv, "--bind");
      add (argv, "127.0.0.1");
      add (argv, "--save");
      add (argv, "");
      add (argv, "--appendonly");
      add (argv, "no");
      add (argv, "--dir");
      add (argv, setup->dir);
      /* A replica syncs at once (Redis waits 5 s by default for others to sync with). */
      add (argv, "--repl-diskless-sync-delay");
      add (argv, "0");
      add (argv, "--dbfilename");
      g_ptr_array_add (argv, g_strdup_printf ("dump-%u.rdb", setup->ports[i]));
      if (i > 0)
        {
          add (argv, "--replicaof");
          add (argv, "127.0.0.1");
          g_ptr_array_add (argv, g_strdup_printf ("%u", setup->ports[0]));
        }
      g_ptr_array_add (argv, NULL);
      setup->servers[i] = a2g_redis_spawn (argv);
      wait_answers (setup->ports[i]);
    }
  for (guint i = 3; i < N_SERVERS; i++)
    {
      g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
      g_autofree char *path = g_strdup_printf ("%s/sentinel-%u.conf", setup->dir, setup->ports[i]);
      g_autofree char *conf = g_strdup_printf ("port %u\nbind 127.0.0.1\ndir %s\n"
                                               "sentinel monitor " A2G_SENTINEL_NAME " 127.0.0.1 %u 2\n"
                                               "sentinel down-after-milliseconds " A2G_SENTINEL_NAME " 500\n"
                                               "sentinel failover-timeout " A2G_SENTINEL_NAME " 2000\n"
                                               "sentinel parallel-syncs " A2G_SENTINEL_NAME " 1\n",
                                               setup->ports[i], setup->dir, setup->ports[0]);

      g_assert_true (g_file_set_contents (path, conf, -1, &error));
      add (argv, "redis-server");
      add (argv, path);
      add (argv, "--sentinel");
      g_ptr_array_add (argv, NULL);
      setup->servers[i] = a2g_redis_spawn (argv);
      wait_answers (setup->ports[i]);
    }
  until = g_get_monotonic_time () + gg_test_timeout_ms (20000) * (gint64) 1000;
  while (!sentinels_ready (setup) && g_get_monotonic_time () < until)
    g_usleep (100000);
  g_assert_true (sentinels_ready (setup));
  return setup;
}

/** a2g_redis_sentinel_url: Returns: (transfer full): the `redis` value naming the three sentinels */
char *
a2g_redis_sentinel_url (A2gRedisSentinel *setup)
{
  return g_strdup_printf ("sentinel:" A2G_SENTINEL_NAME "@tcp://127.0.0.1:%u,tcp://127.0.0.1:%u,tcp://127.0.0.1:%u",
                          setup->ports[3], setup->ports[4], setup->ports[5]);
}

/** a2g_redis_sentinel_kill_primary: kills the primary (SIGKILL) */
void
a2g_redis_sentinel_kill_primary (A2gRedisSentinel *setup)
{
  g_subprocess_force_exit (setup->servers[0]);
  g_subprocess_wait (setup->servers[0], NULL, NULL);
  g_clear_object (&setup->servers[0]);
}

/** a2g_redis_sentinel_switched: Returns: whether every sentinel names another primary than the first */
gboolean
a2g_redis_sentinel_switched (A2gRedisSentinel *setup)
{
  for (guint i = 3; i < N_SERVERS; i++)
    {
      guint port = named_primary (setup->ports[i]);

      if (port == 0 || port == setup->primary_port)
        return FALSE;
    }
  return TRUE;
}

/** a2g_redis_sentinel_stop: kills every server and removes their files */
void
a2g_redis_sentinel_stop (A2gRedisSentinel *setup)
{
  for (guint i = 0; i < N_SERVERS; i++)
    if (setup->servers[i] != NULL)
      {
        g_subprocess_force_exit (setup->servers[i]);
        g_subprocess_wait (setup->servers[i], NULL, NULL);
        g_clear_object (&setup->servers[i]);
      }
  a2g_redis_remove_dir (setup->dir);
  g_free (setup->dir);
  g_free (setup);
}
