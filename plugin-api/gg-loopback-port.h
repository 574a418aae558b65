/* gg-loopback-port.h: choosing a TCP port on 127.0.0.1 for a game a plugin
 * launches.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined (GAMEGATE_INSIDE) && !defined (GAMEGATE_COMPILATION)
#error "Only <gamegate.h> can be included directly."
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

gboolean gg_loopback_port_is_bindable (guint16   port);
guint16  gg_loopback_port_pick_free   (GError  **error);

G_END_DECLS
