/* test-json-secrets.c: gg_json_mask_secrets() masks credentials by name
 * at any depth and bearer strings anywhere, and nothing else.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gamegate.h>

static void
test_mask (void)
{
  g_autoptr(JsonNode) node = json_from_string (
    "{\"model\":{\"type\":\"openai\",\"apiKey\":\"sk-1\",\"api_key\":\"sk-2\",\"apiKeyEnv\":\"OPENAI_API_KEY\"},"
    "\"headers\":[{\"Authorization\":\"Bearer abc\"},{\"X-Api-Key\":\"k\"},{\"Accept\":\"json\"}],"
    "\"note\":\"Bearer xyz\",\"text\":\"a Bearer in the middle stays\",\"token\":null,"
    "\"usage\":{\"inputTokens\":3,\"outputTokens\":4},\"session_token\":\"s_1\",\"password\":7}", NULL);
  g_autofree char *text = NULL;

  gg_json_mask_secrets (node);
  text = gg_json_to_string (node);
  g_assert_cmpstr (text, ==,
                   "{\"model\":{\"type\":\"openai\",\"apiKey\":\"***\",\"api_key\":\"***\",\"apiKeyEnv\":\"OPENAI_API_KEY\"},"
                   "\"headers\":[{\"Authorization\":\"***\"},{\"X-Api-Key\":\"***\"},{\"Accept\":\"json\"}],"
                   "\"note\":\"***\",\"text\":\"a Bearer in the middle stays\",\"token\":null,"
                   "\"usage\":{\"inputTokens\":3,\"outputTokens\":4},\"session_token\":\"***\",\"password\":\"***\"}");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json/mask-secrets", test_mask);
  return g_test_run ();
}
