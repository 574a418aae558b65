/* mcp-sdk-server.c: the MCP server on this process's stdin/stdout with the
 * test provider, for the official SDK client (mcp-sdk/client.mjs). Exits
 * when the client closes stdin.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>

#include "gb-mcp-server.h"
#include "mcp-fake-provider.h"

static void
on_gone (GbMcpServer *server,
         gpointer     user_data)
{
  g_main_loop_quit (user_data);
}

int
main (int argc, char **argv)
{
  FakeProvider fake = { .n_tools = FAKE_PROVIDER_FIXED_TOOLS };
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GInputStream) in = g_unix_input_stream_new (0, FALSE);
  g_autoptr(GOutputStream) out = g_unix_output_stream_new (1, FALSE);
  g_autoptr(GIOStream) io = g_simple_io_stream_new (in, out);
  g_autoptr(GbMcpServer) server =
    gb_mcp_server_new ("gamegate-sdk-test-server", "0.1.0", "Tools for the SDK test.",
                       &fake_provider_vtable, &fake);

  g_signal_connect (server, "client-gone", G_CALLBACK (on_gone), loop);
  gb_mcp_server_serve_stdio (server, io);
  g_main_loop_run (loop);
  gb_mcp_server_close (server);
  /* Let the close reach the streams. */
  while (!g_io_stream_is_closed (io))
    g_main_context_iteration (NULL, TRUE);
  return 0;
}
