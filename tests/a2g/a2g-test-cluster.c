/* a2g-test-cluster.c: the tests' Redis Cluster (see a2g-test-cluster.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "a2g-test-cluster.h"
#include "gg-test-util.h"

#define MAX_NODES 8

struct _A2gRedisCluster {
  char *dir;
  guint n;
  guint ports[MAX_NODES];
  GSubprocess *servers[MAX_NODES];
};

static void
die_with_parent (gpointer user_data)
{
  (void) user_data;
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

/** a2g_redis_spawn: Returns: (transfer full): @argv (NULL-terminated) running, silent, killed with the test */
GSubprocess *
a2g_redis_spawn (GPtrArray *argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                                                       G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  GSubprocess *process;

  /* A test that aborts leaves no server behind. */
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  return process;
}

/* 0 when @port is free on loopback, else bind()'s errno. */
static int
port_taken (guint port)
{
  struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons (port),
                                 .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  int fd = socket (AF_INET, SOCK_STREAM, 0);
  int on = 1, taken = 0;

  g_assert_cmpint (fd, >=, 0);
  /* As redis-server binds: a port a finished test left in TIME_WAIT is free. */
  setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  if (bind (fd, (struct sockaddr *) &address, sizeof address) != 0)
    taken = errno;
  close (fd);
  return taken;
}

/* A node's cluster bus port: 10000 below its own (Redis's default is 10000
 * above), so that both stay below the kernel's ephemeral ports (32768 on):
 * there, the outgoing connections of tests running beside take ports at
 * random. */
#define BUS_OFFSET 10000
#define EPHEMERAL_FIRST 32768

guint
a2g_redis_bus_port (guint port)
{
  return port - BUS_OFFSET;
}

/* 0 when @first..@first+@n-1, and each one's bus port, are free; else the errno of the first taken. */
static int
ports_taken (guint  first,
             guint  n,
             guint *which)
{
  for (guint i = 0; i < n; i++)
    {
      guint port = first + i;
      int taken = port_taken (port);

      if (taken == 0)
        taken = port_taken (port = a2g_redis_bus_port (first + i));
      if (taken != 0)
        {
          *which = port;
          return taken;
        }
    }
  return 0;
}

/** a2g_redis_find_ports: Returns: the first of @n free ports from @first on (in steps of 1000: past every test's range), each with a free bus port */
guint
a2g_redis_find_ports (guint first,
                      guint n)
{
  guint which = 0;
  int taken = 0;

  g_assert_cmpuint (first, >, BUS_OFFSET);
  for (guint base = first; base + n <= EPHEMERAL_FIRST; base += 1000)
    if ((taken = ports_taken (base, n, &which)) == 0)
      return base;
  g_error ("no %u free ports from %u on (the last taken: %u, %s)", n, first, which, g_strerror (taken));
}

/** a2g_redis_cli: Returns: (transfer full) (nullable): what `redis-cli -p @port ARGS` printed, NULL on failure */
char *
a2g_redis_cli (guint       port,
               const char *first,
               ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *out = NULL;
  int status = 0;
  va_list args;

  g_ptr_array_add (argv, g_strdup ("redis-cli"));
  g_ptr_array_add (argv, g_strdup ("-p"));
  g_ptr_array_add (argv, g_strdup_printf ("%u", port));
  va_start (args, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, g_strdup (arg));
  va_end (args);
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                     &out, NULL, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL))
    return NULL;
  return g_steal_pointer (&out);
}

static void
start_node (A2gRedisCluster *cluster,
            guint            i,
            guint            node_timeout_ms)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);

  g_ptr_array_add (argv, g_strdup ("redis-server"));
  g_ptr_array_add (argv, g_strdup ("--port"));
  g_ptr_array_add (argv, g_strdup_printf ("%u", cluster->ports[i]));
  g_ptr_array_add (argv, g_strdup ("--bind"));
  g_ptr_array_add (argv, g_strdup ("127.0.0.1"));
  g_ptr_array_add (argv, g_strdup ("--cluster-enabled"));
  g_ptr_array_add (argv, g_strdup ("yes"));
  g_ptr_array_add (argv, g_strdup ("--cluster-port"));
  g_ptr_array_add (argv, g_strdup_printf ("%u", a2g_redis_bus_port (cluster->ports[i])));
  g_ptr_array_add (argv, g_strdup ("--cluster-node-timeout"));
  g_ptr_array_add (argv, g_strdup_printf ("%u", node_timeout_ms));
  /* A replica syncs at once (Redis waits 5 s by default for others to sync with). */
  g_ptr_array_add (argv, g_strdup ("--repl-diskless-sync-delay"));
  g_ptr_array_add (argv, g_strdup ("0"));
  g_ptr_array_add (argv, g_strdup ("--save"));
  g_ptr_array_add (argv, g_strdup (""));
  g_ptr_array_add (argv, g_strdup ("--appendonly"));
  g_ptr_array_add (argv, g_strdup ("no"));
  g_ptr_array_add (argv, g_strdup ("--dir"));
  g_ptr_array_add (argv, g_strdup (cluster->dir));
  g_ptr_array_add (argv, g_strdup ("--cluster-config-file"));
  g_ptr_array_add (argv, g_strdup_printf ("nodes-%u.conf", cluster->ports[i]));
  g_ptr_array_add (argv, g_strdup ("--dbfilename"));
  g_ptr_array_add (argv, g_strdup_printf ("dump-%u.rdb", cluster->ports[i]));
  g_ptr_array_add (argv, NULL);
  cluster->servers[i] = a2g_redis_spawn (argv);
}

static gboolean
answers (guint port)
{
  g_autofree char *out = a2g_redis_cli (port, "PING", NULL);

  return out != NULL && g_str_has_prefix (out, "PONG");
}

/**
 * a2g_redis_cluster_start:
 * @first_port: where to look for free ports (the test's own range)
 * @primaries: how many (each gets a replica)
 * @node_timeout_ms: cluster-node-timeout
 *
 * Returns: (transfer full) (nullable): a cluster whose every slot is
 *   served, or NULL when redis-server or redis-cli is not installed
 */
A2gRedisCluster *
a2g_redis_cluster_start (guint first_port,
                         guint primaries,
                         guint node_timeout_ms)
{
  g_autofree char *server = g_find_program_in_path ("redis-server");
  g_autofree char *cli = g_find_program_in_path ("redis-cli");
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  A2gRedisCluster *cluster;
  int status = 0;
  guint base;

  if (server == NULL || cli == NULL)
    return NULL;
  g_assert_cmpuint (primaries * 2, <=, MAX_NODES);
  /* A test that exits early must fail a write, not die of it (as gamegate). */
  signal (SIGPIPE, SIG_IGN);
  cluster = g_new0 (A2gRedisCluster, 1);
  cluster->dir = g_dir_make_tmp ("gg-a2g-cluster-XXXXXX", &error);
  g_assert_no_error (error);
  cluster->n = primaries * 2;
  base = a2g_redis_find_ports (first_port, cluster->n);
  for (guint i = 0; i < cluster->n; i++)
    {
      cluster->ports[i] = base + i;
      start_node (cluster, i, node_timeout_ms);
    }
  for (guint i = 0; i < cluster->n; i++)
    {
      gint64 until = g_get_monotonic_time () + gg_test_timeout_ms (20000) * (gint64) 1000;

      while (!answers (cluster->ports[i]) && g_get_monotonic_time () < until)
        g_usleep (20000);
      if (!answers (cluster->ports[i]))
        g_error ("redis-server on port %u does not answer", cluster->ports[i]);
    }
  /* Bounded: redis-cli waits for the nodes to join for as long as it takes. */
  g_ptr_array_add (argv, g_strdup ("timeout"));
  g_ptr_array_add (argv, g_strdup_printf ("%u", gg_test_timeout_ms (30000) / 1000));
  g_ptr_array_add (argv, g_strdup ("redis-cli"));
  g_ptr_array_add (argv, g_strdup ("--cluster"));
  g_ptr_array_add (argv, g_strdup ("create"));
  for (guint i = 0; i < cluster->n; i++)
    g_ptr_array_add (argv, g_strdup_printf ("127.0.0.1:%u", cluster->ports[i]));
  g_ptr_array_add (argv, g_strdup ("--cluster-replicas"));
  g_ptr_array_add (argv, g_strdup ("1"));
  g_ptr_array_add (argv, g_strdup ("--cluster-yes"));
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status,
                               &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("redis-cli --cluster create failed: %s%s", out, err);
  g_assert_true (a2g_redis_cluster_wait_ok (cluster, gg_test_timeout_ms (10000)));
  return cluster;
}

/** a2g_redis_cluster_wait_ok: Returns: whether every live node says cluster_state:ok within @timeout_ms */
gboolean
a2g_redis_cluster_wait_ok (A2gRedisCluster *cluster,
                           guint            timeout_ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (g_get_monotonic_time () < until)
    {
      gboolean ok = TRUE;

      for (guint i = 0; i < cluster->n && ok; i++)
        {
          g_autofree char *info = NULL;

          if (cluster->servers[i] == NULL)
            continue;
          info = a2g_redis_cli (cluster->ports[i], "CLUSTER", "INFO", NULL);
          ok = info != NULL && strstr (info, "cluster_state:ok") != NULL;
        }
      if (ok)
        return TRUE;
      g_usleep (50000);
    }
  return FALSE;
}

/** a2g_redis_cluster_is_primary: Returns: whether @node is up and a primary */
gboolean
a2g_redis_cluster_is_primary (A2gRedisCluster *cluster,
                              guint            node)
{
  g_autofree char *role = NULL;

  if (cluster->servers[node] == NULL)
    return FALSE;
  role = a2g_redis_cli (cluster->ports[node], "ROLE", NULL);
  return role != NULL && g_str_has_prefix (role, "master");
}

/** a2g_redis_cluster_kill: kills @node (SIGKILL: no goodbye to its peers) */
void
a2g_redis_cluster_kill (A2gRedisCluster *cluster,
                        guint            node)
{
  g_subprocess_force_exit (cluster->servers[node]);
  g_subprocess_wait (cluster->servers[node], NULL, NULL);
  g_clear_object (&cluster->servers[node]);
}

guint
a2g_redis_cluster_port (A2gRedisCluster *cluster,
                        guint            node)
{
  return cluster->ports[node];
}

/** a2g_redis_cluster_pid: Returns: @node's process id, 0 once killed */
int
a2g_redis_cluster_pid (A2gRedisCluster *cluster,
                       guint            node)
{
  return cluster->servers[node] != NULL
           ? (int) g_ascii_strtoll (g_subprocess_get_identifier (cluster->servers[node]), NULL, 10) : 0;
}

guint
a2g_redis_cluster_nodes (A2gRedisCluster *cluster)
{
  return cluster->n;
}

/** a2g_redis_cluster_url: Returns: (transfer full): the `redis` value naming two seed nodes */
char *
a2g_redis_cluster_url (A2gRedisCluster *cluster)
{
  return g_strdup_printf ("cluster:tcp://127.0.0.1:%u,tcp://127.0.0.1:%u", cluster->ports[0], cluster->ports[1]);
}

/** a2g_redis_remove_dir: removes @path and the files the servers left in it */
void
a2g_redis_remove_dir (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      g_unlink (child);
    }
  g_rmdir (path);
}

/** a2g_redis_cluster_stop: kills every node and removes their files */
void
a2g_redis_cluster_stop (A2gRedisCluster *cluster)
{
  for (guint i = 0; i < cluster->n; i++)
    if (cluster->servers[i] != NULL)
      a2g_redis_cluster_kill (cluster, i);
  a2g_redis_remove_dir (cluster->dir);
  g_free (cluster->dir);
  g_free (cluster);
}
