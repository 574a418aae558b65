/* test-mcp-sdk.c: the official MCP TypeScript SDK client (mcp-sdk/client.mjs)
 * against our stdio server (mcp-sdk-server). Skipped (77) without node or
 * without the SDK installed (`npm ci` in tests/gamebridge/mcp-sdk). Under
 * GAMEGATE_TEST_WRAPPER (valgrind) the server runs wrapped.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gamegate.h>

#include "mcp-sdk-runner.h"

int
main (int argc, char **argv)
{
  const char *server[] = { MCP_SDK_SERVER, NULL };
  g_autoptr(JsonNode) root = NULL;
  JsonArray *tools, *progress;

  if (!mcp_sdk_available ())
    return 77;

  root = mcp_sdk_run ("client.mjs", server, NULL, 100000);
  g_assert_cmpstr (json_node_get_string (mcp_sdk_member (root, "server.name")), ==, "gamegate-sdk-test-server");
  g_assert_true (json_node_get_boolean (mcp_sdk_member (root, "capabilities.tools.listChanged")));
  g_assert_cmpstr (json_node_get_string (mcp_sdk_member (root, "instructions")), ==, "Tools for the SDK test.");
  tools = json_node_get_array (mcp_sdk_member (root, "tools"));
  g_assert_cmpuint (json_array_get_length (tools), ==, 4);
  g_assert_cmpstr (json_array_get_string_element (tools, 0), ==, "echo");
  g_assert_cmpstr (json_node_get_string (mcp_sdk_member (root, "echo.hello")), ==, "world");
  g_assert_true (json_node_get_boolean (mcp_sdk_member (root, "failIsError")));
  /* Every report reached the SDK; how many got to the callback depends on
   * how the SDK's reads fall (see client.mjs), but they come in order. */
  g_assert_cmpint (json_node_get_int (mcp_sdk_member (root, "progressReceived")), ==, 3);
  progress = json_node_get_array (mcp_sdk_member (root, "progress"));
  for (guint i = 0; i < json_array_get_length (progress); i++)
    g_assert_cmpfloat (json_array_get_double_element (progress, i), ==,
                       i + 1);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (mcp_sdk_member (root, "errors"))), ==, 0);
  g_assert_cmpint (json_node_get_int (mcp_sdk_member (root, "unknownTool")), ==, -32602);
  return 0;
}
