/* test-mcp-sdk-screenshot.c: the official MCP TypeScript SDK client
 * (mcp-sdk/screenshot-client.mjs) driving the built `gamegate mcp` through
 * gamegate's extension, as the SDK parsed it:
 *  - a screenshot after spawn and drop is image content whose PNG shows the
 *    crates where the state says; call_tool's screenshot: true; width;
 *  - a game without the endpoint, a truncated, a non-image and an oversized
 *    answer: errors, no image;
 *  - a GABP mod's image tool (when the gabp plugin is built);
 *  - resources: list, templates, read (state, log, screenshot), -32002 for
 *    what cannot exist, subscribe with updates at most one per interval,
 *    none after unsubscribe.
 * Skipped (77) without node or the SDK, like test-mcp-sdk.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdlib.h>

#include "gb-bridge-test.h"
#include "gg-test-server.h"
#include "mcp-sdk-runner.h"
#include "png-decoder.h"

#define SERVER     GG_TEST_SRCDIR "/gamebridge/screenshot-server.py"
#define STEEL      0x8c96a5
#define ICE        0x96dcf5
#define INTERVAL   200
#define WATCH_MS   1500

/* SERVER in @mode, on a port it chose. */
static GgTestServer *
server_start (const char *mode)
{
  return gg_test_server_start ((const char *[]) { "python3", SERVER, mode, NULL }, NULL, NULL);
}

static const char *
text_at (JsonNode   *root,
         const char *path)
{
  return json_node_get_string (mcp_sdk_member (root, path));
}

static gint64
int_at (JsonNode   *root,
        const char *path)
{
  return json_node_get_int (mcp_sdk_member (root, path));
}

static PngImage *
png_at (JsonNode   *root,
        const char *path)
{
  g_autoptr(GError) error = NULL;
  gsize length;
  g_autofree guchar *data = g_base64_decode (text_at (root, path), &length);
  PngImage *image = png_decode (data, length, &error);

  g_assert_no_error (error);
  return image;
}

static void
assert_failed (JsonNode   *root,
               const char *key,
               const char *prefix,
               const char *part)
{
  g_autofree char *kinds = g_strdup_printf ("%s.kinds", key);
  g_autofree char *text = g_strdup_printf ("%s.text", key);
  g_autofree char *flag = g_strdup_printf ("%s.isError", key);

  g_assert_true (json_node_get_boolean (mcp_sdk_member (root, flag)));
  g_assert_cmpuint (json_array_get_length (json_node_get_array (mcp_sdk_member (root, kinds))), ==, 1);
  g_assert_true (g_str_has_prefix (text_at (root, text), prefix));
  g_assert_nonnull (strstr (text_at (root, text), part));
}

static void
assert_crate (PngImage   *image,
              JsonObject *crate,
              guint32     colour)
{
  guint x, y;

  crate_pixel (crate, image->width, image->height, &x, &y);
  g_assert_cmphex (png_image_pixel (image, x, y), ==, colour);
}

int
main (int argc, char **argv)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(Game) none = NULL;
  g_autoptr(GgTestServer) truncated = NULL;
  g_autoptr(GgTestServer) not_image = NULL;
  g_autoptr(GgTestServer) huge = NULL;
  g_autoptr(PngImage) shot = NULL;
  g_autoptr(PngImage) after_drop = NULL;
  g_autofree char *registry = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *conf = NULL;
  g_autofree char *conf_text = NULL;
  g_autofree char *ports = NULL;
  g_autofree char *timeout_ms = NULL;
  g_autofree char *watch_ms = NULL;
  g_autofree char *base = NULL;
  const char *bin = g_getenv ("GAMEGATE_BIN");
  const char *server[] = { bin != NULL && *bin != '\0' ? bin : GG_TOP_BUILDDIR "/gateway/gamegate",
                           "mcp", "--launch-config", LAUNCH_CONFIG, "--no-scan", NULL };
  JsonObject *game;
  JsonArray *resources;
  gint64 port, updates, most;

  g_test_init (&argc, &argv, NULL);
  if (!mcp_sdk_available ())
    return 77;

  none = game_spawn ("--no-registry", "--no-screenshot", NULL);
  truncated = server_start ("truncated");
  not_image = server_start ("not-image");
  huge = server_start ("announced-huge");
  registry = g_dir_make_tmp ("gb-sdk-shot-XXXXXX", &error);
  g_assert_no_error (error);
  dir = g_dir_make_tmp ("gb-sdk-shot-conf-XXXXXX", &error);
  g_assert_no_error (error);
  conf = g_build_filename (dir, "gamegate.conf", NULL);
#ifdef GB_TEST_GABP_MOD
  conf_text = g_strdup_printf ("[gamebridge]\nresource-update-interval-ms=%d\n"
                               "[gabp]\nmods=ref\nserver=false\nbridge-file=\nref.command=%s\n",
                               INTERVAL, GB_TEST_GABP_MOD);
  g_subprocess_launcher_setenv (launcher, "GB_SDK_GABP", "gabp:ref", TRUE);
#else
  conf_text = g_strdup_printf ("[gamebridge]\nresource-update-interval-ms=%d\n", INTERVAL);
#endif
  g_assert_true (g_file_set_contents (conf, conf_text, -1, NULL));
  ports = g_strdup_printf ("{\"noScreenshot\":%u,\"truncated\":%u,\"notImage\":%u,\"huge\":%u,\"noGame\":%u}",
                           none->port, truncated->port, not_image->port, huge->port, free_port ());
  timeout_ms = g_strdup_printf ("%u", gg_test_timeout_ms (30000));
  watch_ms = g_strdup_printf ("%d", WATCH_MS);
  g_subprocess_launcher_setenv (launcher, "GAMEGATE_CONFIG", conf, TRUE);
  g_subprocess_launcher_setenv (launcher, "GAME_BRIDGE_INSTANCES", registry, TRUE);
  g_subprocess_launcher_setenv (launcher, "GB_SDK_TIMEOUT_MS", timeout_ms, TRUE);
  g_subprocess_launcher_setenv (launcher, "GB_SDK_PORTS", ports, TRUE);
  g_subprocess_launcher_setenv (launcher, "GB_SDK_WATCH_MS", watch_ms, TRUE);
  g_subprocess_launcher_unsetenv (launcher, "GAME_BRIDGE_PORT");
  g_subprocess_launcher_unsetenv (launcher, "GAME_BRIDGE_HOME");
  root = mcp_sdk_run ("screenshot-client.mjs", server, launcher, gg_test_timeout_ms (120000));
  port = int_at (root, "port");

  /* After spawn and drop: the crate where the state says, in the image. */
  g_assert_cmpstr (text_at (root, "shot.kinds.0"), ==, "text");
  g_assert_cmpstr (text_at (root, "shot.kinds.1"), ==, "image");
  g_assert_cmpstr (text_at (root, "shot.image.mimeType"), ==, "image/png");
  g_assert_cmpint (int_at (root, "shot.structured.width"), ==, 640);
  shot = png_at (root, "shot.image.data");
  game = json_node_get_object (mcp_sdk_member (root, "state.game"));
  assert_crate (shot, json_array_get_object_element (json_object_get_array_member (game, "crates"), 0), STEEL);
  assert_crate (shot, json_object_get_object_member (game, "held"), ICE);

  /* call_tool's screenshot: the command's result, then its frame. */
  g_assert_true (json_node_get_boolean (mcp_sdk_member (root, "dropped.structured.applied")));
  g_assert_cmpint (int_at (root, "dropped.structured.screenshot.width"), ==, 640);
  after_drop = png_at (root, "dropped.image.data");
  assert_crate (after_drop, json_array_get_object_element (json_object_get_array_member (
                  json_node_get_object (mcp_sdk_member (root, "dropped.structured.game")), "crates"), 0), STEEL);
  g_assert_cmpint (int_at (root, "small.structured.width"), ==, 160);
  g_assert_cmpint (int_at (root, "small.structured.height"), ==, 120);
  g_assert_cmpstr (text_at (root, "toolsets.screenshot"), ==, "available");

  /* Games that answer wrongly: errors, never an image. */
  assert_failed (root, "noScreenshot", "NoScreenshot: ", "returned HTTP 404");
  assert_failed (root, "truncated", "BadImage: ", "the PNG is cut short");
  assert_failed (root, "notImage", "BadImage: ", "is not a PNG or JPEG image");
  assert_failed (root, "huge", "BadImage: ", "announced 3145728 bytes (Content-Length)");
  assert_failed (root, "noGame", "GameOffline: ", "No game is answering");

#ifdef GB_TEST_GABP_MOD
  /* A GABP mod's image tool. */
  g_assert_cmpstr (text_at (root, "gabpShot.image.mimeType"), ==, "image/png");
  g_assert_cmpstr (text_at (root, "gabpShot.structured.source"), ==, "game/screenshot");
  g_assert_cmpint (int_at (root, "gabpShot.structured.width"), ==, 64);
  assert_failed (root, "gabpBad", "BadImage: gabp:ref's tool game/bad_image: ", "cut short");
#endif

  /* Resources. */
  g_assert_true (json_node_get_boolean (mcp_sdk_member (root, "capabilities.resources.subscribe")));
  resources = json_node_get_array (mcp_sdk_member (root, "resources"));
  base = g_strdup_printf ("game://%" G_GINT64_FORMAT, port);
  {
    g_autofree char *state_uri = g_strconcat (base, "/state", NULL);
    g_autofree char *log_uri = g_strconcat (base, "/log", NULL);
    g_autofree char *shot_uri = g_strconcat (base, "/screenshot", NULL);
    gboolean seen_state = FALSE, seen_log = FALSE, seen_shot = FALSE;
    g_autoptr(JsonNode) state = NULL;
    g_autoptr(PngImage) blob = NULL;

    for (guint i = 0; i < json_array_get_length (resources); i++)
      {
        JsonObject *r = json_array_get_object_element (resources, i);
        const char *uri = json_object_get_string_member (r, "uri");

        g_assert_nonnull (json_object_get_string_member (r, "name"));
        seen_state |= g_str_equal (uri, state_uri);
        seen_log |= g_str_equal (uri, log_uri);
        seen_shot |= g_str_equal (uri, shot_uri);
      }
    g_assert_true (seen_state && seen_log && seen_shot);
    g_assert_cmpstr (text_at (root, "templates.0.uriTemplate"), ==, "game://{port}/state");
    g_assert_cmpstr (text_at (root, "readState.0.uri"), ==, state_uri);
    g_assert_cmpstr (text_at (root, "readState.0.mimeType"), ==, "application/json");
    state = gg_json_parse (text_at (root, "readState.0.text"), -1, 64, NULL);
    g_assert_nonnull (gg_json_path_get (state, "game.crates", NULL));
    g_assert_cmpstr (text_at (root, "readLog.0.mimeType"), ==, "text/plain");
    g_assert_nonnull (strstr (text_at (root, "readLog.0.text"), "refgame: listening on 127.0.0.1:"));
    g_assert_cmpstr (text_at (root, "readScreenshot.0.mimeType"), ==, "image/png");
    blob = png_at (root, "readScreenshot.0.blob");
    g_assert_cmpuint (blob->width, ==, 640);
  }
  g_assert_cmpint (int_at (root, "readUnknown.code"), ==, -32002);
  g_assert_true (g_str_has_suffix (text_at (root, "readUnknown.data.uri"), "/nothing"));
  g_assert_cmpint (int_at (root, "readNoGame.code"), ==, -32002);
  g_assert_cmpint (int_at (root, "subscribeUnknown.code"), ==, -32002);

  /* Updates while subscribed, at most one per interval; none after. */
  updates = int_at (root, "updatesState");
  /* At most one per interval of the time it was subscribed (the first look
   * is the baseline, one more for a look cut by the end). */
  most = int_at (root, "subscribedMs") / INTERVAL + 2;
  g_assert_cmpint (updates, >=, 1);
  g_assert_cmpint (updates, <=, most);
  g_assert_cmpint (int_at (root, "updatesLog"), >=, 1);
  g_assert_cmpint (int_at (root, "updatesAfterUnsubscribe"), ==, 0);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (mcp_sdk_member (root, "otherUpdates"))), ==, 0);
  g_assert_cmpint (int_at (root, "listChanged"), >=, 1);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (mcp_sdk_member (root, "errors"))), ==, 0);

  g_unlink (conf);
  g_rmdir (dir);
  return 0;
}
