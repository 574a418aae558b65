/* gg-a2g-policy-sign.c: the Ed25519 signature of /v1/policy.
 *
 * With [a2g] policy-signing-key set, every policy carries
 * `"signature":"ed25519:<base64>"` (a2g-0.1.md section 8): the detached
 * signature of the same canonical JSON (RFC 8785, without `sha256` and
 * `signature`) whose SHA-256 is `sha256`. A game embeds the public key in
 * its build and verifies both before it loads a downloaded policy
 * (a2g-security.md, "Local policy files").
 *
 * The key file is OpenSSL's PEM of an Ed25519 private key
 * (`openssl genpkey -algorithm ed25519`), or its 32-byte seed as 64 hex
 * digits. The secret is kept in libsodium's guarded memory and never
 * appears in a message: errors name the file only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <sodium.h>
#include <string.h>

#include "gg-a2g-policy-sign.h"

/* PKCS#8 of an Ed25519 private key: this prefix, then the 32-byte seed. */
static const guchar pkcs8_prefix[] = {
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20
};

struct _GgA2gPolicySigner {
  guchar *secret;          /* crypto_sign_SECRETKEYBYTES, sodium_malloc'ed */
};

static gboolean
read_seed (const char *text,
           guchar      seed[crypto_sign_SEEDBYTES])
{
  const char *begin = strstr (text, "-----BEGIN PRIVATE KEY-----");
  const char *end = begin != NULL ? strstr (begin, "-----END PRIVATE KEY-----") : NULL;
  gboolean ok = FALSE;

  if (begin != NULL && end != NULL)
    {
      g_autofree char *body = g_strndup (begin + strlen ("-----BEGIN PRIVATE KEY-----"),
                                         (gsize) (end - begin) - strlen ("-----BEGIN PRIVATE KEY-----"));
      gsize length = 0;
      guchar *der = g_base64_decode (g_strstrip (body), &length);

      if (der != NULL && length == sizeof pkcs8_prefix + crypto_sign_SEEDBYTES &&
          memcmp (der, pkcs8_prefix, sizeof pkcs8_prefix) == 0)
        {
          memcpy (seed, der + sizeof pkcs8_prefix, crypto_sign_SEEDBYTES);
          ok = TRUE;
        }
      if (der != NULL)
        sodium_memzero (der, length);
      g_free (der);
      sodium_memzero (body, strlen (body));
      return ok;
    }
  {
    g_autofree char *hex = g_strstrip (g_strdup (text));
    size_t bin_length = 0;

    ok = strlen (hex) == 2 * crypto_sign_SEEDBYTES &&
         sodium_hex2bin (seed, crypto_sign_SEEDBYTES, hex, strlen (hex), NULL, &bin_length, NULL) == 0 &&
         bin_length == crypto_sign_SEEDBYTES;
    sodium_memzero (hex, strlen (hex));
  }
  return ok;
}

/**
 * gg_a2g_policy_signer_load:
 * @path: the key file
 * @error: names the file, never its content
 *
 * Returns: (transfer full) (nullable): a signer
 */
GgA2gPolicySigner *
gg_a2g_policy_signer_load (const char  *path,
                           GError     **error)
{
  g_autoptr(GError) file_error = NULL;
  char *text = NULL;
  gsize length = 0;
  guchar seed[crypto_sign_SEEDBYTES];
  guchar public_key[crypto_sign_PUBLICKEYBYTES];
  GgA2gPolicySigner *signer;
  gboolean ok;

  if (sodium_init () < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "libsodium cannot start");
      return NULL;
    }
  if (!g_file_get_contents (path, &text, &length, &file_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", file_error->message);
      return NULL;
    }
  ok = read_seed (text, seed);
  sodium_memzero (text, length);
  g_free (text);
  if (!ok)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s: not an Ed25519 private key (PEM) or a 32-byte seed in hex", path);
      return NULL;
    }
  signer = g_new0 (GgA2gPolicySigner, 1);
  signer->secret = sodium_malloc (crypto_sign_SECRETKEYBYTES);
  if (signer->secret == NULL)
    {
      sodium_memzero (seed, sizeof seed);
      g_free (signer);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "no memory for the policy signing key");
      return NULL;
    }
  crypto_sign_seed_keypair (public_key, signer->secret, seed);
  sodium_memzero (seed, sizeof seed);
  return signer;
}

/**
 * gg_a2g_policy_signer_sign:
 * @signer: a signer
 * @canonical: the policy's canonical JSON
 *
 * Returns: (transfer full): the detached Ed25519 signature in base64
 */
char *
gg_a2g_policy_signer_sign (GgA2gPolicySigner *signer,
                           const char        *canonical)
{
  guchar signature[crypto_sign_BYTES];

  crypto_sign_detached (signature, NULL, (const guchar *) canonical, strlen (canonical), signer->secret);
  return g_base64_encode (signature, sizeof signature);
}

/** gg_a2g_policy_signer_free: @signer: (transfer full) (nullable): a signer */
void
gg_a2g_policy_signer_free (GgA2gPolicySigner *signer)
{
  if (signer == NULL)
    return;
  sodium_free (signer->secret);
  g_free (signer);
}
