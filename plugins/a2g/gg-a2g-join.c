/* gg-a2g-join.c: join tokens of the client profile (a2g-security.md,
 * "Opening a session"): JWTs signed by the studio's backend, verified with
 * libjwt against the studio's public keys registered per game.
 *
 * The header is read here first, before libjwt sees the token: its `kid`
 * must name a registered key of the game, and its `alg` must be that
 * key's own algorithm (ES256 or RS256). So `alg: none`, HMAC with the
 * public key as its secret, another algorithm for a known key and an
 * unknown `kid` are all refused without trying. Then the signature
 * (libjwt), and the claims: `aud` the service id, `game` the session's,
 * `sub` present (a pseudonymous player id), `exp` in the future and at
 * most 15 minutes ahead, `jti` present, `manifest_hash` present (checked
 * against the session's manifest once it is known). Single use of the
 * `jti` is the store's (jti_claim), so that replicas share it.
 *
 * Then, still before libjwt, the token must be exactly three non-empty
 * base64url segments (unpadded, as RFC 7515 writes them): libjwt 1.10
 * reads and writes a byte past its buffer when it decodes an empty
 * payload or signature, and an ES256 or RS256 token never has one.
 *
 * Refusals are short English sentences without any of the token.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <jwt.h>
#include <string.h>

#include "gg-a2g-join.h"

#define MAX_TOKEN_LENGTH 8192
#define MAX_AHEAD_S (15 * 60)

/* The JSON of a base64url segment, or NULL. */
static JsonObject *
decode_segment (const char *segment,
                gsize       length)
{
  g_autoptr(GString) text = g_string_new_len (segment, (gssize) length);
  g_autofree guchar *raw = NULL;
  g_autofree char *json = NULL;
  g_autoptr(JsonNode) node = NULL;
  gsize raw_length = 0;

  for (gsize i = 0; i < text->len; i++)
    {
      char c = text->str[i];

      if (c == '-')
        text->str[i] = '+';
      else if (c == '_')
        text->str[i] = '/';
      else if (!g_ascii_isalnum (c))
        return NULL;
    }
  while (text->len % 4 != 0)
    g_string_append_c (text, '=');
  raw = g_base64_decode (text->str, &raw_length);
  if (raw == NULL || raw_length == 0)
    return NULL;
  json = g_strndup ((const char *) raw, raw_length);
  if (strlen (json) != raw_length)
    return NULL;
  node = gg_json_parse (json, -1, 8, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return json_object_ref (json_node_get_object (node));
}

/* Whether @token is header.payload.signature, each segment non-empty
 * base64url without padding. */
static gboolean
compact_shape (const char *token)
{
  guint dots = 0;
  gsize segment = 0;

  for (const char *c = token; *c != '\0'; c++)
    {
      if (*c == '.')
        {
          if (segment == 0 || ++dots > 2)
            return FALSE;
          segment = 0;
        }
      else if (g_ascii_isalnum (*c) || *c == '-' || *c == '_')
        segment++;
      else
        return FALSE;
    }
  return dots == 2 && segment > 0;
}

static const char *
string_member (JsonObject *object,
               const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/**
 * gg_a2g_join_claims_clear:
 * @claims: claims to free
 */
void
gg_a2g_join_claims_clear (GgA2gJoinClaims *claims)
{
  g_clear_pointer (&claims->sub, g_free);
  g_clear_pointer (&claims->jti, g_free);
  g_clear_pointer (&claims->manifest_hash, g_free);
}

/**
 * gg_a2g_join_verify:
 * @access: the client profile's rules (keys, service id)
 * @token: the join token (the Bearer credential)
 * @game: the game the session is for
 * @now_s: the time (Unix seconds)
 * @claims: (out caller-allocates): the claims, when valid
 * @message: (out): why it is refused
 *
 * Returns: whether @token is a valid join token for @game
 */
gboolean
gg_a2g_join_verify (const GgA2gAccess *access,
                    const char        *token,
                    const char        *game,
                    gint64             now_s,
                    GgA2gJoinClaims   *claims,
                    const char       **message)
{
  const char *dot;
  g_autoptr(JsonObject) header = NULL;
  const char *alg, *kid;
  const GgA2gJoinKey *key;
  jwt_t *jwt = NULL;
  const char *aud, *claim_game, *sub, *jti, *hash;
  long exp;
  int status;

  memset (claims, 0, sizeof *claims);
  *message = "Invalid join token.";
  if (token == NULL || token[0] == '\0')
    {
      *message = "A join token is required.";
      return FALSE;
    }
  if (strlen (token) > MAX_TOKEN_LENGTH || (dot = strchr (token, '.')) == NULL)
    return FALSE;
  header = decode_segment (token, (gsize) (dot - token));
  if (header == NULL)
    return FALSE;
  alg = string_member (header, "alg");
  kid = string_member (header, "kid");
  key = gg_a2g_access_find_join_key (access, game, kid);
  if (key == NULL)
    {
      *message = "Unknown join token key.";
      return FALSE;
    }
  if (alg == NULL || strcmp (alg, key->alg) != 0)
    {
      *message = "Join token algorithm not allowed.";
      return FALSE;
    }
  if (!compact_shape (token))
    {
      *message = "Invalid join token.";
      return FALSE;
    }
  status = jwt_decode (&jwt, token, (const unsigned char *) key->pem, (int) key->pem_length);
  if (status != 0 || jwt == NULL || strcmp (jwt_alg_str (jwt_get_alg (jwt)), key->alg) != 0)
    {
      if (jwt != NULL)
        jwt_free (jwt);
      *message = "Invalid join token signature.";
      return FALSE;
    }
  aud = jwt_get_grant (jwt, "aud");
  claim_game = jwt_get_grant (jwt, "game");
  sub = jwt_get_grant (jwt, "sub");
  jti = jwt_get_grant (jwt, "jti");
  hash = jwt_get_grant (jwt, "manifest_hash");
  exp = jwt_get_grant_int (jwt, "exp");
  if (g_strcmp0 (aud, gg_a2g_access_get_service_id (access)) != 0)
    *message = "Join token for another service.";
  else if (g_strcmp0 (claim_game, game) != 0)
    *message = "Join token for another game.";
  else if (sub == NULL || sub[0] == '\0' || strlen (sub) > 128)
    *message = "Join token without a sub.";
  else if (jti == NULL || jti[0] == '\0' || strlen (jti) > 128)
    *message = "Join token without a jti.";
  else if (hash == NULL)
    *message = "Join token without a manifest_hash.";
  else if (exp <= now_s)
    *message = "Expired join token.";
  else if (exp > now_s + MAX_AHEAD_S)
    *message = "Join token expires more than 15 minutes ahead.";
  else
    {
      claims->sub = g_strdup (sub);
      claims->jti = g_strdup (jti);
      claims->manifest_hash = g_strdup (hash);
      claims->exp = exp;
      *message = NULL;
    }
  jwt_free (jwt);
  return *message == NULL;
}
