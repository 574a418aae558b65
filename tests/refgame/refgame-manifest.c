/* refgame-manifest.c: the GET /tools manifest.
 *
 * Written the way manifests come out of real serializers, so it exercises the
 * bridge's tolerant parser: two toolsets, string and null defaults, arguments
 * as an array of objects (args), a map name -> {type, description} (args),
 * plain names (params), and tools whose command differs from their name.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "refgame-manifest.h"

static const char manifest_tail[] =
  "\"toolsets\":["
    "{\"name\":\"play\",\"description\":\"Drive the game the way a player does.\",\"tools\":["
      "{\"name\":\"spawn\","
       "\"description\":\"Take a new crate into the hand, above x = 0. Its kind is drawn from the seed unless given.\","
       "\"args\":{"
         "\"kind\":{\"type\":\"string\",\"description\":\"Crate kind: wood, steel or ice\"},"
         "\"crate\":{\"type\":\"object\",\"description\":\"A specific crate, JSON-encoded: {\\\"kind\\\": \\\"ice\\\", \\\"width\\\": 0.6}\"}}},"
      "{\"name\":\"drop\",\"description\":\"Release the held crate, aiming first if x is given.\","
       "\"args\":["
         "{\"name\":\"x\",\"type\":\"number\",\"description\":\"World x, -2..2\",\"required\":false,\"default\":null},"
         "{\"name\":\"settle\",\"type\":\"boolean\",\"description\":\"Land at once instead of falling over the next frames\",\"default\":\"true\"}]},"
      "{\"name\":\"move\",\"description\":\"Move the held crate sideways.\","
       "\"args\":["
         "{\"name\":\"dx\",\"type\":\"number\",\"description\":\"Distance in world units, negative to the left\",\"default\":\"0.05\"}]},"
      "{\"name\":\"pause\",\"description\":\"Stop the simulation clock; commands still apply.\",\"args\":[]},"
      "{\"name\":\"resume\",\"description\":\"Start the simulation clock again.\",\"args\":[]},"
      "{\"name\":\"new_game\",\"command\":\"restart\","
       "\"description\":\"Clear the world and start again with the current seed.\",\"args\":[]}]},"
    "{\"name\":\"debug\",\"description\":\"Reproduce a situation: seeds and scores.\",\"tools\":["
      "{\"name\":\"reseed\",\"command\":\"set_seed\","
       "\"description\":\"Restart with another seed; the same seed and commands give the same game.\","
       "\"params\":[\"seed\"]},"
      "{\"name\":\"set_score\",\"description\":\"Overwrite the score.\","
       "\"arguments\":[{\"name\":\"score\",\"type\":\"integer\",\"description\":\"The new score\",\"required\":true,\"default\":null}]}]}],"
  "\"passthrough\":{\"description\":\"Any command the debug bridge accepts, passed straight through.\","
    "\"examples\":[\"set_seed { seed }\",\"set_score { score }\",\"close {}\"]}}";

/**
 * rg_manifest_json:
 *
 * @screenshot: (nullable): what GET /screenshot serves, as JSON (gamegate's
 *   extension of the contract), or %NULL when it serves nothing
 *
 * Returns: (transfer full): the manifest served on GET /tools.
 */
char *
rg_manifest_json (const char *screenshot)
{
  g_autofree char *member = screenshot != NULL ? g_strdup_printf ("\"screenshot\":%s,", screenshot) : g_strdup ("");

  return g_strdup_printf ("{\"game\":{\"name\":\"%s\",\"version\":\"%s\",\"protocol\":%d},%s%s",
                          RG_GAME_NAME, RG_GAME_VERSION, RG_GAME_PROTOCOL, member, manifest_tail);
}
