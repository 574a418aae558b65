/* gb-manifest.c: the tolerant parser of a game's GET /tools manifest.
 *
 * Manifests come out of every kind of serializer, so the parser accepts each
 * form spec section 1 lists: toolsets as an array or a map name -> toolset;
 * arguments in `args`, `arguments` or `params`, as an array of objects, an
 * array of plain names, or a map name -> {type, description}; a tool's own
 * `inputSchema` passed through; `command` defaulting to the tool's name.
 * String defaults are folded into the description and never emitted as
 * `default`. A malformed tool is dropped, never fatal.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-errors.h"
#include "gb-manifest.h"

#define MAX_TOOLSETS      256
#define MAX_TOOLS         2048
#define MAX_ARGS          128
#define MAX_NAME_LEN      128
#define MAX_TEXT_LEN      4096
#define MAX_FILE_SIZE     (4 * 1024 * 1024)

typedef struct {
  GbManifest m;
  gatomicrefcount ref;
  guint n_tools;
} Manifest;

void
gb_tool_free (GbTool *tool)
{
  g_free (tool->name);
  g_free (tool->description);
  g_free (tool->command);
  g_free (tool->toolset);
  g_clear_pointer (&tool->input_schema, json_object_unref);
  g_clear_object (&tool->compiled);
  g_free (tool);
}

void
gb_toolset_free (GbToolset *toolset)
{
  g_free (toolset->name);
  g_free (toolset->description);
  g_ptr_array_unref (toolset->tools);
  g_free (toolset);
}

static GbToolset *
toolset_new (const char *name,
             const char *description)
{
  GbToolset *toolset = g_new0 (GbToolset, 1);

  toolset->name = g_strdup (name);
  toolset->description = g_strdup (description != NULL ? description : "");
  toolset->tools = g_ptr_array_new_with_free_func ((GDestroyNotify) gb_tool_free);
  return toolset;
}

/* A name an agent can type and a query can carry: printable, short. */
static gboolean
name_ok (const char *name)
{
  gsize len;

  if (name == NULL)
    return FALSE;
  len = strlen (name);
  if (len == 0 || len > MAX_NAME_LEN || !g_utf8_validate (name, -1, NULL))
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      return FALSE;
  return TRUE;
}

static const char *
member_string (JsonObject *object,
               const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static char *
clip_text (const char *text)
{
  if (text == NULL)
    return g_strdup ("");
  if (strlen (text) <= MAX_TEXT_LEN)
    return g_strdup (text);
  return g_utf8_substring (text, 0, MAX_TEXT_LEN / 4);
}

/* The default as text for the description, or NULL (null = no default). */
static char *
default_text (JsonNode *node)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return clip_text (json_node_get_string (node));
  return gg_json_to_string (node);
}

static const char * const known_types[] = {
  "string", "number", "integer", "boolean", "object", "array", NULL
};

/* One argument into @properties (and @required). FALSE = malformed. */
static gboolean
add_argument (JsonObject *properties,
              JsonArray  *required,
              const char *name,
              JsonObject *spec)
{
  g_autoptr(JsonObject) prop = json_object_new ();
  g_autofree char *def = NULL;
  GString *description;
  const char *type = NULL;
  JsonNode *req;

  if (!name_ok (name) || json_object_has_member (properties, name))
    return FALSE;
  if (spec != NULL)
    {
      type = member_string (spec, "type");
      if (type != NULL && g_strv_contains (known_types, type))
        json_object_set_string_member (prop, "type", type);
      description = g_string_new (member_string (spec, "description"));
      def = default_text (json_object_get_member (spec, "default"));
      if (def != NULL)
        g_string_append_printf (description, "%s(default %s)", description->len > 0 ? " " : "", def);
      if (description->len > 0)
        {
          g_autofree char *clipped = clip_text (description->str);

          json_object_set_string_member (prop, "description", clipped);
        }
      g_string_free (description, TRUE);
      req = json_object_get_member (spec, "required");
      if (req != NULL && JSON_NODE_HOLDS_VALUE (req) &&
          json_node_get_value_type (req) == G_TYPE_BOOLEAN && json_node_get_boolean (req))
        json_array_add_string_element (required, name);
    }
  json_object_set_object_member (properties, name, g_steal_pointer (&prop));
  return TRUE;
}

static JsonObject *
schema_from_args (JsonNode *args)
{
  g_autoptr(JsonObject) schema = json_object_new ();
  JsonObject *properties = json_object_new ();
  JsonArray *required = json_array_new ();

  json_object_set_string_member (schema, "type", "object");
  json_object_set_object_member (schema, "properties", properties);
  if (args == NULL || JSON_NODE_HOLDS_NULL (args))
    ;
  else if (JSON_NODE_HOLDS_ARRAY (args))
    {
      JsonArray *array = json_node_get_array (args);

      if (json_array_get_length (array) > MAX_ARGS)
        goto bad;
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *a = json_array_get_element (array, i);

          if (JSON_NODE_HOLDS_VALUE (a) && json_node_get_value_type (a) == G_TYPE_STRING)
            {
              if (!add_argument (properties, required, json_node_get_string (a), NULL))
                goto bad;
            }
          else if (JSON_NODE_HOLDS_OBJECT (a))
            {
              JsonObject *o = json_node_get_object (a);

              if (!add_argument (properties, required, member_string (o, "name"), o))
                goto bad;
            }
          else
            goto bad;
        }
    }
  else if (JSON_NODE_HOLDS_OBJECT (args))
    {
      JsonObject *map = json_node_get_object (args);
      g_autoptr(GList) names = json_object_get_members (map);

      if (json_object_get_size (map) > MAX_ARGS)
        goto bad;
      for (GList *l = names; l != NULL; l = l->next)
        {
          JsonNode *spec = json_object_get_member (map, l->data);

          if (!add_argument (properties, required, l->data,
                             JSON_NODE_HOLDS_OBJECT (spec) ? json_node_get_object (spec) : NULL))
            goto bad;
        }
    }
  else
    goto bad;

  if (json_array_get_length (required) > 0)
    json_object_set_array_member (schema, "required", required);
  else
    json_array_unref (required);
  return g_steal_pointer (&schema);

bad:
  json_array_unref (required);
  return NULL;
}

static GbTool *
parse_tool (JsonNode   *node,
            const char *toolset)
{
  JsonObject *o;
  const char *name, *command;
  JsonNode *schema, *args = NULL;
  g_autoptr(JsonObject) input_schema = NULL;
  GbTool *tool;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  o = json_node_get_object (node);
  name = member_string (o, "name");
  if (!name_ok (name))
    return NULL;
  command = json_object_has_member (o, "command") ? member_string (o, "command") : name;
  if (!name_ok (command))
    return NULL;
  schema = json_object_get_member (o, "inputSchema");
  if (schema != NULL && !JSON_NODE_HOLDS_NULL (schema))
    {
      g_autoptr(JsonNode) copy = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (schema))
        return NULL;
      copy = gg_json_copy (schema);
      input_schema = json_object_ref (json_node_get_object (copy));
    }
  else
    {
      const char *keys[] = { "args", "arguments", "params" };

      for (guint i = 0; i < G_N_ELEMENTS (keys) && args == NULL; i++)
        args = json_object_get_member (o, keys[i]);
      input_schema = schema_from_args (args);
      if (input_schema == NULL)
        return NULL;
    }
  tool = g_new0 (GbTool, 1);
  tool->name = g_strdup (name);
  tool->description = clip_text (member_string (o, "description"));
  tool->command = g_strdup (command);
  tool->toolset = g_strdup (toolset);
  tool->input_schema = g_steal_pointer (&input_schema);
  return tool;
}

/* Tool names are unique across the manifest, the toolset being parsed included. */
static gboolean
tool_taken (Manifest   *self,
            GbToolset  *current,
            const char *name)
{
  if (gb_manifest_find_tool (&self->m, name) != NULL)
    return TRUE;
  for (guint i = 0; i < current->tools->len; i++)
    if (g_str_equal (((GbTool *) g_ptr_array_index (current->tools, i))->name, name))
      return TRUE;
  return FALSE;
}

static void
parse_toolset (Manifest   *self,
               const char *name,
               JsonNode   *node)
{
  JsonObject *o;
  JsonNode *tools;
  GbToolset *toolset;

  if (!name_ok (name) || !JSON_NODE_HOLDS_OBJECT (node) ||
      self->m.toolsets->len >= MAX_TOOLSETS ||
      gb_manifest_find_toolset (&self->m, name) != NULL || g_str_equal (name, "bridge") ||
      g_str_equal (name, "passthrough"))
    {
      self->m.dropped++;
      return;
    }
  o = json_node_get_object (node);
  toolset = toolset_new (name, member_string (o, "description"));
  tools = json_object_get_member (o, "tools");
  if (tools != NULL && JSON_NODE_HOLDS_ARRAY (tools))
    {
      JsonArray *array = json_node_get_array (tools);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          GbTool *tool = self->n_tools < MAX_TOOLS ? parse_tool (json_array_get_element (array, i), name) : NULL;

          /* The first tool of a name wins; a duplicate is malformed. */
          if (tool == NULL || tool_taken (self, toolset, tool->name))
            {
              g_clear_pointer (&tool, gb_tool_free);
              self->m.dropped++;
              continue;
            }
          g_ptr_array_add (toolset->tools, tool);
          self->n_tools++;
        }
    }
  else if (tools != NULL && JSON_NODE_HOLDS_OBJECT (tools))
    {
      /* tools as a map name -> tool: the name comes from the key. */
      JsonObject *map = json_node_get_object (tools);
      g_autoptr(GList) names = json_object_get_members (map);

      for (GList *l = names; l != NULL; l = l->next)
        {
          JsonNode *t = json_object_get_member (map, l->data);
          GbTool *tool = NULL;

          if (JSON_NODE_HOLDS_OBJECT (t) && self->n_tools < MAX_TOOLS)
            {
              g_autoptr(JsonNode) copy = gg_json_copy (t);

              if (!json_object_has_member (json_node_get_object (copy), "name"))
                json_object_set_string_member (json_node_get_object (copy), "name", l->data);
              tool = parse_tool (copy, name);
            }
          if (tool == NULL || tool_taken (self, toolset, tool->name))
            {
              g_clear_pointer (&tool, gb_tool_free);
              self->m.dropped++;
              continue;
            }
          g_ptr_array_add (toolset->tools, tool);
          self->n_tools++;
        }
    }
  g_ptr_array_add (self->m.toolsets, toolset);
}

static Manifest *
manifest_new (const char *source)
{
  Manifest *self = g_new0 (Manifest, 1);

  g_atomic_ref_count_init (&self->ref);
  self->m.source = g_strdup (source);
  self->m.protocol = -1;
  self->m.screenshot = -1;
  self->m.toolsets = g_ptr_array_new_with_free_func ((GDestroyNotify) gb_toolset_free);
  return self;
}

/**
 * gb_manifest_parse:
 * @root: the parsed GET /tools body
 * @source: "game" or "file"
 * @error: set when @root is not an object
 *
 * Returns: (transfer full): the manifest; malformed parts are dropped and counted
 */
GbManifest *
gb_manifest_parse (JsonNode    *root,
                   const char  *source,
                   GError     **error)
{
  Manifest *self;
  JsonObject *o, *game;
  JsonNode *toolsets, *passthrough, *screenshot;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, GB_ERROR, GB_ERROR_USAGE, "the manifest is not a JSON object");
      return NULL;
    }
  o = json_node_get_object (root);
  self = manifest_new (source);
  if (json_object_has_member (o, "game") && JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "game")))
    {
      JsonNode *protocol;

      game = json_object_get_object_member (o, "game");
      if (name_ok (member_string (game, "name")))
        self->m.game_name = g_strdup (member_string (game, "name"));
      if (name_ok (member_string (game, "version")))
        self->m.game_version = g_strdup (member_string (game, "version"));
      protocol = json_object_get_member (game, "protocol");
      if (protocol != NULL && JSON_NODE_HOLDS_VALUE (protocol) &&
          json_node_get_value_type (protocol) == G_TYPE_INT64)
        self->m.protocol = json_node_get_int (protocol);
    }

  toolsets = json_object_get_member (o, "toolsets");
  if (toolsets != NULL && JSON_NODE_HOLDS_ARRAY (toolsets))
    {
      JsonArray *array = json_node_get_array (toolsets);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *t = json_array_get_element (array, i);

          parse_toolset (self, JSON_NODE_HOLDS_OBJECT (t) ? member_string (json_node_get_object (t), "name") : NULL, t);
        }
    }
  else if (toolsets != NULL && JSON_NODE_HOLDS_OBJECT (toolsets))
    {
      JsonObject *map = json_node_get_object (toolsets);
      g_autoptr(GList) names = json_object_get_members (map);

      for (GList *l = names; l != NULL; l = l->next)
        parse_toolset (self, l->data, json_object_get_member (map, l->data));
    }
  else if (toolsets != NULL)
    self->m.dropped++;

  /* gamegate's extension: an object (or true) when GET /screenshot is served. */
  screenshot = json_object_get_member (o, "screenshot");
  if (screenshot != NULL && JSON_NODE_HOLDS_OBJECT (screenshot))
    self->m.screenshot = 1;
  else if (screenshot != NULL && JSON_NODE_HOLDS_VALUE (screenshot) &&
           json_node_get_value_type (screenshot) == G_TYPE_BOOLEAN)
    self->m.screenshot = json_node_get_boolean (screenshot) ? 1 : 0;

  passthrough = json_object_get_member (o, "passthrough");
  if (passthrough != NULL && JSON_NODE_HOLDS_OBJECT (passthrough))
    {
      JsonObject *p = json_node_get_object (passthrough);
      JsonNode *examples = json_object_get_member (p, "examples");

      self->m.passthrough_description = clip_text (member_string (p, "description"));
      if (examples != NULL && JSON_NODE_HOLDS_ARRAY (examples))
        {
          JsonArray *array = json_node_get_array (examples);

          self->m.passthrough_examples = json_array_new ();
          for (guint i = 0; i < json_array_get_length (array) && i < 64; i++)
            {
              JsonNode *e = json_array_get_element (array, i);

              if (JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_STRING)
                {
                  g_autofree char *text = clip_text (json_node_get_string (e));

                  json_array_add_string_element (self->m.passthrough_examples, text);
                }
            }
        }
    }
  return &self->m;
}

/**
 * gb_manifest_new_fallback:
 *
 * Returns: (transfer full): the manifest of a game that publishes none: no
 *   game toolsets, only the contract-level tools (the bridge toolset)
 */
GbManifest *
gb_manifest_new_fallback (void)
{
  Manifest *self = manifest_new ("fallback");

  self->m.passthrough_description =
    g_strdup ("This game publishes no command list (GET /tools answered 404): work through "
              "raw_command and read the state with get_state.");
  return &self->m;
}

/**
 * gb_manifest_load_file:
 * @path: a manifest file (`--manifest`)
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the manifest, source "file"
 */
GbManifest *
gb_manifest_load_file (const char  *path,
                       GError     **error)
{
  g_autofree char *data = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) local = NULL;
  gsize len;

  if (!g_file_get_contents (path, &data, &len, &local))
    {
      gb_error_usage (error, "Cannot read the manifest %s: %s", path, local->message);
      return NULL;
    }
  if (len > MAX_FILE_SIZE)
    {
      gb_error_usage (error, "The manifest %s is larger than %d bytes", path, MAX_FILE_SIZE);
      return NULL;
    }
  root = gg_json_parse (data, (gssize) len, GG_JSON_DEFAULT_MAX_DEPTH, &local);
  if (root == NULL)
    {
      gb_error_usage (error, "The manifest %s is not valid JSON: %s", path, local->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      gb_error_usage (error, "The manifest %s is not a JSON object", path);
      return NULL;
    }
  return gb_manifest_parse (root, "file", error);
}

GbManifest *
gb_manifest_ref (GbManifest *self)
{
  g_atomic_ref_count_inc (&((Manifest *) self)->ref);
  return self;
}

void
gb_manifest_unref (GbManifest *self)
{
  Manifest *m = (Manifest *) self;

  if (!g_atomic_ref_count_dec (&m->ref))
    return;
  g_free (self->source);
  g_free (self->game_name);
  g_free (self->game_version);
  g_ptr_array_unref (self->toolsets);
  g_free (self->passthrough_description);
  g_clear_pointer (&self->passthrough_examples, json_array_unref);
  g_free (m);
}

GbTool *
gb_manifest_find_tool (GbManifest *self,
                       const char *name)
{
  for (guint i = 0; i < self->toolsets->len; i++)
    {
      GbToolset *toolset = g_ptr_array_index (self->toolsets, i);

      for (guint j = 0; j < toolset->tools->len; j++)
        {
          GbTool *tool = g_ptr_array_index (toolset->tools, j);

          if (g_str_equal (tool->name, name))
            return tool;
        }
    }
  return NULL;
}

const GbToolset *
gb_manifest_find_toolset (GbManifest *self,
                          const char *name)
{
  for (guint i = 0; i < self->toolsets->len; i++)
    {
      GbToolset *toolset = g_ptr_array_index (self->toolsets, i);

      if (g_str_equal (toolset->name, name))
        return toolset;
    }
  return NULL;
}

JsonArray *
gb_manifest_toolset_names (GbManifest *self)
{
  JsonArray *names = json_array_new ();

  for (guint i = 0; i < self->toolsets->len; i++)
    json_array_add_string_element (names, ((GbToolset *) g_ptr_array_index (self->toolsets, i))->name);
  return names;
}

/**
 * gb_tool_to_json:
 * @tool: a tool
 *
 * Returns: (transfer full): `{"name","description","inputSchema"}` (an MCP Tool)
 */
JsonObject *
gb_tool_to_json (const GbTool *tool)
{
  JsonObject *o = json_object_new ();
  g_autoptr(JsonNode) schema = json_node_init_object (json_node_alloc (), tool->input_schema);

  json_object_set_string_member (o, "name", tool->name);
  json_object_set_string_member (o, "description", tool->description);
  json_object_set_member (o, "inputSchema", gg_json_copy (schema));
  return o;
}

static gboolean
check_compiled (GgSchema    *compiled,
                JsonObject  *arguments,
                const char  *tool,
                GError     **error)
{
  g_autoptr(JsonNode) instance = json_node_init_object (json_node_alloc (), arguments);
  g_autoptr(GError) local = NULL;

  if (compiled == NULL || gg_schema_validate (compiled, instance, &local))
    return TRUE;
  /* The validator's message already starts with the path it failed at
   * ("#/port: must be integer"), so it is named once. */
  gb_error_usage (error, "Bad arguments for '%s' at %s", tool, local->message);
  return FALSE;
}

static GgSchema *
compile (JsonObject *schema)
{
  g_autoptr(JsonNode) schema_node = json_node_init_object (json_node_alloc (), schema);

  return gg_schema_new (schema_node, NULL);
}

/**
 * gb_tool_check:
 * @tool: a tool
 * @arguments: what the caller gave
 * @error: return location for a BridgeUsageError
 *
 * Checks @arguments against @tool's input schema, the one check of every
 * tool call: the seven tools, the bridge toolset and a game's manifest
 * tools. The schema is compiled on the first call and kept with @tool (a
 * call_tool checks its arguments every time). A game's schema the
 * validator cannot read is the game's own to check.
 *
 * Returns: %TRUE when they fit (or the schema is unreadable)
 */
gboolean
gb_tool_check (GbTool      *tool,
               JsonObject  *arguments,
               GError     **error)
{
  if (!tool->compile_tried)
    {
      tool->compiled = compile (tool->input_schema);
      tool->compile_tried = TRUE;
    }
  return check_compiled (tool->compiled, arguments, tool->name, error);
}
