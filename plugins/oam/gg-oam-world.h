/* gg-oam-world.h: a world blackboard: one JSON object the game and its NPCs
 * share, changed atomically, with a change signal per changed leaf.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

#define GG_TYPE_OAM_WORLD (gg_oam_world_get_type ())
G_DECLARE_FINAL_TYPE (GgOamWorld, gg_oam_world, GG, OAM_WORLD, GObject)

/* Signal `changed` (const char *path, JsonNode *old_value, JsonNode *new_value):
 * once per changed leaf, after the change; @old_value is NULL when the value
 * was created and @new_value NULL when it was removed. */

GgOamWorld *gg_oam_world_new            (const char  *id,
                                         JsonObject  *state);
const char *gg_oam_world_get_id         (GgOamWorld *self);
gint64      gg_oam_world_get_version    (GgOamWorld *self);
const char *gg_oam_world_get_created_at (GgOamWorld *self);
JsonNode   *gg_oam_world_get            (GgOamWorld  *self,
                                         const char  *path,
                                         gboolean    *exists,
                                         GError     **error);
gboolean    gg_oam_world_set            (GgOamWorld  *self,
                                         const char  *path,
                                         JsonNode    *value,
                                         GError     **error);
gboolean    gg_oam_world_merge          (GgOamWorld  *self,
                                         const char  *path,
                                         JsonNode    *patch,
                                         GError     **error);
gboolean    gg_oam_world_remove         (GgOamWorld  *self,
                                         const char  *path,
                                         JsonNode   **old_value,
                                         GError     **error);
JsonNode   *gg_oam_world_snapshot       (GgOamWorld *self);

gboolean    gg_oam_path_is_related      (const char *subscription_path,
                                         const char *changed_path);

G_END_DECLS
