/* test-mcp-sdk.c: the official MCP TypeScript SDK client (mcp-sdk/client.mjs)
 * against our stdio server (mcp-sdk-server). Skipped (77) without node or
 * without the SDK installed (`npm ci` in tests/gamebridge/mcp-sdk). Under
 * GAMEGATE_TEST_WRAPPER (valgrind) the server runs wrapped.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gamegate.h>

static gboolean
timeout_cb (gpointer user_data)
{
  g_subprocess_force_exit (user_data);
  return G_SOURCE_REMOVE;
}

static void
communicate_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static JsonNode *
member (JsonNode   *root,
        const char *path)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = gg_json_path_get (root, path, &error);

  if (node == NULL)
    g_error ("%s: %s", path, error->message);
  return node;
}

int
main (int argc, char **argv)
{
  g_autofree char *node = g_find_program_in_path ("node");
  g_autofree char *sdk = g_build_filename (MCP_SDK_DIR, "node_modules", "@modelcontextprotocol",
                                           "sdk", "package.json", NULL);
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GBytes) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_auto(GStrv) wrapper = NULL;
  const char *wrap = g_getenv ("GAMEGATE_TEST_WRAPPER");
  JsonArray *tools, *progress;
  guint timeout_id;

  if (node == NULL || !g_file_test (sdk, G_FILE_TEST_EXISTS))
    {
      g_print ("SKIP: node or the MCP SDK (npm ci in %s) is missing\n", MCP_SDK_DIR);
      return 77;
    }

  g_ptr_array_add (args, node);
  g_ptr_array_add (args, "client.mjs");
  if (wrap != NULL && *wrap != '\0')
    {
      wrapper = g_strsplit (wrap, " ", -1);
      for (char **w = wrapper; *w != NULL; w++)
        if (**w != '\0')
          g_ptr_array_add (args, *w);
    }
  g_ptr_array_add (args, MCP_SDK_SERVER);
  g_ptr_array_add (args, NULL);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_set_cwd (launcher, MCP_SDK_DIR);
  child = g_subprocess_launcher_spawnv (launcher, (const char * const *) args->pdata, &error);
  g_assert_no_error (error);
  timeout_id = g_timeout_add_seconds (100, timeout_cb, child);
  g_subprocess_communicate_async (child, NULL, NULL, communicate_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout_id);
  g_subprocess_communicate_finish (child, result, &out, NULL, &error);
  g_assert_no_error (error);
  g_subprocess_wait (child, NULL, &error);
  g_assert_no_error (error);
  if (!g_subprocess_get_if_exited (child) || g_subprocess_get_exit_status (child) != 0)
    g_error ("node client.mjs failed: %.*s", (int) g_bytes_get_size (out),
             (const char *) g_bytes_get_data (out, NULL));

  g_print ("%.*s", (int) g_bytes_get_size (out), (const char *) g_bytes_get_data (out, NULL));
  root = gg_json_parse (g_bytes_get_data (out, NULL), (gssize) g_bytes_get_size (out), 64, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_node_get_string (member (root, "server.name")), ==, "gamegate-sdk-test-server");
  g_assert_true (json_node_get_boolean (member (root, "capabilities.tools.listChanged")));
  g_assert_cmpstr (json_node_get_string (member (root, "instructions")), ==, "Tools for the SDK test.");
  tools = json_node_get_array (member (root, "tools"));
  g_assert_cmpuint (json_array_get_length (tools), ==, 4);
  g_assert_cmpstr (json_array_get_string_element (tools, 0), ==, "echo");
  g_assert_cmpstr (json_node_get_string (member (root, "echo.hello")), ==, "world");
  g_assert_true (json_node_get_boolean (member (root, "failIsError")));
  /* Every report reached the SDK; how many got to the callback depends on
   * how the SDK's reads fall (see client.mjs), but they come in order. */
  g_assert_cmpint (json_node_get_int (member (root, "progressReceived")), ==, 3);
  progress = json_node_get_array (member (root, "progress"));
  for (guint i = 0; i < json_array_get_length (progress); i++)
    g_assert_cmpfloat (json_array_get_double_element (progress, i), ==,
                       i + 1);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (member (root, "errors"))), ==, 0);
  g_assert_cmpint (json_node_get_int (member (root, "unknownTool")), ==, -32602);
  return 0;
}
