/* gg-test-server.c: spawning a peer server that says its port on stdout.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-test-server.h"

#include <signal.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "gg-test-util.h"

/* The server goes when the test does, even if the test crashes. */
static void
die_with_parent (gpointer data)
{
#ifdef __linux__
  prctl (PR_SET_PDEATHSIG, SIGTERM);
#endif
}

GgTestServer *
gg_test_server_start (const char * const *argv,
                      const char * const *env,
                      const char         *port_prefix)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  GgTestServer *server = g_new0 (GgTestServer, 1);
  const char *digits;
  guint64 port = 0;

  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  for (gsize i = 0; env != NULL && env[i] != NULL; i++)
    {
      g_auto(GStrv) pair = g_strsplit (env[i], "=", 2);

      g_assert_nonnull (pair[1]);
      g_subprocess_launcher_setenv (launcher, pair[0], pair[1], TRUE);
    }
  server->process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (server->process));
  line = gg_test_read_line (out, gg_test_timeout_ms (10000), &error);
  g_assert_no_error (error);
  if (line == NULL)
    g_error ("%s exited without saying its port", argv[0]);
  digits = line;
  if (port_prefix != NULL)
    {
      if (!g_str_has_prefix (line, port_prefix))
        g_error ("%s said \"%s\", not %s<port>", argv[0], line, port_prefix);
      digits += strlen (port_prefix);
    }
  if (!g_ascii_string_to_unsigned (digits, 10, 1, G_MAXUINT16, &port, &error))
    g_error ("%s said \"%s\", not a port: %s", argv[0], line, error->message);
  server->port = (guint) port;
  return server;
}

void
gg_test_server_kill (GgTestServer *server)
{
  if (server->process == NULL)
    return;
  g_subprocess_force_exit (server->process);
  g_subprocess_wait (server->process, NULL, NULL);
  g_clear_object (&server->process);
}

void
gg_test_server_free (GgTestServer *server)
{
  if (server == NULL)
    return;
  if (server->process != NULL)
    {
      g_subprocess_send_signal (server->process, SIGTERM);
      g_subprocess_wait (server->process, NULL, NULL);
      g_clear_object (&server->process);
    }
  g_free (server);
}
