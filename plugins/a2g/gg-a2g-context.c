/* gg-a2g-context.c: building a session's context from its state.
 *
 * The state is what /v1/context requests accumulated: `scopes` (replaced
 * by each request that has it), `profiles` (assignments, merged) and
 * `texts` (merged; at most 16). A text `scope:NAME` adds to that scope's
 * manifest text, or appends NAME to the chain when the chain lacks it; a
 * text `profile:NAME` adds to (or defines) a profile's text.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-canonical.h"
#include "gg-a2g-context.h"
#include "gg-a2g-errors.h"

static char *
joined (const char *base,
        const char *extra)
{
  if (base == NULL || *base == '\0')
    return g_strdup (extra);
  return g_strconcat (base, "\n", extra, NULL);
}

/**
 * gg_a2g_context_build:
 * @manifest: the session's manifest
 * @state: (nullable): the accumulated state; %NULL for none
 * @error: %GG_A2G_ERROR_INVALID naming the member
 *
 * Returns: (transfer full): the context, or %NULL
 */
GgA2gContext *
gg_a2g_context_build (GgA2gManifest *manifest,
                      JsonObject    *state,
                      GError       **error)
{
  g_autoptr(GgA2gContext) context = g_new0 (GgA2gContext, 1);
  g_autoptr(GHashTable) in_chain = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(JsonObject) hashed = json_object_new ();
  g_autoptr(JsonObject) hashed_profiles = json_object_new ();
  g_autoptr(JsonNode) hashed_node = NULL;
  JsonArray *scopes = NULL;
  JsonObject *profiles = NULL, *texts = NULL;
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  g_atomic_ref_count_init (&context->ref);
  context->state = state != NULL ? json_object_ref (state) : json_object_new ();
  context->chain = json_array_new ();
  context->profile_texts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  context->assignments = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (json_object_has_member (context->state, "scopes"))
    scopes = json_object_get_array_member (context->state, "scopes");
  if (json_object_has_member (context->state, "profiles"))
    profiles = json_object_get_object_member (context->state, "profiles");
  if (json_object_has_member (context->state, "texts"))
    texts = json_object_get_object_member (context->state, "texts");

  /* Profiles of the manifest, then extra profile texts. */
  {
    GHashTableIter hiter;
    gpointer key, text;

    g_hash_table_iter_init (&hiter, manifest->profiles);
    while (g_hash_table_iter_next (&hiter, &key, &text))
      g_hash_table_insert (context->profile_texts, g_strdup (key), g_strdup (text));
  }
  for (guint i = 0; scopes != NULL && i < json_array_get_length (scopes); i++)
    {
      const char *scope = json_array_get_string_element (scopes, i);
      JsonObject *link = json_object_new ();

      json_object_set_string_member (link, "scope", scope);
      json_object_set_string_member (link, "text", g_hash_table_lookup (manifest->scopes, scope));
      json_array_add_object_element (context->chain, link);
      g_hash_table_add (in_chain, (gpointer) scope);
    }
  if (texts != NULL)
    {
      json_object_iter_init_ordered (&iter, texts);
      while (json_object_iter_next_ordered (&iter, &name, &value))
        {
          const char *text = json_node_get_string (value);

          if (g_str_has_prefix (name, "scope:"))
            {
              const char *scope = name + strlen ("scope:");

              if (g_hash_table_contains (in_chain, scope))
                for (guint i = 0; i < json_array_get_length (context->chain); i++)
                  {
                    JsonObject *link = json_array_get_object_element (context->chain, i);

                    if (strcmp (json_object_get_string_member (link, "scope"), scope) == 0)
                      {
                        g_autofree char *both = joined (json_object_get_string_member (link, "text"), text);
                        json_object_set_string_member (link, "text", both);
                      }
                  }
              else
                {
                  JsonObject *link = json_object_new ();

                  json_object_set_string_member (link, "scope", scope);
                  json_object_set_string_member (link, "text", text);
                  json_array_add_object_element (context->chain, link);
                }
            }
          else
            {
              const char *profile = name + strlen ("profile:");
              g_autofree char *both = joined (g_hash_table_lookup (context->profile_texts, profile), text);

              g_hash_table_insert (context->profile_texts, g_strdup (profile), g_steal_pointer (&both));
            }
        }
    }
  if (profiles != NULL)
    {
      json_object_iter_init_ordered (&iter, profiles);
      while (json_object_iter_next_ordered (&iter, &name, &value))
        {
          const char *profile = json_node_get_string (value);

          if (!g_hash_table_contains (context->profile_texts, profile))
            {
              gg_a2g_invalid (error, "profiles.%s: unknown profile", name);
              return NULL;
            }
          g_hash_table_insert (context->assignments, g_strdup (name), g_strdup (profile));
          json_object_set_string_member (hashed_profiles, profile,
                                         g_hash_table_lookup (context->profile_texts, profile));
        }
    }
  /* Extra profile texts count even when nothing is assigned yet: a decide
   * entry may name the profile itself. */
  if (texts != NULL)
    {
      json_object_iter_init_ordered (&iter, texts);
      while (json_object_iter_next_ordered (&iter, &name, &value))
        if (g_str_has_prefix (name, "profile:"))
          json_object_set_string_member (hashed_profiles, name + strlen ("profile:"),
                                         g_hash_table_lookup (context->profile_texts,
                                                              name + strlen ("profile:")));
    }
  json_object_set_array_member (hashed, "chain", json_array_ref (context->chain));
  json_object_set_object_member (hashed, "profiles", json_object_ref (hashed_profiles));
  hashed_node = json_node_init_object (json_node_alloc (), hashed);
  context->hash = gg_a2g_canonical_hash (hashed_node);
  return g_steal_pointer (&context);
}

/**
 * gg_a2g_context_update:
 * @manifest: the session's manifest
 * @current: (nullable): the context so far
 * @request: a /v1/context body
 * @error: %GG_A2G_ERROR_INVALID naming the member
 *
 * Returns: (transfer full): the new context, or %NULL
 */
GgA2gContext *
gg_a2g_context_update (GgA2gManifest *manifest,
                       GgA2gContext  *current,
                       JsonObject    *request,
                       GError       **error)
{
  g_autoptr(JsonObject) state = json_object_new ();
  g_autoptr(JsonObject) profiles = json_object_new ();
  g_autoptr(JsonObject) texts = json_object_new ();
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  if (current != NULL)
    {
      if (json_object_has_member (current->state, "scopes"))
        json_object_set_member (state, "scopes",
                                json_node_copy (json_object_get_member (current->state, "scopes")));
      if (json_object_has_member (current->state, "profiles"))
        {
          json_object_iter_init_ordered (&iter, json_object_get_object_member (current->state, "profiles"));
          while (json_object_iter_next_ordered (&iter, &name, &value))
            json_object_set_member (profiles, name, json_node_copy (value));
        }
      if (json_object_has_member (current->state, "texts"))
        {
          json_object_iter_init_ordered (&iter, json_object_get_object_member (current->state, "texts"));
          while (json_object_iter_next_ordered (&iter, &name, &value))
            json_object_set_member (texts, name, json_node_copy (value));
        }
    }

  value = json_object_get_member (request, "scopes");
  if (value != NULL && !JSON_NODE_HOLDS_NULL (value))
    {
      g_autoptr(JsonArray) scopes = json_array_new ();
      g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
      JsonArray *array;

      if (!JSON_NODE_HOLDS_ARRAY (value))
        {
          gg_a2g_invalid (error, "scopes: must be an array of scope names");
          return NULL;
        }
      array = json_node_get_array (value);
      if (json_array_get_length (array) > 16)
        {
          gg_a2g_invalid (error, "scopes: at most 16 scopes");
          return NULL;
        }
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *item = json_array_get_element (array, i);
          const char *scope = JSON_NODE_HOLDS_VALUE (item) && json_node_get_value_type (item) == G_TYPE_STRING
                              ? json_node_get_string (item) : NULL;

          if (scope == NULL || !g_hash_table_contains (manifest->scopes, scope))
            {
              gg_a2g_invalid (error, "scopes[%u]: not a scope of the manifest", i);
              return NULL;
            }
          if (!g_hash_table_add (seen, (gpointer) scope))
            {
              gg_a2g_invalid (error, "scopes[%u]: duplicate scope", i);
              return NULL;
            }
          json_array_add_string_element (scopes, scope);
        }
      json_object_set_array_member (state, "scopes", g_steal_pointer (&scopes));
    }

  value = json_object_get_member (request, "profiles");
  if (value != NULL && !JSON_NODE_HOLDS_NULL (value))
    {
      if (!JSON_NODE_HOLDS_OBJECT (value))
        {
          gg_a2g_invalid (error, "profiles: must be an object of entity ids to profile names");
          return NULL;
        }
      json_object_iter_init_ordered (&iter, json_node_get_object (value));
      while (json_object_iter_next_ordered (&iter, &name, &value))
        {
          if (!gg_a2g_id_valid (name))
            {
              gg_a2g_invalid (error, "profiles.%s: entity ids must match ^[a-z][a-z0-9_:.-]{0,63}$", name);
              return NULL;
            }
          if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_STRING)
            {
              gg_a2g_invalid (error, "profiles.%s: must be a profile name", name);
              return NULL;
            }
          json_object_set_member (profiles, name, json_node_copy (value));
        }
      if (json_object_get_size (profiles) > 4096)
        {
          gg_a2g_invalid (error, "profiles: at most 4096 assignments");
          return NULL;
        }
    }

  value = json_object_get_member (request, "texts");
  if (value != NULL && !JSON_NODE_HOLDS_NULL (value))
    {
      if (!JSON_NODE_HOLDS_OBJECT (value))
        {
          gg_a2g_invalid (error, "texts: must be an object of scope:NAME or profile:NAME to text");
          return NULL;
        }
      json_object_iter_init_ordered (&iter, json_node_get_object (value));
      while (json_object_iter_next_ordered (&iter, &name, &value))
        {
          const char *colon = strchr (name, ':');

          if (colon == NULL ||
              !(g_str_has_prefix (name, "scope:") || g_str_has_prefix (name, "profile:")) ||
              !gg_a2g_id_valid (colon + 1))
            {
              gg_a2g_invalid (error, "texts.%s: keys are scope:NAME or profile:NAME", name);
              return NULL;
            }
          if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_STRING)
            {
              gg_a2g_invalid (error, "texts.%s: must be a string", name);
              return NULL;
            }
          if (g_utf8_strlen (json_node_get_string (value), -1) > GG_A2G_MAX_TEXT_CHARS)
            {
              gg_a2g_invalid (error, "texts.%s: at most 2000 characters", name);
              return NULL;
            }
          json_object_set_member (texts, name, json_node_copy (value));
        }
      if (json_object_get_size (texts) > GG_A2G_MAX_CONTEXT_TEXTS)
        {
          gg_a2g_invalid (error, "texts: at most 16 texts per session");
          return NULL;
        }
    }
  json_object_set_object_member (state, "profiles", g_steal_pointer (&profiles));
  json_object_set_object_member (state, "texts", g_steal_pointer (&texts));
  return gg_a2g_context_build (manifest, state, error);
}

/** gg_a2g_context_ref: Returns: (transfer full): @context */
GgA2gContext *
gg_a2g_context_ref (GgA2gContext *context)
{
  g_atomic_ref_count_inc (&context->ref);
  return context;
}

/** gg_a2g_context_unref: @context: (transfer full): a context */
void
gg_a2g_context_unref (GgA2gContext *context)
{
  if (!g_atomic_ref_count_dec (&context->ref))
    return;
  g_clear_pointer (&context->state, json_object_unref);
  g_clear_pointer (&context->chain, json_array_unref);
  g_clear_pointer (&context->profile_texts, g_hash_table_unref);
  g_clear_pointer (&context->assignments, g_hash_table_unref);
  g_free (context->hash);
  g_free (context);
}

/** gg_a2g_context_profile_text: Returns: (nullable): the effective text of @profile */
const char *
gg_a2g_context_profile_text (GgA2gContext *context,
                             const char   *profile)
{
  return profile != NULL ? g_hash_table_lookup (context->profile_texts, profile) : NULL;
}
