/* gg-composite-tool.h: tools a host or plugin composes from several game
 * commands, bound to one target when called (game-bridge spec section 8).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined (GAMEGATE_INSIDE) && !defined (GAMEGATE_COMPILATION)
#error "Only <gamegate.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "gg-bus.h"
#include "gg-target.h"

G_BEGIN_DECLS

/**
 * GgCompositeTool:
 *
 * A tool a host or plugin composes from several game commands, registered
 * on the bus with gg_bus_add_composite_tool() and bound to one target when
 * called (game-bridge spec section 8). Reference-counted and immutable.
 *
 * Since: 1.0
 */
typedef struct _GgCompositeTool GgCompositeTool;

#define GG_TYPE_COMPOSITE_TOOL (gg_composite_tool_get_type ())
GType gg_composite_tool_get_type (void) G_GNUC_CONST;

/**
 * GgCompositeToolFunc:
 * @target: the instance the call is bound to
 * @arguments: the call's arguments
 * @cancellable: (nullable): cancelled when the caller gives up
 * @task: complete it with g_task_return_pointer (@task, node,
 *   json_node_unref) (the tool's JSON result) or g_task_return_error()
 * @user_data: the data given at registration
 *
 * Runs one composite call, asynchronously.
 *
 * Since: 1.0
 */
typedef void (*GgCompositeToolFunc) (GgTarget     *target,
                                     JsonObject   *arguments,
                                     GCancellable *cancellable,
                                     GTask        *task,
                                     gpointer      user_data);

gboolean          gg_bus_add_composite_tool      (GgBus               *bus,
                                                  const char          *name,
                                                  const char          *description,
                                                  JsonObject          *input_schema,
                                                  const char * const  *only,
                                                  GgCompositeToolFunc  func,
                                                  gpointer             user_data,
                                                  GDestroyNotify       destroy,
                                                  GError             **error);
gboolean          gg_bus_remove_composite_tool   (GgBus      *bus,
                                                  const char *name);
GPtrArray        *gg_bus_list_composite_tools    (GgBus *bus);
GgCompositeTool  *gg_bus_lookup_composite_tool   (GgBus      *bus,
                                                  const char *name);

GgCompositeTool  *gg_composite_tool_ref          (GgCompositeTool *tool);
void              gg_composite_tool_unref        (GgCompositeTool *tool);
const char       *gg_composite_tool_get_name     (GgCompositeTool *tool);
const char       *gg_composite_tool_get_description (GgCompositeTool *tool);
JsonObject       *gg_composite_tool_get_input_schema (GgCompositeTool *tool);
const char * const *gg_composite_tool_get_only   (GgCompositeTool *tool);
gboolean          gg_composite_tool_applies_to   (GgCompositeTool *tool,
                                                  const char      *game_name);
void              gg_composite_tool_call_async   (GgCompositeTool     *tool,
                                                  GgTarget            *target,
                                                  JsonObject          *arguments,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
JsonNode         *gg_composite_tool_call_finish  (GgCompositeTool  *tool,
                                                  GAsyncResult     *result,
                                                  GError          **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgCompositeTool, gg_composite_tool_unref)

G_END_DECLS
