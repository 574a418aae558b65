/* gb-instance-tools.h: launch_instance, stop_instance and instance_log (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gb-bridge.h"
#include "gb-mcp-server.h"

G_BEGIN_DECLS

void        gb_instance_tools_launch_async (GbBridge            *bridge,
                                            JsonObject          *arguments,
                                            GbMcpCall           *call,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
void        gb_instance_tools_stop_async   (GbBridge            *bridge,
                                            guint                port,
                                            guint                grace_ms,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
/* Both complete with a JsonObject: g_task_propagate_pointer(). */
JsonObject *gb_instance_tools_log          (GbBridge    *bridge,
                                            guint        port,
                                            guint        lines,
                                            GError     **error);

G_END_DECLS
