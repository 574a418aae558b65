/* gg-oam-world.c: the world blackboard of oam's world methods.
 *
 * Every change is computed on a copy and swapped in only when it succeeded,
 * so a rejected path or value leaves the world as it was (the methods are
 * atomic). Subscribers then hear one `changed` per changed leaf.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-oam-world.h"

struct _GgOamWorld {
  GObject parent_instance;

  char *id;
  JsonNode *state;      /* always an object */
  gint64 version;
  char *created_at;
};

G_DEFINE_FINAL_TYPE (GgOamWorld, gg_oam_world, G_TYPE_OBJECT)

enum {
  SIGNAL_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
gg_oam_world_finalize (GObject *object)
{
  GgOamWorld *self = GG_OAM_WORLD (object);

  g_free (self->id);
  g_free (self->created_at);
  g_clear_pointer (&self->state, json_node_unref);

  G_OBJECT_CLASS (gg_oam_world_parent_class)->finalize (object);
}

static void
gg_oam_world_class_init (GgOamWorldClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_oam_world_finalize;

  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                  G_TYPE_STRING,
                  JSON_TYPE_NODE | G_SIGNAL_TYPE_STATIC_SCOPE,
                  JSON_TYPE_NODE | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
gg_oam_world_init (GgOamWorld *self)
{
}

/**
 * gg_oam_world_new:
 * @id: the world's id
 * @state: (nullable): the initial state, copied; an empty object when %NULL
 *
 * Returns: (transfer full): a new world at version 0
 */
GgOamWorld *
gg_oam_world_new (const char *id,
                  JsonObject *state)
{
  GgOamWorld *self = g_object_new (GG_TYPE_OAM_WORLD, NULL);
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();

  self->id = g_strdup (id);
  if (state != NULL)
    {
      g_autoptr(JsonNode) wrapper = json_node_init_object (json_node_alloc (), state);
      self->state = gg_json_copy (wrapper);
    }
  else
    {
      g_autoptr(JsonObject) empty = json_object_new ();
      self->state = json_node_init_object (json_node_alloc (), empty);
    }
  self->created_at = g_date_time_format_iso8601 (now);
  return self;
}

const char *
gg_oam_world_get_id (GgOamWorld *self)
{
  g_return_val_if_fail (GG_IS_OAM_WORLD (self), NULL);
  return self->id;
}

/** gg_oam_world_get_version: Returns: how many changes the world has had */
gint64
gg_oam_world_get_version (GgOamWorld *self)
{
  g_return_val_if_fail (GG_IS_OAM_WORLD (self), 0);
  return self->version;
}

/** gg_oam_world_get_created_at: Returns: (transfer none): ISO 8601 creation time */
const char *
gg_oam_world_get_created_at (GgOamWorld *self)
{
  g_return_val_if_fail (GG_IS_OAM_WORLD (self), NULL);
  return self->created_at;
}

/**
 * gg_oam_world_get:
 * @self: a world
 * @path: a dot path, "" for the root
 * @exists: (out) (optional): whether something is stored at @path
 * @error: return location for a #GError (%GG_JSON_ERROR_BAD_PATH)
 *
 * Returns: (transfer full) (nullable): a copy of the value, or %NULL when
 *   absent or on error
 */
JsonNode *
gg_oam_world_get (GgOamWorld  *self,
                  const char  *path,
                  gboolean    *exists,
                  GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (GG_IS_OAM_WORLD (self), NULL);

  if (exists != NULL)
    *exists = FALSE;
  JsonNode *value = gg_json_path_get (self->state, path ? path : "", &local_error);
  if (value == NULL)
    {
      /* Absent is an answer, not an error; a malformed path is an error. */
      if (!g_error_matches (local_error, GG_JSON_ERROR, GG_JSON_ERROR_NOT_FOUND) &&
          !g_error_matches (local_error, GG_JSON_ERROR, GG_JSON_ERROR_NOT_CONTAINER))
        g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  if (exists != NULL)
    *exists = TRUE;
  return gg_json_copy (value);
}

static char *
join_path (const char *prefix,
           const char *key)
{
  return *prefix == '\0' ? g_strdup (key) : g_strconcat (prefix, ".", key, NULL);
}

typedef struct {
  char *path;
  JsonNode *old_value;
  JsonNode *new_value;
} Change;

static void
change_free (gpointer data)
{
  Change *change = data;

  g_free (change->path);
  g_clear_pointer (&change->old_value, json_node_unref);
  g_clear_pointer (&change->new_value, json_node_unref);
  g_free (change);
}

static void
add_change (GPtrArray  *changes,
            const char *path,
            JsonNode   *old_value,
            JsonNode   *new_value)
{
  Change *change = g_new0 (Change, 1);

  change->path = g_strdup (path);
  change->old_value = old_value ? gg_json_copy (old_value) : NULL;
  change->new_value = new_value ? gg_json_copy (new_value) : NULL;
  g_ptr_array_add (changes, change);
}

static gboolean
is_nonempty_object (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) &&
         json_object_get_size (json_node_get_object (node)) > 0;
}

/* Collects the changed leaves between @old_value and @new_value at @path.
 * Objects are walked member by member (an object appearing or vanishing
 * counts leaf by leaf); anything else that differs is one leaf. */
static void
diff_leaves (GPtrArray  *changes,
             const char *path,
             JsonNode   *old_value,
             JsonNode   *new_value)
{
  gboolean old_object = is_nonempty_object (old_value) ||
                        (old_value && JSON_NODE_HOLDS_OBJECT (old_value) && is_nonempty_object (new_value));
  gboolean new_object = is_nonempty_object (new_value) ||
                        (new_value && JSON_NODE_HOLDS_OBJECT (new_value) && is_nonempty_object (old_value));

  if ((old_object || old_value == NULL) && (new_object || new_value == NULL) &&
      (old_object || new_object))
    {
      JsonObject *old_members = old_value ? json_node_get_object (old_value) : NULL;
      JsonObject *new_members = new_value ? json_node_get_object (new_value) : NULL;
      g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

      if (old_members != NULL)
        {
          g_autoptr(GList) keys = json_object_get_members (old_members);
          for (GList *l = keys; l != NULL; l = l->next)
            {
              g_autofree char *child = join_path (path, l->data);
              g_hash_table_add (seen, l->data);
              diff_leaves (changes, child, json_object_get_member (old_members, l->data),
                           new_members ? json_object_get_member (new_members, l->data) : NULL);
            }
        }
      if (new_members != NULL)
        {
          g_autoptr(GList) keys = json_object_get_members (new_members);
          for (GList *l = keys; l != NULL; l = l->next)
            {
              if (g_hash_table_contains (seen, l->data))
                continue;
              g_autofree char *child = join_path (path, l->data);
              diff_leaves (changes, child, NULL, json_object_get_member (new_members, l->data));
            }
        }
      return;
    }

  if (old_value == NULL && new_value == NULL)
    return;
  if (old_value != NULL && new_value != NULL && gg_json_equal (old_value, new_value))
    return;
  add_change (changes, path, old_value, new_value);
}

/* Swaps in @new_state and tells subscribers what changed. */
static void
commit (GgOamWorld *self,
        JsonNode   *new_state)
{
  g_autoptr(GPtrArray) changes = g_ptr_array_new_with_free_func (change_free);
  g_autoptr(JsonNode) old_state = self->state;

  diff_leaves (changes, "", old_state, new_state);
  self->state = json_node_ref (new_state);
  if (changes->len == 0)
    return;

  self->version++;
  g_autoptr(GgOamWorld) keep = g_object_ref (self);
  for (guint i = 0; i < changes->len; i++)
    {
      Change *change = g_ptr_array_index (changes, i);
      g_signal_emit (self, signals[SIGNAL_CHANGED], 0,
                     change->path, change->old_value, change->new_value);
    }
}

static gboolean
check_object_root (JsonNode  *state,
                   GError   **error)
{
  if (JSON_NODE_HOLDS_OBJECT (state))
    return TRUE;
  g_set_error_literal (error, GG_JSON_ERROR, GG_JSON_ERROR_NOT_CONTAINER,
                       "The world's root must stay an object");
  return FALSE;
}

/**
 * gg_oam_world_set:
 * @self: a world
 * @path: a dot path, "" for the root
 * @value: the value to store (copied); JSON null is stored as null
 * @error: return location for a #GError
 *
 * Stores @value, creating missing objects on the way; index n of an
 * n-element array appends. The root can only be replaced by an object.
 *
 * Returns: %TRUE on success; on failure nothing changed
 */
gboolean
gg_oam_world_set (GgOamWorld  *self,
                  const char  *path,
                  JsonNode    *value,
                  GError     **error)
{
  g_return_val_if_fail (GG_IS_OAM_WORLD (self), FALSE);
  g_return_val_if_fail (value != NULL, FALSE);

  g_autoptr(JsonNode) state = gg_json_copy (self->state);
  if (path == NULL || *path == '\0')
    {
      g_clear_pointer (&state, json_node_unref);
      state = gg_json_copy (value);
    }
  else if (!gg_json_path_set (state, path, value, error))
    return FALSE;

  if (!check_object_root (state, error))
    return FALSE;
  commit (self, state);
  return TRUE;
}

/**
 * gg_oam_world_merge:
 * @self: a world
 * @path: where to apply @patch, "" for the root
 * @patch: an RFC 7386 merge patch
 * @error: return location for a #GError
 *
 * Applies @patch to the value at @path (absent counts as nothing).
 *
 * Returns: %TRUE on success; on failure nothing changed
 */
gboolean
gg_oam_world_merge (GgOamWorld  *self,
                    const char  *path,
                    JsonNode    *patch,
                    GError     **error)
{
  g_return_val_if_fail (GG_IS_OAM_WORLD (self), FALSE);
  g_return_val_if_fail (patch != NULL, FALSE);

  g_autoptr(JsonNode) state = NULL;
  if (path == NULL || *path == '\0')
    state = gg_json_merge_patch (self->state, patch);
  else
    {
      gboolean exists = FALSE;
      g_autoptr(JsonNode) current = gg_oam_world_get (self, path, &exists, error);
      if (current == NULL && !exists && error != NULL && *error != NULL)
        return FALSE;
      g_autoptr(JsonNode) merged = gg_json_merge_patch (current, patch);
      state = gg_json_copy (self->state);
      if (!gg_json_path_set (state, path, merged, error))
        return FALSE;
    }

  if (!check_object_root (state, error))
    return FALSE;
  commit (self, state);
  return TRUE;
}

/**
 * gg_oam_world_remove:
 * @self: a world
 * @path: a dot path; the root cannot be removed
 * @old_value: (out) (optional) (transfer full): what was removed
 * @error: return location for a #GError
 *
 * Returns: %TRUE when something was removed, %FALSE when nothing was there
 *   or on error (@error set)
 */
gboolean
gg_oam_world_remove (GgOamWorld  *self,
                     const char  *path,
                     JsonNode   **old_value,
                     GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (GG_IS_OAM_WORLD (self), FALSE);

  if (old_value != NULL)
    *old_value = NULL;
  if (path == NULL || *path == '\0')
    {
      g_set_error_literal (error, GG_JSON_ERROR, GG_JSON_ERROR_BAD_PATH,
                           "The world's root cannot be removed");
      return FALSE;
    }

  g_autoptr(JsonNode) state = gg_json_copy (self->state);
  g_autoptr(JsonNode) removed = gg_json_path_remove (state, path, &local_error);
  if (removed == NULL)
    {
      if (g_error_matches (local_error, GG_JSON_ERROR, GG_JSON_ERROR_NOT_FOUND))
        return FALSE;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  commit (self, state);
  if (old_value != NULL)
    *old_value = g_steal_pointer (&removed);
  return TRUE;
}

/** gg_oam_world_snapshot: Returns: (transfer full): a copy of the whole state */
JsonNode *
gg_oam_world_snapshot (GgOamWorld *self)
{
  g_return_val_if_fail (GG_IS_OAM_WORLD (self), NULL);
  return gg_json_copy (self->state);
}

/**
 * gg_oam_path_is_related:
 * @subscription_path: what a subscriber watches ("" = everything)
 * @changed_path: a changed leaf
 *
 * Returns: %TRUE when @changed_path is at, inside or above @subscription_path
 */
gboolean
gg_oam_path_is_related (const char *subscription_path,
                        const char *changed_path)
{
  gsize sub_len = strlen (subscription_path);
  gsize changed_len = strlen (changed_path);

  if (sub_len == 0 || changed_len == 0)
    return TRUE;
  if (sub_len <= changed_len)
    return strncmp (subscription_path, changed_path, sub_len) == 0 &&
           (changed_path[sub_len] == '\0' || changed_path[sub_len] == '.');
  return strncmp (subscription_path, changed_path, changed_len) == 0 &&
         subscription_path[changed_len] == '.';
}
