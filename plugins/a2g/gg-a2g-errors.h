/* gg-a2g-errors.h: the request-level errors of A2G (spec section 6), one
 * GError code per row of the table, with its HTTP status and body code.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define GG_A2G_ERROR (gg_a2g_error_quark ())
GQuark gg_a2g_error_quark (void);

typedef enum {
  GG_A2G_ERROR_INVALID,                /* 400 */
  GG_A2G_ERROR_UNAUTHORIZED,           /* 401 */
  GG_A2G_ERROR_FORBIDDEN,              /* 403 */
  GG_A2G_ERROR_NOT_FOUND,              /* 404 */
  GG_A2G_ERROR_METHOD_NOT_ALLOWED,     /* 405 */
  GG_A2G_ERROR_UNKNOWN_SESSION,        /* 409 */
  GG_A2G_ERROR_TOO_LARGE,              /* 413 */
  GG_A2G_ERROR_UNSUPPORTED_MEDIA_TYPE, /* 415 */
  GG_A2G_ERROR_RATE_LIMITED,           /* 429 */
  GG_A2G_ERROR_UNAVAILABLE,            /* 503 */
} GgA2gError;

guint       gg_a2g_error_status (GgA2gError code);
const char *gg_a2g_error_code   (GgA2gError code);
gboolean    gg_a2g_invalid      (GError    **error,
                                 const char *format,
                                 ...) G_GNUC_PRINTF (2, 3);

G_END_DECLS
