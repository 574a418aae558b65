/* test-gb-not-a-game.c: a port where something that is not a game answers
 * (a web server's 404 pages) is NotAGameSurface with what /health returned,
 * through `gamegate mcp` over pipes, whichever endpoint the call reached
 * first (/command, /state, /tools); a game that answers /health but whose
 * /command is broken still gets HttpStatusError.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-mcp-client.h"
#include "gg-test-server.h"

#define SERVER GG_TEST_SRCDIR "/gamebridge/not-a-game-server.py"

/* SERVER in @mode, on a port it chose. */
static GgTestServer *
server_start (const char *mode)
{
  return gg_test_server_start ((const char *[]) { "python3", SERVER, mode, NULL }, NULL, NULL);
}

static char *
not_a_game (guint port)
{
  return g_strdup_printf ("NotAGameSurface: Something is listening on http://127.0.0.1:%u, but it is not a\n"
                          "debuggable game: GET /health returned HTTP 404.\n"
                          "A drivable game must answer GET /health with {\"ok\":true,\"frame\":N}. Check whether\n"
                          "another process has taken this port.", port);
}

static char *
call_error (Mcp        *mcp,
            const char *tool,
            guint       port,
            const char *rest)
{
  g_autofree char *args = g_strdup_printf ("{\"port\":%u%s}", port, rest);

  return mcp_call_error (mcp, tool, args);
}

static void
test_web_server (void)
{
  g_autoptr(GgTestServer) server = server_start ("web");
  const char *args[] = { "--no-scan", "--no-registry", NULL };
  g_autoptr(Mcp) mcp = mcp_start (args, NULL);
  g_autofree char *expected = not_a_game (server->port);
  g_autofree char *command = NULL;
  g_autofree char *raw = NULL;
  g_autofree char *state = NULL;
  g_autofree char *toolsets = NULL;

  /* A game name: the manifest (/tools 404) then passthrough (/command 404). */
  command = call_error (mcp, "call_tool", server->port, ",\"name\":\"spawn\",\"arguments\":{\"kind\":\"ice\"}");
  g_assert_cmpstr (command, ==, expected);
  raw = call_error (mcp, "call_tool", server->port, ",\"name\":\"raw_command\",\"arguments\":{\"cmd\":\"spawn\"}");
  g_assert_cmpstr (raw, ==, expected);
  state = call_error (mcp, "call_tool", server->port, ",\"name\":\"get_state\"");
  g_assert_cmpstr (state, ==, expected);
  toolsets = call_error (mcp, "list_toolsets", server->port, "");
  g_assert_cmpstr (toolsets, ==, expected);
}

static void
test_broken_command (void)
{
  g_autoptr(GgTestServer) server = server_start ("health-only");
  const char *args[] = { "--no-scan", "--no-registry", NULL };
  g_autoptr(Mcp) mcp = mcp_start (args, NULL);
  g_autofree char *command = call_error (mcp, "call_tool", server->port,
                                         ",\"name\":\"raw_command\",\"arguments\":{\"cmd\":\"spawn\"}");
  g_autofree char *prefix = g_strdup_printf ("HttpStatusError: GET /command on http://127.0.0.1:%u returned HTTP 404",
                                             server->port);

  g_assert_true (g_str_has_prefix (command, prefix));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gamebridge/not-a-game/web-server", test_web_server);
  g_test_add_func ("/gamebridge/not-a-game/broken-command", test_broken_command);
  return g_test_run ();
}
