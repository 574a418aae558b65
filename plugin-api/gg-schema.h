/* gg-schema.h: a JSON Schema validator for the keywords the specs use.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined (GAMEGATE_INSIDE) && !defined (GAMEGATE_COMPILATION)
#error "Only <gamegate.h> can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define GG_SCHEMA_ERROR (gg_schema_error_quark ())
GQuark gg_schema_error_quark (void);

/**
 * GgSchemaError:
 * @GG_SCHEMA_ERROR_INVALID_SCHEMA: the schema itself cannot be used
 * @GG_SCHEMA_ERROR_INVALID: the instance does not match the schema
 *
 * Errors of the %GG_SCHEMA_ERROR domain. They carry where they happened:
 * gg_schema_error_get_path() is the JSON pointer into the instance
 * ("#/party/0/name") and gg_schema_error_get_schema_path() the one into the
 * schema ("#/properties/party/items/properties/name/minLength").
 *
 * Since: 1.0
 */
typedef enum {
  GG_SCHEMA_ERROR_INVALID_SCHEMA,
  GG_SCHEMA_ERROR_INVALID,
} GgSchemaError;

/**
 * GgSchema:
 *
 * A compiled JSON Schema (draft 7 and 2020-12 keywords, local `$ref`s) that
 * validates JSON instances with errors naming where they fail.
 *
 * Since: 1.0
 */
#define GG_TYPE_SCHEMA (gg_schema_get_type ())
G_DECLARE_FINAL_TYPE (GgSchema, gg_schema, GG, SCHEMA, GObject)

/* Errors carry where they happened: gg_schema_error_get_path() is the JSON
 * pointer into the instance ("#/party/0/name") and
 * gg_schema_error_get_schema_path() the one into the schema
 * ("#/properties/party/items/properties/name/minLength"). */
GgSchema    *gg_schema_new                   (JsonNode  *schema,
                                              GError   **error);
JsonNode    *gg_schema_get_root              (GgSchema *self);
gboolean     gg_schema_validate              (GgSchema  *self,
                                              JsonNode  *instance,
                                              GError   **error);
const char  *gg_schema_error_get_path        (const GError *error);
const char  *gg_schema_error_get_schema_path (const GError *error);

G_END_DECLS
