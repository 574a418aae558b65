/* test-oam-targets.c: an engine's sessions and NPCs using games on the bus
 * as their tool source (the gamegate extension of plugins/oam/README.md).
 *
 * The reference GABP mod runs as a separate process that `gamegate oam`
 * connects to from its `[gabp]` configuration; the reference HTTP game is
 * put on the bus of `gamegate serve` by `[gamebridge] ports`, and a client
 * talks oam to the daemon's Unix socket. Every message is compared as
 * exact JSON.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "gg-test-line-client.h"
#include "gg-test-server.h"
#include "oam-test.h"
#include "refgame-driver.h"

#define MOD_EXE GG_TOP_BUILDDIR "/tests/gabp-mod/gabp-mod"
#define MOD_TOKEN "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* ---- the reference mod, started by hand ---------------------------------- */

typedef struct {
  GgTestServer *mod;
  char *dir;
  char *config;
  char *config_env;
} ModFixture;

static void
mod_setup (ModFixture    *f,
           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  f->mod = gg_test_server_start ((const char *[]) { MOD_EXE, NULL },
                                 (const char *[]) { "GABP_SERVER_PORT=0", "GABP_TOKEN=" MOD_TOKEN, NULL },
                                 "GABP_SERVER_PORT=");
  f->dir = g_dir_make_tmp ("gg-oam-targets-XXXXXX", &error);
  g_assert_no_error (error);
  f->config = g_build_filename (f->dir, "gamegate.conf", NULL);
  text = g_strdup_printf ("[gabp]\nmods=shop\nserver=false\nbridge-file=\n"
                          "shop.host=127.0.0.1\nshop.port=%u\nshop.token=%s\n"
                          "shop.backoff-initial-ms=20\nshop.backoff-max-ms=200\n",
                          f->mod->port, MOD_TOKEN);
  g_assert_true (g_file_set_contents (f->config, text, -1, NULL));
  f->config_env = g_strdup_printf ("GAMEGATE_CONFIG=%s", f->config);
}

static void
mod_teardown (ModFixture    *f,
              gconstpointer  data)
{
  g_clear_pointer (&f->mod, gg_test_server_free);
  g_unlink (f->config);
  g_rmdir (f->dir);
  g_free (f->config);
  g_free (f->config_env);
  g_free (f->dir);
}

static OamClient *
start_oam (ModFixture *f)
{
  const char *env[] = { f->config_env, NULL };

  return oam_client_new (NULL, env);
}

/* Asks tools/validate until the mod is on the bus (it connects in the
 * background), with request ids from 900 up. */
static void
wait_for_shop (OamClient *client)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (15000) * 1000;

  for (guint id = 900;; id++)
    {
      g_autofree char *request = g_strdup_printf (
        "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"tools/validate\",\"params\":{\"tools\":[{\"name\":\"t\","
        "\"description\":\"d\",\"execution\":\"target\",\"target\":\"gabp:shop\",\"tool\":\"world/get_time\"}]}}",
        id);
      g_autofree char *line = NULL;

      oam_send (client, request);
      line = oam_recv (client);
      if (strstr (line, "\"warnings\":[],\"generationSchema\"") != NULL)
        {
          g_autofree char *expected = g_strdup_printf (
            "{\"jsonrpc\":\"2.0\",\"id\":%u,\"result\":{\"tools\":[{\"name\":\"t\",\"warnings\":[],"
            "\"generationSchema\":{\"type\":\"object\",\"properties\":{}}}],\"warnings\":[]}}", id);
          g_assert_cmpstr (line, ==, expected);
          return;
        }
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_usleep (50 * 1000);
    }
}

#define MOVE_TOOL \
  "{\"name\":\"move\",\"description\":\"Moves the player.\",\"execution\":\"target\",\"target\":\"gabp:shop\"," \
  "\"tool\":\"player/move\",\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\"}," \
  "\"y\":{\"type\":\"integer\"}},\"required\":[\"x\",\"y\"]}}"
#define GATE_TOOL \
  "{\"name\":\"open_gate\",\"description\":\"Opens a gate.\",\"parameters\":{\"type\":\"object\"," \
  "\"properties\":{\"gate\":{\"type\":\"string\"}}}}"

/* tools/validate: a good target tool, one the target lacks, one whose
 * target is not on the bus, and a malformed definition. */
static void
test_validate (ModFixture    *f,
               gconstpointer  data)
{
  g_autoptr(OamClient) client = start_oam (f);

  wait_for_shop (client);
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/validate\",\"params\":{\"tools\":[" MOVE_TOOL ","
                    "{\"name\":\"sell\",\"description\":\"Sells.\",\"execution\":\"target\",\"target\":\"gabp:shop\"},"
                    "{\"name\":\"open\",\"description\":\"Opens.\",\"execution\":\"target\",\"target\":\"gabp:gone\",\"tool\":\"door/open\"}]}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":["
                      "{\"name\":\"move\",\"warnings\":[],\"generationSchema\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\"},\"y\":{\"type\":\"integer\"}},\"required\":[\"x\",\"y\"]}},"
                      "{\"name\":\"sell\",\"warnings\":[\"gabp:shop has no tool 'sell'\"],\"generationSchema\":{\"type\":\"object\",\"properties\":{}}},"
                      "{\"name\":\"open\",\"warnings\":[\"gabp:gone is not on the bus yet; calls fail until it is\"],\"generationSchema\":{\"type\":\"object\",\"properties\":{}}}],"
                      "\"warnings\":[]}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/validate\",\"params\":{\"tools\":[{\"name\":\"x\",\"execution\":\"target\"}]}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'tools[0].target' is required\",\"data\":{\"code\":\"invalid_params\"}}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/validate\",\"params\":{\"tools\":[{\"name\":\"x\",\"execution\":\"server\"}]}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'tools[0].execution' must be \\\"client\\\" or \\\"target\\\"\",\"data\":{\"code\":\"invalid_params\"}}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\",\"params\":{}}");
  {
    g_autofree char *line = oam_recv (client);
    g_assert_nonnull (strstr (line, ",\"batch\":false,\"extensions\":{\"gamegate\":{\"targetTools\":true}}},"));
  }
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

/* A target tool and a client tool in one model step run in parallel: the
 * game answers while the client's tool/call is still open. */
static void
test_parallel_with_client_tool (ModFixture    *f,
                                gconstpointer  data)
{
  g_autoptr(OamClient) client = start_oam (f);

  wait_for_shop (client);
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"guard\","
                    "\"tools\":[" MOVE_TOOL "," GATE_TOOL "]," OAM_SCRIPT ("[{\"toolCalls\":[{\"name\":\"move\",\"arguments\":{\"x\":3,\"y\":4},\"id\":\"c1\"},"
                    "{\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"},\"id\":\"c2\"}]},{\"template\":\"{toolOutputs}\"}]") "}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"session\":\"guard\",\"warnings\":[]}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"guard\",\"prompt\":\"Go.\",\"stream\":true}}");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"guard\",\"requestId\":2,\"event\":{\"type\":\"modelStep\"");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"guard\",\"requestId\":2,\"event\":{\"type\":\"toolCallStarted\",\"call\":{\"id\":\"c1\",\"name\":\"move\",\"arguments\":{\"x\":3,\"y\":4}},\"execution\":\"target\",\"target\":\"gabp:shop\"}}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"guard\",\"requestId\":2,\"event\":{\"type\":\"toolCallStarted\",\"call\":{\"id\":\"c2\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}},\"execution\":\"client\"}}}");
  /* Only the client tool reaches the client. */
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"method\":\"tool/call\",\"params\":{\"session\":\"guard\",\"requestId\":2,\"call\":{\"id\":\"c2\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}}}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"guard\",\"requestId\":2,\"event\":{\"type\":\"toolCallCompleted\",\"record\":{\"call\":{\"id\":\"c1\",\"name\":\"move\",\"arguments\":{\"x\":3,\"y\":4}},\"output\":{\"position\":{\"x\":3,\"y\":4}},\"isError\":false,\"durationSeconds\":0}}}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"result\":{\"output\":\"The gate opened.\"}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"guard\",\"requestId\":2,\"event\":{\"type\":\"toolCallCompleted\",\"record\":{\"call\":{\"id\":\"c2\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}},\"output\":\"The gate opened.\",\"isError\":false,\"durationSeconds\":0}}}}");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"guard\",\"requestId\":2,\"event\":{\"type\":\"modelStep\"");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"guard\",\"requestId\":2,\"event\":{\"type\":\"text\",\"delta\":\"{\\\"position\\\":{\\\"x\\\":3,\\\"y\\\":4}}\\nThe gate opened.\",\"text\":\"{\\\"position\\\":{\\\"x\\\":3,\\\"y\\\":4}}\\nThe gate opened.\",\"isReset\":false}}}");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"session\":\"guard\",\"text\":\"{\\\"position\\\":{\\\"x\\\":3,\\\"y\\\":4}}\\nThe gate opened.\",\"toolCalls\":[{\"call\":{\"id\":\"c1\",\"name\":\"move\",\"arguments\":{\"x\":3,\"y\":4}},\"output\":{\"position\":{\"x\":3,\"y\":4}},\"isError\":false,\"durationSeconds\":0},{\"call\":{\"id\":\"c2\",\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}},\"output\":\"The gate opened.\",\"isError\":false,\"durationSeconds\":0}],");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

/* options.targets offers the listed tools under oam names; the forced
 * tool is one of them; a target not on the bus offers nothing and the
 * turn says so. */
static void
test_targets_option (ModFixture    *f,
                     gconstpointer  data)
{
  g_autoptr(OamClient) client = start_oam (f);

  wait_for_shop (client);
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"clock\","
                    "\"options\":{\"toolChoice\":{\"tool\":\"world.get_time\"},\"targets\":[{\"target\":\"gabp:shop\",\"tools\":[\"world/get_time\",\"no/such\"]},{\"target\":\"gabp:gone\"}]},"
                    OAM_SCRIPT ("[{\"toolCalls\":[{\"name\":\"world.get_time\",\"arguments\":{},\"id\":\"g1\"}]},{\"template\":\"Tick: {toolOutput}\"}]") "}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"session\":\"clock\",\"warnings\":[]}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"clock\",\"prompt\":\"Time?\"}}");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"session\":\"clock\",\"text\":\"Tick: {\\\"tick\\\":0}\",\"toolCalls\":[{\"call\":{\"id\":\"g1\",\"name\":\"world.get_time\",\"arguments\":{}},\"output\":{\"tick\":0},\"isError\":false,\"durationSeconds\":0}],");
  /* A forced tool no target may offer is refused at once. */
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/create\",\"params\":{\"options\":{\"toolChoice\":{\"tool\":\"ghost\"},\"targets\":[{\"target\":\"gabp:shop\",\"tools\":[\"world/get_time\"]}]}}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'options.toolChoice': the session has no tool 'ghost'\",\"data\":{\"code\":\"invalid_params\"}}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"session/create\",\"params\":{\"options\":{\"targets\":[{\"tools\":[]}]}}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'options.targets[0].target' is required\",\"data\":{\"code\":\"invalid_params\"}}}");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

/* A target tool that outlives its timeout, then a game that dies in the
 * middle of a call: both are tool errors the model sees, not failed
 * turns. */
static void
test_timeout_and_death (ModFixture    *f,
                        gconstpointer  data)
{
  g_autoptr(OamClient) client = start_oam (f);

  wait_for_shop (client);
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"s\","
                    "\"tools\":[{\"name\":\"slow\",\"description\":\"Slow.\",\"execution\":\"target\",\"target\":\"gabp:shop\",\"tool\":\"game/slow\",\"timeoutSeconds\":0.2},"
                    "{\"name\":\"hold\",\"description\":\"Holds.\",\"execution\":\"target\",\"target\":\"gabp:shop\",\"tool\":\"game/hold\"}],"
                    OAM_SCRIPT ("[{\"toolCalls\":[{\"name\":\"slow\",\"arguments\":{\"ms\":5000},\"id\":\"s1\"}]},{\"template\":\"{toolOutput}\"},"
                                "{\"toolCalls\":[{\"name\":\"hold\",\"arguments\":{},\"id\":\"h1\"}]},{\"template\":\"{toolOutput}\"}]") "}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"session\":\"s\",\"warnings\":[]}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"s\",\"prompt\":\"Wait.\"}}");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"session\":\"s\",\"text\":\"Error: Tool 'slow' timed out after 0.2s.\",\"toolCalls\":[{\"call\":{\"id\":\"s1\",\"name\":\"slow\",\"arguments\":{\"ms\":5000}},\"output\":\"Tool 'slow' timed out after 0.2s.\",\"isError\":true,");

  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/respond\",\"params\":{\"session\":\"s\",\"prompt\":\"Hold.\",\"stream\":true}}");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"s\",\"requestId\":3,\"event\":{\"type\":\"modelStep\"");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"s\",\"requestId\":3,\"event\":{\"type\":\"toolCallStarted\",\"call\":{\"id\":\"h1\",\"name\":\"hold\",\"arguments\":{}},\"execution\":\"target\",\"target\":\"gabp:shop\"}}}");
  g_usleep (100 * 1000);
  gg_test_server_kill (f->mod);
  {
    g_autofree char *line = oam_recv (client);

    g_assert_true (g_str_has_prefix (line, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"s\",\"requestId\":3,\"event\":{\"type\":\"toolCallCompleted\",\"record\":{\"call\":{\"id\":\"h1\",\"name\":\"hold\",\"arguments\":{}},\"output\":\"gabp:shop: "));
    g_assert_nonnull (strstr (line, "\",\"isError\":true,\"durationSeconds\":0}}}}"));
  }
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"s\",\"requestId\":3,\"event\":{\"type\":\"modelStep\"");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"method\":\"session/event\",\"params\":{\"session\":\"s\",\"requestId\":3,\"event\":{\"type\":\"text\",\"delta\":\"Error: gabp:shop: ");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"session\":\"s\",\"text\":\"Error: gabp:shop: ");
  /* With the game gone, a call says so (the bridge retries in the
   * background; the target stays on the bus while it does). */
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"session/create\",\"params\":{\"session\":\"s2\","
                    "\"tools\":[{\"name\":\"hold\",\"description\":\"Holds.\",\"execution\":\"target\",\"target\":\"gabp:shop\",\"tool\":\"game/hold\"}],"
                    OAM_SCRIPT ("[{\"toolCalls\":[{\"name\":\"hold\",\"arguments\":{},\"id\":\"h2\"}]},{\"template\":\"{toolOutput}\"}]") "}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"session\":\"s2\",\"warnings\":[]}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"session/respond\",\"params\":{\"session\":\"s2\",\"prompt\":\"Again.\"}}");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"session\":\"s2\",\"text\":\"Error: gabp:shop: game/hold: the mod is not connected (");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

/* An NPC grounded on the mod's tool: the forced first call reads the game,
 * and the NPC answers from it. */
static void
test_npc_grounded (ModFixture    *f,
                   gconstpointer  data)
{
  g_autoptr(OamClient) client = start_oam (f);

  wait_for_shop (client);
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"npc/create\",\"params\":{\"npc\":\"clerk\",\"persona\":{\"name\":\"Ada\",\"role\":\"the station clerk\"},"
                    "\"tools\":[{\"name\":\"get_time\",\"description\":\"The station clock.\",\"execution\":\"target\",\"target\":\"gabp:shop\",\"tool\":\"world/get_time\"}],"
                    "\"options\":{\"groundingTool\":\"get_time\",\"replyFormat\":\"text\"},"
                    OAM_SCRIPT ("[{\"toolCalls\":[{\"name\":\"get_time\",\"arguments\":{},\"id\":\"g1\"}]},{\"template\":\"[neutral] It is tick {toolOutput}.\"}]") "}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"npc\":\"clerk\",\"tools\":[\"get_time\"],\"warnings\":[]}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"npc/talk\",\"params\":{\"npc\":\"clerk\",\"line\":\"What time is it?\",\"stream\":true}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"clerk\",\"requestId\":2,\"event\":{\"type\":\"toolCallStarted\",\"call\":{\"id\":\"g1\",\"name\":\"get_time\",\"arguments\":{}},\"execution\":\"target\",\"target\":\"gabp:shop\"}}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"clerk\",\"requestId\":2,\"event\":{\"type\":\"toolCallCompleted\",\"record\":{\"call\":{\"id\":\"g1\",\"name\":\"get_time\",\"arguments\":{}},\"output\":{\"tick\":0},\"isError\":false,\"durationSeconds\":0}}}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"clerk\",\"requestId\":2,\"event\":{\"type\":\"emotion\",\"emotion\":\"neutral\"}}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"method\":\"npc/event\",\"params\":{\"npc\":\"clerk\",\"requestId\":2,\"event\":{\"type\":\"lineDelta\",\"delta\":\"It is tick {\\\"tick\\\":0}.\"}}}");
  oam_expect_prefix (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"npc\":\"clerk\",\"line\":\"It is tick {\\\"tick\\\":0}.\",\"emotion\":\"neutral\",\"playerOptions\":[],\"endsConversation\":false,\"toolCalls\":[{\"call\":{\"id\":\"g1\",\"name\":\"get_time\",\"arguments\":{}},\"output\":{\"tick\":0},\"isError\":false,\"durationSeconds\":0}],");

  /* The same through the NPC's targets option: the mod's tool under its
   * oam name, grounded on; a target that is gone is only a warning. */
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"npc/create\",\"params\":{\"npc\":\"pilot\",\"persona\":{\"name\":\"Bo\",\"role\":\"a pilot\"},"
                    "\"options\":{\"groundingTool\":\"world.get_time\",\"replyFormat\":\"text\",\"targets\":[{\"target\":\"gabp:shop\",\"tools\":[\"world/get_time\"]},{\"target\":\"gabp:gone\"}]},"
                    OAM_SCRIPT ("[{\"toolCalls\":[{\"name\":\"world.get_time\",\"arguments\":{},\"id\":\"p1\"}]},{\"template\":\"[neutral] Tick {toolOutput}.\"}]") "}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"npc\":\"pilot\",\"tools\":[],\"warnings\":[]}}");
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"npc/talk\",\"params\":{\"npc\":\"pilot\",\"line\":\"Time?\"}}");
  {
    g_autofree char *line = oam_recv (client);

    g_assert_true (g_str_has_prefix (line, "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"npc\":\"pilot\",\"line\":\"Tick {\\\"tick\\\":0}.\",\"emotion\":\"neutral\",\"playerOptions\":[],\"endsConversation\":false,\"toolCalls\":[{\"call\":{\"id\":\"p1\",\"name\":\"world.get_time\",\"arguments\":{}},\"output\":{\"tick\":0},\"isError\":false,\"durationSeconds\":0}],"));
    g_assert_true (g_str_has_suffix (line, ",\"warnings\":[\"options.targets[1]: gabp:gone is not on the bus; its tools are not offered\"]}}"));
  }
  /* A grounding tool no target may offer is refused at once. */
  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"npc/create\",\"params\":{\"npc\":\"ghost\",\"persona\":{\"name\":\"G\"},"
                    "\"options\":{\"groundingTool\":\"nope\",\"targets\":[{\"target\":\"gabp:shop\",\"tools\":[\"world/get_time\"]}]}}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32602,\"message\":\"Invalid params: 'options.groundingTool': the NPC has no tool 'nope'\",\"data\":{\"code\":\"invalid_params\"}}}");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

/* ---- the reference HTTP game through the daemon -------------------------- */

/* The daemon's oam socket, through tests/common/gg-test-line-client. */
static char *
socket_recv (GgTestLineClient *client)
{
  g_autofree char *line = gg_test_line_client_recv (client);

  return oam_normalize (line);
}

/* An agent session sets the reference game's score through the bus; the
 * game's own /state shows it. */
static void
test_http_game (void)
{
  g_autoptr(Game) game = game_spawn (NULL, NULL);
  g_autofree char *dir = g_dir_make_tmp ("gg-oam-targets-XXXXXX", NULL);
  g_autofree char *config = g_build_filename (dir, "gamegate.conf", NULL);
  g_autofree char *socket_path = g_build_filename (dir, "oam.sock", NULL);
  g_autofree char *text = g_strdup_printf ("[gamebridge]\nports=%u\n[oam]\nsocket=%s\n[gabp]\nserver=false\n",
                                           game->port, socket_path);
  const char *args[] = { "--config", config, "serve", NULL };
  g_autoptr(GgTestProcess) daemon = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) state = NULL;
  g_autofree char *request = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *target = g_strdup_printf ("http:%u", game->port);
  GgTestLineClient *client;
  gint64 deadline;
  int status = -1;

  g_assert_true (g_file_set_contents (config, text, -1, NULL));
  daemon = gg_test_process_spawn (args, NULL, &error);
  g_assert_no_error (error);
  client = gg_test_line_client_connect (socket_path);

  /* The game is put on the bus as the daemon starts. */
  deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (15000) * 1000;
  for (guint id = 900;; id++)
    {
      g_autofree char *line = NULL;

      g_free (request);
      request = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"tools/validate\",\"params\":{\"tools\":"
                                 "[{\"name\":\"set_score\",\"description\":\"d\",\"execution\":\"target\",\"target\":\"%s\"}]}}",
                                 id, target);
      gg_test_line_client_send (client, request);
      line = socket_recv (client);
      if (strstr (line, "\"warnings\":[],\"generationSchema\"") != NULL)
        break;
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_usleep (50 * 1000);
    }

  g_free (request);
  request = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"agent\","
                             "\"options\":{\"targets\":[{\"target\":\"%s\",\"tools\":[\"set_score\"]}]},"
                             OAM_SCRIPT ("[{\"toolCalls\":[{\"name\":\"set_score\",\"arguments\":{\"score\":4242},\"id\":\"k1\"}]},{\"text\":\"Done.\"}]") "}}",
                             target);
  gg_test_line_client_send (client, request);
  {
    g_autofree char *line = socket_recv (client);

    g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"session\":\"agent\",\"warnings\":[]}}");
  }
  gg_test_line_client_send (client, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"agent\",\"prompt\":\"Score!\"}}");
  {
    g_autofree char *line = socket_recv (client);

    g_assert_true (g_str_has_prefix (line, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"session\":\"agent\",\"text\":\"Done.\",\"toolCalls\":[{\"call\":{\"id\":\"k1\",\"name\":\"set_score\",\"arguments\":{\"score\":4242}},\"output\":"));
    g_assert_nonnull (strstr (line, "\"isError\":false,"));
  }
  /* The game applies commands on its own thread. */
  deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (10000) * 1000;
  for (;;)
    {
      g_clear_pointer (&state, json_object_unref);
      state = get_object (game, "/state", 200);
      if (json_object_get_int_member (game_object (state), "score") == 4242)
        break;
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      pump (20);
    }

  gg_test_line_client_free (client);
  gg_test_process_send_signal (daemon, SIGTERM);
  g_assert_true (gg_test_process_wait (daemon, gg_test_timeout_ms (20000), &status));
  g_assert_cmpint (status, ==, 0);
  g_unlink (config);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/oam/targets/validate", ModFixture, NULL, mod_setup, test_validate, mod_teardown);
  g_test_add ("/oam/targets/parallel-with-client-tool", ModFixture, NULL, mod_setup,
              test_parallel_with_client_tool, mod_teardown);
  g_test_add ("/oam/targets/option", ModFixture, NULL, mod_setup, test_targets_option, mod_teardown);
  g_test_add ("/oam/targets/timeout-and-death", ModFixture, NULL, mod_setup, test_timeout_and_death,
              mod_teardown);
  g_test_add ("/oam/targets/npc-grounded", ModFixture, NULL, mod_setup, test_npc_grounded, mod_teardown);
  g_test_add_func ("/oam/targets/http-game", test_http_game);
  return g_test_run ();
}
