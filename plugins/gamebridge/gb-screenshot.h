/* gb-screenshot.h: the `screenshot` tool of the bridge toolset, on an HTTP
 * game (GET /screenshot) or on another plugin's target (a GABP mod's tool
 * whose result carries an image), and images in other tools' results
 * (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

#include "gb-image.h"

G_BEGIN_DECLS

/* The input schema of `screenshot`, and of call_tool's `screenshot`
 * object. */
const char *gb_screenshot_schema (void);

/* Runs `screenshot` on @target with @arguments (checked against its
 * schema): an HTTP game's limits are its connector's, other targets' are
 * @limits. The body is `{frame?, mimeType, width, height, bytes, image}`
 * where `image` is `{mimeType, data}`, data in base64. */
void        gb_screenshot_tool_async  (GgTarget            *target,
                                       JsonObject          *arguments,
                                       const GbImageLimits *limits,
                                       guint                timeout_ms,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data);
JsonObject *gb_screenshot_tool_finish (GAsyncResult  *result,
                                       GError       **error);

/* call_tool's `"screenshot": true` (or an object of the tool's arguments):
 * once the call returned @call_result, the screenshot goes beside it as
 * its `screenshot` member and `image`; a screenshot that fails leaves the
 * command's result whole, with `screenshotError`. */
void        gb_screenshot_after_call_async  (GgTarget            *target,
                                             JsonObject          *call_result,
                                             JsonNode            *screenshot,
                                             const GbImageLimits *limits,
                                             guint                timeout_ms,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
JsonObject *gb_screenshot_after_call_finish (GAsyncResult  *result,
                                             GError       **error);

/* A tool result of another plugin's target that carries an image
 * (`{"image": {"mimeType", "data"}}`, the extension's one form): checks
 * it, replaces it in @result by `{mimeType, width, height, bytes}` and
 * returns it, to go beside the result as MCP image content. %NULL and no
 * error when @result carries none. */
JsonObject *gb_screenshot_take_image  (JsonObject          *result,
                                       const GbImageLimits *limits,
                                       const char          *source,
                                       GError             **error);

/* The name of a mod's screenshot tool in a target's tool list: the first
 * tagged "screenshot", else the first named ".../screenshot"; %NULL. */
const char *gb_screenshot_find_tool   (JsonArray *tools);

/* Moves `image` out of a tool's result object: (transfer full) the image
 * `{mimeType, data}`, or %NULL. */
JsonObject *gb_screenshot_steal_image (JsonObject *result);

G_END_DECLS
