/* gg-gabp-launcher.h: starts a game with its mod the way GABS does
 * (GABP_SERVER_PORT, a fresh GABP_TOKEN, GABS_GAME_ID) and stops it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

#define GG_TYPE_GABP_LAUNCHER (gg_gabp_launcher_get_type ())
G_DECLARE_FINAL_TYPE (GgGabpLauncher, gg_gabp_launcher, GG, GABP_LAUNCHER, GObject)

/* Signals: `exited` (int wait_status). */
GgGabpLauncher *gg_gabp_launcher_new           (const char         *game_id,
                                                const char * const *argv,
                                                guint16             port);
char          **gg_gabp_launcher_build_environ (const char * const *base,
                                                guint16             port,
                                                const char         *token,
                                                const char         *game_id);
gboolean        gg_gabp_launcher_launch        (GgGabpLauncher  *self,
                                                GError         **error);
gboolean        gg_gabp_launcher_is_running    (GgGabpLauncher *self);
guint16         gg_gabp_launcher_get_port      (GgGabpLauncher *self);
const char     *gg_gabp_launcher_get_token     (GgGabpLauncher *self);
void            gg_gabp_launcher_stop_async    (GgGabpLauncher      *self,
                                                guint                grace_ms,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
gboolean        gg_gabp_launcher_stop_finish   (GgGabpLauncher  *self,
                                                GAsyncResult    *result,
                                                GError         **error);

G_END_DECLS
