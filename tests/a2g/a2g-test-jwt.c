/* a2g-test-jwt.c: keys, join tokens and client-profile requests of the
 * a2g tests (see a2g-test-jwt.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "a2g-test-jwt.h"
#include "gg-a2g-canonical.h"

A2gJwtKeys a2g_jwt_keys;

static void
openssl (const char * const *args)
{
  g_autoptr(GError) error = NULL;
  int status = -1;

  g_spawn_sync (NULL, (char **) args, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
                G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
}

static char *
path_in (const char *name)
{
  return g_build_filename (a2g_jwt_keys.dir, name, NULL);
}

static char *
read_text (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

/** a2g_jwt_keys_make: makes the keys in a temporary directory */
void
a2g_jwt_keys_make (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *es = NULL, *es_pub = NULL, *rsa = NULL, *rsa_pub = NULL, *rogue = NULL;
  g_autoptr(JsonNode) node = gg_json_parse (a2g_test_manifest, -1, 64, NULL);

  a2g_jwt_keys.dir = g_dir_make_tmp ("gg-a2g-keys-XXXXXX", &error);
  g_assert_no_error (error);
  es = path_in ("es.pem");
  es_pub = path_in ("es.pub.pem");
  rsa = path_in ("rsa.pem");
  rsa_pub = path_in ("rsa.pub.pem");
  rogue = path_in ("rogue.pem");
  {
    const char *a[] = { "openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                        "-out", es, NULL };
    const char *b[] = { "openssl", "pkey", "-in", es, "-pubout", "-out", es_pub, NULL };
    const char *c[] = { "openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                        "-out", rsa, NULL };
    const char *d[] = { "openssl", "pkey", "-in", rsa, "-pubout", "-out", rsa_pub, NULL };
    const char *e[] = { "openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                        "-out", rogue, NULL };
    openssl (a);
    openssl (b);
    openssl (c);
    openssl (d);
    openssl (e);
  }
  a2g_jwt_keys.es_private = read_text (es);
  a2g_jwt_keys.es_public = read_text (es_pub);
  a2g_jwt_keys.rsa_private = read_text (rsa);
  a2g_jwt_keys.rsa_public = read_text (rsa_pub);
  a2g_jwt_keys.rogue_private = read_text (rogue);
  a2g_jwt_keys.hash = gg_a2g_canonical_hash (node);
}

/** a2g_jwt_keys_free: removes the keys and their directory */
void
a2g_jwt_keys_free (void)
{
  const char *names[] = { "es.pem", "es.pub.pem", "rsa.pem", "rsa.pub.pem", "rogue.pem" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = path_in (names[i]);
      g_unlink (path);
    }
  g_rmdir (a2g_jwt_keys.dir);
  g_free (a2g_jwt_keys.dir);
  g_free (a2g_jwt_keys.es_private);
  g_free (a2g_jwt_keys.es_public);
  g_free (a2g_jwt_keys.rsa_private);
  g_free (a2g_jwt_keys.rsa_public);
  g_free (a2g_jwt_keys.rogue_private);
  g_free (a2g_jwt_keys.hash);
  memset (&a2g_jwt_keys, 0, sizeof a2g_jwt_keys);
}

/**
 * a2g_jwt_client_config:
 * @extra: (nullable): more lines of [a2g]
 *
 * Returns: (transfer full): the client profile behind a declared TLS proxy,
 *   the game's two keys registered, the test manifest's hash allowed
 */
char *
a2g_jwt_client_config (const char *extra)
{
  g_autofree char *es_pub = path_in ("es.pub.pem");
  g_autofree char *rsa_pub = path_in ("rsa.pub.pem");

  return g_strdup_printf ("[a2g]\nprofile=client\nbehind-tls-proxy=true\nservice-id=" A2G_SERVICE_ID "\n"
                          "games=orbital-freight\norbital-freight.join-keys=studio-es:ES256:%s, studio-rsa:RS256:%s\n"
                          "orbital-freight.manifests=%s\n%s", es_pub, rsa_pub, a2g_jwt_keys.hash,
                          extra != NULL ? extra : "");
}

/** a2g_join_good: Returns: a join token's claims that are all right */
A2gJoin
a2g_join_good (void)
{
  return (A2gJoin) { "studio-es", JWT_ALG_ES256, a2g_jwt_keys.es_private, A2G_SERVICE_ID, "orbital-freight",
                     a2g_jwt_keys.hash, "p_7f3a9c", 600, NULL };
}

/**
 * a2g_join_token:
 * @join: the claims
 *
 * Returns: (transfer full): the signed token (a fresh jti unless @join names one)
 */
char *
a2g_join_token (const A2gJoin *join)
{
  jwt_t *jwt = NULL;
  g_autofree char *jti = NULL;
  char *token;

  g_assert_cmpint (jwt_new (&jwt), ==, 0);
  if (join->kid != NULL)
    jwt_add_header (jwt, "kid", join->kid);
  if (join->aud != NULL)
    jwt_add_grant (jwt, "aud", join->aud);
  if (join->game != NULL)
    jwt_add_grant (jwt, "game", join->game);
  if (join->manifest_hash != NULL)
    jwt_add_grant (jwt, "manifest_hash", join->manifest_hash);
  if (join->sub != NULL)
    jwt_add_grant (jwt, "sub", join->sub);
  jwt_add_grant_int (jwt, "exp", (long) (g_get_real_time () / G_USEC_PER_SEC + join->exp_in));
  if (join->jti == NULL)
    jti = g_strdup_printf ("j-%u-%u", (guint) getpid (), ++a2g_jwt_keys.serial);
  else if (strcmp (join->jti, "-") != 0)
    jti = g_strdup (join->jti);
  if (jti != NULL)
    jwt_add_grant (jwt, "jti", jti);
  g_assert_cmpint (jwt_set_alg (jwt, join->alg, (const unsigned char *) join->key,
                                join->key != NULL ? (int) strlen (join->key) : 0), ==, 0);
  token = jwt_encode_str (jwt);
  jwt_free (jwt);
  g_assert_nonnull (token);
  return token;
}

/**
 * a2g_proxied_post:
 * @service: a service behind a declared TLS proxy
 * @path: the path
 * @bearer: (nullable): the Authorization bearer
 * @body: a JSON body
 *
 * Returns: (transfer full): the answer to a POST as the proxy forwards it
 */
A2gResponse *
a2g_proxied_post (A2gService *service,
                  const char *path,
                  const char *bearer,
                  const char *body)
{
  g_autofree char *auth = bearer != NULL ? g_strconcat ("Bearer ", bearer, NULL) : NULL;
  const char *headers[] = { "X-Forwarded-Proto", "https", "Content-Type", "application/json",
                            auth != NULL ? "Authorization" : NULL, auth, NULL };

  return a2g_request (service, "POST", path, headers, body);
}

/**
 * a2g_join_open:
 * @service: a client-profile service
 * @client_id: the session's client_id
 * @token: (nullable): the join token
 *
 * Returns: (transfer full): the answer to /v1/session with the test manifest
 */
A2gResponse *
a2g_join_open (A2gService *service,
               const char *client_id,
               const char *token)
{
  g_autofree char *body = g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"%s\",\"game\":\"orbital-freight\","
                                           "\"manifest\":%s}", client_id, a2g_test_manifest);

  return a2g_proxied_post (service, "/v1/session", token, body);
}

/**
 * a2g_join_session:
 * @service: a client-profile service
 * @client_id: the session's client_id
 *
 * Returns: (transfer full): the session token of a session opened with a
 *   fresh good join token
 */
char *
a2g_join_session (A2gService *service,
                  const char *client_id)
{
  A2gJoin join = a2g_join_good ();
  g_autofree char *token = a2g_join_token (&join);
  g_autoptr(A2gResponse) response = a2g_join_open (service, client_id, token);
  g_autoptr(JsonObject) object = NULL;

  g_test_message ("%s", response->body);
  g_assert_cmpuint (response->status, ==, 200);
  object = a2g_json (response);
  return g_strdup (json_object_get_string_member (object, "session_token"));
}

/**
 * a2g_proxied_decide:
 * @service: a service behind a declared TLS proxy
 * @client_id: the session's client_id
 * @token: its session token
 * @entry: one decide entry (JSON)
 *
 * Returns: (transfer full): "SOURCE ACTION REASON" (reason "-" when none),
 *   or "FALLBACK CODE"
 */
char *
a2g_proxied_decide (A2gService *service,
                    const char *client_id,
                    const char *token,
                    const char *entry)
{
  g_autofree char *body = g_strdup_printf ("{\"client_id\":\"%s\",\"epoch\":1,\"entities\":[%s]}", client_id, entry);
  g_autoptr(A2gResponse) response = a2g_proxied_post (service, "/v1/decide", token, body);

  return a2g_first_decision (response);
}
