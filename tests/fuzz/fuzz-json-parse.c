/* fuzz-json-parse.c: the strict JSON parser (gg_json_parse) on any bytes.
 * What it accepts must survive compact output and a second parse
 * unchanged, and a deep copy must equal the original; salvaging it
 * (gg_json_parse_salvage) gives it whole. What it refuses salvages to a
 * value that is itself valid JSON, or to none.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gamegate.h>

#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonNode) again = NULL;
  g_autoptr(JsonNode) copy = NULL;
  g_autofree char *text = NULL;
  gboolean complete = FALSE;
  g_autoptr(JsonNode) shown = NULL;

  fuzz_init ();
  node = gg_json_parse ((const char *) data, (gssize) size, GG_JSON_DEFAULT_MAX_DEPTH, &error);
  shown = gg_json_parse_salvage ((const char *) data, (gssize) size, GG_JSON_DEFAULT_MAX_DEPTH, &complete);
  if (node == NULL)
    {
      g_assert_nonnull (error);
      g_assert_true (error->domain == GG_JSON_ERROR);
      if (shown != NULL)
        {
          g_autofree char *shown_text = gg_json_to_string (shown);
          g_autoptr(JsonNode) reparsed = gg_json_parse (shown_text, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);

          if (reparsed == NULL || !gg_json_equal (shown, reparsed))
            g_error ("a salvaged value is not valid JSON: %s", shown_text);
        }
      return 0;
    }
  g_assert_no_error (error);
  if (shown == NULL || !complete || !gg_json_equal (node, shown))
    g_error ("salvaging a valid document does not give it whole");

  text = gg_json_to_string (node);
  again = gg_json_parse (text, -1, GG_JSON_DEFAULT_MAX_DEPTH, &error);
  if (again == NULL)
    g_error ("compact output does not parse again: %s: %s", error->message, text);
  if (!gg_json_equal (node, again))
    g_error ("compact output parses to a different value: %s", text);

  copy = gg_json_copy (node);
  g_assert_true (gg_json_equal (node, copy));
  return 0;
}
