/* refgame-png.c: the PNG writer of the reference game (see refgame-png.h).
 *
 * The smallest file that every decoder reads: the signature, IHDR (8-bit
 * truecolour, no interlace), one IDAT holding the zlib stream of the rows,
 * IEND. Every row is written with filter type 2 (Up), which turns the flat
 * areas of a game scene into zeros for deflate (run-length matching). The output depends only on
 * the pixels (and the zlib build), so one state gives the same bytes.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "refgame-png.h"

#include <gio/gio.h>

#include <string.h>
#include <zlib.h>

static const guint8 signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

static void
put_u32 (GByteArray *out,
         guint32     value)
{
  guint8 be[4] = { value >> 24, value >> 16, value >> 8, value };

  g_byte_array_append (out, be, 4);
}

/* Length, type, data, then the CRC of type and data. */
static void
put_chunk (GByteArray   *out,
           const char   *type,
           const guint8 *data,
           gsize         length)
{
  uLong crc = crc32 (0, (const Bytef *) type, 4);

  put_u32 (out, (guint32) length);
  g_byte_array_append (out, (const guint8 *) type, 4);
  if (length > 0)
    {
      g_byte_array_append (out, data, (guint) length);
      crc = crc32 (crc, data, (uInt) length);
    }
  put_u32 (out, (guint32) crc);
}

/* One zlib stream of @in. Z_RLE: after the Up filter a scene is runs of
 * zeros, which run-length matches find as well as a full search, at a
 * fraction of its time (a game encodes a frame between two others). */
static int
deflate_rle (guint8       *out,
             uLongf       *out_length,
             const guint8 *in,
             gsize         in_length)
{
  z_stream z = { 0 };
  int status = deflateInit2 (&z, 6, Z_DEFLATED, 15, 8, Z_RLE);

  if (status != Z_OK)
    return status;
  z.next_in = (Bytef *) in;
  z.avail_in = (uInt) in_length;
  z.next_out = out;
  z.avail_out = (uInt) *out_length;
  status = deflate (&z, Z_FINISH);
  *out_length = z.total_out;
  deflateEnd (&z);
  return status == Z_STREAM_END ? Z_OK : (status == Z_OK ? Z_BUF_ERROR : status);
}

/**
 * rg_png_encode_rgb:
 * @rgb: @width * @height pixels, 3 bytes each (R, G, B), row after row
 * @width: 1..RG_PNG_MAX_SIDE
 * @height: 1..RG_PNG_MAX_SIDE
 * @error: where a failure goes
 *
 * Returns: (transfer full): the PNG file, or %NULL
 */
GBytes *
rg_png_encode_rgb (const guint8  *rgb,
                   guint          width,
                   guint          height,
                   GError       **error)
{
  g_autoptr(GByteArray) out = NULL;
  g_autofree guint8 *filtered = NULL;
  g_autofree guint8 *compressed = NULL;
  gsize stride = (gsize) width * 3;
  gsize raw_length;
  uLongf compressed_length;
  guint8 ihdr[13];
  int status;

  if (width < 1 || height < 1 || width > RG_PNG_MAX_SIDE || height > RG_PNG_MAX_SIDE)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "a PNG of %ux%u: each side must be 1..%d", width, height, RG_PNG_MAX_SIDE);
      return NULL;
    }
  raw_length = (stride + 1) * height;
  filtered = g_malloc (raw_length);
  for (guint y = 0; y < height; y++)
    {
      const guint8 *row = rgb + y * stride;
      const guint8 *above = y > 0 ? row - stride : NULL;
      guint8 *dst = filtered + y * (stride + 1);

      dst[0] = 2;  /* Up */
      for (gsize i = 0; i < stride; i++)
        dst[1 + i] = (guint8) (row[i] - (above != NULL ? above[i] : 0));
    }
  compressed_length = compressBound (raw_length);
  compressed = g_malloc (compressed_length);
  status = deflate_rle (compressed, &compressed_length, filtered, raw_length);
  if (status != Z_OK)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "zlib deflate failed (%d)", status);
      return NULL;
    }

  ihdr[0] = width >> 24;
  ihdr[1] = width >> 16;
  ihdr[2] = width >> 8;
  ihdr[3] = width;
  ihdr[4] = height >> 24;
  ihdr[5] = height >> 16;
  ihdr[6] = height >> 8;
  ihdr[7] = height;
  ihdr[8] = 8;   /* bit depth */
  ihdr[9] = 2;   /* truecolour */
  ihdr[10] = 0;  /* deflate */
  ihdr[11] = 0;  /* adaptive filtering */
  ihdr[12] = 0;  /* no interlace */

  out = g_byte_array_sized_new ((guint) compressed_length + 64);
  g_byte_array_append (out, signature, sizeof signature);
  put_chunk (out, "IHDR", ihdr, sizeof ihdr);
  put_chunk (out, "IDAT", compressed, compressed_length);
  put_chunk (out, "IEND", NULL, 0);
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}
