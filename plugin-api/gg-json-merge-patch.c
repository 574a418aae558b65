/* gg-json-merge-patch.c: RFC 7386 JSON Merge Patch.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-json-private.h"

/* Applies @patch to @target in place; @target is owned and returned. */
static JsonNode *
merge (JsonNode *target,
       JsonNode *patch)
{
  JsonObject *object;
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  if (!JSON_NODE_HOLDS_OBJECT (patch))
    {
      g_clear_pointer (&target, json_node_unref);
      return gg_json_copy (patch);
    }

  if (target == NULL || !JSON_NODE_HOLDS_OBJECT (target))
    {
      g_clear_pointer (&target, json_node_unref);
      target = _gg_json_node_take_object (json_object_new ());
    }
  object = json_node_get_object (target);

  json_object_iter_init_ordered (&iter, json_node_get_object (patch));
  while (json_object_iter_next_ordered (&iter, &name, &value))
    {
      if (JSON_NODE_HOLDS_NULL (value))
        {
          if (json_object_has_member (object, name))
            json_object_remove_member (object, name);
        }
      else
        {
          JsonNode *old = json_object_get_member (object, name);
          JsonNode *merged = merge (old != NULL ? json_node_ref (old) : NULL, value);

          /* json_object_set_member() ignores (and does not consume) the
           * node that is already there. */
          if (merged == old)
            json_node_unref (merged);
          else
            json_object_set_member (object, name, merged);
        }
    }
  return target;
}

/**
 * gg_json_merge_patch:
 * @target: (nullable): the document to patch (not modified)
 * @patch: the merge patch
 *
 * Applies @patch to @target as RFC 7386 defines it: a non-object patch
 * replaces the target; an object patch turns a non-object target into {}
 * and then, member by member, removes members whose patch value is null
 * and merges the others recursively. Member order of @target is kept; new
 * members come last.
 *
 * Returns: (transfer full): the patched document, sharing nothing with
 *   @target or @patch
 *
 * Since: 1.0
 */
JsonNode *
gg_json_merge_patch (JsonNode *target,
                     JsonNode *patch)
{
  g_return_val_if_fail (patch != NULL, NULL);

  return merge (target != NULL ? gg_json_copy (target) : NULL, patch);
}
