/* gg-oam-errors.h: oam's error vocabulary (spec section 8) and the mapping
 * of every library error onto it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

#define GG_OAM_PARSE_ERROR            (-32700)
#define GG_OAM_INVALID_MESSAGE        (-32600)
#define GG_OAM_METHOD_NOT_FOUND       (-32601)
#define GG_OAM_INVALID_PARAMS         (-32602)
#define GG_OAM_INTERNAL_ERROR         (-32603)
#define GG_OAM_MODEL_UNAVAILABLE      (-32001)
#define GG_OAM_GUARDRAIL_VIOLATION    (-32002)
#define GG_OAM_REFUSAL                (-32003)
#define GG_OAM_INVALID_SCHEMA         (-32007)
#define GG_OAM_CANCELLED              (-32009)
#define GG_OAM_INVALID_REQUEST        (-32011)
#define GG_OAM_SESSION_NOT_FOUND      (-32020)
#define GG_OAM_SESSION_EXISTS         (-32021)
#define GG_OAM_SESSION_LIMIT          (-32022)
#define GG_OAM_SHUT_DOWN              (-32023)
#define GG_OAM_TIMEOUT                (-32024)
#define GG_OAM_NPC_NOT_FOUND          (-32050)
#define GG_OAM_NPC_EXISTS             (-32051)
#define GG_OAM_WORLD_NOT_FOUND        (-32052)
#define GG_OAM_WORLD_EXISTS           (-32053)
#define GG_OAM_WORLD_ERROR            (-32054)
#define GG_OAM_LIMIT_REACHED          (-32055)
#define GG_OAM_SUBSCRIPTION_NOT_FOUND (-32056)

const char *gg_oam_error_code_name   (int code);
GError     *gg_oam_error_new         (int         code,
                                      JsonObject *data,
                                      const char *format,
                                      ...) G_GNUC_PRINTF (3, 4);
GError     *gg_oam_error_new_member  (int         code,
                                      const char *member,
                                      const char *value,
                                      const char *format,
                                      ...) G_GNUC_PRINTF (4, 5);
GError     *gg_oam_error_limit       (int         code,
                                      gint64      limit,
                                      const char *format,
                                      ...) G_GNUC_PRINTF (3, 4);
GError     *gg_oam_error_cancelled   (void);
GError     *gg_oam_error_translate   (const GError *error);
gboolean    gg_oam_error_is_cancelled (const GError *error);
JsonNode   *gg_oam_error_to_json     (const GError *error);
void        gg_oam_return_error      (GgJsonRpcRequest *request,
                                      const GError     *error);

G_END_DECLS
