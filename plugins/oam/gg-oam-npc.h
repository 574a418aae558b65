/* gg-oam-npc.h: NPCs (the npc methods): what the other method sets need of them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-oam-connection.h"

G_BEGIN_DECLS

char  *gg_oam_npc_describe      (GgOamConnection *conn,
                                 const char      *npc,
                                 GError         **error);
guint  gg_oam_npcs_count_world  (GgOamConnection *conn,
                                 GgOamWorld      *world);

G_END_DECLS
