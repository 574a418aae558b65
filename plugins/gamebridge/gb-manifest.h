/* gb-manifest.h: a game's tool manifest (GET /tools, a --manifest file or
 * the fallback), read tolerantly (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

typedef struct {
  char       *name;
  char       *description;
  char       *command;
  char       *toolset;
  JsonObject *input_schema;
  GgSchema   *compiled;    /* @input_schema, compiled by the first gb_tool_check() */
  gboolean    compile_tried;
} GbTool;

typedef struct {
  char      *name;
  char      *description;
  GPtrArray *tools;        /* GbTool */
} GbToolset;

typedef struct {
  char      *source;       /* "game", "fallback", "file" */
  char      *game_name;
  char      *game_version;
  gint64     protocol;     /* -1 = unknown */
  GPtrArray *toolsets;     /* GbToolset */
  char      *passthrough_description;
  JsonArray *passthrough_examples;
  guint      dropped;      /* malformed tools left out */
  int        screenshot;   /* gamegate's `screenshot` member: -1 absent, 0 false, 1 */
} GbManifest;

void          gb_tool_free             (GbTool *tool);
gboolean      gb_tool_check            (GbTool      *tool,
                                        JsonObject  *arguments,
                                        GError     **error);
void          gb_toolset_free          (GbToolset *toolset);
GbManifest   *gb_manifest_parse        (JsonNode    *root,
                                        const char  *source,
                                        GError     **error);
GbManifest   *gb_manifest_new_fallback (void);
GbManifest   *gb_manifest_load_file    (const char  *path,
                                        GError     **error);
GbManifest   *gb_manifest_ref          (GbManifest *self);
void          gb_manifest_unref        (GbManifest *self);
GbTool       *gb_manifest_find_tool    (GbManifest *self,
                                        const char *name);
const GbToolset *gb_manifest_find_toolset (GbManifest *self,
                                           const char *name);
JsonArray    *gb_manifest_toolset_names (GbManifest *self);
JsonObject   *gb_tool_to_json          (const GbTool *tool);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GbManifest, gb_manifest_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GbToolset, gb_toolset_free)

G_END_DECLS
