/* gg-oam-params.h: typed access to request params, with -32602 messages
 * that name the parameter ('options.toolChoice').
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

/* The longest timeout any …TimeoutSeconds parameter accepts: one day. */
#define GG_OAM_MAX_TIMEOUT_SECONDS 86400.0

JsonNode *gg_oam_param             (JsonObject *object,
                                    const char *name);
char     *gg_oam_param_name        (const char *prefix,
                                    const char *name);
GError   *gg_oam_invalid_params    (const char *format,
                                    ...) G_GNUC_PRINTF (1, 2);
gboolean  gg_oam_param_string      (JsonObject  *object,
                                    const char  *prefix,
                                    const char  *name,
                                    gboolean     required,
                                    const char **out,
                                    GError     **error);
gboolean  gg_oam_param_id          (JsonObject  *object,
                                    const char  *prefix,
                                    const char  *name,
                                    gboolean     required,
                                    const char **out,
                                    GError     **error);
gboolean  gg_oam_param_bool        (JsonObject *object,
                                    const char *prefix,
                                    const char *name,
                                    gboolean    default_value,
                                    gboolean   *out,
                                    GError    **error);
gboolean  gg_oam_param_int         (JsonObject *object,
                                    const char *prefix,
                                    const char *name,
                                    gint64      min,
                                    gint64      max,
                                    gint64      default_value,
                                    gint64     *out,
                                    GError    **error);
gboolean  gg_oam_param_double      (JsonObject *object,
                                    const char *prefix,
                                    const char *name,
                                    double      min,
                                    double      max,
                                    double      default_value,
                                    double     *out,
                                    GError    **error);
gboolean  gg_oam_param_seconds     (JsonObject *object,
                                    const char *prefix,
                                    const char *name,
                                    gint64      default_ms,
                                    gint64     *out_ms,
                                    GError    **error);
gboolean  gg_oam_param_object      (JsonObject  *object,
                                    const char  *prefix,
                                    const char  *name,
                                    gboolean     required,
                                    JsonObject **out,
                                    GError     **error);
gboolean  gg_oam_param_array       (JsonObject  *object,
                                    const char  *prefix,
                                    const char  *name,
                                    gboolean     required,
                                    JsonArray  **out,
                                    GError     **error);
gboolean  gg_oam_param_strv        (JsonObject  *object,
                                    const char  *prefix,
                                    const char  *name,
                                    char      ***out,
                                    GError     **error);
char     *gg_oam_param_text        (JsonObject *object,
                                    const char *name);
void      gg_oam_warn_unknown      (JsonObject         *object,
                                    const char         *prefix,
                                    const char * const *known,
                                    GPtrArray          *warnings);
gboolean  gg_oam_is_valid_id       (const char *id);
const char *gg_oam_object_string   (JsonObject *object,
                                    const char *name,
                                    const char *default_value);
gboolean  gg_oam_object_bool       (JsonObject *object,
                                    const char *name,
                                    gboolean    default_value);
JsonNode *gg_oam_warnings_to_json  (GPtrArray *warnings);

G_END_DECLS
