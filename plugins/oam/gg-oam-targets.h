/* gg-oam-targets.h: the `targets` option (a gamegate extension): tools of
 * games on the bus offered to a session's or an NPC's model.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

/* At most this many entries in one `targets` option. */
#define GG_OAM_MAX_TARGETS 16

JsonArray *gg_oam_targets_parse          (JsonObject  *options,
                                          const char  *prefix,
                                          GError     **error);
char      *gg_oam_target_tool_name       (const char *tool);
gboolean   gg_oam_targets_may_offer      (JsonArray  *targets,
                                          const char *name);
void       gg_oam_targets_resolve_async  (JsonArray           *targets,
                                          GgBus               *bus,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
JsonArray *gg_oam_targets_resolve_finish (GAsyncResult  *result,
                                          GPtrArray     *warnings,
                                          GError       **error);
JsonArray *gg_oam_tools_with             (JsonArray *tools,
                                          JsonArray *extra,
                                          GPtrArray *warnings);

G_END_DECLS
