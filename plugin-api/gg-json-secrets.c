/* gg-json-secrets.c: credentials masked out of JSON that leaves the
 * process for people to read: model recordings, the bus tap.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-json.h"

static gboolean
is_secret_name (const char *name)
{
  static const char * const secret[] = {
    "authorization", "proxy-authorization", "api_key", "apikey", "api-key", "x-api-key",
    "password", "passwd", "secret", "client_secret", "token", "access_token", "refresh_token",
    "session_token", "server_token", "join_token", "bearer", "cookie", "set-cookie", NULL
  };
  g_autofree char *lower = g_ascii_strdown (name, -1);

  return g_strv_contains (secret, lower);
}

/**
 * gg_json_mask_secrets:
 * @node: a JSON value, changed in place
 *
 * Replaces by `"***"` the value of every member named like a credential
 * (`authorization`, `api_key`, `apiKey`, `token`, `password`, `secret`,
 * `cookie`, … in any case) and every string that is a bearer credential
 * (`"Bearer …"`), at any depth. For what gamegate writes for people to
 * read (recordings, the bus tap); it is a safety net, not a reason to put
 * secrets into JSON.
 *
 * Recursive: @node must be bounded in depth, as every document gamegate
 * parses (gg_json_parse()) or builds from parsed ones is.
 *
 * Since: 1.0
 */
void
gg_json_mask_secrets (JsonNode *node)
{
  g_return_if_fail (node != NULL);

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GPtrArray) secrets = g_ptr_array_new_with_free_func (g_free);
      JsonObjectIter iter;
      const char *name;
      JsonNode *value;

      json_object_iter_init (&iter, object);
      while (json_object_iter_next (&iter, &name, &value))
        {
          if (is_secret_name (name) && !JSON_NODE_HOLDS_NULL (value))
            g_ptr_array_add (secrets, g_strdup (name));
          else
            gg_json_mask_secrets (value);
        }
      /* Replaced after the walk: the object must not change under its
       * iterator, and json-glib 1.6's json_node_init_string() reads the
       * value it has just freed when the node held one. */
      for (guint i = 0; i < secrets->len; i++)
        json_object_set_string_member (object, g_ptr_array_index (secrets, i), "***");
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        gg_json_mask_secrets (json_array_get_element (array, i));
    }
  else if (json_node_get_value_type (node) == G_TYPE_STRING &&
           g_ascii_strncasecmp (json_node_get_string (node), "Bearer ", 7) == 0)
    json_node_set_string (node, "***");
}
