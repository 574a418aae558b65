/* gb-command-sync.h: a command sent to a game and confirmed through /state
 * (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gb-connector.h"

G_BEGIN_DECLS

/* Command and sync: the result object of spec section 4 (without
 * port/tool/via, which the caller adds). `close` waits for silence. */
void         gb_connector_command_async  (GbConnector         *self,
                                          const char          *command,
                                          JsonObject          *arguments,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
JsonObject  *gb_connector_command_finish (GbConnector   *self,
                                          GAsyncResult  *result,
                                          GError       **error);
/* Builds the query of a command: cmd first, objects JSON-encoded, null skipped. */
char        *gb_command_query            (const char  *command,
                                          JsonObject  *arguments,
                                          GError     **error);

G_END_DECLS
