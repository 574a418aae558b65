/* test-gabp-screenshot.c: a GABP mod's image tool through `gamegate mcp`
 * (gamegate's extension: a tool result carrying {"image": {"mimeType",
 * "data"}}), against the reference mod: the bridge's screenshot tool finds
 * the mod's tool tagged "screenshot" and answers MCP image content, byte for
 * byte what the mod sent; a frame over screenshot-max-side is asked for
 * again scaled down; list_toolsets says the mod serves screenshots; broken
 * images in any tool's result (cut short, not an image, a MIME type that
 * lies, bad base64) are refused; after_command has no meaning there.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "gb-mcp-client.h"
#include "gg-test-util.h"
#include "png-decoder.h"

#define MOD_EXE GG_TOP_BUILDDIR "/tests/gabp-mod/gabp-mod"

typedef struct {
  char *dir;
  char *conf;
  Mcp  *mcp;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  extra)
{
  g_autofree char *text = g_strdup_printf ("[gabp]\nmods=ref\nserver=false\nbridge-file=\nref.command=%s\n%s",
                                           MOD_EXE, (const char *) extra);
  g_autofree char *conf_env = NULL;
  gint64 deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (15000) * 1000;

  f->dir = g_dir_make_tmp ("gg-gabp-shot-XXXXXX", NULL);
  f->conf = g_build_filename (f->dir, "gamegate.conf", NULL);
  g_assert_true (g_file_set_contents (f->conf, text, -1, NULL));
  conf_env = g_strdup_printf ("GAMEGATE_CONFIG=%s", f->conf);
  f->mcp = mcp_start ((const char *[]) { "--no-scan", NULL }, (const char *[]) { conf_env, NULL });
  /* Until the mod is connected. */
  for (;;)
    {
      g_autoptr(JsonObject) r = mcp_call (f->mcp, "list_toolsets", "{\"instance\":\"gabp:ref\"}");

      if (!json_object_get_boolean_member_with_default (r, "isError", FALSE))
        break;
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      gg_test_spin (50);
    }
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  extra)
{
  mcp_free (f->mcp);
  g_unlink (f->conf);
  g_rmdir (f->dir);
  g_free (f->conf);
  g_free (f->dir);
}

/* The CallToolResult's text (parsed) and image (decoded). */
static GBytes *
image_of (JsonObject  *result,
          JsonObject **out_text)
{
  JsonArray *content = json_object_get_array_member (result, "content");
  JsonObject *image;
  g_autoptr(JsonNode) text = NULL;
  guchar *data;
  gsize length;

  g_assert_false (json_object_get_boolean_member_with_default (result, "isError", FALSE));
  g_assert_cmpuint (json_array_get_length (content), ==, 2);
  text = gg_json_parse (json_object_get_string_member (json_array_get_object_element (content, 0), "text"), -1, 64,
                        NULL);
  image = json_array_get_object_element (content, 1);
  g_assert_cmpstr (json_object_get_string_member (image, "type"), ==, "image");
  g_assert_cmpstr (json_object_get_string_member (image, "mimeType"), ==, "image/png");
  *out_text = json_object_ref (json_node_get_object (text));
  data = g_base64_decode (json_object_get_string_member (image, "data"), &length);
  return g_bytes_new_take (data, length);
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
test_screenshot_tool (Fixture       *f,
                      gconstpointer  extra)
{
  g_autoptr(JsonObject) sets = mcp_call_ok (f->mcp, "list_toolsets", "{\"instance\":\"gabp:ref\"}");
  g_autoptr(JsonObject) moved = mcp_call_ok (f->mcp, "call_tool", "{\"instance\":\"gabp:ref\",\"name\":\"player/move\","
                                             "\"arguments\":{\"x\":3,\"y\":2}}");
  g_autoptr(JsonObject) shot = mcp_call (f->mcp, "call_tool", "{\"instance\":\"gabp:ref\",\"name\":\"screenshot\"}");
  g_autoptr(JsonObject) direct = mcp_call (f->mcp, "call_tool", "{\"instance\":\"gabp:ref\",\"name\":\"game/screenshot\"}");
  g_autoptr(JsonObject) text = NULL;
  g_autoptr(JsonObject) direct_text = NULL;
  g_autoptr(GBytes) png = image_of (shot, &text);
  g_autoptr(GBytes) direct_png = image_of (direct, &direct_text);
  g_autoptr(PngImage) image = decode (png);
  g_autofree char *summary = NULL;
  g_autofree char *expected = NULL;

  g_assert_cmpstr (json_object_get_string_member (sets, "screenshot"), ==, "available");
  g_assert_cmpstr (json_object_get_string_member (text, "instance"), ==, "gabp:ref");
  g_assert_cmpstr (json_object_get_string_member (text, "tool"), ==, "screenshot");
  g_assert_cmpstr (json_object_get_string_member (text, "via"), ==, "bridge");
  g_assert_cmpstr (json_object_get_string_member (text, "source"), ==, "game/screenshot");
  g_assert_cmpint (json_object_get_int_member (text, "width"), ==, 64);
  g_assert_cmpint (json_object_get_int_member (text, "height"), ==, 48);
  g_assert_cmpint (json_object_get_int_member (text, "frame"), ==, 0);
  /* The player at (3, 2): its 4x4 square. */
  g_assert_cmphex (png_image_pixel (image, 3 * 4 + 1, 2 * 4 + 1), ==, 0xff8000);
  g_assert_cmphex (png_image_pixel (image, 0, 0), ==, 0x203040);

  /* The mod's own tool through call_tool: the image lifted beside its
   * result, the same bytes. */
  g_assert_true (g_bytes_equal (png, direct_png));
  summary = gg_json_object_to_string (json_object_get_object_member (json_object_get_object_member (direct_text,
                                                                                                   "result"),
                                                                     "image"));
  expected = g_strdup_printf ("{\"mimeType\":\"image/png\",\"width\":64,\"height\":48,\"bytes\":%" G_GSIZE_FORMAT "}",
                              g_bytes_get_size (png));
  g_assert_cmpstr (summary, ==, expected);
}

static void
test_scaled_to_the_limit (Fixture       *f,
                          gconstpointer  extra)
{
  g_autoptr(JsonObject) shot = mcp_call (f->mcp, "call_tool", "{\"instance\":\"gabp:ref\",\"name\":\"screenshot\"}");
  g_autoptr(JsonObject) text = NULL;
  g_autoptr(GBytes) png = image_of (shot, &text);

  /* 64x48 is over 32 a side: asked again with width 32, height 32. */
  g_assert_cmpint (json_object_get_int_member (text, "width"), ==, 32);
  g_assert_cmpint (json_object_get_int_member (text, "height"), ==, 24);
}

/* @why, or its start and end around a byte count (@tail). */
static void
assert_bad_around (Fixture    *f,
                   const char *kind,
                   const char *why,
                   const char *tail)
{
  g_autofree char *args = g_strdup_printf ("{\"instance\":\"gabp:ref\",\"name\":\"game/bad_image\","
                                           "\"arguments\":{\"kind\":\"%s\"}}", kind);
  g_autofree char *error = mcp_call_error (f->mcp, "call_tool", args);
  g_autofree char *expected = g_strdup_printf ("BadImage: gabp:ref's tool game/bad_image: %s", why);

  if (tail == NULL)
    g_assert_cmpstr (error, ==, expected);
  else
    {
      g_assert_true (g_str_has_prefix (error, expected));
      g_assert_true (g_str_has_suffix (error, tail));
    }
}

static void
assert_bad (Fixture    *f,
            const char *kind,
            const char *why)
{
  assert_bad_around (f, kind, why, NULL);
}

static void
test_broken_images (Fixture       *f,
                    gconstpointer  extra)
{
  g_autofree char *after = mcp_call_error (f->mcp, "call_tool", "{\"instance\":\"gabp:ref\",\"name\":\"screenshot\","
                                           "\"arguments\":{\"after_command\":3}}");

  /* The mod's PNG is zlib's: its length is zlib's too. */
  assert_bad_around (f, "truncated", "the PNG is cut short: it ends after ", " bytes without its IEND chunk");
  assert_bad (f, "not-image", "the answer is not a PNG or JPEG image (its first bytes are not their magic bytes)");
  assert_bad (f, "mismatch", "its \"mimeType\" says image/jpeg but the bytes are image/png");
  assert_bad (f, "bad-base64", "the image's base64 has a character outside its alphabet at offset 8");
  assert_bad (f, "no-data", "its \"image\" needs the strings \"mimeType\" and \"data\" (base64)");
  g_assert_cmpstr (after, ==, "BridgeUsageError: after_command waits for an HTTP game's command; gabp:ref's tools "
                              "return once they were applied");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/gabp/screenshot/tool", Fixture, "", fixture_set_up, test_screenshot_tool, fixture_tear_down);
  g_test_add ("/gabp/screenshot/scaled-to-the-limit", Fixture, "[gamebridge]\nscreenshot-max-side=32\n",
              fixture_set_up, test_scaled_to_the_limit, fixture_tear_down);
  g_test_add ("/gabp/screenshot/broken-images", Fixture, "", fixture_set_up, test_broken_images, fixture_tear_down);
  return g_test_run ();
}
