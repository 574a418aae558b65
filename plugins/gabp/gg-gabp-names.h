/* gg-gabp-names.h: how bus targets' tools and channels are named on
 * gamegate's GABP mod-side server.
 *
 * A GABP tool name must match ^[a-z][a-z0-9_-]*(/[a-z][a-z0-9_-]*)+$. The
 * mapping is `<target>/<tool>`, where
 *  - <target> is the target id with ':' turned into '-' ("http:7820" ->
 *    "http-7820", "gabp:rimworld" -> "gabp-rimworld");
 *  - <tool> is the tool's name split at '/', each segment lowercased, every
 *    character outside [a-z0-9_-] replaced by '_', empty segments dropped
 *    ("inventory.get" -> "inventory_get", "Look/Around" -> "look/around");
 *  - a segment not starting with a letter gets a "t" in front ("7820" ->
 *    "t7820");
 *  - when two tools end up with the same name, the later ones get "-2",
 *    "-3", ... appended.
 * Forwarded event channels are `<target>/<channel>`.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *gg_gabp_name_segment    (const char *text);
char *gg_gabp_name_for_target (const char *target_id);
char *gg_gabp_name_for_tool   (const char *target_id,
                               const char *tool);
gboolean gg_gabp_name_is_valid (const char *name);

G_END_DECLS
