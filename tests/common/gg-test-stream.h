/* gg-test-stream.h: the test's end of a stream under test. The library side
 * is a socketpair end (a GSocketConnection) or two pipes (stdio-like); the
 * test writes raw bytes to it and collects, as the main context runs, the
 * exact bytes the library writes back.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

typedef struct {
  int      write_fd;   /* raw bytes written here reach the library side */
  int      read_fd;    /* where the library side's output arrives */
  GString *received;   /* everything read from read_fd so far */
} GgTestStreamPair;

/* A socketpair: returns the library end as a GSocketConnection (transfer
 * full); the test end (write_fd == read_fd) is non-blocking. */
GIOStream *gg_test_stream_pair_open_socket (GgTestStreamPair *pair);
/* Two pipes wrapped in GUnixInputStream / GUnixOutputStream (transfer
 * full), both test ends non-blocking. */
void       gg_test_stream_pair_open_pipes  (GgTestStreamPair *pair,
                                            GInputStream    **input,
                                            GOutputStream   **output);
/* Runs the pending main-context work (cancelled operations finishing), then
 * closes the test's ends and frees what was received. Call it after the
 * library side is gone. */
void       gg_test_stream_pair_clear       (GgTestStreamPair *pair);

/* Runs the main context until @check (@data) holds, collecting what the
 * library side writes into pair->received; fails the test after 10 s. */
void       gg_test_stream_pair_spin_until  (GgTestStreamPair *pair,
                                            gboolean        (*check) (gpointer data),
                                            gpointer          data);
/* Runs the main context until nothing is pending, a few rounds apart so that
 * reads scheduled by reads complete too. */
void       gg_test_stream_pair_spin_idle   (GgTestStreamPair *pair);
/* Writes raw bytes, running the main context while the buffer is full. */
void       gg_test_stream_pair_feed        (GgTestStreamPair *pair,
                                            const char       *data,
                                            gsize             len);

G_END_DECLS
