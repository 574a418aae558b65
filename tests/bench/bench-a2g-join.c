/* bench-a2g-join.c: `/v1/session` with join-token verification per second
 * (client profile): the real `gamegate a2g`, keep-alive HTTP,
 * tokens signed here with libjwt beforehand (ES256 and RS256 keys made
 * with openssl), each one fresh (its own jti); throughput and p50/p99.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <jwt.h>
#include <string.h>

#include "a2g-test-util.h"
#include "gg-a2g-canonical.h"

#define SERVICE_ID "a2g.bench.example"
#define N_OPENS 400

static char *
run (const char *command)
{
  g_autoptr(GError) error = NULL;
  const char *args[] = { "/bin/sh", "-c", command, NULL };
  char *out = NULL;
  int status = -1;

  g_spawn_sync (NULL, (char **) args, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return out;
}

static int
compare (gconstpointer a,
         gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static void
bench (const char *dir,
       const char *hash,
       const char *alg_name,
       jwt_alg_t   alg,
       const char *private_pem)
{
  g_autofree char *config = g_strdup_printf (
    "[a2g]\nprofile=client\nbehind-tls-proxy=true\nservice-id=" SERVICE_ID "\ngames=orbital-freight\n"
    "orbital-freight.join-keys=k:%s:%s/%s.pub.pem\norbital-freight.manifests=%s\n"
    "session-open-rate=1000000\nsession-open-burst=1000000\nsub-open-rate=1000000\nsub-open-burst=1000000\n"
    "address-rate=1000000\naddress-burst=1000000\n", alg_name, dir, alg_name, hash);
  A2gService *service = a2g_service_start (config);
  g_autoptr(GPtrArray) tokens = g_ptr_array_new_with_free_func (free);
  double latencies[N_OPENS];
  g_autofree char *body = g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"c_bench_client_1\","
                                           "\"game\":\"orbital-freight\",\"manifest\":%s}", a2g_test_manifest);
  gint64 start;
  double elapsed;

  for (guint i = 0; i < N_OPENS; i++)
    {
      jwt_t *jwt = NULL;
      g_autofree char *jti = g_strdup_printf ("bench-%u", i);

      jwt_new (&jwt);
      jwt_add_header (jwt, "kid", "k");
      jwt_add_grant (jwt, "aud", SERVICE_ID);
      jwt_add_grant (jwt, "game", "orbital-freight");
      jwt_add_grant (jwt, "manifest_hash", hash);
      jwt_add_grant (jwt, "sub", "p_bench");
      jwt_add_grant (jwt, "jti", jti);
      jwt_add_grant_int (jwt, "exp", (long) (g_get_real_time () / G_USEC_PER_SEC + 600));
      jwt_set_alg (jwt, alg, (const unsigned char *) private_pem, (int) strlen (private_pem));
      g_ptr_array_add (tokens, jwt_encode_str (jwt));
      jwt_free (jwt);
    }
  start = g_get_monotonic_time ();
  for (guint i = 0; i < N_OPENS; i++)
    {
      g_autofree char *auth = g_strconcat ("Bearer ", (char *) g_ptr_array_index (tokens, i), NULL);
      const char *headers[] = { "X-Forwarded-Proto", "https", "Content-Type", "application/json",
                                "Authorization", auth, NULL };
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr(A2gResponse) response = a2g_request (service, "POST", "/v1/session", headers, body);

      latencies[i] = (g_get_monotonic_time () - t0) / 1000.0;
      if (response->status != 200)
        g_error ("session: %u %s", response->status, response->body);
    }
  elapsed = (g_get_monotonic_time () - start) / 1e6;
  qsort (latencies, N_OPENS, sizeof latencies[0], compare);
  g_print ("a2g /v1/session with a %s join token: %.0f sessions/s, p50 %.2f ms, p99 %.2f ms (%d opens, "
           "one keep-alive connection)\n", alg_name, N_OPENS / elapsed, latencies[N_OPENS / 2],
           latencies[N_OPENS * 99 / 100], N_OPENS);
  a2g_service_stop (service);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("gg-bench-join-XXXXXX", &error);
  g_autoptr(JsonNode) node = gg_json_parse (a2g_test_manifest, -1, 64, NULL);
  g_autofree char *hash = gg_a2g_canonical_hash (node);
  g_autofree char *make = g_strdup_printf (
    "cd %s && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ES256.pem 2>/dev/null && "
    "openssl pkey -in ES256.pem -pubout -out ES256.pub.pem && "
    "openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out RS256.pem 2>/dev/null && "
    "openssl pkey -in RS256.pem -pubout -out RS256.pub.pem", dir);
  g_autofree char *made = NULL;
  g_autofree char *es = NULL;
  g_autofree char *rsa = NULL;
  g_autofree char *cleanup = g_strdup_printf ("rm -f %s/*.pem && rmdir %s", dir, dir);
  g_autofree char *cleaned = NULL;

  g_assert_no_error (error);
  made = run (make);
  {
    g_autofree char *es_path = g_build_filename (dir, "ES256.pem", NULL);
    g_autofree char *rsa_path = g_build_filename (dir, "RS256.pem", NULL);

    g_file_get_contents (es_path, &es, NULL, NULL);
    g_file_get_contents (rsa_path, &rsa, NULL, NULL);
  }
  bench (dir, hash, "ES256", JWT_ALG_ES256, es);
  bench (dir, hash, "RS256", JWT_ALG_RS256, rsa);
  cleaned = run (cleanup);
  return 0;
}
