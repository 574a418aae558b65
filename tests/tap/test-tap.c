/* test-tap.c: the bus tap end to end: `gamegate serve` with the reference
 * GABP mod on its bus, an MCP agent calling the mod's tool over Streamable
 * HTTP, an oam session over the daemon's Unix socket grounded on the same
 * tool, and `gamegate tap` watching: the records, their order and their
 * correlation ids as exact JSON (timestamps, durations and the mod's tick
 * normalised); filters; the socket's mode; a reader that stops reading.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gabp-test-util.h"
#include "gb-mcp-client.h"
#include "gg-test-line-client.h"
#include "gg-test-util.h"

#define MOD_EXE GG_TOP_BUILDDIR "/tests/gabp-mod/gabp-mod"
/* [gateway] tap-drain-timeout-ms's default, before scaling. */
#define GG_TAP_TEST_DRAIN_MS 2000
#define MOD_TOKEN "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

typedef struct {
  GgTestServer *mod;
  char *dir;
  char *config;
  char *tap_socket;
  char *oam_socket;
  char *bridge_file;
  GgTestProcess *daemon;
  gboolean stopping;
  guint mcp_port;
} Fixture;

/* SIGTERM once: a second one could land after the daemon stopped
 * handling signals. */
static void
stop_daemon (Fixture *f)
{
  if (!f->stopping)
    gg_test_process_send_signal (f->daemon, SIGTERM);
  f->stopping = TRUE;
}

/* ---- clients ------------------------------------------------------------- */

/* The oam and tap sockets are tests/common/gg-test-line-client's. */


/* ---- the daemon ------------------------------------------------------------ */

/* `{"kind":"dropped"}` is the tap's own notice; every record of the bus
 * names the plugin it came from (a target event: the target's). */
static void
assert_names_plugin (JsonObject *record)
{
  const char *kind = json_object_get_string_member_with_default (record, "kind", "");

  if (g_str_equal (kind, "dropped"))
    return;
  if (json_object_get_string_member_with_default (record, "plugin", NULL) == NULL)
    {
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), record);
      g_autofree char *text = json_to_string (node, FALSE);

      g_error ("a tap record without its plugin: %s", text);
    }
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *conf_env = NULL;
  g_autofree char *reg_env = NULL;

  f->mod = gg_test_server_start ((const char *[]) { MOD_EXE, NULL },
                                 (const char *[]) { "GABP_SERVER_PORT=0", "GABP_TOKEN=" MOD_TOKEN, NULL },
                                 "GABP_SERVER_PORT=");

  f->dir = g_dir_make_tmp ("gg-tap-XXXXXX", &error);
  g_assert_no_error (error);
  f->config = g_build_filename (f->dir, "gamegate.conf", NULL);
  f->tap_socket = g_build_filename (f->dir, "tap.sock", NULL);
  f->oam_socket = g_build_filename (f->dir, "oam.sock", NULL);
  f->bridge_file = g_build_filename (f->dir, "bridge.json", NULL);
  /* With data, the GABP mod-side server runs too, for a bridge to call. */
  /* The shutdown's bound for readers, scaled like the test's own waits:
   * a sanitized daemon writes its records slower. */
  text = g_strdup_printf ("[gateway]\ntap-socket=%s\ntap-drain-timeout-ms=%u\n[oam]\nsocket=%s\n[gamebridge]\nhttp-port=0\n"
                          "[gabp]\nmods=shop\nserver=%s\nbridge-file=%s\nserver-port=0\n"
                          "shop.host=127.0.0.1\nshop.port=%u\nshop.token=%s\n"
                          "shop.backoff-initial-ms=20\nshop.backoff-max-ms=200\n",
                          f->tap_socket, gg_test_timeout_ms (GG_TAP_TEST_DRAIN_MS), f->oam_socket,
                          data != NULL ? "true" : "false",
                          data != NULL ? f->bridge_file : "", f->mod->port, MOD_TOKEN);
  g_assert_true (g_file_set_contents (f->config, text, -1, NULL));

  conf_env = g_strdup_printf ("GAMEGATE_CONFIG=%s", f->config);
  reg_env = g_strdup_printf ("GAME_BRIDGE_INSTANCES=%s", f->dir);
  {
    const char *env[] = { conf_env, reg_env, "GAME_BRIDGE_SCAN_RANGE=7990-7990",
                          "GAMEGATE_A2G_LISTEN=127.0.0.1:0", NULL };
    const char *args[] = { "serve", NULL };

    f->daemon = gg_test_process_spawn (args, env, &error);
    g_assert_no_error (error);
  }
  for (guint i = 0; i < 400 && f->mcp_port == 0; i++)
    {
      const char *found;

      gg_test_spin (50);
      /* Looked up after spinning, which may move the text. */
      found = strstr (gg_test_process_get_stderr (f->daemon), "http://127.0.0.1:");
      if (found != NULL && strstr (found, "/mcp") != NULL)
        f->mcp_port = (guint) g_ascii_strtoull (found + strlen ("http://127.0.0.1:"), NULL, 10);
    }
  g_assert_cmpuint (f->mcp_port, >, 0);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  int status = -1;

  stop_daemon (f);
  g_assert_true (gg_test_process_wait (f->daemon, gg_test_timeout_ms (20000), &status));
  g_assert_cmpint (status, ==, 0);
  /* [gateway] tap-socket is read, not warned about. */
  g_assert_null (strstr (gg_test_process_get_stderr (f->daemon), "unknown key"));
  /* The daemon removes its tap socket. */
  g_assert_false (g_file_test (f->tap_socket, G_FILE_TEST_EXISTS));
  gg_test_process_free (f->daemon);
  gg_test_server_kill (f->mod);
  gg_test_server_free (f->mod);
  g_unlink (f->config);
  g_unlink (f->oam_socket);
  g_unlink (f->bridge_file);
  g_free (f->bridge_file);
  g_rmdir (f->dir);
  g_free (f->config);
  g_free (f->tap_socket);
  g_free (f->oam_socket);
  g_free (f->dir);
}

/* Asks tools/validate until the mod is on the bus (it connects in the
 * background), before any tap is attached. */
static void
wait_for_shop (GgTestLineClient *oam)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (15000) * 1000;

  for (guint id = 900;; id++)
    {
      g_autofree char *request = g_strdup_printf (
        "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"tools/validate\",\"params\":{\"tools\":[{\"name\":\"t\","
        "\"description\":\"d\",\"execution\":\"target\",\"target\":\"gabp:shop\",\"tool\":\"world/get_time\"}]}}",
        id);
      g_autofree char *line = NULL;

      gg_test_line_client_send (oam, request);
      line = gg_test_line_client_recv (oam);
      if (strstr (line, "\"warnings\":[]") != NULL)
        return;
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_usleep (50 * 1000);
    }
}

static GgTestProcess *
start_tap (Fixture    *f,
           const char *option1,
           const char *option2)
{
  const char *args[] = { "tap", "--socket", f->tap_socket, option1, option2, NULL };
  g_autoptr(GError) error = NULL;
  GgTestProcess *tap = gg_test_process_spawn (args, NULL, &error);

  g_assert_no_error (error);
  for (guint i = 0; i < 400 && gg_test_process_count_in_stderr (tap, "Watching the bus at") == 0; i++)
    gg_test_spin (25);
  g_assert_cmpuint (gg_test_process_count_in_stderr (tap, "Watching the bus at"), ==, 1);
  return tap;
}

/* Drops what varies: timestamps, durations (there, and >= 0), the tick;
 * and the mod's own events, unless @with_events. */
static char *
normalise_full (const char *text,
                gboolean    with_events)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GRegex) tick = g_regex_new ("\"tick\":[0-9]+", 0, 0, NULL);
  g_autoptr(GRegex) tokens = g_regex_new ("\"inputTokens\":[0-9]+", 0, 0, NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonNode) node = NULL;
      g_autofree char *json = NULL;
      g_autofree char *shown = NULL;
      JsonObject *record;

      if (*lines[i] == '\0')
        continue;
      node = gg_json_parse (lines[i], -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
      g_assert_nonnull (node);
      record = json_node_get_object (node);
      assert_names_plugin (record);
      /* The mod's own events are not what most tests are about. */
      if (!with_events &&
          g_strcmp0 (json_object_get_string_member_with_default (record, "kind", ""), "target-event") == 0)
        continue;
      g_assert_true (json_object_has_member (record, "mono"));
      g_assert_true (json_object_has_member (record, "time"));
      json_object_remove_member (record, "mono");
      json_object_remove_member (record, "time");
      if (json_object_has_member (record, "durationUs"))
        {
          g_assert_cmpint (json_object_get_int_member (record, "durationUs"), >=, 0);
          json_object_set_string_member (record, "durationUs", "D");
        }
      json = json_to_string (node, FALSE);
      shown = g_regex_replace_literal (tick, json, -1, 0, "\"tick\":\"T\"", 0, NULL);
      /* The scripted model estimates tokens from the text, tick included. */
      if (strstr (shown, "\"text\":\"Tick tock.\"") != NULL)
        {
          g_autofree char *estimated = g_regex_replace_literal (tokens, shown, -1, 0, "\"inputTokens\":\"N\"", 0, NULL);
          g_free (shown);
          shown = g_steal_pointer (&estimated);
        }
      g_string_append_printf (out, "%s\n", shown);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static char *
normalise (const char *text)
{
  return normalise_full (text, FALSE);
}

static char *
finish_tap (GgTestProcess *tap)
{
  int status = -1;
  char *out = gg_test_process_read_stdout (tap, gg_test_timeout_ms (20000));

  g_assert_true (gg_test_process_wait (tap, gg_test_timeout_ms (20000), &status));
  g_assert_cmpint (status, ==, 0);
  return out;
}

/* The lines of @tap up to the first holding @needle, each with its "\n". */
static char *
read_until (GgTestProcess *tap,
            const char    *needle)
{
  g_autoptr(GString) text = g_string_new (NULL);

  for (;;)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *line = gg_test_process_read_line (tap, gg_test_timeout_ms (20000), &error);

      g_assert_no_error (error);
      g_assert_nonnull (line);
      g_string_append_printf (text, "%s\n", line);
      if (strstr (line, needle) != NULL)
        return g_string_free (g_steal_pointer (&text), FALSE);
    }
}

/* ---- the tests ------------------------------------------------------------- */

/* An MCP session on the daemon's Streamable HTTP endpoint, initialized. */
static void
mcp_session_open (Fixture      *f,
                  SoupSession  *session,
                  char        **session_id)
{
  json_object_unref (http_mcp (session, f->mcp_port, session_id,
                               "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                               "\"capabilities\":{},\"clientInfo\":{\"name\":\"tap-test\",\"version\":\"1\"}}}"));
  g_assert_null (http_mcp (session, f->mcp_port, session_id, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"));
}

/* A reader's filters apply once the daemon says so. */
static void
expect_watching (GgTestLineClient *reader)
{
  g_autofree char *ack = gg_test_line_client_recv (reader);

  g_assert_cmpstr (ack, ==, "{\"kind\":\"watching\"}");
}

static void
test_records (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autofree char *session_id = NULL;
  g_autoptr(GgTestProcess) tap = NULL, errors = NULL, people = NULL, clock = NULL;
  g_autofree char *all = NULL, *failed = NULL, *readable = NULL, *of_clock = NULL;
  g_autofree char *got = NULL, *got_failed = NULL, *got_clock = NULL;
  GgTestLineClient *oam;
  GStatBuf st;

  soup_session_set_proxy_resolver (session, NULL);
  oam = gg_test_line_client_connect (f->oam_socket);
  wait_for_shop (oam);

  /* 0600, for its owner only. */
  g_assert_cmpint (g_stat (f->tap_socket, &st), ==, 0);
  g_assert_true (S_ISSOCK (st.st_mode));
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);

  tap = start_tap (f, "--json", NULL);
  errors = start_tap (f, "--json", "--errors");
  people = start_tap (f, "--plugin", "mcp");
  clock = start_tap (f, "--json", "--session=clock");

  /* An MCP agent calls the mod's tool, then one the mod does not have. */
  g_clear_pointer (&session_id, g_free);
  mcp_session_open (f, session, &session_id);
  json_object_unref (http_mcp (session, f->mcp_port, &session_id,
                               "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"call_tool\","
                               "\"arguments\":{\"name\":\"world/get_time\",\"instance\":\"gabp:shop\"}}}"));
  json_object_unref (http_mcp (session, f->mcp_port, &session_id,
                               "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"call_tool\","
                               "\"arguments\":{\"name\":\"world/nothing\",\"instance\":\"gabp:shop\"}}}"));

  /* An oam session whose turn uses the same tool. */
  gg_test_line_client_send (oam, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"clock\","
                    "\"options\":{\"targets\":[{\"target\":\"gabp:shop\",\"tools\":[\"world/get_time\"]}]},"
                    "\"model\":{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"world.get_time\",\"arguments\":{},\"id\":\"k1\"}]},"
                    "{\"text\":\"Tick tock.\"}]}}}");
  g_free (gg_test_line_client_recv (oam));
  gg_test_line_client_send (oam, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/respond\",\"params\":{\"session\":\"clock\",\"prompt\":\"Time?\"}}");
  {
    g_autofree char *line = gg_test_line_client_recv (oam);
    g_test_message ("respond: %s", line);
  }

  /* An oam NPC calls a client tool: the client answers the tool/call. */
  gg_test_line_client_send (oam, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"npc/create\",\"params\":{\"npc\":\"gorm\",\"persona\":{\"name\":\"Gorm\"},"
                    "\"tools\":[{\"name\":\"wave\",\"description\":\"Wave.\",\"execution\":\"client\"}],\"options\":{\"replyFormat\":\"text\"},"
                    "\"model\":{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"wave\",\"arguments\":{\"hand\":\"left\"},\"id\":\"w1\"}]},"
                    "{\"text\":\"[neutral] Waved.\"}]}}}");
  g_free (gg_test_line_client_recv (oam));
  gg_test_line_client_send (oam, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"npc/talk\",\"params\":{\"npc\":\"gorm\",\"line\":\"Hi!\"}}");
  {
    g_autofree char *line = gg_test_line_client_recv (oam);

    g_assert_true (g_str_has_prefix (line, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"method\":\"tool/call\""));
  }
  gg_test_line_client_send (oam, "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"result\":{\"output\":\"Waved back.\"}}");
  {
    g_autofree char *line = gg_test_line_client_recv (oam);

    g_test_message ("talk: %s", line);
    g_assert_true (g_str_has_prefix (line, "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"npc\":\"gorm\",\"line\":\"Waved.\""));
  }
  gg_test_line_client_free (oam);

  /* The session and the NPC go with their client; then the daemon's
   * shutdown ends the taps' streams. */
  {
    g_autofree char *head = read_until (tap, "\"npc/deleted\"");
    g_autofree char *clock_head = read_until (clock, "\"session/deleted\"");
    g_autofree char *rest = NULL, *clock_rest = NULL;

    stop_daemon (f);
    rest = finish_tap (tap);
    clock_rest = finish_tap (clock);
    all = g_strconcat (head, rest, NULL);
    of_clock = g_strconcat (clock_head, clock_rest, NULL);
  }
  failed = finish_tap (errors);
  readable = finish_tap (people);
  got = normalise (all);
  got_failed = normalise (failed);
  got_clock = normalise (of_clock);
  g_test_message ("all:\n%s\nerrors:\n%s\nreadable:\n%s", got, got_failed, readable);
  /* Every tool call and model step carries the id of the request that
   * caused it, in the order they happened. */
  g_assert_cmpstr (got, ==,
    "{\"kind\":\"request\",\"plugin\":\"mcp\",\"name\":\"tools/call\",\"correlation\":\"mcp-1\",\"ok\":true,\"payload\":{\"tool\":\"call_tool\",\"arguments\":{\"name\":\"world/get_time\",\"instance\":\"gabp:shop\"}}}\n"
    "{\"kind\":\"tool-call\",\"plugin\":\"mcp\",\"target\":\"gabp:shop\",\"name\":\"world/get_time\",\"correlation\":\"mcp-1\",\"ok\":true,\"payload\":{}}\n"
    "{\"kind\":\"tool-result\",\"plugin\":\"mcp\",\"target\":\"gabp:shop\",\"name\":\"world/get_time\",\"correlation\":\"mcp-1\",\"durationUs\":\"D\",\"ok\":true,\"payload\":{\"tick\":\"T\"}}\n"
    "{\"kind\":\"request\",\"plugin\":\"mcp\",\"name\":\"tools/call\",\"correlation\":\"mcp-2\",\"ok\":true,\"payload\":{\"tool\":\"call_tool\",\"arguments\":{\"name\":\"world/nothing\",\"instance\":\"gabp:shop\"}}}\n"
    "{\"kind\":\"tool-call\",\"plugin\":\"mcp\",\"target\":\"gabp:shop\",\"name\":\"world/nothing\",\"correlation\":\"mcp-2\",\"ok\":true,\"payload\":{}}\n"
    "{\"kind\":\"tool-result\",\"plugin\":\"mcp\",\"target\":\"gabp:shop\",\"name\":\"world/nothing\",\"correlation\":\"mcp-2\",\"durationUs\":\"D\",\"ok\":false,\"error\":\"world/nothing: the mod answered -31002: tool not found\"}\n"
    "{\"kind\":\"request\",\"plugin\":\"oam\",\"session\":\"clock\",\"name\":\"session/create\",\"correlation\":\"oam-3\",\"ok\":true,\"payload\":{\"session\":\"clock\",\"options\":{\"targets\":[{\"target\":\"gabp:shop\",\"tools\":[\"world/get_time\"]}]},\"model\":{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"world.get_time\",\"arguments\":{},\"id\":\"k1\"}]},{\"text\":\"Tick tock.\"}]}}}\n"
    "{\"kind\":\"lifecycle\",\"plugin\":\"oam\",\"session\":\"clock\",\"name\":\"session/created\",\"correlation\":\"oam-3\",\"ok\":true}\n"
    "{\"kind\":\"request\",\"plugin\":\"oam\",\"session\":\"clock\",\"name\":\"session/respond\",\"correlation\":\"oam-4\",\"ok\":true,\"payload\":{\"session\":\"clock\",\"prompt\":\"Time?\"}}\n"
    "{\"kind\":\"model-step\",\"plugin\":\"oam\",\"session\":\"clock\",\"name\":\"scripted\",\"correlation\":\"oam-4\",\"ok\":true,\"payload\":{\"transcript\":1,\"tools\":1,\"last\":\"Time?\"}}\n"
    "{\"kind\":\"model-result\",\"plugin\":\"oam\",\"session\":\"clock\",\"name\":\"scripted\",\"correlation\":\"oam-4\",\"durationUs\":\"D\",\"ok\":true,\"payload\":{\"toolCalls\":[\"world.get_time\"],\"usage\":{\"inputTokens\":2,\"outputTokens\":13}}}\n"
    "{\"kind\":\"tool-call\",\"plugin\":\"oam\",\"target\":\"gabp:shop\",\"session\":\"clock\",\"name\":\"world/get_time\",\"correlation\":\"oam-4\",\"ok\":true,\"payload\":{}}\n"
    "{\"kind\":\"tool-result\",\"plugin\":\"oam\",\"target\":\"gabp:shop\",\"session\":\"clock\",\"name\":\"world/get_time\",\"correlation\":\"oam-4\",\"durationUs\":\"D\",\"ok\":true,\"payload\":{\"tick\":\"T\"}}\n"
    "{\"kind\":\"model-step\",\"plugin\":\"oam\",\"session\":\"clock\",\"name\":\"scripted\",\"correlation\":\"oam-4\",\"ok\":true,\"payload\":{\"transcript\":3,\"tools\":1}}\n"
    "{\"kind\":\"model-result\",\"plugin\":\"oam\",\"session\":\"clock\",\"name\":\"scripted\",\"correlation\":\"oam-4\",\"durationUs\":\"D\",\"ok\":true,\"payload\":{\"text\":\"Tick tock.\",\"usage\":{\"inputTokens\":\"N\",\"outputTokens\":3}}}\n"
    /* The NPC's turn: its tool call went to the client. */
    "{\"kind\":\"request\",\"plugin\":\"oam\",\"session\":\"gorm\",\"name\":\"npc/create\",\"correlation\":\"oam-5\",\"ok\":true,\"payload\":{\"npc\":\"gorm\",\"persona\":{\"name\":\"Gorm\"},\"tools\":[{\"name\":\"wave\",\"description\":\"Wave.\",\"execution\":\"client\"}],\"options\":{\"replyFormat\":\"text\"},\"model\":{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"wave\",\"arguments\":{\"hand\":\"left\"},\"id\":\"w1\"}]},{\"text\":\"[neutral] Waved.\"}]}}}\n"
    "{\"kind\":\"lifecycle\",\"plugin\":\"oam\",\"session\":\"gorm\",\"name\":\"npc/created\",\"correlation\":\"oam-5\",\"ok\":true}\n"
    "{\"kind\":\"request\",\"plugin\":\"oam\",\"session\":\"gorm\",\"name\":\"npc/talk\",\"correlation\":\"oam-6\",\"ok\":true,\"payload\":{\"npc\":\"gorm\",\"line\":\"Hi!\"}}\n"
    "{\"kind\":\"model-step\",\"plugin\":\"oam\",\"session\":\"gorm\",\"name\":\"scripted\",\"correlation\":\"oam-6\",\"ok\":true,\"payload\":{\"transcript\":1,\"tools\":2,\"last\":\"Player: Hi!\"}}\n"
    "{\"kind\":\"model-result\",\"plugin\":\"oam\",\"session\":\"gorm\",\"name\":\"scripted\",\"correlation\":\"oam-6\",\"durationUs\":\"D\",\"ok\":true,\"payload\":{\"toolCalls\":[\"wave\"],\"usage\":{\"inputTokens\":145,\"outputTokens\":14}}}\n"
    "{\"kind\":\"tool-call\",\"plugin\":\"oam\",\"target\":\"client\",\"session\":\"gorm\",\"name\":\"wave\",\"correlation\":\"oam-6\",\"ok\":true,\"payload\":{\"hand\":\"left\"}}\n"
    "{\"kind\":\"tool-result\",\"plugin\":\"oam\",\"target\":\"client\",\"session\":\"gorm\",\"name\":\"wave\",\"correlation\":\"oam-6\",\"durationUs\":\"D\",\"ok\":true,\"payload\":\"Waved back.\"}\n"
    "{\"kind\":\"model-step\",\"plugin\":\"oam\",\"session\":\"gorm\",\"name\":\"scripted\",\"correlation\":\"oam-6\",\"ok\":true,\"payload\":{\"transcript\":3,\"tools\":1}}\n"
    "{\"kind\":\"model-result\",\"plugin\":\"oam\",\"session\":\"gorm\",\"name\":\"scripted\",\"correlation\":\"oam-6\",\"durationUs\":\"D\",\"ok\":true,\"payload\":{\"text\":\"[neutral] Waved.\",\"usage\":{\"inputTokens\":162,\"outputTokens\":4}}}\n"
    /* The client went away: its session and NPC with it. */
    "{\"kind\":\"lifecycle\",\"plugin\":\"oam\",\"session\":\"clock\",\"name\":\"session/deleted\",\"ok\":true}\n"
    "{\"kind\":\"lifecycle\",\"plugin\":\"oam\",\"session\":\"gorm\",\"name\":\"npc/deleted\",\"ok\":true}\n");
  /* --session clock: the oam session's records only. */
  {
    g_auto(GStrv) lines = g_strsplit (got, "\n", -1);
    g_autoptr(GString) wanted = g_string_new (NULL);

    for (guint i = 0; lines[i] != NULL; i++)
      if (strstr (lines[i], "\"session\":\"clock\"") != NULL)
        g_string_append_printf (wanted, "%s\n", lines[i]);
    g_assert_cmpuint (wanted->len, >, 0);
    g_assert_cmpstr (got_clock, ==, wanted->str);
  }
  /* --errors: the failure only. */
  g_assert_cmpstr (got_failed, ==,
    "{\"kind\":\"tool-result\",\"plugin\":\"mcp\",\"target\":\"gabp:shop\",\"name\":\"world/nothing\",\"correlation\":\"mcp-2\",\"durationUs\":\"D\",\"ok\":false,\"error\":\"world/nothing: the mod answered -31002: tool not found\"}\n");
  /* For people, --plugin mcp: one line per record of MCP's. */
  {
    g_autoptr(GRegex) shape = g_regex_new (
      "^[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3} mcp request tools/call \\[mcp-1\\] \\{\"tool\":\"call_tool\",.*\n"
      "[0-9:.]{12} mcp \u2192 gabp:shop tool-call world/get_time \\[mcp-1\\] \\{\\}\n"
      "[0-9:.]{12} mcp \u2190 gabp:shop tool-result world/get_time [0-9]+\\.[0-9]{2} ms ok \\[mcp-1\\] \\{\"tick\":[0-9]+\\}\n"
      "[0-9:.]{12} mcp request tools/call \\[mcp-2\\] .*\n"
      "[0-9:.]{12} mcp \u2192 gabp:shop tool-call world/nothing \\[mcp-2\\] \\{\\}\n"
      "[0-9:.]{12} mcp \u2190 gabp:shop tool-result world/nothing [0-9]+\\.[0-9]{2} ms error: world/nothing: the mod answered -31002: tool not found \\[mcp-2\\]\n$",
      0, 0, NULL);

    g_assert_nonnull (shape);
    g_assert_true (g_regex_match (shape, readable, 0, NULL));
  }
}

/* A reader that stops reading: the gateway goes on answering, the records
 * it had no room for are dropped for that reader only, and it is told how
 * many once it reads again. */
static void
test_slow_reader (Fixture       *f,
                  gconstpointer  data)
{
  const guint n = 3000;
  g_autofree char *description = g_strnfill (1200, 'd');
  g_autoptr(GgTestProcess) tap = NULL;
  g_autofree char *all = NULL;
  GgTestLineClient *oam, *slow;
  guint64 received = 0, dropped = 0, drop_records = 0, other = 0;

  oam = gg_test_line_client_connect (f->oam_socket);
  slow = gg_test_line_client_connect (f->tap_socket);
  /* Only oam's records, never reading them. */
  gg_test_line_client_send (slow, "{\"plugin\":\"oam\"}");
  expect_watching (slow);
  /* A reader that keeps up, at the same time. */
  tap = start_tap (f, "--json", "--plugin=oam");

  for (guint i = 1; i <= n; i++)
    {
      g_autofree char *request = g_strdup_printf (
        "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"tools/validate\",\"params\":{\"tools\":[{\"name\":\"t\","
        "\"description\":\"%s\",\"execution\":\"client\"}]}}", i, description);
      g_autofree char *line = NULL;
      g_autofree char *id = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"result\":", i);

      gg_test_line_client_send (oam, request);
      line = gg_test_line_client_recv (oam);
      g_assert_true (g_str_has_prefix (line, id));
    }

  /* Now it reads: what it was queued, then how many it missed. */
  while (received + dropped < n)
    {
      g_autofree char *line = gg_test_line_client_recv (slow);
      g_autoptr(JsonNode) node = gg_json_parse (line, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
      JsonObject *record = json_node_get_object (node);
      const char *kind = json_object_get_string_member (record, "kind");

      if (g_str_equal (kind, "dropped"))
        {
          g_assert_cmpint (json_object_get_int_member (record, "count"), >, 0);
          g_assert_cmpuint (json_object_get_size (record), ==, 2);
          dropped += (guint64) json_object_get_int_member (record, "count");
          drop_records++;
        }
      else if (g_str_equal (kind, "request"))
        {
          g_assert_cmpstr (json_object_get_string_member (record, "plugin"), ==, "oam");
          g_assert_cmpstr (json_object_get_string_member (record, "name"), ==, "tools/validate");
          /* Cut to a length. */
          g_assert_true (json_object_get_boolean_member (record, "truncated"));
          received++;
        }
      else
        other++;
    }
  g_test_message ("slow reader: %" G_GUINT64_FORMAT " received, %" G_GUINT64_FORMAT " dropped in %"
                  G_GUINT64_FORMAT " gaps", received, dropped, drop_records);
  g_assert_cmpuint (received + dropped, ==, n);
  g_assert_cmpuint (dropped, >, 0);
  g_assert_cmpuint (other, ==, 0);
  gg_test_line_client_free (slow);
  gg_test_line_client_free (oam);

  /* `gamegate tap`, whose output nobody read meanwhile, accounts for
   * every record too: shown, or counted as dropped. */
  {
    guint64 shown = 0, missed = 0;

    while (shown + missed < n)
      {
        g_autoptr(GError) error = NULL;
        g_autofree char *line = gg_test_process_read_line (tap, gg_test_timeout_ms (20000), &error);
        g_autoptr(JsonNode) node = NULL;
        JsonObject *record;

        g_assert_no_error (error);
        g_assert_nonnull (line);
        node = gg_json_parse (line, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
        record = json_node_get_object (node);
        if (g_str_equal (json_object_get_string_member (record, "kind"), "dropped"))
          missed += (guint64) json_object_get_int_member (record, "count");
        else if (g_strcmp0 (json_object_get_string_member_with_default (record, "name", NULL), "tools/validate") == 0)
          shown++;
      }
    g_test_message ("gamegate tap: %" G_GUINT64_FORMAT " shown, %" G_GUINT64_FORMAT " dropped", shown, missed);
    g_assert_cmpuint (shown + missed, ==, n);
  }
  stop_daemon (f);
  all = finish_tap (tap);
  g_assert_cmpstr (all, ==, "");
}

/* A daemon that stops writes each reader what it was still queued: a
 * reader that had not read until then gets every record, then the end. */
static void
test_drained_at_shutdown (Fixture       *f,
                          gconstpointer  data)
{
  /* More than the socket's buffer takes, less than the tap's queue holds. */
  const guint n = 600;
  GgTestLineClient *oam, *slow;
  guint received = 0;
  int status = -1;

  oam = gg_test_line_client_connect (f->oam_socket);
  slow = gg_test_line_client_connect (f->tap_socket);
  gg_test_line_client_send (slow, "{\"plugin\":\"oam\"}");
  expect_watching (slow);
  for (guint i = 1; i <= n; i++)
    {
      g_autofree char *request = g_strdup_printf (
        "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"tools/validate\",\"params\":{\"tools\":[{\"name\":\"t\","
        "\"description\":\"Tool number %u.\",\"execution\":\"client\"}]}}", i, i);
      g_autofree char *line = NULL;

      gg_test_line_client_send (oam, request);
      line = gg_test_line_client_recv (oam);
      g_assert_nonnull (line);
    }
  gg_test_line_client_free (oam);

  /* It starts reading only once the daemon is done with everything else
   * (well under GG_TAP_DRAIN_TIMEOUT_MS). */
  stop_daemon (f);
  g_usleep (300 * 1000);
  for (;;)
    {
      g_autofree char *line = gg_test_line_client_recv_or_end (slow);
      g_autoptr(JsonNode) node = NULL;
      JsonObject *record;
      g_autofree char *expected = NULL;

      if (line == NULL)
        break;  /* the end: the daemon closed the tap */
      node = gg_json_parse (line, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
      g_assert_nonnull (node);
      record = json_node_get_object (node);
      /* Nothing dropped, every record in order. */
      g_assert_cmpstr (json_object_get_string_member (record, "kind"), ==, "request");
      expected = g_strdup_printf ("Tool number %u.", received + 1);
      g_assert_cmpstr (json_object_get_string_member (record, "name"), ==, "tools/validate");
      g_assert_nonnull (strstr (line, expected));
      received++;
    }
  g_assert_cmpuint (received, ==, n);
  gg_test_line_client_free (slow);
  g_assert_true (gg_test_process_wait (f->daemon, gg_test_timeout_ms (20000), &status));
  g_assert_cmpint (status, ==, 0);
}

/* A GABP bridge calls the mod's tool through gamegate's mod-side server. */
static void
test_gabp_server (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GgTestProcess) tap = NULL;
  g_autoptr(JsonObject) welcome = NULL, called = NULL;
  g_autoptr(JsonNode) bridge = NULL;
  g_autofree char *text = NULL, *id = NULL, *head = NULL, *got = NULL;
  JsonObject *transport;
  GgTestLineClient *oam;
  TestPeer *peer;

  oam = gg_test_line_client_connect (f->oam_socket);
  wait_for_shop (oam);
  gg_test_line_client_free (oam);
  g_assert_true (g_file_get_contents (f->bridge_file, &text, NULL, NULL));
  bridge = gg_json_parse (text, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  transport = json_object_get_object_member (json_node_get_object (bridge), "transport");
  peer = test_peer_connect ((guint16) atoi (json_object_get_string_member (transport, "address")));
  welcome = test_peer_hello (peer, json_object_get_string_member (json_node_get_object (bridge), "token"));
  g_assert_cmpint (test_response_error_code (welcome), ==, 0);

  tap = start_tap (f, "--json", "--plugin=gabp");
  id = test_peer_request (peer, "tools/call", "{\"name\":\"gabp-shop/world/get_time\",\"arguments\":{}}");
  called = test_peer_wait_response (peer, id);
  g_assert_cmpint (test_response_error_code (called), ==, 0);
  head = read_until (tap, "\"tool-result\"");
  test_peer_free (peer);
  got = normalise (head);
  g_assert_cmpstr (got, ==,
    "{\"kind\":\"request\",\"plugin\":\"gabp\",\"name\":\"tools/call\",\"correlation\":\"gabp-1\",\"ok\":true,\"payload\":{\"name\":\"gabp-shop/world/get_time\",\"arguments\":{}}}\n"
    "{\"kind\":\"tool-call\",\"plugin\":\"gabp\",\"target\":\"gabp:shop\",\"name\":\"world/get_time\",\"correlation\":\"gabp-1\",\"ok\":true,\"payload\":{}}\n"
    "{\"kind\":\"tool-result\",\"plugin\":\"gabp\",\"target\":\"gabp:shop\",\"name\":\"world/get_time\",\"correlation\":\"gabp-1\",\"durationUs\":\"D\",\"ok\":true,\"payload\":{\"tick\":\"T\"}}\n");
  stop_daemon (f);
  g_free (finish_tap (tap));
}

/* The mod's events name the plugin that owns its target: gabp, not the
 * MCP front end whose call made the mod emit them. */
static void
test_target_events (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autoptr(GgTestProcess) tap = NULL, people = NULL;
  g_autofree char *session_id = NULL, *head = NULL, *readable = NULL, *got = NULL;
  GgTestLineClient *oam;

  soup_session_set_proxy_resolver (session, NULL);
  oam = gg_test_line_client_connect (f->oam_socket);
  wait_for_shop (oam);
  gg_test_line_client_free (oam);
  tap = start_tap (f, "--json", NULL);
  people = start_tap (f, "--plugin", "gabp");

  mcp_session_open (f, session, &session_id);
  json_object_unref (http_mcp (session, f->mcp_port, &session_id,
                               "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"call_tool\","
                               "\"arguments\":{\"name\":\"world/emit_ticks\",\"instance\":\"gabp:shop\",\"arguments\":{\"count\":2}}}}"));
  head = read_until (tap, "\"tool-result\"");
  stop_daemon (f);
  readable = finish_tap (people);
  g_free (finish_tap (tap));

  /* Here the events are the point. */
  got = normalise_full (head, TRUE);
  g_test_message ("all:\n%s\nreadable:\n%s", got, readable);
  g_assert_cmpstr (got, ==,
    "{\"kind\":\"request\",\"plugin\":\"mcp\",\"name\":\"tools/call\",\"correlation\":\"mcp-1\",\"ok\":true,\"payload\":{\"tool\":\"call_tool\",\"arguments\":{\"name\":\"world/emit_ticks\",\"instance\":\"gabp:shop\",\"arguments\":{\"count\":2}}}}\n"
    "{\"kind\":\"tool-call\",\"plugin\":\"mcp\",\"target\":\"gabp:shop\",\"name\":\"world/emit_ticks\",\"correlation\":\"mcp-1\",\"ok\":true,\"payload\":{\"count\":2}}\n"
    "{\"kind\":\"target-event\",\"plugin\":\"gabp\",\"target\":\"gabp:shop\",\"name\":\"world/tick\",\"ok\":true,\"payload\":{\"seq\":0,\"event\":{\"tick\":\"T\"}}}\n"
    "{\"kind\":\"target-event\",\"plugin\":\"gabp\",\"target\":\"gabp:shop\",\"name\":\"world/tick\",\"ok\":true,\"payload\":{\"seq\":1,\"event\":{\"tick\":\"T\"}}}\n"
    "{\"kind\":\"tool-result\",\"plugin\":\"mcp\",\"target\":\"gabp:shop\",\"name\":\"world/emit_ticks\",\"correlation\":\"mcp-1\",\"durationUs\":\"D\",\"ok\":true,\"payload\":{\"emitted\":2}}\n");
  /* For people, --plugin gabp: the two events, and nothing of MCP's. */
  {
    g_autoptr(GRegex) shape = g_regex_new (
      "^[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3} gabp \u2190 gabp:shop target-event world/tick \\{\"seq\":0,\"event\":\\{\"tick\":[0-9]+\\}\\}\n"
      "[0-9:.]{12} gabp \u2190 gabp:shop target-event world/tick \\{\"seq\":1,\"event\":\\{\"tick\":[0-9]+\\}\\}\n$",
      0, 0, NULL);

    g_assert_nonnull (shape);
    g_assert_true (g_regex_match (shape, readable, 0, NULL));
  }
}

/* An A2G request (when the plugin is built) is reported like the others. */
static void
test_a2g (Fixture       *f,
          gconstpointer  data)
{
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autoptr(GgTestProcess) tap = NULL;
  g_autofree char *uri = NULL, *head = NULL, *got = NULL;
  const char *found = NULL;

  for (guint i = 0; i < 200 && found == NULL; i++)
    {
      found = strstr (gg_test_process_get_stderr (f->daemon), "A2G decision service on http://");
      if (found == NULL)
        gg_test_spin (25);
    }
  if (found == NULL)
    {
      g_test_skip ("the a2g plugin is not built");
      return;
    }
  found += strlen ("A2G decision service on ");
  uri = g_strdup_printf ("%.*s/health", (int) strcspn (found, "\n"), found);
  soup_session_set_proxy_resolver (session, NULL);
  tap = start_tap (f, "--json", "--plugin=a2g");
  {
    g_autoptr(SoupMessage) msg = soup_message_new ("GET", uri);
    g_autoptr(GBytes) body = soup_session_send_and_read (session, msg, NULL, NULL);

    g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  }
  head = read_until (tap, "\"request\"");
  got = normalise (head);
  g_assert_cmpstr (got, ==, "{\"kind\":\"request\",\"plugin\":\"a2g\",\"name\":\"/health\",\"correlation\":\"a2g-1\",\"ok\":true}\n");
  stop_daemon (f);
  g_free (finish_tap (tap));
}

/* Without a daemon, disabled, or misused: a clear message, no hang. */
static void
test_command_line (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gg-tap-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "tap.sock", NULL);
  g_autofree char *set = g_strdup_printf ("gateway.tap-socket=%s", path);
  const char *absent[] = { "--set", set, "tap", NULL };
  const char *disabled[] = { "--set", "gateway.tap-socket=", "tap", NULL };
  const char *stray[] = { "tap", "--json", "extra", NULL };
  const char *unknown[] = { "tap", "--everything", NULL };
  const char *help[] = { "tap", "--help", NULL };
  const char *bad_drain[] = { "--set", "gateway.tap-drain-timeout-ms=700000", "serve", NULL };
  const char *commands[] = { "--help", NULL };
  struct { const char * const *args; int status; const char *out, *err; } cases[] = {
    { absent, 1, "", "gamegate: tap: cannot connect to " },
    { disabled, 2, "", "gamegate: tap: the tap is disabled ([gateway] tap-socket is empty)\n" },
    { stray, 2, "", "gamegate: tap: unexpected argument “extra”\n" },
    { unknown, 2, "", "gamegate: Unknown option --everything\n" },
    { help, 0, "  --errors ", "" },
    { bad_drain, 2, "", "gamegate: command line: [gateway] tap-drain-timeout-ms: expected an integer between 0 "
                        "and 600000, got “700000”\n" },
    { commands, 0, "  tap ", "" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      int status = gg_test_run (cases[i].args, NULL, NULL, &out, &err);

      g_test_message ("case %u: %d\n%s\n%s", i, status, out, err);
      g_assert_cmpint (status, ==, cases[i].status);
      if (*cases[i].out != '\0')
        g_assert_nonnull (strstr (out, cases[i].out));
      else
        g_assert_cmpstr (out, ==, "");
      if (*cases[i].err != '\0')
        g_assert_true (g_str_has_prefix (err, cases[i].err));
    }
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tap/command-line", test_command_line);
  g_test_add ("/tap/records", Fixture, NULL, fixture_setup, test_records, fixture_teardown);
  g_test_add ("/tap/slow-reader", Fixture, NULL, fixture_setup, test_slow_reader, fixture_teardown);
  g_test_add ("/tap/drained-at-shutdown", Fixture, NULL, fixture_setup, test_drained_at_shutdown,
              fixture_teardown);
  g_test_add ("/tap/a2g", Fixture, NULL, fixture_setup, test_a2g, fixture_teardown);
  g_test_add ("/tap/target-events", Fixture, NULL, fixture_setup, test_target_events, fixture_teardown);
  g_test_add ("/tap/gabp-server", Fixture, "server", fixture_setup, test_gabp_server, fixture_teardown);
  return g_test_run ();
}
