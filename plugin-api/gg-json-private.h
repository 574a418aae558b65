/* gg-json-private.h: JSON helpers shared inside libgamegate, not API.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-json.h"

G_BEGIN_DECLS

/* Library-internal: the leading underscore keeps these out of
 * tests/tools/api-symbols.py and so out of the exported map. */


/* New nodes owning @object / @array (json_node_init_object() adds a ref). */
JsonNode *_gg_json_node_take_object (JsonObject *object);
JsonNode *_gg_json_node_take_array (JsonArray  *array);

/* Appends @node in the compact form of gg_json_to_string(). */
void      _gg_json_append (GString  *out,
                           JsonNode *node);
/* The one compact writer behind both: with @mark_doubles an integral double
 * keeps a '.0' (gg_json_to_string: gamegate reads its own output back and
 * keeps the type); without, it is written as the integer it equals, as the
 * JSON-RPC peers (JavaScript, Swift) write it: oam's wire shows `1`. */
void      _gg_json_append_full (GString  *out,
                                JsonNode *node,
                                gboolean  mark_doubles);

/* Appends @str as a JSON string literal, quotes included. */
void      _gg_json_append_string (GString    *out,
                                  const char *str);

/* The tree of a document gg_json_parse()'s strict scan accepted, built
 * from its text as json-glib's parser builds it (gg-json-tree.c). */
JsonNode *_gg_json_tree_build (const char *data,
                               gsize       length);

/* A hash function matching gg_json_equal(), for GHashTable. */
guint     _gg_json_hash (JsonNode *node);

/* Whether @node nests containers more than @limit levels deep (a scalar
 * is 0 levels, `{}` and `[]` one). Iterative, stops at the first level
 * past @limit, so any document can be measured. */
gboolean  _gg_json_deeper_than (JsonNode *node,
                                guint     limit);

/* Numeric helpers for values holding gint64 or gdouble. */
gboolean  _gg_json_node_is_number (JsonNode *node);
gboolean  _gg_json_node_is_integral (JsonNode *node);
int       _gg_json_number_compare (JsonNode *a,
                                   JsonNode *b);

/* gg-json-parse.c: a hex digit's value (-1: none); a \u escape's four
 * digits at @p, @available bytes there. */
int       _gg_json_hex_value (char c);
gboolean  _gg_json_read_hex4 (const char *p,
                              gsize       available,
                              guint      *value);


/* gg-json-canonical.c: RFC 8785 pieces for writers that build on them. */
void      _gg_json_canonical_number (GString *out,
                                     double   value);
void      _gg_json_canonical_append (GString  *out,
                                     JsonNode *node);

G_END_DECLS
