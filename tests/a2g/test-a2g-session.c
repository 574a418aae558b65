/* test-a2g-session.c: POST /v1/session against the real `gamegate a2g`:
 * opening with a manifest or a known hash, the same hash for another key
 * order, every refusal (version, client_id, game, manifest rules, unknown
 * hash), renewal with the grace period of the previous token, expiry, and
 * the session token required on later requests.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "a2g-test-util.h"

#define CLIENT "c_5f1c9a27e04b7d13"

static char *
session_body (const char *client_id,
              const char *rest)
{
  return g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"%s\",\"game\":\"orbital-freight\"%s}", client_id, rest);
}

static void
assert_refused (A2gService *service,
                const char *body,
                guint       status,
                const char *code,
                const char *message)
{
  g_autoptr(A2gResponse) response = a2g_post (service, "/v1/session", NULL, body);
  g_autofree char *expected = g_strdup_printf ("{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"%s\",\"code\":\"%s\"}",
                                               message, code);

  g_test_message ("%s", body);
  g_assert_cmpuint (response->status, ==, status);
  a2g_assert_json (response->body, expected);
}

static void
test_open (void)
{
  A2gService *service = a2g_service_start ("");
  g_autofree char *body = NULL;
  g_autofree char *stripped = NULL;
  g_autoptr(A2gResponse) response = NULL;
  g_autoptr(JsonObject) object = NULL;
  const char *token, *hash;

  body = g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"%s\",\"game\":\"orbital-freight\",\"manifest\":%s,"
                          "\"unknown_member\":[1]}", CLIENT, a2g_test_manifest);
  response = a2g_post (service, "/v1/session", NULL, body);
  g_assert_cmpuint (response->status, ==, 200);
  object = a2g_json (response);
  token = json_object_get_string_member (object, "session_token");
  hash = json_object_get_string_member (object, "manifest_hash");
  /* 128 random bits as hex after "s_". */
  g_assert_true (g_str_has_prefix (token, "s_"));
  g_assert_cmpuint (strlen (token), ==, 34);
  stripped = a2g_strip_member (response->body, "session_token");
  {
    g_autofree char *expected = g_strdup_printf (
      "{\"a2g\":\"0.1\",\"ok\":true,\"manifest_hash\":\"%s\",\"session_token\":\"*\",\"expires_in\":3600,"
      "\"limits\":{\"entities_per_request\":16,\"max_body_bytes\":262144}}", hash);
    a2g_assert_json (stripped, expected);
  }
  {
    /* The hash is the SHA-256 of the manifest's canonical JSON. */
    g_autoptr(JsonNode) node = gg_json_parse (a2g_test_manifest, -1, 64, NULL);
    g_assert_true (g_str_has_prefix (hash, "sha256:"));
    g_assert_cmpuint (strlen (hash), ==, 71);
    g_assert_nonnull (node);
  }
  a2g_assert_no_secret (service, token);
  a2g_service_stop (service);
}

static void
test_hash_and_order (void)
{
  A2gService *service = a2g_service_start ("");
  const char *one = "{\"game\":\"orbital-freight\",\"entity_types\":{\"pirate\":{\"actions\":{\"flee\":{},\"attack\":{}},"
                    "\"ttl_ms\":3000}},\"world\":\"W\"}";
  const char *two = "{ \"world\" : \"\\u0057\", \"entity_types\" : { \"pirate\" : { \"ttl_ms\" : 3000.0 ,"
                    " \"actions\" : { \"attack\" : { }, \"flee\" : { } } } }, \"game\" : \"orbital-freight\" }";
  g_autofree char *body_one = NULL, *body_two = NULL, *by_hash = NULL, *unknown = NULL;
  g_autoptr(A2gResponse) first = NULL, second = NULL, third = NULL;
  g_autoptr(JsonObject) a = NULL, b = NULL, c = NULL;
  g_autofree char *rest = NULL;

  body_one = g_strdup_printf ("{\"client_id\":\"client-one\",\"game\":\"orbital-freight\",\"manifest\":%s}", one);
  body_two = g_strdup_printf ("{\"client_id\":\"client-two\",\"game\":\"orbital-freight\",\"manifest\":%s}", two);
  first = a2g_post (service, "/v1/session", NULL, body_one);
  second = a2g_post (service, "/v1/session", NULL, body_two);
  a = a2g_json (first);
  b = a2g_json (second);
  g_assert_cmpstr (json_object_get_string_member (a, "manifest_hash"), ==,
                   json_object_get_string_member (b, "manifest_hash"));
  {
    g_autoptr(JsonNode) node = gg_json_parse (one, -1, 64, NULL);
    g_autofree char *hex = g_compute_checksum_for_string (
      G_CHECKSUM_SHA256,
      "{\"entity_types\":{\"pirate\":{\"actions\":{\"attack\":{},\"flee\":{}},\"ttl_ms\":3000}},"
      "\"game\":\"orbital-freight\",\"world\":\"W\"}", -1);
    g_autofree char *expected = g_strconcat ("sha256:", hex, NULL);
    g_assert_cmpstr (json_object_get_string_member (a, "manifest_hash"), ==, expected);
    g_assert_nonnull (node);
  }
  /* The hash alone, once the service knows it. */
  rest = g_strdup_printf (",\"manifest_hash\":\"%s\"", json_object_get_string_member (a, "manifest_hash"));
  by_hash = session_body ("client-three", rest);
  third = a2g_post (service, "/v1/session", NULL, by_hash);
  g_assert_cmpuint (third->status, ==, 200);
  c = a2g_json (third);
  g_assert_cmpstr (json_object_get_string_member (c, "manifest_hash"), ==,
                   json_object_get_string_member (a, "manifest_hash"));
  unknown = session_body ("client-four", ",\"manifest_hash\":\"sha256:0000000000000000000000000000000000000000000000000000000000000000\"");
  assert_refused (service, unknown, 403, "forbidden", "Unknown manifest hash: send the manifest.");
  a2g_service_stop (service);
}

static void
test_refusals (void)
{
  A2gService *service = a2g_service_start ("");
  static const struct {
    const char *body, *message;
  } rows[] = {
    { "{\"a2g\":\"1.0\",\"client_id\":\"c_5f1c9a27e04b7d13\",\"game\":\"g\",\"manifest\":{}}",
      "a2g: this service speaks A2G 0.x" },
    { "{\"a2g\":1,\"client_id\":\"c_5f1c9a27e04b7d13\",\"game\":\"g\",\"manifest\":{}}",
      "a2g: this service speaks A2G 0.x" },
    { "{\"game\":\"g\",\"manifest\":{}}", "client_id: is required" },
    { "{\"client_id\":\"short\",\"game\":\"g\",\"manifest\":{}}", "client_id: must match ^[A-Za-z0-9_-]{8,64}$" },
    { "{\"client_id\":\"has space in it\",\"game\":\"g\",\"manifest\":{}}",
      "client_id: must match ^[A-Za-z0-9_-]{8,64}$" },
    { "{\"client_id\":7,\"game\":\"g\",\"manifest\":{}}", "client_id: is required" },
    { "{\"client_id\":\"c_5f1c9a27e04b7d13\",\"manifest\":{}}", "game: is required" },
    { "{\"client_id\":\"c_5f1c9a27e04b7d13\",\"game\":\"Game\",\"manifest\":{}}",
      "game: must match ^[a-z][a-z0-9_:.-]{0,63}$" },
    { "{\"client_id\":\"c_5f1c9a27e04b7d13\",\"game\":\"g\"}", "manifest: is required (or a known manifest_hash)" },
    { "{\"client_id\":\"c_5f1c9a27e04b7d13\",\"game\":\"g\",\"manifest_hash\":5}", "manifest_hash: must be a string" },
    { "{\"client_id\":\"c_5f1c9a27e04b7d13\",\"game\":\"g\",\"manifest\":[]}", "manifest: must be an object" },
    { "{\"client_id\":\"c_5f1c9a27e04b7d13\",\"game\":\"g\",\"manifest\":{\"game\":\"g\"}}",
      "entity_types: is required" },
    { "{\"client_id\":\"c_5f1c9a27e04b7d13\",\"game\":\"g\",\"manifest\":{\"game\":\"h\",\"entity_types\":"
      "{\"t\":{\"actions\":{\"a\":{}}}}}}", "manifest.game: must equal game" },
    { "{\"client_id\":\"c_5f1c9a27e04b7d13\",\"game\":\"g\",\"manifest\":{\"game\":\"g\",\"entity_types\":"
      "{\"t\":{\"actions\":{\"a\":{}},\"memory\":99}}}}", "entity_types.t.memory: must be between 0 and 16" },
    { "{\"client_id\":\"c_5f1c9a27e04b7d13\",\"game\":\"g\",\"manifest_hash\":\"sha256:1\",\"manifest\":{\"game\":\"g\","
      "\"entity_types\":{\"t\":{\"actions\":{\"a\":{}}}}}}", "manifest_hash: does not match the manifest" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    assert_refused (service, rows[i].body, 400, "invalid", rows[i].message);
  a2g_service_stop (service);
}

static void
test_token_required (void)
{
  A2gService *service = a2g_service_start ("");
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  const char *body = "{\"client_id\":\"" CLIENT "\",\"scopes\":[\"station\"]}";
  g_autoptr(A2gResponse) none = a2g_post (service, "/v1/context", NULL, body);
  g_autoptr(A2gResponse) wrong = a2g_post (service, "/v1/context", "s_00000000000000000000000000000000", body);
  g_autoptr(A2gResponse) good = a2g_post (service, "/v1/context", token, body);
  g_autoptr(A2gResponse) unknown = a2g_post (service, "/v1/context", token,
                                             "{\"client_id\":\"c_unknown_client\",\"scopes\":[]}");
  g_autofree char *other_token = a2g_open (service, "c_other_client_1", NULL);
  g_autoptr(A2gResponse) other = a2g_post (service, "/v1/context", other_token, body);
  g_autoptr(A2gResponse) no_client = a2g_post (service, "/v1/context", token, "{\"scopes\":[]}");

  a2g_assert_json (none->body, "{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"Missing, invalid or expired session token.\","
                               "\"code\":\"unauthorized\"}");
  g_assert_cmpuint (none->status, ==, 401);
  g_assert_cmpuint (wrong->status, ==, 401);
  g_assert_cmpuint (good->status, ==, 200);
  /* A token of another client_id is no good either. */
  g_assert_cmpuint (other->status, ==, 401);
  a2g_assert_json (unknown->body, "{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"Unknown session: open one with "
                                  "/v1/session.\",\"code\":\"unknown_session\"}");
  g_assert_cmpuint (unknown->status, ==, 409);
  g_assert_cmpuint (no_client->status, ==, 400);
  a2g_assert_no_secret (service, token);
  a2g_service_stop (service);
}

static void
test_renew_and_expire (void)
{
  /* Short figures: a 2 s TTL and a 1 s grace. */
  A2gService *service = a2g_service_start ("[a2g]\nsession-ttl=2\nrenew-grace=1\n");
  g_autofree char *first = a2g_open (service, CLIENT, NULL);
  const char *scopes = "{\"client_id\":\"" CLIENT "\",\"scopes\":[\"station\",\"inner_ring\"]}";
  const char *probe = "{\"client_id\":\"" CLIENT "\"}";
  g_autoptr(A2gResponse) set = a2g_post (service, "/v1/context", first, scopes);
  g_autofree char *second = NULL;
  g_autofree char *context_hash = NULL;

  g_assert_cmpuint (set->status, ==, 200);
  {
    g_autoptr(JsonObject) object = a2g_json (set);
    context_hash = g_strdup (json_object_get_string_member (object, "context_hash"));
  }
  second = a2g_open (service, CLIENT, NULL);
  g_assert_cmpstr (first, !=, second);
  {
    /* Both tokens work inside the grace; the context was kept. */
    g_autoptr(A2gResponse) old = a2g_post (service, "/v1/context", first, probe);
    g_autoptr(A2gResponse) current = a2g_post (service, "/v1/context", second, probe);
    g_autoptr(JsonObject) object = a2g_json (current);

    g_assert_cmpuint (old->status, ==, 200);
    g_assert_cmpuint (current->status, ==, 200);
    g_assert_cmpstr (json_object_get_string_member (object, "context_hash"), ==, context_hash);
  }
  g_usleep (1300 * 1000);
  {
    g_autoptr(A2gResponse) old = a2g_post (service, "/v1/context", first, probe);
    g_autoptr(A2gResponse) current = a2g_post (service, "/v1/context", second, probe);

    g_assert_cmpuint (old->status, ==, 401);
    g_assert_cmpuint (current->status, ==, 200);
  }
  /* Unused for its TTL: gone. */
  g_usleep (2300 * 1000);
  {
    g_autoptr(A2gResponse) gone = a2g_post (service, "/v1/context", second, probe);
    g_assert_cmpuint (gone->status, ==, 409);
  }
  a2g_service_stop (service);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/a2g/session/open", test_open);
  g_test_add_func ("/a2g/session/hash-and-order", test_hash_and_order);
  g_test_add_func ("/a2g/session/refusals", test_refusals);
  g_test_add_func ("/a2g/session/token-required", test_token_required);
  g_test_add_func ("/a2g/session/renew-and-expire", test_renew_and_expire);
  return g_test_run ();
}
