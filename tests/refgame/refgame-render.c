/* refgame-render.c: the scene drawn into pixels (see refgame-render.h).
 *
 * Rectangles only, in integer arithmetic, so a state always gives the same
 * pixels; the score is drawn with a 3x5 digit font.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "refgame-render.h"

#include <string.h>

typedef struct {
  guint8 *rgb;
  int     width;
  int     height;
} Canvas;

static const guint32 kind_colours[] = { RG_RGB_WOOD, RG_RGB_STEEL, RG_RGB_ICE };

/* Rows of the digits 0-9, three bits each (bit 2 is the left column). */
static const guint8 digit_font[10][5] = {
  { 7, 5, 5, 5, 7 }, { 2, 6, 2, 2, 7 }, { 7, 1, 7, 4, 7 }, { 7, 1, 7, 1, 7 }, { 5, 5, 7, 1, 1 },
  { 7, 4, 7, 1, 7 }, { 7, 4, 7, 5, 7 }, { 7, 1, 1, 1, 1 }, { 7, 5, 7, 5, 7 }, { 7, 5, 7, 1, 7 },
};

/* Rounds towards minus infinity, for the negative world coordinates. */
static gint64
floor_div (gint64 a,
           gint64 b)
{
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static void
fill (Canvas  *c,
      gint64   x0,
      gint64   y0,
      gint64   x1,
      gint64   y1,
      guint32  colour)
{
  guint8 r = colour >> 16, g = colour >> 8, b = colour;

  x0 = MAX (x0, 0);
  y0 = MAX (y0, 0);
  x1 = MIN (x1, c->width);
  y1 = MIN (y1, c->height);
  for (gint64 y = y0; y < y1; y++)
    for (gint64 x = x0; x < x1; x++)
      {
        guint8 *p = c->rgb + ((gsize) y * (gsize) c->width + (gsize) x) * 3;

        p[0] = r;
        p[1] = g;
        p[2] = b;
      }
}

static gint64
column (Canvas *c,
        gint64  x_centi)
{
  return c->width / 2 + floor_div (x_centi * c->height, RG_RENDER_VIEW_CENTI);
}

static gint64
row (Canvas *c,
     gint64  y_centi)
{
  return c->height - floor_div ((y_centi + 50) * c->height, RG_RENDER_VIEW_CENTI);
}

static guint32
darker (guint32 colour)
{
  return (((colour >> 16) & 0xff) * 3 / 5) << 16 | (((colour >> 8) & 0xff) * 3 / 5) << 8 |
         ((colour & 0xff) * 3 / 5);
}

static void
draw_crate (Canvas             *c,
            const RgSceneCrate *crate,
            guint32             border)
{
  guint32 colour = kind_colours[CLAMP (crate->kind, 0, (int) G_N_ELEMENTS (kind_colours) - 1)];
  gint64 x0 = column (c, crate->x - crate->width / 2), x1 = column (c, crate->x + (crate->width + 1) / 2);
  gint64 y0 = row (c, crate->y + RG_CRATE_HEIGHT), y1 = row (c, crate->y);

  fill (c, x0, y0, x1, y1, border);
  fill (c, x0 + 2, y0 + 2, x1 - 2, y1 - 2, colour);
}

static void
draw_number (Canvas *c,
             gint64  value,
             int     left,
             int     top,
             int     cell)
{
  char text[32];
  int x = left;

  g_snprintf (text, sizeof text, "%" G_GINT64_FORMAT, value);
  for (const char *p = text; *p != '\0'; p++, x += 4 * cell)
    {
      if (*p == '-')
        {
          fill (c, x, top + 2 * cell, x + 3 * cell, top + 3 * cell, RG_RGB_TEXT);
          continue;
        }
      for (int r = 0; r < 5; r++)
        for (int col = 0; col < 3; col++)
          if (digit_font[*p - '0'][r] & (4 >> col))
            fill (c, x + col * cell, top + r * cell, x + (col + 1) * cell, top + (r + 1) * cell, RG_RGB_TEXT);
    }
}

/**
 * rg_render_scene:
 * @sim: the game
 * @width: columns
 * @height: rows
 *
 * Returns: (transfer full): the frame, RGB
 */
guint8 *
rg_render_scene (RgSim *sim,
                 guint  width,
                 guint  height)
{
  Canvas c = { g_malloc ((gsize) width * height * 3), (int) width, (int) height };
  RgSceneCrate crate;
  int cell = MAX (1, (int) height / 60);

  fill (&c, 0, 0, c.width, c.height, RG_RGB_SKY);
  fill (&c, column (&c, -RG_WORLD_HALF_WIDTH), 0, column (&c, RG_WORLD_HALF_WIDTH), row (&c, 0), RG_RGB_WELL);
  fill (&c, 0, row (&c, 0), c.width, c.height, RG_RGB_GROUND);
  for (guint i = 0; i < rg_sim_get_n_crates (sim); i++)
    {
      rg_sim_get_crate (sim, i, &crate);
      draw_crate (&c, &crate, darker (kind_colours[CLAMP (crate.kind, 0, 2)]));
    }
  if (rg_sim_get_held (sim, &crate))
    {
      gint64 rope = column (&c, crate.x);

      fill (&c, rope - MAX (1, cell / 4), 0, rope + MAX (1, cell / 4), row (&c, crate.y + RG_CRATE_HEIGHT),
            RG_RGB_ROPE);
      draw_crate (&c, &crate, RG_RGB_TEXT);
    }
  draw_number (&c, rg_sim_get_score (sim), cell * 2, cell * 2, cell);
  if (rg_sim_is_game_over (sim))
    fill (&c, 0, cell * 9, c.width, cell * 11, RG_RGB_OVER);
  return c.rgb;
}

guint8 *
rg_render_crop_scale (const guint8 *rgb,
                      guint         width,
                      guint         x,
                      guint         y,
                      guint         w,
                      guint         h,
                      guint         out_width,
                      guint         out_height)
{
  guint8 *out = g_malloc ((gsize) out_width * out_height * 3);

  for (guint oy = 0; oy < out_height; oy++)
    {
      gsize sy = y + (gsize) oy * h / out_height;

      for (guint ox = 0; ox < out_width; ox++)
        {
          gsize sx = x + (gsize) ox * w / out_width;

          memcpy (out + ((gsize) oy * out_width + ox) * 3, rgb + (sy * width + sx) * 3, 3);
        }
    }
  return out;
}
