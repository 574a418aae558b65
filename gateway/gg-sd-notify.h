/* gg-sd-notify.h: the systemd readiness protocol, without libsystemd.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char     *gg_sd_notify_take_socket (void);
gboolean  gg_sd_notify_send        (const char  *address,
                                    const char  *state,
                                    GError     **error);

G_END_DECLS
