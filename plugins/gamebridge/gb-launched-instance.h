/* gb-launched-instance.h: one game instance this bridge launched and still
 * tracks (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>
#include <libsoup/soup.h>

#include "gb-launch-config.h"

G_BEGIN_DECLS

typedef struct _GbLaunchedInstance GbLaunchedInstance;

GbLaunchedInstance *gb_launched_instance_spawn      (GbLaunchConfig  *config,
                                                     guint            port,
                                                     GError         **error);
GbLaunchedInstance *gb_launched_instance_ref        (GbLaunchedInstance *self);
void                gb_launched_instance_unref      (GbLaunchedInstance *self);
guint               gb_launched_instance_get_port   (GbLaunchedInstance *self);
GgChildProcess     *gb_launched_instance_get_child  (GbLaunchedInstance *self);
const char         *gb_launched_instance_get_log_file (GbLaunchedInstance *self);
const char         *gb_launched_instance_get_name   (GbLaunchedInstance *self);
const char         *gb_launched_instance_get_cwd    (GbLaunchedInstance *self);
const char         *gb_launched_instance_get_command (GbLaunchedInstance *self);
/* The last @lines lines of output, oldest first. */
JsonArray          *gb_launched_instance_get_log    (GbLaunchedInstance *self,
                                                     guint               lines);
/* "Launch failed on port N: @why. Command..., Last output: ..." */
char               *gb_launched_instance_describe_failure (GbLaunchedInstance *self,
                                                           const char         *why);
/* The game's own close, then SIGTERM and SIGKILL of its process group;
 * completes with `{port, stopped, how}`. */
void                gb_launched_instance_stop_async (GbLaunchedInstance  *self,
                                                     SoupSession         *session,
                                                     guint                grace_ms,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
JsonObject         *gb_launched_instance_stop_finish (GAsyncResult  *result,
                                                      GError       **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GbLaunchedInstance, gb_launched_instance_unref)

G_END_DECLS
