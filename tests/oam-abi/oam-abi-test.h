/* oam-abi-test.h: the host side of the C ABI tests: a callback that records
 * every line (and checks it is never re-entered and always on one thread
 * the bridge owns), with behaviours a test switches on: answering
 * `tool/call` from inside the callback, destroying the bridge from inside
 * it, sleeping in it.
 *
 * The tests use gamegate-oam.h and the library only, as an engine does.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <pthread.h>

#include <gamegate-oam.h>

G_BEGIN_DECLS

typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  GPtrArray *lines;               /* char *, every line in order */
  oam_bridge *bridge;             /* for what the callback does itself */
  int inside;                     /* callbacks running now */
  gboolean overlapped;            /* two ran at once */
  gboolean thread_known;
  pthread_t thread;               /* the one the callbacks ran on */
  gboolean thread_changed;

  /* behaviours */
  char *tool_output;              /* answer tool/call with this output (JSON) */
  char *destroy_on;               /* destroy from the callback on a line holding it */
  gboolean destroyed;             /* ... done */
  guint after_destroy;            /* callbacks after that (must stay 0) */
  char *sleep_on;                 /* sleep in the callback on a line holding it */
  guint sleep_ms;
  gboolean slept;                 /* ... and the sleep ended */
  char *hold_on;                  /* wait in the callback on a line holding it ... */
  gboolean released;              /* ... until abi_release() */
  char *blocking_on;              /* call oam_call_blocking() from the callback */
  char *blocking_result;          /* ... what it answered */
} AbiRecorder;

AbiRecorder *abi_recorder_new      (void);
void         abi_recorder_free     (AbiRecorder *rec);
void         abi_callback          (const char *json_line,
                                    void       *user_data);
oam_bridge  *abi_bridge_new        (AbiRecorder *rec);
guint        abi_count             (AbiRecorder *rec);
char        *abi_line              (AbiRecorder *rec,
                                    guint        index);
guint        abi_wait_count        (AbiRecorder *rec,
                                    guint        count);
guint        abi_wait_match        (AbiRecorder *rec,
                                    const char  *substring);
gboolean     abi_has_match         (AbiRecorder *rec,
                                    const char  *substring);
void         abi_release           (AbiRecorder *rec);
guint        abi_timeout_ms        (guint        base_ms);
gboolean     abi_under_valgrind    (void);
void         abi_send              (oam_bridge  *bridge,
                                    const char  *line);
char        *abi_call              (oam_bridge  *bridge,
                                    const char  *request,
                                    int          timeout_ms);
guint        abi_count_threads     (void);
guint        abi_count_fds         (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbiRecorder, abi_recorder_free)

G_END_DECLS
