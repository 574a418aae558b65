/* test-refgame-screenshot.c: the reference game's GET /screenshot over real
 * HTTP: a PNG of the scene, decoded here and checked where the state says
 * the crates are; the same state gives the same bytes; width, height and
 * region; the /tools announcement; refusals; --no-screenshot,
 * --screenshot-size and --screenshot-ignores-size.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "png-decoder.h"
#include "refgame-driver.h"

#define WOOD  0xb07a40
#define STEEL 0x8c96a5
#define ICE   0x96dcf5

static GBytes *
get_png (Game       *game,
         const char *path_query)
{
  guint status = 0;
  g_autofree char *type = NULL;
  GBytes *body = http_get_bytes (game, path_query, &status, &type);

  g_assert_cmpuint (status, ==, 200);
  g_assert_cmpstr (type, ==, "image/png");
  return body;
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

static void
assert_crate_colour (PngImage   *image,
                     JsonObject *crate,
                     guint32     colour)
{
  guint x, y;

  crate_pixel (crate, image->width, image->height, &x, &y);
  g_assert_cmphex (png_image_pixel (image, x, y), ==, colour);
}

static void
test_scene (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autoptr(JsonObject) state = NULL;
  g_autoptr(JsonObject) later = NULL;
  g_autoptr(GBytes) png = NULL;
  g_autoptr(GBytes) again = NULL;
  g_autoptr(PngImage) image = NULL;
  JsonObject *g, *crate;
  gint64 id;

  command_and_wait (game, "cmd=spawn&kind=steel");
  command_and_wait (game, "cmd=drop&x=-1.2");
  command_and_wait (game, "cmd=spawn&kind=wood");
  command_and_wait (game, "cmd=drop&x=1");
  id = command_and_wait (game, "cmd=spawn&kind=ice");
  state = wait_applied (game, id);
  g = game_object (state);

  png = get_png (game, "/screenshot");
  image = decode (png);
  g_assert_cmpuint (image->width, ==, 640);
  g_assert_cmpuint (image->height, ==, 480);
  crate = json_array_get_object_element (json_object_get_array_member (g, "crates"), 0);
  g_assert_cmpstr (json_object_get_string_member (crate, "kind"), ==, "steel");
  assert_crate_colour (image, crate, STEEL);
  crate = json_array_get_object_element (json_object_get_array_member (g, "crates"), 1);
  assert_crate_colour (image, crate, WOOD);
  assert_crate_colour (image, json_object_get_object_member (g, "held"), ICE);
  /* Nothing where no crate is: the middle of the well's floor. */
  g_assert_cmphex (png_image_pixel (image, 320, 440), ==, 0x2e3448);

  /* The frames advance, the picture does not: the same bytes. */
  later = wait_frame (game, json_object_get_int_member (state, "frame") + 3);
  again = get_png (game, "/screenshot");
  g_assert_true (g_bytes_equal (png, again));
}

static void
test_moves_with_the_state (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autoptr(GBytes) before = NULL;
  g_autoptr(GBytes) after = NULL;
  g_autoptr(PngImage) image = NULL;
  g_autoptr(JsonObject) state = NULL;

  command_and_wait (game, "cmd=spawn&kind=ice");
  before = get_png (game, "/screenshot");
  state = wait_applied (game, command_and_wait (game, "cmd=drop&x=0.4"));
  after = get_png (game, "/screenshot");
  g_assert_false (g_bytes_equal (before, after));
  image = decode (after);
  assert_crate_colour (image, json_array_get_object_element (json_object_get_array_member (game_object (state),
                                                                                            "crates"), 0), ICE);
}

static void
test_scaled_and_cut (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autoptr(GBytes) png = NULL;
  g_autoptr(PngImage) image = NULL;
  g_autoptr(PngImage) half = NULL;
  g_autoptr(PngImage) cut = NULL;
  g_autoptr(PngImage) box = NULL;
  g_autoptr(GBytes) p1 = NULL;
  g_autoptr(GBytes) p2 = NULL;
  g_autoptr(GBytes) p3 = NULL;

  command_and_wait (game, "cmd=spawn&kind=wood");
  command_and_wait (game, "cmd=drop&x=0");
  png = get_png (game, "/screenshot");
  image = decode (png);

  p1 = get_png (game, "/screenshot?width=320");
  half = decode (p1);
  g_assert_cmpuint (half->width, ==, 320);
  g_assert_cmpuint (half->height, ==, 240);
  for (guint y = 0; y < 240; y += 7)
    for (guint x = 0; x < 320; x += 5)
      g_assert_cmphex (png_image_pixel (half, x, y), ==, png_image_pixel (image, x * 2, y * 2));

  p2 = get_png (game, "/screenshot?region=300,400,40,50");
  cut = decode (p2);
  g_assert_cmpuint (cut->width, ==, 40);
  g_assert_cmpuint (cut->height, ==, 50);
  for (guint y = 0; y < 50; y++)
    for (guint x = 0; x < 40; x++)
      g_assert_cmphex (png_image_pixel (cut, x, y), ==, png_image_pixel (image, 300 + x, 400 + y));

  /* Both sides: the tighter one wins, the aspect stays; never scaled up. */
  p3 = get_png (game, "/screenshot?width=1000&height=120");
  box = decode (p3);
  g_assert_cmpuint (box->width, ==, 160);
  g_assert_cmpuint (box->height, ==, 120);
}

static void
test_announced_and_refused (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autoptr(JsonObject) tools = get_object (game, "/tools", 200);
  g_autoptr(JsonObject) bad = NULL;
  g_autoptr(JsonObject) outside = NULL;
  g_autoptr(JsonObject) zero = NULL;
  JsonObject *shot = json_object_get_object_member (tools, "screenshot");

  g_assert_nonnull (shot);
  g_assert_cmpint (json_object_get_int_member (shot, "width"), ==, 640);
  g_assert_cmpint (json_object_get_int_member (shot, "height"), ==, 480);
  g_assert_true (json_object_get_boolean_member (shot, "scale"));
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (shot, "mimeTypes"), 0), ==,
                   "image/png");

  bad = get_object (game, "/screenshot?region=1,2,3", 400);
  g_assert_cmpstr (json_object_get_string_member (bad, "message"), ==, "region is x,y,w,h");
  outside = get_object (game, "/screenshot?region=600,0,100,10", 400);
  g_assert_cmpstr (json_object_get_string_member (outside, "message"), ==,
                   "region 600,0,100,10 lies outside the 640x480 frame");
  zero = get_object (game, "/screenshot?width=0", 400);
  g_assert_cmpstr (json_object_get_string_member (zero, "message"), ==, "width must be an integer 1..16384");
}

static void
test_switches (void)
{
  g_autoptr(Game) none = game_spawn ("--no-registry", "--no-screenshot", NULL);
  g_autoptr(Game) big = game_spawn ("--no-registry", "--screenshot-size", "3000x200", "--screenshot-ignores-size",
                                    NULL);
  g_autoptr(JsonObject) missing = get_object (none, "/screenshot", 404);
  g_autoptr(JsonObject) tools = get_object (none, "/tools", 200);
  g_autoptr(JsonObject) big_tools = get_object (big, "/tools", 200);
  g_autoptr(GBytes) png = get_png (big, "/screenshot?width=300");
  g_autoptr(PngImage) image = decode (png);

  g_assert_cmpstr (json_object_get_string_member (missing, "error"), ==, "not_found");
  g_assert_false (json_object_has_member (tools, "screenshot"));
  g_assert_false (json_object_get_boolean_member (json_object_get_object_member (big_tools, "screenshot"), "scale"));
  g_assert_cmpuint (image->width, ==, 3000);
  g_assert_cmpuint (image->height, ==, 200);
}

static void
test_bad_size_option (void)
{
  const char *args[] = { RG_REFGAME_EXE, "--debug-port", "0", "--no-registry", "--screenshot-size", "640", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) proc = g_subprocess_newv (args, G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                                   G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_autofree char *err = NULL;

  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, NULL, &err, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 2);
  g_assert_cmpstr (err, ==, "refgame: --screenshot-size: a size is WIDTHxHEIGHT, like 640x480\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/refgame/screenshot/scene", test_scene);
  g_test_add_func ("/refgame/screenshot/moves-with-the-state", test_moves_with_the_state);
  g_test_add_func ("/refgame/screenshot/scaled-and-cut", test_scaled_and_cut);
  g_test_add_func ("/refgame/screenshot/announced-and-refused", test_announced_and_refused);
  g_test_add_func ("/refgame/screenshot/switches", test_switches);
  g_test_add_func ("/refgame/screenshot/bad-size-option", test_bad_size_option);
  return g_test_run ();
}
