/* gg-oam-tools.h: client tool definitions and the tool/call executor.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

JsonObject *gg_oam_tool_parse      (JsonNode   *definition,
                                    const char *param,
                                    JsonNode  **generation_schema,
                                    GPtrArray  *warnings,
                                    GError    **error);
JsonArray  *gg_oam_tools_parse     (JsonArray  *definitions,
                                    const char *param,
                                    GPtrArray  *warnings,
                                    GError    **error);
char      **gg_oam_tools_names     (JsonArray *tools);
gboolean    gg_oam_tools_has       (JsonArray  *tools,
                                    const char *name);
JsonNode   *gg_oam_tools_to_json   (JsonArray *tools);

typedef struct _GgOamToolContext GgOamToolContext;

GgOamToolContext *gg_oam_tool_context_new   (GgBus         *bus,
                                             GgJsonRpcPeer *peer,
                                             JsonObject    *context,
                                             JsonNode      *request_id);
void              gg_oam_tool_context_free  (GgOamToolContext *context);
void              gg_oam_tool_execute       (GgToolInvocation *invocation,
                                             gpointer          user_data);
void              gg_oam_turn_use_client_tools (GgAgentTurn   *turn,
                                                GgBus         *bus,
                                                GgJsonRpcPeer *peer,
                                                JsonObject    *context,
                                                JsonNode      *request_id);

G_END_DECLS
