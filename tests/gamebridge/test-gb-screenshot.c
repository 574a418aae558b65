/* test-gb-screenshot.c: the screenshot tool through the built `gamegate
 * mcp` (MCP image content), against the reference game and against a game
 * whose GET /screenshot answers wrongly (screenshot-server.py): the image
 * arrives byte for byte as the game served it and shows the crates where
 * the state says; call_tool's screenshot; after_command; list_toolsets;
 * a game without the endpoint; scaling down to the limit and the refusal
 * of a game that does not scale; truncated, short, oversized and non-image
 * answers, which never reach the agent.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-bridge-test.h"
#include "png-decoder.h"
#include "gg-test-server.h"

#define SERVER GG_TEST_SRCDIR "/gamebridge/screenshot-server.py"
#define ICE    0x96dcf5
#define STEEL  0x8c96a5

/* ---- helpers -------------------------------------------------------------- */

/* SERVER in @mode, on a port it chose. */
static GgTestServer *
server_start (const char *mode)
{
  return gg_test_server_start ((const char *[]) { "python3", SERVER, mode, NULL }, NULL, NULL);
}

/* `gamegate mcp` whose bridge timeout (5 s) scales like the tests' own: a
 * game under valgrind draws a large frame slowly. */
static Mcp *
start_mcp (const char *env)
{
  g_autofree char *timeout = g_strdup_printf ("%u", gg_test_timeout_ms (5000));

  return mcp_start ((const char *[]) { "--timeout", timeout, NULL }, (const char *[]) { env, NULL });
}

/* A tools/call result's image content, decoded; its text part parsed. */
static GBytes *
image_of (JsonObject  *result,
          const char  *mime_type,
          JsonObject **out_text)
{
  JsonArray *content = json_object_get_array_member (result, "content");
  JsonObject *text, *image;
  g_autoptr(JsonNode) parsed = NULL;
  guchar *data;
  gsize length;

  g_assert_false (json_object_get_boolean_member_with_default (result, "isError", FALSE));
  g_assert_cmpuint (json_array_get_length (content), ==, 2);
  text = json_array_get_object_element (content, 0);
  image = json_array_get_object_element (content, 1);
  g_assert_cmpstr (str (text, "type"), ==, "text");
  g_assert_cmpstr (str (image, "type"), ==, "image");
  g_assert_cmpstr (str (image, "mimeType"), ==, mime_type);
  g_assert_cmpuint (json_object_get_size (image), ==, 3);
  parsed = gg_json_parse (str (text, "text"), -1, 64, NULL);
  g_assert_nonnull (parsed);
  /* The text and structuredContent say the same, and hold no image. */
  g_assert_true (gg_json_equal (parsed, json_object_get_member (result, "structuredContent")));
  g_assert_null (strstr (str (text, "text"), "\"data\""));
  if (out_text != NULL)
    *out_text = json_object_ref (json_node_get_object (parsed));
  data = g_base64_decode (str (image, "data"), &length);
  return g_bytes_new_take (data, length);
}

static JsonObject *
call (Mcp        *mcp,
      guint       port,
      const char *name,
      const char *rest)
{
  g_autofree char *args = g_strdup_printf ("{\"name\":\"%s\",\"port\":%u%s}", name, port, rest);

  return mcp_call (mcp, "call_tool", args);
}

static char *
call_error (Mcp        *mcp,
            guint       port,
            const char *rest)
{
  g_autofree char *args = g_strdup_printf ("{\"name\":\"screenshot\",\"port\":%u%s}", port, rest);

  return mcp_call_error (mcp, "call_tool", args);
}

static PngImage *
decode (GBytes *png)
{
  g_autoptr(GError) error = NULL;
  gsize length;
  const guint8 *data = g_bytes_get_data (png, &length);
  PngImage *image = png_decode (data, length, &error);

  g_assert_no_error (error);
  return image;
}

static GBytes *
served (Game       *game,
        const char *path)
{
  guint status = 0;
  GBytes *bytes = http_get_bytes (game, path, &status, NULL);

  g_assert_cmpuint (status, ==, 200);
  return bytes;
}

/* ---- the reference game ------------------------------------------------------ */

static void
test_after_spawn_and_drop (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autoptr(Mcp) mcp = start_mcp (NULL);
  g_autoptr(JsonObject) spawn = call (mcp, game->port, "spawn", ",\"arguments\":{\"kind\":\"steel\"}");
  g_autoptr(JsonObject) drop = call (mcp, game->port, "drop", ",\"arguments\":{\"x\":-0.8}");
  g_autoptr(JsonObject) spawn2 = call (mcp, game->port, "spawn", ",\"arguments\":{\"kind\":\"ice\"}");
  g_autoptr(JsonObject) shot = call (mcp, game->port, "screenshot", "");
  g_autoptr(JsonObject) text = NULL;
  g_autoptr(GBytes) png = image_of (shot, "image/png", &text);
  g_autoptr(GBytes) direct = served (game, "/screenshot");
  g_autoptr(JsonObject) state = get_object (game, "/state", 200);
  g_autoptr(PngImage) image = decode (png);
  JsonObject *g = game_object (state);
  guint x, y;

  /* The text part: where and what, never the pixels. */
  g_assert_cmpint (json_object_get_int_member (text, "port"), ==, game->port);
  g_assert_cmpstr (str (text, "tool"), ==, "screenshot");
  g_assert_cmpstr (str (text, "via"), ==, "bridge");
  g_assert_cmpstr (str (text, "mimeType"), ==, "image/png");
  g_assert_cmpint (json_object_get_int_member (text, "width"), ==, 640);
  g_assert_cmpint (json_object_get_int_member (text, "height"), ==, 480);
  g_assert_cmpint (json_object_get_int_member (text, "bytes"), ==, g_bytes_get_size (png));
  g_assert_cmpint (json_object_get_int_member (text, "frame"), >, 0);

  /* Byte for byte what the game serves for this state. */
  g_assert_true (g_bytes_equal (png, direct));
  crate_pixel (json_array_get_object_element (json_object_get_array_member (g, "crates"), 0), 640, 480, &x, &y);
  g_assert_cmphex (png_image_pixel (image, x, y), ==, STEEL);
  crate_pixel (json_object_get_object_member (g, "held"), 640, 480, &x, &y);
  g_assert_cmphex (png_image_pixel (image, x, y), ==, ICE);
}

static void
test_scaled_and_cut (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autoptr(Mcp) mcp = start_mcp (NULL);
  g_autoptr(JsonObject) small = call (mcp, game->port, "screenshot", ",\"arguments\":{\"width\":160}");
  g_autoptr(JsonObject) cut = call (mcp, game->port, "screenshot",
                                    ",\"arguments\":{\"region\":{\"x\":10,\"y\":20,\"width\":30,\"height\":40}}");
  g_autoptr(GBytes) small_png = image_of (small, "image/png", NULL);
  g_autoptr(GBytes) cut_png = image_of (cut, "image/png", NULL);
  g_autoptr(GBytes) small_direct = served (game, "/screenshot?width=160");
  g_autoptr(GBytes) cut_direct = served (game, "/screenshot?region=10,20,30,40");
  g_autofree char *bad = call_error (mcp, game->port, ",\"arguments\":{\"width\":0}");
  g_autofree char *outside = call_error (mcp, game->port,
                                         ",\"arguments\":{\"region\":{\"x\":600,\"y\":0,\"width\":100,\"height\":1}}");
  g_autofree char *outside_expected = g_strdup_printf (
    "HttpStatusError: GET /screenshot on http://127.0.0.1:%u returned HTTP 400: {\"error\":\"bad_query\","
    "\"message\":\"region 600,0,100,1 lies outside the 640x480 frame\"}", game->port);

  g_assert_true (g_bytes_equal (small_png, small_direct));
  g_assert_true (g_bytes_equal (cut_png, cut_direct));
  g_assert_true (g_str_has_prefix (bad, "BridgeUsageError: "));
  g_assert_cmpstr (outside, ==, outside_expected);
}

static void
test_call_tool_screenshot (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autoptr(Mcp) mcp = start_mcp (NULL);
  g_autoptr(JsonObject) spawn = call (mcp, game->port, "spawn", ",\"arguments\":{\"kind\":\"ice\"},\"screenshot\":true");
  g_autoptr(JsonObject) drop = call (mcp, game->port, "drop", ",\"arguments\":{\"x\":1.2},"
                                     "\"screenshot\":{\"width\":320}");
  g_autoptr(JsonObject) spawn_text = NULL;
  g_autoptr(JsonObject) drop_text = NULL;
  g_autoptr(GBytes) spawn_png = image_of (spawn, "image/png", &spawn_text);
  g_autoptr(GBytes) drop_png = image_of (drop, "image/png", &drop_text);
  g_autoptr(PngImage) image = decode (drop_png);
  JsonObject *screenshot = json_object_get_object_member (drop_text, "screenshot");
  JsonObject *crate;
  guint x, y;

  /* The command's result is whole, the screenshot beside it. */
  g_assert_cmpstr (str (spawn_text, "tool"), ==, "spawn");
  g_assert_true (json_object_get_boolean_member (spawn_text, "applied"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (spawn_text, "screenshot"), "width"),
                   ==, 640);
  g_assert_cmpstr (str (drop_text, "confirmation"), ==, "completedCommandId");
  g_assert_cmpint (json_object_get_int_member (screenshot, "width"), ==, 320);
  g_assert_cmpint (json_object_get_int_member (screenshot, "height"), ==, 240);
  g_assert_cmpint (json_object_get_int_member (screenshot, "frame"), >=,
                   json_object_get_int_member (drop_text, "frame"));
  g_assert_false (json_object_has_member (screenshot, "image"));
  /* The frame after the drop: the crate landed where the state says. */
  crate = json_array_get_object_element (json_object_get_array_member (json_object_get_object_member (drop_text,
                                                                                                     "game"),
                                                                        "crates"), 0);
  crate_pixel (crate, 320, 240, &x, &y);
  g_assert_cmphex (png_image_pixel (image, x, y), ==, ICE);
}

static void
test_after_command (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autoptr(Game) frozen = game_spawn ("--no-registry", "--freeze", NULL);
  guint timeout_ms = gg_test_timeout_ms (400);
  g_autofree char *timeout = g_strdup_printf ("%u", timeout_ms);
  g_autoptr(Mcp) mcp = mcp_start ((const char *[]) { "--timeout", timeout, NULL }, NULL);
  gint64 id = send_command (game, "cmd=spawn&kind=wood");
  g_autofree char *rest = g_strdup_printf (",\"arguments\":{\"after_command\":%" G_GINT64_FORMAT "}", id);
  g_autoptr(JsonObject) shot = call (mcp, game->port, "screenshot", rest);
  g_autoptr(JsonObject) text = NULL;
  g_autoptr(GBytes) png = image_of (shot, "image/png", &text);
  g_autofree char *waited = NULL;
  g_autofree char *expected = NULL;

  g_assert_cmpint (json_object_get_int_member (text, "afterCommand"), ==, id);
  g_assert_cmpstr (str (text, "confirmation"), ==, "completedCommandId");
  /* A game that never applies it: CommandTimeout, no image. */
  id = send_command (frozen, "cmd=spawn");
  g_free (rest);
  rest = g_strdup_printf (",\"arguments\":{\"after_command\":%" G_GINT64_FORMAT "}", id);
  waited = call_error (mcp, frozen->port, rest);
  expected = g_strdup_printf ("CommandTimeout: Command '#%" G_GINT64_FORMAT "' was queued on port %u but was not "
                              "applied\nwithin %ums. The game accepted it, so it is probably blocked, frozen, or on "
                              "a\nscreen that ignores this command.", id, frozen->port, timeout_ms);
  g_assert_cmpstr (waited, ==, expected);
}

static void
test_without_the_endpoint (void)
{
  g_autoptr(Game) none = game_spawn ("--no-registry", "--no-screenshot", NULL);
  g_autoptr(Game) quiet = game_spawn ("--no-registry", "--no-tools", NULL);
  g_autoptr(Mcp) mcp = start_mcp (NULL);
  g_autofree char *none_args = port_args (none->port);
  g_autofree char *quiet_args = port_args (quiet->port);
  g_autoptr(JsonObject) none_sets = mcp_call_ok (mcp, "list_toolsets", none_args);
  g_autoptr(JsonObject) quiet_sets = mcp_call_ok (mcp, "list_toolsets", quiet_args);
  g_autofree char *error = call_error (mcp, none->port, "");
  g_autofree char *expected = g_strdup_printf (
    "NoScreenshot: The game on port %u serves no screenshots: GET /screenshot returned HTTP 404. A game shows its "
    "frame by answering GET /screenshot with image/png or image/jpeg (docs/game-bridge-extensions.md).", none->port);
  g_autoptr(JsonObject) seen = NULL;
  JsonObject *text;

  /* Neither /health nor /tools says: the probe of list_toolsets tells. */
  g_assert_cmpstr (str (none_sets, "screenshot"), ==, "unavailable");
  g_assert_cmpstr (str (quiet_sets, "screenshot"), ==, "available");
  g_assert_cmpstr (error, ==, expected);
  /* call_tool's screenshot fails alone: the command's result stays. */
  seen = call (mcp, none->port, "spawn", ",\"screenshot\":true");
  g_assert_false (json_object_get_boolean_member_with_default (seen, "isError", FALSE));
  text = json_object_get_object_member (seen, "structuredContent");
  g_assert_nonnull (text);
  g_assert_true (json_object_get_boolean_member (text, "applied"));
  g_assert_cmpstr (str (text, "screenshotError"), ==, expected);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (seen, "content")), ==, 1);
}

static void
test_scaled_to_the_limit (void)
{
  g_autoptr(Game) big = game_spawn ("--no-registry", "--screenshot-size", "3000x200", NULL);
  g_autoptr(Game) stubborn = game_spawn ("--no-registry", "--screenshot-size", "3000x200",
                                         "--screenshot-ignores-size", NULL);
  g_autoptr(Mcp) mcp = start_mcp (NULL);
  g_autoptr(JsonObject) shot = call (mcp, big->port, "screenshot", "");
  g_autoptr(JsonObject) text = NULL;
  g_autoptr(GBytes) png = image_of (shot, "image/png", &text);
  g_autoptr(GBytes) direct = served (big, "/screenshot?width=2048&height=2048");
  g_autofree char *refused = call_error (mcp, stubborn->port, "");
  g_autofree char *expected = g_strdup_printf (
    "BadImage: GET /screenshot on http://127.0.0.1:%u: the image is 3000x200 pixels, more than 2048 a side "
    "(screenshot-max-side). It was asked to scale down to fit and did not: ask for a region, or raise "
    "screenshot-max-side", stubborn->port);

  /* Asked again with width=2048&height=2048: the game's own scaling. */
  g_assert_cmpint (json_object_get_int_member (text, "width"), ==, 2048);
  g_assert_cmpint (json_object_get_int_member (text, "height"), ==, 137);
  g_assert_true (g_bytes_equal (png, direct));
  g_assert_cmpstr (refused, ==, expected);
}

/* ---- a game that answers wrongly ------------------------------------------------- */

static void
assert_refused (const char *mode,
                const char *what)
{
  g_autoptr(GgTestServer) server = server_start (mode);
  g_autoptr(Mcp) mcp = start_mcp (NULL);
  g_autofree char *error = call_error (mcp, server->port, "");
  g_autofree char *expected = g_strdup_printf ("BadImage: GET /screenshot on http://127.0.0.1:%u: %s",
                                               server->port, what);

  g_assert_cmpstr (error, ==, expected);
}

static void
test_truncated (void)
{
  assert_refused ("truncated", "the PNG is cut short: it ends after 62 bytes without its IEND chunk");
}

static void
test_not_an_image (void)
{
  assert_refused ("not-image", "the answer is not a PNG or JPEG image (its first bytes are not their magic bytes)");
}

static void
test_content_length_shortfall (void)
{
  assert_refused ("short", "the answer is cut short: the game promised 1074 bytes (Content-Length) and sent 74");
}

static void
test_oversized (void)
{
  assert_refused ("announced-huge", "the game announced 3145728 bytes (Content-Length), more than the limit of "
                                    "2097152 (screenshot-max-bytes). Ask for a smaller width and height, or raise "
                                    "screenshot-max-bytes");
  assert_refused ("endless", "the image has more than 2097152 bytes, the limit (screenshot-max-bytes). Ask for a "
                             "smaller width and height, or raise screenshot-max-bytes");
  assert_refused ("trailing", "the PNG has 4 bytes after its IEND chunk");
  assert_refused ("wide", "the image is 4096x16 pixels, more than 2048 a side (screenshot-max-side). It was asked to "
                          "scale down to fit and did not: ask for a region, or raise screenshot-max-side");
  assert_refused ("jpeg-no-eoi", "the JPEG is cut short: it ends after 123 bytes without its EOI marker");
}

static void
test_configured_limit (void)
{
  g_autoptr(GgTestServer) server = server_start ("png");
  g_autofree char *dir = g_dir_make_tmp ("gb-shot-conf-XXXXXX", NULL);
  g_autofree char *conf = g_build_filename (dir, "gamegate.conf", NULL);
  g_autofree char *conf_env = g_strdup_printf ("GAMEGATE_CONFIG=%s", conf);
  g_autoptr(Mcp) mcp = NULL;
  g_autofree char *error = NULL;
  g_autofree char *expected = NULL;

  g_assert_true (g_file_set_contents (conf, "[gamebridge]\nscreenshot-max-bytes=50\n", -1, NULL));
  mcp = start_mcp (conf_env);
  error = call_error (mcp, server->port, "");
  expected = g_strdup_printf ("BadImage: GET /screenshot on http://127.0.0.1:%u: the game announced 74 bytes "
                              "(Content-Length), more than the limit of 50 (screenshot-max-bytes). Ask for a "
                              "smaller width and height, or raise screenshot-max-bytes", server->port);
  g_assert_cmpstr (error, ==, expected);
  g_unlink (conf);
  g_rmdir (dir);
}

static void
test_jpeg_passes_through (void)
{
  static const guint8 jpeg_start[] = { 0xff, 0xd8, 0xff, 0xe0 };
  g_autoptr(GgTestServer) server = server_start ("jpeg");
  g_autoptr(Mcp) mcp = start_mcp (NULL);
  g_autoptr(JsonObject) shot = call (mcp, server->port, "screenshot", "");
  g_autoptr(JsonObject) text = NULL;
  g_autoptr(GBytes) jpeg = image_of (shot, "image/jpeg", &text);

  g_assert_cmpint (json_object_get_int_member (text, "width"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (text, "height"), ==, 1);
  g_assert_cmpuint (g_bytes_get_size (jpeg), ==, 125);
  g_assert_cmpmem (g_bytes_get_data (jpeg, NULL), 4, jpeg_start, 4);
  g_assert_false (json_object_has_member (text, "frame"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gamebridge/screenshot/after-spawn-and-drop", test_after_spawn_and_drop);
  g_test_add_func ("/gamebridge/screenshot/scaled-and-cut", test_scaled_and_cut);
  g_test_add_func ("/gamebridge/screenshot/call-tool-screenshot", test_call_tool_screenshot);
  g_test_add_func ("/gamebridge/screenshot/after-command", test_after_command);
  g_test_add_func ("/gamebridge/screenshot/without-the-endpoint", test_without_the_endpoint);
  g_test_add_func ("/gamebridge/screenshot/scaled-to-the-limit", test_scaled_to_the_limit);
  g_test_add_func ("/gamebridge/screenshot/truncated", test_truncated);
  g_test_add_func ("/gamebridge/screenshot/not-an-image", test_not_an_image);
  g_test_add_func ("/gamebridge/screenshot/content-length-shortfall", test_content_length_shortfall);
  g_test_add_func ("/gamebridge/screenshot/oversized", test_oversized);
  g_test_add_func ("/gamebridge/screenshot/configured-limit", test_configured_limit);
  g_test_add_func ("/gamebridge/screenshot/jpeg-passes-through", test_jpeg_passes_through);
  return g_test_run ();
}
