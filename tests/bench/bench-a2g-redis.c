/* bench-a2g-redis.c: `gamegate a2g` deciding with its state in this
 * process's memory, in one Redis (one replica), and in one Redis shared by
 * two replicas (the load split over both), side by side in one run:
 * decide requests per second and p50/p99 for model decisions (a scripted
 * model answering at once, cache off: every step of the pipeline reaches
 * the store) and game-wide cache hits, one entity per request, and 16
 * cache hits per request; the CPU time per request of the replicas and of
 * redis-server (from /proc: meaningful on a loaded machine); and the Redis
 * round trips per decision (the store counts the commands it sends; a
 * script is one round trip however many keys it touches).
 *
 * redis-server runs on a Unix socket in a temporary directory, without
 * persistence. Exits 77 when redis-server is not installed. Prints a
 * table; asserts nothing about speed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "bench-a2g-http.h"

#define CONNECTIONS 8
#define WARMUP_S    0.3
#define MEASURE_S   1.5
#define ROUND_TRIPS 200

static const char MANIFEST[] =
  "{\"a2g\":\"0.1\",\"game\":\"orbital-freight\",\"entity_types\":{"
  "\"pirate\":{\"observations\":{\"hp\":{\"type\":\"integer\",\"min\":0,\"max\":100,\"bucket\":10}},"
  "\"actions\":{\"attack\":{},\"flee\":{}},\"token_budget\":800,\"cache\":\"game\",\"memory\":0},"
  "\"trader\":{\"observations\":{\"hp\":{\"type\":\"integer\",\"min\":0,\"max\":100}},"
  "\"actions\":{\"flee\":{},\"dump_cargo\":{}},\"cache\":\"off\",\"memory\":0}}}";

typedef struct {
  GPid pid;
  guint16 port;
  char *config_path;
  char *stderr_path;
} Replica;

static char *redis_dir, *redis_socket;
static GPid redis_pid;

static const char *
gamegate_bin (void)
{
  const char *bin = g_getenv ("GAMEGATE_BIN");

  if (bin == NULL || *bin == '\0')
    {
      g_printerr ("bench-a2g-redis: GAMEGATE_BIN is not set (run through meson test --benchmark)\n");
      exit (1);
    }
  return bin;
}

static void
redis_start (void)
{
  g_autoptr(GError) error = NULL;
  const char *argv[] = { "redis-server", "--unixsocket", redis_socket, "--port", "0", "--save", "",
                         "--appendonly", "no", "--dir", redis_dir, NULL };

  if (!g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD |
                      G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &redis_pid, &error))
    g_error ("bench-a2g-redis: redis-server: %s", error->message);
  for (guint i = 0; i < 500 && !g_file_test (redis_socket, G_FILE_TEST_EXISTS); i++)
    g_usleep (10000);
}

static void
redis_stop (void)
{
  kill (redis_pid, SIGTERM);
  waitpid (redis_pid, NULL, 0);
  g_spawn_close_pid (redis_pid);
}

static Replica *
replica_start (gboolean redis, guint prefix)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *config = g_strdup_printf (
    "[a2g]\nmodel={\"type\":\"scripted\",\"fallback\":{\"json\":{\"reason\":\"r\",\"action\":\"flee\","
    "\"confidence\":70}}}\nsession-rate=1000000\nsession-burst=1000000\ngame-rate=1000000\n"
    "game-burst=1000000\naddress-rate=1000000\naddress-burst=1000000\n"
    "session-token-budget=1000000000000\ngame-token-budget=1000000000000\nmax-model-calls=1024\n"
    "%s%s%s\nredis-prefix=b%u:\n", redis ? "redis=unix:" : "", redis ? redis_socket : "", redis ? "" : "#",
    prefix);
  const char *argv[] = { gamegate_bin (), "a2g", "--listen", "127.0.0.1:0", NULL };
  Replica *replica = g_new0 (Replica, 1);
  g_auto(GStrv) env = g_get_environ ();
  int out_fd = -1, err_fd = -1;
  int fd = g_file_open_tmp ("bench-a2g-redis-XXXXXX.conf", &replica->config_path, &error);
  GString *line = g_string_new (NULL);
  const char *at;

  if (fd < 0 || !g_file_set_contents (replica->config_path, config, -1, &error))
    g_error ("bench-a2g-redis: config: %s", error->message);
  close (fd);
  err_fd = g_file_open_tmp ("bench-a2g-redis-XXXXXX.err", &replica->stderr_path, &error);
  env = g_environ_setenv (env, "GAMEGATE_CONFIG", replica->config_path, TRUE);
  env = g_environ_setenv (env, "G_MESSAGES_DEBUG", "gamegate-a2g", TRUE);
  if (!g_spawn_async_with_pipes_and_fds (NULL, argv, (const char * const *) env, G_SPAWN_DO_NOT_REAP_CHILD,
                                         NULL, NULL, -1, -1, err_fd, NULL, NULL, 0, &replica->pid,
                                         NULL, &out_fd, NULL, &error))
    g_error ("bench-a2g-redis: spawn: %s", error->message);
  close (err_fd);
  for (;;)
    {
      char c;
      ssize_t n = read (out_fd, &c, 1);
      if (n <= 0)
        g_error ("bench-a2g-redis: gamegate a2g exited before it listened");
      if (c == '\n')
        break;
      g_string_append_c (line, c);
    }
  close (out_fd);
  at = strstr (line->str, "http://127.0.0.1:");
  if (at == NULL)
    g_error ("bench-a2g-redis: unexpected first line: %s", line->str);
  replica->port = (guint16) atoi (at + strlen ("http://127.0.0.1:"));
  g_string_free (line, TRUE);
  return replica;
}

/* Stops @replica; returns the commands its store sent (0 in memory). */
static guint64
replica_stop (Replica *replica)
{
  g_autofree char *log = NULL;
  const char *at;
  guint64 commands = 0;

  kill (replica->pid, SIGTERM);
  waitpid (replica->pid, NULL, 0);
  g_spawn_close_pid (replica->pid);
  if (g_file_get_contents (replica->stderr_path, &log, NULL, NULL) &&
      (at = strstr (log, "a2g: ")) != NULL)
    {
      for (; at != NULL; at = strstr (at + 1, "a2g: "))
        if (g_ascii_isdigit (at[5]) && strstr (at, " commands sent") != NULL)
          commands = g_ascii_strtoull (at + 5, NULL, 10);
    }
  unlink (replica->config_path);
  unlink (replica->stderr_path);
  g_free (replica->config_path);
  g_free (replica->stderr_path);
  g_free (replica);
  return commands;
}

static char *
exchange_ok (BenchHttpConnection *conn, const char *request)
{
  g_autoptr(GError) error = NULL;
  guint status = 0;
  char *answer = bench_http_exchange (conn, request, &status, &error);

  if (answer == NULL || status != 200)
    g_error ("bench-a2g-redis: %u %s", status, answer != NULL ? answer : error->message);
  return answer;
}

static char *
session_open (guint16 port, const char *client_id)
{
  g_autoptr(GError) error = NULL;
  BenchHttpConnection *conn = bench_http_connect (port, &error);
  g_autofree char *body = g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"%s\",\"game\":\"orbital-freight\","
                                           "\"manifest\":%s}", client_id, MANIFEST);
  g_autofree char *request = bench_http_request (port, "/v1/session", NULL, body);
  g_autofree char *answer = exchange_ok (conn, request);
  const char *at = strstr (answer, "\"session_token\":\"");
  char *token;

  bench_http_close (conn);
  g_assert_nonnull (at);
  at += strlen ("\"session_token\":\"");
  token = g_strndup (at, strchr (at, '"') - at);
  return token;
}

/* @n entities of @type in one request, all in the same situation. */
static char *
decide_request (guint16 port, const char *token, const char *client_id, const char *type, guint n)
{
  g_autoptr(GString) body = g_string_new (NULL);

  g_string_append_printf (body, "{\"client_id\":\"%s\",\"entities\":[", client_id);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (body, "%s{\"entity\":\"%s-%u\",\"type\":\"%s\","
                            "\"observations\":{\"hp\":50},\"legal_actions\":[\"flee\",\"%s\"]}",
                            i > 0 ? "," : "", type, i + 1, type,
                            strcmp (type, "pirate") == 0 ? "attack" : "dump_cargo");
  g_string_append (body, "]}");
  return bench_http_request (port, "/v1/decide", token, body->str);
}

typedef struct {
  guint16 port;
  char *request;
  guint connections;
  const char *expect;
  BenchLoadResult result;
} Load;

static gpointer
load_thread (gpointer data)
{
  Load *load = data;
  g_autoptr(GError) error = NULL;

  if (!bench_load_run (load->port, load->request, load->connections, WARMUP_S, MEASURE_S, load->expect,
                       &load->result, &error))
    g_error ("bench-a2g-redis: load: %s", error->message);
  return NULL;
}

static guint64
redis_cpu_ns (void)
{
  return bench_process_cpu_ns (redis_pid);
}

static void
print_row (const char *setup, const char *what, Load *loads, guint n, double cpu_us, double redis_us)
{
  double per_second = 0, decisions = 0, p50 = 0, p99 = 0;
  guint64 failures = 0;

  for (guint i = 0; i < n; i++)
    {
      per_second += loads[i].result.per_second;
      decisions += loads[i].result.matches / loads[i].result.seconds;
      p50 = MAX (p50, loads[i].result.p50_us);
      p99 = MAX (p99, loads[i].result.p99_us);
      failures += loads[i].result.failures;
    }
  char redis_column[32] = "";

  if (redis_us > 0)
    g_snprintf (redis_column, sizeof redis_column, "%.1f", redis_us);
  printf ("%-26s %-14s %9.0f %9.0f %9.1f %9.1f %9.1f %9s\n", setup, what, per_second, decisions, p50, p99, cpu_us,
          redis_column);
  if (failures > 0)
    printf ("  (%" G_GUINT64_FORMAT " answers were not 200)\n", failures);
}

/* The CPU time (ns) the replicas and redis-server have used so far. */
static void
cpu_now (Replica **replicas, guint n, gboolean redis, guint64 *service, guint64 *store)
{
  *service = 0;
  for (guint i = 0; i < n; i++)
    *service += bench_process_cpu_ns (replicas[i]->pid);
  *store = redis ? redis_cpu_ns () : 0;
}

/* @n replicas (memory when !@redis), the load split over them. */
static void
bench_setup (const char *setup, gboolean redis, guint n, guint prefix)
{
  static const char *types[] = { "trader", "pirate", "pirate" };
  static const guint entities[] = { 1, 1, 16 };
  static const char *labels[] = { "model", "cache hit", "16 cache hits" };
  static const char *expect[] = { "\"source\":\"model\"", "\"source\":\"cache\"", "\"source\":\"cache\"" };
  Replica *replicas[2];
  g_autofree char *token = NULL;

  for (guint i = 0; i < n; i++)
    replicas[i] = replica_start (redis, prefix);
  token = session_open (replicas[0]->port, "c_5f1c9a27e04b7d13");
  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    {
      Load loads[2];
      GThread *threads[2];
      guint64 service_before, store_before, service_after, store_after, requests = 0;

      if (t == 1)
        {
          /* The cache entry every later answer comes from. */
          g_autoptr(GError) error = NULL;
          g_autofree char *first = decide_request (replicas[0]->port, token, "c_5f1c9a27e04b7d13", types[t], 1);
          BenchHttpConnection *conn = bench_http_connect (replicas[0]->port, &error);

          g_free (exchange_ok (conn, first));
          bench_http_close (conn);
        }
      cpu_now (replicas, n, redis, &service_before, &store_before);
      for (guint i = 0; i < n; i++)
        {
          loads[i] = (Load) { replicas[i]->port, decide_request (replicas[i]->port, token, "c_5f1c9a27e04b7d13",
                                                                 types[t], entities[t]),
                              CONNECTIONS / n, expect[t], { 0 } };
          threads[i] = g_thread_new ("load", load_thread, &loads[i]);
        }
      for (guint i = 0; i < n; i++)
        {
          g_thread_join (threads[i]);
          requests += loads[i].result.requests;
        }
      cpu_now (replicas, n, redis, &service_after, &store_after);
      /* The warm-up's answers came at about the measured rate. */
      requests = requests * (WARMUP_S + MEASURE_S) / MEASURE_S;
      print_row (setup, labels[t], loads, n,
                 requests > 0 ? (service_after - service_before) / 1000.0 / requests : 0,
                 requests > 0 ? (store_after - store_before) / 1000.0 / requests : 0);
      for (guint i = 0; i < n; i++)
        g_free (loads[i].request);
    }
  for (guint i = 0; i < n; i++)
    replica_stop (replicas[i]);
}

/* Commands one replica sends per decision, for @count sequential requests
 * of @n entities of @type, less those of a replica that only opened the
 * session. */
static double
round_trips (const char *type, guint n, guint prefix)
{
  g_autoptr(GError) error = NULL;
  Replica *idle = replica_start (TRUE, prefix), *busy;
  g_autofree char *idle_token = session_open (idle->port, "c_0a1b2c3d4e5f6a7b");
  guint64 base = replica_stop (idle), total;
  g_autofree char *token = NULL;
  g_autofree char *request = NULL;
  BenchHttpConnection *conn;

  (void) idle_token;
  busy = replica_start (TRUE, prefix);
  token = session_open (busy->port, "c_0a1b2c3d4e5f6a7b");
  request = decide_request (busy->port, token, "c_0a1b2c3d4e5f6a7b", type, n);
  conn = bench_http_connect (busy->port, &error);
  g_free (exchange_ok (conn, request));   /* a cache hit needs its entry */
  for (guint i = 0; i < ROUND_TRIPS; i++)
    g_free (exchange_ok (conn, request));
  bench_http_close (conn);
  total = replica_stop (busy);
  /* The first request (model calls for both types) is counted in. */
  return (double) (total - base) / ((ROUND_TRIPS + 1) * n);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *server = g_find_program_in_path ("redis-server");

  (void) argc;
  (void) argv;
  if (server == NULL)
    {
      printf ("bench-a2g-redis: redis-server is not installed\n");
      return 77;
    }
  redis_dir = g_dir_make_tmp ("bench-a2g-redis-XXXXXX", &error);
  g_assert_no_error (error);
  redis_socket = g_build_filename (redis_dir, "redis.sock", NULL);
  redis_start ();
  printf ("a2g decide, %u keep-alive connections in all; CPU time per request of the replicas and of "
          "redis-server\n", CONNECTIONS);
  printf ("%-26s %-14s %9s %9s %9s %9s %9s %9s\n", "setup", "decision", "req/s", "decide/s", "p50 us", "p99 us",
          "CPU us/r", "Redis us/r");
  bench_setup ("one replica, memory", FALSE, 1, 1);
  bench_setup ("one replica, Redis", TRUE, 1, 2);
  bench_setup ("two replicas, one Redis", TRUE, 2, 3);
  printf ("Redis round trips per decision: model %.2f, cache hit %.2f, 16 cache hits per request %.2f\n",
          round_trips ("trader", 1, 4), round_trips ("pirate", 1, 5), round_trips ("pirate", 16, 6));
  redis_stop ();
  g_unlink (redis_socket);
  g_rmdir (redis_dir);
  g_free (redis_socket);
  g_free (redis_dir);
  return 0;
}
