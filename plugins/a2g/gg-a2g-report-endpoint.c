/* gg-a2g-report-endpoint.c: POST /v1/report: outcomes of decisions. A report is
 * accepted once, for a decision issued to the same session and entity;
 * the others are listed in `ignored` with their reason. Accepted reports
 * become the entity's memory in its later model decisions.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-endpoints.h"

static const char * const reasons[] = {
  [GG_A2G_REPORT_UNKNOWN] = "unknown",
  [GG_A2G_REPORT_OTHER_SESSION] = "other_session",
  [GG_A2G_REPORT_OTHER_ENTITY] = "other_entity",
  [GG_A2G_REPORT_ALREADY_REPORTED] = "already_reported",
};

typedef struct {
  GgA2gExchange *ex;
  JsonArray *reports;
  guint next;
  gint64 accepted;
  JsonArray *ignored;
} Batch;

static void report_next (Batch *batch);

static void
batch_free (Batch *batch)
{
  gg_a2g_exchange_unref (batch->ex);
  json_array_unref (batch->reports);
  json_array_unref (batch->ignored);
  g_free (batch);
}

static void
on_reported (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Batch *batch = user_data;
  g_autoptr(GError) error = NULL;
  GgA2gReportResult outcome = gg_a2g_store_record_report_finish (GG_A2G_STORE (source), result, &error);
  JsonObject *report = json_array_get_object_element (batch->reports, batch->next);

  if (error != NULL)
    {
      gg_a2g_exchange_reply_error (batch->ex, error);
      batch_free (batch);
      return;
    }
  if (outcome == GG_A2G_REPORT_ACCEPTED)
    batch->accepted++;
  else
    {
      JsonObject *item = json_object_new ();

      json_object_set_string_member (item, "decision_id", json_object_get_string_member (report, "decision_id"));
      json_object_set_string_member (item, "reason", reasons[outcome]);
      json_array_add_object_element (batch->ignored, item);
    }
  batch->next++;
  report_next (batch);
}

static void
report_next (Batch *batch)
{
  GgA2gExchange *ex = batch->ex;
  JsonObject *report;
  JsonNode *reward;

  if (!gg_a2g_exchange_is_live (ex))
    {
      batch_free (batch);
      return;
    }
  if (batch->next == json_array_get_length (batch->reports))
    {
      g_autoptr(JsonObject) reply = gg_a2g_reply_new ();

      json_object_set_boolean_member (reply, "ok", TRUE);
      json_object_set_int_member (reply, "accepted", batch->accepted);
      json_object_set_array_member (reply, "ignored", json_array_ref (batch->ignored));
      gg_a2g_exchange_reply (ex, 200, reply);
      batch_free (batch);
      return;
    }
  report = json_array_get_object_element (batch->reports, batch->next);
  reward = json_object_get_member (report, "reward");
  gg_a2g_store_record_report_async (ex->service->store, ex->session->client_id,
                                    json_object_get_string_member (report, "decision_id"),
                                    json_object_get_string_member (report, "entity"),
                                    json_object_get_string_member (report, "outcome"),
                                    reward != NULL, reward != NULL ? json_node_get_double (reward) : 0,
                                    ex->cancellable, on_reported, batch);
}

static gboolean
is_string (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
}

/**
 * gg_a2g_handle_report:
 * @ex: an authenticated POST /v1/report
 */
void
gg_a2g_handle_report (GgA2gExchange *ex)
{
  JsonNode *node = json_object_get_member (ex->body, "reports");
  JsonArray *reports;
  Batch *batch;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "reports: must be an array");
      return;
    }
  reports = json_node_get_array (node);
  if (json_array_get_length (reports) > GG_A2G_MAX_REPORTS)
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "reports: at most 64 reports per request");
      return;
    }
  for (guint i = 0; i < json_array_get_length (reports); i++)
    {
      JsonNode *item = json_array_get_element (reports, i);
      JsonObject *report;
      JsonNode *outcome, *reward;
      GType type;

      if (!JSON_NODE_HOLDS_OBJECT (item))
        {
          gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "reports[%u]: must be an object", i);
          return;
        }
      report = json_node_get_object (item);
      if (!is_string (json_object_get_member (report, "decision_id")) ||
          strlen (json_object_get_string_member (report, "decision_id")) > 64)
        {
          gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "reports[%u].decision_id: must be a decision id", i);
          return;
        }
      if (!is_string (json_object_get_member (report, "entity")) ||
          !gg_a2g_id_valid (json_object_get_string_member (report, "entity")))
        {
          gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID,
                                "reports[%u].entity: must match ^[a-z][a-z0-9_:.-]{0,63}$", i);
          return;
        }
      outcome = json_object_get_member (report, "outcome");
      if (!is_string (outcome) ||
          (strcmp (json_node_get_string (outcome), "success") != 0 &&
           strcmp (json_node_get_string (outcome), "failure") != 0 &&
           strcmp (json_node_get_string (outcome), "interrupted") != 0))
        {
          gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID,
                                "reports[%u].outcome: must be success, failure or interrupted", i);
          return;
        }
      reward = json_object_get_member (report, "reward");
      if (reward != NULL)
        {
          type = JSON_NODE_HOLDS_VALUE (reward) ? json_node_get_value_type (reward) : G_TYPE_INVALID;
          if ((type != G_TYPE_INT64 && type != G_TYPE_DOUBLE) ||
              !(json_node_get_double (reward) >= -1 && json_node_get_double (reward) <= 1))
            {
              gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "reports[%u].reward: must be a number in [-1, 1]", i);
              return;
            }
        }
    }
  batch = g_new0 (Batch, 1);
  batch->ex = gg_a2g_exchange_ref (ex);
  batch->reports = json_array_ref (reports);
  batch->ignored = json_array_new ();
  report_next (batch);
}
