/* oam-stdio-driver.h: the engine's side of `gamegate oam` over real pipes,
 * for the benchmarks (bench-oam.c, and bench-oam-abi.c, which runs the same
 * work through the C ABI beside it).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  GPid     pid;
  int      in_fd;     /* gamegate's stdin */
  int      out_fd;    /* gamegate's stdout */
  GString *to_send;
  gsize    sent;
  GString *received; /* bytes after the last complete line */
  gboolean eof;
} Bridge;

/* Called for each complete line the bridge writes; returns TRUE to stop. */
typedef gboolean (*LineFunc) (Bridge *bridge, const char *line, gsize len, gpointer user_data);

/* A turn run of answer_tools(): responses still expected, tool calls seen. */
typedef struct {
  guint left;
  guint tool_calls;
} TurnRun;

const char *gamegate_bin    (void);
Bridge     *bridge_spawn    (const char *max_sessions);
int         bridge_finish   (Bridge *bridge);
void        bridge_queue    (Bridge *bridge, const char *line);
gboolean    bridge_pump     (Bridge *bridge, LineFunc func, gpointer user_data);
void        wait_responses  (Bridge *bridge, guint count);
gboolean    answer_tools    (Bridge *bridge, const char *line, gsize len, gpointer user_data);

/* The work both transports get (session r<round>s<session>, tool `stock`). */
void        oam_bench_turn_script    (GString *script, guint turns);
void        oam_bench_append_create  (GString *out, guint round, guint session, const char *script);
void        oam_bench_append_respond (GString *out, guint id, guint round, guint session);
void        oam_bench_append_delete  (GString *out, guint round, guint session);

/* Over stdio: pipelined pings per second; turns per second of @rounds of
 * @sessions sessions running @per_session turns each, all pipelined. */
double      stdio_bench_ping         (guint pings);
double      stdio_bench_turns        (guint rounds, guint sessions, guint per_session);

G_END_DECLS
