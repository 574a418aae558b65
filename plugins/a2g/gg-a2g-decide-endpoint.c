/* gg-a2g-decide-endpoint.c: POST /v1/decide: the request's structure
 * checked (a structural error refuses the whole request; an entity's own
 * data only its entry), the session's manifest and context read once for
 * every entity, and the request (gg-a2g-decide-request.c) started.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-decide-entity.h"
#include "gg-a2g-decide-request.h"
#include "gg-a2g-endpoints.h"

#define MAX_REQUEST_ID 64

/**
 * gg_a2g_handle_decide:
 * @ex: an authenticated POST /v1/decide
 */
void
gg_a2g_handle_decide (GgA2gExchange *ex)
{
  GgA2gService *service = ex->service;
  GgA2gManifest *manifest = ex->session->manifest;
  JsonNode *epoch = json_object_get_member (ex->body, "epoch");
  JsonNode *request_id = json_object_get_member (ex->body, "request_id");
  JsonNode *entities = json_object_get_member (ex->body, "entities");
  GgA2gContext *context;
  JsonArray *array;
  GgA2gDecideRequest *request;

  if (manifest == NULL)
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_UNAVAILABLE, "The session's manifest is not loaded.");
      return;
    }
  if (epoch != NULL && !(JSON_NODE_HOLDS_VALUE (epoch) && json_node_get_value_type (epoch) == G_TYPE_INT64))
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "epoch: must be an integer");
      return;
    }
  if (request_id != NULL &&
      !(JSON_NODE_HOLDS_VALUE (request_id) && json_node_get_value_type (request_id) == G_TYPE_STRING &&
        strlen (json_node_get_string (request_id)) >= 1 && strlen (json_node_get_string (request_id)) <= MAX_REQUEST_ID))
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "request_id: must be a string of 1 to 64 characters");
      return;
    }
  if (entities == NULL || !JSON_NODE_HOLDS_ARRAY (entities))
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "entities: must be an array");
      return;
    }
  array = json_node_get_array (entities);
  if (json_array_get_length (array) > GG_A2G_MAX_ENTITIES)
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "entities: at most 16 entities per request");
      return;
    }
  context = gg_a2g_session_get_context (ex->session);
  /* Structural errors refuse the request; an entity's own data only its entry. */
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      const char *id, *type;

      if (!JSON_NODE_HOLDS_OBJECT (item))
        {
          gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "entities[%u]: must be an object", i);
          return;
        }
      id = gg_a2g_json_string (json_node_get_object (item), "entity");
      type = gg_a2g_json_string (json_node_get_object (item), "type");
      if (!gg_a2g_id_valid (id))
        {
          gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "entities[%u].entity: must match ^[a-z][a-z0-9_:.-]{0,63}$", i);
          return;
        }
      if (gg_a2g_manifest_get_type (manifest, type) == NULL)
        {
          gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "entities[%u].type: not an entity type of the manifest", i);
          return;
        }
    }

  request = gg_a2g_decide_request_new (ex, manifest, context, epoch,
                                       request_id != NULL ? json_node_get_string (request_id) : NULL);
  for (guint i = 0; i < json_array_get_length (array); i++)
    g_ptr_array_add (request->entities,
                     /* The entry is borrowed from ex->body, which request->ex keeps. */
                     gg_a2g_decide_entity_new (request, json_array_get_object_element (array, i),
                                               service->settings.default_deadline_ms));
  gg_a2g_decide_request_start (request);
}
