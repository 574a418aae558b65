/* gb-image.c: the image check (see gb-image.h). Its input comes from a game
 * or a mod, so it is a parser of hostile bytes: it reads structure only,
 * never decodes pixels, and every length it reads is checked against what
 * is left before it is used.
 *
 * PNG: the 8-byte signature, then chunks (length, type, data, CRC): IHDR
 * first with 13 bytes, a valid bit depth and colour type and sides of at
 * least 1; at least one IDAT; IEND last with no data, and nothing after it.
 * The CRCs are not recomputed: the bytes pass through as they came, and the
 * check is that they are whole, not that the game's encoder is right.
 *
 * JPEG: SOI (FF D8), then marker segments with their lengths; a frame
 * header (SOF0..SOF15 but DHT, JPG, DAC) gives the sides; each scan's
 * entropy-coded data runs to the next marker that is neither a stuffed
 * FF 00 nor a restart marker; EOI (FF D9) ends it, with nothing after it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-image.h"

G_DEFINE_QUARK (gb-image-error-quark, gb_image_error)

static const guint8 png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

void
gb_image_limits_init (GbImageLimits *limits)
{
  limits->max_bytes = GB_IMAGE_DEFAULT_MAX_BYTES;
  limits->max_side = GB_IMAGE_DEFAULT_MAX_SIDE;
}

static guint32
be32 (const guint8 *p)
{
  return (guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 | p[3];
}

static guint
be16 (const guint8 *p)
{
  return (guint) p[0] << 8 | p[1];
}

static gboolean
chunk_type_ok (const guint8 *type)
{
  for (int i = 0; i < 4; i++)
    if (!g_ascii_isalpha (type[i]))
      return FALSE;
  return TRUE;
}

/* The combinations of PNG's table 11.1. */
static gboolean
png_depth_ok (guint8 colour_type,
              guint8 depth)
{
  switch (colour_type)
    {
    case 0:
      return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
    case 3:
      return depth == 1 || depth == 2 || depth == 4 || depth == 8;
    case 2:
    case 4:
    case 6:
      return depth == 8 || depth == 16;
    default:
      return FALSE;
    }
}

static gboolean
check_png (const guint8  *data,
           gsize          length,
           GbImageInfo   *info,
           GError       **error)
{
  gsize pos = sizeof png_signature;
  gboolean seen_idat = FALSE;

  for (guint n = 0;; n++)
    {
      guint32 chunk_length;
      const guint8 *type;

      if (length - pos < 12)
        {
          g_set_error (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_TRUNCATED,
                       "the PNG is cut short: it ends after %" G_GSIZE_FORMAT " bytes without its IEND chunk",
                       length);
          return FALSE;
        }
      chunk_length = be32 (data + pos);
      type = data + pos + 4;
      if (!chunk_type_ok (type) || chunk_length > G_MAXINT32)
        {
          g_set_error (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED,
                       "the PNG has a broken chunk header at byte %" G_GSIZE_FORMAT, pos);
          return FALSE;
        }
      if (chunk_length > length - pos - 12)
        {
          g_set_error (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_TRUNCATED,
                       "the PNG is cut short: its %.4s chunk at byte %" G_GSIZE_FORMAT " needs %u bytes, %"
                       G_GSIZE_FORMAT " are left", (const char *) type, pos, chunk_length, length - pos - 12);
          return FALSE;
        }
      if (n == 0)
        {
          const guint8 *h = data + pos + 8;

          if (memcmp (type, "IHDR", 4) != 0 || chunk_length != 13)
            {
              g_set_error_literal (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED,
                                   "the PNG does not start with a 13-byte IHDR chunk");
              return FALSE;
            }
          info->width = be32 (h);
          info->height = be32 (h + 4);
          if (info->width == 0 || info->height == 0 || info->width > G_MAXINT32 || info->height > G_MAXINT32 ||
              !png_depth_ok (h[9], h[8]) || h[10] != 0 || h[11] != 0 || h[12] > 1)
            {
              g_set_error_literal (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED,
                                   "the PNG's IHDR chunk is not valid (size, bit depth, colour type or method)");
              return FALSE;
            }
        }
      else if (memcmp (type, "IHDR", 4) == 0)
        {
          g_set_error_literal (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED, "the PNG has a second IHDR chunk");
          return FALSE;
        }
      else if (memcmp (type, "IDAT", 4) == 0)
        seen_idat = TRUE;
      else if (memcmp (type, "IEND", 4) == 0)
        {
          pos += 12 + chunk_length;
          if (chunk_length != 0 || !seen_idat)
            {
              g_set_error_literal (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED,
                                   chunk_length != 0 ? "the PNG's IEND chunk is not empty"
                                                     : "the PNG ends before any IDAT chunk");
              return FALSE;
            }
          if (pos != length)
            {
              g_set_error (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED,
                           "the PNG has %" G_GSIZE_FORMAT " bytes after its IEND chunk", length - pos);
              return FALSE;
            }
          return TRUE;
        }
      pos += 12 + chunk_length;
    }
}

/* SOF0..SOF15, but DHT (C4), JPG (C8) and DAC (CC). */
static gboolean
is_frame_marker (guint8 m)
{
  return m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc;
}

static gboolean
jpeg_truncated (GError **error,
                gsize    length)
{
  g_set_error (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_TRUNCATED,
               "the JPEG is cut short: it ends after %" G_GSIZE_FORMAT " bytes without its EOI marker", length);
  return FALSE;
}

static gboolean
check_jpeg (const guint8  *data,
            gsize          length,
            GbImageInfo   *info,
            GError       **error)
{
  gsize pos = 2;
  gboolean seen_frame = FALSE;

  for (;;)
    {
      guint8 marker;
      guint segment;

      /* A marker: FF (any number of fill bytes FF), then its code. */
      if (pos >= length)
        return jpeg_truncated (error, length);
      if (data[pos] != 0xff)
        {
          g_set_error (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED,
                       "the JPEG has no marker where one must be, at byte %" G_GSIZE_FORMAT, pos);
          return FALSE;
        }
      while (pos < length && data[pos] == 0xff)
        pos++;
      if (pos >= length)
        return jpeg_truncated (error, length);
      marker = data[pos++];
      if (marker == 0xd9)
        {
          if (!seen_frame)
            {
              g_set_error_literal (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED,
                                   "the JPEG ends without a frame header");
              return FALSE;
            }
          if (pos != length)
            {
              g_set_error (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED,
                           "the JPEG has %" G_GSIZE_FORMAT " bytes after its EOI marker", length - pos);
              return FALSE;
            }
          return TRUE;
        }
      if (marker == 0x00 || marker == 0xd8)
        {
          g_set_error (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED,
                       "the JPEG has a stray marker FF %02X at byte %" G_GSIZE_FORMAT, marker, pos - 2);
          return FALSE;
        }
      /* TEM and the restart markers stand alone. */
      if (marker == 0x01 || (marker >= 0xd0 && marker <= 0xd7))
        continue;
      if (length - pos < 2)
        return jpeg_truncated (error, length);
      segment = be16 (data + pos);
      if (segment < 2)
        {
          g_set_error (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED,
                       "the JPEG has a segment of length %u at byte %" G_GSIZE_FORMAT, segment, pos);
          return FALSE;
        }
      if (segment > length - pos)
        return jpeg_truncated (error, length);
      if (is_frame_marker (marker))
        {
          if (segment < 8)
            {
              g_set_error_literal (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED,
                                   "the JPEG's frame header is too short");
              return FALSE;
            }
          info->height = be16 (data + pos + 3);
          info->width = be16 (data + pos + 5);
          if (info->width == 0 || info->height == 0)
            {
              g_set_error_literal (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED,
                                   "the JPEG's frame header gives no size");
              return FALSE;
            }
          seen_frame = TRUE;
        }
      pos += segment;
      if (marker != 0xda)
        continue;
      if (!seen_frame)
        {
          g_set_error_literal (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED,
                               "the JPEG has a scan before its frame header");
          return FALSE;
        }
      /* The scan's entropy-coded data, up to the next real marker. */
      for (;;)
        {
          const guint8 *ff = memchr (data + pos, 0xff, length - pos);

          if (ff == NULL || (gsize) (ff - data) + 1 >= length)
            return jpeg_truncated (error, length);
          pos = (gsize) (ff - data);
          if (data[pos + 1] == 0x00 || (data[pos + 1] >= 0xd0 && data[pos + 1] <= 0xd7))
            pos += 2;
          else if (data[pos + 1] == 0xff)
            pos++;
          else
            break;
        }
    }
}

/**
 * gb_image_check:
 * @data: the image's bytes, as they came
 * @length: how many
 * @limits: the largest file and the largest side
 * @info: (out caller-allocates): its MIME type and size
 * @error: a %GB_IMAGE_ERROR saying what is wrong
 *
 * Returns: %TRUE for a whole PNG or JPEG within @limits
 */
gboolean
gb_image_check (const guint8        *data,
                gsize                length,
                const GbImageLimits *limits,
                GbImageInfo         *info,
                GError             **error)
{
  gboolean ok;

  g_return_val_if_fail (data != NULL || length == 0, FALSE);
  g_return_val_if_fail (limits != NULL && info != NULL, FALSE);

  memset (info, 0, sizeof *info);
  if (length > limits->max_bytes)
    {
      g_set_error (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_TOO_MANY_BYTES,
                   "the image has %" G_GSIZE_FORMAT " bytes, more than the limit of %" G_GSIZE_FORMAT
                   " (screenshot-max-bytes)", length, limits->max_bytes);
      return FALSE;
    }
  if (length >= sizeof png_signature && memcmp (data, png_signature, sizeof png_signature) == 0)
    {
      info->mime_type = "image/png";
      ok = check_png (data, length, info, error);
    }
  else if (length >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff)
    {
      info->mime_type = "image/jpeg";
      ok = check_jpeg (data, length, info, error);
    }
  else
    {
      g_set_error (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_NOT_AN_IMAGE,
                   length == 0 ? "the answer is empty, not an image"
                               : "the answer is not a PNG or JPEG image (its first bytes are not their magic bytes)");
      return FALSE;
    }
  if (!ok)
    return FALSE;
  if (info->width > limits->max_side || info->height > limits->max_side)
    {
      g_set_error (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_TOO_LARGE,
                   "the image is %ux%u pixels, more than %u a side (screenshot-max-side)",
                   info->width, info->height, limits->max_side);
      return FALSE;
    }
  return TRUE;
}

static gboolean
base64_char (char c)
{
  return g_ascii_isalnum (c) || c == '+' || c == '/';
}

/**
 * gb_image_check_base64:
 * @text: the image in base64 (RFC 4648 section 4, padded, one line)
 * @length: its length in bytes
 * @limits: the largest file and the largest side
 * @info: (out caller-allocates): its MIME type and size
 * @error: a %GB_IMAGE_ERROR saying what is wrong
 *
 * Returns: (transfer full) (nullable): the decoded image, checked
 */
GBytes *
gb_image_check_base64 (const char          *text,
                       gsize                length,
                       const GbImageLimits *limits,
                       GbImageInfo         *info,
                       GError             **error)
{
  g_autofree guchar *decoded = NULL;
  gsize pad = 0, decoded_length = 0;

  g_return_val_if_fail (text != NULL || length == 0, NULL);

  memset (info, 0, sizeof *info);
  if (length % 4 != 0)
    {
      g_set_error_literal (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED,
                           "the image's base64 is not a whole number of 4-character groups");
      return NULL;
    }
  if (length / 4 * 3 > limits->max_bytes + 2)
    {
      g_set_error (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_TOO_MANY_BYTES,
                   "the image has about %" G_GSIZE_FORMAT " bytes, more than the limit of %" G_GSIZE_FORMAT
                   " (screenshot-max-bytes)", length / 4 * 3, limits->max_bytes);
      return NULL;
    }
  if (length > 0 && text[length - 1] == '=')
    pad = length > 1 && text[length - 2] == '=' ? 2 : 1;
  for (gsize i = 0; i < length - pad; i++)
    if (!base64_char (text[i]))
      {
        g_set_error (error, GB_IMAGE_ERROR, GB_IMAGE_ERROR_MALFORMED,
                     "the image's base64 has a character outside its alphabet at offset %" G_GSIZE_FORMAT, i);
        return NULL;
      }
  if (length > 0)
    {
      gint state = 0;
      guint save = 0;

      decoded = g_malloc (length / 4 * 3 + 3);
      decoded_length = g_base64_decode_step (text, length, decoded, &state, &save);
    }
  return gb_image_check (decoded, decoded_length, limits, info, error)
         ? g_bytes_new_take (g_steal_pointer (&decoded), decoded_length)
         : NULL;
}
