/* gb-bridge-toolset.c: the `bridge` toolset every conforming game gets
 * (spec section 4): get_state, raw_command, wait_for, health, close; and
 * gamegate's screenshot (docs/game-bridge-extensions.md, gb-screenshot.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-bridge-toolset.h"
#include "gb-screenshot.h"

static const struct {
  const char *name;
  const char *description;
  const char *schema;
} bridge_tools[] = {
  { "get_state", "The game's /state snapshot, or the value at one dot path of it (\"game.score\", \"ui.elements.0\").",
    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"description\":\"A dot path into the state; "
    "omit for the whole snapshot\"}},\"additionalProperties\":false}" },
  { "raw_command", "Send any command the game accepts, with its arguments beside cmd, and wait until it was applied.",
    "{\"type\":\"object\",\"properties\":{\"cmd\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The command name\"}},"
    "\"required\":[\"cmd\"],\"additionalProperties\":true}" },
  { "wait_for", "Poll /state until the value at path equals (or does not equal, or exists) as asked; "
    "returns {matched, value, waitedMs}.",
    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"description\":\"A dot path into the state\"},"
    "\"equals\":{\"description\":\"Wait until the value equals this\"},"
    "\"notEquals\":{\"description\":\"Wait until the value differs from this\"},"
    "\"exists\":{\"type\":\"boolean\",\"description\":\"Wait until the path exists (true) or not (false)\"},"
    "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":600000,\"description\":\"How long to wait (default: the bridge timeout)\"}},"
    "\"required\":[\"path\"],\"additionalProperties\":false}" },
  { "health", "The game's GET /health: {ok, frame}.",
    "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}" },
  { "close", "Ask the game to exit through its normal path; waits until its port goes silent.",
    "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}" },
  { "screenshot", "The game's current frame as an image (PNG or JPEG, as the game serves it), optionally scaled "
    "down and cut to a region; after_command waits until that command was applied first.", NULL },
};

/* A new copy of the bridge toolset. */
static GbToolset *
build_toolset (void)
{
  GbToolset *toolset = g_new0 (GbToolset, 1);

  toolset->name = g_strdup ("bridge");
  toolset->description = g_strdup ("Contract-level tools every conforming game has: state, raw commands, "
                                    "waiting for a condition, health, close, and the screenshot of games "
                                    "that serve one.");
  toolset->tools = g_ptr_array_new_with_free_func ((GDestroyNotify) gb_tool_free);
  for (guint i = 0; i < G_N_ELEMENTS (bridge_tools); i++)
    {
      GbTool *tool = g_new0 (GbTool, 1);
      const char *text = bridge_tools[i].schema != NULL ? bridge_tools[i].schema : gb_screenshot_schema ();
      g_autoptr(JsonNode) schema = gg_json_parse (text, -1, 16, NULL);

      tool->name = g_strdup (bridge_tools[i].name);
      tool->description = g_strdup (bridge_tools[i].description);
      tool->command = g_strdup (bridge_tools[i].name);
      tool->toolset = g_strdup ("bridge");
      tool->input_schema = json_object_ref (json_node_get_object (schema));
      g_ptr_array_add (toolset->tools, tool);
    }
  return toolset;
}

/* Per thread, as HACKING.md has process-wide caches: each bridge of the
 * oam C ABI runs its plugins on a thread of its own. Freed when the thread
 * ends; the main thread's lives as long as the process. */
static GPrivate per_thread_toolset = G_PRIVATE_INIT ((GDestroyNotify) gb_toolset_free);

/**
 * gb_bridge_toolset_get:
 *
 * The bridge toolset, built once per thread: its tools keep their compiled
 * input schemas (gb_tool_check()), so a call checks its arguments without
 * parsing and compiling them again.
 *
 * Returns: (transfer none): the toolset, this thread's
 */
GbToolset *
gb_bridge_toolset_get (void)
{
  GbToolset *toolset = g_private_get (&per_thread_toolset);

  if (toolset == NULL)
    {
      toolset = build_toolset ();
      g_private_set (&per_thread_toolset, toolset);
    }
  return toolset;
}

gboolean
gb_bridge_toolset_has (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (bridge_tools); i++)
    if (g_str_equal (bridge_tools[i].name, name))
      return TRUE;
  return FALSE;
}
