/* fuzz-schema.c: JSON Schema compilation and validation. The input is a
 * schema, optionally followed by a NUL byte and an instance; without one
 * the schema validates itself. A failed validation must say where (the
 * instance path and the schema path of the error).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gamegate.h>
#include <string.h>

#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const guint8 *nul = memchr (data, '\0', size);
  gsize schema_len = nul != NULL ? (gsize) (nul - data) : size;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) schema_node = NULL;
  g_autoptr(JsonNode) instance = NULL;
  g_autoptr(GgSchema) schema = NULL;

  fuzz_init ();
  schema_node = gg_json_parse ((const char *) data, (gssize) schema_len, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (schema_node == NULL)
    return 0;
  schema = gg_schema_new (schema_node, &error);
  if (schema == NULL)
    {
      g_assert_true (error != NULL && error->domain == GG_SCHEMA_ERROR);
      return 0;
    }
  g_assert_no_error (error);

  if (nul != NULL)
    instance = gg_json_parse ((const char *) nul + 1, (gssize) (size - schema_len - 1),
                              GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  else
    instance = json_node_ref (schema_node);
  if (instance == NULL)
    return 0;
  if (!gg_schema_validate (schema, instance, &error))
    {
      g_assert_true (error != NULL && error->domain == GG_SCHEMA_ERROR);
      g_assert_nonnull (error->message);
      (void) gg_schema_error_get_path (error);
      (void) gg_schema_error_get_schema_path (error);
    }
  else
    g_assert_no_error (error);
  return 0;
}
