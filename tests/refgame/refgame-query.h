/* refgame-query.h: strict parsing of a hostile query string.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define RG_QUERY_MAX_LENGTH  8192  /* raw, still percent-encoded */
#define RG_QUERY_MAX_PARAMS    32
#define RG_QUERY_MAX_KEY       64  /* decoded bytes */
#define RG_QUERY_MAX_VALUE   4096  /* decoded bytes */

#define RG_QUERY_ERROR (rg_query_error_quark ())
GQuark rg_query_error_quark (void);

typedef enum {
  RG_QUERY_ERROR_TOO_LONG,
  RG_QUERY_ERROR_TOO_MANY,
  RG_QUERY_ERROR_BAD_ENCODING,
  RG_QUERY_ERROR_DUPLICATE,
} RgQueryError;

GHashTable *rg_query_parse (const char  *raw,
                            GError     **error);

G_END_DECLS
