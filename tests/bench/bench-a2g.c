/* bench-a2g.c: the A2G decision service (`gamegate a2g`) under keep-alive
 * load from a load generator on this machine (bench-a2g-http.c: raw
 * sockets, one thread, CONNECTIONS connections):
 *
 *   - decide requests per second and p50/p99 for cache hits (16 entities,
 *     each in its own situation, and 1 entity per request) and forced decisions, each side by side with a
 *     bare libsoup server answering the same answer as a fixed 200 JSON (the
 *     limit; aim: at least 50% of it),
 *   - scripted-model decisions per second (cache off, 16 per request),
 *   - the model call's overhead over the model's own time (a scripted model
 *     that takes 20 ms, one request at a time),
 *   - resident memory per idle session (10,000 sessions; aim under 8 KiB),
 *   - decide over the service's own TLS (server profile, tls-certificate)
 *     beside the same service over plain HTTP (behind-tls-proxy), the same
 *     requests byte for byte: 64 distinct bodies in turn, with distinct
 *     entities in distinct situations (aim: TLS at least 80% of plain).
 *
 * Beside throughput it prints the server's CPU time per answer (from
 * /proc schedstat: time actually on a CPU), which stays meaningful on a
 * machine other work keeps busy; "by CPU" compares those with the limit.
 *
 * Runs $GAMEGATE_BIN directly (never under a wrapper: figures under valgrind
 * mean nothing). Prints a table; asserts nothing about speed. With
 * GG_BENCH_ONLY set, only the rows whose label contains it run (e.g.
 * GG_BENCH_ONLY="cache hits, 16" for one scenario under a profiler).
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

#include <gamegate.h>
#include <json-glib/json-glib.h>

#include "bench-a2g-http.h"

#define CONNECTIONS    8
#define WARMUP_S       0.3
#define MEASURE_S      1.5
#define ROUNDS         3      /* service and bare server alternate; best round of each */
#define IDLE_SESSIONS  10000
#define MODEL_DELAY_MS 20

/* The spec's orbital-freight manifest, plus a `trader` type that is never
 * cached and has no memory, so every decision of it is a model call. */
static const char MANIFEST[] =
  "{\"a2g\":\"0.1\",\"game\":\"orbital-freight\",\"version\":\"0.9.2\","
  "\"world\":\"A cargo-hauling game on an orbital station. Pirates raid slow freighters.\","
  "\"entity_types\":{"
  "\"pirate\":{\"description\":\"A raider in a small fast ship.\","
  "\"observations\":{\"hp\":{\"type\":\"integer\",\"min\":0,\"max\":100,\"bucket\":10},"
  "\"target_distance\":{\"type\":\"number\",\"min\":0,\"max\":5000,\"bucket\":250},"
  "\"allies_near\":{\"type\":\"integer\",\"min\":0,\"max\":16},"
  "\"cargo_seen\":{\"type\":\"enum\",\"values\":[\"none\",\"ore\",\"medicine\",\"weapons\"]},"
  "\"cornered\":{\"type\":\"boolean\"}},"
  "\"actions\":{\"attack\":{\"description\":\"Close in and fire.\"},"
  "\"flee\":{\"description\":\"Break off and run for the asteroid field.\"},"
  "\"call_help\":{\"description\":\"Call nearby allies.\"},"
  "\"surrender\":{\"description\":\"Power down and hail.\"}},"
  "\"ttl_ms\":3000,\"token_budget\":800,\"cache\":\"game\",\"memory\":5,\"min_confidence\":0},"
  "\"trader\":{\"description\":\"A freighter captain.\","
  "\"observations\":{\"hp\":{\"type\":\"integer\",\"min\":0,\"max\":100}},"
  "\"actions\":{\"flee\":{\"description\":\"Run for the station.\"},"
  "\"dump_cargo\":{\"description\":\"Drop the cargo and run.\"}},"
  "\"cache\":\"off\",\"memory\":0}},"
  "\"scopes\":{\"station\":{\"text\":\"Station security patrols the inner ring.\"},"
  "\"inner_ring\":{\"text\":\"Patrols arrive within 20 seconds.\"}},"
  "\"profiles\":{\"coward\":{\"text\":\"Values its own life above loot.\"},"
  "\"veteran\":{\"text\":\"Has survived many raids; calm and calculating.\"}}}";

/* GG_BENCH_ONLY: a part of the labels of the rows to run; unset: all. */
static gboolean
wanted (const char *label)
{
  const char *only = g_getenv ("GG_BENCH_ONLY");

  return only == NULL || *only == '\0' || strstr (label, only) != NULL;
}

typedef struct {
  GPid    pid;
  guint16 port;
  char   *config_path;
} Service;

static const char *
gamegate_bin (void)
{
  const char *bin = g_getenv ("GAMEGATE_BIN");

  if (bin == NULL || *bin == '\0')
    {
      g_printerr ("bench-a2g: GAMEGATE_BIN is not set (run through meson test --benchmark)\n");
      exit (1);
    }
  return bin;
}

/* The service's configuration: the given model, and limits high enough
 * that the benchmark measures the service rather than its rate limits. */
static char *
service_config (const char *model_json)
{
  return g_strdup_printf ("[a2g]\nmodel=%s\nmax-sessions=%u\n"
                          "session-rate=1000000\nsession-burst=1000000\n"
                          "game-rate=1000000\ngame-burst=1000000\n"
                          "address-rate=1000000\naddress-burst=1000000\n"
                          "session-open-rate=1000000\nsession-open-burst=1000000\n"
                          "session-token-budget=1000000000000\ngame-token-budget=1000000000000\n"
                          "max-model-calls=1024\n",
                          model_json, IDLE_SESSIONS * 2);
}

/* Starts `gamegate a2g` with the configuration @config; its port is read
 * from its first line (http:// or https://). */
static Service *
service_start_config (const char *config)
{
  g_autoptr(GError) error = NULL;
  const char *argv[] = { gamegate_bin (), "a2g", "--listen", "127.0.0.1:0", NULL };
  Service *service = g_new0 (Service, 1);
  g_auto(GStrv) env = g_get_environ ();
  int out_fd = -1;
  int fd = g_file_open_tmp ("bench-a2g-XXXXXX.conf", &service->config_path, &error);
  GString *line = g_string_new (NULL);
  const char *at;

  if (fd < 0 || !g_file_set_contents (service->config_path, config, -1, &error))
    g_error ("bench-a2g: config: %s", error->message);
  close (fd);
  env = g_environ_setenv (env, "GAMEGATE_CONFIG", service->config_path, TRUE);
  if (!g_spawn_async_with_pipes (NULL, (char **) argv, env, G_SPAWN_DO_NOT_REAP_CHILD,
                                 NULL, NULL, &service->pid, NULL, &out_fd, NULL, &error))
    g_error ("bench-a2g: spawn: %s", error->message);
  for (;;)
    {
      char c;
      ssize_t n = read (out_fd, &c, 1);
      if (n <= 0)
        g_error ("bench-a2g: gamegate a2g exited before it listened");
      if (c == '\n')
        break;
      g_string_append_c (line, c);
    }
  close (out_fd);
  at = strstr (line->str, "://127.0.0.1:");
  if (at == NULL)
    g_error ("bench-a2g: unexpected first line: %s", line->str);
  service->port = (guint16) atoi (at + strlen ("://127.0.0.1:"));
  g_string_free (line, TRUE);
  return service;
}

static Service *
service_start (const char *model_json)
{
  g_autofree char *config = service_config (model_json);

  return service_start_config (config);
}

static void
service_stop (Service *service)
{
  int status = 0;

  kill (service->pid, SIGTERM);
  waitpid (service->pid, &status, 0);
  g_spawn_close_pid (service->pid);
  unlink (service->config_path);
  g_free (service->config_path);
  g_free (service);
}

static long
vm_rss_kib (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", (int) pid);
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents (path, &status, NULL, NULL) || (line = strstr (status, "VmRSS:")) == NULL)
    return -1;
  return strtol (line + strlen ("VmRSS:"), NULL, 10);
}

/* One request on @conn; the body, which must come with 200. */
static char *
exchange_ok (BenchHttpConnection *conn,
             const char          *request)
{
  g_autoptr(GError) error = NULL;
  guint status = 0;
  char *body = bench_http_exchange (conn, request, &status, &error);

  if (body == NULL)
    g_error ("bench-a2g: %s", error->message);
  if (status != 200)
    g_error ("bench-a2g: HTTP %u: %s", status, body);
  return body;
}

static char *
string_member (const char *json,
               const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_from_string (json, &error);
  JsonObject *object;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    g_error ("bench-a2g: not a JSON object: %s", json);
  object = json_node_get_object (node);
  if (!json_object_has_member (object, name))
    return NULL;
  return g_strdup (json_object_get_string_member (object, name));
}

typedef struct {
  char *token;
  char *manifest_hash;
} Session;

static void
session_open (BenchHttpConnection *conn,
              guint16              port,
              const char          *client_id,
              const char          *manifest_hash,
              Session             *out)
{
  g_autofree char *body = manifest_hash != NULL
    ? g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"%s\",\"game\":\"orbital-freight\","
                       "\"manifest_hash\":\"%s\"}", client_id, manifest_hash)
    : g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"%s\",\"game\":\"orbital-freight\","
                       "\"manifest\":%s}", client_id, MANIFEST);
  g_autofree char *request = bench_http_request (port, "/v1/session", NULL, body);
  g_autofree char *answer = exchange_ok (conn, request);

  if (out != NULL)
    {
      out->token = string_member (answer, "session_token");
      out->manifest_hash = string_member (answer, "manifest_hash");
    }
}

/* A decide body: @n entities of @type (pirate or trader) with @legal, each
 * in a situation of its own (distinct after the manifest's buckets), as a
 * game sends them: a squad is never 16 copies of one pirate. */
static char *
decide_body (const char *client_id,
             guint       n,
             const char *type,
             const char *legal)
{
  static const char *const cargo[] = { "none", "ore", "medicine", "weapons" };
  GString *body = g_string_new (NULL);

  g_string_append_printf (body, "{\"client_id\":\"%s\",\"epoch\":1,\"entities\":[", client_id);
  for (guint i = 0; i < n; i++)
    {
      g_string_append_printf (body, "%s{\"entity\":\"%s-%u\",\"type\":\"%s\",", i > 0 ? "," : "", type, i + 1, type);
      if (strcmp (type, "pirate") == 0)
        g_string_append_printf (body, "\"profile\":\"%s\",\"observations\":{\"hp\":%u,\"target_distance\":%u,"
                                "\"allies_near\":%u,\"cargo_seen\":\"%s\",\"cornered\":%s},",
                                i % 2 == 0 ? "coward" : "veteran", (i % 10) * 10 + 5, ((i * 7) % 21) * 250 + 40,
                                (i * 5) % 17, cargo[i % 4], i % 2 == 1 ? "true" : "false");
      else
        g_string_append_printf (body, "\"observations\":{\"hp\":%u},", 50 + i);
      g_string_append_printf (body, "\"legal_actions\":%s}", legal);
    }
  g_string_append (body, "]}");
  return g_string_free (body, FALSE);
}

static void
run_load (guint16          port,
          const char      *request,
          guint            connections,
          const char      *expect,
          BenchLoadResult *result)
{
  g_autoptr(GError) error = NULL;

  if (!bench_load_run (port, request, connections, WARMUP_S, MEASURE_S, expect, result, &error))
    g_error ("bench-a2g: load on port %u: %s", port, error->message);
}

typedef guint64 (*CpuFunc) (gpointer target);

static guint64
service_cpu (gpointer target)
{
  return bench_process_cpu_ns (((Service *) target)->pid);
}

static guint64
bare_cpu (gpointer target)
{
  return bench_bare_server_cpu_ns (target);
}

/* A measured run and the server's CPU time per answer during it (the
 * answers of the warm-up are counted by their share of the run's time). */
static double
run_load_cpu (guint16          port,
              const char      *request,
              guint            connections,
              const char      *expect,
              CpuFunc          cpu,
              gpointer         target,
              BenchLoadResult *result)
{
  guint64 before = cpu (target);
  guint64 after;

  run_load (port, request, connections, expect, result);
  after = cpu (target);
  if (result->requests == 0)
    return 0;
  /* The warm-up's answers came at about the measured rate. */
  return (after - before) / 1000.0 / (result->requests * (WARMUP_S + MEASURE_S) / MEASURE_S);
}

static void
print_header (void)
{
  printf ("%-44s %8s %9s %9s %9s %9s %9s %9s\n", "measure", "req/s", "decide/s", "p50 us", "p99 us",
          "CPU us/r", "of limit", "by CPU");
}

static void
print_row (const char            *what,
           const BenchLoadResult *r,
           double                 cpu_us,
           const BenchLoadResult *limit,
           double                 limit_cpu_us)
{
  g_autofree char *share = limit != NULL && limit->per_second > 0
    ? g_strdup_printf ("%8.0f%%", 100.0 * r->per_second / limit->per_second) : g_strdup ("");
  g_autofree char *cpu_share = limit != NULL && cpu_us > 0
    ? g_strdup_printf ("%8.0f%%", 100.0 * limit_cpu_us / cpu_us) : g_strdup ("");

  printf ("%-44s %8.0f %9.0f %9.1f %9.1f %9.1f %9s %9s\n", what, r->per_second, r->matches / r->seconds,
          r->p50_us, r->p99_us, cpu_us, share, cpu_share);
  if (r->failures > 0)
    printf ("  (%" G_GUINT64_FORMAT " answers were not 200)\n", r->failures);
}

/* A decide scenario and the bare libsoup server with the same answer. */
static void
side_by_side (Service    *service,
              const char *token,
              const char *label,
              const char *body,
              guint       entities,
              const char *expect)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *request = bench_http_request (service->port, "/v1/decide", token, body);
  BenchHttpConnection *conn = bench_http_connect (service->port, &error);
  g_autofree char *answer = NULL;
  g_autofree char *bare_request = NULL;
  g_autofree char *label_bare = NULL;
  BenchBareServer *bare;
  BenchLoadResult service_result, bare_result;
  double service_cpu_us = 0, bare_cpu_us = 0;

  if (!wanted (label))
    {
      bench_http_close (conn);
      return;
    }
  if (conn == NULL)
    g_error ("bench-a2g: %s", error->message);
  /* Twice: the first fills the cache (or is forced anyway). */
  g_free (exchange_ok (conn, request));
  answer = exchange_ok (conn, request);
  bench_http_close (conn);
  if (strstr (answer, expect) == NULL)
    g_error ("bench-a2g: %s: the answer is not %s: %s", label, expect, answer);

  bare = bench_bare_server_start (answer);
  bare_request = bench_http_request (bench_bare_server_port (bare), "/v1/decide", token, body);
  /* Alternating rounds, so that load from elsewhere on the machine hits
   * both alike; the best round of each is reported. */
  memset (&service_result, 0, sizeof service_result);
  memset (&bare_result, 0, sizeof bare_result);
  for (guint round = 0; round < ROUNDS; round++)
    {
      BenchLoadResult r;
      double cpu;

      cpu = run_load_cpu (service->port, request, CONNECTIONS, expect, service_cpu, service, &r);
      if (r.per_second > service_result.per_second)
        {
          service_result = r;
          service_cpu_us = cpu;
        }
      cpu = run_load_cpu (bench_bare_server_port (bare), bare_request, CONNECTIONS, expect,
                          bare_cpu, bare, &r);
      if (r.per_second > bare_result.per_second)
        {
          bare_result = r;
          bare_cpu_us = cpu;
        }
    }
  bench_bare_server_stop (bare);

  label_bare = g_strdup_printf ("  limit: bare libsoup, same %zu-byte JSON", strlen (answer));
  print_row (label, &service_result, service_cpu_us, &bare_result, bare_cpu_us);
  print_row (label_bare, &bare_result, bare_cpu_us, NULL, 0);
  if (service_result.matches != service_result.requests * entities)
    printf ("  (%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " decisions were %s)\n",
            service_result.matches, service_result.requests * entities, expect);
}

static void
bench_fast_paths (void)
{
  Service *service = service_start ("{\"type\":\"scripted\",\"fallback\":{\"json\":"
                                    "{\"reason\":\"Alone and hurt.\",\"action\":\"flee\",\"confidence\":72}}}");
  g_autoptr(GError) error = NULL;
  BenchHttpConnection *conn = bench_http_connect (service->port, &error);
  Session session = { 0 };
  g_autofree char *cache16 = decide_body ("c_bench_fast_0001", 16, "pirate", "[\"attack\",\"flee\",\"surrender\"]");
  g_autofree char *cache1 = decide_body ("c_bench_fast_0001", 1, "pirate", "[\"attack\",\"flee\",\"surrender\"]");
  g_autofree char *forced1 = decide_body ("c_bench_fast_0001", 1, "pirate", "[\"flee\"]");
  g_autofree char *model16 = decide_body ("c_bench_fast_0001", 16, "trader", "[\"flee\",\"dump_cargo\"]");
  g_autofree char *model_request = NULL;
  BenchLoadResult model_result;
  double model_cpu_us;

  if (conn == NULL)
    g_error ("bench-a2g: %s", error->message);
  session_open (conn, service->port, "c_bench_fast_0001", NULL, &session);
  bench_http_close (conn);

  printf ("a2g decision service (%s)\n%u keep-alive connections from a raw-socket load generator; "
          "best of %u alternating %.1f s rounds\n", gamegate_bin (), CONNECTIONS, ROUNDS, MEASURE_S);
  print_header ();
  side_by_side (service, session.token, "decide, cache hits, 16 entities", cache16, 16, "\"source\":\"cache\"");
  side_by_side (service, session.token, "decide, cache hit, 1 entity", cache1, 1, "\"source\":\"cache\"");
  side_by_side (service, session.token, "decide, forced, 1 entity", forced1, 1, "\"source\":\"forced\"");

  if (wanted ("decide, scripted model, 16 entities (cache off)"))
    {
      model_request = bench_http_request (service->port, "/v1/decide", session.token, model16);
      model_cpu_us = run_load_cpu (service->port, model_request, CONNECTIONS, "\"source\":\"model\"",
                                   service_cpu, service, &model_result);
      print_row ("decide, scripted model, 16 entities (cache off)", &model_result, model_cpu_us, NULL, 0);
    }
  if (wanted ("decide, cache hit, 1 entity, 1 connection"))
  {
    g_autofree char *one = bench_http_request (service->port, "/v1/decide", session.token, cache1);
    BenchLoadResult r;
    double cpu = run_load_cpu (service->port, one, 1, "\"source\":\"cache\"", service_cpu, service, &r);
    print_row ("decide, cache hit, 1 entity, 1 connection", &r, cpu, NULL, 0);
  }

  g_free (session.token);
  g_free (session.manifest_hash);
  service_stop (service);
}

static void
bench_model_overhead (void)
{
  g_autofree char *model = g_strdup_printf ("{\"type\":\"scripted\",\"fallback\":{\"delayMs\":%u,\"json\":"
                                            "{\"reason\":\"Run.\",\"action\":\"flee\",\"confidence\":60}}}",
                                            MODEL_DELAY_MS);
  Service *service = service_start (model);
  g_autoptr(GError) error = NULL;
  BenchHttpConnection *conn = bench_http_connect (service->port, &error);
  Session session = { 0 };
  g_autofree char *body = decide_body ("c_bench_slow_0001", 1, "trader", "[\"flee\",\"dump_cargo\"]");
  g_autofree char *request = NULL;
  BenchLoadResult r;

  if (conn == NULL)
    g_error ("bench-a2g: %s", error->message);
  session_open (conn, service->port, "c_bench_slow_0001", NULL, &session);
  bench_http_close (conn);
  request = bench_http_request (service->port, "/v1/decide", session.token, body);
  run_load (service->port, request, 1, "\"source\":\"model\"", &r);
  printf ("%-44s %10.1f ms p50, %.1f ms p99 (model: %u ms)\n", "decide, model taking 20 ms, 1 at a time",
          r.p50_us / 1000.0, r.p99_us / 1000.0, MODEL_DELAY_MS);
  printf ("%-44s %10.0f us p50, %.0f us p99\n", "  model call overhead over the model's time",
          r.p50_us - MODEL_DELAY_MS * 1000.0, r.p99_us - MODEL_DELAY_MS * 1000.0);
  g_free (session.token);
  g_free (session.manifest_hash);
  service_stop (service);
}

static void
bench_idle_sessions (void)
{
  Service *service = service_start ("{\"type\":\"scripted\",\"fallback\":{\"text\":\"idle\"}}");
  g_autoptr(GError) error = NULL;
  BenchHttpConnection *conn = bench_http_connect (service->port, &error);
  Session first = { 0 };
  long before, after;
  double per_session;

  if (conn == NULL)
    g_error ("bench-a2g: %s", error->message);
  session_open (conn, service->port, "c_bench_idle_first", NULL, &first);
  /* Let the first allocations settle before the baseline. */
  for (guint i = 0; i < 100; i++)
    {
      g_autofree char *id = g_strdup_printf ("c_bench_warm_%06u", i);
      session_open (conn, service->port, id, first.manifest_hash, NULL);
    }
  before = vm_rss_kib (service->pid);
  for (guint i = 0; i < IDLE_SESSIONS; i++)
    {
      g_autofree char *id = g_strdup_printf ("c_bench_idle_%06u", i);
      session_open (conn, service->port, id, first.manifest_hash, NULL);
    }
  after = vm_rss_kib (service->pid);
  bench_http_close (conn);
  per_session = (after - before) * 1024.0 / IDLE_SESSIONS;
  printf ("%-44s %10.0f B   (aim < 8192 B)\n", "RSS per idle session (" G_STRINGIFY (IDLE_SESSIONS) " sessions)",
          per_session);
  printf ("%-44s %10ld KiB / %ld KiB\n", "  VmRSS before / after", before, after);
  g_free (first.token);
  g_free (first.manifest_hash);
  service_stop (service);
}

/* ---- decide over the service's own TLS beside plain HTTP ------------------ */

#define TLS_BODIES 64
#define TLS_ROUNDS 5
#define TLS_API_KEY "ak_bench_3f9c0e71d25a48b6"
/* Byte for byte the same requests to both: the plain one is "behind a
 * TLS-terminating proxy", the TLS one ignores the header. */
#define TLS_HEADERS "X-Forwarded-Proto: https\r\n"

typedef struct {
  char *dir;
  char *certificate;
  char *key;
} Pem;

/* A self-signed P-256 certificate for 127.0.0.1, made for the run. */
static void
pem_make (Pem *pem)
{
  g_autoptr(GError) error = NULL;
  int status = -1;

  pem->dir = g_dir_make_tmp ("bench-a2g-tls-XXXXXX", &error);
  if (pem->dir == NULL)
    g_error ("bench-a2g: %s", error->message);
  pem->certificate = g_build_filename (pem->dir, "cert.pem", NULL);
  pem->key = g_build_filename (pem->dir, "key.pem", NULL);
  {
    const char *args[] = { "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                           "-nodes", "-keyout", pem->key, "-out", pem->certificate, "-days", "1",
                           "-subj", "/CN=127.0.0.1", NULL };
    if (!g_spawn_sync (NULL, (char **) args, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
                       G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error) || status != 0)
      g_error ("bench-a2g: openssl req failed");
  }
}

static void
pem_clear (Pem *pem)
{
  unlink (pem->certificate);
  unlink (pem->key);
  rmdir (pem->dir);
  g_free (pem->certificate);
  g_free (pem->key);
  g_free (pem->dir);
}

/* The server profile with orbital-freight registered, and @transport. */
static Service *
server_start (const char *model_json,
              const char *transport)
{
  g_autoptr(JsonNode) manifest = json_from_string (MANIFEST, NULL);
  g_autofree char *canonical = gg_json_canonical_string (manifest);
  g_autofree char *manifest_sha = g_compute_checksum_for_string (G_CHECKSUM_SHA256, canonical, -1);
  g_autofree char *key_sha = g_compute_checksum_for_string (G_CHECKSUM_SHA256, TLS_API_KEY, -1);
  g_autofree char *base = service_config (model_json);
  g_autofree char *config = g_strdup_printf ("%sprofile=server\ngames=orbital-freight\n"
                                             "orbital-freight.api-key-sha256=%s\n"
                                             "orbital-freight.manifests=sha256:%s\n%s",
                                             base, key_sha, manifest_sha, transport);

  return service_start_config (config);
}

/* Opens a session over @tls or not; returns its token. */
static char *
server_session (guint16  port,
                gboolean tls)
{
  g_autoptr(GError) error = NULL;
  BenchHttpConnection *conn = bench_http_connect_full (port, tls, &error);
  g_autofree char *body = g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"c_bench_tls_00001\","
                                           "\"game\":\"orbital-freight\",\"manifest\":%s}", MANIFEST);
  g_autofree char *request = bench_http_request_full (port, "/v1/session", TLS_API_KEY, TLS_HEADERS, body);
  g_autofree char *answer = NULL;

  if (conn == NULL)
    g_error ("bench-a2g: %s", error->message);
  answer = exchange_ok (conn, request);
  bench_http_close (conn);
  return string_member (answer, "session_token");
}

/* The @i-th of TLS_BODIES decide bodies: @pirates pirates in situations
 * distinct after the manifest's buckets, and a trader (a model call every
 * time) when @trader. */
static char *
varied_body (guint    i,
             guint    pirates,
             gboolean trader)
{
  static const char *const cargo[] = { "none", "ore", "medicine", "weapons" };
  static const char *const legal[] = { "[\"attack\",\"flee\"]", "[\"attack\",\"flee\",\"surrender\"]",
                                       "[\"flee\",\"call_help\",\"attack\"]" };
  GString *body = g_string_new (NULL);

  g_string_append_printf (body, "{\"client_id\":\"c_bench_tls_00001\",\"epoch\":%u,\"entities\":[", i + 1);
  for (guint k = 0; k < pirates; k++)
    {
      guint n = i * pirates + k;

      g_string_append_printf (body, "%s{\"entity\":\"pirate-%u\",\"type\":\"pirate\",\"profile\":\"%s\","
                              "\"observations\":{\"hp\":%u,\"target_distance\":%u,\"allies_near\":%u,"
                              "\"cargo_seen\":\"%s\",\"cornered\":%s},\"legal_actions\":%s}",
                              k > 0 ? "," : "", n, n % 2 == 0 ? "coward" : "veteran", (n % 11) * 10,
                              ((n / 11) % 21) * 250, (n / 231) % 17, cargo[n % 4], n % 2 == 0 ? "true" : "false",
                              legal[n % 3]);
    }
  if (trader)
    g_string_append_printf (body, "%s{\"entity\":\"trader-%u\",\"type\":\"trader\",\"observations\":"
                            "{\"hp\":%u},\"legal_actions\":[\"flee\",\"dump_cargo\"]}",
                            pirates > 0 ? "," : "", i, i % 101);
  g_string_append (body, "]}");
  return g_string_free (body, FALSE);
}

/* Best of TLS_ROUNDS alternating rounds, TLS and plain: the most requests
 * per second of each, and the least CPU time per answer of each (the
 * rounds least disturbed by other work on the machine). */
static void
tls_side_by_side (Service    *tls,
                  const char *tls_token,
                  Service    *plain,
                  const char *plain_token,
                  const char *label,
                  guint       pirates,
                  gboolean    trader)
{
  g_autoptr(GPtrArray) tls_requests = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) plain_requests = g_ptr_array_new_with_free_func (g_free);
  guint entities = pirates + (trader ? 1 : 0);
  BenchLoadResult tls_best = { 0 }, plain_best = { 0 };
  double tls_cpu_us = G_MAXDOUBLE, plain_cpu_us = G_MAXDOUBLE;
  g_autofree char *plain_label = NULL;

  if (!wanted (label))
    return;
  for (guint i = 0; i < TLS_BODIES; i++)
    {
      g_autofree char *body = varied_body (i, pirates, trader);

      g_ptr_array_add (tls_requests, bench_http_request_full (tls->port, "/v1/decide", tls_token, TLS_HEADERS, body));
      g_ptr_array_add (plain_requests, bench_http_request_full (plain->port, "/v1/decide", plain_token,
                                                                TLS_HEADERS, body));
    }
  g_ptr_array_add (tls_requests, NULL);
  g_ptr_array_add (plain_requests, NULL);
  for (guint round = 0; round < TLS_ROUNDS; round++)
    for (guint side = 0; side < 2; side++)
      {
        Service *service = side == 0 ? tls : plain;
        GPtrArray *requests = side == 0 ? tls_requests : plain_requests;
        g_autoptr(GError) error = NULL;
        guint64 before = bench_process_cpu_ns (service->pid);
        BenchLoadResult r;
        double cpu;

        /* Every decision is a real one (no FALLBACK): counted by its id. */
        if (!bench_load_run_requests (service->port, side == 0, (const char * const *) requests->pdata, CONNECTIONS,
                                      WARMUP_S, MEASURE_S, "\"decision_id\"", &r, &error))
          g_error ("bench-a2g: %s load: %s", side == 0 ? "TLS" : "plain", error->message);
        cpu = r.requests > 0 ? (bench_process_cpu_ns (service->pid) - before) / 1000.0 /
                               (r.requests * (WARMUP_S + MEASURE_S) / MEASURE_S) : 0;
        if (side == 0)
          {
            if (r.per_second > tls_best.per_second)
              tls_best = r;
            tls_cpu_us = MIN (tls_cpu_us, cpu);
          }
        else
          {
            if (r.per_second > plain_best.per_second)
              plain_best = r;
            plain_cpu_us = MIN (plain_cpu_us, cpu);
          }
      }
  plain_label = g_strdup_printf ("  plain HTTP, the same %u bodies", TLS_BODIES);
  print_row (label, &tls_best, tls_cpu_us, &plain_best, plain_cpu_us);
  print_row (plain_label, &plain_best, plain_cpu_us, NULL, 0);
  printf ("  TLS/plain: %.0f%% of the requests per second, %.0f%% by CPU (aim: at least 80%%)\n",
          100.0 * tls_best.per_second / MAX (plain_best.per_second, 1),
          100.0 * plain_cpu_us / MAX (tls_cpu_us, 0.001));
  if (tls_best.matches != tls_best.requests * entities || plain_best.matches != plain_best.requests * entities)
    printf ("  (not every entity was decided: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " over TLS, %"
            G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " plain)\n", tls_best.matches, tls_best.requests * entities,
            plain_best.matches, plain_best.requests * entities);
}

static void
bench_tls (void)
{
  const char *model = "{\"type\":\"scripted\",\"fallback\":{\"json\":"
                      "{\"reason\":\"Outgunned.\",\"action\":\"flee\",\"confidence\":64}}}";
  Pem pem = { 0 };
  g_autofree char *tls_transport = NULL;
  Service *tls, *plain;
  g_autofree char *tls_token = NULL;
  g_autofree char *plain_token = NULL;

  pem_make (&pem);
  tls_transport = g_strdup_printf ("tls-certificate=%s\ntls-key=%s\n", pem.certificate, pem.key);
  tls = server_start (model, tls_transport);
  plain = server_start (model, "behind-tls-proxy=true\n");
  tls_token = server_session (tls->port, TRUE);
  plain_token = server_session (plain->port, FALSE);
  printf ("\ndecide over the service's own TLS (GnuTLS client, %u keep-alive connections, one handshake "
          "each) beside plain HTTP;\n%u distinct bodies in turn; best of %u alternating %.1f s rounds "
          "(CPU: the least per answer)\n", CONNECTIONS, TLS_BODIES, TLS_ROUNDS, MEASURE_S);
  print_header ();
  tls_side_by_side (tls, tls_token, plain, plain_token, "TLS decide, 3 pirates + 1 trader", 3, TRUE);
  tls_side_by_side (tls, tls_token, plain, plain_token, "TLS decide, 1 pirate", 1, FALSE);
  service_stop (tls);
  service_stop (plain);
  pem_clear (&pem);
}

int
main (int   argc,
      char *argv[])
{
  signal (SIGPIPE, SIG_IGN);
  bench_fast_paths ();
  if (wanted ("decide, model taking 20 ms, 1 at a time"))
    bench_model_overhead ();
  if (wanted ("RSS per idle session"))
    bench_idle_sessions ();
  if (wanted ("TLS decide"))
    bench_tls ();
  return 0;
}
