/* fuzz-json-partial.c: the partial-JSON reader (schema turns' `partial`
 * events) on any bytes and at every few cut points of them. Whatever it
 * shows must be a value the compact writer can print and the strict parser
 * reads back.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gamegate.h>

#include "fuzz-common.h"
#include "gg-json-partial-private.h"

static void
check_prefix (const char *text,
              gsize       length)
{
  g_autoptr(JsonNode) node = _gg_json_partial_parse (text, length, GG_JSON_DEFAULT_MAX_DEPTH);
  g_autoptr(JsonNode) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;

  if (node == NULL)
    return;
  out = gg_json_to_string (node);
  again = gg_json_parse (out, -1, GG_JSON_DEFAULT_MAX_DEPTH + 1, &error);
  if (again == NULL)
    g_error ("a partial value prints as invalid JSON: %s: %s", error->message, out);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *text = (const char *) data;

  fuzz_init ();
  check_prefix (text, size);
  /* A stream grows one chunk at a time: a few prefixes, not all of them
   * (that would be quadratic in the input). */
  for (gsize cut = 1; cut < size; cut = cut * 2 + 1)
    check_prefix (text, cut);
  if (size > 1)
    check_prefix (text, size - 1);
  return 0;
}
