/* test-a2g-redis-profiles.c: the server and client profiles on replicas
 * sharing one real `redis-server` (a2g-test-redis.c): a join token's jti
 * accepted on one client-profile replica is refused on the other; and, on
 * a server-profile replica and a client-profile replica of the same game
 * and manifest, a client session is answered `source: cache` from the
 * game-wide entry a server session wrote, while a client session's own
 * model decision is never served to another session on either replica.
 * Join tokens made with libjwt (a2g-test-jwt.c). Skips (77) when
 * redis-server is not installed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "a2g-test-jwt.h"
#include "a2g-test-redis.h"

#define CLIENT "c_5f1c9a27e04b7d13"
#define OTHER "c_0a1b2c3d4e5f6a7b"
#define SERVER_CLIENT "c_server_0b1e5d7a"
#define API_KEY "ak_orbital_7c1e9d20b44f6a83e5d1"
#define ANSWER(reason, action) \
  "{\"json\":{\"reason\":\"" reason "\",\"action\":\"" action "\",\"confidence\":70}}"

static char *server_session_body (const char *client_id);

/* Until the replica reaches Redis (a moment, longer under valgrind), a
 * session is 503: one is opened for nobody in particular first. */
static void
wait_connected (A2gService *service,
                gboolean    server)
{
  guint status = 503;

  for (guint i = 0; i < 200 && status == 503; i++)
    {
      g_autoptr(A2gResponse) response = NULL;

      if (server)
        {
          g_autofree char *body = server_session_body ("c_warm_up_00000001");
          response = a2g_proxied_post (service, "/v1/session", API_KEY, body);
        }
      else
        {
          static guint serial;
          g_autofree char *sub = g_strdup_printf ("p_warm_up_%u", ++serial);
          g_autofree char *client = g_strdup_printf ("c_warm_up_%08u", serial);
          A2gJoin join = a2g_join_good ();
          g_autofree char *token = NULL;

          /* A player (and so a client_id) of its own: the sub's session
           * rate is not spent, and no session is another player's. */
          join.sub = sub;
          token = a2g_join_token (&join);
          response = a2g_join_open (service, client, token);
        }
      status = response->status;
      if (status == 503)
        g_usleep (50000);
    }
  g_assert_cmpuint (status, ==, 200);
}

static A2gService *
client_replica (guint       prefix,
                const char *steps)
{
  g_autofree char *redis = a2g_redis_config_patient (prefix);
  g_autofree char *model = steps != NULL ? a2g_model_config (steps) : g_strdup ("");
  g_autofree char *extra = g_strconcat (redis, model, NULL);
  g_autofree char *config = a2g_jwt_client_config (extra);
  A2gService *service = a2g_service_start (config);

  wait_connected (service, FALSE);
  return service;
}

/* The same game and manifest, registered for game servers (API key). */
static A2gService *
server_replica (guint       prefix,
                const char *steps)
{
  g_autofree char *redis = a2g_redis_config_patient (prefix);
  g_autofree char *model = a2g_model_config (steps);
  g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, API_KEY, -1);
  g_autofree char *config = g_strdup_printf ("[a2g]\nprofile=server\nbehind-tls-proxy=true\n"
                                             "games=orbital-freight\norbital-freight.api-key-sha256=%s\n"
                                             "orbital-freight.manifests=%s\n%s%s", digest, a2g_jwt_keys.hash,
                                             redis, model);
  A2gService *service = a2g_service_start (config);

  wait_connected (service, TRUE);
  return service;
}

static char *
server_session_body (const char *client_id)
{
  return g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"%s\",\"game\":\"orbital-freight\",\"manifest\":%s}",
                          client_id, a2g_test_manifest);
}

static char *
server_session (A2gService *service,
                const char *client_id)
{
  g_autofree char *body = server_session_body (client_id);
  g_autoptr(A2gResponse) response = a2g_proxied_post (service, "/v1/session", API_KEY, body);
  g_autoptr(JsonObject) object = NULL;

  g_assert_cmpuint (response->status, ==, 200);
  object = a2g_json (response);
  return g_strdup (json_object_get_string_member (object, "session_token"));
}

static void
test_jti_across (void)
{
  guint prefix = a2g_redis_new_prefix ();
  A2gService *a = client_replica (prefix, NULL), *b = client_replica (prefix, NULL);
  A2gJoin join = a2g_join_good ();
  g_autofree char *token = a2g_join_token (&join);
  g_autoptr(A2gResponse) first = a2g_join_open (a, CLIENT, token);
  g_autoptr(A2gResponse) again_b = a2g_join_open (b, OTHER, token);
  g_autoptr(A2gResponse) again_a = a2g_join_open (a, OTHER, token);

  /* Accepted on A; spent for the service: refused on B, and on A again. */
  g_assert_cmpuint (first->status, ==, 200);
  g_assert_cmpuint (again_b->status, ==, 401);
  a2g_assert_json (again_b->body, "{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"Join token already used.\","
                                  "\"code\":\"unauthorized\"}");
  a2g_assert_json (again_a->body, again_b->body);
  {
    /* B takes a fresh token: only the spent jti is refused there. */
    A2gJoin fresh = a2g_join_good ();
    g_autofree char *other = a2g_join_token (&fresh);
    g_autoptr(A2gResponse) on_b = a2g_join_open (b, OTHER, other);
    g_autoptr(A2gResponse) replayed_on_a = a2g_join_open (a, "c_third_client_01", other);

    g_assert_cmpuint (on_b->status, ==, 200);
    g_assert_cmpuint (replayed_on_a->status, ==, 401);
    a2g_assert_json (replayed_on_a->body, again_b->body);
  }
  a2g_assert_no_secret (a, token);
  a2g_assert_no_secret (b, token);
  a2g_service_stop (a);
  a2g_service_stop (b);
}

#define EXPECT(service, client, token, entry, expected) \
  G_STMT_START { g_autofree char *got_ = a2g_proxied_decide (service, client, token, entry); \
                 g_assert_cmpstr (got_, ==, expected); } G_STMT_END

static void
test_client_reads_server_cache (void)
{
  guint prefix = a2g_redis_new_prefix ();
  A2gService *server = server_replica (prefix, "[" ANSWER ("s1", "flee") "," ANSWER ("s2", "surrender") "]");
  A2gService *client = client_replica (prefix, "[" ANSWER ("c1", "attack") "," ANSWER ("c2", "call_help") "]");
  g_autofree char *s = server_session (server, SERVER_CLIENT);
  g_autofree char *c1 = a2g_join_session (client, CLIENT);
  g_autofree char *c2 = a2g_join_session (client, OTHER);
  const char *hurt = "{\"entity\":\"p\",\"type\":\"pirate\",\"observations\":{\"hp\":35,\"target_distance\":900},"
                     "\"legal_actions\":[\"attack\",\"call_help\",\"flee\",\"surrender\"]}";
  const char *healthy = "{\"entity\":\"p\",\"type\":\"pirate\",\"observations\":{\"hp\":95,\"target_distance\":900},"
                        "\"legal_actions\":[\"attack\",\"call_help\",\"flee\",\"surrender\"]}";

  /* The server session's decision is the game's ("game:<hex>" in Redis):
   * the client session on the other replica is answered from it. */
  EXPECT (server, SERVER_CLIENT, s, hurt, "model flee s1");
  EXPECT (client, CLIENT, c1, hurt, "cache flee s1");
  EXPECT (client, OTHER, c2, hurt, "cache flee s1");
  /* A client session's own decision is cached for it alone... */
  EXPECT (client, CLIENT, c1, healthy, "model attack c1");
  EXPECT (client, CLIENT, c1, healthy, "cache attack c1");
  /* ...never for another client session on its replica, nor for the
   * server session on the other one: each is the model's again. */
  EXPECT (client, OTHER, c2, healthy, "model call_help c2");
  EXPECT (server, SERVER_CLIENT, s, healthy, "model surrender s2");
  a2g_service_stop (server);
  a2g_service_stop (client);
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  if (!a2g_redis_setup ())
    {
      g_print ("1..0 # SKIP redis-server is not installed\n");
      return 77;
    }
  a2g_jwt_keys_make ();
  g_test_add_func ("/a2g/redis-profiles/jti-across", test_jti_across);
  g_test_add_func ("/a2g/redis-profiles/client-reads-server-cache", test_client_reads_server_cache);
  status = g_test_run ();
  a2g_jwt_keys_free ();
  a2g_redis_teardown ();
  return status;
}
