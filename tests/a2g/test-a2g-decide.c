/* test-a2g-decide.c: POST /v1/decide against the real `gamegate a2g` with a
 * scripted model: the exact answer for model and forced decisions, every
 * request-level refusal (400), every check of an entity's data (FALLBACK
 * invalid naming the field, the other entities decided), and every
 * FALLBACK code provoked: busy, budget, timeout, unavailable, invalid,
 * low_confidence, error.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "a2g-test-util.h"

#define CLIENT "c_5f1c9a27e04b7d13"
#define PIRATE(id, obs, actions) \
  "{\"entity\":\"" id "\",\"type\":\"pirate\",\"observations\":" obs ",\"legal_actions\":" actions "}"
#define THREE "[\"attack\",\"flee\",\"surrender\"]"
#define ANSWER(reason, action, confidence) \
  "{\"json\":{\"reason\":\"" reason "\",\"action\":\"" action "\",\"confidence\":" #confidence "}}"

static char *
decide_body (const char *entities)
{
  return g_strdup_printf ("{\"client_id\":\"" CLIENT "\",\"epoch\":41,\"entities\":[%s]}", entities);
}

static A2gResponse *
decide (A2gService *service,
        const char *token,
        const char *entities)
{
  g_autofree char *body = decide_body (entities);

  return a2g_post (service, "/v1/decide", token, body);
}

static A2gService *
start_with (const char *steps,
            const char *extra)
{
  g_autofree char *model = a2g_model_config (steps);
  g_autofree char *config = g_strconcat ("[a2g]\n", model, extra != NULL ? extra : "", NULL);

  return a2g_service_start (config);
}

static void
assert_decisions (A2gResponse *response,
                  const char  *expected)
{
  g_autofree char *stripped = a2g_strip_member (response->body, "decision_id");

  g_assert_cmpuint (response->status, ==, 200);
  a2g_assert_json (stripped, expected);
}

static void
test_model_and_forced (void)
{
  A2gService *service = start_with ("[" ANSWER ("Alone and badly hurt; the medicine is not worth dying for.", "flee", 72) "]", NULL);
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  g_autoptr(A2gResponse) response = decide (service, token,
    "{\"entity\":\"pirate-7\",\"type\":\"pirate\",\"profile\":\"coward\",\"observations\":{\"hp\":35,"
    "\"target_distance\":900,\"allies_near\":0,\"cargo_seen\":\"medicine\",\"cornered\":false,\"unknown\":1},"
    "\"legal_actions\":[\"attack\",\"flee\",\"surrender\"],\"deadline_ms\":1500},"
    "{\"entity\":\"pirate-9\",\"type\":\"pirate\",\"observations\":{\"hp\":90},\"legal_actions\":[\"attack\"]}");
  g_autoptr(JsonObject) object = a2g_json (response);
  JsonArray *decisions = json_object_get_array_member (object, "decisions");
  const char *first = json_object_get_string_member (json_array_get_object_element (decisions, 0), "decision_id");
  const char *second = json_object_get_string_member (json_array_get_object_element (decisions, 1), "decision_id");

  assert_decisions (response,
    "{\"a2g\":\"0.1\",\"epoch\":41,\"decisions\":["
    "{\"entity\":\"pirate-7\",\"decision_id\":\"*\",\"action\":\"flee\",\"source\":\"model\",\"confidence\":72,"
    "\"ttl_ms\":3000,\"reason\":\"Alone and badly hurt; the medicine is not worth dying for.\"},"
    "{\"entity\":\"pirate-9\",\"decision_id\":\"*\",\"action\":\"attack\",\"source\":\"forced\",\"confidence\":100,"
    "\"ttl_ms\":3000}]}");
  g_assert_true (g_str_has_prefix (first, "d_"));
  g_assert_cmpstr (first, !=, second);
  a2g_service_stop (service);
}

static void
test_refusals (void)
{
  A2gService *service = start_with ("[]", NULL);
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  g_autoptr(GString) seventeen = g_string_new (NULL);
  static const struct {
    const char *body, *message;
  } rows[] = {
    { "{\"client_id\":\"" CLIENT "\"}", "entities: must be an array" },
    { "{\"client_id\":\"" CLIENT "\",\"entities\":{}}", "entities: must be an array" },
    { "{\"client_id\":\"" CLIENT "\",\"epoch\":\"41\",\"entities\":[]}", "epoch: must be an integer" },
    { "{\"client_id\":\"" CLIENT "\",\"epoch\":4.5,\"entities\":[]}", "epoch: must be an integer" },
    { "{\"client_id\":\"" CLIENT "\",\"request_id\":\"\",\"entities\":[]}",
      "request_id: must be a string of 1 to 64 characters" },
    { "{\"client_id\":\"" CLIENT "\",\"request_id\":\"q_0123456789012345678901234567890123456789012345678901234567890123\","
      "\"entities\":[]}", "request_id: must be a string of 1 to 64 characters" },
    { "{\"client_id\":\"" CLIENT "\",\"entities\":[1]}", "entities[0]: must be an object" },
    { "{\"client_id\":\"" CLIENT "\",\"entities\":[{\"entity\":\"Pirate 7\",\"type\":\"pirate\"}]}",
      "entities[0].entity: must match ^[a-z][a-z0-9_:.-]{0,63}$" },
    { "{\"client_id\":\"" CLIENT "\",\"entities\":[{\"entity\":\"p\",\"type\":\"dragon\",\"legal_actions\":[\"a\"]}]}",
      "entities[0].type: not an entity type of the manifest" },
    { "{\"client_id\":\"" CLIENT "\",\"entities\":[{\"entity\":\"p\",\"legal_actions\":[\"a\"]}]}",
      "entities[0].type: not an entity type of the manifest" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(A2gResponse) response = a2g_post (service, "/v1/decide", token, rows[i].body);
      g_autofree char *expected = g_strdup_printf ("{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"%s\",\"code\":\"invalid\"}",
                                                   rows[i].message);

      g_test_message ("%s", rows[i].body);
      g_assert_cmpuint (response->status, ==, 400);
      a2g_assert_json (response->body, expected);
    }
  for (guint i = 0; i < 17; i++)
    g_string_append_printf (seventeen, "%s" PIRATE ("p%u", "{}", "[\"flee\"]"), i > 0 ? "," : "", i);
  {
    g_autofree char *body = decide_body (seventeen->str);
    g_autoptr(A2gResponse) response = a2g_post (service, "/v1/decide", token, body);

    a2g_assert_json (response->body, "{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"entities: at most 16 entities per "
                                     "request\",\"code\":\"invalid\"}");
  }
  {
    /* No entities at all: an empty answer. */
    g_autoptr(A2gResponse) response = a2g_post (service, "/v1/decide", token,
                                                "{\"client_id\":\"" CLIENT "\",\"epoch\":3,\"entities\":[]}");
    a2g_assert_json (response->body, "{\"a2g\":\"0.1\",\"epoch\":3,\"decisions\":[]}");
  }
  a2g_service_stop (service);
}

static void
test_invalid_entries (void)
{
  /* The one model answer goes to the one valid entry needing it. */
  A2gService *service = start_with ("[" ANSWER ("Fine.", "attack", 60) "]", NULL);
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  static const struct {
    const char *entry, *message;
  } rows[] = {
    { PIRATE ("a", "{\"hp\":\"35\"}", THREE), "observations.hp: must be an integer" },
    { PIRATE ("a", "{\"hp\":35.5}", THREE), "observations.hp: must be an integer" },
    { PIRATE ("a", "{\"hp\":101}", THREE), "observations.hp: out of range [0, 100]" },
    { PIRATE ("a", "{\"hp\":-1}", THREE), "observations.hp: out of range [0, 100]" },
    { PIRATE ("a", "{\"hp\":1e300}", THREE), "observations.hp: out of range [0, 100]" },
    { PIRATE ("a", "{\"hp\":123456789012345678901234567890}", THREE), "observations.hp: out of range [0, 100]" },
    { PIRATE ("a", "{\"target_distance\":5000.5}", THREE), "observations.target_distance: out of range [0, 5000]" },
    { PIRATE ("a", "{\"target_distance\":null}", THREE), "observations.target_distance: must be a number" },
    { PIRATE ("a", "{\"cornered\":1}", THREE), "observations.cornered: must be a boolean" },
    { PIRATE ("a", "{\"cargo_seen\":\"gold\"}", THREE), "observations.cargo_seen: must be one of the enum's values" },
    { PIRATE ("a", "{\"callsign\":[]}", THREE), "observations.callsign: must be a string" },
    { PIRATE ("a", "[]", THREE), "observations: must be an object" },
    { PIRATE ("a", "{}", "[]"), "legal_actions: must be a non-empty array of action ids" },
    { PIRATE ("a", "{}", "\"flee\""), "legal_actions: must be a non-empty array of action ids" },
    { PIRATE ("a", "{}", "[\"flee\",\"dance\"]"), "legal_actions[1]: not an action of type pirate" },
    { PIRATE ("a", "{}", "[\"flee\",7]"), "legal_actions[1]: not an action of type pirate" },
    { PIRATE ("a", "{}", "[\"flee\",\"flee\"]"), "legal_actions[1]: duplicate action" },
    { "{\"entity\":\"a\",\"type\":\"pirate\",\"legal_actions\":[\"flee\"],\"deadline_ms\":0}",
      "deadline_ms: must be an integer from 1 to 30000" },
    { "{\"entity\":\"a\",\"type\":\"pirate\",\"legal_actions\":[\"flee\"],\"deadline_ms\":30001}",
      "deadline_ms: must be an integer from 1 to 30000" },
    { "{\"entity\":\"a\",\"type\":\"pirate\",\"legal_actions\":[\"flee\"],\"profile\":\"hero\"}",
      "profile: not a profile of the manifest or the context" },
  };
  g_autoptr(GString) entries = g_string_new (NULL);
  g_autoptr(GString) expected = g_string_new ("{\"a2g\":\"0.1\",\"epoch\":41,\"decisions\":[");

  for (guint i = 0; i < G_N_ELEMENTS (rows); i += 15)
    {
      /* At most 16 a request: rows in batches, one valid entry among them. */
      g_string_truncate (entries, 0);
      g_string_truncate (expected, strlen ("{\"a2g\":\"0.1\",\"epoch\":41,\"decisions\":["));
      for (guint j = i; j < MIN (i + 15, G_N_ELEMENTS (rows)); j++)
        {
          g_autofree char *escaped = g_strescape (rows[j].message, NULL);

          g_string_append_printf (entries, "%s,", rows[j].entry);
          g_string_append_printf (expected, "{\"entity\":\"a\",\"action\":\"FALLBACK\",\"code\":\"invalid\","
                                  "\"message\":\"%s\"},", escaped);
        }
      g_string_append (entries, PIRATE ("ok", "{\"hp\":35,\"unknown_observation\":[1]}", "[\"attack\",\"flee\"]"));
      if (i == 0)
        g_string_append (expected, "{\"entity\":\"ok\",\"decision_id\":\"*\",\"action\":\"attack\",\"source\":\"model\","
                                   "\"confidence\":60,\"ttl_ms\":3000,\"reason\":\"Fine.\"}]}");
      else
        g_string_append (expected, "{\"entity\":\"ok\",\"decision_id\":\"*\",\"action\":\"attack\",\"source\":\"cache\","
                                   "\"confidence\":60,\"ttl_ms\":3000,\"reason\":\"Fine.\"}]}");
      {
        g_autoptr(A2gResponse) response = decide (service, token, entries->str);
        assert_decisions (response, expected->str);
      }
    }
  a2g_service_stop (service);
}

static void
expect_fallback (A2gService *service,
                 const char *token,
                 const char *entries,
                 const char *expected_decisions)
{
  g_autoptr(A2gResponse) response = decide (service, token, entries);
  g_autofree char *expected = g_strdup_printf ("{\"a2g\":\"0.1\",\"epoch\":41,\"decisions\":[%s]}", expected_decisions);

  assert_decisions (response, expected);
}

static void
test_fallback_error (void)
{
  /* Not JSON, then an action outside the legal ones: one retry, then error. */
  A2gService *service = start_with ("[{\"text\":\"I would flee.\"}," ANSWER ("x", "call_help", 50) ","
                                    ANSWER ("Retry works.", "flee", 50) ", {\"text\":\"nope\"}, "
                                    ANSWER ("Second try.", "attack", 40) ", {\"error\":\"generation_failed\"}]", NULL);
  g_autofree char *token = a2g_open (service, CLIENT, NULL);

  expect_fallback (service, token, PIRATE ("p", "{\"hp\":10}", "[\"attack\",\"flee\"]"),
                   "{\"entity\":\"p\",\"action\":\"FALLBACK\",\"code\":\"error\"}");
  expect_fallback (service, token, PIRATE ("p", "{\"hp\":20}", "[\"attack\",\"flee\"]"),
                   "{\"entity\":\"p\",\"decision_id\":\"*\",\"action\":\"flee\",\"source\":\"model\","
                   "\"confidence\":50,\"ttl_ms\":3000,\"reason\":\"Retry works.\"}");
  expect_fallback (service, token, PIRATE ("p", "{\"hp\":30}", "[\"attack\",\"flee\"]"),
                   "{\"entity\":\"p\",\"decision_id\":\"*\",\"action\":\"attack\",\"source\":\"model\","
                   "\"confidence\":40,\"ttl_ms\":3000,\"reason\":\"Second try.\"}");
  /* A model error is not an answer outside the schema: no retry. */
  expect_fallback (service, token, PIRATE ("p", "{\"hp\":40}", "[\"attack\",\"flee\"]"),
                   "{\"entity\":\"p\",\"action\":\"FALLBACK\",\"code\":\"error\"}");
  {
    g_autoptr(A2gResponse) usage = a2g_get (service, "/v1/usage");
    g_autoptr(JsonObject) object = a2g_json (usage);
    JsonObject *fallbacks = json_object_get_object_member (object, "fallbacks");

    g_assert_cmpint (json_object_get_int_member (fallbacks, "error"), ==, 2);
  }
  a2g_service_stop (service);
}

static void
test_fallback_low_confidence (void)
{
  /* guard: min_confidence 60, cache session. */
  A2gService *service = start_with ("[{\"json\":{\"reason\":\"Unsure.\",\"action\":\"chase\",\"confidence\":59}},"
                                    "{\"json\":{\"reason\":\"Sure.\",\"action\":\"chase\",\"confidence\":60}}]", NULL);
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  const char *guard = "{\"entity\":\"g1\",\"type\":\"guard\",\"legal_actions\":[\"patrol\",\"chase\"]}";

  expect_fallback (service, token, guard,
                   "{\"entity\":\"g1\",\"action\":\"FALLBACK\",\"code\":\"low_confidence\","
                   "\"message\":\"Confidence 59 is below 60.\"}");
  /* Not cached: the next one asks again. */
  expect_fallback (service, token, guard,
                   "{\"entity\":\"g1\",\"decision_id\":\"*\",\"action\":\"chase\",\"source\":\"model\","
                   "\"confidence\":60,\"ttl_ms\":2000,\"reason\":\"Sure.\"}");
  a2g_service_stop (service);
}

static void
test_fallback_timeout (void)
{
  A2gService *service = start_with ("[{\"json\":{\"reason\":\"Slow.\",\"action\":\"flee\",\"confidence\":50},"
                                    "\"delayMs\":3000}]", NULL);
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  gint64 start = g_get_monotonic_time ();

  expect_fallback (service, token,
                   "{\"entity\":\"p\",\"type\":\"pirate\",\"legal_actions\":[\"attack\",\"flee\"],\"deadline_ms\":200}",
                   "{\"entity\":\"p\",\"action\":\"FALLBACK\",\"code\":\"timeout\",\"message\":\"The deadline passed.\"}");
  g_assert_cmpint (g_get_monotonic_time () - start, <, gg_test_timeout_ms (2000) * 1000);
  a2g_service_stop (service);
}

static void
test_fallback_unavailable (void)
{
  /* "system" with no default model configured, and a model that says so. */
  A2gService *none = a2g_service_start ("");
  A2gService *failing = start_with ("[{\"error\":\"model_unavailable\"}]", NULL);
  g_autofree char *token = a2g_open (none, CLIENT, NULL);
  g_autofree char *token2 = a2g_open (failing, CLIENT, NULL);
  const char *entry = PIRATE ("p", "{}", "[\"attack\",\"flee\"]");
  const char *expected = "{\"entity\":\"p\",\"action\":\"FALLBACK\",\"code\":\"unavailable\","
                         "\"message\":\"No model is available.\"}";

  expect_fallback (none, token, entry, expected);
  expect_fallback (failing, token2, entry, expected);
  /* Forced decisions need no model. */
  expect_fallback (none, token, PIRATE ("q", "{}", "[\"flee\"]"),
                   "{\"entity\":\"q\",\"decision_id\":\"*\",\"action\":\"flee\",\"source\":\"forced\","
                   "\"confidence\":100,\"ttl_ms\":3000}");
  a2g_service_stop (none);
  a2g_service_stop (failing);
}

static void
test_fallback_busy (void)
{
  /* Two model decisions a session allowed in a burst, slowly refilled. */
  A2gService *service = start_with ("[" ANSWER ("a", "flee", 50) "," ANSWER ("b", "flee", 50) ","
                                    ANSWER ("c", "flee", 50) "]", "session-rate=0.01\nsession-burst=2\n");
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  const char *busy = "{\"entity\":\"p3\",\"action\":\"FALLBACK\",\"code\":\"busy\","
                     "\"message\":\"Over the session's decision rate.\"}";

  expect_fallback (service, token, PIRATE ("p1", "{\"hp\":1}", THREE) "," PIRATE ("p2", "{\"hp\":11}", THREE),
                   "{\"entity\":\"p1\",\"decision_id\":\"*\",\"action\":\"flee\",\"source\":\"model\",\"confidence\":50,"
                   "\"ttl_ms\":3000,\"reason\":\"a\"},{\"entity\":\"p2\",\"decision_id\":\"*\",\"action\":\"flee\","
                   "\"source\":\"model\",\"confidence\":50,\"ttl_ms\":3000,\"reason\":\"b\"}");
  expect_fallback (service, token, PIRATE ("p3", "{\"hp\":21}", THREE), busy);
  /* Cached and forced decisions cost nothing: still answered. */
  expect_fallback (service, token, PIRATE ("p4", "{\"hp\":2}", THREE) "," PIRATE ("p5", "{}", "[\"flee\"]"),
                   "{\"entity\":\"p4\",\"decision_id\":\"*\",\"action\":\"flee\",\"source\":\"cache\",\"confidence\":50,"
                   "\"ttl_ms\":3000,\"reason\":\"a\"},{\"entity\":\"p5\",\"decision_id\":\"*\",\"action\":\"flee\","
                   "\"source\":\"forced\",\"confidence\":100,\"ttl_ms\":3000}");
  a2g_service_stop (service);

  /* One model call at a time: the second entity of a request is busy. */
  service = start_with ("[{\"json\":{\"reason\":\"a\",\"action\":\"flee\",\"confidence\":50},\"delayMs\":300}]",
                        "max-model-calls=1\n");
  g_free (token);
  token = a2g_open (service, CLIENT, NULL);
  expect_fallback (service, token, PIRATE ("p1", "{\"hp\":1}", THREE) "," PIRATE ("p2", "{\"hp\":11}", THREE),
                   "{\"entity\":\"p1\",\"decision_id\":\"*\",\"action\":\"flee\",\"source\":\"model\",\"confidence\":50,"
                   "\"ttl_ms\":3000,\"reason\":\"a\"},{\"entity\":\"p2\",\"action\":\"FALLBACK\",\"code\":\"busy\","
                   "\"message\":\"Too many model calls at once.\"}");
  a2g_service_stop (service);
}

static void
test_fallback_budget (void)
{
  /* The scripted model counts about 4 bytes a token; pirates reserve 800. */
  A2gService *service = start_with ("[" ANSWER ("a", "flee", 50) "," ANSWER ("b", "flee", 50) "]",
                                    "session-token-budget=1000\n");
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  g_autofree char *tiny = NULL;

  expect_fallback (service, token, PIRATE ("p1", "{\"hp\":1}", THREE),
                   "{\"entity\":\"p1\",\"decision_id\":\"*\",\"action\":\"flee\",\"source\":\"model\",\"confidence\":50,"
                   "\"ttl_ms\":3000,\"reason\":\"a\"}");
  /* Used (a few hundred) + 800 reserved > 1000: spent. */
  expect_fallback (service, token, PIRATE ("p2", "{\"hp\":21}", THREE),
                   "{\"entity\":\"p2\",\"action\":\"FALLBACK\",\"code\":\"budget\",\"message\":\"A token budget is spent.\"}");
  {
    g_autoptr(A2gResponse) usage = a2g_get (service, "/v1/usage");
    g_autoptr(JsonObject) object = a2g_json (usage);
    JsonObject *fallbacks = json_object_get_object_member (object, "fallbacks");

    g_assert_cmpint (json_object_get_int_member (fallbacks, "budget"), ==, 1);
  }
  a2g_service_stop (service);

  /* A type whose token_budget cannot hold even the legal actions. */
  service = start_with ("[" ANSWER ("a", "run", 50) "]", NULL);
  tiny = g_strdup ("{\"a2g\":\"0.1\",\"game\":\"orbital-freight\",\"entity_types\":{\"freighter\":"
                   "{\"actions\":{\"run\":{},\"hide\":{}},\"token_budget\":10}}}");
  g_free (token);
  token = a2g_open (service, CLIENT, tiny);
  expect_fallback (service, token, "{\"entity\":\"f\",\"type\":\"freighter\",\"legal_actions\":[\"run\",\"hide\"]}",
                   "{\"entity\":\"f\",\"action\":\"FALLBACK\",\"code\":\"budget\","
                   "\"message\":\"The decision does not fit the type's token_budget.\"}");
  a2g_service_stop (service);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/a2g/decide/model-and-forced", test_model_and_forced);
  g_test_add_func ("/a2g/decide/refusals", test_refusals);
  g_test_add_func ("/a2g/decide/invalid-entries", test_invalid_entries);
  g_test_add_func ("/a2g/decide/fallback-error", test_fallback_error);
  g_test_add_func ("/a2g/decide/fallback-low-confidence", test_fallback_low_confidence);
  g_test_add_func ("/a2g/decide/fallback-timeout", test_fallback_timeout);
  g_test_add_func ("/a2g/decide/fallback-unavailable", test_fallback_unavailable);
  g_test_add_func ("/a2g/decide/fallback-busy", test_fallback_busy);
  g_test_add_func ("/a2g/decide/fallback-budget", test_fallback_budget);
  return g_test_run ();
}
