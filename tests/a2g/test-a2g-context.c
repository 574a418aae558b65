/* test-a2g-context.c: POST /v1/context and GET /v1/policy against the real
 * `gamegate a2g`: the scope chain answered (manifest scopes, then free-form
 * ones), the context hash (the same state gives the same hash, any change
 * another one), every refusal, the 16-text limit; the policy export and
 * its SHA-256 over the canonical JSON (checked with the plugin's own RFC
 * 8785 code, itself checked against the RFC in test-a2g-canonical).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "a2g-test-util.h"
#include "gg-a2g-canonical.h"

#define CLIENT "c_5f1c9a27e04b7d13"
#define OTHER "c_0a1b2c3d4e5f6a7b"

static A2gResponse *
context (A2gService *service,
         const char *client_id,
         const char *token,
         const char *members)
{
  g_autofree char *body = g_strdup_printf ("{\"client_id\":\"%s\"%s%s}", client_id, *members ? "," : "", members);

  return a2g_post (service, "/v1/context", token, body);
}

static char *
hash_of (A2gResponse *response)
{
  g_autoptr(JsonObject) object = a2g_json (response);

  g_assert_cmpuint (response->status, ==, 200);
  return g_strdup (json_object_get_string_member (object, "context_hash"));
}

static void
test_chain_and_hash (void)
{
  A2gService *service = a2g_service_start ("");
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  g_autofree char *other = a2g_open (service, OTHER, NULL);
  g_autoptr(A2gResponse) empty = context (service, CLIENT, token, "");
  g_autoptr(A2gResponse) chain = context (service, CLIENT, token, "\"scopes\":[\"station\",\"inner_ring\"],"
                                          "\"texts\":{\"scope:event\":\"A patrol just left the ring.\"}");
  g_autoptr(A2gResponse) same = context (service, OTHER, other, "\"scopes\":[\"station\",\"inner_ring\"],"
                                         "\"texts\":{\"scope:event\":\"A patrol just left the ring.\"}");
  g_autoptr(A2gResponse) kept = context (service, CLIENT, token, "");
  g_autoptr(A2gResponse) profile = context (service, CLIENT, token, "\"profiles\":{\"pirate-7\":\"coward\"}");
  g_autoptr(A2gResponse) extra = context (service, CLIENT, token, "\"texts\":{\"profile:coward\":\"Hates the cold.\"}");
  g_autoptr(A2gResponse) shorter = context (service, CLIENT, token, "\"scopes\":[\"station\"]");
  g_autofree char *h_empty = hash_of (empty);
  g_autofree char *h_chain = hash_of (chain);
  g_autofree char *h_same = hash_of (same);
  g_autofree char *h_kept = hash_of (kept);
  g_autofree char *h_profile = hash_of (profile);
  g_autofree char *h_extra = hash_of (extra);
  g_autofree char *h_shorter = hash_of (shorter);
  g_autofree char *expected = g_strdup_printf ("{\"a2g\":\"0.1\",\"ok\":true,\"scope_chain\":[\"station\",\"inner_ring\","
                                               "\"event\"],\"context_hash\":\"%s\"}", h_chain);

  a2g_assert_json (chain->body, expected);
  g_assert_true (g_str_has_prefix (h_empty, "sha256:"));
  g_assert_cmpuint (strlen (h_empty), ==, 71);
  /* Two sessions with the same context: the same hash (shared cache). */
  g_assert_cmpstr (h_same, ==, h_chain);
  g_assert_cmpstr (h_kept, ==, h_chain);
  g_assert_cmpstr (h_chain, !=, h_empty);
  g_assert_cmpstr (h_profile, !=, h_chain);
  g_assert_cmpstr (h_extra, !=, h_profile);
  g_assert_cmpstr (h_shorter, !=, h_extra);
  {
    /* The texts stay: the chain keeps its free-form scope after the manifest ones. */
    g_autofree char *again = g_strdup_printf ("{\"a2g\":\"0.1\",\"ok\":true,\"scope_chain\":[\"station\",\"event\"],"
                                              "\"context_hash\":\"%s\"}", h_shorter);
    a2g_assert_json (shorter->body, again);
  }
  a2g_service_stop (service);
}

static void
test_refusals (void)
{
  A2gService *service = a2g_service_start ("");
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  g_autoptr(GString) texts = g_string_new ("\"texts\":{");
  g_autofree char *long_text = g_malloc0 (2002);
  static const struct {
    const char *members, *message;
  } rows[] = {
    { "\"scopes\":\"station\"", "scopes: must be an array of scope names" },
    { "\"scopes\":[\"moon\"]", "scopes[0]: not a scope of the manifest" },
    { "\"scopes\":[\"station\",1]", "scopes[1]: not a scope of the manifest" },
    { "\"scopes\":[\"station\",\"station\"]", "scopes[1]: duplicate scope" },
    { "\"profiles\":[]", "profiles: must be an object of entity ids to profile names" },
    { "\"profiles\":{\"pirate-7\":\"hero\"}", "profiles.pirate-7: unknown profile" },
    { "\"profiles\":{\"pirate-7\":3}", "profiles.pirate-7: must be a profile name" },
    { "\"profiles\":{\"Pirate 7\":\"coward\"}", "profiles.Pirate 7: entity ids must match ^[a-z][a-z0-9_:.-]{0,63}$" },
    { "\"texts\":[]", "texts: must be an object of scope:NAME or profile:NAME to text" },
    { "\"texts\":{\"event\":\"x\"}", "texts.event: keys are scope:NAME or profile:NAME" },
    { "\"texts\":{\"scope:Big Event\":\"x\"}", "texts.scope:Big Event: keys are scope:NAME or profile:NAME" },
    { "\"texts\":{\"scope:event\":7}", "texts.scope:event: must be a string" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(A2gResponse) response = context (service, CLIENT, token, rows[i].members);
      g_autofree char *expected = g_strdup_printf ("{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"%s\",\"code\":\"invalid\"}",
                                                   rows[i].message);

      g_test_message ("%s", rows[i].members);
      g_assert_cmpuint (response->status, ==, 400);
      a2g_assert_json (response->body, expected);
    }
  memset (long_text, 'x', 2001);
  {
    g_autofree char *members = g_strdup_printf ("\"texts\":{\"scope:event\":\"%s\"}", long_text);
    g_autoptr(A2gResponse) response = context (service, CLIENT, token, members);

    a2g_assert_json (response->body, "{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"texts.scope:event: at most 2000 "
                                     "characters\",\"code\":\"invalid\"}");
  }
  /* 16 texts a session: the 17th, even in a later request, is refused. */
  for (guint i = 0; i < 16; i++)
    g_string_append_printf (texts, "%s\"scope:s%u\":\"t\"", i > 0 ? "," : "", i);
  g_string_append (texts, "}");
  {
    g_autoptr(A2gResponse) ok = context (service, CLIENT, token, texts->str);
    g_autoptr(A2gResponse) one_more = context (service, CLIENT, token, "\"texts\":{\"profile:coward\":\"t\"}");
    g_autoptr(A2gResponse) replaced = context (service, CLIENT, token, "\"texts\":{\"scope:s3\":\"u\"}");

    g_assert_cmpuint (ok->status, ==, 200);
    a2g_assert_json (one_more->body, "{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"texts: at most 16 texts per session\","
                                     "\"code\":\"invalid\"}");
    g_assert_cmpuint (replaced->status, ==, 200);
  }
  a2g_service_stop (service);
}

static void
test_policy (void)
{
  g_autofree char *model = a2g_model_config ("[{\"json\":{\"reason\":\"r\",\"action\":\"flee\",\"confidence\":72}}]");
  g_autofree char *config = g_strconcat ("[a2g]\n", model, NULL);
  A2gService *service = a2g_service_start (config);
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  g_autofree char *hash = NULL;
  g_autofree char *path = NULL;
  g_autoptr(A2gResponse) decided = a2g_post (service, "/v1/decide", token,
    "{\"client_id\":\"" CLIENT "\",\"entities\":[{\"entity\":\"p\",\"type\":\"pirate\",\"observations\":{\"hp\":35,"
    "\"cornered\":true},\"legal_actions\":[\"flee\",\"attack\"]}]}");
  g_autoptr(A2gResponse) policy = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonNode) without = NULL;
  g_autofree char *canonical = NULL;
  g_autofree char *sha = NULL;
  g_autofree char *expected = NULL;
  JsonObject *object;
  const char *key;

  {
    g_autofree char *body = g_strdup_printf ("{\"client_id\":\"" OTHER "\",\"game\":\"orbital-freight\",\"manifest\":%s}",
                                             a2g_test_manifest);
    g_autoptr(A2gResponse) opened = a2g_post (service, "/v1/session", NULL, body);
    g_autoptr(JsonObject) o = a2g_json (opened);

    hash = g_strdup (json_object_get_string_member (o, "manifest_hash"));
  }
  g_assert_cmpuint (decided->status, ==, 200);
  path = g_strdup_printf ("/v1/policy?manifest_hash=%s", hash);
  policy = a2g_get (service, path);
  g_assert_cmpuint (policy->status, ==, 200);
  node = gg_json_parse (policy->body, -1, 64, NULL);
  object = json_node_get_object (node);
  key = json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (object, "entries"), 0),
                                       "key");
  expected = g_strdup_printf ("{\"a2g\":\"0.1\",\"manifest_hash\":\"%s\",\"created\":\"*\",\"entries\":[{\"type\":\"pirate\","
                              "\"key\":\"%s\",\"situation\":{\"hp\":3,\"cornered\":true},\"legal_actions\":[\"attack\",\"flee\"],"
                              "\"action\":\"flee\",\"confidence\":72}],\"sha256\":\"*\"}", hash, key);
  {
    g_autofree char *no_created = a2g_strip_member (policy->body, "created");
    g_autofree char *stripped = a2g_strip_member (no_created, "sha256");
    a2g_assert_json (stripped, expected);
  }
  g_assert_true (g_regex_match_simple ("^20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]Z$",
                                       json_object_get_string_member (object, "created"), 0, 0));
  /* sha256 is over the canonical JSON of everything else. */
  sha = g_strdup (json_object_get_string_member (object, "sha256"));
  without = json_node_copy (node);
  json_object_remove_member (json_node_get_object (without), "sha256");
  canonical = gg_a2g_canonical_json (without);
  {
    g_autofree char *hex = g_compute_checksum_for_string (G_CHECKSUM_SHA256, canonical, -1);
    g_assert_cmpstr (sha, ==, hex);
  }
  {
    g_autoptr(A2gResponse) missing = a2g_get (service, "/v1/policy");
    g_autoptr(A2gResponse) unknown = a2g_get (service, "/v1/policy?manifest_hash=sha256:00");

    a2g_assert_json (missing->body, "{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"manifest_hash: is required\",\"code\":\"invalid\"}");
    a2g_assert_json (unknown->body, "{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"Unknown manifest hash.\",\"code\":\"forbidden\"}");
    g_assert_cmpuint (unknown->status, ==, 403);
  }
  a2g_service_stop (service);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/a2g/context/chain-and-hash", test_chain_and_hash);
  g_test_add_func ("/a2g/context/refusals", test_refusals);
  g_test_add_func ("/a2g/context/policy", test_policy);
  return g_test_run ();
}
