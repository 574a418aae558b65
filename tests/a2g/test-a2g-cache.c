/* test-a2g-cache.c: the decision cache and its neighbours against the real
 * `gamegate a2g`: hits and misses across quantisation buckets and legal
 * action sets, scope and profile changes, game-wide versus session caches,
 * `cache: off` with memory, and request_id replays (same answer, no new
 * model call; a retry while the first is still running; the window).
 *
 * Each scripted model has exactly as many answers as model calls are
 * expected: one call too many would answer "(script exhausted)", which is
 * not a decision (FALLBACK error).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "a2g-test-util.h"

#define CLIENT "c_5f1c9a27e04b7d13"
#define OTHER "c_0a1b2c3d4e5f6a7b"
#define ANSWER(reason, action, confidence) \
  "{\"json\":{\"reason\":\"" reason "\",\"action\":\"" action "\",\"confidence\":" #confidence "}}"

static A2gService *
start_with (const char *steps,
            const char *extra)
{
  g_autofree char *model = a2g_model_config (steps);
  g_autofree char *config = g_strconcat ("[a2g]\n", model, extra != NULL ? extra : "", NULL);

  return a2g_service_start (config);
}

/* The source (or FALLBACK code) and reason of a one-entity decide. */
static char *
decide_one (A2gService *service,
            const char *client_id,
            const char *token,
            const char *entry)
{
  g_autofree char *body = g_strdup_printf ("{\"client_id\":\"%s\",\"epoch\":1,\"entities\":[%s]}", client_id, entry);
  g_autoptr(A2gResponse) response = a2g_post (service, "/v1/decide", token, body);

  return a2g_first_decision (response);
}

#define EXPECT(service, client, token, entry, expected) \
  G_STMT_START { g_autofree char *got_ = decide_one (service, client, token, entry); \
                 g_assert_cmpstr (got_, ==, expected); } G_STMT_END

static void
test_buckets (void)
{
  A2gService *service = start_with ("[" ANSWER ("m1", "flee", 70) "," ANSWER ("m2", "attack", 70) ","
                                    ANSWER ("m3", "flee", 70) "," ANSWER ("m4", "surrender", 70) ","
                                    ANSWER ("m5", "attack", 70) "]", NULL);
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  const char *three = "[\"attack\",\"flee\",\"surrender\"]";
  g_autofree char *a = g_strdup_printf ("{\"entity\":\"p\",\"type\":\"pirate\",\"observations\":{\"hp\":35,"
                                        "\"target_distance\":900},\"legal_actions\":%s}", three);
  /* hp 39 is in hp 35's bucket of 10, distance 999 in 900's bucket of 250. */
  g_autofree char *same_bucket = g_strdup_printf ("{\"entity\":\"q\",\"type\":\"pirate\",\"observations\":{\"hp\":39,"
                                                  "\"target_distance\":999},\"legal_actions\":"
                                                  "[\"surrender\",\"attack\",\"flee\"]}");
  g_autofree char *next_bucket = g_strdup_printf ("{\"entity\":\"p\",\"type\":\"pirate\",\"observations\":{\"hp\":40,"
                                                  "\"target_distance\":900},\"legal_actions\":%s}", three);
  g_autofree char *distance = g_strdup_printf ("{\"entity\":\"p\",\"type\":\"pirate\",\"observations\":{\"hp\":35,"
                                               "\"target_distance\":1000},\"legal_actions\":%s}", three);
  /* allies_near has no bucket: every value is its own key. */
  g_autofree char *allies = g_strdup_printf ("{\"entity\":\"p\",\"type\":\"pirate\",\"observations\":{\"hp\":35,"
                                             "\"target_distance\":900,\"allies_near\":1},\"legal_actions\":%s}", three);
  const char *fewer = "{\"entity\":\"p\",\"type\":\"pirate\",\"observations\":{\"hp\":35,\"target_distance\":900},"
                      "\"legal_actions\":[\"attack\",\"flee\"]}";
  /* Unknown observations do not change the key; a missing one does. */
  g_autofree char *extra = g_strdup_printf ("{\"entity\":\"p\",\"type\":\"pirate\",\"observations\":{\"hp\":35,"
                                            "\"target_distance\":900,\"mood\":\"grim\"},\"legal_actions\":%s}", three);
  g_autofree char *missing = g_strdup_printf ("{\"entity\":\"p\",\"type\":\"pirate\",\"observations\":{\"hp\":35},"
                                              "\"legal_actions\":%s}", three);

  EXPECT (service, CLIENT, token, a, "model flee m1");
  EXPECT (service, CLIENT, token, a, "cache flee m1");
  EXPECT (service, CLIENT, token, same_bucket, "cache flee m1");
  EXPECT (service, CLIENT, token, extra, "cache flee m1");
  EXPECT (service, CLIENT, token, next_bucket, "model attack m2");
  EXPECT (service, CLIENT, token, distance, "model flee m3");
  EXPECT (service, CLIENT, token, allies, "model surrender m4");
  EXPECT (service, CLIENT, token, fewer, "model attack m5");
  EXPECT (service, CLIENT, token, fewer, "cache attack m5");
  {
    /* Script exhausted: the next miss is no decision. */
    EXPECT (service, CLIENT, token, missing, "FALLBACK error");
  }
  {
    g_autoptr(A2gResponse) usage = a2g_get (service, "/v1/usage");
    g_autoptr(JsonObject) object = a2g_json (usage);
    JsonObject *decisions = json_object_get_object_member (object, "decisions");

    g_assert_cmpint (json_object_get_int_member (decisions, "model"), ==, 5);
    g_assert_cmpint (json_object_get_int_member (decisions, "cache"), ==, 4);
  }
  a2g_service_stop (service);
}

static void
set_context (A2gService *service,
             const char *token,
             const char *members)
{
  g_autofree char *body = g_strdup_printf ("{\"client_id\":\"" CLIENT "\",%s}", members);
  g_autoptr(A2gResponse) response = a2g_post (service, "/v1/context", token, body);

  g_assert_cmpuint (response->status, ==, 200);
}

static void
test_scope_and_profile (void)
{
  A2gService *service = start_with ("[" ANSWER ("s0", "flee", 70) "," ANSWER ("s1", "attack", 70) ","
                                    ANSWER ("s2", "flee", 70) "," ANSWER ("s3", "attack", 70) ","
                                    ANSWER ("s4", "flee", 70) "," ANSWER ("s5", "attack", 70) ","
                                    ANSWER ("s6", "flee", 70) "]", NULL);
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  const char *plain = "{\"entity\":\"p\",\"type\":\"pirate\",\"legal_actions\":[\"attack\",\"flee\"]}";
  const char *coward = "{\"entity\":\"p\",\"type\":\"pirate\",\"profile\":\"coward\",\"legal_actions\":[\"attack\",\"flee\"]}";
  const char *veteran = "{\"entity\":\"p\",\"type\":\"pirate\",\"profile\":\"veteran\",\"legal_actions\":[\"attack\",\"flee\"]}";

  EXPECT (service, CLIENT, token, plain, "model flee s0");
  set_context (service, token, "\"scopes\":[\"station\"]");
  EXPECT (service, CLIENT, token, plain, "model attack s1");
  EXPECT (service, CLIENT, token, plain, "cache attack s1");
  set_context (service, token, "\"scopes\":[\"station\",\"inner_ring\"]");
  EXPECT (service, CLIENT, token, plain, "model flee s2");
  /* Back to the first chain: its entry is still there. */
  set_context (service, token, "\"scopes\":[\"station\"]");
  EXPECT (service, CLIENT, token, plain, "cache attack s1");
  /* A free-form text changes the context hash. */
  set_context (service, token, "\"texts\":{\"scope:event\":\"A patrol just left the ring.\"}");
  EXPECT (service, CLIENT, token, plain, "model attack s3");
  /* Profiles: each its own key; an assignment is the same as naming it. */
  EXPECT (service, CLIENT, token, coward, "model flee s4");
  EXPECT (service, CLIENT, token, veteran, "model attack s5");
  set_context (service, token, "\"profiles\":{\"p\":\"coward\"}");
  /* The assignment entered the context hash: a new key once more. */
  EXPECT (service, CLIENT, token, plain, "model flee s6");
  EXPECT (service, CLIENT, token, coward, "cache flee s6");
  a2g_service_stop (service);
}

static void
test_game_and_session_caches (void)
{
  /* pirate: cache game; guard: cache session. */
  A2gService *service = start_with ("[" ANSWER ("g", "flee", 70) "," ANSWER ("s-a", "chase", 70) ","
                                    ANSWER ("s-b", "patrol", 70) "]", NULL);
  g_autofree char *a = a2g_open (service, CLIENT, NULL);
  g_autofree char *b = a2g_open (service, OTHER, NULL);
  const char *pirate = "{\"entity\":\"p\",\"type\":\"pirate\",\"legal_actions\":[\"attack\",\"flee\"]}";
  const char *guard = "{\"entity\":\"g\",\"type\":\"guard\",\"legal_actions\":[\"patrol\",\"chase\"]}";

  EXPECT (service, CLIENT, a, pirate, "model flee g");
  EXPECT (service, OTHER, b, pirate, "cache flee g");
  EXPECT (service, CLIENT, a, guard, "model chase s-a");
  EXPECT (service, CLIENT, a, guard, "cache chase s-a");
  EXPECT (service, OTHER, b, guard, "model patrol s-b");
  EXPECT (service, OTHER, b, guard, "cache patrol s-b");
  {
    /* Only game-wide entries make the policy: the pirate's, not the guards'. */
    g_autoptr(A2gResponse) opened = a2g_post (service, "/v1/session", NULL,
                                              "{\"client_id\":\"c_third_client_1\",\"game\":\"orbital-freight\","
                                              "\"manifest\":{\"game\":\"orbital-freight\",\"entity_types\":{\"x\":"
                                              "{\"actions\":{\"a\":{}}}}}}");
    g_autoptr(JsonObject) object = a2g_json (opened);
    g_autofree char *hash = NULL;
    g_autofree char *path = NULL;

    /* The test manifest's hash, from a session opened with it. */
    {
      g_autofree char *body = g_strdup_printf ("{\"client_id\":\"c_fourth_client\",\"game\":\"orbital-freight\","
                                               "\"manifest\":%s}", a2g_test_manifest);
      g_autoptr(A2gResponse) again = a2g_post (service, "/v1/session", NULL, body);
      g_autoptr(JsonObject) opened_again = a2g_json (again);

      hash = g_strdup (json_object_get_string_member (opened_again, "manifest_hash"));
    }
    path = g_strdup_printf ("/v1/policy?manifest_hash=%s", hash);
    {
      g_autoptr(A2gResponse) policy = a2g_get (service, path);
      g_autoptr(JsonObject) table = a2g_json (policy);
      JsonArray *entries = json_object_get_array_member (table, "entries");
      JsonObject *entry;

      g_assert_cmpuint (policy->status, ==, 200);
      g_assert_cmpuint (json_array_get_length (entries), ==, 1);
      entry = json_array_get_object_element (entries, 0);
      g_assert_cmpstr (json_object_get_string_member (entry, "type"), ==, "pirate");
      g_assert_cmpstr (json_object_get_string_member (entry, "action"), ==, "flee");
      g_assert_cmpint (json_object_get_int_member (entry, "confidence"), ==, 70);
      g_assert_cmpuint (strlen (json_object_get_string_member (entry, "key")), ==, 64);
      g_assert_cmpuint (strlen (json_object_get_string_member (table, "sha256")), ==, 64);
    }
    g_assert_true (json_object_get_boolean_member (object, "ok"));
  }
  a2g_service_stop (service);
}

static void
test_memory_source (void)
{
  /* freighter: cache off, memory 3. */
  A2gService *service = start_with ("[" ANSWER ("f1", "run", 70) "," ANSWER ("f2", "hide", 70) ","
                                    ANSWER ("f3", "fight", 70) "]", NULL);
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  const char *f1 = "{\"entity\":\"f1\",\"type\":\"freighter\",\"legal_actions\":[\"run\",\"hide\",\"fight\"]}";
  const char *f1_other = "{\"entity\":\"f1\",\"type\":\"freighter\",\"legal_actions\":[\"run\",\"hide\"]}";
  const char *f2 = "{\"entity\":\"f2\",\"type\":\"freighter\",\"legal_actions\":[\"run\",\"hide\",\"fight\"]}";

  EXPECT (service, CLIENT, token, f1, "model run f1");
  EXPECT (service, CLIENT, token, f1, "memory run f1");
  EXPECT (service, CLIENT, token, f1_other, "model hide f2");
  /* Memory is the entity's own: another freighter asks the model. */
  EXPECT (service, CLIENT, token, f2, "model fight f3");
  {
    g_autoptr(A2gResponse) usage = a2g_get (service, "/v1/usage");
    g_autoptr(JsonObject) object = a2g_json (usage);
    JsonObject *decisions = json_object_get_object_member (object, "decisions");

    g_assert_cmpint (json_object_get_int_member (decisions, "memory"), ==, 1);
    g_assert_cmpint (json_object_get_int_member (decisions, "cache"), ==, 0);
  }
  a2g_service_stop (service);
}

static char *
replay_body (const char *client_id,
             const char *request_id,
             guint       hp)
{
  return g_strdup_printf ("{\"client_id\":\"%s\",\"epoch\":7,\"request_id\":\"%s\",\"entities\":["
                          "{\"entity\":\"p\",\"type\":\"pirate\",\"observations\":{\"hp\":%u},"
                          "\"legal_actions\":[\"attack\",\"flee\"]},"
                          "{\"entity\":\"q\",\"type\":\"pirate\",\"legal_actions\":[\"flee\"]}]}",
                          client_id, request_id, hp);
}

static void
test_replays (void)
{
  A2gService *service = start_with ("[" ANSWER ("r1", "flee", 70) "," ANSWER ("r2", "attack", 70) ","
                                    ANSWER ("r3", "flee", 70) "," ANSWER ("r4", "attack", 70) "]",
                                    "replay-window=1\n");
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  g_autofree char *other_token = a2g_open (service, OTHER, NULL);
  g_autofree char *first_body = replay_body (CLIENT, "q_81", 5);
  g_autoptr(A2gResponse) first = a2g_post (service, "/v1/decide", token, first_body);
  g_autoptr(A2gResponse) again = a2g_post (service, "/v1/decide", token, first_body);
  g_autofree char *new_body = replay_body (CLIENT, "q_82", 15);
  g_autoptr(A2gResponse) fresh = a2g_post (service, "/v1/decide", token, new_body);
  g_autofree char *other_body = replay_body (OTHER, "q_81", 25);
  g_autoptr(A2gResponse) other = a2g_post (service, "/v1/decide", other_token, other_body);

  /* The same bytes: same decision ids, no new model call. */
  g_assert_cmpuint (again->status, ==, 200);
  g_assert_cmpstr (again->body, ==, first->body);
  g_assert_nonnull (strstr (first->body, "\"reason\":\"r1\""));
  g_assert_nonnull (strstr (fresh->body, "\"reason\":\"r2\""));
  /* request_ids are per client. */
  g_assert_nonnull (strstr (other->body, "\"reason\":\"r3\""));
  /* After the window the same request_id is a new request. */
  g_usleep (2100 * 1000);
  {
    g_autofree char *late_body = replay_body (CLIENT, "q_81", 35);
    g_autoptr(A2gResponse) late = a2g_post (service, "/v1/decide", token, late_body);

    g_assert_nonnull (strstr (late->body, "\"reason\":\"r4\""));
  }
  a2g_service_stop (service);
}

static void
test_replay_in_flight (void)
{
  /* The retry arrives while the first is still with the model. */
  A2gService *service = start_with ("[{\"json\":{\"reason\":\"slow\",\"action\":\"flee\",\"confidence\":70},"
                                    "\"delayMs\":400}]", NULL);
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  g_autofree char *body = replay_body (CLIENT, "q_9", 5);
  A2gPending *one = a2g_post_start (service, "/v1/decide", token, body);
  A2gPending *two = a2g_post_start (service, "/v1/decide", token, body);
  g_autoptr(A2gResponse) first = a2g_pending_wait (one);
  g_autoptr(A2gResponse) second = a2g_pending_wait (two);

  g_assert_nonnull (strstr (first->body, "\"reason\":\"slow\""));
  g_assert_cmpstr (first->body, ==, second->body);
  a2g_service_stop (service);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/a2g/cache/buckets", test_buckets);
  g_test_add_func ("/a2g/cache/scope-and-profile", test_scope_and_profile);
  g_test_add_func ("/a2g/cache/game-and-session", test_game_and_session_caches);
  g_test_add_func ("/a2g/cache/memory-source", test_memory_source);
  g_test_add_func ("/a2g/cache/replays", test_replays);
  g_test_add_func ("/a2g/cache/replay-in-flight", test_replay_in_flight);
  return g_test_run ();
}
