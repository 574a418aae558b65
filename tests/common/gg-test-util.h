/* gg-test-util.h: helpers shared by gamegate's test programs.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

/* Timeouts: a base figure scaled up when the spawned gamegate runs under a
 * wrapper (valgrind) or when GAMEGATE_TEST_TIMEOUT_SCALE says so. */
guint        gg_test_timeout_ms           (guint base_ms);

/* Iterates the default main context until @done is TRUE or the time is up. */
gboolean     gg_test_wait_until           (gboolean *done,
                                           guint     timeout_ms);

/* Iterates the default main context until @check (@data) holds or the time
 * is up; returns what @check says last. */
typedef gboolean (*GgTestCheckFunc) (gpointer data);
gboolean     gg_test_wait_for             (GgTestCheckFunc check,
                                           gpointer        data,
                                           guint           timeout_ms);

/* Runs the default main context for @ms (so pipes keep being drained). */
void         gg_test_spin                 (guint ms);

/* Connects to 127.0.0.1:@port, retrying every 50 ms (running the main
 * context in between) while a server starts; NULL once @timeout_ms is up. */
GSocketConnection *gg_test_connect_with_retry (guint16 port,
                                               guint   timeout_ms);

/* Reads one line (without its "\n") from @input with a main-loop timeout.
 * Returns NULL with G_IO_ERROR_TIMED_OUT, another error, or no error at EOF. */
char        *gg_test_read_line            (GDataInputStream *input,
                                           guint             timeout_ms,
                                           GError          **error);

/* A spawned `gamegate` ($GAMEGATE_BIN, behind $GAMEGATE_TEST_WRAPPER) with
 * pipes on stdin, stdout and stderr. stderr is collected as it comes. */
typedef struct _GgTestProcess GgTestProcess;

GgTestProcess *gg_test_process_spawn        (const char * const *args,
                                             const char * const *env,
                                             GError            **error);
gboolean       gg_test_process_write_line   (GgTestProcess *process,
                                             const char    *line,
                                             GError       **error);
void           gg_test_process_close_stdin  (GgTestProcess *process);
char          *gg_test_process_read_line    (GgTestProcess *process,
                                             guint          timeout_ms,
                                             GError       **error);
char          *gg_test_process_read_stdout  (GgTestProcess *process,
                                             guint          timeout_ms);
void           gg_test_process_send_signal  (GgTestProcess *process,
                                             int            signum);
gboolean       gg_test_process_wait         (GgTestProcess *process,
                                             guint          timeout_ms,
                                             int           *exit_status);
const char    *gg_test_process_get_stderr   (GgTestProcess *process);
/* The pid of the spawned program (the wrapper, under valgrind), as text. */
const char    *gg_test_process_get_pid      (GgTestProcess *process);
guint          gg_test_process_count_in_stderr (GgTestProcess *process,
                                                const char    *needle);
/* Stops it (SIGTERM, then SIGKILL) unless it exited; fails the test if
 * its stderr holds a report (gg_test_find_report()). */
void           gg_test_process_free         (GgTestProcess *process);
char          *gg_test_find_report          (const char    *text);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgTestProcess, gg_test_process_free)

/* Runs gamegate to completion: stdout, stderr and the exit status (or 128 +
 * signal number). Fails the test if it does not exit in time. */
int            gg_test_run                  (const char * const *args,
                                             const char * const *env,
                                             const char         *input,
                                             char              **out_stdout,
                                             char              **out_stderr);

/* Expected log messages in-process: every message of @domain at @level
 * matching @pattern (a GPatternSpec) is counted instead of printed; any other
 * warning or critical still fails the test. */
typedef struct _GgTestLogCapture GgTestLogCapture;

GgTestLogCapture *gg_test_log_capture_new   (const char     *domain,
                                             GLogLevelFlags  level,
                                             const char     *pattern);
guint             gg_test_log_capture_count (GgTestLogCapture *capture);
void              gg_test_log_capture_free  (GgTestLogCapture *capture);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgTestLogCapture, gg_test_log_capture_free)

G_END_DECLS
