/* refgame-driver.c: spawning the reference game and talking to it, for its tests.
 *
 * The game runs as a child (under GAMEGATE_TEST_WRAPPER when set, so the
 * valgrind setup checks it too); its output is drained into memory from the
 * main context, which the helpers here keep iterating while they wait.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-test-util.h"
#include "refgame-driver.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* Runs the main context for @ms, so the game's output keeps being drained. */
void
pump (guint ms)
{
  gg_test_spin (ms);
}

static void read_next_line (Game *game, GDataInputStream *stream);

static void
on_line (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Game *game = user_data;
  GDataInputStream *stream = G_DATA_INPUT_STREAM (source);
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (stream, result, NULL, NULL);

  if (line == NULL)
    {
      game->open_streams--;
      return;
    }
  if (stream == game->out)
    g_ptr_array_add (game->out_lines, g_steal_pointer (&line));
  else
    g_string_append_printf (game->err_text, "%s\n", line);
  read_next_line (game, stream);
}

static void
read_next_line (Game             *game,
                GDataInputStream *stream)
{
  g_data_input_stream_read_line_async (stream, G_PRIORITY_DEFAULT, NULL, on_line, game);
}

gboolean
output_has (Game       *game,
            const char *needle)
{
  for (guint i = 0; i < game->out_lines->len; i++)
    if (strstr (game->out_lines->pdata[i], needle) != NULL)
      return TRUE;
  return FALSE;
}

/* Waits until the game printed a line containing @needle. */
void
wait_output (Game       *game,
             const char *needle)
{
  gint64 deadline = g_get_monotonic_time () + TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;

  while (!output_has (game, needle))
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("the game never printed '%s'", needle);
      pump (10);
    }
}

/* Waits until the game wrote something containing @needle to stderr. */
void
wait_stderr (Game       *game,
             const char *needle)
{
  gint64 deadline = g_get_monotonic_time () + TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;

  while (strstr (game->err_text->str, needle) == NULL)
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("the game never wrote '%s' to stderr", needle);
      pump (10);
    }
}

static void
on_exited (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Game *game = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  game->exited = TRUE;
}

/* Waits for exit and for both output streams to reach EOF. */
void
wait_exit (Game *game)
{
  gint64 deadline = g_get_monotonic_time () + TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;

  while ((!game->exited || game->open_streams > 0) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (game->exited);
}

/* A failed assertion aborts the test without running cleanups: the kernel
 * then takes the game down with it instead of leaving it running. */
static void
die_with_parent (gpointer user_data)
{
#ifdef __linux__
  prctl (PR_SET_PDEATHSIG, SIGKILL);
#endif
}

/* Spawns the game with @args (NULL-terminated) in @cwd (or the test's cwd).
 * When @expect_port, waits for the "listening" line and records the port. */
Game *
game_spawn_full (const char * const *args,
                 const char         *cwd,
                 const char * const *env,
                 gboolean            expect_port)
{
  Game *game = g_new0 (Game, 1);
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) wrapper = NULL;
  g_autoptr(GError) error = NULL;
  const char *wrap = g_getenv ("GAMEGATE_TEST_WRAPPER");
  gint64 deadline = g_get_monotonic_time () + TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;

  game->registry_dir = g_dir_make_tmp ("refgame-registry-XXXXXX", &error);
  g_assert_no_error (error);
  g_subprocess_launcher_setenv (launcher, "GAME_BRIDGE_INSTANCES", game->registry_dir, TRUE);
  g_subprocess_launcher_unsetenv (launcher, "GAME_BRIDGE_HOME");
  for (const char * const *e = env; e != NULL && *e != NULL; e += 2)
    {
      if (e[1] != NULL)
        g_subprocess_launcher_setenv (launcher, e[0], e[1], TRUE);
      else
        g_subprocess_launcher_unsetenv (launcher, e[0]);
    }
  if (cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, cwd);
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);

  if (wrap != NULL && *wrap != '\0')
    {
      g_assert_true (g_shell_parse_argv (wrap, NULL, &wrapper, NULL));
      for (char **w = wrapper; *w != NULL; w++)
        g_ptr_array_add (argv, *w);
      if (g_str_has_suffix (wrapper[0], "valgrind"))
        g_ptr_array_add (argv, (gpointer) "--suppressions=" GG_TEST_SRCDIR "/refgame/libsoup-3.2.supp");
    }
  g_ptr_array_add (argv, (gpointer) RG_REFGAME_EXE);
  for (const char * const *a = args; *a != NULL; a++)
    g_ptr_array_add (argv, (gpointer) *a);
  g_ptr_array_add (argv, NULL);

  game->proc = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  game->out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (game->proc));
  game->err = g_data_input_stream_new (g_subprocess_get_stderr_pipe (game->proc));
  game->out_lines = g_ptr_array_new_with_free_func (g_free);
  game->err_text = g_string_new (NULL);
  game->open_streams = 2;
  read_next_line (game, game->out);
  read_next_line (game, game->err);
  g_subprocess_wait_async (game->proc, NULL, on_exited, game);
  game->session = soup_session_new_with_options ("timeout", 10, NULL);
  soup_session_set_proxy_resolver (game->session, NULL);   /* loopback, never via a proxy */

  if (!expect_port)
    return game;
  while (game->port == 0 && !game->exited && g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, TRUE);
      for (guint i = 0; i < game->out_lines->len && game->port == 0; i++)
        {
          const char *line = game->out_lines->pdata[i];
          const char *mark = "refgame: listening on 127.0.0.1:";

          if (g_str_has_prefix (line, mark))
            game->port = (guint) g_ascii_strtoull (line + strlen (mark), NULL, 10);
        }
    }
  if (game->port == 0)
    g_error ("the game did not start listening; stderr:\n%s", game->err_text->str);
  return game;
}

Game *
game_spawn (const char *first,
            ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  va_list ap;

  g_ptr_array_add (args, (gpointer) "--debug-port");
  g_ptr_array_add (args, (gpointer) "0");
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (args, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  return game_spawn_full ((const char * const *) args->pdata, NULL, NULL, TRUE);
}

static void
rm_rf (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

void
game_free (Game *game)
{
  if (!game->exited)
    {
      g_subprocess_send_signal (game->proc, SIGKILL);
      wait_exit (game);
    }
  while (game->open_streams > 0)
    g_main_context_iteration (NULL, TRUE);
  rm_rf (game->registry_dir);
  g_free (game->registry_dir);
  g_object_unref (game->session);
  g_object_unref (game->out);
  g_object_unref (game->err);
  g_object_unref (game->proc);
  g_ptr_array_unref (game->out_lines);
  g_string_free (game->err_text, TRUE);
  g_free (game);
}

/* GET http://127.0.0.1:PORT@path_query; returns the parsed JSON body (or NULL
 * when it is not JSON) and the status; status 0 when no answer came. */
JsonNode *
http_get (Game       *game,
          const char *path_query,
          guint      *out_status)
{
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u%s", game->port, path_query);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
  g_autoptr(GBytes) body = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  gsize len;
  const char *data;

  g_assert_nonnull (msg);
  body = soup_session_send_and_read (game->session, msg, NULL, NULL);
  *out_status = body != NULL ? soup_message_get_status (msg) : 0;
  if (body == NULL)
    return NULL;
  data = g_bytes_get_data (body, &len);
  if (len == 0 || !json_parser_load_from_data (parser, data, (gssize) len, NULL))
    return NULL;
  return json_node_ref (json_parser_get_root (parser));
}

GBytes *
http_get_bytes (Game        *game,
                const char  *path_query,
                guint       *out_status,
                char       **out_type)
{
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u%s", game->port, path_query);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
  GBytes *body;

  g_assert_nonnull (msg);
  body = soup_session_send_and_read (game->session, msg, NULL, NULL);
  *out_status = body != NULL ? soup_message_get_status (msg) : 0;
  if (out_type != NULL)
    *out_type = g_strdup (soup_message_headers_get_content_type (soup_message_get_response_headers (msg), NULL));
  return body;
}

void
crate_pixel (JsonObject *crate,
             guint       width,
             guint       height,
             guint      *out_x,
             guint      *out_y)
{
  double wx = json_object_get_double_member (crate, "x") * 100;
  double wy = json_object_get_double_member (crate, "y") * 100;
  gint64 x = (gint64) (wx + (wx >= 0 ? 0.5 : -0.5)), y = (gint64) (wy + 0.5);

  /* The middle: half a crate (25 centi-units) above its bottom. */
  *out_x = (guint) (width / 2 + x * (gint64) height / 750);
  *out_y = (guint) (height - (y + 25 + 50) * (gint64) height / 750);
}

/* GET that must answer @status with a JSON object. */
JsonObject *
get_object (Game       *game,
            const char *path_query,
            guint       status)
{
  guint got = 0;
  g_autoptr(JsonNode) node = http_get (game, path_query, &got);

  g_assert_cmpuint (got, ==, status);
  g_assert_nonnull (node);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_object_ref (json_node_get_object (node));
}

gint64
send_command (Game       *game,
              const char *query)
{
  g_autofree char *path = g_strdup_printf ("/command?%s", query);
  g_autoptr(JsonObject) reply = get_object (game, path, 200);

  g_assert_true (json_object_get_boolean_member (reply, "accepted"));
  g_assert_cmpint (json_object_get_int_member (reply, "commandId"), >, 0);
  g_assert_cmpint (json_object_get_int_member (reply, "frame"), >=, 0);
  return json_object_get_int_member (reply, "commandId");
}

/* Polls /state until completedCommandId >= @id; returns that state. */
JsonObject *
wait_applied (Game   *game,
              gint64  id)
{
  gint64 deadline = g_get_monotonic_time () + TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;

  while (g_get_monotonic_time () < deadline)
    {
      g_autoptr(JsonObject) state = get_object (game, "/state", 200);

      if (json_object_get_int_member (state, "completedCommandId") >= id)
        return g_steal_pointer (&state);
      pump (10);
    }
  g_error ("command %" G_GINT64_FORMAT " was not applied in time", id);
}

/* Polls /state until its frame reaches @frame; returns that state. */
JsonObject *
wait_frame (Game   *game,
            gint64  frame)
{
  gint64 deadline = g_get_monotonic_time () + TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;

  while (g_get_monotonic_time () < deadline)
    {
      g_autoptr(JsonObject) state = get_object (game, "/state", 200);

      if (json_object_get_int_member (state, "frame") >= frame)
        return g_steal_pointer (&state);
      pump (5);
    }
  g_error ("frame %" G_GINT64_FORMAT " never came", frame);
}

gint64
command_and_wait (Game       *game,
                  const char *query)
{
  g_autoptr(JsonObject) state = wait_applied (game, send_command (game, query));

  return json_object_get_int_member (state, "completedCommandId");
}

JsonObject *
game_object (JsonObject *state)
{
  return json_object_get_object_member (state, "game");
}

gboolean
has_event (JsonObject *state,
           const char *m)
{
  JsonArray *events = json_object_get_array_member (state, "events");

  for (guint i = 0; i < json_array_get_length (events); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (events, i), "m"), m) == 0)
      return TRUE;
  return FALSE;
}

char *
registry_entry_path (Game *game)
{
  g_autofree char *name = g_strdup_printf ("%s.json", g_subprocess_get_identifier (game->proc));

  return g_build_filename (game->registry_dir, name, NULL);
}

void
assert_port_silent (Game *game)
{
  guint status = 99;
  g_autoptr(JsonNode) node = http_get (game, "/health", &status);

  g_assert_cmpuint (status, ==, 0);
}

/* Sends @request verbatim; returns the status (0 when the connection closed
 * without one) and the body. */
guint
raw_request (guint        port,
             const char  *request,
             gsize        len,
             char       **out_body)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) conn = NULL;
  g_autoptr(GByteArray) reply = g_byte_array_new ();
  g_autofree char *text = NULL;
  const char *body;
  guint8 buf[4096];
  gssize n;
  guint status = 0;

  g_socket_client_set_timeout (client, 10);
  conn = g_socket_client_connect_to_host (client, "127.0.0.1", port, NULL, NULL);
  g_assert_nonnull (conn);
  if (!g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (conn)), request, len,
                                  NULL, NULL, NULL))
    return 0;
  while ((n = g_input_stream_read (g_io_stream_get_input_stream (G_IO_STREAM (conn)), buf, sizeof buf,
                                   NULL, NULL)) > 0)
    g_byte_array_append (reply, buf, (guint) n);
  g_byte_array_append (reply, (const guint8 *) "", 1);
  text = (char *) g_byte_array_free (g_steal_pointer (&reply), FALSE);
  if (g_str_has_prefix (text, "HTTP/1.1 "))
    status = (guint) g_ascii_strtoull (text + 9, NULL, 10);
  body = strstr (text, "\r\n\r\n");
  if (out_body != NULL)
    *out_body = g_strdup (body != NULL ? body + 4 : "");
  return status;
}

guint
raw_get (Game        *game,
         const char  *target,
         char       **out_body)
{
  g_autofree char *request = g_strdup_printf ("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                                              target);

  return raw_request (game->port, request, strlen (request), out_body);
}

JsonObject *
read_json_file (const char *path)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

