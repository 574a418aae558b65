/* gg-test-server.h: a peer server a test spawns (a fake game, the reference
 * GABP mod) that listens on a port of its choosing and prints it as the
 * first line of its stdout.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct {
  GSubprocess *process;  /* NULL once killed */
  guint        port;
} GgTestServer;

/* Spawns @argv with @env ("NAME=VALUE", NULL-terminated, nullable) added,
 * and reads its first stdout line: the port, after @port_prefix (nullable,
 * e.g. "GABP_SERVER_PORT="). The server dies with the test process. Fails
 * the test if it does not say a port in time. */
GgTestServer *gg_test_server_start (const char * const *argv,
                                    const char * const *env,
                                    const char         *port_prefix);
/* SIGKILL, for a test of a peer that vanishes; the server is kept. */
void          gg_test_server_kill  (GgTestServer *server);
/* SIGTERM (a clean shutdown) unless killed, then frees it. */
void          gg_test_server_free  (GgTestServer *server);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgTestServer, gg_test_server_free)

G_END_DECLS
