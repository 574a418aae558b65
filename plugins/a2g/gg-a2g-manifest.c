/* gg-a2g-manifest.c: checking a manifest against every rule of spec
 * section 3. A refusal names the JSON path and the rule broken
 * (`entity_types.pirate.actions: at most 32 actions`).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "gg-a2g-canonical.h"
#include "gg-a2g-errors.h"
#include "gg-a2g-manifest.h"

#define MAX_TYPES 64
#define MAX_ACTIONS 32
#define MAX_OBSERVATIONS 32
#define MAX_ENUM_VALUES 64

/**
 * gg_a2g_id_valid:
 * @id: (nullable): a string
 *
 * Returns: whether @id matches `^[a-z][a-z0-9_:.-]{0,63}$`
 */
gboolean
gg_a2g_id_valid (const char *id)
{
  gsize n = 0;

  if (id == NULL || !(id[0] >= 'a' && id[0] <= 'z'))
    return FALSE;
  for (const char *p = id; *p != '\0'; p++, n++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
          *p == '_' || *p == ':' || *p == '.' || *p == '-'))
      return FALSE;
  return n <= 64;
}

static void
observation_free (GgA2gObservation *obs)
{
  g_free (obs->id);
  g_strfreev (obs->values);
  g_free (obs);
}

static void
action_free (GgA2gAction *action)
{
  g_free (action->id);
  g_free (action->description);
  g_free (action);
}

static void
entity_type_free (GgA2gEntityType *type)
{
  g_free (type->id);
  g_free (type->description);
  g_ptr_array_unref (type->observations);
  g_ptr_array_unref (type->actions);
  g_free (type);
}

static gboolean
fail (GError    **error,
      const char *path,
      const char *rule)
{
  g_set_error (error, GG_A2G_ERROR, GG_A2G_ERROR_INVALID, "%s: %s", path, rule);
  return FALSE;
}

static gboolean
is_string (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
}

static gboolean
is_number (JsonNode *node)
{
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  return type == G_TYPE_INT64 || type == G_TYPE_DOUBLE;
}

static double
number_of (JsonNode *node)
{
  return json_node_get_value_type (node) == G_TYPE_INT64 ? (double) json_node_get_int (node)
                                                        : json_node_get_double (node);
}

/* An optional string member of at most @max characters. */
static gboolean
get_text (JsonObject  *object,
          const char  *parent,
          const char  *name,
          glong        max,
          char       **out,
          GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);
  g_autofree char *path = *parent != '\0' ? g_strconcat (parent, ".", name, NULL) : g_strdup (name);
  g_autofree char *rule = NULL;

  *out = NULL;
  if (node == NULL)
    return TRUE;
  if (!is_string (node))
    return fail (error, path, "must be a string");
  if (g_utf8_strlen (json_node_get_string (node), -1) > max)
    {
      rule = g_strdup_printf ("at most %ld characters", max);
      return fail (error, path, rule);
    }
  *out = g_strdup (json_node_get_string (node));
  return TRUE;
}

/* An optional integer member in [min, max]. */
static gboolean
get_int (JsonObject *object,
         const char *parent,
         const char *name,
         gint64      min,
         gint64      max,
         gint64      default_value,
         gint64     *out,
         GError    **error)
{
  JsonNode *node = json_object_get_member (object, name);
  g_autofree char *path = g_strconcat (parent, ".", name, NULL);
  g_autofree char *rule = NULL;
  double value;

  *out = default_value;
  if (node == NULL)
    return TRUE;
  if (!is_number (node))
    return fail (error, path, "must be an integer");
  value = number_of (node);
  if (value != floor (value))
    return fail (error, path, "must be an integer");
  if (value < (double) min || value > (double) max)
    {
      rule = g_strdup_printf ("must be between %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT, min, max);
      return fail (error, path, rule);
    }
  *out = (gint64) value;
  return TRUE;
}

static JsonObject *
get_object (JsonObject  *object,
            const char  *parent,
            const char  *name,
            gboolean     required,
            GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);
  g_autofree char *path = *parent != '\0' ? g_strconcat (parent, ".", name, NULL) : g_strdup (name);

  if (node == NULL)
    {
      if (required)
        fail (error, path, "is required");
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      fail (error, path, "must be an object");
      return NULL;
    }
  return json_node_get_object (node);
}

static GgA2gObservation *
parse_observation (const char *path,
                   const char *id,
                   JsonNode   *node,
                   GError    **error)
{
  g_autoptr(GPtrArray) values = NULL;
  JsonObject *object;
  JsonNode *kind_node, *member;
  GgA2gObservation *obs;
  const char *kind;
  gint64 max_length = 64;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      fail (error, path, "must be an object");
      return NULL;
    }
  object = json_node_get_object (node);
  kind_node = json_object_get_member (object, "type");
  if (kind_node == NULL)
    {
      g_autofree char *p = g_strconcat (path, ".type", NULL);
      fail (error, p, "is required");
      return NULL;
    }
  kind = is_string (kind_node) ? json_node_get_string (kind_node) : "";
  obs = g_new0 (GgA2gObservation, 1);
  obs->id = g_strdup (id);
  if (strcmp (kind, "integer") == 0 || strcmp (kind, "number") == 0)
    {
      const char *bounds[] = { "min", "max" };
      double parsed[2];

      obs->kind = kind[0] == 'i' ? GG_A2G_OBS_INTEGER : GG_A2G_OBS_NUMBER;
      for (guint i = 0; i < 2; i++)
        {
          g_autofree char *p = g_strconcat (path, ".", bounds[i], NULL);

          member = json_object_get_member (object, bounds[i]);
          if (member == NULL)
            {
              fail (error, p, "is required for integer and number observations");
              goto error;
            }
          if (!is_number (member))
            {
              fail (error, p, "must be a number");
              goto error;
            }
          parsed[i] = number_of (member);
          if (obs->kind == GG_A2G_OBS_INTEGER && parsed[i] != floor (parsed[i]))
            {
              fail (error, p, "must be an integer");
              goto error;
            }
        }
      obs->min = parsed[0];
      obs->max = parsed[1];
      if (obs->min > obs->max)
        {
          g_autofree char *p = g_strconcat (path, ".max", NULL);
          fail (error, p, "must not be below min");
          goto error;
        }
      member = json_object_get_member (object, "bucket");
      if (member != NULL)
        {
          g_autofree char *p = g_strconcat (path, ".bucket", NULL);

          if (!is_number (member) || !(number_of (member) > 0))
            {
              fail (error, p, "must be a number above 0");
              goto error;
            }
          obs->bucket = number_of (member);
        }
    }
  else if (strcmp (kind, "boolean") == 0)
    obs->kind = GG_A2G_OBS_BOOLEAN;
  else if (strcmp (kind, "enum") == 0)
    {
      g_autofree char *p = g_strconcat (path, ".values", NULL);
      g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
      JsonArray *array;

      obs->kind = GG_A2G_OBS_ENUM;
      member = json_object_get_member (object, "values");
      if (member == NULL)
        {
          fail (error, p, "is required for enum observations");
          goto error;
        }
      if (!JSON_NODE_HOLDS_ARRAY (member))
        {
          fail (error, p, "must be an array of ids");
          goto error;
        }
      array = json_node_get_array (member);
      if (json_array_get_length (array) < 1 || json_array_get_length (array) > MAX_ENUM_VALUES)
        {
          fail (error, p, "1 to 64 values");
          goto error;
        }
      values = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *value = json_array_get_element (array, i);
          g_autofree char *vp = g_strdup_printf ("%s[%u]", p, i);

          if (!is_string (value) || !gg_a2g_id_valid (json_node_get_string (value)))
            {
              fail (error, vp, "must be an id matching ^[a-z][a-z0-9_:.-]{0,63}$");
              goto error;
            }
          if (!g_hash_table_add (seen, (gpointer) json_node_get_string (value)))
            {
              fail (error, vp, "duplicate value");
              goto error;
            }
          g_ptr_array_add (values, g_strdup (json_node_get_string (value)));
        }
      g_ptr_array_add (values, NULL);
      obs->values = (char **) g_ptr_array_free (g_steal_pointer (&values), FALSE);
    }
  else if (strcmp (kind, "string") == 0)
    {
      obs->kind = GG_A2G_OBS_STRING;
      if (!get_int (object, path, "max_length", 1, 256, 64, &max_length, error))
        goto error;
      obs->max_length = (guint) max_length;
    }
  else
    {
      g_autofree char *p = g_strconcat (path, ".type", NULL);
      fail (error, p, "must be integer, number, boolean, enum or string");
      goto error;
    }
  return obs;

error:
  observation_free (obs);
  return NULL;
}

static GgA2gEntityType *
parse_type (const char *path,
            const char *id,
            JsonNode   *node,
            GError    **error)
{
  GgA2gEntityType *type;
  JsonObject *object, *observations, *actions;
  JsonObjectIter iter;
  const char *name, *cache = "game";
  JsonNode *value, *cache_node;
  g_autofree char *obs_path = g_strconcat (path, ".observations", NULL);
  g_autofree char *actions_path = g_strconcat (path, ".actions", NULL);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      fail (error, path, "must be an object");
      return NULL;
    }
  object = json_node_get_object (node);
  type = g_new0 (GgA2gEntityType, 1);
  type->id = g_strdup (id);
  type->observations = g_ptr_array_new_with_free_func ((GDestroyNotify) observation_free);
  type->actions = g_ptr_array_new_with_free_func ((GDestroyNotify) action_free);
  if (!get_text (object, path, "description", GG_A2G_MAX_DESCRIPTION, &type->description, error))
    goto error;

  observations = get_object (object, path, "observations", FALSE, error);
  if (observations == NULL && json_object_has_member (object, "observations"))
    goto error;
  if (observations != NULL && json_object_get_size (observations) > MAX_OBSERVATIONS)
    {
      fail (error, obs_path, "at most 32 observations");
      goto error;
    }
  if (observations != NULL)
    {
      json_object_iter_init_ordered (&iter, observations);
      while (json_object_iter_next_ordered (&iter, &name, &value))
        {
          g_autofree char *p = g_strconcat (obs_path, ".", name, NULL);
          GgA2gObservation *obs;

          if (!gg_a2g_id_valid (name))
            {
              fail (error, p, "observation ids must match ^[a-z][a-z0-9_:.-]{0,63}$");
              goto error;
            }
          obs = parse_observation (p, name, value, error);
          if (obs == NULL)
            goto error;
          g_ptr_array_add (type->observations, obs);
        }
    }

  actions = get_object (object, path, "actions", TRUE, error);
  if (actions == NULL)
    goto error;
  if (json_object_get_size (actions) < 1)
    {
      fail (error, actions_path, "at least 1 action");
      goto error;
    }
  if (json_object_get_size (actions) > MAX_ACTIONS)
    {
      fail (error, actions_path, "at most 32 actions");
      goto error;
    }
  json_object_iter_init_ordered (&iter, actions);
  while (json_object_iter_next_ordered (&iter, &name, &value))
    {
      g_autofree char *p = g_strconcat (actions_path, ".", name, NULL);
      GgA2gAction *action;

      if (!gg_a2g_id_valid (name))
        {
          fail (error, p, "action ids must match ^[a-z][a-z0-9_:.-]{0,63}$");
          goto error;
        }
      if (!JSON_NODE_HOLDS_OBJECT (value))
        {
          fail (error, p, "must be an object");
          goto error;
        }
      action = g_new0 (GgA2gAction, 1);
      action->id = g_strdup (name);
      g_ptr_array_add (type->actions, action);
      if (!get_text (json_node_get_object (value), p, "description", GG_A2G_MAX_DESCRIPTION,
                     &action->description, error))
        goto error;
    }

  cache_node = json_object_get_member (object, "cache");
  if (cache_node != NULL)
    cache = is_string (cache_node) ? json_node_get_string (cache_node) : "";
  if (strcmp (cache, "game") == 0)
    type->cache = GG_A2G_CACHE_GAME;
  else if (strcmp (cache, "session") == 0)
    type->cache = GG_A2G_CACHE_SESSION;
  else if (strcmp (cache, "off") == 0)
    type->cache = GG_A2G_CACHE_OFF;
  else
    {
      g_autofree char *p = g_strconcat (path, ".cache", NULL);
      fail (error, p, "must be game, session or off");
      goto error;
    }
  if (!get_int (object, path, "ttl_ms", 1, 3600000, 2000, &type->ttl_ms, error) ||
      !get_int (object, path, "token_budget", 1, 1000000, 1000, &type->token_budget, error) ||
      !get_int (object, path, "memory", 0, 16, 3, &type->memory, error) ||
      !get_int (object, path, "min_confidence", 0, 100, 0, &type->min_confidence, error))
    goto error;
  return type;

error:
  entity_type_free (type);
  return NULL;
}

/* scopes and profiles: {id: {"text": …}} */
static gboolean
parse_texts (JsonObject  *root,
             const char  *name,
             const char  *what,
             GHashTable **out,
             GError     **error)
{
  JsonObject *object = get_object (root, "", name, FALSE, error);
  JsonObjectIter iter;
  const char *id;
  JsonNode *value;

  *out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (object == NULL)
    return !json_object_has_member (root, name);
  json_object_iter_init_ordered (&iter, object);
  while (json_object_iter_next_ordered (&iter, &id, &value))
    {
      g_autofree char *p = g_strconcat (name, ".", id, NULL);
      g_autofree char *rule = g_strdup_printf ("%s ids must match ^[a-z][a-z0-9_:.-]{0,63}$", what);
      char *text = NULL;

      if (!gg_a2g_id_valid (id))
        return fail (error, p, rule);
      if (!JSON_NODE_HOLDS_OBJECT (value))
        return fail (error, p, "must be an object with a text");
      if (!get_text (json_node_get_object (value), p, "text", GG_A2G_MAX_TEXT_CHARS, &text, error))
        return FALSE;
      g_hash_table_insert (*out, g_strdup (id), text != NULL ? text : g_strdup (""));
    }
  return TRUE;
}

/**
 * gg_a2g_manifest_parse:
 * @node: the manifest as sent
 * @error: %GG_A2G_ERROR_INVALID naming the path and the rule
 *
 * Returns: (transfer full): the manifest with its hash, or %NULL
 */
GgA2gManifest *
gg_a2g_manifest_parse (JsonNode  *node,
                       GError   **error)
{
  g_autoptr(GgA2gManifest) manifest = NULL;
  g_autofree char *hex = NULL;
  JsonObject *root, *types;
  JsonObjectIter iter;
  const char *name;
  JsonNode *value, *game;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      fail (error, "manifest", "must be an object");
      return NULL;
    }
  root = json_node_get_object (node);
  manifest = g_new0 (GgA2gManifest, 1);
  g_atomic_ref_count_init (&manifest->ref);
  manifest->types = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) entity_type_free);
  manifest->canonical = gg_a2g_canonical_json (node);
  if (strlen (manifest->canonical) > GG_A2G_MAX_MANIFEST_BYTES)
    {
      fail (error, "manifest", "at most 65536 bytes of canonical JSON");
      return NULL;
    }
  hex = gg_a2g_sha256_hex (manifest->canonical, -1);
  manifest->hash = g_strconcat ("sha256:", hex, NULL);

  value = json_object_get_member (root, "a2g");
  if (value != NULL && (!is_string (value) || !g_str_has_prefix (json_node_get_string (value), "0.")))
    {
      fail (error, "a2g", "must be a 0.x version string");
      return NULL;
    }
  game = json_object_get_member (root, "game");
  if (game == NULL)
    {
      fail (error, "game", "is required");
      return NULL;
    }
  if (!is_string (game) || !gg_a2g_id_valid (json_node_get_string (game)))
    {
      fail (error, "game", "must match ^[a-z][a-z0-9_:.-]{0,63}$");
      return NULL;
    }
  manifest->game = g_strdup (json_node_get_string (game));
  if (!get_text (root, "", "version", 64, &manifest->version, error) ||
      !get_text (root, "", "world", GG_A2G_MAX_TEXT_CHARS, &manifest->world, error))
    return NULL;

  types = get_object (root, "", "entity_types", TRUE, error);
  if (types == NULL)
    return NULL;
  if (json_object_get_size (types) < 1)
    {
      fail (error, "entity_types", "at least 1 entity type");
      return NULL;
    }
  if (json_object_get_size (types) > MAX_TYPES)
    {
      fail (error, "entity_types", "at most 64 entity types");
      return NULL;
    }
  json_object_iter_init_ordered (&iter, types);
  while (json_object_iter_next_ordered (&iter, &name, &value))
    {
      g_autofree char *p = g_strconcat ("entity_types.", name, NULL);
      GgA2gEntityType *type;

      if (!gg_a2g_id_valid (name))
        {
          fail (error, p, "type ids must match ^[a-z][a-z0-9_:.-]{0,63}$");
          return NULL;
        }
      type = parse_type (p, name, value, error);
      if (type == NULL)
        return NULL;
      g_hash_table_insert (manifest->types, type->id, type);
    }
  if (!parse_texts (root, "scopes", "scope", &manifest->scopes, error) ||
      !parse_texts (root, "profiles", "profile", &manifest->profiles, error))
    return NULL;
  return g_steal_pointer (&manifest);
}

/** gg_a2g_manifest_ref: Returns: (transfer full): @manifest */
GgA2gManifest *
gg_a2g_manifest_ref (GgA2gManifest *manifest)
{
  g_atomic_ref_count_inc (&manifest->ref);
  return manifest;
}

/** gg_a2g_manifest_unref: @manifest: (transfer full): a manifest */
void
gg_a2g_manifest_unref (GgA2gManifest *manifest)
{
  if (!g_atomic_ref_count_dec (&manifest->ref))
    return;
  g_free (manifest->hash);
  g_free (manifest->canonical);
  g_free (manifest->game);
  g_free (manifest->version);
  g_free (manifest->world);
  g_hash_table_unref (manifest->types);
  g_clear_pointer (&manifest->scopes, g_hash_table_unref);
  g_clear_pointer (&manifest->profiles, g_hash_table_unref);
  g_free (manifest);
}

/** gg_a2g_manifest_get_type: Returns: (nullable): the entity type @id */
GgA2gEntityType *
gg_a2g_manifest_get_type (GgA2gManifest *manifest,
                          const char    *id)
{
  return id != NULL ? g_hash_table_lookup (manifest->types, id) : NULL;
}

/** gg_a2g_entity_type_get_observation: Returns: (nullable): observation @id */
GgA2gObservation *
gg_a2g_entity_type_get_observation (GgA2gEntityType *type,
                                    const char      *id)
{
  for (guint i = 0; i < type->observations->len; i++)
    {
      GgA2gObservation *obs = g_ptr_array_index (type->observations, i);
      if (strcmp (obs->id, id) == 0)
        return obs;
    }
  return NULL;
}

/** gg_a2g_entity_type_get_action: Returns: (nullable): action @id */
GgA2gAction *
gg_a2g_entity_type_get_action (GgA2gEntityType *type,
                               const char      *id)
{
  for (guint i = 0; i < type->actions->len; i++)
    {
      GgA2gAction *action = g_ptr_array_index (type->actions, i);
      if (strcmp (action->id, id) == 0)
        return action;
    }
  return NULL;
}
