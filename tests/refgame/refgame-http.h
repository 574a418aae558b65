/* refgame-http.h: the loopback HTTP surface of the reference game.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "refgame-game.h"
#include "refgame-screenshot.h"

G_BEGIN_DECLS

typedef struct _RgHttp RgHttp;

void      rg_http_keep_connections_alive (void);
RgHttp   *rg_http_new     (RgGame                    *game,
                           gboolean                   no_tools,
                           const RgScreenshotOptions *screenshot);
void      rg_http_free    (RgHttp    *http);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RgHttp, rg_http_free)

gboolean  rg_http_listen  (RgHttp    *http,
                           guint      port,
                           guint     *out_port,
                           GError   **error);
void      rg_http_stop    (RgHttp    *http);

G_END_DECLS
