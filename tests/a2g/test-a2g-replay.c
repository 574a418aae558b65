/* test-a2g-replay.c: an A2G decision recorded against a real model (the
 * fake OpenAI-compatible server, through model-record's "record" model)
 * and replayed by `gamegate a2g` with the server gone: the same answers,
 * decision ids aside (they are random by design).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "a2g-test-util.h"
#include "fake-openai-server.h"

#define CLIENT "c_5f1c9a27e04b7d13"
#define DECIDE "{\"client_id\":\"" CLIENT "\",\"epoch\":7,\"entities\":[" \
  "{\"entity\":\"pirate-7\",\"type\":\"pirate\",\"observations\":{\"hp\":35,\"cornered\":false}," \
  "\"legal_actions\":[\"attack\",\"flee\",\"surrender\"]}," \
  "{\"entity\":\"pirate-9\",\"type\":\"pirate\",\"observations\":{\"hp\":90}," \
  "\"legal_actions\":[\"attack\",\"flee\"]}]}"

static char *
decide_once (const char *model)
{
  g_autofree char *config = g_strdup_printf ("[a2g]\nmodel=%s\ndefault-deadline-ms=30000\n", model);
  A2gService *service = a2g_service_start (config);
  g_autofree char *token = a2g_open (service, CLIENT, NULL);
  g_autoptr(A2gResponse) response = a2g_post (service, "/v1/decide", token, DECIDE);
  char *body;

  g_assert_cmpuint (response->status, ==, 200);
  body = a2g_strip_member (response->body, "decision_id");
  a2g_service_stop (service);
  return body;
}

static void
test_record_then_replay (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gg-a2g-replay-XXXXXX", NULL);
  g_autofree char *cassette = g_build_filename (dir, "pirates.jsonl", NULL);
  FakeOpenai *fake = fake_openai_new ();
  g_autofree char *url = fake_openai_get_base_url (fake);
  g_autofree char *record = g_strdup_printf ("{\"type\":\"record\",\"cassette\":\"%s\",\"model\":"
                                             "{\"type\":\"openai\",\"baseUrl\":\"%s\",\"model\":\"fake-model\"}}",
                                             cassette, url);
  g_autofree char *replay = g_strdup_printf ("{\"type\":\"replay\",\"cassette\":\"%s\"}", cassette);
  g_autofree char *recorded = NULL;
  g_autofree char *replayed = NULL;

  /* The two entities' model calls run concurrently, in either order. */
  fake_openai_push_text (fake, "{\"reason\":\"Hurt and alone.\",\"action\":\"flee\",\"confidence\":72}");
  fake_openai_push_text (fake, "{\"reason\":\"Hurt and alone.\",\"action\":\"flee\",\"confidence\":72}");
  recorded = decide_once (record);
  g_assert_cmpuint (fake_openai_get_n_requests (fake), ==, 2);
  g_assert_true (g_str_has_prefix (recorded, "{\"a2g\":\"0.1\",\"epoch\":7,\"decisions\":[{\"entity\":\"pirate-7\",\"decision_id\":\"*\","
                                             "\"action\":\"flee\",\"source\":\"model\",\"confidence\":72,"));
  fake_openai_free (fake);

  replayed = decide_once (replay);
  g_assert_cmpstr (replayed, ==, recorded);
  g_unlink (cassette);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/a2g/replay/record-then-replay", test_record_then_replay);
  return g_test_run ();
}
