/* fuzz-gb-image.c: gamebridge's image check (gb-image.c), the parser every
 * screenshot passes before it reaches an agent, on any bytes: as an image
 * (under the default limits and under tight ones) and as the base64 a GABP
 * mod sends. What it accepts is a PNG or JPEG of the size it says, within
 * the limits; the base64 path agrees with the bytes path.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "gb-image.h"

static void
check (const guint8        *data,
       gsize                size,
       const GbImageLimits *limits)
{
  g_autoptr(GError) error = NULL;
  GbImageInfo info;

  if (!gb_image_check (data, size, limits, &info, &error))
    {
      g_assert_error (error, GB_IMAGE_ERROR, error->code);
      g_assert_nonnull (error->message);
      return;
    }
  g_assert_no_error (error);
  g_assert_true (g_str_equal (info.mime_type, "image/png") || g_str_equal (info.mime_type, "image/jpeg"));
  g_assert_cmpuint (info.width, >=, 1);
  g_assert_cmpuint (info.height, >=, 1);
  g_assert_cmpuint (info.width, <=, limits->max_side);
  g_assert_cmpuint (info.height, <=, limits->max_side);
  g_assert_cmpuint (size, <=, limits->max_bytes);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  GbImageLimits limits, tight = { 256, 16 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) decoded = NULL;
  g_autofree char *encoded = NULL;
  GbImageInfo info, again;
  gboolean ok;

  fuzz_init ();
  gb_image_limits_init (&limits);
  check (data, size, &limits);
  check (data, size, &tight);

  /* The same bytes as a mod's base64: the same verdict. */
  encoded = g_base64_encode (data, size);
  ok = gb_image_check (data, size, &limits, &info, NULL);
  decoded = gb_image_check_base64 (encoded, strlen (encoded), &limits, &again, &error);
  g_assert_true ((decoded != NULL) == ok);
  if (decoded != NULL)
    {
      g_assert_cmpmem (g_bytes_get_data (decoded, NULL), g_bytes_get_size (decoded), data, size);
      g_assert_cmpuint (again.width, ==, info.width);
      g_assert_cmpuint (again.height, ==, info.height);
    }
  g_clear_pointer (&decoded, g_bytes_unref);
  g_clear_error (&error);

  /* The input itself as base64 text: refused or a checked image. */
  decoded = gb_image_check_base64 ((const char *) data, size, &limits, &again, &error);
  g_assert_true ((decoded == NULL) == (error != NULL));
  if (decoded != NULL)
    g_assert_cmpuint (g_bytes_get_size (decoded), <=, limits.max_bytes);
  return 0;
}
