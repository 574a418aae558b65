/* gg-json-private.h: JSON helpers shared inside libgamegate, not API.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-json.h"

G_BEGIN_DECLS

/* A copy that shares nothing with @node (json_node_copy() shares objects
 * and arrays by reference). The copy is mutable. */
JsonNode *gg_json_deep_copy          (JsonNode *node);

/* New nodes owning @object / @array (json_node_init_object() adds a ref). */
JsonNode *gg_json_node_take_object   (JsonObject *object);
JsonNode *gg_json_node_take_array    (JsonArray  *array);

/* Appends @node in the compact form of gg_json_to_string(). */
void      gg_json_append             (GString  *out,
                                      JsonNode *node);

/* Appends @str as a JSON string literal, quotes included. */
void      gg_json_append_string      (GString    *out,
                                      const char *str);

/* Numeric helpers for values holding gint64 or gdouble. */
gboolean  gg_json_node_is_number     (JsonNode *node);
gboolean  gg_json_node_is_integral   (JsonNode *node);
int       gg_json_number_compare     (JsonNode *a,
                                      JsonNode *b);

G_END_DECLS
