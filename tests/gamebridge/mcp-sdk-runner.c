/* mcp-sdk-runner.c: running the MCP SDK client scripts.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gamegate.h>

#include "mcp-sdk-runner.h"

gboolean
mcp_sdk_available (void)
{
  g_autofree char *node = g_find_program_in_path ("node");
  g_autofree char *sdk = g_build_filename (MCP_SDK_DIR, "node_modules", "@modelcontextprotocol",
                                           "sdk", "package.json", NULL);

  if (node != NULL && g_file_test (sdk, G_FILE_TEST_EXISTS))
    return TRUE;
  g_print ("SKIP: node or the MCP SDK (npm ci in %s) is missing\n", MCP_SDK_DIR);
  return FALSE;
}

static gboolean
timeout_cb (gpointer user_data)
{
  g_subprocess_force_exit (user_data);
  return G_SOURCE_REMOVE;
}

static void
communicate_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* Runs node with @args (NULL-terminated) in the SDK directory and returns
 * the one JSON document it printed. */
static JsonNode *
run_node (GPtrArray           *args,
          GSubprocessLauncher *launcher,
          guint                timeout_ms)
{
  g_autoptr(GSubprocessLauncher) own_launcher = NULL;
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GBytes) out = NULL;
  g_autoptr(GError) error = NULL;
  const char *script = args->pdata[1];
  JsonNode *root;
  guint timeout_id;

  if (launcher == NULL)
    launcher = own_launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_subprocess_launcher_set_flags (launcher, G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_set_cwd (launcher, MCP_SDK_DIR);
  child = g_subprocess_launcher_spawnv (launcher, (const char * const *) args->pdata, &error);
  g_assert_no_error (error);

  timeout_id = g_timeout_add (timeout_ms, timeout_cb, child);
  g_subprocess_communicate_async (child, NULL, NULL, communicate_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout_id);
  g_subprocess_communicate_finish (child, result, &out, NULL, &error);
  g_assert_no_error (error);
  g_subprocess_wait (child, NULL, &error);
  g_assert_no_error (error);
  if (!g_subprocess_get_if_exited (child) || g_subprocess_get_exit_status (child) != 0)
    g_error ("node %s failed: %.*s", script, (int) g_bytes_get_size (out),
             (const char *) g_bytes_get_data (out, NULL));

  g_print ("%.*s", (int) g_bytes_get_size (out), (const char *) g_bytes_get_data (out, NULL));
  root = gg_json_parse (g_bytes_get_data (out, NULL), (gssize) g_bytes_get_size (out), 64, &error);
  g_assert_no_error (error);
  return root;
}

JsonNode *
mcp_sdk_run (const char          *script,
             const char * const  *server_argv,
             GSubprocessLauncher *launcher,
             guint                timeout_ms)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) wrapper = NULL;
  const char *wrap = g_getenv ("GAMEGATE_TEST_WRAPPER");

  /* The server command the script starts runs under the wrapper. */
  if (wrap != NULL && *wrap != '\0')
    {
      wrapper = g_strsplit (wrap, " ", -1);
      for (char **w = wrapper; *w != NULL; w++)
        if (**w != '\0')
          g_ptr_array_add (argv, *w);
    }
  for (guint i = 0; server_argv[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) server_argv[i]);
  g_ptr_array_add (argv, NULL);
  return mcp_sdk_run_client (script, (const char * const *) argv->pdata, launcher, timeout_ms);
}

JsonNode *
mcp_sdk_run_client (const char          *script,
                    const char * const  *argv,
                    GSubprocessLauncher *launcher,
                    guint                timeout_ms)
{
  g_autofree char *node = g_find_program_in_path ("node");
  g_autoptr(GPtrArray) args = g_ptr_array_new ();

  g_ptr_array_add (args, node);
  g_ptr_array_add (args, (gpointer) script);
  for (guint i = 0; argv != NULL && argv[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) argv[i]);
  g_ptr_array_add (args, NULL);
  return run_node (args, launcher, timeout_ms);
}

JsonNode *
mcp_sdk_member (JsonNode   *root,
                const char *path)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = gg_json_path_get (root, path, &error);

  if (node == NULL)
    g_error ("%s: %s", path, error->message);
  return node;
}
