/* png-decoder.c: the tests' PNG reader (see png-decoder.h), on zlib.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "png-decoder.h"

#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_SIDE 16384

static guint32
be32 (const guint8 *p)
{
  return (guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 | p[3];
}

static guint8
paeth (guint8 a,
       guint8 b,
       guint8 c)
{
  int p = a + b - c, pa = abs (p - a), pb = abs (p - b), pc = abs (p - c);

  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static gboolean
fail (GError    **error,
      const char *what)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "PNG: %s", what);
  return FALSE;
}

static gboolean
unfilter (guint8  *raw,
          gsize    stride,
          guint    bpp,
          guint    height,
          GError **error)
{
  for (guint y = 0; y < height; y++)
    {
      guint8 type = raw[y * (stride + 1)];
      guint8 *row = raw + y * (stride + 1) + 1;
      guint8 *above = y > 0 ? row - (stride + 1) : NULL;

      for (gsize i = 0; i < stride; i++)
        {
          guint8 a = i >= bpp ? row[i - bpp] : 0, b = above != NULL ? above[i] : 0;
          guint8 c = i >= bpp && above != NULL ? above[i - bpp] : 0;

          switch (type)
            {
            case 0: break;
            case 1: row[i] += a; break;
            case 2: row[i] += b; break;
            case 3: row[i] += (guint8) (((guint) a + b) / 2); break;
            case 4: row[i] += paeth (a, b, c); break;
            default: return fail (error, "unknown filter type");
            }
        }
    }
  return TRUE;
}

PngImage *
png_decode (const guint8 *data,
            gsize         length,
            GError      **error)
{
  static const guint8 signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  g_autoptr(GByteArray) idat = g_byte_array_new ();
  g_autofree guint8 *raw = NULL;
  g_autoptr(PngImage) image = g_new0 (PngImage, 1);
  gsize pos = 8, stride = 0;
  guint bpp = 0;
  gboolean ended = FALSE;
  uLongf raw_length;

  if (length < 8 || memcmp (data, signature, 8) != 0)
    return fail (error, "no signature"), NULL;
  while (!ended)
    {
      guint32 chunk_length;
      const guint8 *type;

      if (length - pos < 12 || (chunk_length = be32 (data + pos)) > length - pos - 12)
        return fail (error, "cut short"), NULL;
      type = data + pos + 4;
      if (memcmp (type, "IHDR", 4) == 0)
        {
          const guint8 *h = data + pos + 8;

          if (chunk_length != 13)
            return fail (error, "bad IHDR"), NULL;
          image->width = be32 (h);
          image->height = be32 (h + 4);
          if (image->width < 1 || image->height < 1 || image->width > MAX_SIDE || image->height > MAX_SIDE ||
              h[8] != 8 || (h[9] != 2 && h[9] != 6) || h[12] != 0)
            return fail (error, "only 8-bit RGB or RGBA, not interlaced"), NULL;
          bpp = h[9] == 2 ? 3 : 4;
          stride = (gsize) image->width * bpp;
        }
      else if (memcmp (type, "IDAT", 4) == 0)
        g_byte_array_append (idat, data + pos + 8, chunk_length);
      else if (memcmp (type, "IEND", 4) == 0)
        ended = TRUE;
      if ((guint32) crc32 (crc32 (0, type, 4), data + pos + 8, chunk_length) != be32 (data + pos + 8 + chunk_length))
        return fail (error, "bad chunk CRC"), NULL;
      pos += 12 + chunk_length;
    }
  if (bpp == 0)
    return fail (error, "no IHDR"), NULL;
  raw_length = (stride + 1) * image->height;
  raw = g_malloc (raw_length);
  if (uncompress (raw, &raw_length, idat->data, idat->len) != Z_OK || raw_length != (stride + 1) * image->height)
    return fail (error, "bad image data"), NULL;
  if (!unfilter (raw, stride, bpp, image->height, error))
    return NULL;
  image->rgb = g_malloc ((gsize) image->width * image->height * 3);
  for (guint y = 0; y < image->height; y++)
    for (guint x = 0; x < image->width; x++)
      memcpy (image->rgb + ((gsize) y * image->width + x) * 3, raw + y * (stride + 1) + 1 + (gsize) x * bpp, 3);
  return g_steal_pointer (&image);
}

void
png_image_free (PngImage *image)
{
  if (image == NULL)
    return;
  g_free (image->rgb);
  g_free (image);
}

guint32
png_image_pixel (const PngImage *image,
                 guint           x,
                 guint           y)
{
  const guint8 *p;

  g_return_val_if_fail (x < image->width && y < image->height, 0);
  p = image->rgb + ((gsize) y * image->width + x) * 3;
  return (guint32) p[0] << 16 | (guint32) p[1] << 8 | p[2];
}
