/* oam-test.c: the client side of the oam tests.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "oam-test.h"

#define READ_TIMEOUT_MS 10000

/**
 * oam_client_new:
 * @args: (nullable): options after `oam`
 * @env: (nullable): environment changes
 *
 * Returns: (transfer full): a running `gamegate oam`
 */
OamClient *
oam_client_new (const char * const *args,
                const char * const *env)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  OamClient *client = g_new0 (OamClient, 1);

  g_ptr_array_add (argv, (gpointer) "oam");
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  client->process = gg_test_process_spawn ((const char * const *) argv->pdata, env, &error);
  g_assert_no_error (error);
  return client;
}

/**
 * oam_send:
 * @line: one message, without its newline
 */
void
oam_send (OamClient  *client,
          const char *line)
{
  g_autoptr(GError) error = NULL;

  gg_test_process_write_line (client->process, line, &error);
  g_assert_no_error (error);
}

/**
 * oam_normalize:
 * @line: a message from the bridge
 *
 * Replaces what varies between runs: durations and creation times.
 *
 * Returns: (transfer full): the normalized line
 */
char *
oam_normalize (const char *line)
{
  static GRegex *duration, *created;
  g_autofree char *step = NULL;

  if (duration == NULL)
    {
      duration = g_regex_new ("\"durationSeconds\":[0-9.eE+-]+", 0, 0, NULL);
      created = g_regex_new ("\"createdAt\":\"[^\"]*\"", 0, 0, NULL);
    }
  step = g_regex_replace_literal (duration, line, -1, 0, "\"durationSeconds\":0", 0, NULL);
  return g_regex_replace_literal (created, step, -1, 0, "\"createdAt\":\"T\"", 0, NULL);
}

/**
 * oam_recv:
 *
 * Returns: (transfer full): the next message, normalized; fails the test on
 *   a timeout or end of output
 */
char *
oam_recv (OamClient *client)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *line = gg_test_process_read_line (client->process,
                                                     gg_test_timeout_ms (READ_TIMEOUT_MS), &error);

  g_assert_no_error (error);
  if (line == NULL)
    g_error ("gamegate oam closed its output; stderr:\n%s", gg_test_process_get_stderr (client->process));
  return oam_normalize (line);
}

/**
 * oam_expect:
 * @expected: the exact next message (after normalization)
 */
void
oam_expect (OamClient  *client,
            const char *expected)
{
  g_autofree char *line = oam_recv (client);

  g_assert_cmpstr (line, ==, expected);
}

/**
 * oam_expect_prefix:
 * @prefix: how the next message starts
 */
void
oam_expect_prefix (OamClient  *client,
                   const char *prefix)
{
  g_autofree char *line = oam_recv (client);

  if (!g_str_has_prefix (line, prefix))
    g_error ("expected a line starting with\n  %s\ngot\n  %s", prefix, line);
}

/**
 * oam_client_finish:
 * @rest: (out) (optional): everything written after the last read
 *
 * Closes stdin and waits for the exit.
 *
 * Returns: the exit status
 */
int
oam_client_finish (OamClient *client,
                   char     **rest)
{
  g_autofree char *out = NULL;
  int status = -1;

  gg_test_process_close_stdin (client->process);
  out = gg_test_process_read_stdout (client->process, gg_test_timeout_ms (READ_TIMEOUT_MS));
  g_assert_true (gg_test_process_wait (client->process, gg_test_timeout_ms (READ_TIMEOUT_MS), &status));
  if (rest != NULL)
    *rest = oam_normalize (out != NULL ? out : "");
  return status;
}

/**
 * oam_client_free:
 */
void
oam_client_free (OamClient *client)
{
  g_clear_pointer (&client->process, gg_test_process_free);
  g_free (client);
}

/* Runs @input through `gamegate oam` with its stdin closed after it, and
 * checks that stdout is exactly @expected (a line diff otherwise) and the
 * exit status 0. */
static void
run_script (const char * const *args,
            const char * const *env,
            const char         *input,
            const char         *expected,
            const char         *what)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *normalized = NULL;
  int status;

  g_ptr_array_add (argv, (gpointer) "oam");
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  status = gg_test_run ((const char * const *) argv->pdata, env, input, &out, &err);
  if (status != 0)
    g_test_message ("stderr: %s", err);
  normalized = oam_normalize (out);
  gg_test_assert_lines (what, expected, normalized);
  g_assert_cmpint (status, ==, 0);
}

/**
 * oam_run_exchange:
 * @args: (nullable): options after `oam`
 * @env: (nullable): environment changes
 * @lines: `"> message"` to send and `"< message"` to expect, in order; all
 *   input is sent before anything is read (a pipelined script)
 *
 * Runs a whole script through stdin, closes it, and checks that stdout is
 * exactly the expected messages and the exit status 0. For scripts built at
 * run time; fixed ones are files (oam_run_exchange_file()).
 */
void
oam_run_exchange (const char * const *args,
                  const char * const *env,
                  const char * const *lines)
{
  g_autoptr(GString) input = g_string_new (NULL);
  g_autoptr(GString) expected = g_string_new (NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_str_has_prefix (lines[i], "> "))
        g_string_append_printf (input, "%s\n", lines[i] + 2);
      else if (g_str_has_prefix (lines[i], "< "))
        g_string_append_printf (expected, "%s\n", lines[i] + 2);
      else
        g_assert_not_reached ();
    }
  run_script (args, env, input->str, expected->str, "gamegate oam");
}

/**
 * oam_run_exchange_file:
 * @args: (nullable): options after `oam`
 * @env: (nullable): environment changes
 * @name: the exchange tests/oam/exchanges/@name.txt (see gg-test-exchange.h)
 *
 * oam_run_exchange() with the script read from a file.
 */
void
oam_run_exchange_file (const char * const *args,
                       const char * const *env,
                       const char         *name)
{
  g_autoptr(GgTestExchange) exchange = gg_test_exchange_load ("oam", name);
  g_autofree char *input = gg_test_exchange_dup_input (exchange);
  g_autofree char *expected = gg_test_exchange_dup_expected (exchange);

  run_script (args, env, input, expected, gg_test_exchange_get_path (exchange));
}

static void
play_send (const char *line,
           gpointer    client)
{
  oam_send (client, line);
}

static char *
play_recv (gpointer client)
{
  return oam_recv (client);
}

/**
 * oam_play:
 * @name: the exchange tests/oam/exchanges/@name.txt (see gg-test-exchange.h)
 *
 * Plays the exchange against the running `gamegate oam` in order: sends each
 * `> ` line, and expects each `< ` line exactly as the next message (after
 * normalization).
 */
void
oam_play (OamClient  *client,
          const char *name)
{
  g_autoptr(GgTestExchange) exchange = gg_test_exchange_load ("oam", name);

  gg_test_exchange_play (exchange, play_send, play_recv, client);
}
