/* gb-errors.h: the error classes of spec section 5: GameOffline,
 * NotAGameSurface, CommandTimeout, HttpStatusError, BridgeUsageError
 * (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

#define GB_ERROR (gb_error_quark ())
GQuark gb_error_quark (void);

typedef enum {
  GB_ERROR_GAME_OFFLINE,
  GB_ERROR_NOT_A_GAME_SURFACE,
  GB_ERROR_COMMAND_TIMEOUT,
  GB_ERROR_HTTP_STATUS,
  GB_ERROR_USAGE,
  GB_ERROR_COMMAND_REJECTED,
  /* gamegate's extension (docs/game-bridge-extensions.md): the game serves
   * no screenshot, or what it served is not an image an agent may get. */
  GB_ERROR_NO_SCREENSHOT,
  GB_ERROR_BAD_IMAGE,
} GbErrorCode;

void  gb_error_game_offline    (GError    **error,
                                guint       port,
                                const char *launch_hint);
void  gb_error_not_a_game      (GError    **error,
                                guint       port,
                                const char *what);
void  gb_error_command_timeout (GError    **error,
                                const char *command,
                                guint       port,
                                guint       timeout_ms);
void  gb_error_http_status     (GError    **error,
                                guint       port,
                                const char *path,
                                guint       status,
                                const char *body,
                                gsize       body_len);
void  gb_error_usage           (GError    **error,
                                const char *format,
                                ...) G_GNUC_PRINTF (2, 3);
char *gb_substitute_port       (const char *text,
                                guint       port);

G_END_DECLS
