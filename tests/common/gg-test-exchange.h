/* gg-test-exchange.h: exact-JSON exchanges kept as data files, so that a
 * reviewer reads plain JSON and a failure diffs line by line.
 *
 * A file tests/<dir>/exchanges/<name>.txt holds one message per line:
 *   > {"jsonrpc":"2.0","id":1,"method":"ping"}     sent to the program
 *   < {"jsonrpc":"2.0","id":1,"result":{}}         expected from it, exactly
 * Lines starting with `#` are comments; empty lines are skipped. The text
 * after `> ` is sent as it is (it may be deliberately broken JSON).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _GgTestExchange GgTestExchange;

/* Reads GG_TEST_SRCDIR/@dir/exchanges/@name.txt; the test fails if it
 * cannot be read or holds a line that is neither a message nor a comment. */
GgTestExchange *gg_test_exchange_load         (const char     *dir,
                                               const char     *name);
void            gg_test_exchange_free         (GgTestExchange *exchange);
/* The file's path, for messages. */
const char     *gg_test_exchange_get_path     (GgTestExchange *exchange);
/* Every `> ` message, each ended by "\n": a pipelined script's input. */
char           *gg_test_exchange_dup_input    (GgTestExchange *exchange);
/* Every `< ` message, each ended by "\n": the whole expected output. */
char           *gg_test_exchange_dup_expected (GgTestExchange *exchange);

/* Plays the exchange in order against a running program: each `> ` line
 * goes to @send, each `< ` line must equal the next line @recv returns
 * (transfer full, already normalized by the caller); the test fails at
 * the first difference, naming the file and its line. */
typedef void  (*GgTestExchangeSendFunc) (const char *line, gpointer data);
typedef char *(*GgTestExchangeRecvFunc) (gpointer data);
void            gg_test_exchange_play         (GgTestExchange        *exchange,
                                               GgTestExchangeSendFunc send,
                                               GgTestExchangeRecvFunc recv,
                                               gpointer               data);

/* Fails the test unless @actual equals @expected, showing a line diff
 * (`-` expected, `+` actual, with line numbers) headed by @what. */
void            gg_test_assert_lines          (const char *what,
                                               const char *expected,
                                               const char *actual);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgTestExchange, gg_test_exchange_free)

G_END_DECLS
