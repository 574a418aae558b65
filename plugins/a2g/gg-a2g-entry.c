/* gg-a2g-entry.c: a decide entry against the manifest.
 *
 * Checking (spec section 5, step 1): observations typed and within range
 * (unknown keys dropped, strings stripped of control characters and cut
 * to their limit), legal actions a non-empty, duplicate-free subset of the
 * type's actions, deadline_ms 1 to 30,000, a known profile. A refusal is
 * the entry's FALLBACK invalid and names the field.
 *
 * What the rest of the pipeline reads of the manifest and the context is
 * resolved here, once: the type, each legal action, the profile's text.
 *
 * The cache key (step 3) is the SHA-256 of the canonical JSON of the
 * manifest hash, the context hash, the entity's profile text, the type,
 * the quantised observations and the sorted legal actions. The model
 * input made from the entry is gg-a2g-prompt.c's.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gamegate.h>

#include "gg-a2g-canonical.h"
#include "gg-a2g-entry.h"
#include "gg-a2g-errors.h"

/** gg_a2g_entry_free: @entry: (transfer full) (nullable): an entry */
void
gg_a2g_entry_free (GgA2gEntry *entry)
{
  if (entry == NULL)
    return;
  g_free (entry->entity);
  g_free (entry->profile);
  g_clear_pointer (&entry->given, json_object_unref);
  g_clear_pointer (&entry->observations, json_object_unref);
  if (entry->values != NULL)
    for (guint i = 0; i < entry->values->len; i++)
      g_free (g_array_index (entry->values, GgA2gQuantisedValue, i).owned);
  g_clear_pointer (&entry->values, g_array_unref);
  g_clear_pointer (&entry->quantised, json_object_unref);
  g_clear_pointer (&entry->legal_actions, json_array_unref);
  g_clear_pointer (&entry->sorted_actions, json_array_unref);
  g_clear_pointer (&entry->actions, g_ptr_array_unref);
  g_clear_pointer (&entry->sorted_ids, g_ptr_array_unref);
  g_free (entry->situation_key);
  g_free (entry);
}

static gboolean
number_of (JsonNode *node,
           double   *out)
{
  GType type;

  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    *out = (double) json_node_get_int (node);
  else if (type == G_TYPE_DOUBLE)
    *out = json_node_get_double (node);
  else
    return FALSE;
  return isfinite (*out);
}

static char *
clean_string (const char *text,
              guint       max_length)
{
  GString *out = g_string_new (NULL);
  guint n = 0;

  for (const char *p = text; *p != '\0' && n < max_length; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_iscntrl (c))
        continue;
      g_string_append_unichar (out, c);
      n++;
    }
  return g_string_free (out, FALSE);
}

/* Checks @value; sets its cleaned form in @clean and its quantised one in
 * @quantised (either may be NULL: not wanted). A string value of
 * @quantised is borrowed from @value (an enum's) or owned by it. */
static gboolean
check_observation (GgA2gObservation    *obs,
                   JsonNode            *value,
                   JsonObject          *clean,
                   GgA2gQuantisedValue *quantised,
                   GError             **error)
{
  double number;

  switch (obs->kind)
    {
    case GG_A2G_OBS_INTEGER:
    case GG_A2G_OBS_NUMBER:
      if (!number_of (value, &number) || (obs->kind == GG_A2G_OBS_INTEGER && number != floor (number)))
        return gg_a2g_invalid (error, "observations.%s: must be %s", obs->id,
                        obs->kind == GG_A2G_OBS_INTEGER ? "an integer" : "a number");
      if (number < obs->min || number > obs->max)
        {
          g_autoptr(GString) min = g_string_new (NULL);
          g_autoptr(GString) max = g_string_new (NULL);

          gg_a2g_canonical_number (min, obs->min);
          gg_a2g_canonical_number (max, obs->max);
          return gg_a2g_invalid (error, "observations.%s: out of range [%s, %s]", obs->id, min->str, max->str);
        }
      if (clean != NULL && obs->kind == GG_A2G_OBS_INTEGER)
        json_object_set_int_member (clean, obs->id, (gint64) number);
      else if (clean != NULL)
        json_object_set_double_member (clean, obs->id, number);
      if (quantised != NULL && obs->bucket > 0)
        quantised->integer = (gint64) floor ((number - obs->min) / obs->bucket);
      else if (quantised != NULL && obs->kind == GG_A2G_OBS_INTEGER)
        quantised->integer = (gint64) number;
      else if (quantised != NULL)
        {
          quantised->is_double = TRUE;
          quantised->number = number;
        }
      return TRUE;
    case GG_A2G_OBS_BOOLEAN:
      if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_BOOLEAN)
        return gg_a2g_invalid (error, "observations.%s: must be a boolean", obs->id);
      if (clean != NULL)
        json_object_set_boolean_member (clean, obs->id, json_node_get_boolean (value));
      if (quantised != NULL)
        quantised->integer = json_node_get_boolean (value) ? 1 : 0;
      return TRUE;
    case GG_A2G_OBS_ENUM:
      if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_STRING ||
          !g_strv_contains ((const char * const *) obs->values, json_node_get_string (value)))
        return gg_a2g_invalid (error, "observations.%s: must be one of the enum's values", obs->id);
      if (clean != NULL)
        json_object_set_string_member (clean, obs->id, json_node_get_string (value));
      if (quantised != NULL)
        quantised->text = json_node_get_string (value); /* borrowed: the entry holds the observations (given) */
      return TRUE;
    case GG_A2G_OBS_STRING:
      if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_STRING)
        return gg_a2g_invalid (error, "observations.%s: must be a string", obs->id);
      {
        g_autofree char *text = clean_string (json_node_get_string (value), obs->max_length);

        if (clean != NULL)
          json_object_set_string_member (clean, obs->id, text);
        if (quantised != NULL)
          quantised->text = quantised->owned = g_steal_pointer (&text);
      }
      return TRUE;
    }
  return FALSE;
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static int
compare_values (gconstpointer a,
                 gconstpointer b)
{
  return strcmp ((*(GgA2gQuantisedValue * const *) a)->obs->id, (*(GgA2gQuantisedValue * const *) b)->obs->id);
}

/* A quantised value as RFC 8785 writes it (as the JSON tree's form would). */
static void
append_value (GString             *out,
              GgA2gQuantisedValue *value)
{
  if (value->text != NULL)
    gg_json_canonical_append_string (out, value->text);
  else if (value->obs->kind == GG_A2G_OBS_BOOLEAN)
    g_string_append (out, value->integer != 0 ? "true" : "false");
  else if (value->is_double || value->integer > (G_GINT64_CONSTANT (1) << 53) ||
           value->integer < -(G_GINT64_CONSTANT (1) << 53))
    /* Past 2^53 a JSON integer is written as the double it rounds to. */
    gg_a2g_canonical_number (out, value->is_double ? value->number : (double) value->integer);
  else
    g_string_append_printf (out, "%" G_GINT64_FORMAT, value->integer);
}

/* The canonical JSON (RFC 8785) of {manifest, context, profile, type,
 * observations, legal_actions}, written as it comes rather than built as a
 * tree: the members in their canonical order (UTF-16 order of the names;
 * observation ids are ASCII, so byte order), the values as plugin-api's
 * canonical writer writes them. Replicas share cache entries and
 * /v1/policy exports these keys: test-a2g-situation-key pins them to the
 * tree's form. */
static char *
situation_key (GgA2gEntry    *entry,
               GgA2gManifest *manifest,
               GgA2gContext  *context)
{
  g_autoptr(GString) text = g_string_sized_new (512);
  /* At most 32 (the manifest's MAX_OBSERVATIONS): on the stack. */
  GgA2gQuantisedValue **by_id = g_newa (GgA2gQuantisedValue *, MAX (entry->values->len, 1));

  g_string_append (text, "{\"context\":");
  gg_json_canonical_append_string (text, context->hash);
  g_string_append (text, ",\"legal_actions\":[");
  for (guint i = 0; i < entry->sorted_ids->len; i++)
    {
      if (i > 0)
        g_string_append_c (text, ',');
      gg_json_canonical_append_string (text, g_ptr_array_index (entry->sorted_ids, i));
    }
  g_string_append (text, "],\"manifest\":");
  gg_json_canonical_append_string (text, manifest->hash);
  g_string_append (text, ",\"observations\":{");
  for (guint i = 0; i < entry->values->len; i++)
    by_id[i] = &g_array_index (entry->values, GgA2gQuantisedValue, i);
  qsort (by_id, entry->values->len, sizeof *by_id, compare_values);
  for (guint i = 0; i < entry->values->len; i++)
    {
      if (i > 0)
        g_string_append_c (text, ',');
      gg_json_canonical_append_string (text, by_id[i]->obs->id);
      g_string_append_c (text, ':');
      append_value (text, by_id[i]);
    }
  g_string_append (text, "},\"profile\":");
  if (entry->profile_text != NULL)
    gg_json_canonical_append_string (text, entry->profile_text);
  else
    g_string_append (text, "null");
  g_string_append (text, ",\"type\":");
  gg_json_canonical_append_string (text, entry->type->id);
  g_string_append_c (text, '}');
  return gg_a2g_sha256_hex (text->str, (gssize) text->len);
}

/**
 * gg_a2g_entry_parse:
 * @manifest: the session's manifest
 * @context: the session's context
 * @object: one `entities[i]` of a decide body
 * @default_deadline_ms: [a2g] default-deadline-ms
 * @error: %GG_A2G_ERROR_INVALID naming the field
 *
 * The entity id and a known type are checked by the caller (400 otherwise).
 *
 * Returns: (transfer full): the checked entry, or %NULL
 */
GgA2gEntry *
gg_a2g_entry_parse (GgA2gManifest *manifest,
                    GgA2gContext  *context,
                    JsonObject    *object,
                    gint64         default_deadline_ms,
                    GError       **error)
{
  g_autoptr(GgA2gEntry) entry = g_new0 (GgA2gEntry, 1);
  JsonNode *observations = json_object_get_member (object, "observations");
  JsonNode *actions = json_object_get_member (object, "legal_actions");
  JsonNode *deadline = json_object_get_member (object, "deadline_ms");
  JsonNode *profile = json_object_get_member (object, "profile");
  JsonNode *entity = json_object_get_member (object, "entity");
  JsonNode *type = json_object_get_member (object, "type");
  JsonArray *array;

  /* /v1/decide refuses the whole request for these; an entry checks them
   * again so that it stands on its own (the fuzz target calls it alone). */
  if (entity == NULL || json_node_get_value_type (entity) != G_TYPE_STRING ||
      !gg_a2g_id_valid (json_node_get_string (entity)))
    {
      gg_a2g_invalid (error, "entity: must match ^[a-z][a-z0-9_:.-]{0,63}$");
      return NULL;
    }
  entry->type = type != NULL && json_node_get_value_type (type) == G_TYPE_STRING ?
                gg_a2g_manifest_get_type (manifest, json_node_get_string (type)) : NULL;
  if (entry->type == NULL)
    {
      gg_a2g_invalid (error, "type: not an entity type of the manifest");
      return NULL;
    }
  entry->entity = g_strdup (json_node_get_string (entity));
  entry->values = g_array_sized_new (FALSE, TRUE, sizeof (GgA2gQuantisedValue), entry->type->observations->len);
  entry->actions = g_ptr_array_new ();
  entry->sorted_ids = g_ptr_array_new ();

  if (observations != NULL && !JSON_NODE_HOLDS_NULL (observations))
    {
      JsonObject *given;

      if (!JSON_NODE_HOLDS_OBJECT (observations))
        {
          gg_a2g_invalid (error, "observations: must be an object");
          return NULL;
        }
      given = json_node_get_object (observations);
      /* Manifest order; keys the manifest does not know are dropped. The
       * cleaned observations are made for a prompt only (a cache hit
       * needs the quantised ones alone). */
      entry->given = json_object_ref (given);
      for (guint i = 0; i < entry->type->observations->len; i++)
        {
          GgA2gObservation *obs = g_ptr_array_index (entry->type->observations, i);
          JsonNode *value = json_object_get_member (given, obs->id);
          GgA2gQuantisedValue quantised = { .obs = obs };

          if (value == NULL)
            continue;
          if (!check_observation (obs, value, NULL, &quantised, error))
            return NULL;
          g_array_append_val (entry->values, quantised);
        }
    }

  if (actions == NULL || !JSON_NODE_HOLDS_ARRAY (actions) || json_array_get_length (json_node_get_array (actions)) == 0)
    {
      gg_a2g_invalid (error, "legal_actions: must be a non-empty array of action ids");
      return NULL;
    }
  array = json_node_get_array (actions);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      const char *id = JSON_NODE_HOLDS_VALUE (item) && json_node_get_value_type (item) == G_TYPE_STRING ?
                       json_node_get_string (item) : NULL;

      GgA2gAction *action = id != NULL ? gg_a2g_entity_type_get_action (entry->type, id) : NULL;

      if (action == NULL)
        {
          gg_a2g_invalid (error, "legal_actions[%u]: not an action of type %s", i, entry->type->id);
          return NULL;
        }
      /* A handful of actions: a scan beats a hash table. */
      for (guint j = 0; j < entry->sorted_ids->len; j++)
        if (strcmp (g_ptr_array_index (entry->sorted_ids, j), id) == 0)
          {
            gg_a2g_invalid (error, "legal_actions[%u]: duplicate action", i);
            return NULL;
          }
      g_ptr_array_add (entry->actions, action);
      g_ptr_array_add (entry->sorted_ids, action->id);
    }
  g_ptr_array_sort (entry->sorted_ids, compare_strings);

  entry->deadline_ms = default_deadline_ms;
  if (deadline != NULL && !JSON_NODE_HOLDS_NULL (deadline))
    {
      double value;

      if (!number_of (deadline, &value) || value != floor (value) || value < 1 || value > 30000)
        {
          gg_a2g_invalid (error, "deadline_ms: must be an integer from 1 to 30000");
          return NULL;
        }
      entry->deadline_ms = (gint64) value;
    }

  if (profile != NULL && !JSON_NODE_HOLDS_NULL (profile))
    {
      if (JSON_NODE_HOLDS_VALUE (profile) && json_node_get_value_type (profile) == G_TYPE_STRING)
        entry->profile = g_strdup (json_node_get_string (profile));
      if (entry->profile == NULL || gg_a2g_context_profile_text (context, entry->profile) == NULL)
        {
          gg_a2g_invalid (error, "profile: not a profile of the manifest or the context");
          return NULL;
        }
    }
  else
    entry->profile = g_strdup (g_hash_table_lookup (context->assignments, entry->entity));
  entry->profile_text = gg_a2g_context_profile_text (context, entry->profile);

  entry->situation_key = situation_key (entry, manifest, context);
  return g_steal_pointer (&entry);
}

/**
 * gg_a2g_entry_get_observations:
 * @entry: an entry
 *
 * Returns: (transfer none): the checked and cleaned observations, in
 *   manifest order (made when first asked for: a cache hit needs only the
 *   quantised ones)
 */
JsonObject *
gg_a2g_entry_get_observations (GgA2gEntry *entry)
{
  if (entry->observations != NULL)
    return entry->observations;
  entry->observations = json_object_new ();
  for (guint i = 0; entry->given != NULL && i < entry->type->observations->len; i++)
    {
      GgA2gObservation *obs = g_ptr_array_index (entry->type->observations, i);
      JsonNode *value = json_object_get_member (entry->given, obs->id);

      /* Checked when the entry was parsed: this cannot fail. */
      if (value != NULL)
        check_observation (obs, value, entry->observations, NULL, NULL);
    }
  return entry->observations;
}

/**
 * gg_a2g_entry_get_quantised:
 * @entry: an entry
 *
 * Returns: (transfer none): the quantised observations as the cache key
 *   sees them, in manifest order (made when first asked for: a cache
 *   entry's situation)
 */
JsonObject *
gg_a2g_entry_get_quantised (GgA2gEntry *entry)
{
  if (entry->quantised != NULL)
    return entry->quantised;
  entry->quantised = json_object_new ();
  for (guint i = 0; i < entry->values->len; i++)
    {
      GgA2gQuantisedValue *value = &g_array_index (entry->values, GgA2gQuantisedValue, i);

      if (value->text != NULL)
        json_object_set_string_member (entry->quantised, value->obs->id, value->text);
      else if (value->obs->kind == GG_A2G_OBS_BOOLEAN)
        json_object_set_boolean_member (entry->quantised, value->obs->id, value->integer != 0);
      else if (value->is_double)
        json_object_set_double_member (entry->quantised, value->obs->id, value->number);
      else
        json_object_set_int_member (entry->quantised, value->obs->id, value->integer);
    }
  return entry->quantised;
}

static JsonArray *
ids_array (GPtrArray *ids,
           gboolean   of_actions)
{
  JsonArray *array = json_array_sized_new (ids->len);

  for (guint i = 0; i < ids->len; i++)
    json_array_add_string_element (array, of_actions ? ((GgA2gAction *) g_ptr_array_index (ids, i))->id :
                                                       (const char *) g_ptr_array_index (ids, i));
  return array;
}

/**
 * gg_a2g_entry_get_legal_actions:
 * @entry: an entry
 *
 * Returns: (transfer none): the legal action ids in request order (made
 *   when first asked for: a model call's options)
 */
JsonArray *
gg_a2g_entry_get_legal_actions (GgA2gEntry *entry)
{
  if (entry->legal_actions == NULL)
    entry->legal_actions = ids_array (entry->actions, TRUE);
  return entry->legal_actions;
}

/**
 * gg_a2g_entry_get_sorted_actions:
 * @entry: an entry
 *
 * Returns: (transfer none): the legal action ids sorted (made when first
 *   asked for: a cache entry's)
 */
JsonArray *
gg_a2g_entry_get_sorted_actions (GgA2gEntry *entry)
{
  if (entry->sorted_actions == NULL)
    entry->sorted_actions = ids_array (entry->sorted_ids, FALSE);
  return entry->sorted_actions;
}

/**
 * gg_a2g_entry_cache_key:
 * @entry: an entry
 * @session_id: (nullable): the session's id for a session cache, %NULL
 *   for the game-wide one
 *
 * Returns: (transfer full): the store's cache key
 */
char *
gg_a2g_entry_cache_key (GgA2gEntry *entry,
                        const char *session_id)
{
  if (session_id != NULL)
    return g_strconcat ("session:", session_id, ":", entry->situation_key, NULL);
  return g_strconcat ("game:", entry->situation_key, NULL);
}
