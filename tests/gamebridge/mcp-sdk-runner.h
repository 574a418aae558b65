/* mcp-sdk-runner.h: runs a client script of the official MCP TypeScript SDK
 * (tests/gamebridge/mcp-sdk/) against a server command and reads the JSON
 * it prints. Shared by the SDK tests.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

/* FALSE (after printing why) when node or the installed SDK is missing: the
 * test then exits 77. */
gboolean  mcp_sdk_available (void);

/* Runs `node SCRIPT [wrapper...] SERVER_ARGV...` in the SDK directory with
 * @launcher's environment (a new launcher when NULL); the server command runs
 * under GAMEGATE_TEST_WRAPPER when set. Fails the test unless the script
 * exits 0 within @timeout_ms and prints one JSON document, which it returns. */
JsonNode *mcp_sdk_run       (const char          *script,
                             const char * const  *server_argv,
                             GSubprocessLauncher *launcher,
                             guint                timeout_ms);

/* Runs `node SCRIPT ARGV...` the same way, for a client of a server that
 * runs on its own (the daemon's HTTP endpoint). */
JsonNode *mcp_sdk_run_client (const char          *script,
                              const char * const  *argv,
                              GSubprocessLauncher *launcher,
                              guint                timeout_ms);

/* The value at a dot path of the script's output; fails the test if absent. */
JsonNode *mcp_sdk_member    (JsonNode   *root,
                             const char *path);
