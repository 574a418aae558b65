/* test-oam-abi-lifetime.c: the C ABI's lifetime rules (issue 20): destroy
 * cancels work and waits for a callback in progress, may be called from
 * the callback, leaves nothing behind over 1,000 bridges; bridges are
 * independent; nothing reaches the host's own main loop or signals; the
 * configuration and plugins are the user's; OAM_BRIDGE_LOG; the
 * compatibility name libOpenAppleModelsFFI.so.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <dlfcn.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "oam-abi-test.h"

#define PING(id) "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"ping\"}"
#define PONG(id) "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"result\":{}}"
#define CLIENT_TOOL_SESSION \
  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/create\",\"params\":{\"session\":\"guard\",\"tools\":" \
  "[{\"name\":\"open_gate\",\"description\":\"Open a gate.\"}],\"options\":{\"toolTimeoutSeconds\":0}," \
  "\"model\":{\"type\":\"scripted\",\"steps\":[{\"toolCalls\":[{\"name\":\"open_gate\",\"arguments\":{}}]}," \
  "{\"text\":\"done\"}]}}}"
#define RESPOND(id) "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"session/respond\",\"params\":" \
  "{\"session\":\"guard\",\"prompt\":\"Open it.\"}}"

/* Threads of the bridges end when they are destroyed (GLib's own worker
 * threads, once started, stay: they are counted before). */
static void
wait_threads (guint expected)
{
  for (guint i = 0; i < abi_timeout_ms (10000) / 10 && abi_count_threads () != expected; i++)
    g_usleep (10000);
  g_assert_cmpuint (abi_count_threads (), ==, expected);
}

/* Destroy while a turn waits on a tool call nobody answers: the turn is
 * cancelled, destroy returns, the callback is never called again. */
static void
test_destroy_waiting_tool_call (void)
{
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  oam_bridge *bridge = abi_bridge_new (rec);
  guint seen;

  abi_send (bridge, CLIENT_TOOL_SESSION);
  abi_send (bridge, RESPOND ("2"));
  abi_wait_match (rec, "\"method\":\"tool/call\"");
  oam_bridge_destroy (bridge);
  seen = abi_count (rec);
  /* Neither tool/cancel nor the -32009 of the turn: nothing after. */
  g_usleep (100000);
  g_assert_cmpuint (abi_count (rec), ==, seen);
  g_assert_false (abi_has_match (rec, "\"id\":2,"));
}

typedef struct {
  oam_bridge *bridge;
  AbiRecorder *rec;
} Destroyer;

static gpointer
destroy_when_sleeping (gpointer data)
{
  Destroyer *d = data;

  abi_wait_match (d->rec, "\"id\":\"sleepy\"");
  oam_bridge_destroy (d->bridge);
  return GINT_TO_POINTER (d->rec->slept);
}

/* Destroy from another thread during a callback waits for it to return. */
static void
test_destroy_waits_for_callback (void)
{
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  oam_bridge *bridge;
  Destroyer d;
  GThread *thread;

  rec->sleep_on = g_strdup ("\"id\":\"sleepy\"");
  rec->sleep_ms = 300;
  bridge = abi_bridge_new (rec);
  d = (Destroyer) { bridge, rec };
  thread = g_thread_new ("destroyer", destroy_when_sleeping, &d);
  abi_send (bridge, PING ("\"sleepy\""));
  abi_send (bridge, PING ("\"never\""));
  /* The callback had finished sleeping when destroy returned. */
  g_assert_true (GPOINTER_TO_INT (g_thread_join (thread)));
  g_assert_false (abi_has_match (rec, "\"never\""));
}

/* Destroy from inside the callback: its last call; the bridge's thread
 * ends on its own. */
static void
test_destroy_in_callback (void)
{
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  guint threads = abi_count_threads ();
  oam_bridge *bridge;

  rec->destroy_on = g_strdup ("\"id\":\"last\"");
  bridge = abi_bridge_new (rec);
  abi_send (bridge, CLIENT_TOOL_SESSION);
  abi_send (bridge, RESPOND ("2"));
  abi_wait_match (rec, "\"method\":\"tool/call\"");
  abi_send (bridge, PING ("\"last\""));
  abi_send (bridge, PING ("\"after\""));
  wait_threads (threads);
  pthread_mutex_lock (&rec->lock);
  g_assert_true (rec->destroyed);
  g_assert_cmpuint (rec->after_destroy, ==, 0);
  pthread_mutex_unlock (&rec->lock);
  g_assert_false (abi_has_match (rec, "\"after\""));
  g_assert_false (abi_has_match (rec, "\"id\":2,"));
}

/* Blocking calls in progress when the bridge is destroyed return -32023. */
static gpointer
block_on_tool (gpointer data)
{
  return oam_call_blocking (data, RESPOND ("\"blocked\""), 0);
}

static void
test_destroy_during_blocking_call (void)
{
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  oam_bridge *bridge = abi_bridge_new (rec);
  GThread *thread;
  char *response;

  abi_send (bridge, CLIENT_TOOL_SESSION);
  abi_wait_match (rec, "\"id\":1,");
  thread = g_thread_new ("blocked", block_on_tool, bridge);
  abi_wait_match (rec, "\"method\":\"tool/call\"");
  oam_bridge_destroy (bridge);
  response = g_thread_join (thread);
  g_assert_cmpstr (response, ==, "{\"jsonrpc\":\"2.0\",\"id\":\"blocked\",\"error\":{\"code\":-32023,"
                   "\"message\":\"The bridge was destroyed\",\"data\":{\"code\":\"shut_down\"}}}");
  oam_string_free (response);
}

/* Two bridges share nothing: the same session id in each, one destroyed
 * while the other works on. */
static void
test_independent (void)
{
  g_autoptr(AbiRecorder) rec1 = abi_recorder_new ();
  g_autoptr(AbiRecorder) rec2 = abi_recorder_new ();
  oam_bridge *one = abi_bridge_new (rec1);
  oam_bridge *two = abi_bridge_new (rec2);
  g_autofree char *list = NULL;
  g_autofree char *pong = NULL;

  abi_send (one, CLIENT_TOOL_SESSION);
  abi_send (two, CLIENT_TOOL_SESSION);
  abi_wait_match (rec1, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"session\":\"guard\"");
  abi_wait_match (rec2, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"session\":\"guard\"");
  abi_send (one, RESPOND ("2"));
  abi_wait_match (rec1, "\"method\":\"tool/call\"");
  oam_bridge_destroy (one);
  list = abi_call (two, "{\"method\":\"session/list\"}", 10000);
  g_assert_true (g_str_has_prefix (list, "{\"jsonrpc\":\"2.0\",\"id\":\"c-1\",\"result\":{\"sessions\":"
                                         "[{\"session\":\"guard\",\"model\":\"scripted\",\"tools\":[\"open_gate\"],"
                                         "\"busy\":false,"));
  pong = abi_call (two, PING ("5"), 10000);
  g_assert_cmpstr (pong, ==, PONG ("5"));
  oam_bridge_destroy (two);
  g_assert_false (abi_has_match (rec2, "tool/call"));
}

/* 1,000 bridges created, used and destroyed leave no thread and no file
 * descriptor behind (memory: ASan's and valgrind's leak checks). */
static void
test_thousand_bridges (void)
{
  guint cycles = abi_under_valgrind () ? 40 : 1000;
  guint threads, fds;

  /* Once first: GLib starts its worker threads on first use. */
  {
    g_autoptr(AbiRecorder) rec = abi_recorder_new ();
    oam_bridge *bridge = abi_bridge_new (rec);

    g_free (abi_call (bridge, PING ("0"), 10000));
    oam_bridge_destroy (bridge);
  }
  threads = abi_count_threads ();
  fds = abi_count_fds ();
  for (guint i = 0; i < cycles; i++)
    {
      g_autoptr(AbiRecorder) rec = abi_recorder_new ();
      oam_bridge *bridge = abi_bridge_new (rec);

      /* Every other one is destroyed at once, before it is set up. */
      if (i % 2 == 0)
        {
          g_autofree char *pong = abi_call (bridge, PING ("1"), 10000);

          g_assert_cmpstr (pong, ==, PONG ("1"));
        }
      oam_bridge_destroy (bridge);
    }
  g_assert_cmpuint (abi_count_fds (), ==, fds);
  wait_threads (threads);
}

static gboolean
count_source (gpointer data)
{
  return G_SOURCE_REMOVE;
}

/* The host is a GLib program with its own loop: bridges add nothing to
 * its default context, change no signal disposition, and run while it
 * iterates. */
static void
test_host_main_loop (void)
{
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  struct sigaction pipe_before, pipe_after, child_before, child_after;
  oam_bridge *bridge;
  guint first, last;

  sigaction (SIGPIPE, NULL, &pipe_before);
  sigaction (SIGCHLD, NULL, &child_before);
  /* Source ids count up per context: the next id tells whether anybody
   * else attached one in between. */
  first = g_idle_add (count_source, NULL);
  g_source_remove (first);

  rec->tool_output = g_strdup ("\"opened\"");
  bridge = abi_bridge_new (rec);
  abi_send (bridge, CLIENT_TOOL_SESSION);
  abi_send (bridge, RESPOND ("2"));
  /* A turn with a tool round, a blocking call queued behind it, one that
   * times out (a timer, a cancel), a shutdown (a poll). */
  g_free (abi_call (bridge, "{\"method\":\"session/respond\",\"params\":{\"session\":\"guard\",\"prompt\":\"x\"}}", 10000));
  while (!abi_has_match (rec, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\""))
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_free (abi_call (bridge, "{\"method\":\"decision/decide\",\"params\":{\"situation\":\"x\",\"options\":[\"a\",\"b\"],"
                            "\"model\":{\"type\":\"scripted\",\"steps\":[{\"json\":{\"reasoning\":\"r\",\"optionID\":\"a\","
                            "\"confidence\":5},\"delayMs\":600000}]}}}", 50));
  g_free (abi_call (bridge, "{\"method\":\"shutdown\"}", 10000));
  oam_bridge_destroy (bridge);
  while (g_main_context_iteration (NULL, FALSE))
    ;

  last = g_idle_add (count_source, NULL);
  g_source_remove (last);
  g_assert_cmpuint (last, ==, first + 1);
  sigaction (SIGPIPE, NULL, &pipe_after);
  sigaction (SIGCHLD, NULL, &child_after);
  g_assert_true (pipe_after.sa_handler == pipe_before.sa_handler);
  g_assert_true (child_after.sa_handler == child_before.sa_handler);
}

/* After `shutdown`, every request fails -32023 (the bridge stays until it
 * is destroyed). */
static void
test_shutdown (void)
{
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  oam_bridge *bridge = abi_bridge_new (rec);
  g_autofree char *done = abi_call (bridge, "{\"id\":1,\"method\":\"shutdown\"}", 10000);
  g_autofree char *after = NULL;

  g_assert_cmpstr (done, ==, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
  after = abi_call (bridge, PING ("2"), 10000);
  g_assert_cmpstr (after, ==, "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32023,\"message\":"
                   "\"The bridge has been shut down\",\"data\":{\"code\":\"shut_down\"}}}");
  abi_send (bridge, "nonsense");
  abi_wait_match (rec, "\"code\":-32700");
  oam_bridge_destroy (bridge);
}

static char *
write_config (const char *contents)
{
  g_autoptr(GError) error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("oam-abi-XXXXXX.conf", &path, &error);

  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, contents, -1, &error));
  return path;
}

/* The user's configuration applies: the default model of [gateway];
 * [gateway] disabled-plugins; a broken file. In subprocesses, as each
 * changes the environment. */
#define DEFAULT_MODEL(text) "[gateway]\ndefault-model={\"type\":\"scripted\",\"steps\":[{\"text\":\"" text "\"}]}\n"

/* A turn on the "system" model: what [gateway] default-model gave. */
static void
assert_default_model_says (const char *text)
{
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  oam_bridge *bridge = abi_bridge_new (rec);
  g_autofree char *session = abi_call (bridge, "{\"method\":\"session/create\",\"params\":{\"session\":\"s\"}}", 10000);
  g_autofree char *turn = abi_call (bridge, "{\"method\":\"session/respond\",\"params\":{\"session\":\"s\","
                                            "\"prompt\":\"hi\"}}", 10000);
  g_autofree char *expected = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":\"c-2\",\"result\":{\"session\":\"s\","
                                               "\"text\":\"%s\",", text);

  g_assert_true (g_str_has_prefix (turn, expected));
  oam_bridge_destroy (bridge);
}

/* The subprocess passed, silently (no OAM_BRIDGE_LOG). */
static void
trap_quiet_subprocess (void)
{
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("");
}

/* $GAMEGATE_CONFIG names the user's configuration. */
static void
test_configuration (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *config = write_config (DEFAULT_MODEL ("configured"));

      g_setenv ("GAMEGATE_CONFIG", config, TRUE);
      assert_default_model_says ("configured");
      g_unlink (config);
      return;
    }
  trap_quiet_subprocess ();
}

/* Without GAMEGATE_CONFIG: the user's file under $XDG_CONFIG_HOME (which
 * GLib reads once: a process of its own). */
static void
test_configuration_xdg (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *home = g_dir_make_tmp ("oam-abi-XXXXXX", NULL);
      g_autofree char *dir = g_build_filename (home, "gamegate", NULL);
      g_autofree char *file = g_build_filename (dir, "gamegate.conf", NULL);

      g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
      g_assert_true (g_file_set_contents (file, DEFAULT_MODEL ("from XDG"), -1, NULL));
      g_unsetenv ("GAMEGATE_CONFIG");
      g_setenv ("XDG_CONFIG_HOME", home, TRUE);
      assert_default_model_says ("from XDG");
      g_unlink (file);
      g_rmdir (dir);
      g_rmdir (home);
      return;
    }
  trap_quiet_subprocess ();
}

static void
test_cannot_serve (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(AbiRecorder) rec = abi_recorder_new ();
      g_autofree char *config = write_config ("[gateway]\ndisabled-plugins=oam\n");
      g_autofree char *pong = NULL;
      g_autofree char *broken = NULL;
      oam_bridge *bridge;

      /* gamegate warns (g_test_init() made warnings fatal here). */
      g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
      g_setenv ("GAMEGATE_CONFIG", config, TRUE);
      bridge = abi_bridge_new (rec);
      pong = abi_call (bridge, PING ("1"), 10000);
      g_assert_cmpstr (pong, ==, "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32603,\"message\":"
                       "\"gamegate cannot serve oam: no oam plugin was loaded (searched $GAMEGATE_PLUGIN_PATH and "
                       GG_PLUGIN_DIR ")\",\"data\":{\"code\":\"internal_error\"}}}");
      oam_bridge_destroy (bridge);

      /* A configuration gamegate refuses. */
      g_assert_true (g_file_set_contents (config, "[gateway\n", -1, NULL));
      bridge = abi_bridge_new (rec);
      broken = abi_call (bridge, PING ("2"), 10000);
      g_assert_true (g_str_has_prefix (broken, "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32603,"
                                               "\"message\":\"gamegate cannot serve oam: "));
      g_assert_true (strstr (broken, config) != NULL);
      oam_bridge_destroy (bridge);
      g_unlink (config);
      return;
    }
  /* Said through the protocol; stderr stays quiet without OAM_BRIDGE_LOG. */
  trap_quiet_subprocess ();
}

/* OAM_BRIDGE_LOG: nothing on stderr without it; from its level up with
 * it. An unread key is a warning of gamegate's. */
static void
run_logging (const char *level)
{
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  g_autofree char *config = write_config ("[gateway]\nno-such-key=1\n");
  oam_bridge *bridge;

  /* gamegate warns about the key (g_test_init() made warnings fatal). */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  if (level != NULL)
    g_setenv ("OAM_BRIDGE_LOG", level, TRUE);
  else
    g_unsetenv ("OAM_BRIDGE_LOG");
  g_setenv ("GAMEGATE_CONFIG", config, TRUE);
  bridge = abi_bridge_new (rec);
  g_free (abi_call (bridge, PING ("1"), 10000));
  oam_bridge_destroy (bridge);
  g_unlink (config);
}

static void
test_logging (void)
{
  if (g_test_subprocess ())
    {
      const char *level = g_getenv ("OAM_ABI_TEST_LEVEL");

      run_logging (level != NULL && *level != '\0' ? level : NULL);
      return;
    }
  g_setenv ("OAM_ABI_TEST_LEVEL", "", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDOUT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("");

  g_setenv ("OAM_ABI_TEST_LEVEL", "warning", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDOUT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*oam-bridge: gamegate: warning: *unknown key 'no-such-key' in [gateway]*");
  g_test_trap_assert_stderr_unmatched ("*: debug: *");

  g_setenv ("OAM_ABI_TEST_LEVEL", "debug", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDOUT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*oam-bridge: gamegate: debug: Loaded plugin oam *"
                             "oam-bridge: gamegate: warning: *unknown key*oam-bridge: gamegate-oam: debug: oam connection *: ping*");

  g_setenv ("OAM_ABI_TEST_LEVEL", "error", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDOUT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("");
  g_unsetenv ("OAM_ABI_TEST_LEVEL");
}

typedef void *(*CreateFunc) (void (*) (const char *, void *), void *);
typedef char *(*CallFunc) (void *, const char *, int);
typedef void (*VoidFunc) (void *);
typedef void (*StringFreeFunc) (char *);
typedef const char *(*VersionFunc) (void);

/* A host written for open-apple-models needs only the library's path,
 * under the name it knows (the build tree's copy of the installed link). */
static void
test_compatibility_name (void)
{
  g_autofree char *dir = g_dir_make_tmp ("oam-abi-XXXXXX", NULL);
  g_autofree char *link = g_build_filename (dir, "libOpenAppleModelsFFI.so", NULL);
  g_autoptr(AbiRecorder) rec = abi_recorder_new ();
  void *library;
  CreateFunc create;
  CallFunc call;
  VoidFunc destroy;
  StringFreeFunc string_free;
  VersionFunc version;
  void *bridge;
  char *pong;

  g_assert_cmpint (symlink (OAM_ABI_LIBRARY, link), ==, 0);
  library = dlopen (link, RTLD_NOW | RTLD_LOCAL);
  g_assert_nonnull (library);
  create = (CreateFunc) dlsym (library, "oam_bridge_create");
  call = (CallFunc) dlsym (library, "oam_call_blocking");
  destroy = (VoidFunc) dlsym (library, "oam_bridge_destroy");
  string_free = (StringFreeFunc) dlsym (library, "oam_string_free");
  version = (VersionFunc) dlsym (library, "oam_version");
  g_assert_nonnull (dlsym (library, "oam_bridge_send"));
  g_assert_true (create != NULL && call != NULL && destroy != NULL && string_free != NULL && version != NULL);
  g_assert_cmpstr (version (), ==, PACKAGE_VERSION);

  bridge = create (abi_callback, rec);
  pong = call (bridge, PING ("1"), (int) abi_timeout_ms (10000));
  g_assert_cmpstr (pong, ==, PONG ("1"));
  string_free (pong);
  destroy (bridge);
  dlclose (library);
  g_unlink (link);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/oam-abi/destroy/waiting-tool-call", test_destroy_waiting_tool_call);
  g_test_add_func ("/oam-abi/destroy/waits-for-callback", test_destroy_waits_for_callback);
  g_test_add_func ("/oam-abi/destroy/in-callback", test_destroy_in_callback);
  g_test_add_func ("/oam-abi/destroy/during-blocking-call", test_destroy_during_blocking_call);
  g_test_add_func ("/oam-abi/independent", test_independent);
  g_test_add_func ("/oam-abi/thousand-bridges", test_thousand_bridges);
  g_test_add_func ("/oam-abi/host-main-loop", test_host_main_loop);
  g_test_add_func ("/oam-abi/shutdown", test_shutdown);
  g_test_add_func ("/oam-abi/configuration", test_configuration);
  g_test_add_func ("/oam-abi/configuration-xdg", test_configuration_xdg);
  g_test_add_func ("/oam-abi/cannot-serve", test_cannot_serve);
  g_test_add_func ("/oam-abi/logging", test_logging);
  g_test_add_func ("/oam-abi/compatibility-name", test_compatibility_name);
  return g_test_run ();
}
