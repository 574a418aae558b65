/* test-a2g-report.c: POST /v1/report and POST /v1/telemetry against the
 * real `gamegate a2g`: accepted reports and every `ignored` reason
 * (unknown, other_session, other_entity, already_reported), malformed
 * reports and telemetry refused, what telemetry keeps and drops, the
 * max-tracked-entities bound, and /v1/usage.
 * (test-a2g-prompt.c checks that reports and telemetry reach the model.)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "a2g-test-util.h"

#define CLIENT "c_5f1c9a27e04b7d13"
#define OTHER "c_0a1b2c3d4e5f6a7b"

static A2gService *
start_with (const char *steps,
            const char *extra)
{
  g_autofree char *model = a2g_model_config (steps);
  g_autofree char *config = g_strconcat ("[a2g]\n", model, extra != NULL ? extra : "", NULL);

  return a2g_service_start (config);
}

static char *
decide_id (A2gService *service,
           const char *client_id,
           const char *token,
           const char *entity,
           const char *actions)
{
  g_autofree char *body = g_strdup_printf ("{\"client_id\":\"%s\",\"entities\":[{\"entity\":\"%s\",\"type\":\"pirate\","
                                           "\"legal_actions\":%s}]}", client_id, entity, actions);
  g_autoptr(A2gResponse) response = a2g_post (service, "/v1/decide", token, body);
  g_autoptr(JsonObject) object = a2g_json (response);
  JsonObject *decision = json_array_get_object_element (json_object_get_array_member (object, "decisions"), 0);

  return g_strdup (json_object_get_string_member (decision, "decision_id"));
}

static void
test_reports (void)
{
  A2gService *service = start_with ("[{\"json\":{\"reason\":\"r\",\"action\":\"flee\",\"confidence\":70}}]", NULL);
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  g_autofree char *other_token = a2g_open (service, OTHER, NULL);
  g_autofree char *modelled = decide_id (service, CLIENT, token, "pirate-7", "[\"attack\",\"flee\"]");
  g_autofree char *forced = decide_id (service, CLIENT, token, "pirate-9", "[\"attack\"]");
  g_autofree char *theirs = decide_id (service, OTHER, other_token, "pirate-1", "[\"attack\"]");
  g_autofree char *body = g_strdup_printf (
    "{\"client_id\":\"" CLIENT "\",\"reports\":["
    "{\"decision_id\":\"%s\",\"entity\":\"pirate-7\",\"outcome\":\"success\",\"reward\":0.5},"
    "{\"decision_id\":\"%s\",\"entity\":\"pirate-7\",\"outcome\":\"failure\"},"
    "{\"decision_id\":\"%s\",\"entity\":\"pirate-8\",\"outcome\":\"interrupted\"},"
    "{\"decision_id\":\"d_0000000000000000\",\"entity\":\"pirate-7\",\"outcome\":\"success\"},"
    "{\"decision_id\":\"%s\",\"entity\":\"pirate-1\",\"outcome\":\"success\",\"reward\":-1}]}",
    modelled, modelled, forced, theirs);
  g_autoptr(A2gResponse) response = a2g_post (service, "/v1/report", token, body);
  g_autofree char *expected = g_strdup_printf (
    "{\"a2g\":\"0.1\",\"ok\":true,\"accepted\":1,\"ignored\":["
    "{\"decision_id\":\"%s\",\"reason\":\"already_reported\"},"
    "{\"decision_id\":\"%s\",\"reason\":\"other_entity\"},"
    "{\"decision_id\":\"d_0000000000000000\",\"reason\":\"unknown\"},"
    "{\"decision_id\":\"%s\",\"reason\":\"other_session\"}]}", modelled, forced, theirs);

  g_assert_cmpuint (response->status, ==, 200);
  a2g_assert_json (response->body, expected);
  {
    /* Forced decisions are reportable too, once; the owner can report its own. */
    g_autofree char *again = g_strdup_printf ("{\"client_id\":\"" CLIENT "\",\"reports\":[{\"decision_id\":\"%s\","
                                              "\"entity\":\"pirate-9\",\"outcome\":\"success\"}]}", forced);
    g_autofree char *own = g_strdup_printf ("{\"client_id\":\"" OTHER "\",\"reports\":[{\"decision_id\":\"%s\","
                                            "\"entity\":\"pirate-1\",\"outcome\":\"failure\",\"reward\":1}]}", theirs);
    g_autoptr(A2gResponse) first = a2g_post (service, "/v1/report", token, again);
    g_autoptr(A2gResponse) owner = a2g_post (service, "/v1/report", other_token, own);

    a2g_assert_json (first->body, "{\"a2g\":\"0.1\",\"ok\":true,\"accepted\":1,\"ignored\":[]}");
    a2g_assert_json (owner->body, "{\"a2g\":\"0.1\",\"ok\":true,\"accepted\":1,\"ignored\":[]}");
  }
  a2g_service_stop (service);
}

static void
test_bad_reports (void)
{
  A2gService *service = start_with ("[]", NULL);
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  g_autoptr(GString) many = g_string_new ("{\"client_id\":\"" CLIENT "\",\"reports\":[");
  static const struct {
    const char *reports, *message;
  } rows[] = {
    { NULL, "reports: must be an array" },
    { "[3]", "reports[0]: must be an object" },
    { "[{\"entity\":\"p\",\"outcome\":\"success\"}]", "reports[0].decision_id: must be a decision id" },
    { "[{\"decision_id\":\"d_1\",\"entity\":\"P\",\"outcome\":\"success\"}]",
      "reports[0].entity: must match ^[a-z][a-z0-9_:.-]{0,63}$" },
    { "[{\"decision_id\":\"d_1\",\"entity\":\"p\",\"outcome\":\"win\"}]",
      "reports[0].outcome: must be success, failure or interrupted" },
    { "[{\"decision_id\":\"d_1\",\"entity\":\"p\",\"outcome\":\"success\",\"reward\":1.5}]",
      "reports[0].reward: must be a number in [-1, 1]" },
    { "[{\"decision_id\":\"d_1\",\"entity\":\"p\",\"outcome\":\"success\",\"reward\":\"1\"}]",
      "reports[0].reward: must be a number in [-1, 1]" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *body = rows[i].reports != NULL ?
        g_strdup_printf ("{\"client_id\":\"" CLIENT "\",\"reports\":%s}", rows[i].reports) :
        g_strdup ("{\"client_id\":\"" CLIENT "\"}");
      g_autoptr(A2gResponse) response = a2g_post (service, "/v1/report", token, body);
      g_autofree char *expected = g_strdup_printf ("{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"%s\",\"code\":\"invalid\"}",
                                                   rows[i].message);

      g_assert_cmpuint (response->status, ==, 400);
      a2g_assert_json (response->body, expected);
    }
  for (guint i = 0; i < 65; i++)
    g_string_append_printf (many, "%s{\"decision_id\":\"d_%u\",\"entity\":\"p\",\"outcome\":\"success\"}",
                            i > 0 ? "," : "", i);
  g_string_append (many, "]}");
  {
    g_autoptr(A2gResponse) response = a2g_post (service, "/v1/report", token, many->str);
    a2g_assert_json (response->body, "{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"reports: at most 64 reports per "
                                     "request\",\"code\":\"invalid\"}");
  }
  a2g_service_stop (service);
}

static void
test_telemetry (void)
{
  A2gService *service = start_with ("[]", "max-tracked-entities=3\n");
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  g_autoptr(A2gResponse) kept = a2g_post (service, "/v1/telemetry", token,
    "{\"client_id\":\"" CLIENT "\",\"tick\":1200,\"entities\":["
    "{\"entity\":\"pirate-7\",\"type\":\"pirate\",\"pos\":[120.5,0,-42.0],\"faction\":\"raiders\",\"hp\":35,"
    "\"cloaked\":true,\"mood\":\"grim\",\"cargo\":{\"ore\":3},\"log\":[1,2],\"name\":\"a very long name that is over "
    "thirty-two characters\",\"nothing\":null},"
    "{\"entity\":\"pirate-8\",\"pos\":[1,2,3,4]},"
    "{\"entity\":\"freighter-1\",\"type\":\"freighter\",\"pos\":[1,\"2\"]}]}");
  /* Past max-tracked-entities: a fourth entity is not kept, the known ones are. */
  g_autoptr(A2gResponse) bound = a2g_post (service, "/v1/telemetry", token,
    "{\"client_id\":\"" CLIENT "\",\"entities\":[{\"entity\":\"pirate-9\",\"pos\":[0,0]},"
    "{\"entity\":\"pirate-7\",\"pos\":[0,0]}]}");

  /* Dropped: cargo, log, name, nothing, pirate-8's pos, freighter-1's pos. */
  a2g_assert_json (kept->body, "{\"a2g\":\"0.1\",\"ok\":true,\"accepted\":3,\"dropped\":6}");
  a2g_assert_json (bound->body, "{\"a2g\":\"0.1\",\"ok\":true,\"accepted\":1,\"dropped\":1}");
  {
    g_autoptr(GString) many = g_string_new ("{\"client_id\":\"" CLIENT "\",\"entities\":[");
    g_autoptr(A2gResponse) response = NULL;

    for (guint i = 0; i < 17; i++)
      g_string_append_printf (many, "%s{\"entity\":\"e%u\"}", i > 0 ? "," : "", i);
    g_string_append (many, "]}");
    response = a2g_post (service, "/v1/telemetry", token, many->str);
    a2g_assert_json (response->body, "{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"entities: at most 16 entities per "
                                     "request\",\"code\":\"invalid\"}");
  }
  {
    g_autoptr(A2gResponse) response = a2g_post (service, "/v1/telemetry", token,
                                                "{\"client_id\":\"" CLIENT "\",\"entities\":[{\"pos\":[1,2]}]}");
    a2g_assert_json (response->body, "{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"entities[0].entity: must match "
                                     "^[a-z][a-z0-9_:.-]{0,63}$\",\"code\":\"invalid\"}");
  }
  a2g_service_stop (service);
}

static void
test_usage (void)
{
  A2gService *service = start_with ("[{\"json\":{\"reason\":\"r\",\"action\":\"flee\",\"confidence\":70}}]",
                                    "game-token-budget=100000\n");
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  g_autofree char *other_token = a2g_open (service, OTHER, NULL);
  g_autofree char *one = decide_id (service, CLIENT, token, "p", "[\"attack\",\"flee\"]");
  g_autofree char *two = decide_id (service, CLIENT, token, "p", "[\"flee\"]");
  g_autoptr(A2gResponse) usage = a2g_get (service, "/v1/usage");
  g_autoptr(JsonObject) object = a2g_json (usage);
  JsonObject *tokens = json_object_get_object_member (object, "tokens");
  JsonObject *budget = json_array_get_object_element (json_object_get_array_member (object, "budgets"), 0);
  gint64 used = json_object_get_int_member (tokens, "input") + json_object_get_int_member (tokens, "output");
  g_autofree char *expected = g_strdup_printf (
    "{\"a2g\":\"0.1\",\"sessions\":2,\"decisions\":{\"model\":1,\"cache\":0,\"memory\":0,\"forced\":1},"
    "\"fallbacks\":{\"busy\":0,\"budget\":0,\"timeout\":0,\"unavailable\":0,\"invalid\":0,\"low_confidence\":0,"
    "\"error\":0},\"tokens\":{\"input\":%" G_GINT64_FORMAT ",\"output\":%" G_GINT64_FORMAT "},"
    "\"budgets\":[{\"scope\":\"game:orbital-freight\",\"used\":%" G_GINT64_FORMAT ",\"limit\":100000,\"window\":\"day\"}]}",
    json_object_get_int_member (tokens, "input"), json_object_get_int_member (tokens, "output"), used);

  g_assert_cmpint (json_object_get_int_member (tokens, "input"), >, 50);
  g_assert_cmpint (json_object_get_int_member (tokens, "output"), >, 0);
  /* The reservation was settled with the real usage. */
  g_assert_cmpint (json_object_get_int_member (budget, "used"), ==, used);
  a2g_assert_json (usage->body, expected);
  g_assert_nonnull (one);
  g_assert_nonnull (two);
  a2g_assert_no_secret (service, token);
  a2g_assert_no_secret (service, other_token);
  a2g_service_stop (service);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/a2g/report/reports", test_reports);
  g_test_add_func ("/a2g/report/bad-reports", test_bad_reports);
  g_test_add_func ("/a2g/report/telemetry", test_telemetry);
  g_test_add_func ("/a2g/report/usage", test_usage);
  return g_test_run ();
}
