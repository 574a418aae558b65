/* test-oam-game.c: the game methods of oam spec section 6 over real pipes:
 * decision/decide, decision/decideMany, content/generate, the world methods with
 * subscriptions and world/changed, and the npc methods. Every exchange is a pipelined
 * script whose complete output is compared, message for message.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>

#include "oam-test.h"

static void
test_decide (void)
{
  oam_run_exchange_file (NULL, NULL, "decision-decide");
}
static void
test_decide_errors (void)
{
  oam_run_exchange_file (NULL, NULL, "decision-decide-errors");
}
static void
test_decide_fallback (void)
{
  oam_run_exchange_file (NULL, NULL, "decision-decide-fallback");
}
static void
test_decide_many (void)
{
  oam_run_exchange_file (NULL, NULL, "decision-decideMany");
}
static void
test_content (void)
{
  oam_run_exchange_file (NULL, NULL, "content-generate");
}
static void
test_world (void)
{
  oam_run_exchange_file (NULL, NULL, "world-methods");
}
static void
test_world_errors (void)
{
  oam_run_exchange_file (NULL, NULL, "world-errors");
}
static void
test_world_limits (void)
{
  oam_run_exchange_file (NULL, NULL, "world-generated-ids");
}
static void
test_npc_talk (void)
{
  oam_run_exchange_file (NULL, NULL, "npc-talk");
}
/* A structured reply streamed as JSON text: the emotion as soon as the
 * model has moved past it, then the line as it grows. */
static void
test_npc_talk_streamed_structured (void)
{
  oam_run_exchange_file (NULL, NULL, "npc-talk-streamed-structured");
}
static void
test_npc_errors (void)
{
  oam_run_exchange_file (NULL, NULL, "npc-errors");
}
static void
test_npc_bark_cancel_delete (void)
{
  oam_run_exchange_file (NULL, NULL, "npc-bark-cancel-delete");
}
static void
test_npc_restore (void)
{
  oam_run_exchange_file (NULL, NULL, "npc-restore");
}
static void
test_decide_as_npc (void)
{
  oam_run_exchange_file (NULL, NULL, "decision-decide-actor-npc");
}
static void
test_npc_state_restore (void)
{
  oam_run_exchange_file (NULL, NULL, "npc-state-restore");
}

/* [oam] limits from the configuration file. */
static void
test_limits_from_config (void)
{
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "oam-limits-test.conf", NULL);
  g_autofree char *env_entry = g_strdup_printf ("GAMEGATE_CONFIG=%s", path);
  const char *env[] = { env_entry, NULL };

  g_assert_true (g_file_set_contents (path, "[oam]\nmax-npcs=1\nmax-worlds=1\nmax-subscriptions=1\nmax-sessions=0\n", -1, NULL));
  oam_run_exchange_file (NULL, env, "limits-config");
  g_unlink (path);
}

/* NPC client tools arrive as tool/call with "npc" in the params. */
static void
test_npc_client_tool (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);

  oam_play (client, "npc-client-tool");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"npc\":\"gorm\",\"line\":\"Aye: {\\\"stock\\\":3}\",\"emotion\":\"proud\",\"playerOptions\":[],\"endsConversation\":false,\"toolCalls\":[{\"call\":{\"id\":\"c1\",\"name\":\"check_inventory\",\"arguments\":{\"item\":\"iron sword\"}},\"output\":{\"stock\":3},\"isError\":false,\"durationSeconds\":0}],\"relationship\":0,\"isFallback\":false,");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

static void
test_npc_compaction (void)
{
  oam_run_exchange_file (NULL, NULL, "npc-background-compaction");
}


/* decideMany's tool/call params carry the decision's index. */
static void
test_decide_many_tool_call (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);

  oam_play (client, "decision-decideMany-tool-call");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/oam/decision/decide", test_decide);
  g_test_add_func ("/oam/decision/decide/errors", test_decide_errors);
  g_test_add_func ("/oam/decision/decide/fallback", test_decide_fallback);
  g_test_add_func ("/oam/decision/decideMany", test_decide_many);
  g_test_add_func ("/oam/content/generate", test_content);
  g_test_add_func ("/oam/world/methods", test_world);
  g_test_add_func ("/oam/world/errors", test_world_errors);
  g_test_add_func ("/oam/world/generated-ids", test_world_limits);
  g_test_add_func ("/oam/npc/talk", test_npc_talk);
  g_test_add_func ("/oam/npc/talk/streamed-structured", test_npc_talk_streamed_structured);
  g_test_add_func ("/oam/npc/errors", test_npc_errors);
  g_test_add_func ("/oam/npc/bark-cancel-delete", test_npc_bark_cancel_delete);
  g_test_add_func ("/oam/npc/restore", test_npc_restore);
  g_test_add_func ("/oam/decision/decide/actor-npc", test_decide_as_npc);
  g_test_add_func ("/oam/npc/state-restore", test_npc_state_restore);
  g_test_add_func ("/oam/limits/config", test_limits_from_config);
  g_test_add_func ("/oam/npc/client-tool", test_npc_client_tool);
  g_test_add_func ("/oam/npc/background-compaction", test_npc_compaction);
  g_test_add_func ("/oam/decision/decideMany/tool-call", test_decide_many_tool_call);
  return g_test_run ();
}
