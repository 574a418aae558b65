/* gb-launcher.h: launching game instances from the launch declaration and
 * tracking them (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>
#include <libsoup/soup.h>

#include "gb-launch-config.h"

G_BEGIN_DECLS

#define GB_LOG_LINES           GG_CHILD_PROCESS_TAIL_LINES

#define GB_TYPE_LAUNCHER (gb_launcher_get_type ())
G_DECLARE_FINAL_TYPE (GbLauncher, gb_launcher, GB, LAUNCHER, GObject)

typedef void (*GbLaunchProgress) (double elapsed_ms, double total_ms, const char *message, gpointer user_data);

GbLauncher *gb_launcher_new              (SoupSession *session);
void        gb_launcher_launch_async     (GbLauncher          *self,
                                          GbLaunchConfig      *config,
                                          guint                port,
                                          guint                timeout_ms,
                                          GbLaunchProgress     progress,
                                          gpointer             progress_data,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
JsonObject *gb_launcher_launch_finish    (GbLauncher    *self,
                                          GAsyncResult  *result,
                                          GError       **error);
gboolean    gb_launcher_owns             (GbLauncher *self,
                                          guint       port);
GArray     *gb_launcher_list_ports       (GbLauncher *self);
gint64      gb_launcher_get_pid          (GbLauncher *self,
                                          guint       port);
/* The last @lines lines of output, oldest first; NULL if not launched here. */
JsonArray  *gb_launcher_get_log          (GbLauncher *self,
                                          guint       port,
                                          guint       lines,
                                          char      **out_log_file);
void        gb_launcher_stop_async       (GbLauncher          *self,
                                          guint                port,
                                          guint                grace_ms,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
JsonObject *gb_launcher_stop_finish      (GbLauncher    *self,
                                          GAsyncResult  *result,
                                          GError       **error);
/* Stops every launched instance; completes when all are gone. */
void        gb_launcher_stop_all_async   (GbLauncher          *self,
                                          guint                grace_ms,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
void        gb_launcher_stop_all_finish  (GbLauncher    *self,
                                          GAsyncResult  *result);

G_END_DECLS
