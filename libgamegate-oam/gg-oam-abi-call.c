/* gg-oam-abi-call.c: oam_call_blocking(): a request whose response goes to
 * the thread waiting for it instead of the callback.
 *
 * The waiter is filed under the request's id before the request is
 * queued; the bridge thread, handing out lines, gives the response with
 * that id to the waiter. A waiter that times out sends `request/cancel`
 * (gg-oam-request-work.c in the oam plugin) and files the id as
 * abandoned: the late response (-32009, or the result if the work had
 * taken effect) is dropped, never handed to the callback.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "gg-oam-abi-private.h"

/* The protocol's numbers travel as doubles: larger ids are refused. */
#define MAX_SAFE_INT G_GINT64_CONSTANT (9007199254740991)

typedef struct {
  char *key;
  char *response;               /* set by the bridge thread */
} GgOamAbiCall;

/**
 * gg_oam_abi_id_key:
 * @id: (nullable): a JSON-RPC id
 *
 * Returns: (transfer full) (nullable): "s<text>" for a string, "i<digits>"
 *   for a safe integer, NULL for anything else
 */
char *
gg_oam_abi_id_key (JsonNode *id)
{
  if (id == NULL || !JSON_NODE_HOLDS_VALUE (id))
    return NULL;
  if (json_node_get_value_type (id) == G_TYPE_STRING)
    return g_strconcat ("s", json_node_get_string (id), NULL);
  if (json_node_get_value_type (id) == G_TYPE_INT64 &&
      json_node_get_int (id) >= -MAX_SAFE_INT && json_node_get_int (id) <= MAX_SAFE_INT)
    return g_strdup_printf ("i%" G_GINT64_FORMAT, json_node_get_int (id));
  return NULL;
}

/**
 * gg_oam_abi_error_response:
 * @id: (nullable): the request's id; %NULL for `null`
 * @code: the JSON-RPC code
 * @name: the protocol's `data.code`
 * @message: the message
 *
 * Returns: (transfer full): an error response, one line of JSON
 */
char *
gg_oam_abi_error_response (JsonNode   *id,
                           int         code,
                           const char *name,
                           const char *message)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "jsonrpc");
  json_builder_add_string_value (builder, "2.0");
  json_builder_set_member_name (builder, "id");
  if (id != NULL)
    json_builder_add_value (builder, json_node_copy (id));
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "error");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "code");
  json_builder_add_int_value (builder, code);
  json_builder_set_member_name (builder, "message");
  json_builder_add_string_value (builder, message);
  json_builder_set_member_name (builder, "data");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "code");
  json_builder_add_string_value (builder, name);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}

/**
 * gg_oam_abi_route_response:
 * @bridge: a bridge
 * @line: (array length=length): a line from the front end, NUL-terminated
 * @length: its length
 *
 * Bridge thread: gives a response to its blocking caller, or drops the
 * late response of an abandoned one.
 *
 * Returns: whether @line was taken (not for the callback)
 */
gboolean
gg_oam_abi_route_response (oam_bridge *bridge,
                           const char *line,
                           gsize       length)
{
  g_autoptr(JsonNode) root = gg_json_parse (line, (gssize) length, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  g_autofree char *key = NULL;
  JsonObject *object;
  GgOamAbiCall *call;
  gboolean taken = FALSE;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return FALSE;
  object = json_node_get_object (root);
  /* Requests (tool/call) and notifications carry a method. */
  if (json_object_has_member (object, "method"))
    return FALSE;
  key = gg_oam_abi_id_key (json_object_get_member (object, "id"));
  if (key == NULL)
    return FALSE;

  pthread_mutex_lock (&bridge->lock);
  call = g_hash_table_lookup (bridge->calls, key);
  if (bridge->destroying)
    taken = TRUE;
  else if (call != NULL && call->response == NULL)
    {
      call->response = g_strndup (line, length);
      pthread_cond_broadcast (&bridge->cond);
      taken = TRUE;
    }
  else if (g_hash_table_remove (bridge->abandoned, key))
    taken = TRUE;
  pthread_mutex_unlock (&bridge->lock);
  return taken;
}

/**
 * gg_oam_abi_calls_shut_down:
 * @bridge: a bridge being destroyed
 *
 * Wakes every blocking caller: each returns -32023.
 */
void
gg_oam_abi_calls_shut_down (oam_bridge *bridge)
{
  pthread_mutex_lock (&bridge->lock);
  pthread_cond_broadcast (&bridge->cond);
  pthread_mutex_unlock (&bridge->lock);
}

/* The request as it is sent, with its id (added when absent); NULL and
 * @out_error set to a whole error response for what cannot be sent. */
static char *
prepare_request (oam_bridge  *bridge,
                 const char  *request_json,
                 JsonNode   **out_id,
                 char       **out_error)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *message = NULL;
  JsonObject *object;
  JsonNode *id;

  if (!g_utf8_validate (request_json, -1, NULL))
    {
      *out_error = gg_oam_abi_error_response (NULL, GG_JSONRPC_PARSE_ERROR, "parse_error",
                                              "Parse error: the request is not valid UTF-8");
      return NULL;
    }
  root = gg_json_parse (request_json, -1, GG_JSON_DEFAULT_MAX_DEPTH, &error);
  if (root == NULL)
    {
      message = g_strdup_printf ("Parse error: %s", error->message);
      *out_error = gg_oam_abi_error_response (NULL, GG_JSONRPC_PARSE_ERROR, "parse_error", message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      *out_error = gg_oam_abi_error_response (NULL, GG_JSONRPC_INVALID_REQUEST, "invalid_message",
                                              "Invalid Request: not a JSON object");
      return NULL;
    }
  object = json_node_get_object (root);
  id = json_object_get_member (object, "id");
  if (json_object_get_string_member_with_default (object, "method", NULL) == NULL)
    {
      g_autofree char *key = gg_oam_abi_id_key (id);

      *out_error = gg_oam_abi_error_response (key != NULL ? id : NULL,
                                              GG_JSONRPC_INVALID_REQUEST, "invalid_message",
                                              "Invalid Request: oam_call_blocking() sends requests: "
                                              "'method' must be a string");
      return NULL;
    }
  if (id == NULL || JSON_NODE_HOLDS_NULL (id))
    {
      g_autofree char *generated = NULL;

      pthread_mutex_lock (&bridge->lock);
      generated = g_strdup_printf ("c-%" G_GUINT64_FORMAT, ++bridge->next_call);
      pthread_mutex_unlock (&bridge->lock);
      json_object_set_string_member (object, "id", generated);
      id = json_object_get_member (object, "id");
    }
  else
    {
      g_autofree char *key = gg_oam_abi_id_key (id);

      if (key == NULL)
        {
          *out_error = gg_oam_abi_error_response (NULL, GG_JSONRPC_INVALID_REQUEST, "invalid_message",
                                                  "Invalid Request: the id must be a string or an integer");
          return NULL;
        }
    }
  if (!json_object_has_member (object, "jsonrpc"))
    json_object_set_string_member (object, "jsonrpc", "2.0");
  *out_id = json_node_copy (id);
  return json_to_string (root, FALSE);
}

static void
deadline_after (struct timespec *deadline,
                int              timeout_ms)
{
  clock_gettime (CLOCK_MONOTONIC, deadline);
  deadline->tv_sec += timeout_ms / 1000;
  deadline->tv_nsec += (long) (timeout_ms % 1000) * 1000000L;
  if (deadline->tv_nsec >= 1000000000L)
    {
      deadline->tv_sec++;
      deadline->tv_nsec -= 1000000000L;
    }
}

static char *
cancel_notification (JsonNode *id)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  JsonObject *object = json_object_new ();
  JsonObject *params = json_object_new ();

  json_object_set_string_member (object, "jsonrpc", "2.0");
  json_object_set_string_member (object, "method", "request/cancel");
  json_object_set_member (params, "id", json_node_copy (id));
  json_object_set_object_member (object, "params", params);
  json_node_take_object (root, object);
  return json_to_string (root, FALSE);
}

char *
oam_call_blocking (oam_bridge *bridge,
                   const char *request_json,
                   int         timeout_ms)
{
  g_autoptr(JsonNode) id = NULL;
  g_autofree char *line = NULL;
  g_autofree char *cancel = NULL;
  char *response = NULL;
  GgOamAbiCall call = { NULL, NULL };
  struct timespec deadline;
  gboolean timed_out = FALSE;

  if (bridge == NULL || request_json == NULL)
    return NULL;
  line = prepare_request (bridge, request_json, &id, &response);
  if (line == NULL)
    return response;
  if (gg_oam_abi_on_bridge_thread (bridge))
    return gg_oam_abi_error_response (id, GG_JSONRPC_INVALID_REQUEST, "invalid_message",
                                      "Invalid Request: oam_call_blocking() cannot wait inside the "
                                      "bridge's callback (it would wait for itself): use oam_bridge_send()");
  call.key = gg_oam_abi_id_key (id);
  if (timeout_ms > 0)
    deadline_after (&deadline, timeout_ms);

  pthread_mutex_lock (&bridge->lock);
  if (bridge->destroying)
    {
      pthread_mutex_unlock (&bridge->lock);
      g_free (call.key);
      return gg_oam_abi_error_response (id, -32023, "shut_down", "The bridge is being destroyed");
    }
  if (g_hash_table_contains (bridge->calls, call.key))
    {
      pthread_mutex_unlock (&bridge->lock);
      g_free (call.key);
      return gg_oam_abi_error_response (id, GG_JSONRPC_INVALID_REQUEST, "invalid_message",
                                        "Invalid Request: a blocking call with this id is waiting already");
    }
  g_hash_table_insert (bridge->calls, call.key, &call);
  /* A late answer to an earlier call with this id is not this one's. */
  g_hash_table_remove (bridge->abandoned, call.key);
  bridge->active_calls++;
  pthread_mutex_unlock (&bridge->lock);

  gg_oam_abi_enqueue (bridge, line, strlen (line));

  pthread_mutex_lock (&bridge->lock);
  while (call.response == NULL && !bridge->destroying && !timed_out)
    {
      if (timeout_ms > 0)
        timed_out = pthread_cond_timedwait (&bridge->cond, &bridge->lock, &deadline) == ETIMEDOUT &&
                    call.response == NULL;
      else
        pthread_cond_wait (&bridge->cond, &bridge->lock);
    }
  g_hash_table_remove (bridge->calls, call.key);
  if (call.response != NULL)
    response = g_steal_pointer (&call.response);
  else if (timed_out && !bridge->destroying)
    g_hash_table_add (bridge->abandoned, g_strdup (call.key));
  else
    timed_out = FALSE;
  pthread_mutex_unlock (&bridge->lock);
  g_free (call.key);

  /* Still counted as active: the bridge cannot be freed under us. */
  if (timed_out)
    {
      cancel = cancel_notification (id);
      gg_oam_abi_enqueue (bridge, cancel, strlen (cancel));
    }
  pthread_mutex_lock (&bridge->lock);
  bridge->active_calls--;
  pthread_cond_broadcast (&bridge->cond);
  pthread_mutex_unlock (&bridge->lock);

  if (response != NULL)
    return response;
  if (!timed_out)
    return gg_oam_abi_error_response (id, -32023, "shut_down", "The bridge was destroyed");
  {
    g_autofree char *message = g_strdup_printf ("No response within %d ms: the request was cancelled",
                                                timeout_ms);

    return gg_oam_abi_error_response (id, -32024, "timeout", message);
  }
}
