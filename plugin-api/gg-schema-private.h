/* gg-schema-private.h: what the schema compiler and validator share.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-schema.h"

G_BEGIN_DECLS

/* Library-internal: the leading underscore keeps these out of
 * tests/tools/api-symbols.py and so out of the exported map. */

/* A $ref resolved at compile time. */
typedef struct {
  JsonNode *target;   /* inside the schema root */
  char     *pointer;  /* "#/$defs/x", for schema paths */
} GgSchemaRef;

struct _GgSchema {
  GObject     parent_instance;

  JsonNode   *root;     /* sealed deep copy of the caller's schema */
  GHashTable *regexes;  /* pattern string (in root) -> GRegex */
  GHashTable *refs;     /* $ref string (in root) -> GgSchemaRef */
  gboolean    draft7;   /* $schema draft-04..07: $ref ignores its siblings */
};

/* Nested evaluations at one instance location through $ref before the
 * schema counts as looping, and overall nesting / work per validation. */
#define GG_SCHEMA_MAX_REF_CHAIN   64
#define GG_SCHEMA_MAX_DEPTH       512
#define GG_SCHEMA_MAX_EVALUATIONS 1000000

/* Sets an error carrying instance path @path (may be NULL) and schema
 * path @schema_path. */
void     _gg_schema_set_error (GError    **error,
                               gint        code,
                               const char *path,
                               const char *schema_path,
                               const char *message);

/* Appends "/token" to a JSON pointer, escaping '~' and '/'. */
void     _gg_schema_pointer_append (GString    *pointer,
                                    const char *token);

gboolean _gg_schema_format_check (const char *format,
                                  const char *value);

G_END_DECLS
