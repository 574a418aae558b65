/* gg-test-line-client.h: a client of a daemon's Unix socket that speaks one
 * message per line (oam, the bus tap), with blocking reads bounded by a
 * socket timeout so a silent daemon fails the test instead of hanging it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct {
  GSocketConnection *connection;
  GDataInputStream  *input;
} GgTestLineClient;

GgTestLineClient *gg_test_line_client_connect (const char       *path);
void              gg_test_line_client_free    (GgTestLineClient *client);
void              gg_test_line_client_send    (GgTestLineClient *client,
                                               const char       *line);
char             *gg_test_line_client_recv    (GgTestLineClient *client);
char             *gg_test_line_client_recv_or_end (GgTestLineClient *client);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgTestLineClient, gg_test_line_client_free)

G_END_DECLS
