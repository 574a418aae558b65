/* fuzz-common.h: what every fuzz target shares: quiet logs with criticals
 * fatal, a reader over the fuzzer's bytes, an input stream that hands out
 * its data in chunk sizes the input chooses, and a bounded main-loop run.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <stdint.h>

G_BEGIN_DECLS

/* libFuzzer's entry point, defined by each target (fuzz-main.c calls it
 * for every seed file in a plain build). */
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Once per process: criticals and errors abort (a g_return_if_fail() hit
 * by input is a bug), everything below is dropped so fuzzing is not
 * slowed down by the warnings bad input rightly causes. */
void fuzz_init (void);

/* Consumes the fuzzer's bytes from the front. */
typedef struct {
  const guint8 *data;
  gsize         size;
} FuzzInput;

guint8  fuzz_input_byte  (FuzzInput *in);
guint32 fuzz_input_u32   (FuzzInput *in);
/* The next NUL- or newline-free piece up to @sep (excluded), or the rest;
 * transfer full, NUL terminated. */
char   *fuzz_input_piece (FuzzInput *in,
                          char       sep,
                          gsize     *length);

/* A GInputStream over @data whose reads return 1..@max_chunk bytes at a
 * time, the sizes drawn from @seed, then end of input. Reads complete
 * asynchronously on the thread-default main context (no threads). */
GInputStream *fuzz_chunk_stream_new (GBytes  *data,
                                     guint32  seed,
                                     gsize    max_chunk);

/* The same, but each line "~" of @data is a pause: it is not read, and the
 * read after it completes only once the main context has nothing of
 * higher priority than G_PRIORITY_LOW to do (the model has answered, the
 * tool call is out). This is how an input answers a request gamegate
 * sends only after it has read what came before. */
GInputStream *fuzz_chunk_stream_new_paused (GBytes  *data,
                                            guint32  seed,
                                            gsize    max_chunk);

/* Iterates the thread-default main context until *@done or @max_iterations
 * have run (a target never waits on a clock). Returns *@done. */
gboolean fuzz_run_until (gboolean *done,
                         guint     max_iterations);

/* Blocks on the thread-default main context until *@done, or @timeout_ms
 * pass (a target talking to sockets: its own fake game). */
gboolean fuzz_wait_until (gboolean *done,
                          guint     timeout_ms);

/* Drains every pending source without blocking. */
void fuzz_drain (void);

/* With FUZZ_DUMP=1 in the environment, writes what a target's peer was
 * sent to stderr: how seeds are checked to reach what they aim at. */
void fuzz_dump_output (GOutputStream *memory_output);

G_END_DECLS
