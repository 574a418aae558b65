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
 * The keys below are test keys made for this fuzzer with openssl; they
 * sign nothing anywhere else.
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

static const char es_public[] =
  "-----BEGIN PUBLIC KEY-----\n"
  "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEIqQA1GKr2kmQ5RN81vlA1TQsODeg\n"
  "e0Kx9XwAbLTEL62l1VDomTwVVyWoahpUaTDIWKaHKGx+kw16XgaqJP48SA==\n"
  "-----END PUBLIC KEY-----\n";

static const char es_private[] =
  "-----BEGIN PRIVATE KEY-----\n"
  "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgFBajTo4vWmq5TT5h\n"
  "sVAdyp3QAeYwriN0BizuwTbLbf6hRANCAAQipADUYqvaSZDlE3zW+UDVNCw4N6B7\n"
  "QrH1fABstMQvraXVUOiZPBVXJahqGlRpMMhYpocobH6TDXpeBqok/jxI\n"
  "-----END PRIVATE KEY-----\n";

static const char rsa_public[] =
  "-----BEGIN PUBLIC KEY-----\n"
  "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAuE+m0W5bFsCTSklcmRwK\n"
  "jHvvjRcqRVjK/f3on+e2JNY6mbxunnrjrDiy3JKWSy1m3FYdQH2SxAXQFJDsANpZ\n"
  "/r5uRsLzJsn2DI2samf0wJydDmLDEmnsHRdtw7Hj00Bu3qYiYUtep7vvZ8rg3OH3\n"
  "xeFjGABOM/4D9sgO+b0zdBlwHePVD3GEaAzbP5u8ImWh6sNFhv1tTRzHwB9lyjoU\n"
  "CF2UwqbFppKoSteg0uQ44ebofBcmRk0XArVdnKAVOpjeY+qlXqrfyCGY5vJBxbmp\n"
  "mepQPsY8IhmjjsQFIqDHHNxeHBnoh87lBjKted7JNXPi0GUtQErC6AvsfexWiI6q\n"
  "ZwIDAQAB\n"
  "-----END PUBLIC KEY-----\n";

static const char rsa_private[] =
  "-----BEGIN PRIVATE KEY-----\n"
  "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC4T6bRblsWwJNK\n"
  "SVyZHAqMe++NFypFWMr9/eif57Yk1jqZvG6eeuOsOLLckpZLLWbcVh1AfZLEBdAU\n"
  "kOwA2ln+vm5GwvMmyfYMjaxqZ/TAnJ0OYsMSaewdF23DsePTQG7epiJhS16nu+9n\n"
  "yuDc4ffF4WMYAE4z/gP2yA75vTN0GXAd49UPcYRoDNs/m7wiZaHqw0WG/W1NHMfA\n"
  "H2XKOhQIXZTCpsWmkqhK16DS5Djh5uh8FyZGTRcCtV2coBU6mN5j6qVeqt/IIZjm\n"
  "8kHFuamZ6lA+xjwiGaOOxAUioMcc3F4cGeiHzuUGMq153sk1c+LQZS1ASsLoC+x9\n"
  "7FaIjqpnAgMBAAECggEAWQ1bK5undUHMqLrze6LZ0fDb2I7VxLXXNotkx0YccoXz\n"
  "wG4UAIydzouCmCJXbbFdHp6Y+ZzyubWZSSaQcQUPMI9wFs6Az0ALmxsksDDUR/Aj\n"
  "zlyXpiD5jUDRrxkXW+2o4/jfaaUR8fdTABI9PVwM7FYvG9yh7GsSHT2iRrZM0w3X\n"
  "5txqjlbui4yyTBPlLRhr+/La1sm1w08jpHqeqab2m5w0z6RisG5UdJGjtN2Fu2tC\n"
  "iayNwLNghJ/pKmsmZHjCOZ2t0of4iauKgsZXcDbe/TLM4v00ZNshjW+kPY7HDCnW\n"
  "WRdTEbTzIKNgmL3Ql7WfV2se379jwShOlSvSX16aOQKBgQD1sTNfsrlK1hb6a5Kj\n"
  "mWXP+q4oHDmWDg7k64PPrZLHrY2vAxhMvyG1pD339oK40O5vexwyKnCDuGfVQr6g\n"
  "sTXs9o6jALmVPEkm5moIgTWgBhL4ymf4xTdl7Rod768OmvTo5M9FcTPeX3X3Ioyh\n"
  "iQZSke8+gaVvY7/UMBMprPoZvQKBgQDACzPB9T+ehOTL8Hva7ihSzc4PjgaXWF43\n"
  "I+IySeoRMd99Q38HJ5vam57bFi0THDEvzlqCr/qsNQM2Vn+uYJDh5tLh1zzuNNqq\n"
  "yTfeaHMQ7QZFsb78EF3TyGlqItsL6LWUYgFdXbvqZhrAODU5ttbZaNxg9RoOZZVN\n"
  "rMyTMQbs8wKBgQCZ0kpuxM+bWfRi7kyNnrGOh8zXkew/1SdgDU+mC27VEwScqNxi\n"
  "2Fs7hMvDXhOzsCNHqpUZl1aAMUjYzQPaSXiQlkDxLrgCBg9qimGiV3sCaCsill6H\n"
  "8rlfWBW83l4ET+G7md1nBZvKwotxobDYRZiuw208/iBcX+Au8bZdpk2jJQKBgBpP\n"
  "rpitVDkQthQm76EwLgAiSFAjQk3sAoSFexEuxU3zyk3sOHQvfg/2cE5N/ID4xNhq\n"
  "6kWrfKmpXbZNJZMrkc4RhOUCS0vLnAX4KZpkLxerkcdsseDxERnaBG9RNTete2tH\n"
  "/i3fkMZtlM6vJMOyhD8nOcJi8l30lv8cZK7p8av3AoGBAIft6z9vSCfPAYQiUFW3\n"
  "LmH61wOFCabXQDZeLVTX0hrQ+1B8Ga0oXJG0IboHUXSoOh9wEMIlSSe66DmT9ykj\n"
  "Neb5bFF5rYDAYK9Y8OFRAY1I6d8vXlSycDjMZ5cDqFlTpPOL8in+4enevPtl5laA\n"
  "wwyc0q9jn8dr3IpnFOjVrhaJ\n"
  "-----END PRIVATE KEY-----\n";

static GgA2gAccess *join_access;

static char *
write_key (const char *dir,
           const char *name,
           const char *pem)
{
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (dir, name, NULL);

  g_file_set_contents (path, pem, -1, &error);
  g_assert_no_error (error);
  return path;
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
  es_path = write_key (dir, "es.pub.pem", es_public);
  rsa_path = write_key (dir, "rsa.pub.pem", rsa_public);
  text = g_strdup_printf ("[a2g]\nprofile=client\nbehind-tls-proxy=true\nservice-id=" SERVICE_ID "\n"
                          "games=" GAME "\n" GAME ".join-keys=studio-es:ES256:%s, studio-rsa:RS256:%s\n"
                          GAME ".manifests=sha256:%064d\n", es_path, rsa_path, 0);
  config = gg_config_new ();
  gg_config_load_data (config, text, "fuzz", &error);
  g_assert_no_error (error);
  join_access = gg_a2g_access_load (config, "a2g", "client", &error);
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
