/* gb-mcp-client.h: a spawned `gamegate mcp` and an MCP client over its
 * pipes, for the gamebridge tests and benchmark.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <libsoup/soup.h>

#include "gg-test-util.h"

G_BEGIN_DECLS

typedef struct {
  GgTestProcess *process;
  gint64 next_id;
  char *registry_dir;
  guint progress_seen;
  GQueue logs;            /* JsonObject: params of notifications/message */
} Mcp;

Mcp        *mcp_start        (const char * const *extra_args,
                              const char * const *extra_env);
void        mcp_free         (Mcp *mcp);
/* Sends a request and returns its response (notifications on the way are counted). */
JsonObject *mcp_request      (Mcp        *mcp,
                              const char *method,
                              const char *params_json);
/* tools/call: the CallToolResult. */
JsonObject *mcp_call         (Mcp        *mcp,
                              const char *tool,
                              const char *arguments_json);
/* tools/call that must succeed: its structuredContent. */
JsonObject *mcp_call_ok      (Mcp        *mcp,
                              const char *tool,
                              const char *arguments_json);
/* tools/call that must fail: its text. */
char       *mcp_call_error   (Mcp        *mcp,
                              const char *tool,
                              const char *arguments_json);
/* The next notifications/message (its params), read on the way of earlier
 * requests or waited for; NULL after @timeout_ms. */
JsonObject *mcp_next_log     (Mcp        *mcp,
                              guint       timeout_ms);
gboolean    pid_alive        (gint64 pid);
guint       free_port        (void);
/* Streamable HTTP to `gamegate serve`'s /mcp (daemon tests). */
JsonObject *http_mcp         (SoupSession *session,
                              guint        port,
                              char       **session_id,
                              const char  *body);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Mcp, mcp_free)

/* A spawned `gamegate serve` whose MCP endpoint listens on a free port. */
typedef struct {
  GgTestProcess *process;
  char          *dir;     /* its config and registry */
  guint          port;
  char          *url;     /* http://127.0.0.1:<port>/mcp */
} McpDaemon;

/* @gamebridge_keys: lines for its [gamebridge] group (http-port is set);
 * @extra_env: more KEY=VALUE (or KEY to unset) for the daemon. */
McpDaemon  *mcp_daemon_start   (const char         *gamebridge_keys,
                                const char * const *extra_env);
/* VmRSS of the daemon (of valgrind, under the wrapper), in KiB. */
gint64      mcp_daemon_rss_kib (McpDaemon *daemon);
/* Its open file descriptors. */
guint       mcp_daemon_fd_count (McpDaemon *daemon);
/* SIGTERM; fails the test unless it exits 0 (no sanitizer or valgrind
 * report) without a GLib critical. */
void        mcp_daemon_stop    (McpDaemon *daemon);

G_END_DECLS
