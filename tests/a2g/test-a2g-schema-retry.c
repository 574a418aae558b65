/* test-a2g-schema-retry.c: spec section 5 step 5 ("an answer outside the
 * schema is retried once, then FALLBACK error") with a fake
 * OpenAI-compatible server as the model of the real `gamegate a2g`, for
 * every way a model's answer can miss the schema: plain text, an action
 * that is not legal, JSON cut off at the token limit, a member missing;
 * each retried exactly once with the same request, then the decision or
 * FALLBACK error. A model error is no answer: it is not retried.
 * (test-a2g-decide.c has the same with the scripted model.)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "a2g-test-util.h"
#include "fake-openai-server.h"

#define CLIENT "c_5f1c9a27e04b7d13"
#define ENTITY "{\"entity\":\"pirate-7\",\"type\":\"pirate\",\"observations\":{\"hp\":%u}," \
               "\"legal_actions\":[\"attack\",\"flee\"]}"
#define FLEE "{\"reason\":\"Hurt and alone.\",\"action\":\"flee\",\"confidence\":72}"
#define DECIDED_FLEE "{\"a2g\":\"0.1\",\"epoch\":1,\"decisions\":[{\"entity\":\"pirate-7\",\"decision_id\":\"*\"," \
                     "\"action\":\"flee\",\"source\":\"model\",\"confidence\":72,\"ttl_ms\":3000," \
                     "\"reason\":\"Hurt and alone.\"}]}"
#define FALLBACK_ERROR "{\"a2g\":\"0.1\",\"epoch\":1,\"decisions\":[{\"entity\":\"pirate-7\",\"action\":\"FALLBACK\"," \
                       "\"code\":\"error\"}]}"

typedef struct {
  FakeOpenai *fake;
  A2gService *service;
  char *token;
  guint hp;     /* a new situation each decide: no cache hit */
  guint calls;  /* model calls before this decide */
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autofree char *url = NULL;

  fixture->fake = fake_openai_new ();
  url = fake_openai_get_base_url (fixture->fake);
  fixture->service = a2g_service_start_openai (url);
  fixture->token = a2g_open (fixture->service, CLIENT, NULL);
  fixture->hp = 5;
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  a2g_service_stop (fixture->service);
  fake_openai_free (fixture->fake);
  g_free (fixture->token);
}

/* One decide; asserts its answer exactly and the model calls it made,
 * each retry sending the very request of the first attempt. */
static void
expect_decide (Fixture    *fixture,
               const char *expected,
               guint       model_calls)
{
  g_autofree char *entity = g_strdup_printf (ENTITY, fixture->hp);
  g_autofree char *body = g_strdup_printf ("{\"client_id\":\"" CLIENT "\",\"epoch\":1,\"entities\":[%s]}", entity);
  g_autoptr(A2gResponse) response = a2g_post (fixture->service, "/v1/decide", fixture->token, body);
  g_autofree char *stripped = a2g_strip_member (response->body, "decision_id");
  guint first = fixture->calls;

  fixture->hp += 10;
  g_assert_cmpuint (response->status, ==, 200);
  a2g_assert_json (stripped, expected);
  g_assert_cmpuint (fake_openai_get_n_requests (fixture->fake), ==, first + model_calls);
  for (guint i = first + 1; i < first + model_calls; i++)
    {
      g_autoptr(JsonNode) a = json_node_init_object (json_node_alloc (), fake_openai_get_request (fixture->fake, first));
      g_autoptr(JsonNode) b = json_node_init_object (json_node_alloc (), fake_openai_get_request (fixture->fake, i));

      g_assert_true (json_node_equal (a, b));
    }
  fixture->calls = first + model_calls;
  g_assert_cmpuint (fake_openai_get_n_pending (fixture->fake), ==, 0);
}

static void
test_plain_text (Fixture       *fixture,
                 gconstpointer  data)
{
  /* Plain text, then the schema's answer: decided on the retry. */
  fake_openai_push_text (fixture->fake, "I would flee: the pirate is hurt and alone.");
  fake_openai_push_text (fixture->fake, FLEE);
  expect_decide (fixture, DECIDED_FLEE, 2);
  /* Plain text twice: one retry only, then FALLBACK error. */
  fake_openai_push_text (fixture->fake, "Flee.");
  fake_openai_push_text (fixture->fake, "Really, flee.");
  fake_openai_push_text (fixture->fake, FLEE);
  expect_decide (fixture, FALLBACK_ERROR, 2);
  /* The third answer was not asked for: it decides the next one. */
  expect_decide (fixture, DECIDED_FLEE, 1);
  /* Empty text is not an answer either. */
  fake_openai_push_text (fixture->fake, "");
  fake_openai_push_text (fixture->fake, FLEE);
  expect_decide (fixture, DECIDED_FLEE, 2);
}

static void
test_outside_schema (Fixture       *fixture,
                     gconstpointer  data)
{
  FakeReply *cut;

  /* JSON with an action that is not legal. */
  fake_openai_push_text (fixture->fake, "{\"reason\":\"Help!\",\"action\":\"call_help\",\"confidence\":72}");
  fake_openai_push_text (fixture->fake, FLEE);
  expect_decide (fixture, DECIDED_FLEE, 2);
  /* A member missing, then a JSON array. */
  fake_openai_push_text (fixture->fake, "{\"reason\":\"Hurt and alone.\",\"action\":\"flee\"}");
  fake_openai_push_text (fixture->fake, "[\"flee\"]");
  expect_decide (fixture, FALLBACK_ERROR, 2);
  /* Cut off at the token limit. */
  cut = fake_openai_push_text (fixture->fake, "{\"reason\":\"Hurt and al");
  g_free (cut->finish_reason);
  cut->finish_reason = g_strdup ("length");
  fake_openai_push_text (fixture->fake, FLEE);
  expect_decide (fixture, DECIDED_FLEE, 2);
  /* JSON in a Markdown fence is the answer itself: no retry. */
  fake_openai_push_text (fixture->fake, "```json\n" FLEE "\n```");
  expect_decide (fixture, DECIDED_FLEE, 1);
}

static void
test_model_error (Fixture       *fixture,
                  gconstpointer  data)
{
  /* The server fails the request: no answer, so no retry. */
  fake_openai_push_error (fixture->fake, 400, "{\"error\":{\"message\":\"bad request\",\"type\":\"invalid_request_error\"}}");
  fake_openai_push_text (fixture->fake, FLEE);
  expect_decide (fixture, FALLBACK_ERROR, 1);
  expect_decide (fixture, DECIDED_FLEE, 1);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/a2g/schema-retry/plain-text", Fixture, NULL, fixture_setup, test_plain_text, fixture_teardown);
  g_test_add ("/a2g/schema-retry/outside-schema", Fixture, NULL, fixture_setup, test_outside_schema,
              fixture_teardown);
  g_test_add ("/a2g/schema-retry/model-error", Fixture, NULL, fixture_setup, test_model_error, fixture_teardown);
  return g_test_run ();
}
