/* fake-openai-serve.c: the fake OpenAI-compatible server of the model tests
 * (fake-openai-server.c) as a program of its own, for tests that are not C
 * programs (tests/install/test-serve-matrix.py points an installed daemon's
 * [model-openai] base-url at it).
 *
 *   fake-openai-serve [--model NAME]... [--text TEXT]
 *
 * Prints its base URL (`http://127.0.0.1:PORT/v1`) as the first line on
 * stdout, answers every chat completion with TEXT (streamed or not, as the
 * request asks), serves NAME on /v1/models, and runs until its stdin closes
 * or SIGTERM/SIGINT; then prints `completions: N` (the chat completions it
 * was asked) and exits 0.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib-unix.h>
#include <stdio.h>
#include <unistd.h>

#include "fake-openai-server.h"

static gboolean
on_quit (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_REMOVE;
}

/* Input is read and ignored: its end (the test is gone) ends the server. */
static gboolean
on_stdin (gint         fd,
          GIOCondition condition,
          gpointer     user_data)
{
  char buffer[256];

  if (read (fd, buffer, sizeof buffer) > 0)
    return G_SOURCE_CONTINUE;
  g_main_loop_quit (user_data);
  return G_SOURCE_CONTINUE;
}

int
main (int argc, char **argv)
{
  g_auto(GStrv) models = NULL;
  g_autofree char *text = NULL;
  g_autofree char *base_url = NULL;
  g_autoptr(GOptionContext) context = g_option_context_new ("- a fake OpenAI-compatible server");
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GError) error = NULL;
  g_autoptr(FakeOpenai) fake = NULL;
  GOptionEntry entries[] = {
    { "model", 0, 0, G_OPTION_ARG_STRING_ARRAY, &models, "A model /v1/models lists (repeatable)", "NAME" },
    { "text", 0, 0, G_OPTION_ARG_STRING, &text, "The answer to every chat completion", "TEXT" },
    G_OPTION_ENTRY_NULL
  };
  guint sources[3];

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("fake-openai-serve: %s\n", error->message);
      return 2;
    }
  fake = fake_openai_new ();
  if (models != NULL)
    fake_openai_set_models (fake, (const char * const *) models);
  if (text != NULL)
    fake_openai_set_default_text (fake, text);
  base_url = fake_openai_get_base_url (fake);
  printf ("%s\n", base_url);
  fflush (stdout);

  sources[0] = g_unix_signal_add (SIGTERM, on_quit, loop);
  sources[1] = g_unix_signal_add (SIGINT, on_quit, loop);
  sources[2] = g_unix_fd_add (0, G_IO_IN | G_IO_HUP | G_IO_ERR, on_stdin, loop);
  g_main_loop_run (loop);
  for (guint i = 0; i < G_N_ELEMENTS (sources); i++)
    g_source_remove (sources[i]);

  printf ("completions: %u\n", fake_openai_get_n_requests (fake));
  return 0;
}
