/* test-mcp-inspector.c: the MCP Inspector's CLI (`mcp-inspector --cli`,
 * npm @modelcontextprotocol/inspector in mcp-sdk/) reading a screenshot of
 * the reference game from the built `gamegate mcp`: once as the screenshot
 * tool through call_tool, once as the resource game://PORT/screenshot. The
 * Inspector prints what it got; the PNG is byte for byte what the game
 * serves and shows the crate where the state says. The game and gamegate
 * run natively (the Inspector cannot take a wrapper command). Skipped (77)
 * without node or the Inspector installed (`npm ci` in mcp-sdk/).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-bridge-test.h"
#include "png-decoder.h"

#define INSPECTOR MCP_SDK_DIR "/node_modules/@modelcontextprotocol/inspector/cli/build/cli.js"
#define WOOD      0xb07a40

/* `node cli.js --cli gamegate mcp --no-scan @rest...`: its output, parsed. */
static JsonNode *
inspector (const char * const *rest)
{
  const char *bin = g_getenv ("GAMEGATE_BIN");
  g_autofree char *node = g_find_program_in_path ("node");
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  JsonNode *root;

  g_ptr_array_add (args, node);
  g_ptr_array_add (args, (gpointer) INSPECTOR);
  g_ptr_array_add (args, (gpointer) "--cli");
  g_ptr_array_add (args, (gpointer) (bin != NULL && *bin != '\0' ? bin : GG_TOP_BUILDDIR "/gateway/gamegate"));
  g_ptr_array_add (args, (gpointer) "mcp");
  g_ptr_array_add (args, (gpointer) "--no-scan");
  for (guint i = 0; rest[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) rest[i]);
  g_ptr_array_add (args, NULL);
  g_subprocess_launcher_set_cwd (launcher, MCP_SDK_DIR);
  g_subprocess_launcher_unsetenv (launcher, "GAME_BRIDGE_PORT");
  child = g_subprocess_launcher_spawnv (launcher, (const char * const *) args->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (child, NULL, NULL, &out, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (child));
  g_assert_cmpint (g_subprocess_get_exit_status (child), ==, 0);
  root = gg_json_parse (out, -1, 64, &error);
  g_assert_no_error (error);
  return root;
}

static GBytes *
base64_at (JsonNode   *root,
           const char *path)
{
  JsonNode *node = gg_json_path_get (root, path, NULL);
  guchar *data;
  gsize length;

  g_assert_nonnull (node);
  data = g_base64_decode (json_node_get_string (node), &length);
  return g_bytes_new_take (data, length);
}

int
main (int argc, char **argv)
{
  g_autofree char *node = g_find_program_in_path ("node");
  g_autoptr(Game) game = NULL;
  g_autoptr(JsonObject) state = NULL;
  g_autoptr(JsonNode) called = NULL;
  g_autoptr(JsonNode) read = NULL;
  g_autoptr(GBytes) tool_png = NULL;
  g_autoptr(GBytes) resource_png = NULL;
  g_autoptr(GBytes) served = NULL;
  g_autoptr(PngImage) image = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *port_arg = NULL;
  g_autofree char *uri = NULL;
  guint status = 0, x, y;
  gsize length;
  const guint8 *data;

  g_test_init (&argc, &argv, NULL);
  if (node == NULL || !g_file_test (INSPECTOR, G_FILE_TEST_EXISTS))
    {
      g_print ("SKIP: node or the MCP Inspector (npm ci in %s) is missing\n", MCP_SDK_DIR);
      return 77;
    }
  game = game_spawn ("--no-registry", NULL);
  command_and_wait (game, "cmd=spawn&kind=wood");
  state = wait_applied (game, command_and_wait (game, "cmd=drop&x=0.7"));
  port_arg = g_strdup_printf ("port=%u", game->port);
  uri = g_strdup_printf ("game://%u/screenshot", game->port);

  called = inspector ((const char *[]) { "--method", "tools/call", "--tool-name", "call_tool",
                                         "--tool-arg", "name=screenshot", "--tool-arg", port_arg, NULL });
  read = inspector ((const char *[]) { "--method", "resources/read", "--uri", uri, NULL });

  g_assert_cmpstr (json_node_get_string (gg_json_path_get (called, "content.1.type", NULL)), ==, "image");
  g_assert_cmpstr (json_node_get_string (gg_json_path_get (called, "content.1.mimeType", NULL)), ==, "image/png");
  g_assert_cmpstr (json_node_get_string (gg_json_path_get (read, "contents.0.uri", NULL)), ==, uri);
  g_assert_cmpstr (json_node_get_string (gg_json_path_get (read, "contents.0.mimeType", NULL)), ==, "image/png");
  tool_png = base64_at (called, "content.1.data");
  resource_png = base64_at (read, "contents.0.blob");
  served = http_get_bytes (game, "/screenshot", &status, NULL);
  g_assert_cmpuint (status, ==, 200);
  g_assert_true (g_bytes_equal (tool_png, served));
  g_assert_true (g_bytes_equal (resource_png, served));

  data = g_bytes_get_data (tool_png, &length);
  image = png_decode (data, length, &error);
  g_assert_no_error (error);
  crate_pixel (json_array_get_object_element (json_object_get_array_member (game_object (state), "crates"), 0),
               image->width, image->height, &x, &y);
  g_assert_cmphex (png_image_pixel (image, x, y), ==, WOOD);
  return 0;
}
