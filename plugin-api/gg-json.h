/* gg-json.h: JSON helpers every plugin needs: parsing with limits, compact
 * output, value equality, dot paths and RFC 7386 merge patch.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined (GAMEGATE_INSIDE) && !defined (GAMEGATE_COMPILATION)
#error "Only <gamegate.h> can be included directly."
#endif

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define GG_JSON_ERROR (gg_json_error_quark ())
GQuark gg_json_error_quark (void);

/**
 * GgJsonError:
 * @GG_JSON_ERROR_PARSE: not valid JSON (or not UTF-8)
 * @GG_JSON_ERROR_TOO_DEEP: nesting beyond the limit
 * @GG_JSON_ERROR_BAD_PATH: a malformed dot path
 * @GG_JSON_ERROR_NOT_CONTAINER: the path goes through a value that is not an
 *   object or array
 * @GG_JSON_ERROR_NOT_FOUND: the path names nothing
 *
 * Errors of the %GG_JSON_ERROR domain.
 *
 * Since: 1.0
 */
typedef enum {
  GG_JSON_ERROR_PARSE,
  GG_JSON_ERROR_TOO_DEEP,
  GG_JSON_ERROR_BAD_PATH,
  GG_JSON_ERROR_NOT_CONTAINER,
  GG_JSON_ERROR_NOT_FOUND,
} GgJsonError;

/**
 * GG_JSON_DEFAULT_MAX_DEPTH:
 *
 * The nesting limit protocol messages are parsed with by gg_json_parse().
 *
 * Since: 1.0
 */
#define GG_JSON_DEFAULT_MAX_DEPTH 128

JsonNode *gg_json_parse             (const char *data,
                                     gssize      length,
                                     guint       max_depth,
                                     GError    **error);
JsonNode *gg_json_parse_salvage     (const char *data,
                                     gssize      length,
                                     guint       max_depth,
                                     gboolean   *complete);
char     *gg_json_to_string         (JsonNode *node);
char     *gg_json_object_to_string  (JsonObject *object);
/* A copy that shares nothing with @node (json_node_copy() shares objects
 * and arrays by reference). The copy is mutable. */
JsonNode *gg_json_copy              (JsonNode *node);
char     *gg_json_canonical_string  (JsonNode *node);
char     *gg_json_canonical_digest  (JsonNode *node);
void      gg_json_canonical_append  (GString  *out,
                                     JsonNode *node);
void      gg_json_canonical_append_string (GString    *out,
                                           const char *text);
void      gg_json_mask_secrets      (JsonNode *node);
gboolean  gg_json_equal             (JsonNode *a,
                                     JsonNode *b);

/* Dot paths: "player.gold", "party.0.name"; "" is the root. get returns a
 * node borrowed from @root; set stores a deep copy of @value; remove
 * returns the removed node (transfer full). See gg-json-path.c. */
char    **gg_json_path_split        (const char *path,
                                     GError    **error);
JsonNode *gg_json_path_get          (JsonNode   *root,
                                     const char *path,
                                     GError    **error);
gboolean  gg_json_path_set          (JsonNode   *root,
                                     const char *path,
                                     JsonNode   *value,
                                     GError    **error);
JsonNode *gg_json_path_remove       (JsonNode   *root,
                                     const char *path,
                                     GError    **error);

/* RFC 7386: returns the patched copy of @target (which may be NULL). */
JsonNode *gg_json_merge_patch       (JsonNode *target,
                                     JsonNode *patch);

G_END_DECLS
