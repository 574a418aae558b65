/* gg-a2g-errors.c: status and body code of each A2G request error, and
 * the refusal of invalid input every checker makes.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-errors.h"

G_DEFINE_QUARK (gg-a2g-error-quark, gg_a2g_error)

static const struct {
  guint status;
  const char *code;
} rows[] = {
  [GG_A2G_ERROR_INVALID] = { 400, "invalid" },
  [GG_A2G_ERROR_UNAUTHORIZED] = { 401, "unauthorized" },
  [GG_A2G_ERROR_FORBIDDEN] = { 403, "forbidden" },
  [GG_A2G_ERROR_NOT_FOUND] = { 404, "not_found" },
  [GG_A2G_ERROR_METHOD_NOT_ALLOWED] = { 405, "method_not_allowed" },
  [GG_A2G_ERROR_UNKNOWN_SESSION] = { 409, "unknown_session" },
  [GG_A2G_ERROR_TOO_LARGE] = { 413, "too_large" },
  [GG_A2G_ERROR_UNSUPPORTED_MEDIA_TYPE] = { 415, "unsupported_media_type" },
  [GG_A2G_ERROR_RATE_LIMITED] = { 429, "rate_limited" },
  [GG_A2G_ERROR_UNAVAILABLE] = { 503, "unavailable" },
};

/** gg_a2g_error_status: Returns: the HTTP status of @code. */
guint
gg_a2g_error_status (GgA2gError code)
{
  return (guint) code < G_N_ELEMENTS (rows) ? rows[code].status : 500;
}

/** gg_a2g_error_code: Returns: the body `code` of @code. */
const char *
gg_a2g_error_code (GgA2gError code)
{
  return (guint) code < G_N_ELEMENTS (rows) ? rows[code].code : "error";
}

/**
 * gg_a2g_invalid:
 * @error: where to put the error
 * @format: the refusal, naming the field
 *
 * Sets %GG_A2G_ERROR_INVALID (400) with the message @format makes.
 *
 * Returns: %FALSE, for `return gg_a2g_invalid (…);`
 */
gboolean
gg_a2g_invalid (GError    **error,
                const char *format,
                ...)
{
  va_list args;

  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (GG_A2G_ERROR, GG_A2G_ERROR_INVALID, format, args));
  va_end (args);
  return FALSE;
}
