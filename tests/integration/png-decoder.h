/* png-decoder.h: reads the PNG files the tests get back (8-bit RGB or RGBA,
 * not interlaced, any filter), so a test can look at the pixels a game
 * drew. A test helper: it checks what it needs and fails with an error on
 * anything else, it is not the bridge's validation (gb-image.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint   width;
  guint   height;
  guint8 *rgb;     /* width * height * 3 */
} PngImage;

PngImage *png_decode      (const guint8 *data,
                           gsize         length,
                           GError      **error);
void      png_image_free  (PngImage *image);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PngImage, png_image_free)
/* 0xRRGGBB of one pixel. */
guint32   png_image_pixel (const PngImage *image,
                           guint           x,
                           guint           y);

G_END_DECLS
