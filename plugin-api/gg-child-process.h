/* gg-child-process.h: a game process a plugin launched: its own process
 * group, the last lines of its output, and a stop that escalates from the
 * game's own close to SIGTERM and SIGKILL of the whole group.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined (GAMEGATE_INSIDE) && !defined (GAMEGATE_COMPILATION)
#error "Only <gamegate.h> can be included directly."
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * GG_CHILD_PROCESS_TAIL_LINES:
 *
 * How many of the last output lines a #GgChildProcess keeps in memory.
 *
 * Since: 1.0
 */
#define GG_CHILD_PROCESS_TAIL_LINES 200

/**
 * GgChildProcessFlags:
 * @GG_CHILD_PROCESS_NONE: stdout goes to the parent's stderr (so a parent
 *   that speaks a protocol on its own stdout stays clean), stderr is
 *   inherited
 * @GG_CHILD_PROCESS_CAPTURE_OUTPUT: stdout and stderr are read line by line:
 *   each line is emitted as #GgChildProcess::line and the last
 *   %GG_CHILD_PROCESS_TAIL_LINES are kept
 *
 * How a child's output is handled. Its stdin is always `/dev/null`.
 *
 * Since: 1.0
 */
typedef enum {
  GG_CHILD_PROCESS_NONE           = 0,
  GG_CHILD_PROCESS_CAPTURE_OUTPUT = 1 << 0,
} GgChildProcessFlags;

/**
 * GgChildStopHow:
 * @GG_CHILD_STOP_EXITED: it exited on its own within the close wait
 * @GG_CHILD_STOP_TERMINATED: it exited after SIGTERM to its process group
 * @GG_CHILD_STOP_KILLED: it exited after SIGKILL to its process group
 * @GG_CHILD_STOP_WOULD_NOT_DIE: it was still there after SIGKILL
 *
 * How gg_child_process_stop_async() ended.
 *
 * Since: 1.0
 */
typedef enum {
  GG_CHILD_STOP_EXITED,
  GG_CHILD_STOP_TERMINATED,
  GG_CHILD_STOP_KILLED,
  GG_CHILD_STOP_WOULD_NOT_DIE,
} GgChildStopHow;

/**
 * GgChildProcess:
 *
 * A process a plugin launched, leading its own process group; see
 * gg_child_process_spawn().
 *
 * Since: 1.0
 */
#define GG_TYPE_CHILD_PROCESS (gg_child_process_get_type ())
G_DECLARE_FINAL_TYPE (GgChildProcess, gg_child_process, GG, CHILD_PROCESS, GObject)

GgChildProcess *gg_child_process_spawn           (const char * const  *argv,
                                                  const char * const  *envp,
                                                  const char          *cwd,
                                                  GgChildProcessFlags  flags,
                                                  GError             **error);
gint64          gg_child_process_get_pid         (GgChildProcess *self);
gboolean        gg_child_process_has_exited      (GgChildProcess *self);
int             gg_child_process_get_wait_status (GgChildProcess *self);
char           *gg_child_process_describe_exit   (GgChildProcess *self);
char          **gg_child_process_get_tail        (GgChildProcess *self,
                                                  guint           max_lines);
void            gg_child_process_signal_group    (GgChildProcess *self,
                                                  int             signum);
void            gg_child_process_wait_async      (GgChildProcess      *self,
                                                  guint                timeout_ms,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
gboolean        gg_child_process_wait_finish     (GgChildProcess  *self,
                                                  GAsyncResult    *result,
                                                  GError         **error);
void            gg_child_process_stop_async      (GgChildProcess      *self,
                                                  guint                close_ms,
                                                  guint                term_ms,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
GgChildStopHow  gg_child_process_stop_finish     (GgChildProcess  *self,
                                                  GAsyncResult    *result,
                                                  GError         **error);

G_END_DECLS
