/* gb-target.h: one live HTTP game as a bus target (id "http:<port>")
 * (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gb-connector.h"

G_BEGIN_DECLS

#define GB_TYPE_HTTP_TARGET (gb_http_target_get_type ())
G_DECLARE_FINAL_TYPE (GbHttpTarget, gb_http_target, GB, HTTP_TARGET, GObject)

GbHttpTarget *gb_http_target_new            (GbConnector *connector);
GbConnector  *gb_http_target_get_connector  (GbHttpTarget *self);
void          gb_http_target_set_info       (GbHttpTarget *self,
                                             JsonObject   *info);

G_END_DECLS
