/* gg-openai-response.c: a Chat Completions answer, assembled from one
 * non-streamed body or from streamed chunks, turned into a GgModelReply.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-openai-private.h"

typedef struct {
  char *id;
  char *name;
  GString *arguments;
} ToolCall;

struct _GgOpenaiAnswer {
  GString *content;
  GString *refusal;
  GPtrArray *tool_calls; /* ToolCall, by wire index */
  char *finish_reason;
  GgUsage usage;
  gboolean has_choice;
  gsize total;           /* bytes of text and arguments, for the limit */
};

static void
tool_call_free (ToolCall *call)
{
  g_free (call->id);
  g_free (call->name);
  g_string_free (call->arguments, TRUE);
  g_free (call);
}

/**
 * gg_openai_answer_new:
 *
 * Returns: (transfer full): an empty answer
 */
GgOpenaiAnswer *
gg_openai_answer_new (void)
{
  GgOpenaiAnswer *answer = g_new0 (GgOpenaiAnswer, 1);

  answer->content = g_string_new (NULL);
  answer->refusal = g_string_new (NULL);
  answer->tool_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) tool_call_free);
  return answer;
}

/**
 * gg_openai_answer_free:
 * @answer: (transfer full) (nullable): an answer
 */
void
gg_openai_answer_free (GgOpenaiAnswer *answer)
{
  if (answer == NULL)
    return;
  g_string_free (answer->content, TRUE);
  g_string_free (answer->refusal, TRUE);
  g_ptr_array_unref (answer->tool_calls);
  g_free (answer->finish_reason);
  g_free (answer);
}

static GError *
malformed (const char *format,
           ...) G_GNUC_PRINTF (1, 2);

static GError *
malformed (const char *format,
           ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  return gg_model_error_new (GG_MODEL_ERROR_GENERATION_FAILED, NULL,
                             "The model server sent a malformed answer: %s", message);
}

/* Returns the string member, NULL when absent or null, and fails on any
 * other type. */
static gboolean
optional_string (JsonObject  *object,
                 const char  *name,
                 const char **out,
                 GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);

  *out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      *out = json_node_get_string (node);
      return TRUE;
    }
  g_propagate_error (error, malformed ("'%s' is not a string", name));
  return FALSE;
}

static gboolean
append_limited (GgOpenaiAnswer  *answer,
                GString         *dest,
                const char      *text,
                GError         **error)
{
  gsize len = strlen (text);

  if (answer->total + len > GG_OPENAI_MAX_ANSWER)
    {
      g_propagate_error (error, malformed ("the answer exceeds %d bytes", GG_OPENAI_MAX_ANSWER));
      return FALSE;
    }
  answer->total += len;
  g_string_append (dest, text);
  return TRUE;
}

static gint64
usage_member (JsonObject *object,
              const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return 0;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return CLAMP (json_node_get_int (node), 0, GG_OPENAI_MAX_USAGE_TOKENS);
  if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    {
      /* Compared as a double first: a cast of one out of range is undefined. */
      double d = json_node_get_double (node);

      if (!(d > 0))
        return 0;
      return d >= (double) GG_OPENAI_MAX_USAGE_TOKENS ? GG_OPENAI_MAX_USAGE_TOKENS : (gint64) d;
    }
  return 0;
}

static void
read_usage (GgOpenaiAnswer *answer,
            JsonObject     *body)
{
  JsonNode *node = json_object_get_member (body, "usage");
  JsonObject *usage, *details;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return;
  usage = json_node_get_object (node);
  answer->usage.input_tokens = usage_member (usage, "prompt_tokens");
  answer->usage.output_tokens = usage_member (usage, "completion_tokens");
  node = json_object_get_member (usage, "prompt_tokens_details");
  details = node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  answer->usage.cached_input_tokens = usage_member (details, "cached_tokens");
}

static ToolCall *
tool_call_at (GgOpenaiAnswer  *answer,
              JsonObject      *fragment,
              const char      *id,
              GError         **error)
{
  JsonNode *index_node = json_object_get_member (fragment, "index");
  gint64 index;

  if (index_node != NULL && JSON_NODE_HOLDS_VALUE (index_node) &&
      json_node_get_value_type (index_node) == G_TYPE_INT64)
    index = json_node_get_int (index_node);
  else if (index_node != NULL && !JSON_NODE_HOLDS_NULL (index_node))
    {
      g_propagate_error (error, malformed ("a tool call index is not an integer"));
      return NULL;
    }
  else
    {
      /* No index (older Ollama): a new id starts a new call, anything else
       * continues the last one. */
      ToolCall *last = answer->tool_calls->len > 0 ?
                       g_ptr_array_index (answer->tool_calls, answer->tool_calls->len - 1) : NULL;
      if (last != NULL && (id == NULL || g_strcmp0 (last->id, id) == 0))
        return last;
      index = answer->tool_calls->len;
    }

  if (index < 0 || index >= GG_OPENAI_MAX_TOOL_CALLS)
    {
      g_propagate_error (error, malformed ("tool call index %" G_GINT64_FORMAT " is out of range",
                                           index));
      return NULL;
    }
  while ((gint64) answer->tool_calls->len <= index)
    {
      ToolCall *call = g_new0 (ToolCall, 1);
      call->arguments = g_string_new (NULL);
      g_ptr_array_add (answer->tool_calls, call);
    }
  return g_ptr_array_index (answer->tool_calls, index);
}

static gboolean
add_tool_calls (GgOpenaiAnswer  *answer,
                JsonNode        *calls_node,
                GError         **error)
{
  JsonArray *calls;

  if (calls_node == NULL || JSON_NODE_HOLDS_NULL (calls_node))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (calls_node))
    {
      g_propagate_error (error, malformed ("'tool_calls' is not an array"));
      return FALSE;
    }
  calls = json_node_get_array (calls_node);
  for (guint i = 0; i < json_array_get_length (calls); i++)
    {
      JsonNode *node = json_array_get_element (calls, i);
      JsonObject *fragment, *function = NULL;
      const char *id, *name = NULL, *arguments = NULL;
      JsonNode *function_node, *args_node = NULL;
      ToolCall *call;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_propagate_error (error, malformed ("a tool call is not an object"));
          return FALSE;
        }
      fragment = json_node_get_object (node);
      if (!optional_string (fragment, "id", &id, error))
        return FALSE;
      function_node = json_object_get_member (fragment, "function");
      if (function_node != NULL && JSON_NODE_HOLDS_OBJECT (function_node))
        function = json_node_get_object (function_node);
      else if (function_node != NULL && !JSON_NODE_HOLDS_NULL (function_node))
        {
          g_propagate_error (error, malformed ("a tool call's 'function' is not an object"));
          return FALSE;
        }
      if (function != NULL)
        {
          if (!optional_string (function, "name", &name, error))
            return FALSE;
          args_node = json_object_get_member (function, "arguments");
          if (args_node != NULL && JSON_NODE_HOLDS_VALUE (args_node) &&
              json_node_get_value_type (args_node) == G_TYPE_STRING)
            arguments = json_node_get_string (args_node);
          else if (args_node != NULL && JSON_NODE_HOLDS_NULL (args_node))
            args_node = NULL;
        }

      call = tool_call_at (answer, fragment, id, error);
      if (call == NULL)
        return FALSE;
      if (id != NULL && *id != '\0' && call->id == NULL)
        call->id = g_strdup (id);
      /* The name arrives once; servers that repeat it send it whole. */
      if (name != NULL && *name != '\0' && g_strcmp0 (call->name, name) != 0)
        {
          g_autofree char *joined = g_strconcat (call->name != NULL ? call->name : "", name, NULL);
          if (strlen (joined) > 256)
            {
              g_propagate_error (error, malformed ("a tool name is too long"));
              return FALSE;
            }
          g_free (call->name);
          call->name = g_steal_pointer (&joined);
        }
      if (arguments != NULL)
        {
          if (!append_limited (answer, call->arguments, arguments, error))
            return FALSE;
        }
      else if (args_node != NULL && (JSON_NODE_HOLDS_OBJECT (args_node) ||
                                     JSON_NODE_HOLDS_ARRAY (args_node)))
        {
          /* Some servers send the arguments as an object, not a string. */
          g_autofree char *text = gg_json_to_string (args_node);
          if (!append_limited (answer, call->arguments, text, error))
            return FALSE;
        }
    }
  return TRUE;
}

/* The parts common to a chunk's `delta` and a body's `message`. */
static gboolean
add_message_part (GgOpenaiAnswer  *answer,
                  JsonObject      *part,
                  GString         *out_delta,
                  GError         **error)
{
  const char *content, *refusal;
  JsonNode *content_node = json_object_get_member (part, "content");

  if (content_node != NULL && JSON_NODE_HOLDS_ARRAY (content_node))
    {
      /* Content parts: [{"type":"text","text":…}]. */
      JsonArray *parts = json_node_get_array (content_node);
      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonNode *p = json_array_get_element (parts, i);
          const char *text = NULL;
          if (JSON_NODE_HOLDS_OBJECT (p) &&
              !optional_string (json_node_get_object (p), "text", &text, error))
            return FALSE;
          if (text != NULL)
            {
              if (!append_limited (answer, answer->content, text, error))
                return FALSE;
              if (out_delta != NULL)
                g_string_append (out_delta, text);
            }
        }
      content = NULL;
    }
  else if (!optional_string (part, "content", &content, error))
    return FALSE;
  if (content != NULL)
    {
      if (!append_limited (answer, answer->content, content, error))
        return FALSE;
      if (out_delta != NULL)
        g_string_append (out_delta, content);
    }
  if (!optional_string (part, "refusal", &refusal, error))
    return FALSE;
  if (refusal != NULL && !append_limited (answer, answer->refusal, refusal, error))
    return FALSE;
  return add_tool_calls (answer, json_object_get_member (part, "tool_calls"), error);
}

static gboolean
add_choices (GgOpenaiAnswer  *answer,
             JsonObject      *body,
             const char      *part_name,
             GString         *out_delta,
             GError         **error)
{
  JsonNode *choices_node = json_object_get_member (body, "choices");
  JsonArray *choices;

  if (choices_node == NULL || JSON_NODE_HOLDS_NULL (choices_node))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (choices_node))
    {
      g_propagate_error (error, malformed ("'choices' is not an array"));
      return FALSE;
    }
  choices = json_node_get_array (choices_node);
  for (guint i = 0; i < json_array_get_length (choices); i++)
    {
      JsonNode *node = json_array_get_element (choices, i);
      JsonObject *choice;
      JsonNode *index, *part;
      const char *finish;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_propagate_error (error, malformed ("a choice is not an object"));
          return FALSE;
        }
      choice = json_node_get_object (node);
      index = json_object_get_member (choice, "index");
      /* We ask for one choice; a server sending more has its others ignored. */
      if (index != NULL && JSON_NODE_HOLDS_VALUE (index) &&
          json_node_get_value_type (index) == G_TYPE_INT64 && json_node_get_int (index) != 0)
        continue;
      answer->has_choice = TRUE;
      part = json_object_get_member (choice, part_name);
      if (part != NULL && JSON_NODE_HOLDS_OBJECT (part))
        {
          if (!add_message_part (answer, json_node_get_object (part), out_delta, error))
            return FALSE;
        }
      else if (part != NULL && !JSON_NODE_HOLDS_NULL (part))
        {
          g_propagate_error (error, malformed ("'%s' is not an object", part_name));
          return FALSE;
        }
      if (!optional_string (choice, "finish_reason", &finish, error))
        return FALSE;
      if (finish != NULL)
        {
          g_free (answer->finish_reason);
          answer->finish_reason = g_strdup (finish);
        }
    }
  return TRUE;
}

/* A server that fails after sending 200 puts an error object in the body. */
static GError *
embedded_error (JsonObject *body)
{
  JsonNode *node = json_object_get_member (body, "error");

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return NULL;
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      JsonNode *code = json_object_get_member (object, "code");
      guint status = 0;

      if (code != NULL && JSON_NODE_HOLDS_VALUE (code) &&
          json_node_get_value_type (code) == G_TYPE_INT64)
        status = (guint) CLAMP (json_node_get_int (code), 0, 599);
      return gg_openai_error_from_body (object, status, NULL);
    }
  {
    g_autoptr(JsonObject) wrapped = json_object_new ();
    if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
      json_object_set_string_member (wrapped, "message", json_node_get_string (node));
    return gg_openai_error_from_body (wrapped, 0, NULL);
  }
}

/**
 * gg_openai_answer_add_chunk:
 * @answer: an answer
 * @chunk: one parsed `chat.completion.chunk`
 * @out_delta: (nullable): receives the chunk's new text
 * @error: return location for a %GG_MODEL_ERROR
 *
 * Returns: %FALSE when the chunk is malformed or carries a server error
 */
gboolean
gg_openai_answer_add_chunk (GgOpenaiAnswer  *answer,
                            JsonNode        *chunk,
                            GString         *out_delta,
                            GError         **error)
{
  JsonObject *body;
  GError *server_error;

  if (!JSON_NODE_HOLDS_OBJECT (chunk))
    {
      g_propagate_error (error, malformed ("a chunk is not an object"));
      return FALSE;
    }
  body = json_node_get_object (chunk);
  server_error = embedded_error (body);
  if (server_error != NULL)
    {
      g_propagate_error (error, server_error);
      return FALSE;
    }
  read_usage (answer, body);
  return add_choices (answer, body, "delta", out_delta, error);
}

/**
 * gg_openai_answer_add_message:
 * @answer: an empty answer
 * @body: a parsed non-streamed `chat.completion` body
 * @error: return location for a %GG_MODEL_ERROR
 *
 * Returns: %FALSE when the body is malformed or carries a server error
 */
gboolean
gg_openai_answer_add_message (GgOpenaiAnswer  *answer,
                              JsonNode        *body,
                              GError         **error)
{
  JsonObject *object;
  GError *server_error;

  if (!JSON_NODE_HOLDS_OBJECT (body))
    {
      g_propagate_error (error, malformed ("the body is not an object"));
      return FALSE;
    }
  object = json_node_get_object (body);
  server_error = embedded_error (object);
  if (server_error != NULL)
    {
      g_propagate_error (error, server_error);
      return FALSE;
    }
  read_usage (answer, object);
  if (!add_choices (answer, object, "message", NULL, error))
    return FALSE;
  if (!answer->has_choice)
    {
      g_propagate_error (error, malformed ("the body has no choice"));
      return FALSE;
    }
  return TRUE;
}

/**
 * gg_openai_answer_is_finished:
 * @answer: an answer
 *
 * Returns: whether a finish reason arrived
 */
gboolean
gg_openai_answer_is_finished (GgOpenaiAnswer *answer)
{
  return answer->finish_reason != NULL;
}

/* Models sometimes wrap JSON in a Markdown fence despite the format. */
static const char *
strip_fence (char *text)
{
  char *start = g_strstrip (text);
  gsize len;

  if (!g_str_has_prefix (start, "```"))
    return start;
  start = strchr (start, '\n');
  if (start == NULL)
    return text;
  len = strlen (start);
  if (len >= 3 && g_str_has_suffix (start, "```"))
    start[len - 3] = '\0';
  return start;
}

/* The caller's name of a tool the model called by its wire name. */
static const char *
caller_tool_name (const GgModelRequest *request,
                  const char           *wire_name)
{
  guint n = request != NULL && request->tools != NULL ? json_array_get_length (request->tools) : 0;

  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (request->tools, i);
      JsonObject *tool;
      const char *name;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      tool = json_node_get_object (node);
      name = gg_openai_get_string (tool, "name");
      if (name == NULL)
        name = gg_openai_get_string (gg_openai_get_object (tool, "function"), "name");
      if (name != NULL && g_strcmp0 (name, wire_name) != 0)
        {
          g_autofree char *wire = gg_openai_tool_wire_name (name);
          if (g_str_equal (wire, wire_name))
            return name;
        }
    }
  return wire_name;
}

static JsonArray *
reply_tool_calls (GgOpenaiAnswer        *answer,
                  const GgModelRequest  *request,
                  GError               **error)
{
  g_autoptr(JsonArray) calls = json_array_new ();

  for (guint i = 0; i < answer->tool_calls->len; i++)
    {
      ToolCall *call = g_ptr_array_index (answer->tool_calls, i);
      g_autoptr(JsonNode) arguments = NULL;
      g_autoptr(GError) local_error = NULL;
      JsonObject *out;

      if (call->name == NULL)
        {
          if (call->id == NULL && call->arguments->len == 0)
            continue; /* a gap in the indexes, not a call */
          g_propagate_error (error, malformed ("tool call %u has no name", i));
          return NULL;
        }
      if (call->arguments->len == 0 || strspn (call->arguments->str, " \t\r\n") == call->arguments->len)
        {
          arguments = json_node_new (JSON_NODE_OBJECT);
          json_node_take_object (arguments, json_object_new ());
        }
      else
        {
          arguments = gg_json_parse (call->arguments->str, call->arguments->len,
                                     GG_JSON_DEFAULT_MAX_DEPTH, &local_error);
          if (arguments == NULL)
            {
              g_propagate_error (error, malformed ("the arguments of '%s' are not valid JSON: %s",
                                                   call->name, local_error->message));
              return NULL;
            }
        }
      out = json_object_new ();
      if (call->id != NULL)
        json_object_set_string_member (out, "id", call->id);
      else
        {
          g_autofree char *made_up = g_strdup_printf ("call_%u", i);
          json_object_set_string_member (out, "id", made_up);
        }
      json_object_set_string_member (out, "name", caller_tool_name (request, call->name));
      json_object_set_member (out, "arguments", g_steal_pointer (&arguments));
      json_array_add_object_element (calls, out);
    }
  return g_steal_pointer (&calls);
}

/**
 * gg_openai_answer_to_reply:
 * @answer: a complete answer
 * @request: the step's input (for its output schema)
 * @error: return location for a %GG_MODEL_ERROR
 *
 * Maps refusals to %GG_MODEL_ERROR_REFUSAL, content filtering to
 * %GG_MODEL_ERROR_GUARDRAIL_VIOLATION and malformed tool calls to
 * %GG_MODEL_ERROR_GENERATION_FAILED. With an output schema the reply is
 * the schema's JSON, or else the model's text (an answer outside the
 * schema, for the agent turn to judge).
 *
 * Returns: (transfer full): the reply, or %NULL with @error set
 */
GgModelReply *
gg_openai_answer_to_reply (GgOpenaiAnswer        *answer,
                           const GgModelRequest  *request,
                           GError               **error)
{
  g_autoptr(GgModelReply) reply = gg_model_reply_new ();

  reply->usage = answer->usage;
  if (answer->refusal->len > 0)
    {
      g_autofree char *text = gg_openai_redact (answer->refusal->str, NULL);
      g_propagate_error (error, gg_model_error_new (GG_MODEL_ERROR_REFUSAL, NULL,
                                                    "The model refused: %s", text));
      return NULL;
    }
  if (g_strcmp0 (answer->finish_reason, "content_filter") == 0)
    {
      g_propagate_error (error, gg_model_error_new (GG_MODEL_ERROR_GUARDRAIL_VIOLATION, NULL,
                                                    "The server's content filter stopped the answer"));
      return NULL;
    }

  if (answer->tool_calls->len > 0)
    {
      reply->tool_calls = reply_tool_calls (answer, request, error);
      if (reply->tool_calls == NULL)
        return NULL;
      if (json_array_get_length (reply->tool_calls) > 0)
        return g_steal_pointer (&reply);
      g_clear_pointer (&reply->tool_calls, json_array_unref);
    }

  if (request != NULL && request->output_schema != NULL)
    {
      g_autofree char *copy = g_strdup (answer->content->str);
      g_autoptr(JsonNode) parsed = gg_json_parse (strip_fence (copy), -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);

      /* The server did answer: what the model said is its answer, right or
       * wrong. Only the schema's JSON becomes reply->json; anything else
       * (plain text, JSON cut off at the token limit, a wrapped answer
       * without its 'value') goes back as the model's text, so that the
       * agent turn, which checks every answer against the output schema,
       * finds it outside the schema, and a decision asks again
       * (GgDecisionFormat.schema_retries) as it does for a wrong option. */
      if (parsed != NULL)
        reply->json = gg_openai_strict_schema_unmap (request->output_schema, parsed,
                                                     gg_openai_strict_schema_wraps (request->output_schema));
      if (reply->json != NULL)
        return g_steal_pointer (&reply);
      if (g_strcmp0 (answer->finish_reason, "length") == 0)
        g_debug ("The structured answer was cut off at the token limit");
    }

  reply->text = g_strdup (answer->content->str);
  return g_steal_pointer (&reply);
}

/**
 * gg_openai_parse_response:
 * @data: a non-streamed response body
 * @length: its length
 * @request: (nullable): the step's input
 * @error: return location for a %GG_MODEL_ERROR
 *
 * Returns: (transfer full): the reply, or %NULL with @error set
 */
GgModelReply *
gg_openai_parse_response (const char            *data,
                          gsize                  length,
                          const GgModelRequest  *request,
                          GError               **error)
{
  g_autoptr(GgOpenaiAnswer) answer = gg_openai_answer_new ();
  g_autoptr(JsonNode) body = NULL;
  g_autoptr(GError) local_error = NULL;

  if (length > GG_OPENAI_MAX_BODY)
    {
      g_propagate_error (error, malformed ("the body exceeds %d bytes", GG_OPENAI_MAX_BODY));
      return NULL;
    }
  body = gg_json_parse (data, length, GG_JSON_DEFAULT_MAX_DEPTH, &local_error);
  if (body == NULL)
    {
      g_propagate_error (error, malformed ("%s", local_error->message));
      return NULL;
    }
  if (!gg_openai_answer_add_message (answer, body, error))
    return NULL;
  return gg_openai_answer_to_reply (answer, request, error);
}
