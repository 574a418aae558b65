/* test-oam-hostile.c: hostile and broken input (huge lines, deep nesting,
 * invalid UTF-8, truncated messages, 10,000 session attempts against the
 * limit) and daemon mode on the Unix socket, where a disconnect cancels
 * and frees only that client's work.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "oam-test.h"

#define PING_OK "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"result\":{}}"
#define PING "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}"

static void
test_huge_line (void)
{
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "oam-hostile-size.conf", NULL);
  g_autofree char *env_entry = g_strdup_printf ("GAMEGATE_CONFIG=%s", path);
  const char *env[] = { env_entry, NULL };
  g_autoptr(OamClient) client = NULL;
  g_autoptr(GString) huge = g_string_new ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"");

  g_assert_true (g_file_set_contents (path, "[oam]\nmax-message-size=65536\n", -1, NULL));
  client = oam_client_new (NULL, env);
  for (guint i = 0; i < 200000; i++)
    g_string_append_c (huge, 'a');
  g_string_append (huge, "\"}}");
  oam_send (client, huge->str);
  oam_play (client, "hostile-huge-line");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
  g_unlink (path);
}

static void
test_deep_nesting (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);
  g_autoptr(GString) deep = g_string_new ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":");
  g_autofree char *line = NULL;

  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, ']');
  g_string_append (deep, "}}");
  oam_send (client, deep->str);
  line = oam_recv (client);
  g_assert_true (g_str_has_prefix (line, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"));
  /* Deep but legal nesting inside a schema is refused as a schema. */
  {
    g_autoptr(GString) schema = g_string_new ("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"schema/validate\",\"params\":{\"schema\":");
    g_autofree char *answer = NULL;

    for (guint i = 0; i < 60; i++)
      g_string_append (schema, "{\"type\":\"array\",\"items\":");
    g_string_append (schema, "{\"type\":\"string\"}");
    for (guint i = 0; i < 60; i++)
      g_string_append_c (schema, '}');
    g_string_append (schema, "}}");
    oam_send (client, schema->str);
    answer = oam_recv (client);
    g_assert_true (g_str_has_prefix (answer, "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32007,"));
  }
  oam_send (client, PING);
  oam_expect (client, PING_OK);
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

static void
test_invalid_utf8 (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);

  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}");
  oam_play (client, "hostile-invalid-utf8");
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

static void
test_truncated_and_junk (void)
{
  oam_run_exchange_file (NULL, NULL, "hostile-truncated-and-junk");
}

/* 10,000 attempts against the 64-session limit: 64 succeed, the rest fail
 * with -32022, and nothing else happens. */
static void
test_session_flood (void)
{
  g_autoptr(OamClient) client = oam_client_new (NULL, NULL);
  guint ok = 0, limited = 0;

  /* In batches, reading as we go, like an engine would. */
  for (guint batch = 0; batch < 100; batch++)
    {
      for (guint i = 0; i < 100; i++)
        {
          g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"session/create\",\"params\":{\"model\":\"scripted\"}}",
                                                   batch * 100 + i);
          oam_send (client, line);
        }
      for (guint i = 0; i < 100; i++)
        {
          g_autofree char *line = oam_recv (client);

          if (strstr (line, "\"result\":{\"session\":\"s") != NULL)
            ok++;
          else if (strstr (line, "\"error\":{\"code\":-32022,\"message\":\"Too many sessions (the limit is 64)\",\"data\":{\"code\":\"session_limit\",\"limit\":64}}") != NULL)
            limited++;
          else
            g_error ("unexpected: %s", line);
        }
    }
  g_assert_cmpuint (ok, ==, 64);
  g_assert_cmpuint (limited, ==, 10000 - 64);
  oam_send (client, PING);
  oam_expect (client, PING_OK);
  g_assert_cmpint (oam_client_finish (client, NULL), ==, 0);
}

/* Random params of the wrong shape for every method: every request is
 * answered exactly once and the bridge exits cleanly. */
static const char * const fuzz_methods[] = {
  "session/create", "session/respond", "session/cancel", "session/reset", "session/delete",
  "session/list", "session/transcript", "session/setInstructions", "session/setContextNote",
  "session/setTools", "session/compact", "schema/validate", "tools/validate", "initialize",
  "decision/decide", "decision/decideMany", "content/generate", "world/create", "world/get",
  "world/set", "world/merge", "world/remove", "world/snapshot", "world/delete", "world/list",
  "world/subscribe", "world/unsubscribe", "npc/create", "npc/talk", "npc/bark", "npc/state",
  "npc/restore", "npc/update", "npc/reset", "npc/cancel", "npc/delete", "npc/list", NULL
};
static const char * const fuzz_members[] = {
  "session", "instructions", "tools", "options", "history", "model", "prompt", "schema", "stream",
  "toolChoice", "enabledTools", "note", "keepRecentTurns", "name", "client", "protocolVersion",
  "situation", "actor", "context", "fallbackOptionID", "requests", "world", "state", "path",
  "value", "patch", "subscription", "npc", "persona", "memory", "line", "settle", "clearMemory", NULL
};
static const char * const fuzz_values[] = {
  "null", "true", "0", "-1", "1e308", "1152921504606846976", "1.5", "86401", "\"\"", "\"s1\"",
  "\"w1\"", "\"npc1\"", "\"sub1\"", "\"scripted\"", "\"player.gold\"", "\"a..b\"",
  "[]", "[1,\"a\",null]", "{}", "{\"type\":\"scripted\",\"steps\":[{\"text\":\"hi\"}]}",
  "{\"type\":[\"object\"],\"properties\":{\"a\":{\"$ref\":\"#\"}}}",
  "[{\"name\":{},\"parameters\":[]}]", "{\"name\":7,\"facts\":{},\"relationship\":\"x\"}",
  "{\"tool\":[]}", "{\"entries\":[{\"role\":5}]}", "{\"state\":{\"persona\":[]}}", NULL
};

static void
test_fuzz (void)
{
  const char *args[] = { "--tool-timeout", "0.05", NULL };
  g_autoptr(OamClient) client = oam_client_new (args, NULL);
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261129);
  g_autoptr(GHashTable) answered = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n_methods = g_strv_length ((char **) fuzz_methods);
  guint n_members = g_strv_length ((char **) fuzz_members);
  guint n_values = g_strv_length ((char **) fuzz_values);
  const guint total = 1000;

  oam_send (client, "{\"jsonrpc\":\"2.0\",\"id\":\"w\",\"method\":\"world/create\",\"params\":{\"world\":\"w1\"}}");
  oam_expect (client, "{\"jsonrpc\":\"2.0\",\"id\":\"w\",\"result\":{\"world\":\"w1\",\"version\":0}}");
  for (guint i = 0; i < total; i++)
    {
      g_autoptr(GString) line = g_string_new (NULL);
      guint members = g_rand_int_range (rand, 0, 6);

      g_string_append_printf (line, "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"%s\",\"params\":{", i,
                              fuzz_methods[g_rand_int_range (rand, 0, n_methods)]);
      for (guint m = 0; m < members; m++)
        g_string_append_printf (line, "%s\"%s\":%s", m > 0 ? "," : "",
                                fuzz_members[g_rand_int_range (rand, 0, n_members)],
                                fuzz_values[g_rand_int_range (rand, 0, n_values)]);
      g_string_append (line, "}}");
      oam_send (client, line->str);
      /* Read what is there so the pipes never fill up. */
      if (i % 50 == 49)
        {
          oam_send (client, PING);
          for (;;)
            {
              g_autofree char *answer = oam_recv (client);

              if (g_str_equal (answer, PING_OK))
                break;
              if (g_str_has_prefix (answer, "{\"jsonrpc\":\"2.0\",\"id\":") &&
                  strstr (answer, "\"method\":\"tool/call\"") == NULL)
                {
                  const char *start = answer + strlen ("{\"jsonrpc\":\"2.0\",\"id\":");
                  g_autofree char *id = g_strndup (start, strcspn (start, ","));

                  g_assert_true (g_hash_table_add (answered, g_steal_pointer (&id)));
                }
            }
        }
    }
  {
    g_autofree char *rest = NULL;
    g_auto(GStrv) lines = NULL;

    g_assert_cmpint (oam_client_finish (client, &rest), ==, 0);
    lines = g_strsplit (rest, "\n", -1);
    for (guint i = 0; lines[i] != NULL; i++)
      if (g_str_has_prefix (lines[i], "{\"jsonrpc\":\"2.0\",\"id\":") &&
          strstr (lines[i], "\"method\":\"tool/call\"") == NULL)
        {
          const char *start = lines[i] + strlen ("{\"jsonrpc\":\"2.0\",\"id\":");
          g_autofree char *id = g_strndup (start, strcspn (start, ","));

          g_assert_true (g_hash_table_add (answered, g_steal_pointer (&id)));
        }
  }
  /* Every numbered request exactly once. */
  for (guint i = 0; i < total; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i);
      g_assert_true (g_hash_table_contains (answered, id));
    }
}

/* ---- daemon mode ------------------------------------------------------- */

typedef struct {
  GSocketConnection *connection;
  GDataInputStream *input;
} SocketClient;

static SocketClient *
socket_client_connect (const char *path)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketAddress) address = g_unix_socket_address_new (path);
  g_autoptr(GError) error = NULL;
  SocketClient *self = g_new0 (SocketClient, 1);

  for (guint attempt = 0; attempt < 200; attempt++)
    {
      g_clear_error (&error);
      self->connection = g_socket_client_connect (client, G_SOCKET_CONNECTABLE (address), NULL, &error);
      if (self->connection != NULL)
        break;
      g_usleep (50000);
    }
  g_assert_no_error (error);
  self->input = g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (self->connection)));
  return self;
}

static void
socket_client_send (SocketClient *self,
                    const char   *line)
{
  g_autoptr(GError) error = NULL;
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (self->connection));

  g_output_stream_write_all (out, line, strlen (line), NULL, NULL, &error);
  g_output_stream_write_all (out, "\n", 1, NULL, NULL, &error);
  g_assert_no_error (error);
}

static char *
socket_client_recv (SocketClient *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *line = gg_test_read_line (self->input, gg_test_timeout_ms (10000), &error);

  g_assert_no_error (error);
  g_assert_nonnull (line);
  return oam_normalize (line);
}

static void
socket_client_free (SocketClient *self)
{
  g_clear_object (&self->input);
  if (self->connection != NULL)
    g_io_stream_close (G_IO_STREAM (self->connection), NULL, NULL);
  g_clear_object (&self->connection);
  g_free (self);
}

static void
test_daemon (void)
{
  g_autofree char *runtime = g_dir_make_tmp ("oam-daemon-XXXXXX", NULL);
  g_autofree char *conf = g_build_filename (runtime, "gamegate.conf", NULL);
  g_autofree char *socket_path = g_build_filename (runtime, "gamegate", "oam.sock", NULL);
  g_autofree char *socket_dir = g_path_get_dirname (socket_path);
  g_autofree char *env_conf = g_strdup_printf ("GAMEGATE_CONFIG=%s", conf);
  g_autofree char *env_runtime = g_strdup_printf ("XDG_RUNTIME_DIR=%s", runtime);
  const char *env[] = { env_conf, env_runtime, NULL };
  const char *args[] = { "serve", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GgTestProcess) daemon = NULL;
  SocketClient *a, *b;
  GStatBuf st;
  int status = -1;
  char *line;

  g_assert_true (g_file_set_contents (conf, "", -1, NULL));
  daemon = gg_test_process_spawn (args, env, &error);
  g_assert_no_error (error);
  a = socket_client_connect (socket_path);
  b = socket_client_connect (socket_path);

  g_assert_cmpint (g_stat (socket_path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  g_assert_cmpint (g_stat (socket_dir, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0700);

  /* Each connection has its own sessions. */
  socket_client_send (a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"x\"," OAM_SCRIPT ("[{\"text\":\"slow\",\"delayMs\":60000}]") "}}");
  line = socket_client_recv (a);
  g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"session\":\"x\",\"warnings\":[]}}");
  g_free (line);
  socket_client_send (a, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"x\",\"prompt\":\"hi\"}}");
  socket_client_send (b, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"x\"," OAM_SCRIPT ("[{\"text\":\"quick\"}]") "}}");
  line = socket_client_recv (b);
  g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"session\":\"x\",\"warnings\":[]}}");
  g_free (line);

  /* A disconnects with a turn running: only its work goes. */
  socket_client_free (a);
  socket_client_send (b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"x\",\"prompt\":\"hi\"}}");
  line = socket_client_recv (b);
  g_assert_true (g_str_has_prefix (line, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"session\":\"x\",\"text\":\"quick\","));
  g_free (line);
  socket_client_send (b, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/list\"}");
  line = socket_client_recv (b);
  g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"sessions\":[{\"session\":\"x\",\"model\":\"scripted\",\"tools\":[],\"busy\":false,\"pendingOperations\":0,\"entries\":2,\"createdAt\":\"T\"}]}}");
  g_free (line);

  /* shutdown ends this connection only; the daemon keeps serving. */
  socket_client_send (b, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"shutdown\"}");
  line = socket_client_recv (b);
  g_assert_cmpstr (line, ==, "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}");
  g_free (line);
  socket_client_free (b);
  b = socket_client_connect (socket_path);
  socket_client_send (b, PING);
  line = socket_client_recv (b);
  g_assert_cmpstr (line, ==, PING_OK);
  g_free (line);
  socket_client_free (b);

  gg_test_process_send_signal (daemon, SIGTERM);
  g_assert_true (gg_test_process_wait (daemon, gg_test_timeout_ms (10000), &status));
  g_assert_cmpint (status, ==, 0);
  g_assert_false (g_file_test (socket_path, G_FILE_TEST_EXISTS));
  g_unlink (conf);
  g_rmdir (socket_dir);
  g_rmdir (runtime);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/oam/hostile/huge-line", test_huge_line);
  g_test_add_func ("/oam/hostile/deep-nesting", test_deep_nesting);
  g_test_add_func ("/oam/hostile/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/oam/hostile/truncated-and-junk", test_truncated_and_junk);
  g_test_add_func ("/oam/hostile/session-flood", test_session_flood);
  g_test_add_func ("/oam/hostile/fuzz", test_fuzz);
  g_test_add_func ("/oam/daemon/connections", test_daemon);
  return g_test_run ();
}
