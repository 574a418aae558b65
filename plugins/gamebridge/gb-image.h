/* gb-image.h: the check every image passes before it reaches an agent:
 * a PNG or a JPEG by its magic bytes, whole (PNG up to IEND, JPEG up to
 * EOI), within the configured size (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

/* `[gamebridge] screenshot-max-bytes` and `screenshot-max-side`. */
#define GB_IMAGE_DEFAULT_MAX_BYTES (2 * 1024 * 1024)
#define GB_IMAGE_DEFAULT_MAX_SIDE  2048
/* What the config keys accept. */
#define GB_IMAGE_MAX_BYTES_LIMIT   (64 * 1024 * 1024)
#define GB_IMAGE_MAX_SIDE_LIMIT    65535

#define GB_IMAGE_ERROR (gb_image_error_quark ())
GQuark gb_image_error_quark (void);

typedef enum {
  GB_IMAGE_ERROR_NOT_AN_IMAGE,   /* neither PNG nor JPEG magic */
  GB_IMAGE_ERROR_TRUNCATED,      /* cut short: no IEND, no EOI, fewer bytes */
  GB_IMAGE_ERROR_MALFORMED,      /* the structure is broken */
  GB_IMAGE_ERROR_TOO_MANY_BYTES, /* over max_bytes */
  GB_IMAGE_ERROR_TOO_LARGE,      /* a side over max_side */
} GbImageError;

typedef struct {
  gsize max_bytes;
  guint max_side;
} GbImageLimits;

typedef struct {
  const char *mime_type;   /* static: "image/png" or "image/jpeg" */
  guint       width;
  guint       height;
} GbImageInfo;

void      gb_image_limits_init   (GbImageLimits *limits);
gboolean  gb_image_check         (const guint8        *data,
                                  gsize                length,
                                  const GbImageLimits *limits,
                                  GbImageInfo         *info,
                                  GError             **error);
/* Strict RFC 4648 base64 (padded, no whitespace), its decoded size checked
 * against the limit before anything is decoded, then gb_image_check(). */
GBytes   *gb_image_check_base64  (const char          *text,
                                  gsize                length,
                                  const GbImageLimits *limits,
                                  GbImageInfo         *info,
                                  GError             **error);

G_END_DECLS
