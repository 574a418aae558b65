/* fuzz-gb-manifest.c: gamebridge's tolerant manifest reader (a game's
 * GET /tools or a --manifest file) on any JSON. A manifest it accepts is
 * read back through every lookup and every tool's JSON form.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "fuzz-common.h"
#include "gb-bridge.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GbManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) names = NULL;

  fuzz_init ();
  root = gg_json_parse ((const char *) data, (gssize) size, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (root == NULL)
    return 0;
  manifest = gb_manifest_parse (root, "game", &error);
  if (manifest == NULL)
    {
      g_assert_nonnull (error);
      return 0;
    }
  names = gb_manifest_toolset_names (manifest);
  for (guint i = 0; i < manifest->toolsets->len; i++)
    {
      GbToolset *set = manifest->toolsets->pdata[i];

      g_assert_true (gb_manifest_find_toolset (manifest, set->name) == set);
      for (guint j = 0; j < set->tools->len; j++)
        {
          GbTool *tool = set->tools->pdata[j];
          g_autoptr(JsonObject) json = gb_tool_to_json (tool);
          g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), json);
          g_autofree char *text = gg_json_to_string (node);

          g_assert_nonnull (gb_manifest_find_tool (manifest, tool->name));
          g_assert_nonnull (text);
        }
    }
  return 0;
}
