/* fuzz-json-path.c: dot paths and RFC 7386 merge patch. The input is a
 * path, a newline, a document, a NUL byte and a value (also the patch).
 * Every path operation runs on a copy of the document; the merge patch
 * must be idempotent (patching the result again changes nothing) and must
 * leave its inputs untouched.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gamegate.h>
#include <string.h>

#include "fuzz-common.h"

static JsonNode *
parse_piece (FuzzInput *in,
             char       sep)
{
  gsize length = 0;
  g_autofree char *text = fuzz_input_piece (in, sep, &length);

  return gg_json_parse (text, (gssize) length, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  FuzzInput in = { data, size };
  g_autofree char *path = fuzz_input_piece (&in, '\n', NULL);
  g_autoptr(JsonNode) doc = parse_piece (&in, '\0');
  g_autoptr(JsonNode) value = parse_piece (&in, '\0');
  g_auto(GStrv) segments = NULL;
  g_autoptr(GError) error = NULL;

  fuzz_init ();
  segments = gg_json_path_split (path, &error);
  g_assert_true ((segments == NULL) == (error != NULL));
  g_clear_error (&error);

  if (doc != NULL)
    {
      g_autoptr(JsonNode) before = gg_json_copy (doc);
      g_autoptr(JsonNode) work = gg_json_copy (doc);
      g_autoptr(JsonNode) removed = NULL;
      JsonNode *got = gg_json_path_get (doc, path, &error);

      g_assert_true ((got == NULL) == (error != NULL));
      g_clear_error (&error);
      if (value != NULL)
        {
          if (!gg_json_path_set (work, path, value, &error))
            g_assert_nonnull (error);
          g_clear_error (&error);
        }
      removed = gg_json_path_remove (work, path, &error);
      g_clear_error (&error);
      g_assert_true (gg_json_equal (doc, before));
    }

  if (value != NULL)
    {
      g_autoptr(JsonNode) patch_before = gg_json_copy (value);
      g_autoptr(JsonNode) once = gg_json_merge_patch (doc, value);
      g_autoptr(JsonNode) twice = gg_json_merge_patch (once, value);

      if (!gg_json_equal (once, twice))
        {
          g_autofree char *a = gg_json_to_string (once);
          g_autofree char *b = gg_json_to_string (twice);
          g_error ("merge patch is not idempotent: %s then %s", a, b);
        }
      g_assert_true (gg_json_equal (value, patch_before));
    }
  return 0;
}
