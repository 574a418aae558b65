/* test-a2g-console-auth.c: the console, /v1/usage and /v1/policy outside
 * the local profile (a2g-security.md, Transport; a2g-0.1.md sections 4,
 * 8, 9) against the real `gamegate a2g`: the console credential (only its
 * SHA-256 in the configuration) as HTTP Basic and as Bearer, 401 with the
 * browser's prompt without it, 403 without the key configured; requests
 * with an Origin only from the service's own origin; /v1/usage with a
 * game's API key (its own budget only) or the console credential;
 * /v1/policy with the key of the game that registered the manifest (signed
 * as "ed25519:<base64>", verified here with libsodium) or the console
 * credential, never in the client profile; the same over the service's own
 * TLS; the credential ignored in the local profile; and no credential in
 * any log or body.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <sodium.h>
#include <string.h>

#include "a2g-test-util.h"
#include "gg-a2g-canonical.h"

#define CREDENTIAL "cc_4e9b1f7a02d8c63e5f10b9a7d2c4"
#define CLIENT "c_5f1c9a27e04b7d13"
#define MINER_CLIENT "c_9d0e3b7a61f2c845"
#define CHALLENGE "Basic realm=\"a2g console\", charset=\"UTF-8\""
/* The pirate's decision, then the drone's. */
#define FLEE_THEN_DIG "model={\"type\":\"scripted\",\"steps\":[{\"json\":{\"reason\":\"r\",\"action\":\"flee\"," \
  "\"confidence\":70}},{\"json\":{\"reason\":\"r\",\"action\":\"dig\",\"confidence\":70}}]}\n"

static char *
credential_config (void)
{
  g_autofree char *hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, CREDENTIAL, -1);

  return g_strdup_printf ("console-credential-sha256=%s\n", hash);
}

/* `Basic base64(user:secret)`, as a browser sends what its prompt got. */
static char *
basic (const char *user,
       const char *secret)
{
  g_autofree char *pair = g_strconcat (user, ":", secret, NULL);
  g_autofree char *encoded = g_base64_encode ((const guchar *) pair, strlen (pair));

  return g_strconcat ("Basic ", encoded, NULL);
}

/* A GET through the declared proxy with this Authorization (nullable). */
static A2gResponse *
get_with (A2gService *service,
          const char *path,
          const char *authorization)
{
  const char *headers[] = { "X-Forwarded-Proto", "https", authorization != NULL ? "Authorization" : NULL,
                            authorization, NULL };

  return a2g_request (service, "GET", path, headers, NULL);
}

/* Nothing secret in what the service said or logged. */
static void
assert_no_credential (A2gService  *service,
                      A2gResponse *response)
{
  g_autofree char *basic_form = basic ("ops", CREDENTIAL);

  g_assert_null (strstr (response->body, CREDENTIAL));
  g_assert_null (strstr (response->body, A2G_TEST_KEY_FREIGHT));
  g_assert_null (strstr (response->body, A2G_TEST_KEY_MINER));
  g_assert_null (strstr (response->body, basic_form + strlen ("Basic ")));
  a2g_assert_no_secret (service, CREDENTIAL);
  a2g_assert_no_secret (service, basic_form + strlen ("Basic "));
  a2g_assert_no_secret (service, A2G_TEST_KEY_FREIGHT);
  a2g_assert_no_secret (service, A2G_TEST_KEY_MINER);
}

static void
assert_challenge (A2gResponse *response,
                  const char  *message)
{
  a2g_assert_error (response, 401, message, "unauthorized");
  g_assert_cmpstr (soup_message_headers_get_one (response->headers, "WWW-Authenticate"), ==, CHALLENGE);
}

static void
assert_served (A2gResponse *response,
               const char  *content_type,
               const char  *contains)
{
  g_test_message ("%u %.80s", response->status, response->body);
  g_assert_cmpuint (response->status, ==, 200);
  g_assert_cmpstr (soup_message_headers_get_content_type (response->headers, NULL), ==, content_type);
  g_assert_nonnull (strstr (response->body, contains));
  g_assert_cmpstr (soup_message_headers_get_one (response->headers, "Strict-Transport-Security"), ==,
                   "max-age=31536000");
  g_assert_null (soup_message_headers_get_one (response->headers, "Access-Control-Allow-Origin"));
  g_assert_null (soup_message_headers_get_one (response->headers, "WWW-Authenticate"));
}

/* The first event of /v1/console/events with this Authorization. */
static char *
first_event (A2gService *service,
             const char *authorization,
             guint      *status)
{
  const char *headers[] = { "X-Forwarded-Proto", "https", authorization != NULL ? "Authorization" : NULL,
                            authorization, NULL };

  return a2g_first_event (service, "/v1/console/events", service->tls ? headers + 2 : headers, status);
}

static void
test_console (void)
{
  g_autofree char *extra = credential_config ();
  g_autofree char *config = a2g_server_config (extra);
  A2gService *service = a2g_service_start (config);
  g_autofree char *right = basic ("ops", CREDENTIAL);
  g_autofree char *no_user = basic ("", CREDENTIAL);
  g_autofree char *wrong = basic ("ops", CREDENTIAL "x");
  g_autofree char *no_colon = NULL;
  g_autofree char *bearer = g_strconcat ("Bearer ", CREDENTIAL, NULL);
  const char *paths[] = { "/", "/console.css", "/console.js", "/v1/console/events" };

  {
    g_autofree char *encoded = g_base64_encode ((const guchar *) CREDENTIAL, strlen (CREDENTIAL));
    no_colon = g_strconcat ("Basic ", encoded, NULL);
  }
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      /* No credential, a wrong one, a game's API key, garbage: the
       * browser is asked for it. */
      const char *refused[] = { NULL, wrong, "Bearer " A2G_TEST_KEY_FREIGHT, "Basic !!!", no_colon, "Bearer ",
                                "Digest username=\"ops\"" };

      for (guint r = 0; r < G_N_ELEMENTS (refused); r++)
        {
          g_autoptr(A2gResponse) response = get_with (service, paths[i], refused[r]);
          gboolean missing = refused[r] == NULL || strcmp (refused[r], "Bearer ") == 0 ||
                             g_str_has_prefix (refused[r], "Digest");

          assert_challenge (response, missing ? "The console credential is required." : "Invalid console credential.");
          assert_no_credential (service, response);
        }
    }
  {
    g_autoptr(A2gResponse) page = get_with (service, "/", right);
    g_autoptr(A2gResponse) page_no_user = get_with (service, "/", no_user);
    g_autoptr(A2gResponse) page_bearer = get_with (service, "/", bearer);
    g_autoptr(A2gResponse) css = get_with (service, "/console.css", right);
    g_autoptr(A2gResponse) js = get_with (service, "/console.js", bearer);

    assert_served (page, "text/html", "<title>A2G console");
    assert_served (page_no_user, "text/html", "<title>A2G console");
    assert_served (page_bearer, "text/html", "<title>A2G console");
    assert_served (css, "text/css", "{");
    assert_served (js, "text/javascript", "EventSource");
    assert_no_credential (service, page);
    assert_no_credential (service, js);
  }
  {
    /* The stream a browser's EventSource opens with the credential its
     * prompt got; scripts with Bearer. */
    const char *good[] = { right, bearer };

    for (guint i = 0; i < G_N_ELEMENTS (good); i++)
      {
        guint status = 0;
        g_autofree char *event = first_event (service, good[i], &status);

        g_assert_cmpuint (status, ==, 200);
        g_assert_nonnull (event);
        g_test_message ("%s", event);
        g_assert_true (g_str_has_prefix (event, "event: snapshot\ndata: {\"a2g\":\"0.1\""));
        g_assert_null (strstr (event, CREDENTIAL));
      }
  }
  {
    guint status = 0;
    g_autofree char *event = first_event (service, wrong, &status);

    g_assert_cmpuint (status, ==, 401);
    g_assert_null (event);
  }
  a2g_service_stop (service);
}

static void
test_credential_config (void)
{
  g_autofree char *plain = a2g_server_config ("console-credential-sha256=" CREDENTIAL "\n");
  g_autofree char *hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, CREDENTIAL, -1);
  g_autofree char *upper = g_ascii_strup (hash, -1);
  g_autofree char *upper_line = g_strdup_printf ("console-credential-sha256=%s\n", upper);
  g_autofree char *upper_config = a2g_server_config (upper_line);
  g_autofree char *local_plain = g_strdup ("[a2g]\nconsole-credential-sha256=" CREDENTIAL "\n");

  /* The credential itself pasted by mistake: refused, never echoed; in
   * every profile (the local one ignores a good value, not a bad one). */
  a2g_assert_refuses_to_start (plain, "[a2g] console-credential-sha256: expected the SHA-256 of the console "
                               "credential as 64 lowercase hex digits", CREDENTIAL);
  a2g_assert_refuses_to_start (upper_config, "console-credential-sha256: expected the SHA-256", upper);
  a2g_assert_refuses_to_start (local_plain, "console-credential-sha256: expected the SHA-256", CREDENTIAL);
}

static void
test_local_ignores_credential (void)
{
  g_autofree char *extra = credential_config ();
  g_autofree char *config = g_strconcat ("[a2g]\n", extra, NULL);
  A2gService *service = a2g_service_start (config);
  g_autofree char *wrong = basic ("ops", "not-it");
  const char *headers[] = { "Authorization", wrong, NULL };
  g_autoptr(A2gResponse) page = a2g_get (service, "/");
  g_autoptr(A2gResponse) page_wrong = a2g_request (service, "GET", "/", headers, NULL);
  g_autoptr(A2gResponse) usage = a2g_get (service, "/v1/usage");

  /* Loopback only, no credential: a wrong one changes nothing either. */
  g_assert_cmpuint (page->status, ==, 200);
  g_assert_cmpuint (page_wrong->status, ==, 200);
  g_assert_cmpuint (usage->status, ==, 200);
  g_assert_null (soup_message_headers_get_one (page->headers, "WWW-Authenticate"));
  a2g_service_stop (service);
}

static A2gResponse *
get_origin (A2gService *service,
            const char *path,
            const char *host,
            const char *origin,
            const char *authorization)
{
  const char *headers[] = { "X-Forwarded-Proto", "https", "Host", host, "Origin", origin,
                            authorization != NULL ? "Authorization" : NULL, authorization, NULL };

  return a2g_request (service, "GET", path, headers, NULL);
}

static void
test_origin (void)
{
  g_autofree char *extra = credential_config ();
  g_autofree char *config = a2g_server_config (extra);
  A2gService *service = a2g_service_start (config);
  g_autofree char *right = basic ("ops", CREDENTIAL);
  /* Host as the proxy passes it through; Origin as the browser sends it. */
  const char *own[][2] = {
    { "a2g.example", "https://a2g.example" },
    { "a2g.example:443", "https://a2g.example" },
    { "a2g.example", "https://a2g.example:443" },
    { "a2g.example:8443", "https://a2g.example:8443" },
    { "A2G.example", "https://a2g.EXAMPLE" },
  };
  const char *other[][2] = {
    { "a2g.example", "https://evil.example" },
    { "a2g.example", "http://a2g.example" },
    { "a2g.example", "https://a2g.example.evil.example" },
    { "a2g.example", "https://a2g.example:8443" },
    { "a2g.example:8443", "https://a2g.example" },
    { "a2g.example", "https://evil.example@a2g.example" },
    { "a2g.example", "null" },
    { "a2g.example", "" },
    { "a2g.example", "https://" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (own); i++)
    {
      g_autoptr(A2gResponse) health = get_origin (service, "/health", own[i][0], own[i][1], NULL);
      g_autoptr(A2gResponse) page = get_origin (service, "/", own[i][0], own[i][1], right);
      g_autoptr(A2gResponse) no_credential = get_origin (service, "/", own[i][0], own[i][1], NULL);

      g_test_message ("own: Host %s, Origin %s", own[i][0], own[i][1]);
      g_assert_cmpuint (health->status, ==, 200);
      a2g_assert_json (health->body, "{\"a2g\":\"0.1\",\"ok\":true}");
      g_assert_null (soup_message_headers_get_one (health->headers, "Access-Control-Allow-Origin"));
      assert_served (page, "text/html", "<title>A2G console");
      /* Its own origin is no credential. */
      assert_challenge (no_credential, "The console credential is required.");
    }
  for (guint i = 0; i < G_N_ELEMENTS (other); i++)
    {
      g_autoptr(A2gResponse) health = get_origin (service, "/health", other[i][0], other[i][1], NULL);
      g_autoptr(A2gResponse) page = get_origin (service, "/", other[i][0], other[i][1], right);
      g_autoptr(A2gResponse) usage = get_origin (service, "/v1/usage", other[i][0], other[i][1], right);

      g_test_message ("other: Host %s, Origin %s", other[i][0], other[i][1]);
      a2g_assert_error (health, 403, "Origin not allowed.", "forbidden");
      /* Not even with the credential (a page of another site the browser
       * would send it for). */
      a2g_assert_error (page, 403, "Origin not allowed.", "forbidden");
      a2g_assert_error (usage, 403, "Origin not allowed.", "forbidden");
      g_assert_null (soup_message_headers_get_one (page->headers, "WWW-Authenticate"));
    }
  {
    /* A POST from the own origin goes on to the usual checks. */
    const char *headers[] = { "X-Forwarded-Proto", "https", "Host", "a2g.example", "Origin", "https://a2g.example",
                              "Content-Type", "application/json", NULL };
    g_autofree char *body = g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"%s\",\"game\":\"orbital-freight\","
                                             "\"manifest\":%s}", CLIENT, a2g_test_manifest);
    g_autoptr(A2gResponse) post = a2g_request (service, "POST", "/v1/session", headers, body);

    a2g_assert_error (post, 401, "An API key is required.", "unauthorized");
  }
  a2g_service_stop (service);
}

/* One model decision of @type in a new session of @game (budgets, cache). */
static void
decide_as (A2gService *service,
           const char *game,
           const char *key,
           const char *manifest,
           const char *client_id,
           const char *entity)
{
  g_autofree char *session = g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"%s\",\"game\":\"%s\",\"manifest\":%s}",
                                              client_id, game, manifest);
  g_autoptr(A2gResponse) opened = a2g_proxied (service, "POST", "/v1/session", key, session);
  g_autoptr(JsonObject) object = NULL;
  g_autofree char *body = g_strdup_printf ("{\"client_id\":\"%s\",\"epoch\":1,\"entities\":[%s]}", client_id, entity);
  g_autoptr(A2gResponse) decided = NULL;
  g_autoptr(JsonObject) answer = NULL;
  JsonObject *decision;

  g_assert_cmpuint (opened->status, ==, 200);
  object = a2g_json (opened);
  decided = a2g_proxied (service, "POST", "/v1/decide", json_object_get_string_member (object, "session_token"), body);
  g_assert_cmpuint (decided->status, ==, 200);
  answer = a2g_json (decided);
  decision = json_array_get_object_element (json_object_get_array_member (answer, "decisions"), 0);
  g_test_message ("%s", decided->body);
  g_assert_cmpstr (json_object_get_string_member (decision, "source"), ==, "model");
}

#define PIRATE "{\"entity\":\"p\",\"type\":\"pirate\",\"observations\":{\"hp\":35},\"legal_actions\":[\"attack\",\"flee\"]}"
#define DRONE "{\"entity\":\"d\",\"type\":\"drone\",\"observations\":{\"ore\":40},\"legal_actions\":[\"dig\",\"return\"]}"

/* "scope used/limit window" of every budget row of a /v1/usage answer. */
static char *
budget_rows (A2gResponse *response)
{
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(GString) rows = g_string_new (NULL);
  JsonArray *budgets;

  g_test_message ("%u %s", response->status, response->body);
  g_assert_cmpuint (response->status, ==, 200);
  object = a2g_json (response);
  g_assert_true (json_object_has_member (object, "sessions"));
  g_assert_true (json_object_has_member (object, "decisions"));
  budgets = json_object_get_array_member (object, "budgets");
  for (guint i = 0; i < json_array_get_length (budgets); i++)
    {
      JsonObject *row = json_array_get_object_element (budgets, i);

      g_assert_cmpint (json_object_get_int_member (row, "used"), >, 0);
      g_string_append_printf (rows, "%s%s %" G_GINT64_FORMAT " %s", i > 0 ? "; " : "",
                              json_object_get_string_member (row, "scope"), json_object_get_int_member (row, "limit"),
                              json_object_get_string_member (row, "window"));
    }
  return g_strdup (rows->str);
}

static void
test_usage (void)
{
  g_autofree char *credential = credential_config ();
  g_autofree char *extra = g_strconcat (credential, FLEE_THEN_DIG, "game-token-budget=900000\n", NULL);
  g_autofree char *config = a2g_server_config (extra);
  A2gService *service = a2g_service_start (config);
  g_autofree char *right = basic ("ops", CREDENTIAL);
  g_autofree char *key_as_basic = basic ("orbital-freight", A2G_TEST_KEY_FREIGHT);
  g_autofree char *token = NULL;

  decide_as (service, "orbital-freight", A2G_TEST_KEY_FREIGHT, a2g_test_manifest, CLIENT, PIRATE);
  decide_as (service, "deep-miner", A2G_TEST_KEY_MINER, a2g_test_miner_manifest, MINER_CLIENT, DRONE);
  token = a2g_server_session (service, "c_usage_reader_01");
  {
    /* A game's key reads its own game's budget, and no other's. */
    g_autoptr(A2gResponse) freight = a2g_proxied (service, "GET", "/v1/usage", A2G_TEST_KEY_FREIGHT, NULL);
    g_autoptr(A2gResponse) miner = a2g_proxied (service, "GET", "/v1/usage", A2G_TEST_KEY_MINER, NULL);
    g_autoptr(A2gResponse) all_basic = get_with (service, "/v1/usage", right);
    g_autoptr(A2gResponse) all_bearer = a2g_proxied (service, "GET", "/v1/usage", CREDENTIAL, NULL);
    g_autofree char *freight_rows = budget_rows (freight);
    g_autofree char *miner_rows = budget_rows (miner);
    g_autofree char *all_rows = budget_rows (all_basic);
    g_autofree char *all_bearer_rows = budget_rows (all_bearer);

    g_assert_cmpstr (freight_rows, ==, "game:orbital-freight 900000 day");
    g_assert_cmpstr (miner_rows, ==, "game:deep-miner 900000 day");
    g_assert_cmpstr (all_rows, ==, "game:deep-miner 900000 day; game:orbital-freight 900000 day");
    g_assert_cmpstr (all_bearer_rows, ==, all_rows);
    g_assert_null (strstr (freight->body, "deep-miner"));
    g_assert_null (strstr (miner->body, "orbital-freight"));
    assert_no_credential (service, freight);
    assert_no_credential (service, all_basic);
  }
  {
    /* A key is valid for its own game only, and only as Bearer; a session
     * token is no key. No browser prompt here. */
    g_autoptr(A2gResponse) none = a2g_proxied (service, "GET", "/v1/usage", NULL, NULL);
    g_autoptr(A2gResponse) wrong = a2g_proxied (service, "GET", "/v1/usage", A2G_TEST_KEY_FREIGHT "x", NULL);
    g_autoptr(A2gResponse) session = a2g_proxied (service, "GET", "/v1/usage", token, NULL);
    g_autoptr(A2gResponse) as_basic = get_with (service, "/v1/usage", key_as_basic);

    a2g_assert_error (none, 401, "An API key or the console credential is required.", "unauthorized");
    a2g_assert_error (wrong, 401, "Invalid API key or console credential.", "unauthorized");
    a2g_assert_error (session, 401, "Invalid API key or console credential.", "unauthorized");
    a2g_assert_error (as_basic, 401, "Invalid API key or console credential.", "unauthorized");
    g_assert_null (soup_message_headers_get_one (none->headers, "WWW-Authenticate"));
    assert_no_credential (service, wrong);
  }
  a2g_assert_no_secret (service, token);
  a2g_service_stop (service);
}

typedef struct {
  char *dir;
  char *path;           /* the PEM of the private key */
  guchar public_key[crypto_sign_PUBLICKEYBYTES];
} SigningKey;

/* An Ed25519 key made now with openssl, and its raw public key. */
static SigningKey *
signing_key_new (void)
{
  SigningKey *key = g_new0 (SigningKey, 1);
  g_autoptr(GError) error = NULL;
  g_autofree char *der = NULL;
  gsize length = 0;
  int status = -1;

  key->dir = g_dir_make_tmp ("gg-a2g-sign-XXXXXX", &error);
  g_assert_no_error (error);
  key->path = g_build_filename (key->dir, "policy.pem", NULL);
  {
    const char *args[] = { "openssl", "genpkey", "-algorithm", "ed25519", "-out", key->path, NULL };
    g_spawn_sync (NULL, (char **) args, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
                  G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
    g_assert_no_error (error);
    g_assert_cmpint (status, ==, 0);
  }
  {
    g_autofree char *script = g_strdup_printf ("openssl pkey -in '%s' -pubout -outform DER | od -An -v -tx1 | tr -d ' \\n'",
                                               key->path);
    const char *args[] = { "/bin/sh", "-c", script, NULL };
    g_spawn_sync (NULL, (char **) args, NULL, G_SPAWN_DEFAULT, NULL, NULL, &der, NULL, &status, &error);
    g_assert_no_error (error);
    g_assert_cmpint (status, ==, 0);
  }
  /* The DER ends with the 32 raw bytes. */
  length = strlen (der);
  g_assert_cmpuint (length, >=, 2 * crypto_sign_PUBLICKEYBYTES);
  g_assert_cmpint (sodium_hex2bin (key->public_key, sizeof key->public_key, der + length - 2 * crypto_sign_PUBLICKEYBYTES,
                                   2 * crypto_sign_PUBLICKEYBYTES, NULL, NULL, NULL), ==, 0);
  return key;
}

static void
signing_key_free (SigningKey *key)
{
  g_unlink (key->path);
  g_rmdir (key->dir);
  g_free (key->path);
  g_free (key->dir);
  g_free (key);
}

/* A policy signed in the spec's form, verified: the entries' actions. */
static char *
verified_actions (A2gResponse      *response,
                  const SigningKey *key)
{
  g_autoptr(JsonObject) policy = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *canonical = NULL;
  g_autofree char *hex = NULL;
  g_autofree guchar *signature = NULL;
  g_autoptr(GString) actions = g_string_new (NULL);
  const char *text;
  JsonArray *entries;
  gsize length = 0;

  g_test_message ("%u %s", response->status, response->body);
  g_assert_cmpuint (response->status, ==, 200);
  policy = a2g_json (response);
  /* a2g-0.1.md section 8: a string, "ed25519:<base64>". */
  g_assert_true (JSON_NODE_HOLDS_VALUE (json_object_get_member (policy, "signature")));
  text = json_object_get_string_member (policy, "signature");
  g_assert_true (g_str_has_prefix (text, "ed25519:"));
  signature = g_base64_decode (text + strlen ("ed25519:"), &length);
  g_assert_cmpuint (length, ==, crypto_sign_BYTES);
  g_assert_cmpstr (json_object_get_string_member (policy, "sha256"), !=, NULL);
  hex = g_strdup (json_object_get_string_member (policy, "sha256"));
  json_object_remove_member (policy, "signature");
  json_object_remove_member (policy, "sha256");
  node = json_node_init_object (json_node_alloc (), policy);
  canonical = gg_a2g_canonical_json (node);
  {
    g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, canonical, -1);
    g_assert_cmpstr (digest, ==, hex);
  }
  g_assert_cmpint (crypto_sign_verify_detached (signature, (const guchar *) canonical, strlen (canonical),
                                                key->public_key), ==, 0);
  /* One flipped byte: no longer. */
  canonical[strlen (canonical) / 2] ^= 0x01;
  g_assert_cmpint (crypto_sign_verify_detached (signature, (const guchar *) canonical, strlen (canonical),
                                                key->public_key), !=, 0);
  entries = json_object_get_array_member (policy, "entries");
  for (guint i = 0; i < json_array_get_length (entries); i++)
    g_string_append_printf (actions, "%s%s %s", i > 0 ? "; " : "",
                            json_object_get_string_member (json_array_get_object_element (entries, i), "type"),
                            json_object_get_string_member (json_array_get_object_element (entries, i), "action"));
  return g_strdup (actions->str);
}

static void
test_policy (void)
{
  SigningKey *key = signing_key_new ();
  g_autofree char *credential = credential_config ();
  g_autofree char *extra = g_strdup_printf ("%s%spolicy-signing-key=%s\n", credential, FLEE_THEN_DIG, key->path);
  g_autofree char *config = a2g_server_config (extra);
  A2gService *service = a2g_service_start (config);
  g_autofree char *freight_hash = a2g_manifest_hash (a2g_test_manifest);
  g_autofree char *miner_hash = a2g_manifest_hash (a2g_test_miner_manifest);
  g_autofree char *freight_path = g_strconcat ("/v1/policy?manifest_hash=", freight_hash, NULL);
  g_autofree char *miner_path = g_strconcat ("/v1/policy?manifest_hash=", miner_hash, NULL);
  g_autofree char *right = basic ("ops", CREDENTIAL);

  g_assert_cmpint (sodium_init (), >=, 0);
  decide_as (service, "orbital-freight", A2G_TEST_KEY_FREIGHT, a2g_test_manifest, CLIENT, PIRATE);
  decide_as (service, "deep-miner", A2G_TEST_KEY_MINER, a2g_test_miner_manifest, MINER_CLIENT, DRONE);
  {
    /* The key of the game that registered the manifest, or the console. */
    g_autoptr(A2gResponse) freight = a2g_proxied (service, "GET", freight_path, A2G_TEST_KEY_FREIGHT, NULL);
    g_autoptr(A2gResponse) miner = a2g_proxied (service, "GET", miner_path, A2G_TEST_KEY_MINER, NULL);
    g_autoptr(A2gResponse) console = get_with (service, freight_path, right);
    g_autofree char *freight_actions = verified_actions (freight, key);
    g_autofree char *miner_actions = verified_actions (miner, key);
    g_autofree char *console_actions = verified_actions (console, key);

    g_assert_cmpstr (freight_actions, ==, "pirate flee");
    g_assert_cmpstr (miner_actions, ==, "drone dig");
    g_assert_cmpstr (console_actions, ==, "pirate flee");
    assert_no_credential (service, freight);
    assert_no_credential (service, console);
  }
  {
    /* Another registered game's key: authenticated, not allowed. */
    g_autoptr(A2gResponse) cross = a2g_proxied (service, "GET", freight_path, A2G_TEST_KEY_MINER, NULL);
    g_autoptr(A2gResponse) cross_back = a2g_proxied (service, "GET", miner_path, A2G_TEST_KEY_FREIGHT, NULL);
    g_autoptr(A2gResponse) none = a2g_proxied (service, "GET", freight_path, NULL, NULL);
    g_autoptr(A2gResponse) wrong = a2g_proxied (service, "GET", freight_path, A2G_TEST_KEY_FREIGHT "x", NULL);
    g_autoptr(A2gResponse) no_hash = a2g_proxied (service, "GET", "/v1/policy", A2G_TEST_KEY_FREIGHT, NULL);

    a2g_assert_error (cross, 403, "Not a manifest hash of this API key's game.", "forbidden");
    a2g_assert_error (cross_back, 403, "Not a manifest hash of this API key's game.", "forbidden");
    a2g_assert_error (none, 401, "An API key or the console credential is required.", "unauthorized");
    a2g_assert_error (wrong, 401, "Invalid API key or console credential.", "unauthorized");
    a2g_assert_error (no_hash, 400, "manifest_hash: is required", "invalid");
  }
  a2g_service_stop (service);
  signing_key_free (key);
}

/* A client-profile service: a studio public key is all it needs to start. */
static void
test_client_profile (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("gg-a2g-client-XXXXXX", &error);
  g_autofree char *private = g_build_filename (dir, "studio.pem", NULL);
  g_autofree char *public = g_build_filename (dir, "studio.pub.pem", NULL);
  g_autofree char *hash = a2g_manifest_hash (a2g_test_manifest);
  g_autofree char *credential = credential_config ();
  g_autofree char *base = NULL;
  g_autofree char *with = NULL;
  g_autofree char *right = basic ("ops", CREDENTIAL);
  g_autofree char *policy_path = g_strconcat ("/v1/policy?manifest_hash=", hash, NULL);
  int status = -1;

  g_assert_no_error (error);
  {
    g_autofree char *script = g_strdup_printf ("openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out '%s' "
                                               "&& openssl pkey -in '%s' -pubout -out '%s'", private, private, public);
    const char *args[] = { "/bin/sh", "-c", script, NULL };

    g_spawn_sync (NULL, (char **) args, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                  NULL, NULL, &status, &error);
    g_assert_no_error (error);
    g_assert_cmpint (status, ==, 0);
  }
  base = g_strdup_printf ("[a2g]\nprofile=client\nbehind-tls-proxy=true\nservice-id=a2g.example\n"
                          "games=orbital-freight\norbital-freight.join-keys=studio:ES256:%s\n"
                          "orbital-freight.manifests=%s\n", public, hash);
  with = g_strconcat (base, credential, NULL);
  {
    /* The console credential is the only way in (no API keys here). */
    A2gService *service = a2g_service_start (with);
    g_autoptr(A2gResponse) usage = get_with (service, "/v1/usage", right);
    g_autoptr(A2gResponse) usage_bearer = a2g_proxied (service, "GET", "/v1/usage", CREDENTIAL, NULL);
    g_autoptr(A2gResponse) none = a2g_proxied (service, "GET", "/v1/usage", NULL, NULL);
    g_autoptr(A2gResponse) wrong = a2g_proxied (service, "GET", "/v1/usage", A2G_TEST_KEY_FREIGHT, NULL);
    g_autoptr(A2gResponse) page = get_with (service, "/", right);
    g_autoptr(A2gResponse) page_none = get_with (service, "/", NULL);
    g_autoptr(A2gResponse) policy = get_with (service, policy_path, right);
    g_autoptr(A2gResponse) policy_none = get_with (service, policy_path, NULL);
    g_autofree char *rows = budget_rows (usage);

    g_assert_cmpstr (rows, ==, "");
    g_assert_cmpuint (usage_bearer->status, ==, 200);
    a2g_assert_error (none, 401, "The console credential is required.", "unauthorized");
    a2g_assert_error (wrong, 401, "Invalid console credential.", "unauthorized");
    assert_served (page, "text/html", "<title>A2G console");
    assert_challenge (page_none, "The console credential is required.");
    /* a2g-0.1.md: /v1/policy in the server and local profiles only. */
    a2g_assert_error (policy, 403, "Not available in this profile.", "forbidden");
    a2g_assert_error (policy_none, 403, "Not available in this profile.", "forbidden");
    assert_no_credential (service, usage);
    a2g_service_stop (service);
  }
  {
    A2gService *service = a2g_service_start (base);
    g_autoptr(A2gResponse) usage = get_with (service, "/v1/usage", right);
    g_autoptr(A2gResponse) page = get_with (service, "/", right);

    a2g_assert_error (usage, 403, "Not available: no console credential is configured.", "forbidden");
    a2g_assert_error (page, 403, "Not available: no console credential is configured.", "forbidden");
    a2g_service_stop (service);
  }
  g_unlink (private);
  g_unlink (public);
  g_rmdir (dir);
}

/* The service's own TLS: what a browser gets from https://HOST/. */
static void
test_tls (void)
{
  A2gPem *pem = a2g_pem_new ();
  g_autofree char *extra = credential_config ();
  g_autofree char *config = a2g_tls_server_config (pem, extra);
  A2gService *service = a2g_service_start (config);
  g_autofree char *right = basic ("ops", CREDENTIAL);
  g_autofree char *origin = g_strdup_printf ("https://127.0.0.1:%u", service->port);
  const char *auth[] = { "Authorization", right, NULL };

  g_assert_true (service->tls);
  {
    const char *own[] = { "Authorization", right, "Origin", origin, NULL };
    const char *other[] = { "Authorization", right, "Origin", "https://evil.example", NULL };
    g_autoptr(A2gResponse) none = a2g_request (service, "GET", "/", NULL, NULL);
    g_autoptr(A2gResponse) page = a2g_request (service, "GET", "/", auth, NULL);
    g_autoptr(A2gResponse) page_own = a2g_request (service, "GET", "/", own, NULL);
    g_autoptr(A2gResponse) page_other = a2g_request (service, "GET", "/", other, NULL);
    g_autoptr(A2gResponse) usage = a2g_request (service, "GET", "/v1/usage", auth, NULL);

    assert_challenge (none, "The console credential is required.");
    assert_served (page, "text/html", "<title>A2G console");
    assert_served (page_own, "text/html", "<title>A2G console");
    a2g_assert_error (page_other, 403, "Origin not allowed.", "forbidden");
    g_assert_cmpuint (usage->status, ==, 200);
  }
  {
    guint status = 0;
    g_autofree char *event = first_event (service, right, &status);

    g_assert_cmpuint (status, ==, 200);
    g_assert_true (g_str_has_prefix (event, "event: snapshot\n"));
  }
  a2g_assert_no_secret (service, CREDENTIAL);
  a2g_service_stop (service);
  a2g_pem_free (pem);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/a2g/console-auth/console", test_console);
  g_test_add_func ("/a2g/console-auth/credential-config", test_credential_config);
  g_test_add_func ("/a2g/console-auth/local-ignores-credential", test_local_ignores_credential);
  g_test_add_func ("/a2g/console-auth/origin", test_origin);
  g_test_add_func ("/a2g/console-auth/usage", test_usage);
  g_test_add_func ("/a2g/console-auth/policy", test_policy);
  g_test_add_func ("/a2g/console-auth/client-profile", test_client_profile);
  g_test_add_func ("/a2g/console-auth/tls", test_tls);
  return g_test_run ();
}
