/* fuzz-a2g-join.c: join tokens of the client profile (gg-a2g-join.c):
 * the header base64url-decoded and read as JSON before libjwt sees the
 * token, then libjwt's verification, then the claims, against a game with
 * two registered studio keys (studio-es: ES256, studio-rsa: RS256) at a
 * fixed time, 2026-01-01T00:00:00Z (1767225600).
 *
 * The input is either the token itself (up to a NUL), or, when it starts
 * with "sign:", lines that make a token signed with the registered keys'
 * own private halves, so that the claims checks are reached too:
 *
 *   sign:ES256|RS256
 *   {"kid":"studio-es"}                     the header's members (JSON)
 *   {"aud":"a2g.fuzz.example","exp":...}    the claims (JSON)
 *
 * Checked on every input: a refusal names a reason without the token and
 * leaves no claims; an acceptance has every claim, an `exp` within 15
 * minutes ahead, and only for the registered game (never for another).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gamegate.h>
#include <glib/gstdio.h>
#include <jwt.h>
#include <string.h>

#include "fuzz-common.h"
#include "gg-a2g-join.h"

#define NOW_S G_GINT64_CONSTANT (1767225600)
#define SERVICE_ID "a2g.fuzz.example"
#define GAME "orbital-freight"

/* The studio's key pairs, made with openssl when the fuzzer starts (none
 * is kept in the tree): tokens of "sign:" inputs are signed with them, so
 * an input means the same whatever the keys. */
static char *es_private;
static char *rsa_private;

static GgA2gAccess *join_access;

static void
openssl (const char * const *args)
{
  g_autoptr(GError) error = NULL;
  int status = -1;

  g_spawn_sync (NULL, (char **) args, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
                G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

/* A key pair in @dir: the private half's PEM, the public half in @public_path. */
static char *
make_key_pair (const char *dir,
               const char *name,
               const char *algorithm,
               const char *option,
               char      **public_path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *private_path = g_strdup_printf ("%s/%s.pem", dir, name);
  char *pem = NULL;

  *public_path = g_strdup_printf ("%s/%s.pub.pem", dir, name);
  {
    const char *generate[] = { "openssl", "genpkey", "-algorithm", algorithm, "-pkeyopt", option,
                               "-out", private_path, NULL };
    const char *extract[] = { "openssl", "pkey", "-in", private_path, "-pubout", "-out", *public_path, NULL };

    openssl (generate);
    openssl (extract);
  }
  g_file_get_contents (private_path, &pem, NULL, &error);
  g_assert_no_error (error);
  g_unlink (private_path);
  return pem;
}

/* The client profile with the two public keys (read from files, as the
 * configuration names them; the files are gone once loaded). */
static void
setup (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgConfig) config = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *es_path = NULL;
  g_autofree char *rsa_path = NULL;
  g_autofree char *text = NULL;

  if (join_access != NULL)
    return;
  dir = g_dir_make_tmp ("gg-fuzz-join-XXXXXX", &error);
  g_assert_no_error (error);
  es_private = make_key_pair (dir, "es", "EC", "ec_paramgen_curve:P-256", &es_path);
  rsa_private = make_key_pair (dir, "rsa", "RSA", "rsa_keygen_bits:2048", &rsa_path);
  text = g_strdup_printf ("[a2g]\nprofile=client\nbehind-tls-proxy=true\nservice-id=" SERVICE_ID "\n"
                          "games=" GAME "\n" GAME ".join-keys=studio-es:ES256:%s, studio-rsa:RS256:%s\n"
                          GAME ".manifests=sha256:%064d\n", es_path, rsa_path, 0);
  config = gg_config_new ();
  gg_config_load_data (config, text, "fuzz", &error);
  g_assert_no_error (error);
  join_access = gg_a2g_access_load (config, "a2g", GG_A2G_PROFILE_CLIENT, &error);
  g_assert_no_error (error);
  g_unlink (es_path);
  g_unlink (rsa_path);
  g_rmdir (dir);
}

/* "sign:" inputs: the token libjwt makes of them, or NULL when libjwt
 * takes no such header or claims. */
static char *
sign (FuzzInput *in)
{
  g_autofree char *alg = fuzz_input_piece (in, '\n', NULL);
  g_autofree char *headers = fuzz_input_piece (in, '\n', NULL);
  g_autofree char *grants = fuzz_input_piece (in, '\n', NULL);
  gboolean rsa = strcmp (alg, "RS256") == 0;
  const char *pem = rsa ? rsa_private : es_private;
  jwt_t *jwt = NULL;
  char *token = NULL;

  if (jwt_new (&jwt) != 0)
    return NULL;
  if ((headers[0] == '\0' || jwt_add_headers_json (jwt, headers) == 0) &&
      (grants[0] == '\0' || jwt_add_grants_json (jwt, grants) == 0) &&
      jwt_set_alg (jwt, rsa ? JWT_ALG_RS256 : JWT_ALG_ES256, (const unsigned char *) pem, (int) strlen (pem)) == 0)
    token = jwt_encode_str (jwt);
  jwt_free (jwt);
  if (token != NULL && g_getenv ("FUZZ_DUMP") != NULL)
    g_printerr ("%s\n", token);
  return token;
}

static void
check (const char *token)
{
  GgA2gJoinClaims claims;
  const char *message = NULL;
  gboolean valid = gg_a2g_join_verify (join_access, token, GAME, NOW_S, &claims, &message);

  if (g_getenv ("FUZZ_DUMP") != NULL)
    g_printerr ("%s\n", valid ? "valid" : message);

  if (!valid)
    {
      g_assert_nonnull (message);
      g_assert_true (message[0] != '\0');
      /* Refusals never quote the token. */
      if (strlen (token) >= 16)
        g_assert_null (strstr (message, token));
      g_assert_null (claims.sub);
      g_assert_null (claims.jti);
      g_assert_null (claims.manifest_hash);
    }
  else
    {
      g_assert_null (message);
      g_assert_nonnull (claims.sub);
      g_assert_cmpuint (strlen (claims.sub), >=, 1);
      g_assert_cmpuint (strlen (claims.sub), <=, 128);
      g_assert_nonnull (claims.jti);
      g_assert_cmpuint (strlen (claims.jti), >=, 1);
      g_assert_cmpuint (strlen (claims.jti), <=, 128);
      g_assert_nonnull (claims.manifest_hash);
      g_assert_cmpint (claims.exp, >, NOW_S);
      g_assert_cmpint (claims.exp, <=, NOW_S + 15 * 60);
      gg_a2g_join_claims_clear (&claims);
    }
  /* The same token is never good for a game without those keys. */
  g_assert_false (gg_a2g_join_verify (join_access, token, "another-game", NOW_S, &claims, &message));
  g_assert_nonnull (message);
  g_assert_null (claims.sub);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  FuzzInput in = { data, size };
  g_autofree char *token = NULL;

  fuzz_init ();
  setup ();
  if (size >= 5 && memcmp (data, "sign:", 5) == 0)
    {
      in.data += 5;
      in.size -= 5;
      token = sign (&in);
      if (token == NULL)
        return 0;
    }
  else
    token = g_strndup ((const char *) data, size);
  check (token);
  return 0;
}
