/* refgame-commands.h: the commands the reference game accepts, and the
 * typing of their query-string arguments.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define RG_COMMAND_ERROR (rg_command_error_quark ())
GQuark rg_command_error_quark (void);

typedef enum {
  RG_COMMAND_ERROR_MISSING_CMD,
  RG_COMMAND_ERROR_UNKNOWN_COMMAND,
  RG_COMMAND_ERROR_MISSING_ARGUMENT,
  RG_COMMAND_ERROR_INVALID_ARGUMENT,
} RgCommandError;

const char * const *rg_commands_known        (void);
const char         *rg_command_error_code    (const GError *error);

JsonObject         *rg_commands_parse        (GHashTable   *params,
                                              char        **out_name,
                                              GPtrArray   **out_ignored,
                                              GError      **error);

G_END_DECLS
