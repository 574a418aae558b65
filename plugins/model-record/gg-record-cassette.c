/* gg-record-cassette.c: the cassette, a JSONL file of recorded model steps.
 *
 * One line per step, plain JSON a person can read and edit:
 *
 *   {"step": 1, "model": "openai", "contextSize": 8192, "digest": "sha256:…",
 *    "asked": {"instructions", "transcript", "tools", "toolMode", "schema",
 *              "schemaName", "sampling", "temperature"?, "maxTokens"?},
 *    "reply": {"text"?, "json"?, "toolCalls"?, "usage"}
 *      or "error": {"code", "message", "data"?},
 *    "chunks": [{"ms": 12, "delta": "He"}, {"ms": 30, "delta": "llo", "reset"?: true}]}
 *
 * `asked` is everything that shapes the answer; its digest (the SHA-256 of
 * its RFC 8785 form) is what a replay matches a step by, and it is computed
 * again when a cassette is read, so an edited `asked` stays consistent.
 * Secrets never reach a cassette: members named like credentials are
 * masked wherever they appear, and a model's own configuration (where a
 * key could live) is never written, only its name.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "gg-record.h"

/* Cassette lines nest a recorded transcript a few levels below the limit
 * protocol messages are parsed with. */
#define CASSETTE_MAX_DEPTH (GG_JSON_DEFAULT_MAX_DEPTH + 16)
#define SHOWN_CHARS 80

static JsonNode *
copy_or_null (JsonNode *node)
{
  return node != NULL ? gg_json_copy (node) : json_node_new (JSON_NODE_NULL);
}

static JsonNode *
array_copy_node (JsonArray *array)
{
  g_autoptr(JsonNode) node = NULL;

  if (array == NULL)
    return json_node_init_array (json_node_alloc (), json_array_new ());
  node = json_node_init_array (json_node_alloc (), array);
  return gg_json_copy (node);
}

/**
 * gg_record_asked_from_request:
 * @request: a model step's request
 *
 * Returns: (transfer full): what the step was asked, secrets masked
 */
JsonObject *
gg_record_asked_from_request (GgModelRequest *request)
{
  JsonObject *asked = json_object_new ();
  g_autoptr(JsonNode) node = NULL;

  if (request->instructions != NULL)
    json_object_set_string_member (asked, "instructions", request->instructions);
  else
    json_object_set_null_member (asked, "instructions");
  json_object_set_member (asked, "transcript", array_copy_node (request->transcript));
  json_object_set_member (asked, "tools", array_copy_node (request->tools));
  json_object_set_string_member (asked, "toolMode", gg_tool_mode_to_string (request->tool_mode));
  json_object_set_member (asked, "schema", copy_or_null (request->output_schema));
  if (request->schema_name != NULL)
    json_object_set_string_member (asked, "schemaName", request->schema_name);
  else
    json_object_set_null_member (asked, "schemaName");
  json_object_set_member (asked, "sampling", copy_or_null (request->sampling));
  if (request->temperature >= 0)
    json_object_set_double_member (asked, "temperature", request->temperature);
  if (request->max_tokens > 0)
    json_object_set_int_member (asked, "maxTokens", request->max_tokens);

  node = json_node_init_object (json_node_alloc (), asked);
  gg_json_mask_secrets (node);
  return asked;
}

/**
 * gg_record_digest:
 * @asked: what a step was asked
 *
 * Returns: (transfer full): `sha256:` and the digest of its canonical form
 */
char *
gg_record_digest (JsonObject *asked)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), asked);

  return gg_json_canonical_digest (node);
}

/* ---- replies and errors -------------------------------------------------- */

/**
 * gg_record_reply_to_json:
 * @reply: a model's answer
 *
 * Returns: (transfer full): `{"text"?, "json"?, "toolCalls"?, "usage"}`
 */
JsonObject *
gg_record_reply_to_json (const GgModelReply *reply)
{
  JsonObject *object = json_object_new ();
  JsonObject *usage = json_object_new ();
  g_autoptr(JsonNode) node = NULL;

  if (reply->text != NULL)
    json_object_set_string_member (object, "text", reply->text);
  if (reply->json != NULL)
    json_object_set_member (object, "json", gg_json_copy (reply->json));
  if (reply->tool_calls != NULL)
    json_object_set_member (object, "toolCalls", array_copy_node (reply->tool_calls));
  json_object_set_int_member (usage, "inputTokens", reply->usage.input_tokens);
  json_object_set_int_member (usage, "cachedInputTokens", reply->usage.cached_input_tokens);
  json_object_set_int_member (usage, "outputTokens", reply->usage.output_tokens);
  json_object_set_object_member (object, "usage", usage);
  node = json_node_init_object (json_node_alloc (), object);
  gg_json_mask_secrets (node);
  return object;
}

static gboolean
usage_member (JsonObject  *usage,
              const char  *name,
              gint64      *out,
              GError     **error)
{
  JsonNode *node = usage != NULL ? json_object_get_member (usage, name) : NULL;

  *out = 0;
  if (node == NULL)
    return TRUE;
  if (json_node_get_value_type (node) != G_TYPE_INT64 || json_node_get_int (node) < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "reply.usage.%s must be a whole number", name);
      return FALSE;
    }
  *out = json_node_get_int (node);
  return TRUE;
}

/**
 * gg_record_reply_from_json:
 * @object: a recorded `reply`
 *
 * Returns: (transfer full) (nullable): the answer, or %NULL when @object is
 *   not one
 */
GgModelReply *
gg_record_reply_from_json (JsonObject  *object,
                           GError     **error)
{
  g_autoptr(GgModelReply) reply = gg_model_reply_new ();
  JsonNode *text = json_object_get_member (object, "text");
  JsonNode *json = json_object_get_member (object, "json");
  JsonNode *calls = json_object_get_member (object, "toolCalls");
  JsonNode *usage = json_object_get_member (object, "usage");
  JsonObject *usage_object = usage != NULL && JSON_NODE_HOLDS_OBJECT (usage) ? json_node_get_object (usage) : NULL;

  if (text != NULL && json_node_get_value_type (text) != G_TYPE_STRING)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "reply.text must be a string");
      return NULL;
    }
  if (calls != NULL && !JSON_NODE_HOLDS_ARRAY (calls))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "reply.toolCalls must be an array");
      return NULL;
    }
  for (guint i = 0; calls != NULL && i < json_array_get_length (json_node_get_array (calls)); i++)
    {
      JsonNode *call = json_array_get_element (json_node_get_array (calls), i);
      JsonNode *name = JSON_NODE_HOLDS_OBJECT (call) ? json_object_get_member (json_node_get_object (call), "name")
                                                     : NULL;

      if (name == NULL || json_node_get_value_type (name) != G_TYPE_STRING)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "reply.toolCalls[%u] must be an object with a name", i);
          return NULL;
        }
    }
  if (usage != NULL && usage_object == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "reply.usage must be an object");
      return NULL;
    }
  if (!usage_member (usage_object, "inputTokens", &reply->usage.input_tokens, error) ||
      !usage_member (usage_object, "cachedInputTokens", &reply->usage.cached_input_tokens, error) ||
      !usage_member (usage_object, "outputTokens", &reply->usage.output_tokens, error))
    return NULL;
  if (text != NULL)
    reply->text = g_strdup (json_node_get_string (text));
  if (json != NULL)
    reply->json = gg_json_copy (json);
  if (calls != NULL)
    {
      g_autoptr(JsonNode) copy = gg_json_copy (calls);

      reply->tool_calls = json_array_ref (json_node_get_array (copy));
    }
  return g_steal_pointer (&reply);
}

/**
 * gg_record_error_to_json:
 * @error: a failed step's error
 *
 * Returns: (transfer full): `{"code", "message", "data"?}` in the oam error
 *   vocabulary (errors of other domains are `generation_failed`)
 */
JsonObject *
gg_record_error_to_json (const GError *error)
{
  JsonObject *object = json_object_new ();
  GgModelError code = error->domain == GG_MODEL_ERROR ? (GgModelError) error->code
                                                      : GG_MODEL_ERROR_GENERATION_FAILED;
  JsonObject *data = error->domain == GG_MODEL_ERROR ? gg_model_error_get_data (error) : NULL;
  g_autoptr(JsonNode) node = NULL;

  json_object_set_string_member (object, "code", gg_model_error_to_name (code));
  json_object_set_string_member (object, "message", error->message);
  if (data != NULL)
    {
      g_autoptr(JsonNode) data_node = json_node_init_object (json_node_alloc (), data);
      json_object_set_member (object, "data", gg_json_copy (data_node));
    }
  node = json_node_init_object (json_node_alloc (), object);
  gg_json_mask_secrets (node);
  return object;
}

/**
 * gg_record_error_from_json:
 * @object: a recorded `error`
 *
 * Returns: (transfer full): the error it records
 */
GError *
gg_record_error_from_json (JsonObject *object)
{
  const char *name = json_object_get_string_member_with_default (object, "code", "generation_failed");
  const char *message = json_object_get_string_member_with_default (object, "message", "The model failed");
  JsonNode *data = json_object_get_member (object, "data");
  GgModelError code;

  if (!gg_model_error_from_name (name, &code))
    code = GG_MODEL_ERROR_GENERATION_FAILED;
  return gg_model_error_new (code, data != NULL && JSON_NODE_HOLDS_OBJECT (data) ? json_node_get_object (data) : NULL,
                             "%s", message);
}

/* ---- reading ------------------------------------------------------------- */

static gboolean
member_has_type (JsonObject *entry,
                 const char *name,
                 GType       type)
{
  JsonNode *node = json_object_get_member (entry, name);

  return node == NULL || json_node_get_value_type (node) == type;
}

static gboolean
check_entry (JsonObject  *entry,
             GError     **error)
{
  JsonNode *asked = json_object_get_member (entry, "asked");
  JsonNode *reply = json_object_get_member (entry, "reply");
  JsonNode *failure = json_object_get_member (entry, "error");
  JsonNode *chunks = json_object_get_member (entry, "chunks");

  if (!member_has_type (entry, "model", G_TYPE_STRING) || !member_has_type (entry, "contextSize", G_TYPE_INT64) ||
      !member_has_type (entry, "digest", G_TYPE_STRING) || !member_has_type (entry, "step", G_TYPE_INT64))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "\"model\" and \"digest\" are strings, \"step\" and \"contextSize\" whole numbers");
      return FALSE;
    }
  if (asked == NULL || !JSON_NODE_HOLDS_OBJECT (asked))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "\"asked\" must be an object");
      return FALSE;
    }
  if ((reply != NULL) == (failure != NULL) ||
      (reply != NULL && !JSON_NODE_HOLDS_OBJECT (reply)) || (failure != NULL && !JSON_NODE_HOLDS_OBJECT (failure)))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "a step has either a \"reply\" object or an \"error\" object");
      return FALSE;
    }
  if (reply != NULL)
    {
      g_autoptr(GgModelReply) parsed = gg_record_reply_from_json (json_node_get_object (reply), error);

      if (parsed == NULL)
        return FALSE;
    }
  if (chunks != NULL)
    {
      JsonArray *array = JSON_NODE_HOLDS_ARRAY (chunks) ? json_node_get_array (chunks) : NULL;

      for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
        {
          JsonNode *chunk = json_array_get_element (array, i);
          JsonNode *delta = JSON_NODE_HOLDS_OBJECT (chunk) ?
                            json_object_get_member (json_node_get_object (chunk), "delta") : NULL;

          if (delta == NULL || json_node_get_value_type (delta) != G_TYPE_STRING ||
              !member_has_type (json_node_get_object (chunk), "reset", G_TYPE_BOOLEAN))
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "chunks[%u] must be {\"delta\": text, \"reset\"?: bool}", i);
              return FALSE;
            }
        }
      if (array == NULL)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "\"chunks\" must be an array");
          return FALSE;
        }
    }
  return TRUE;
}

/**
 * gg_record_cassette_load:
 * @path: a cassette file
 * @error: `PATH:LINE: what is wrong`, or why the file cannot be read
 *
 * Returns: (transfer full) (element-type JsonObject): the steps in file
 *   order, each with its `digest` computed from its `asked`
 */
GPtrArray *
gg_record_cassette_load (const char  *path,
                         GError     **error)
{
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  GStatBuf st;
  gsize length;

  if (g_stat (path, &st) == 0 && st.st_size > GG_RECORD_MAX_CASSETTE_BYTES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: larger than %d MiB", path,
                   GG_RECORD_MAX_CASSETTE_BYTES / (1024 * 1024));
      return NULL;
    }
  if (!g_file_get_contents (path, &contents, &length, error))
    return NULL;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(GError) local = NULL;
      g_autoptr(JsonNode) node = NULL;
      JsonObject *entry;
      g_autofree char *digest = NULL;

      if (*g_strstrip (lines[i]) == '\0')
        continue;
      node = gg_json_parse (lines[i], -1, CASSETTE_MAX_DEPTH, &local);
      if (node != NULL && !JSON_NODE_HOLDS_OBJECT (node))
        g_set_error_literal (&local, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "a step must be a JSON object");
      else if (node != NULL)
        check_entry (json_node_get_object (node), &local);
      if (local != NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s:%u: %s", path, i + 1, local->message);
          return NULL;
        }
      entry = json_node_dup_object (node);
      digest = gg_record_digest (json_object_get_object_member (entry, "asked"));
      json_object_set_string_member (entry, "digest", digest);
      g_ptr_array_add (entries, entry);
    }
  return g_steal_pointer (&entries);
}

/* ---- explaining a mismatch ----------------------------------------------- */

static char *
shown (JsonNode *node)
{
  g_autofree char *text = NULL;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("none");
  text = gg_json_to_string (node);
  if (g_utf8_strlen (text, -1) > SHOWN_CHARS)
    {
      g_autofree char *cut = g_utf8_substring (text, 0, SHOWN_CHARS);
      return g_strconcat (cut, "…", NULL);
    }
  return g_steal_pointer (&text);
}

static char *
tool_names (JsonNode *tools)
{
  GString *text = g_string_new ("[");
  JsonArray *array = tools != NULL && JSON_NODE_HOLDS_ARRAY (tools) ? json_node_get_array (tools) : NULL;

  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonNode *tool = json_array_get_element (array, i);
      const char *name = JSON_NODE_HOLDS_OBJECT (tool) ?
                         json_object_get_string_member_with_default (json_node_get_object (tool), "name", "?") : "?";

      g_string_append_printf (text, "%s%s", i > 0 ? ", " : "", name);
    }
  g_string_append_c (text, ']');
  return g_string_free (text, FALSE);
}

static gboolean
same (JsonNode *a,
      JsonNode *b)
{
  if (a == NULL || b == NULL)
    return (a == NULL || JSON_NODE_HOLDS_NULL (a)) && (b == NULL || JSON_NODE_HOLDS_NULL (b));
  return gg_json_equal (a, b);
}

/**
 * gg_record_first_difference:
 * @asked: what a step was asked now
 * @recorded: what the cassette's step was asked
 *
 * Returns: (transfer full): the first difference, as "asked with …, the
 *   cassette has …", in the order instructions, tools, tool mode, output
 *   schema, sampling, transcript
 */
char *
gg_record_first_difference (JsonObject *asked,
                            JsonObject *recorded)
{
  static const char * const members[] = {
    "instructions", "tools", "toolMode", "schemaName", "schema", "sampling", "temperature", "maxTokens", NULL
  };
  static const char * const labels[] = {
    "instructions", "tools", "tool mode", "schema name", "output schema", "sampling", "temperature",
    "maxTokens", NULL
  };
  JsonNode *now_transcript = json_object_get_member (asked, "transcript");
  JsonNode *then_transcript = json_object_get_member (recorded, "transcript");
  JsonArray *now, *then;
  guint n_now, n_then;

  for (guint i = 0; members[i] != NULL; i++)
    {
      JsonNode *a = json_object_get_member (asked, members[i]);
      JsonNode *b = json_object_get_member (recorded, members[i]);
      g_autofree char *x = NULL, *y = NULL;

      if (same (a, b))
        continue;
      if (g_str_equal (members[i], "tools"))
        {
          x = tool_names (a);
          y = tool_names (b);
          if (g_str_equal (x, y))
            return g_strdup_printf ("asked with tools %s defined otherwise than the cassette's", x);
        }
      else
        {
          x = shown (a);
          y = shown (b);
        }
      return g_strdup_printf ("asked with %s %s, the cassette has %s", labels[i], x, y);
    }

  now = now_transcript != NULL && JSON_NODE_HOLDS_ARRAY (now_transcript) ? json_node_get_array (now_transcript) : NULL;
  then = then_transcript != NULL && JSON_NODE_HOLDS_ARRAY (then_transcript) ?
         json_node_get_array (then_transcript) : NULL;
  n_now = now != NULL ? json_array_get_length (now) : 0;
  n_then = then != NULL ? json_array_get_length (then) : 0;
  for (guint i = 0; i < MIN (n_now, n_then); i++)
    if (!gg_json_equal (json_array_get_element (now, i), json_array_get_element (then, i)))
      {
        g_autofree char *x = shown (json_array_get_element (now, i));
        g_autofree char *y = shown (json_array_get_element (then, i));

        return g_strdup_printf ("asked with transcript entry %u %s, the cassette has %s", i + 1, x, y);
      }
  if (n_now != n_then)
    return g_strdup_printf ("asked with %u transcript entries, the cassette has %u", n_now, n_then);
  return g_strdup ("asked what the cassette's step was asked");
}

/* ---- as a scripted model's script ---------------------------------------- */

/**
 * gg_record_cassette_to_script:
 * @entries: (element-type JsonObject): a loaded cassette
 *
 * Returns: (transfer full): `{"steps": [...]}` for the scripted model (oam
 *   section 10), playing the cassette's answers in order
 */
JsonNode *
gg_record_cassette_to_script (GPtrArray  *entries,
                              GError    **error)
{
  JsonObject *script = json_object_new ();
  JsonArray *steps = json_array_new ();
  JsonNode *node;

  for (guint i = 0; i < entries->len; i++)
    {
      JsonObject *entry = g_ptr_array_index (entries, i);
      JsonObject *step = json_object_new ();

      if (json_object_has_member (entry, "error"))
        {
          JsonObject *failure = json_object_get_object_member (entry, "error");

          json_object_set_string_member (step, "error",
                                         json_object_get_string_member_with_default (failure, "code", "generation_failed"));
          if (json_object_has_member (failure, "message"))
            json_object_set_member (step, "message", json_node_copy (json_object_get_member (failure, "message")));
        }
      else
        {
          JsonObject *reply = json_object_get_object_member (entry, "reply");
          JsonNode *chunks = json_object_get_member (entry, "chunks");

          if (json_object_has_member (reply, "toolCalls"))
            json_object_set_member (step, "toolCalls", json_node_copy (json_object_get_member (reply, "toolCalls")));
          else if (json_object_has_member (reply, "json"))
            json_object_set_member (step, "json", json_node_copy (json_object_get_member (reply, "json")));
          else
            {
              json_object_set_string_member (step, "text",
                                             json_object_get_string_member_with_default (reply, "text", ""));
              if (chunks != NULL && json_array_get_length (json_node_get_array (chunks)) > 1)
                json_object_set_int_member (step, "chunks", json_array_get_length (json_node_get_array (chunks)));
            }
        }
      json_array_add_object_element (steps, step);
    }
  json_object_set_array_member (script, "steps", steps);
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, script);
  return node;
}
