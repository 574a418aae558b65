/* test-a2g-server.c: the server profile of a2g-security.md against the real
 * `gamegate a2g` over HTTP behind a (declared) TLS-terminating proxy:
 * refusing to start without TLS, `X-Forwarded-Proto: https` on every
 * request, HSTS on every answer, /health revealing only the version, API
 * keys per game (missing, wrong, of another game, hashed in the config and
 * never logged), registered games and manifest hashes only, session tokens
 * bound to their client_id, the renewal grace, no console without its
 * credential (test-a2g-console-auth: with it). The service's own TLS is
 * in test-a2g-tls.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "a2g-test-util.h"

#define CLIENT "c_5f1c9a27e04b7d13"
#define KEY_FREIGHT A2G_TEST_KEY_FREIGHT
#define KEY_MINER A2G_TEST_KEY_MINER

static char *
session_body (const char *client_id,
              const char *game,
              const char *manifest)
{
  return g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"%s\",\"game\":\"%s\",\"manifest\":%s}", client_id, game,
                          manifest);
}

static void
test_needs_tls (void)
{
  g_autofree char *hash = a2g_manifest_hash (a2g_test_manifest);
  g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, KEY_FREIGHT, -1);
  g_autofree char *no_proxy = g_strdup_printf ("[a2g]\nprofile=server\ngames=orbital-freight\n"
                                               "orbital-freight.api-key-sha256=%s\n"
                                               "orbital-freight.manifests=%s\n", digest, hash);
  g_autofree char *upper = g_ascii_strup (digest, -1);
  g_autofree char *plain_key = g_strdup_printf ("[a2g]\nprofile=server\nbehind-tls-proxy=true\n"
                                                "games=orbital-freight\norbital-freight.api-key-sha256=%s\n"
                                                "orbital-freight.manifests=%s\n", KEY_FREIGHT, hash);
  g_autofree char *upper_key = g_strdup_printf ("[a2g]\nprofile=server\nbehind-tls-proxy=true\n"
                                                "games=orbital-freight\norbital-freight.api-key-sha256=%s\n"
                                                "orbital-freight.manifests=%s\n", upper, hash);

  a2g_assert_refuses_to_start (no_proxy, "behind-tls-proxy=true", NULL);
  a2g_assert_refuses_to_start ("[a2g]\nprofile=server\nbehind-tls-proxy=true\n", "at least one registered game is needed", NULL);
  /* Only the hash of a key goes in the config; a key put there by mistake
   * is not echoed. */
  a2g_assert_refuses_to_start (plain_key, "orbital-freight.api-key-sha256: expected the SHA-256 of the API key",
                           KEY_FREIGHT);
  a2g_assert_refuses_to_start (upper_key, "SHA-256 of the API key", NULL);
  a2g_assert_refuses_to_start ("[a2g]\nprofile=galaxy\n", "expected local, server or client", NULL);
  {
    /* A policy-signing-key that is no key: named, its content not echoed. */
    g_autoptr(GError) error = NULL;
    g_autofree char *dir = g_dir_make_tmp ("gg-a2g-key-XXXXXX", &error);
    g_autofree char *key = g_build_filename (dir, "policy.key", NULL);
    g_autofree char *config = g_strdup_printf ("[a2g]\npolicy-signing-key=%s\n", key);

    g_file_set_contents (key, "SEEDSEEDSEED-not-a-key\n", -1, &error);
    g_assert_no_error (error);
    a2g_assert_refuses_to_start (config, "policy-signing-key: ", "SEEDSEEDSEED");
    g_unlink (key);
    a2g_assert_refuses_to_start (config, "policy-signing-key: ", NULL);
    g_rmdir (dir);
  }
}

static void
test_transport (void)
{
  g_autofree char *config = a2g_server_config (NULL);
  A2gService *service = a2g_service_start (config);
  g_autoptr(A2gResponse) plain = a2g_get (service, "/health");
  const char *http_headers[] = { "X-Forwarded-Proto", "http", NULL };
  g_autoptr(A2gResponse) http = a2g_request (service, "GET", "/health", http_headers, NULL);
  g_autofree char *body = session_body (CLIENT, "orbital-freight", a2g_test_manifest);
  const char *key_headers[] = { "Content-Type", "application/json", "Authorization", "Bearer " KEY_FREIGHT, NULL };
  g_autoptr(A2gResponse) plain_session = a2g_request (service, "POST", "/v1/session", key_headers, body);
  g_autoptr(A2gResponse) health = a2g_proxied (service, "GET", "/health", NULL, NULL);

  /* Plain HTTP: not even the key is looked at. */
  a2g_assert_error (plain, 403, "HTTPS is required.", "forbidden");
  a2g_assert_error (http, 403, "HTTPS is required.", "forbidden");
  a2g_assert_error (plain_session, 403, "HTTPS is required.", "forbidden");
  /* Up, and the a2g version: no model, provider or key state. */
  g_assert_cmpuint (health->status, ==, 200);
  a2g_assert_json (health->body, "{\"a2g\":\"0.1\",\"ok\":true}");
  g_assert_cmpstr (soup_message_headers_get_one (health->headers, "Strict-Transport-Security"), ==,
                   "max-age=31536000");
  a2g_assert_no_secret (service, KEY_FREIGHT);
  a2g_service_stop (service);
}

static void
test_api_keys (void)
{
  g_autofree char *config = a2g_server_config (NULL);
  A2gService *service = a2g_service_start (config);
  g_autofree char *body = session_body (CLIENT, "orbital-freight", a2g_test_manifest);
  g_autofree char *rogue_body = NULL;
  g_autofree char *miner_body = NULL;
  g_autofree char *changed = NULL;
  g_autofree char *changed_body = NULL;
  g_autofree char *hash = a2g_manifest_hash (a2g_test_manifest);
  g_autofree char *by_hash = NULL;
  g_autofree char *token = NULL;
  g_autofree char *other_token = NULL;

  {
    g_autoptr(A2gResponse) missing = a2g_proxied (service, "POST", "/v1/session", NULL, body);
    g_autoptr(A2gResponse) empty = a2g_proxied (service, "POST", "/v1/session", "", body);
    g_autoptr(A2gResponse) wrong = a2g_proxied (service, "POST", "/v1/session", KEY_FREIGHT "x", body);
    g_autoptr(A2gResponse) other_game = a2g_proxied (service, "POST", "/v1/session", KEY_MINER, body);

    a2g_assert_error (missing, 401, "An API key is required.", "unauthorized");
    a2g_assert_error (empty, 401, "An API key is required.", "unauthorized");
    a2g_assert_error (wrong, 401, "Invalid API key.", "unauthorized");
    /* deep-miner's key does not open orbital-freight sessions. */
    a2g_assert_error (other_game, 401, "Invalid API key.", "unauthorized");
  }
  /* An unregistered game, whatever the key. */
  rogue_body = g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"%s\",\"game\":\"rogue-game\",\"manifest\":"
                                "{\"a2g\":\"0.1\",\"game\":\"rogue-game\",\"entity_types\":{\"t\":"
                                "{\"actions\":{\"yes\":{},\"no\":{}}}}}}", CLIENT);
  {
    g_autoptr(A2gResponse) rogue = a2g_proxied (service, "POST", "/v1/session", KEY_FREIGHT, rogue_body);
    a2g_assert_error (rogue, 403, "Unregistered game.", "forbidden");
  }
  /* A registered game with a manifest not registered for it: the free
   * model proxy of the threat model. */
  miner_body = g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"%s\",\"game\":\"deep-miner\",\"manifest\":"
                                "{\"a2g\":\"0.1\",\"game\":\"deep-miner\",\"entity_types\":{\"t\":"
                                "{\"actions\":{\"yes\":{},\"no\":{}}}}}}", CLIENT);
  changed = g_strdup (a2g_test_manifest);
  {
    char *world = strstr (changed, "Pirates raid");
    g_assert_nonnull (world);
    world[0] = 'p';
  }
  changed_body = session_body (CLIENT, "orbital-freight", changed);
  {
    g_autoptr(A2gResponse) miner = a2g_proxied (service, "POST", "/v1/session", KEY_MINER, miner_body);
    g_autoptr(A2gResponse) altered = a2g_proxied (service, "POST", "/v1/session", KEY_FREIGHT, changed_body);

    a2g_assert_error (miner, 403, "Unregistered manifest hash.", "forbidden");
    a2g_assert_error (altered, 403, "Unregistered manifest hash.", "forbidden");
  }
  /* The right key and manifest; then by hash alone. */
  token = a2g_server_session (service, CLIENT);
  by_hash = g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"c_by_hash_client\",\"game\":\"orbital-freight\","
                             "\"manifest_hash\":\"%s\"}", hash);
  {
    g_autoptr(A2gResponse) response = a2g_proxied (service, "POST", "/v1/session", KEY_FREIGHT, by_hash);
    g_autoptr(A2gResponse) miner_hash = NULL;
    g_autofree char *miner_by_hash = g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"c_by_hash_client\","
                                                      "\"game\":\"deep-miner\",\"manifest_hash\":\"%s\"}", hash);

    g_assert_cmpuint (response->status, ==, 200);
    miner_hash = a2g_proxied (service, "POST", "/v1/session", KEY_MINER, miner_by_hash);
    /* orbital-freight's manifest is not deep-miner's. */
    a2g_assert_error (miner_hash, 400, "manifest.game: must equal game", "invalid");
  }
  g_assert_true (g_str_has_prefix (token, "s_"));
  g_assert_cmpuint (strlen (token), ==, 34);
  other_token = a2g_server_session (service, "c_other_client_1");
  {
    const char *context = "{\"client_id\":\"" CLIENT "\",\"scopes\":[\"station\"]}";
    g_autoptr(A2gResponse) good = a2g_proxied (service, "POST", "/v1/context", token, context);
    /* A token of another client_id, an API key as a session token, none. */
    g_autoptr(A2gResponse) other = a2g_proxied (service, "POST", "/v1/context", other_token, context);
    g_autoptr(A2gResponse) key = a2g_proxied (service, "POST", "/v1/context", KEY_FREIGHT, context);
    g_autoptr(A2gResponse) none = a2g_proxied (service, "POST", "/v1/context", NULL, context);

    g_assert_cmpuint (good->status, ==, 200);
    a2g_assert_error (other, 401, "Missing, invalid or expired session token.", "unauthorized");
    a2g_assert_error (key, 401, "Missing, invalid or expired session token.", "unauthorized");
    a2g_assert_error (none, 401, "Missing, invalid or expired session token.", "unauthorized");
  }
  a2g_assert_no_secret (service, KEY_FREIGHT);
  a2g_assert_no_secret (service, KEY_MINER);
  a2g_assert_no_secret (service, token);
  a2g_assert_no_secret (service, other_token);
  a2g_service_stop (service);
}

static void
test_renewal_grace (void)
{
  g_autofree char *config = a2g_server_config ("renew-grace=1\n");
  A2gService *service = a2g_service_start (config);
  g_autofree char *first = a2g_server_session (service, CLIENT);
  g_autofree char *second = a2g_server_session (service, CLIENT);
  const char *context = "{\"client_id\":\"" CLIENT "\",\"scopes\":[\"station\"]}";

  g_assert_cmpstr (first, !=, second);
  {
    g_autoptr(A2gResponse) old = a2g_proxied (service, "POST", "/v1/context", first, context);
    g_autoptr(A2gResponse) current = a2g_proxied (service, "POST", "/v1/context", second, context);

    g_assert_cmpuint (old->status, ==, 200);
    g_assert_cmpuint (current->status, ==, 200);
  }
  g_usleep (1500 * G_TIME_SPAN_MILLISECOND);
  {
    g_autoptr(A2gResponse) old = a2g_proxied (service, "POST", "/v1/context", first, context);
    g_autoptr(A2gResponse) current = a2g_proxied (service, "POST", "/v1/context", second, context);

    a2g_assert_error (old, 401, "Missing, invalid or expired session token.", "unauthorized");
    g_assert_cmpuint (current->status, ==, 200);
  }
  a2g_service_stop (service);
}

static void
test_no_browser (void)
{
  g_autofree char *config = a2g_server_config (NULL);
  A2gService *service = a2g_service_start (config);
  const char *origin[] = { "X-Forwarded-Proto", "https", "Origin", "https://evil.example", NULL };
  g_autoptr(A2gResponse) cross = a2g_request (service, "GET", "/health", origin, NULL);
  g_autoptr(A2gResponse) console = a2g_proxied (service, "GET", "/", NULL, NULL);
  g_autoptr(A2gResponse) events = a2g_proxied (service, "GET", "/v1/console/events", NULL, NULL);
  g_autoptr(A2gResponse) usage = a2g_proxied (service, "GET", "/v1/usage", NULL, NULL);

  /* Without console-credential-sha256: no console at all; /v1/usage
   * needs an API key (test-a2g-console-auth has the rest). */
  a2g_assert_error (cross, 403, "Origin not allowed.", "forbidden");
  a2g_assert_error (console, 403, "Not available: no console credential is configured.", "forbidden");
  a2g_assert_error (events, 403, "Not available: no console credential is configured.", "forbidden");
  a2g_assert_error (usage, 401, "An API key or the console credential is required.", "unauthorized");
  a2g_service_stop (service);
}

static char *
decide_one (A2gService *service,
            const char *client_id,
            const char *token,
            const char *entry)
{
  g_autofree char *body = g_strdup_printf ("{\"client_id\":\"%s\",\"epoch\":1,\"entities\":[%s]}", client_id, entry);
  g_autoptr(A2gResponse) response = a2g_proxied (service, "POST", "/v1/decide", token, body);
  g_autoptr(JsonObject) object = NULL;
  JsonObject *decision;

  g_assert_cmpuint (response->status, ==, 200);
  object = a2g_json (response);
  decision = json_array_get_object_element (json_object_get_array_member (object, "decisions"), 0);
  return g_strdup_printf ("%s %s", json_object_get_string_member (decision, "source"),
                          json_object_get_string_member (decision, "action"));
}

static void
test_shared_cache (void)
{
  g_autofree char *model = a2g_model_config ("[{\"json\":{\"reason\":\"r\",\"action\":\"flee\",\"confidence\":70}},"
                                             "{\"json\":{\"reason\":\"r\",\"action\":\"attack\",\"confidence\":70}}]");
  g_autofree char *config = a2g_server_config (model);
  A2gService *service = a2g_service_start (config);
  g_autofree char *a = a2g_server_session (service, CLIENT);
  g_autofree char *b = a2g_server_session (service, "c_other_client_1");
  const char *pirate = "{\"entity\":\"p\",\"type\":\"pirate\",\"observations\":{\"hp\":35,\"target_distance\":900},"
                       "\"legal_actions\":[\"attack\",\"flee\",\"surrender\"]}";
  g_autofree char *first = decide_one (service, CLIENT, a, pirate);
  g_autofree char *second = decide_one (service, "c_other_client_1", b, pirate);

  /* A server session's decision is the game's: served to another session. */
  g_assert_cmpstr (first, ==, "model flee");
  g_assert_cmpstr (second, ==, "cache flee");
  a2g_service_stop (service);
}

static char *
decide_code (A2gService *service,
             const char *client_id,
             const char *token,
             const char *entity)
{
  g_autofree char *body = g_strdup_printf ("{\"client_id\":\"%s\",\"epoch\":1,\"entities\":[{\"entity\":\"%s\","
                                           "\"type\":\"freighter\",\"legal_actions\":[\"run\",\"hide\"]}]}",
                                           client_id, entity);
  g_autoptr(A2gResponse) response = a2g_proxied (service, "POST", "/v1/decide", token, body);
  g_autoptr(JsonObject) object = NULL;
  JsonObject *decision;

  g_assert_cmpuint (response->status, ==, 200);
  object = a2g_json (response);
  decision = json_array_get_object_element (json_object_get_array_member (object, "decisions"), 0);
  if (json_object_has_member (decision, "code"))
    return g_strdup_printf ("FALLBACK %s", json_object_get_string_member (decision, "code"));
  return g_strdup (json_object_get_string_member (decision, "source"));
}

#define EXPECT_CODE(client, token, entity, expected) \
  G_STMT_START { g_autofree char *got_ = decide_code (service, client, token, entity); \
                 g_assert_cmpstr (got_, ==, expected); } G_STMT_END

static void
test_decide_rates (void)
{
  /* Model decisions: 2 per session, 3 per game, then (almost) none. */
  g_autofree char *config = a2g_server_config ("model={\"type\":\"scripted\",\"fallback\":{\"json\":{\"reason\":\"r\","
                                           "\"action\":\"run\",\"confidence\":70}}}\n"
                                           "session-rate=0.001\nsession-burst=2\ngame-rate=0.001\ngame-burst=3\n");
  A2gService *service = a2g_service_start (config);
  g_autofree char *a = a2g_server_session (service, CLIENT);
  g_autofree char *b = a2g_server_session (service, "c_other_client_1");

  EXPECT_CODE (CLIENT, a, "f1", "model");
  EXPECT_CODE (CLIENT, a, "f2", "model");
  /* Over the session's rate. */
  EXPECT_CODE (CLIENT, a, "f3", "FALLBACK busy");
  /* B has its own session budget, but the game's is spent now. */
  EXPECT_CODE ("c_other_client_1", b, "f4", "model");
  EXPECT_CODE ("c_other_client_1", b, "f5", "FALLBACK busy");
  a2g_service_stop (service);
}

static void
test_game_budget (void)
{
  /* The scripted model counts about 4 bytes a token; pirates reserve 800. */
  g_autofree char *config = a2g_server_config ("model={\"type\":\"scripted\",\"fallback\":{\"json\":{\"reason\":\"r\","
                                           "\"action\":\"flee\",\"confidence\":70}}}\n"
                                           "game-token-budget=1000\nsession-token-budget=100000\n");
  A2gService *service = a2g_service_start (config);
  g_autofree char *a = a2g_server_session (service, CLIENT);
  g_autofree char *b = a2g_server_session (service, "c_other_client_1");
  const char *first = "{\"entity\":\"p1\",\"type\":\"pirate\",\"observations\":{\"hp\":1},"
                      "\"legal_actions\":[\"attack\",\"flee\"]}";
  const char *second = "{\"entity\":\"p2\",\"type\":\"pirate\",\"observations\":{\"hp\":21},"
                       "\"legal_actions\":[\"attack\",\"flee\"]}";
  g_autofree char *got_a = decide_one (service, CLIENT, a, first);
  g_autofree char *body = g_strdup_printf ("{\"client_id\":\"c_other_client_1\",\"epoch\":1,\"entities\":[%s]}",
                                           second);
  g_autoptr(A2gResponse) response = a2g_proxied (service, "POST", "/v1/decide", b, body);
  g_autoptr(JsonObject) object = NULL;
  JsonObject *decision;

  g_assert_cmpstr (got_a, ==, "model flee");
  /* B's own budget is fine; the game's (per day) is spent. */
  g_assert_cmpuint (response->status, ==, 200);
  object = a2g_json (response);
  decision = json_array_get_object_element (json_object_get_array_member (object, "decisions"), 0);
  g_assert_cmpstr (json_object_get_string_member (decision, "code"), ==, "budget");
  a2g_service_stop (service);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/a2g/server/needs-tls", test_needs_tls);
  g_test_add_func ("/a2g/server/transport", test_transport);
  g_test_add_func ("/a2g/server/api-keys", test_api_keys);
  g_test_add_func ("/a2g/server/renewal-grace", test_renewal_grace);
  g_test_add_func ("/a2g/server/no-browser", test_no_browser);
  g_test_add_func ("/a2g/server/shared-cache", test_shared_cache);
  g_test_add_func ("/a2g/server/decide-rates", test_decide_rates);
  g_test_add_func ("/a2g/server/game-budget", test_game_budget);
  return g_test_run ();
}
