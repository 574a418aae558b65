/* test-refgame.c: the reference game, driven over real HTTP.
 *
 * Spawns the built gamegate-refgame (honouring GAMEGATE_TEST_WRAPPER, so the
 * valgrind setup checks the game too), talks to it with SoupSession and raw
 * sockets, and checks the game-bridge contract it serves: health, state,
 * fire-and-forget commands, the queue bound, the manifest, the registry entry,
 * every failure switch and hostile query strings. */
#include "config.h"

#include <glib-unix.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>
#include <signal.h>
#include <string.h>

#define TIMEOUT_MS 20000

typedef struct {
  GSubprocess      *proc;
  GDataInputStream *out;
  GDataInputStream *err;
  GPtrArray        *out_lines;
  GString          *err_text;
  guint             open_streams;
  guint             port;
  char             *registry_dir;
  SoupSession      *session;
  gboolean          exited;
} Game;

/* ---- plumbing ---------------------------------------------------------- */

static gboolean
timeout_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs the main context for @ms, so the game's output keeps being drained. */
static void
pump (guint ms)
{
  gboolean done = FALSE;
  guint id = g_timeout_add (ms, timeout_flag, &done);

  while (!done)
    g_main_context_iteration (NULL, TRUE);
  (void) id;
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

static gboolean
output_has (Game       *game,
            const char *needle)
{
  for (guint i = 0; i < game->out_lines->len; i++)
    if (strstr (game->out_lines->pdata[i], needle) != NULL)
      return TRUE;
  return FALSE;
}

/* Waits until the game printed a line containing @needle. */
static void
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
static void
wait_exit (Game *game)
{
  gint64 deadline = g_get_monotonic_time () + TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;

  while ((!game->exited || game->open_streams > 0) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (game->exited);
}

/* Spawns the game with @args (NULL-terminated) in @cwd (or the test's cwd).
 * When @expect_port, waits for the "listening" line and records the port. */
static Game *
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

static Game *
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

static void
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
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Game, game_free)

/* GET http://127.0.0.1:PORT@path_query; returns the parsed JSON body (or NULL
 * when it is not JSON) and the status; status 0 when no answer came. */
static JsonNode *
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

/* GET that must answer @status with a JSON object. */
static JsonObject *
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

static gint64
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
static JsonObject *
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

static gint64
command_and_wait (Game       *game,
                  const char *query)
{
  g_autoptr(JsonObject) state = wait_applied (game, send_command (game, query));

  return json_object_get_int_member (state, "completedCommandId");
}

static JsonObject *
game_object (JsonObject *state)
{
  return json_object_get_object_member (state, "game");
}

static gboolean
has_event (JsonObject *state,
           const char *m)
{
  JsonArray *events = json_object_get_array_member (state, "events");

  for (guint i = 0; i < json_array_get_length (events); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (events, i), "m"), m) == 0)
      return TRUE;
  return FALSE;
}

static char *
registry_entry_path (Game *game)
{
  g_autofree char *name = g_strdup_printf ("%s.json", g_subprocess_get_identifier (game->proc));

  return g_build_filename (game->registry_dir, name, NULL);
}

static void
assert_port_silent (Game *game)
{
  guint status = 99;
  g_autoptr(JsonNode) node = http_get (game, "/health", &status);

  g_assert_cmpuint (status, ==, 0);
}

/* Sends @request verbatim; returns the status (0 when the connection closed
 * without one) and the body. */
static guint
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

static guint
raw_get (Game        *game,
         const char  *target,
         char       **out_body)
{
  g_autofree char *request = g_strdup_printf ("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                                              target);

  return raw_request (game->port, request, strlen (request), out_body);
}

/* ---- the contract ---------------------------------------------------- */

static void
test_health (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autoptr(JsonObject) first = get_object (game, "/health", 200);
  g_autoptr(JsonObject) second = NULL;

  g_assert_true (json_object_get_boolean_member (first, "ok"));
  pump (100);
  second = get_object (game, "/health", 200);
  g_assert_cmpint (json_object_get_int_member (second, "frame"), >,
                   json_object_get_int_member (first, "frame"));
  g_assert_true (game->port > 0 && game->port < 65536);
}

static void
test_state_fields (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--seed", "42", NULL);
  g_autoptr(JsonObject) state = get_object (game, "/state", 200);
  JsonObject *ui, *g;
  JsonArray *elements;

  g_assert_true (json_object_has_member (state, "frame"));
  g_assert_true (json_object_has_member (state, "simFrame"));
  g_assert_cmpint (json_object_get_int_member (state, "completedCommandId"), ==, 0);
  g_assert_false (json_object_get_boolean_member (state, "paused"));
  ui = json_object_get_object_member (state, "ui");
  g_assert_cmpstr (json_object_get_string_member (ui, "screen"), ==, "GameScreen");
  elements = json_object_get_array_member (ui, "elements");
  g_assert_cmpuint (json_array_get_length (elements), >, 0);
  for (guint i = 0; i < json_array_get_length (elements); i++)
    {
      JsonObject *e = json_array_get_object_element (elements, i);

      g_assert_nonnull (json_object_get_string_member (e, "label"));
      g_assert_true (json_object_has_member (e, "visible"));
    }
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (state, "events")), ==, 0);
  g = game_object (state);
  g_assert_cmpint (json_object_get_int_member (g, "score"), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (g, "state"), ==, "RUNNING");
  g_assert_cmpint (json_object_get_int_member (g, "seed"), ==, 42);
  g_assert_true (json_object_get_null_member (g, "held"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (g, "crates")), ==, 0);
}

static void
test_command_applied (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autofree char *path = NULL;
  g_autoptr(JsonObject) reply = get_object (game, "/command?cmd=spawn&kind=steel", 200);
  g_autoptr(JsonObject) state = NULL;
  gint64 id = json_object_get_int_member (reply, "commandId");
  gint64 queued_frame = json_object_get_int_member (reply, "frame");
  JsonObject *held;

  g_assert_true (json_object_get_boolean_member (reply, "accepted"));
  g_assert_false (json_object_has_member (reply, "ignored"));
  state = wait_applied (game, id);
  g_assert_cmpint (json_object_get_int_member (state, "frame"), >, queued_frame);
  held = json_object_get_object_member (game_object (state), "held");
  g_assert_cmpstr (json_object_get_string_member (held, "kind"), ==, "steel");
  g_assert_true (has_event (state, "spawn:steel"));
  wait_output (game, "applying #1 spawn {\"kind\":\"steel\"}");

  /* Ids grow one by one; an extra parameter is reported, not refused. */
  g_clear_pointer (&reply, json_object_unref);
  reply = get_object (game, "/command?cmd=drop&x=1.2&port=7777", 200);
  g_assert_cmpint (json_object_get_int_member (reply, "commandId"), ==, id + 1);
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (reply, "ignored"), 0),
                   ==, "port");
  g_clear_pointer (&state, json_object_unref);
  state = wait_applied (game, id + 1);
  g_assert_cmpint (json_object_get_int_member (game_object (state), "score"), ==, 20);
  g_assert_cmpint (json_object_get_int_member (game_object (state), "dropped"), ==, 1);
  g_assert_true (has_event (state, "land:steel:level0"));
}

static void
test_fire_and_forget (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--tick-ms", "1500", NULL);
  g_autoptr(JsonObject) before = NULL;
  g_autoptr(JsonObject) after = NULL;
  gint64 id = send_command (game, "cmd=set_score&score=999");

  before = get_object (game, "/state", 200);
  g_assert_cmpint (json_object_get_int_member (before, "completedCommandId"), <, id);
  g_assert_cmpint (json_object_get_int_member (game_object (before), "score"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (before, "queued"), ==, 1);
  after = wait_applied (game, id);
  g_assert_cmpint (json_object_get_int_member (game_object (after), "score"), ==, 999);
  g_assert_true (has_event (after, "score:=999"));
}

static void
test_queue_full (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--freeze", NULL);
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(JsonObject) health = NULL;

  for (int i = 0; i < 64; i++)
    send_command (game, "cmd=spawn");
  reply = get_object (game, "/command?cmd=spawn", 200);
  g_assert_false (json_object_get_boolean_member (reply, "accepted"));
  g_assert_cmpstr (json_object_get_string_member (reply, "error"), ==, "queue_full");
  health = get_object (game, "/health", 200);
  g_assert_cmpint (json_object_get_int_member (health, "frame"), ==, 0);
  wait_output (game, "frozen at frame 0");
}

static void
test_unknown_command (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autoptr(JsonObject) reply = get_object (game, "/command?cmd=fly&speed=3", 200);
  JsonArray *known;
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  const char *expected[] = { "spawn", "drop", "move", "pause", "resume", "restart", "set_seed",
                             "set_score", "close" };

  g_assert_false (json_object_get_boolean_member (reply, "accepted"));
  g_assert_cmpstr (json_object_get_string_member (reply, "error"), ==, "unknown_command");
  g_assert_nonnull (strstr (json_object_get_string_member (reply, "message"), "fly"));
  known = json_object_get_array_member (reply, "known");
  for (guint i = 0; i < json_array_get_length (known); i++)
    g_ptr_array_add (names, (gpointer) json_array_get_string_element (known, i));
  for (gsize i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_true (g_ptr_array_find_with_equal_func (names, expected[i], g_str_equal, NULL));
}

static void
test_bad_requests (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  const struct { const char *path; guint status; const char *error; } cases[] = {
    { "/command", 400, "missing_cmd" },
    { "/command?cmd=", 400, "missing_cmd" },
    { "/command?x=1", 400, "missing_cmd" },
    { "/command?cmd=set_seed", 400, "missing_argument" },
    { "/nowhere", 404, "not_found" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonObject) reply = get_object (game, cases[i].path, cases[i].status);

      g_assert_cmpstr (json_object_get_string_member (reply, "error"), ==, cases[i].error);
      g_assert_nonnull (json_object_get_string_member (reply, "message"));
    }
}

static JsonObject *
find_tool (JsonArray  *toolsets,
           const char *name)
{
  for (guint i = 0; i < json_array_get_length (toolsets); i++)
    {
      JsonArray *tools = json_object_get_array_member (json_array_get_object_element (toolsets, i), "tools");

      for (guint j = 0; j < json_array_get_length (tools); j++)
        {
          JsonObject *tool = json_array_get_object_element (tools, j);

          if (g_strcmp0 (json_object_get_string_member (tool, "name"), name) == 0)
            return tool;
        }
    }
  g_error ("no tool %s in the manifest", name);
}

static JsonObject *
find_arg (JsonObject *tool,
          const char *name)
{
  JsonArray *args = json_object_get_array_member (tool, "args");

  for (guint i = 0; i < json_array_get_length (args); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (args, i), "name"), name) == 0)
      return json_array_get_object_element (args, i);
  g_error ("no argument %s", name);
}

static void
test_tools_manifest (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--freeze", NULL);
  g_autoptr(JsonObject) manifest = get_object (game, "/tools", 200);
  g_autoptr(JsonObject) unknown = get_object (game, "/command?cmd=x", 200);
  JsonArray *known = json_object_get_array_member (unknown, "known");
  JsonObject *meta = json_object_get_object_member (manifest, "game");
  JsonArray *toolsets = json_object_get_array_member (manifest, "toolsets");
  JsonObject *passthrough = json_object_get_object_member (manifest, "passthrough");
  JsonObject *tool, *map;
  JsonArray *plain;
  guint n_tools = 0;

  g_assert_cmpstr (json_object_get_string_member (meta, "name"), ==, "Crate Stacker");
  g_assert_cmpstr (json_object_get_string_member (meta, "version"), ==, PACKAGE_VERSION);
  g_assert_cmpint (json_object_get_int_member (meta, "protocol"), ==, 1);
  g_assert_cmpuint (json_array_get_length (toolsets), >=, 2);

  /* Every tool's command is one the game accepts. */
  for (guint i = 0; i < json_array_get_length (toolsets); i++)
    {
      JsonObject *set = json_array_get_object_element (toolsets, i);
      JsonArray *tools = json_object_get_array_member (set, "tools");

      g_assert_nonnull (json_object_get_string_member (set, "name"));
      g_assert_nonnull (json_object_get_string_member (set, "description"));
      for (guint j = 0; j < json_array_get_length (tools); j++, n_tools++)
        {
          JsonObject *t = json_array_get_object_element (tools, j);
          const char *command = json_object_get_string_member_with_default (
            t, "command", json_object_get_string_member (t, "name"));
          gboolean found = FALSE;

          for (guint k = 0; k < json_array_get_length (known); k++)
            found |= g_str_equal (json_array_get_string_element (known, k), command);
          g_assert_true (found);
        }
    }
  g_assert_cmpuint (n_tools, >=, 8);

  /* String and null defaults. */
  tool = find_tool (toolsets, "drop");
  g_assert_cmpstr (json_object_get_string_member (find_arg (tool, "settle"), "default"), ==, "true");
  g_assert_true (json_object_get_null_member (find_arg (tool, "x"), "default"));
  g_assert_cmpstr (json_object_get_string_member (find_arg (find_tool (toolsets, "move"), "dx"), "default"),
                   ==, "0.05");

  /* The map form, name -> {type, description}. */
  map = json_object_get_object_member (find_tool (toolsets, "spawn"), "args");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (map, "kind"), "type"),
                   ==, "string");
  g_assert_nonnull (json_object_get_string_member (json_object_get_object_member (map, "crate"),
                                                   "description"));

  /* Plain names, under "params", on a tool with its own command. */
  tool = find_tool (toolsets, "reseed");
  g_assert_cmpstr (json_object_get_string_member (tool, "command"), ==, "set_seed");
  plain = json_object_get_array_member (tool, "params");
  g_assert_cmpstr (json_array_get_string_element (plain, 0), ==, "seed");
  g_assert_true (json_object_has_member (find_tool (toolsets, "set_score"), "arguments"));
  g_assert_cmpstr (json_object_get_string_member (find_tool (toolsets, "new_game"), "command"), ==, "restart");

  g_assert_nonnull (json_object_get_string_member (passthrough, "description"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (passthrough, "examples")), >, 0);
}

/* ---- gameplay and determinism ---------------------------------------- */

static void
test_pause_resume (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--tick-ms", "5", NULL);
  g_autoptr(JsonObject) paused = NULL;
  g_autoptr(JsonObject) later = NULL;
  g_autoptr(JsonObject) resumed = NULL;
  JsonObject *crate;

  command_and_wait (game, "cmd=spawn");
  paused = wait_applied (game, send_command (game, "cmd=pause"));
  g_assert_true (json_object_get_boolean_member (paused, "paused"));
  command_and_wait (game, "cmd=drop&x=-1&settle=false");
  pump (100);
  later = get_object (game, "/state", 200);
  g_assert_cmpint (json_object_get_int_member (later, "simFrame"), ==,
                   json_object_get_int_member (paused, "simFrame"));
  g_assert_cmpint (json_object_get_int_member (later, "frame"), >,
                   json_object_get_int_member (paused, "frame"));
  crate = json_array_get_object_element (json_object_get_array_member (game_object (later), "crates"), 0);
  g_assert_true (json_object_get_boolean_member (crate, "falling"));
  g_assert_cmpfloat (json_object_get_double_member (crate, "y"), ==, 6.0);
  g_assert_cmpfloat (json_object_get_double_member (crate, "x"), ==, -1.0);
  g_assert_true (json_object_get_boolean_member (
    json_array_get_object_element (json_object_get_array_member (json_object_get_object_member (later, "ui"),
                                                                 "elements"), 1), "visible"));

  command_and_wait (game, "cmd=resume");
  for (int i = 0; i < 2000; i++)
    {
      g_clear_pointer (&resumed, json_object_unref);
      resumed = get_object (game, "/state", 200);
      if (json_object_get_boolean_member (game_object (resumed), "settled"))
        break;
      pump (5);
    }
  g_assert_false (json_object_get_boolean_member (resumed, "paused"));
  g_assert_true (json_object_get_boolean_member (game_object (resumed), "settled"));
  g_assert_cmpint (json_object_get_int_member (resumed, "simFrame"), >,
                   json_object_get_int_member (paused, "simFrame"));
  g_assert_true (has_event (resumed, "resume"));
  g_assert_true (has_event (resumed, "land:wood:level0") || has_event (resumed, "land:steel:level0") ||
                 has_event (resumed, "land:ice:level0"));
}

static void
test_game_over_and_restart (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--tick-ms", "5", NULL);
  g_autoptr(JsonObject) state = NULL;
  JsonObject *ui;
  int drops = 0;

  while (drops < 20)
    {
      command_and_wait (game, "cmd=spawn");
      g_clear_pointer (&state, json_object_unref);
      state = wait_applied (game, send_command (game, "cmd=drop&x=0"));
      drops++;
      if (g_str_equal (json_object_get_string_member (game_object (state), "state"), "GAME_OVER"))
        break;
    }
  g_assert_cmpint (drops, ==, 6);    /* six crates of 0.5 reach the 3.0 limit */
  g_assert_cmpfloat (json_object_get_double_member (game_object (state), "height"), ==, 3.0);
  ui = json_object_get_object_member (state, "ui");
  g_assert_cmpstr (json_object_get_string_member (ui, "screen"), ==, "GameOverScreen");
  g_clear_pointer (&state, json_object_unref);
  state = wait_applied (game, send_command (game, "cmd=spawn"));
  g_assert_true (has_event (state, "ignored:spawn:game_over"));
  g_assert_true (json_object_get_null_member (game_object (state), "held"));

  g_clear_pointer (&state, json_object_unref);
  state = wait_applied (game, send_command (game, "cmd=restart"));
  g_assert_cmpstr (json_object_get_string_member (game_object (state), "state"), ==, "RUNNING");
  g_assert_cmpint (json_object_get_int_member (game_object (state), "score"), ==, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (game_object (state), "crates")), ==, 0);

  /* Events stay bounded. */
  for (int i = 0; i < 40; i++)
    send_command (game, "cmd=move&dx=-0.1");
  g_clear_pointer (&state, json_object_unref);
  state = wait_applied (game, send_command (game, "cmd=move"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (state, "events")), ==, 32);
}

/* Plays a fixed sequence and returns the final "game" object as text. */
static char *
play_script (Game *game)
{
  static const char *script[] = {
    "cmd=spawn", "cmd=drop&x=-1", "cmd=spawn", "cmd=move&dx=0.3", "cmd=drop",
    "cmd=spawn", "cmd=move", "cmd=drop&settle=false", "cmd=spawn&kind=ice", "cmd=drop&x=1.5",
    "cmd=spawn&crate=%7B%22kind%22%3A%22steel%22%2C%22width%22%3A0.9%7D", "cmd=drop&x=-0.35",
    "cmd=spawn", "cmd=drop&x=2",
  };
  g_autoptr(JsonObject) state = NULL;
  g_autoptr(JsonNode) node = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (script); i++)
    {
      g_clear_pointer (&state, json_object_unref);
      state = wait_applied (game, send_command (game, script[i]));
    }
  while (!json_object_get_boolean_member (game_object (state), "settled"))
    {
      pump (5);
      g_clear_pointer (&state, json_object_unref);
      state = get_object (game, "/state", 200);
    }
  node = json_node_init_object (json_node_alloc (), game_object (state));
  return json_to_string (node, FALSE);
}

static void
test_determinism (void)
{
  g_autoptr(Game) a = game_spawn ("--no-registry", "--tick-ms", "2", "--seed", "7", NULL);
  g_autoptr(Game) b = game_spawn ("--no-registry", "--tick-ms", "9", "--seed", "7", NULL);
  g_autoptr(Game) c = game_spawn ("--no-registry", "--tick-ms", "2", "--seed", "99", NULL);
  g_autofree char *run_a = play_script (a);
  g_autofree char *run_b = play_script (b);
  g_autofree char *run_c = NULL;

  g_autofree char *raw_state = NULL;

  g_assert_cmpstr (run_a, ==, run_b);
  /* Positions print as short decimals, not as the nearest binary double. */
  g_assert_cmpuint (raw_get (a, "/state", &raw_state), ==, 200);
  g_assert_nonnull (strstr (raw_state, "\"x\":-0.35,"));
  g_assert_nonnull (strstr (raw_state, "\"width\":0.9,"));
  command_and_wait (c, "cmd=set_seed&seed=7");
  run_c = play_script (c);
  g_assert_cmpstr (run_a, ==, run_c);
}

/* ---- registry, exits ------------------------------------------------- */

static JsonObject *
read_json_file (const char *path)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static void
test_registry_and_close (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *cwd = g_dir_make_tmp ("refgame-cwd-XXXXXX", &error);
  g_autofree char *real_cwd = NULL;
  const char *args[] = { "--debug-port", "0", NULL };
  g_autoptr(Game) game = NULL;
  g_autofree char *entry = NULL;
  g_autoptr(JsonObject) reg = NULL;
  g_autoptr(GRegex) iso = g_regex_new ("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$", 0, 0, NULL);

  g_assert_no_error (error);
  real_cwd = g_canonicalize_filename (cwd, NULL);
  game = game_spawn_full (args, cwd, NULL, TRUE);
  entry = registry_entry_path (game);
  reg = read_json_file (entry);
  g_assert_cmpstr (json_object_get_string_member (reg, "name"), ==, "Crate Stacker");
  g_assert_cmpstr (json_object_get_string_member (reg, "version"), ==, PACKAGE_VERSION);
  g_assert_cmpint (json_object_get_int_member (reg, "protocol"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (reg, "port"), ==, game->port);
  g_assert_cmpstr (json_object_get_string_member (reg, "host"), ==, "127.0.0.1");
  g_assert_cmpint (json_object_get_int_member (reg, "pid"), ==,
                   g_ascii_strtoll (g_subprocess_get_identifier (game->proc), NULL, 10));
  g_assert_true (g_regex_match (iso, json_object_get_string_member (reg, "started"), 0, NULL));
  g_assert_cmpstr (json_object_get_string_member (reg, "cwd"), ==, real_cwd);

  send_command (game, "cmd=close");
  wait_exit (game);
  g_assert_true (g_subprocess_get_if_exited (game->proc));
  g_assert_cmpint (g_subprocess_get_exit_status (game->proc), ==, 0);
  g_assert_false (g_file_test (entry, G_FILE_TEST_EXISTS));
  g_assert_true (output_has (game, "applying #1 close"));
  g_assert_true (output_has (game, "refgame: bye"));
  assert_port_silent (game);
  g_rmdir (cwd);
}

static void
exit_on_signal (int signum)
{
  g_autoptr(Game) game = game_spawn (NULL);
  g_autofree char *entry = registry_entry_path (game);

  g_assert_true (g_file_test (entry, G_FILE_TEST_EXISTS));
  g_subprocess_send_signal (game->proc, signum);
  wait_exit (game);
  g_assert_true (g_subprocess_get_if_exited (game->proc));
  g_assert_cmpint (g_subprocess_get_exit_status (game->proc), ==, 0);
  g_assert_false (g_file_test (entry, G_FILE_TEST_EXISTS));
}

static void
test_sigterm (void)
{
  exit_on_signal (SIGTERM);
}

static void
test_sigint (void)
{
  exit_on_signal (SIGINT);
}

static void
test_registry_locations (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *home = g_dir_make_tmp ("refgame-home-XXXXXX", &error);
  g_autofree char *blocker = g_build_filename (home, "file", NULL);
  g_autofree char *bad_dir = g_build_filename (blocker, "instances", NULL);
  g_autofree char *instances = g_build_filename (home, "instances", NULL);
  const char *args[] = { "--debug-port", "0", NULL };
  const char *home_env[] = { "GAME_BRIDGE_INSTANCES", NULL, "GAME_BRIDGE_HOME", home, NULL };
  const char *bad_env[] = { "GAME_BRIDGE_INSTANCES", bad_dir, NULL };
  g_autoptr(Game) via_home = NULL;
  g_autoptr(Game) broken = NULL;
  g_autoptr(Game) none = game_spawn ("--no-registry", NULL);
  g_autofree char *none_entry = registry_entry_path (none);
  g_autofree char *entry = NULL;
  g_autoptr(JsonObject) health = NULL;

  g_assert_no_error (error);
  /* --no-registry writes nothing. */
  g_assert_false (g_file_test (none_entry, G_FILE_TEST_EXISTS));

  /* $GAME_BRIDGE_HOME/instances when GAME_BRIDGE_INSTANCES is unset. */
  via_home = game_spawn_full (args, NULL, home_env, TRUE);
  entry = g_strdup_printf ("%s/%s.json", instances, g_subprocess_get_identifier (via_home->proc));
  g_assert_true (g_file_test (entry, G_FILE_TEST_EXISTS));
  g_subprocess_send_signal (via_home->proc, SIGTERM);
  wait_exit (via_home);
  g_assert_false (g_file_test (entry, G_FILE_TEST_EXISTS));

  /* A registry that cannot be written never breaks the game. */
  g_assert_true (g_file_set_contents (blocker, "", 0, NULL));
  broken = game_spawn_full (args, NULL, bad_env, TRUE);
  health = get_object (broken, "/health", 200);
  g_assert_true (json_object_get_boolean_member (health, "ok"));
  pump (50);
  g_assert_nonnull (strstr (broken->err_text->str, "no registry entry"));
  send_command (broken, "cmd=close");
  wait_exit (broken);
  g_assert_cmpint (g_subprocess_get_exit_status (broken->proc), ==, 0);
  g_unlink (blocker);
  g_rmdir (instances);
  g_rmdir (home);
}

/* ---- failure switches ------------------------------------------------ */

static void
test_no_tools (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--no-tools", NULL);
  g_autoptr(JsonObject) reply = get_object (game, "/tools", 404);
  g_autoptr(JsonObject) health = get_object (game, "/health", 200);

  g_assert_cmpstr (json_object_get_string_member (reply, "error"), ==, "not_found");
}

static void
test_no_completed_id (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--no-completed-id", NULL);
  g_autoptr(JsonObject) first = get_object (game, "/state", 200);
  g_autoptr(JsonObject) second = NULL;

  send_command (game, "cmd=spawn");
  pump (100);
  second = get_object (game, "/state", 200);
  g_assert_false (json_object_has_member (first, "completedCommandId"));
  g_assert_false (json_object_has_member (second, "completedCommandId"));
  g_assert_cmpint (json_object_get_int_member (second, "frame"), >=,
                   json_object_get_int_member (first, "frame") + 2);
  g_assert_false (json_object_get_null_member (game_object (second), "held"));
}

static void
test_freeze_after_frames (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", "--tick-ms", "5", "--freeze-after-frames", "5", NULL);
  g_autoptr(JsonObject) state = NULL;
  g_autoptr(JsonObject) health = NULL;
  gint64 id;

  wait_output (game, "frozen at frame 5");
  id = send_command (game, "cmd=spawn");
  pump (200);
  health = get_object (game, "/health", 200);
  g_assert_cmpint (json_object_get_int_member (health, "frame"), ==, 5);
  state = get_object (game, "/state", 200);
  g_assert_cmpint (json_object_get_int_member (state, "completedCommandId"), <, id);
  g_assert_cmpint (json_object_get_int_member (state, "queued"), ==, 1);
}

static void
test_crash_on (void)
{
  g_autoptr(Game) game = game_spawn ("--crash-on", "drop", NULL);
  g_autofree char *entry = registry_entry_path (game);

  command_and_wait (game, "cmd=spawn");
  send_command (game, "cmd=drop");
  wait_exit (game);
  g_assert_false (g_subprocess_get_if_exited (game->proc));
  g_assert_true (g_subprocess_get_if_signaled (game->proc));
  g_assert_cmpint (g_subprocess_get_term_sig (game->proc), ==, SIGABRT);
  g_assert_nonnull (strstr (game->err_text->str, "--crash-on drop"));
  /* Died mid-call: its entry is left behind, stale, as after any crash. */
  g_assert_true (g_file_test (entry, G_FILE_TEST_EXISTS));
  assert_port_silent (game);
}

static void
test_exit_code_at_start (void)
{
  const char *args[] = { "--debug-port", "0", "--exit-code-at-start", "3", NULL };
  g_autoptr(Game) game = game_spawn_full (args, NULL, NULL, FALSE);
  g_autoptr(GDir) dir = NULL;

  wait_exit (game);
  g_assert_true (g_subprocess_get_if_exited (game->proc));
  g_assert_cmpint (g_subprocess_get_exit_status (game->proc), ==, 3);
  g_assert_cmpuint (game->out_lines->len, >=, 2);
  g_assert_nonnull (strstr (game->err_text->str, "failing on purpose"));
  dir = g_dir_open (game->registry_dir, 0, NULL);
  g_assert_null (g_dir_read_name (dir));
}

static void
test_bad_options (void)
{
  const char *cases[][5] = {
    { NULL },
    { "--debug-port", "70000", NULL },
    { "--debug-port", "-5", NULL },
    { "--debug-port", "0", "--tick-ms", "0", NULL },
    { "--debug-port", "0", "--crash-on", "nothing", NULL },
    { "--debug-port", "0", "--seed", "-1", NULL },
    { "--debug-port", "0", "--freeze-after-frames", "-3", NULL },
    { "--debug-port", "zero", NULL },
    { "--debug-port", "0", "--bogus", NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(Game) game = game_spawn_full (cases[i], NULL, NULL, FALSE);

      wait_exit (game);
      g_assert_true (g_subprocess_get_if_exited (game->proc));
      g_assert_cmpint (g_subprocess_get_exit_status (game->proc), ==, 2);
      g_assert_cmpuint (game->err_text->len, >, 0);
    }
}

static void
test_explicit_port (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocket) blocker = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                             G_SOCKET_PROTOCOL_TCP, &error);
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (lo, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autofree char *port = NULL;
  g_autoptr(Game) taken = NULL;
  g_autoptr(Game) game = NULL;

  g_assert_no_error (error);
  g_assert_true (g_socket_bind (blocker, any, FALSE, &error));
  g_assert_true (g_socket_listen (blocker, &error));
  bound = g_socket_get_local_address (blocker, &error);
  port = g_strdup_printf ("%u", g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));

  /* A port already held: a clear failure, exit status 1, nothing registered. */
  {
    const char *args[] = { "--debug-port", port, NULL };

    taken = game_spawn_full (args, NULL, NULL, FALSE);
    wait_exit (taken);
    g_assert_cmpint (g_subprocess_get_exit_status (taken->proc), ==, 1);
    g_assert_nonnull (strstr (taken->err_text->str, "cannot listen"));
  }

  /* The same port once free: the game serves exactly there. */
  g_socket_close (blocker, NULL);
  {
    const char *args[] = { "--debug-port", port, "--no-registry", NULL };

    game = game_spawn_full (args, NULL, NULL, TRUE);
    g_assert_cmpuint (game->port, ==, g_ascii_strtoull (port, NULL, 10));
  }
}

/* ---- hostile input --------------------------------------------------- */

static char *
repeat (const char *unit,
        guint       times)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < times; i++)
    g_string_append (s, unit);
  return g_string_free (s, FALSE);
}

static void
test_hostile_queries (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  g_autofree char *long_value = repeat ("a", 9000);
  g_autofree char *long_decoded = repeat ("%41", 1500);
  g_autofree char *opens = repeat ("%5B", 1300);
  g_autofree char *closes = repeat ("%5D", 1300);
  g_autofree char *deep = g_strconcat (opens, closes, NULL);
  g_autofree char *huge_value = repeat ("b", 100000);
  g_autofree char *long_key = repeat ("k", 65);
  GString *many_params = g_string_new ("cmd=spawn");
  struct { char *target; guint status; const char *error; } cases[] = {
    { g_strdup_printf ("/command?cmd=spawn&x=%s", long_value), 400, "bad_query" },
    { g_strdup_printf ("/command?cmd=spawn&kind=%s", long_decoded), 400, "invalid_argument" },
    { NULL, 400, "bad_query" },  /* many parameters, filled below */
    { g_strdup ("/command?cmd=spawn&cmd=close"), 400, "bad_query" },
    { g_strdup ("/command?cmd=spawn&=1"), 400, "bad_query" },
    { g_strdup_printf ("/command?cmd=spawn&%s=1", long_key), 400, "bad_query" },
    { g_strdup ("/command?cmd=spawn&kind=%FF%FE"), 400, "bad_query" },
    { g_strdup ("/command?cmd=sp\xff" "awn"), 400, "bad_query" },
    { g_strdup ("/command?cmd=%C3%28"), 400, "bad_query" },
    { g_strdup ("/command?cmd=spawn&kind=%00"), 400, NULL },
    { g_strdup ("/command?cmd=spawn&kind=%zz"), 400, NULL },
    { g_strdup ("/command?cmd=spawn&kind=%"), 400, NULL },
    { g_strdup ("/command?cmd=drop&x=nan"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=drop&x=inf"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=drop&x=1e400"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=drop&x=%201"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=drop&x=1abc"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=drop&x="), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=drop&x"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=drop&settle=maybe"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=set_seed&seed=-1"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=set_seed&seed=99999999999999999999"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=set_score&score=1.5"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=spawn&kind=gold"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=spawn&crate=%7Bbroken"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=spawn&crate=1"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=spawn&crate=%5B%5D"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=spawn&crate=%7B%22kind%22%3A%22gold%22%7D"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=spawn&crate=%7B%22width%22%3A%22wide%22%7D"), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=spawn&crate=%7B%22mass%22%3A1%7D"), 400, "invalid_argument" },
    { g_strdup_printf ("/command?cmd=spawn&crate=%s", deep), 400, "invalid_argument" },
    { g_strdup ("/command?cmd=%D1%81%D0%BF%D0%B0%D0%B2%D0%BD"), 200, "unknown_command" },
    { g_strdup ("/command?cmd=set+score&score=1"), 200, "unknown_command" },
    { g_strdup ("/state?" "\xff\xfe"), 200, NULL },
  };
  g_autoptr(JsonObject) health = NULL;
  g_autoptr(JsonObject) state = NULL;
  g_autofree char *huge = NULL;
  guint status;

  for (int i = 0; i < 1000; i++)
    g_string_append_printf (many_params, "&p%d=1", i);
  cases[2].target = g_strdup_printf ("/command?%s", many_params->str);
  g_string_free (many_params, TRUE);

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *body = NULL;

      status = raw_get (game, cases[i].target, &body);
      if (status != cases[i].status)
        g_error ("case %" G_GSIZE_FORMAT ": HTTP %u, expected %u; body %s", i, status, cases[i].status, body);
      if (cases[i].error != NULL)
        {
          g_autoptr(JsonParser) parser = json_parser_new ();
          JsonObject *reply;

          g_assert_true (json_parser_load_from_data (parser, body, -1, NULL));
          reply = json_node_get_object (json_parser_get_root (parser));
          g_assert_false (json_object_get_boolean_member (reply, "accepted"));
          g_assert_cmpstr (json_object_get_string_member (reply, "error"), ==, cases[i].error);
        }
      g_free (cases[i].target);
    }

  /* Past libsoup's header limit the connection is dropped; the game lives on. */
  huge = g_strdup_printf ("/command?cmd=spawn&x=%s", huge_value);
  status = raw_get (game, huge, NULL);
  g_assert_true (status == 0 || status >= 400);

  /* A body-carrying method is refused politely. */
  {
    const char post[] = "POST /command?cmd=spawn HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                        "Connection: close\r\n\r\nabc";
    g_assert_cmpuint (raw_request (game->port, post, sizeof post - 1, NULL), ==, 405);
  }

  health = get_object (game, "/health", 200);
  g_assert_true (json_object_get_boolean_member (health, "ok"));
  state = get_object (game, "/state", 200);
  g_assert_cmpint (json_object_get_int_member (state, "completedCommandId"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (state, "queued"), ==, 0);
}

static guint
count_fds (Game *game)
{
  g_autofree char *dir_path = g_strdup_printf ("/proc/%s/fd", g_subprocess_get_identifier (game->proc));
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  guint n = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

/* Clients that close keep-alive connections while idle (what a poller does)
 * must not cost the game a descriptor each. */
static void
test_no_descriptor_leak (void)
{
  g_autoptr(Game) game = game_spawn ("--no-registry", NULL);
  guint before, after;

  if (!g_file_test ("/proc/self/fd", G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no /proc/PID/fd here");
      return;
    }
  g_assert_cmpuint (raw_get (game, "/health", NULL), ==, 200);
  pump (50);
  before = count_fds (game);
  for (int i = 0; i < 100; i++)
    {
      g_autoptr(GSocketClient) client = g_socket_client_new ();
      g_autoptr(GSocketConnection) conn = g_socket_client_connect_to_host (client, "127.0.0.1", game->port,
                                                                          NULL, NULL);
      const char request[] = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
      char buf[512];

      g_assert_nonnull (conn);
      g_assert_true (g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (conn)), request,
                                                sizeof request - 1, NULL, NULL, NULL));
      g_assert_cmpint (g_input_stream_read (g_io_stream_get_input_stream (G_IO_STREAM (conn)), buf, sizeof buf,
                                            NULL, NULL), >, 0);
      g_io_stream_close (G_IO_STREAM (conn), NULL, NULL);
    }
  pump (200);
  after = count_fds (game);
  g_assert_cmpuint (after, <=, before + 5);
}

/* ---- the launch declaration ------------------------------------------ */

static void
test_launch_declaration (void)
{
  g_autofree char *src = g_build_filename (GG_TEST_SRCDIR, "refgame", "gamebridge.json", NULL);
  g_autofree char *exe_dir = g_path_get_dirname (RG_REFGAME_EXE);
  g_autofree char *built = g_build_filename (exe_dir, "gamebridge.json", NULL);
  g_autoptr(JsonObject) decl = read_json_file (src);
  g_autoptr(JsonObject) built_decl = read_json_file (built);
  JsonObject *launch = json_object_get_object_member (decl, "launch");
  JsonArray *argv = json_object_get_array_member (launch, "argv");
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(Game) game = NULL;
  g_autoptr(JsonObject) health = NULL;
  gboolean has_port = FALSE;

  g_assert_cmpstr (json_object_get_string_member (decl, "name"), ==, "Crate Stacker");
  g_assert_cmpstr (json_object_get_string_member (built_decl, "name"), ==, "Crate Stacker");
  g_assert_cmpstr (json_object_get_string_member (launch, "cwd"), ==, ".");
  g_assert_nonnull (json_object_get_string_member (launch, "portRange"));
  g_assert_cmpint (json_object_get_int_member (launch, "readyTimeoutMs"), >, 0);

  /* Run it as a launcher would: relative to the declaration's directory, in
   * the build tree, with {port} substituted (0 here: any free port). */
  for (guint i = 1; i < json_array_get_length (argv); i++)
    {
      const char *a = json_array_get_string_element (argv, i);

      has_port |= g_str_equal (a, "{port}");
      g_ptr_array_add (args, g_str_equal (a, "{port}") ? g_strdup ("0") : g_strdup (a));
    }
  g_ptr_array_add (args, g_strdup ("--no-registry"));
  g_ptr_array_add (args, NULL);
  g_assert_true (has_port);
  g_assert_cmpstr (json_array_get_string_element (argv, 0), ==, "./gamegate-refgame");
  g_assert_true (g_file_test (RG_REFGAME_EXE, G_FILE_TEST_IS_EXECUTABLE));
  game = game_spawn_full ((const char * const *) args->pdata, exe_dir, NULL, TRUE);
  health = get_object (game, "/health", 200);
  g_assert_true (json_object_get_boolean_member (health, "ok"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/refgame/health", test_health);
  g_test_add_func ("/refgame/state-fields", test_state_fields);
  g_test_add_func ("/refgame/command-applied", test_command_applied);
  g_test_add_func ("/refgame/fire-and-forget", test_fire_and_forget);
  g_test_add_func ("/refgame/queue-full", test_queue_full);
  g_test_add_func ("/refgame/unknown-command", test_unknown_command);
  g_test_add_func ("/refgame/bad-requests", test_bad_requests);
  g_test_add_func ("/refgame/tools-manifest", test_tools_manifest);
  g_test_add_func ("/refgame/pause-resume", test_pause_resume);
  g_test_add_func ("/refgame/game-over-restart", test_game_over_and_restart);
  g_test_add_func ("/refgame/determinism", test_determinism);
  g_test_add_func ("/refgame/registry-close", test_registry_and_close);
  g_test_add_func ("/refgame/sigterm", test_sigterm);
  g_test_add_func ("/refgame/sigint", test_sigint);
  g_test_add_func ("/refgame/registry-locations", test_registry_locations);
  g_test_add_func ("/refgame/no-tools", test_no_tools);
  g_test_add_func ("/refgame/no-completed-id", test_no_completed_id);
  g_test_add_func ("/refgame/freeze-after-frames", test_freeze_after_frames);
  g_test_add_func ("/refgame/crash-on", test_crash_on);
  g_test_add_func ("/refgame/exit-code-at-start", test_exit_code_at_start);
  g_test_add_func ("/refgame/bad-options", test_bad_options);
  g_test_add_func ("/refgame/explicit-port", test_explicit_port);
  g_test_add_func ("/refgame/hostile-queries", test_hostile_queries);
  g_test_add_func ("/refgame/no-descriptor-leak", test_no_descriptor_leak);
  g_test_add_func ("/refgame/launch-declaration", test_launch_declaration);

  return g_test_run ();
}
