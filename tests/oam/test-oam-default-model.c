/* test-oam-default-model.c: the daemon as the README tells users to run it,
 * with data/gamegate.conf as shipped and `[gateway] default-model=scripted`,
 * answers oam on its socket. Its `[a2g]` section names the model "system",
 * which once made the A2G service free the bus's (borrowed) default model
 * at start, so every later oam request read freed memory and was refused.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "gg-test-line-client.h"
#include "oam-test.h"

/* The model types the built plugins offer, comma-separated
 * (tests/oam/meson.build); model-scripted is always among them. */
#ifndef OAM_TEST_MODEL_TYPES
#error "OAM_TEST_MODEL_TYPES must be defined"
#endif

#define INITIALIZE_ANSWER                                                                                  \
  "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"1.0\",\"server\":{\"name\":\"gamegate\"," \
  "\"version\":\"" PACKAGE_VERSION "\"},\"capabilities\":{\"methods\":[\"content/generate\","              \
  "\"decision/decide\",\"decision/decideMany\",\"initialize\",\"model/availability\",\"npc/bark\","          \
  "\"npc/cancel\",\"npc/create\",\"npc/delete\",\"npc/list\",\"npc/reset\",\"npc/restore\",\"npc/state\","  \
  "\"npc/talk\",\"npc/update\",\"ping\",\"request/cancel\",\"schema/validate\",\"session/cancel\",\"session/compact\","         \
  "\"session/create\",\"session/delete\",\"session/list\",\"session/reset\",\"session/respond\","           \
  "\"session/setContextNote\",\"session/setInstructions\",\"session/setTools\",\"session/transcript\","     \
  "\"shutdown\",\"tools/validate\",\"world/create\",\"world/delete\",\"world/get\",\"world/list\","          \
  "\"world/merge\",\"world/remove\",\"world/set\",\"world/snapshot\",\"world/subscribe\","                  \
  "\"world/unsubscribe\"],\"notifications\":[\"session/event\",\"tool/cancel\",\"npc/event\","              \
  "\"world/changed\"],\"clientRequests\":[\"tool/call\"],\"streaming\":true,\"clientTools\":true,"          \
  "\"structuredOutput\":true,\"models\":[\"system\",\"%s\"],\"maxSessions\":64,"                         \
  "\"batch\":false,\"extensions\":{\"gamegate\":{\"targetTools\":true}}},\"model\":{\"available\":true}}}"

/* Each request and its exact answer, in order. */
static const char *const exchange[] = {
  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"1.0\"}}",
  NULL, /* INITIALIZE_ANSWER, see expected_answer() */
  "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/create\",\"params\":{}}",
  "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"session\":\"s1\",\"warnings\":[]}}",
  "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/create\",\"params\":{\"session\":\"named\",\"model\":\"system\"}}",
  "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"session\":\"named\",\"warnings\":[]}}",
  "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"model/availability\",\"params\":{}}",
  "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"available\":true}}",
  /* A scripted model without steps answers every turn the same. */
  "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"session/respond\",\"params\":{\"session\":\"s1\",\"prompt\":\"hi\"}}",
  "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"session\":\"s1\",\"text\":\"(script exhausted)\",\"toolCalls\":[],"
  "\"usage\":{\"inputTokens\":1,\"cachedInputTokens\":0,\"outputTokens\":5,\"totalTokens\":6},\"steps\":[{\"index\":0,"
  "\"completedToolRounds\":0,\"toolCallingMode\":\"allowed\",\"enabledTools\":[],\"trimmedEntries\":0}]}}",
  NULL,
};

/* The answer to exchange[@i]. */
static char *
expected_answer (guint i)
{
  g_auto(GStrv) types = NULL;
  g_autofree char *members = NULL;

  if (exchange[i + 1] != NULL)
    return g_strdup (exchange[i + 1]);
  types = g_strsplit (OAM_TEST_MODEL_TYPES, ",", -1);
  members = g_strjoinv ("\",\"", types);
  return g_strdup_printf (INITIALIZE_ANSWER, members);
}

typedef struct {
  char *dir;
  char *config;
  char *socket_path;
  char *env[3];  /* GAMEGATE_CONFIG and XDG_CONFIG_HOME (the shipped [gabp] writes there) */
} Fixture;

/* data/gamegate.conf as shipped, with only the default model set and the
 * oam socket put in the test's directory. */
static char *
shipped_config_with_default_model (const char *socket_path)
{
  g_autofree char *shipped = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) config = g_string_new (NULL);
  const char *group = "";
  guint edits = 0;

  g_file_get_contents (GG_TOP_SRCDIR "/data/gamegate.conf", &shipped, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (shipped, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];

      if (line[0] == '[')
        group = line;
      if (g_str_equal (group, "[gateway]") && g_str_equal (line, "#default-model="))
        {
          g_string_append (config, "default-model=scripted\n");
          edits++;
        }
      else if (g_str_equal (group, "[oam]") && g_str_equal (line, "#socket="))
        {
          g_string_append_printf (config, "socket=%s\n", socket_path);
          edits++;
        }
      else
        g_string_append_printf (config, "%s\n", line);
    }
  /* The shipped file still shows both keys, and [a2g] its model=system. */
  g_assert_cmpuint (edits, ==, 2);
  g_assert_nonnull (strstr (shipped, "\n[a2g]\n"));
  g_assert_nonnull (strstr (shipped, "\n#model=system\n"));
  return g_string_free (g_steal_pointer (&config), FALSE);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  f->dir = g_dir_make_tmp ("gg-oam-default-model-XXXXXX", &error);
  g_assert_no_error (error);
  f->config = g_build_filename (f->dir, "gamegate.conf", NULL);
  f->socket_path = g_build_filename (f->dir, "oam.sock", NULL);
  text = shipped_config_with_default_model (f->socket_path);
  g_file_set_contents (f->config, text, -1, &error);
  g_assert_no_error (error);
  f->env[0] = g_strconcat ("GAMEGATE_CONFIG=", f->config, NULL);
  f->env[1] = g_strconcat ("XDG_CONFIG_HOME=", f->dir, NULL);
}

/* Sends each request of the exchange and checks its exact answer. */
static void
play (gpointer  client,
      void    (*send) (gpointer client, const char *line),
      char   *(*recv) (gpointer client))
{
  for (guint i = 0; exchange[i] != NULL; i += 2)
    {
      g_autofree char *expected = expected_answer (i);
      g_autofree char *answer = NULL;

      send (client, exchange[i]);
      answer = recv (client);
      g_assert_cmpstr (answer, ==, expected);
    }
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *gabp_dir = g_build_filename (f->dir, "gabp", NULL);
  g_autofree char *bridge_file = g_build_filename (gabp_dir, "bridge.json", NULL);

  /* The shipped [gabp] writes its bridge file under XDG_CONFIG_HOME. */
  g_unlink (bridge_file);
  g_rmdir (gabp_dir);
  g_unlink (f->socket_path);
  g_unlink (f->config);
  g_assert_cmpint (g_rmdir (f->dir), ==, 0);
  g_free (f->env[0]);
  g_free (f->env[1]);
  g_free (f->socket_path);
  g_free (f->config);
  g_free (f->dir);
}

static void
socket_send (gpointer    client,
             const char *line)
{
  gg_test_line_client_send (client, line);
}

static char *
socket_recv (gpointer client)
{
  g_autofree char *line = gg_test_line_client_recv (client);

  return oam_normalize (line);
}

static void
stdio_send (gpointer    client,
            const char *line)
{
  oam_send (client, line);
}

static char *
stdio_recv (gpointer client)
{
  return oam_recv (client);
}

/* `gamegate serve`: every front end started, oam on its socket. */
static void
test_daemon (Fixture       *f,
             gconstpointer  data)
{
  const char *args[] = { "serve", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GgTestProcess) daemon = gg_test_process_spawn (args, (const char * const *) f->env, &error);
  g_autoptr(GgTestLineClient) client = NULL;
  int status = -1;

  g_assert_no_error (error);
  client = gg_test_line_client_connect (f->socket_path);
  play (client, socket_send, socket_recv);
  g_clear_pointer (&client, gg_test_line_client_free);
  gg_test_process_send_signal (daemon, SIGTERM);
  g_assert_true (gg_test_process_wait (daemon, gg_test_timeout_ms (20000), &status));
  g_assert_cmpint (status, ==, 0);
  g_assert_null (strstr (gg_test_process_get_stderr (daemon), "CRITICAL"));
}

/* `gamegate oam` on stdio reads the same file. */
static void
test_stdio (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, (const char * const *) f->env);

  play (client, stdio_send, stdio_recv);
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/oam/default-model/daemon", Fixture, NULL, fixture_setup, test_daemon, fixture_teardown);
  g_test_add ("/oam/default-model/stdio", Fixture, NULL, fixture_setup, test_stdio, fixture_teardown);
  return g_test_run ();
}
