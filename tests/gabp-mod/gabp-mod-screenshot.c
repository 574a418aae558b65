/* gabp-mod-screenshot.c: the reference mod's frames: the player as a square
 * on a 64x48 field, drawn with the reference game's PNG writer, cut and
 * scaled as game/screenshot asks; and the broken images game/bad_image
 * answers on purpose.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include "gabp-mod-screenshot.h"
#include "../refgame/refgame-png.h"

/* The mod's frame: the player as a square on a field of this size. */
#define SHOT_WIDTH  64
#define SHOT_HEIGHT 48

/* The frame, cut to `region` {x, y, width, height} and fitted into
 * `width` x `height` (never larger), as a PNG. */
GBytes *
gabp_mod_screenshot_png (JsonObject *args,
                         gint64      player_x,
                         gint64      player_y)
{
  guint8 field[SHOT_WIDTH * SHOT_HEIGHT * 3];
  gint64 rx = 0, ry = 0, rw = SHOT_WIDTH, rh = SHOT_HEIGHT, ow, oh;
  gint64 max_w = json_object_get_int_member_with_default (args, "width", 0);
  gint64 max_h = json_object_get_int_member_with_default (args, "height", 0);
  JsonNode *region = json_object_get_member (args, "region");
  g_autofree guint8 *out = NULL;

  for (int y = 0; y < SHOT_HEIGHT; y++)
    for (int x = 0; x < SHOT_WIDTH; x++)
      {
        guint8 *p = field + (y * SHOT_WIDTH + x) * 3;
        gboolean player = x / 4 == (int) ((player_x % 16 + 16) % 16) && y / 4 == (int) ((player_y % 12 + 12) % 12);

        p[0] = player ? 0xff : 0x20;
        p[1] = player ? 0x80 : 0x30;
        p[2] = player ? 0x00 : 0x40;
      }
  if (region != NULL && JSON_NODE_HOLDS_OBJECT (region))
    {
      JsonObject *r = json_node_get_object (region);

      rx = CLAMP (json_object_get_int_member_with_default (r, "x", 0), 0, SHOT_WIDTH - 1);
      ry = CLAMP (json_object_get_int_member_with_default (r, "y", 0), 0, SHOT_HEIGHT - 1);
      rw = CLAMP (json_object_get_int_member_with_default (r, "width", SHOT_WIDTH), 1, SHOT_WIDTH - rx);
      rh = CLAMP (json_object_get_int_member_with_default (r, "height", SHOT_HEIGHT), 1, SHOT_HEIGHT - ry);
    }
  ow = rw;
  oh = rh;
  if (max_w > 0 && max_w < ow)
    oh = MAX (1, oh * max_w / ow), ow = max_w;
  if (max_h > 0 && max_h < oh)
    ow = MAX (1, ow * max_h / oh), oh = max_h;
  out = g_malloc (ow * oh * 3);
  for (gint64 y = 0; y < oh; y++)
    for (gint64 x = 0; x < ow; x++)
      memcpy (out + (y * ow + x) * 3, field + ((ry + y * rh / oh) * SHOT_WIDTH + rx + x * rw / ow) * 3, 3);
  return rg_png_encode_rgb (out, (guint) ow, (guint) oh, NULL);
}

void
gabp_mod_set_image (JsonObject   *r,
                    const char   *mime_type,
                    const guint8 *data,
                    gsize         length)
{
  JsonObject *image = json_object_new ();
  g_autofree char *text = g_base64_encode (data, length);

  json_object_set_string_member (image, "mimeType", mime_type);
  json_object_set_string_member (image, "data", text);
  json_object_set_object_member (r, "image", image);
}

void
gabp_mod_bad_image (JsonObject *r,
                    const char *kind,
                    gint64      player_x,
                    gint64      player_y)
{
  g_autoptr(JsonObject) none = json_object_new ();
  g_autoptr(GBytes) png = gabp_mod_screenshot_png (none, player_x, player_y);
  gsize length;
  const guint8 *data = g_bytes_get_data (png, &length);

  if (g_strcmp0 (kind, "truncated") == 0)
    gabp_mod_set_image (r, "image/png", data, length - 12);          /* without IEND */
  else if (g_strcmp0 (kind, "not-image") == 0)
    gabp_mod_set_image (r, "image/png", (const guint8 *) "<html>no</html>", 15);
  else if (g_strcmp0 (kind, "mismatch") == 0)
    gabp_mod_set_image (r, "image/jpeg", data, length);
  else if (g_strcmp0 (kind, "bad-base64") == 0)
    {
      JsonObject *image = json_object_new ();

      json_object_set_string_member (image, "mimeType", "image/png");
      json_object_set_string_member (image, "data", "iVBORw0K Ggo");
      json_object_set_object_member (r, "image", image);
    }
  else
    json_object_set_object_member (r, "image", json_object_new ());
}
