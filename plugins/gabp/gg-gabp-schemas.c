/* gg-gabp-schemas.c: loads SCHEMA/1.0 of the GABP repository.
 *
 * GgSchema resolves only local references, and the method schemas point at
 * "../common/<name>.json"; those file references are inlined at load time (the
 * schemas are draft-07, where siblings of "$ref" are ignored, so replacing
 * the whole node is exact).
 *
 * Which schemas apply to a message: the envelope always; a request also its
 * method's request schema; a response carrying a result (or any tools/call
 * response) its method's response schema, the method being the one of the
 * request it answers; an event on an attention/ channel also the attention
 * payload schema.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-gabp-schemas.h"

#define MAX_INLINE_DEPTH 8

struct _GgGabpSchemas
{
  GObject parent_instance;

  GgSchema   *envelope;
  GgSchema   *attention_payload;
  GHashTable *requests;   /* method -> GgSchema */
  GHashTable *responses;  /* method -> GgSchema */
};

G_DEFINE_FINAL_TYPE (GgGabpSchemas, gg_gabp_schemas, G_TYPE_OBJECT)

static void
gg_gabp_schemas_finalize (GObject *object)
{
  GgGabpSchemas *self = GG_GABP_SCHEMAS (object);

  g_clear_object (&self->envelope);
  g_clear_object (&self->attention_payload);
  g_clear_pointer (&self->requests, g_hash_table_unref);
  g_clear_pointer (&self->responses, g_hash_table_unref);
  G_OBJECT_CLASS (gg_gabp_schemas_parent_class)->finalize (object);
}

static void
gg_gabp_schemas_class_init (GgGabpSchemasClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_gabp_schemas_finalize;
}

static void
gg_gabp_schemas_init (GgGabpSchemas *self)
{
  self->requests = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->responses = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
}

static JsonNode *load_json_file (const char *path, guint depth, GError **error);

/* Replaces every non-local "$ref" below @node by the file it names. */
static gboolean
inline_refs (JsonNode   *node,
             const char *base_dir,
             guint       depth,
             GError    **error)
{
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (array); i++)
        if (!inline_refs (json_array_get_element (array, i), base_dir, depth, error))
          return FALSE;
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return TRUE;

  JsonObject *object = json_node_get_object (node);
  JsonNode *ref = json_object_get_member (object, "$ref");
  if (ref != NULL && JSON_NODE_HOLDS_VALUE (ref) &&
      json_node_get_value_type (ref) == G_TYPE_STRING &&
      json_node_get_string (ref)[0] != '#')
    {
      const char *target = json_node_get_string (ref);
      g_autofree char *path = NULL;
      g_autoptr(JsonNode) loaded = NULL;

      if (strstr (target, "://") != NULL || g_path_is_absolute (target))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "unsupported schema reference \"%s\"", target);
          return FALSE;
        }
      path = g_build_filename (base_dir, target, NULL);
      loaded = load_json_file (path, depth + 1, error);
      if (loaded == NULL)
        return FALSE;
      if (!JSON_NODE_HOLDS_OBJECT (loaded))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "%s: not a schema object", path);
          return FALSE;
        }
      json_object_remove_member (json_node_get_object (loaded), "$id");
      json_object_remove_member (json_node_get_object (loaded), "$schema");
      json_node_set_object (node, json_node_get_object (loaded));
      return TRUE;
    }

  g_autoptr(GList) members = json_object_get_members (object);
  for (GList *l = members; l != NULL; l = l->next)
    if (!inline_refs (json_object_get_member (object, l->data), base_dir, depth, error))
      return FALSE;
  return TRUE;
}

static JsonNode *
load_json_file (const char *path,
                guint       depth,
                GError    **error)
{
  g_autofree char *contents = NULL;
  g_autofree char *dir = NULL;
  gsize length;
  g_autoptr(JsonNode) node = NULL;

  if (depth > MAX_INLINE_DEPTH)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s: schema references nest too deep", path);
      return NULL;
    }
  if (!g_file_get_contents (path, &contents, &length, error))
    return NULL;
  node = gg_json_parse (contents, (gssize) length, GG_JSON_DEFAULT_MAX_DEPTH, error);
  if (node == NULL)
    {
      g_prefix_error (error, "%s: ", path);
      return NULL;
    }
  dir = g_path_get_dirname (path);
  if (!inline_refs (node, dir, depth, error))
    return NULL;
  return g_steal_pointer (&node);
}

static GgSchema *
load_schema (const char *path,
             GError    **error)
{
  g_autoptr(JsonNode) node = load_json_file (path, 0, error);
  GgSchema *schema;

  if (node == NULL)
    return NULL;
  schema = gg_schema_new (node, error);
  if (schema == NULL)
    g_prefix_error (error, "%s: ", path);
  return schema;
}

/**
 * gg_gabp_schemas_find_dir:
 *
 * Where the schemas are: `$GAMEGATE_GABP_SCHEMA_DIR` (the tests point it at
 * the source tree's data/gabp), else the installed pkgdatadir/gabp.
 *
 * Returns: (transfer full): the directory holding `SCHEMA/1.0`
 */
char *
gg_gabp_schemas_find_dir (void)
{
  const char *env = g_getenv ("GAMEGATE_GABP_SCHEMA_DIR");

  if (env != NULL && env[0] != '\0')
    return g_strdup (env);
  return g_build_filename (GG_PKGDATADIR, "gabp", NULL);
}

/**
 * gg_gabp_schemas_new_from_dir:
 * @dir: a directory holding `SCHEMA/1.0`
 * @error: return location for a #GError
 *
 * Loads and compiles the envelope, every method schema and the attention
 * payload schema.
 *
 * Returns: (transfer full): the schemas, or %NULL
 */
GgGabpSchemas *
gg_gabp_schemas_new_from_dir (const char  *dir,
                              GError     **error)
{
  g_autoptr(GgGabpSchemas) self = g_object_new (GG_TYPE_GABP_SCHEMAS, NULL);
  g_autofree char *root = g_build_filename (dir, "SCHEMA", "1.0", NULL);
  g_autofree char *envelope = g_build_filename (root, "envelope.schema.json", NULL);
  g_autofree char *attention = g_build_filename (root, "events", "attention.payload.schema.json", NULL);
  g_autofree char *methods = g_build_filename (root, "methods", NULL);
  g_autoptr(GDir) listing = NULL;
  const char *name;

  self->envelope = load_schema (envelope, error);
  if (self->envelope == NULL)
    return NULL;
  self->attention_payload = load_schema (attention, error);
  if (self->attention_payload == NULL)
    return NULL;

  listing = g_dir_open (methods, 0, error);
  if (listing == NULL)
    return NULL;
  /* "tools.call.request.json" -> method "tools/call", a request schema. */
  while ((name = g_dir_read_name (listing)) != NULL)
    {
      g_auto(GStrv) parts = g_strsplit (name, ".", -1);
      guint n = g_strv_length (parts);
      g_autofree char *path = NULL;
      g_autoptr(GString) method = NULL;
      GHashTable *table;
      GgSchema *schema;

      if (n < 4 || !g_str_equal (parts[n - 1], "json"))
        continue;
      if (g_str_equal (parts[n - 2], "request"))
        table = self->requests;
      else if (g_str_equal (parts[n - 2], "response"))
        table = self->responses;
      else
        continue;
      method = g_string_new (parts[0]);
      for (guint i = 1; i < n - 2; i++)
        g_string_append_printf (method, "/%s", parts[i]);

      path = g_build_filename (methods, name, NULL);
      schema = load_schema (path, error);
      if (schema == NULL)
        return NULL;
      /* session/welcome is the answer to session/hello. */
      if (table == self->responses && g_str_equal (method->str, "session/welcome"))
        g_hash_table_replace (table, g_strdup ("session/hello"), g_object_ref (schema));
      g_hash_table_replace (table, g_string_free (g_steal_pointer (&method), FALSE), schema);
    }
  if (g_hash_table_size (self->requests) == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "%s: no method schemas", methods);
      return NULL;
    }
  return g_steal_pointer (&self);
}

/* Per thread: gamegate runs on one, but each bridge of the oam C ABI
 * (libgamegate-oam) runs its plugins on a thread of its own, and a
 * process-wide cache would be shared, and freed, across them. The slot
 * outlives the schemas: a bridge frees its plugins before its thread ends. */
static GPrivate shared_schemas = G_PRIVATE_INIT (g_free);

/**
 * gg_gabp_schemas_get_default:
 * @error: return location for a #GError
 *
 * The schemas from gg_gabp_schemas_find_dir(), shared by everyone holding
 * a reference on this thread (loaded again only after the last one is
 * dropped).
 *
 * Returns: (transfer full): the shared schemas, or %NULL
 */
GgGabpSchemas *
gg_gabp_schemas_get_default (GError **error)
{
  GgGabpSchemas **shared = g_private_get (&shared_schemas);
  g_autofree char *dir = NULL;

  if (shared == NULL)
    {
      shared = g_new0 (GgGabpSchemas *, 1);
      g_private_set (&shared_schemas, shared);
    }
  if (*shared != NULL)
    return g_object_ref (*shared);
  dir = gg_gabp_schemas_find_dir ();
  *shared = gg_gabp_schemas_new_from_dir (dir, error);
  if (*shared != NULL)
    g_object_add_weak_pointer (G_OBJECT (*shared), (gpointer *) shared);
  return *shared;
}

static const char *
get_string_member (JsonObject *object,
                   const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static gboolean
validate_with (GgSchema   *schema,
               JsonNode   *instance,
               const char *what,
               GError    **error)
{
  if (gg_schema_validate (schema, instance, error))
    return TRUE;
  g_prefix_error (error, "%s: ", what);
  return FALSE;
}

/**
 * gg_gabp_schemas_validate:
 * @self: the schemas
 * @message: one whole GABP message
 * @request_method: (nullable): for a response, the method of the request it
 *   answers, if known
 * @envelope_ok: (out) (optional): whether the envelope alone was valid
 * @error: return location for a %GG_SCHEMA_ERROR
 *
 * Returns: %TRUE when @message is valid GABP 1.0
 */
gboolean
gg_gabp_schemas_validate (GgGabpSchemas *self,
                          JsonNode      *message,
                          const char    *request_method,
                          gboolean      *envelope_ok,
                          GError       **error)
{
  JsonObject *object;
  const char *type;

  if (envelope_ok != NULL)
    *envelope_ok = FALSE;
  if (!validate_with (self->envelope, message, "envelope", error))
    return FALSE;
  if (envelope_ok != NULL)
    *envelope_ok = TRUE;

  object = json_node_get_object (message);
  type = get_string_member (object, "type");
  if (g_strcmp0 (type, "request") == 0)
    {
      const char *method = get_string_member (object, "method");
      GgSchema *schema = g_hash_table_lookup (self->requests, method);

      if (schema != NULL)
        return validate_with (schema, message, method, error);
    }
  else if (g_strcmp0 (type, "response") == 0 && request_method != NULL)
    {
      GgSchema *schema = g_hash_table_lookup (self->responses, request_method);

      /* Method response schemas describe the success shape; an error
       * response is checked by the envelope (tools/call covers both). */
      if (schema != NULL &&
          (json_object_has_member (object, "result") ||
           g_str_equal (request_method, "tools/call")))
        return validate_with (schema, message, request_method, error);
    }
  else if (g_strcmp0 (type, "event") == 0)
    {
      const char *channel = get_string_member (object, "channel");

      if (channel != NULL && g_str_has_prefix (channel, "attention/"))
        return validate_with (self->attention_payload,
                              json_object_get_member (object, "payload"),
                              channel, error);
    }
  return TRUE;
}

/**
 * gg_gabp_schemas_has_method:
 * @self: the schemas
 * @method: a method name
 *
 * Returns: %TRUE when the schemas define @method's request
 */
gboolean
gg_gabp_schemas_has_method (GgGabpSchemas *self,
                            const char    *method)
{
  return g_hash_table_contains (self->requests, method);
}
