/* gg-record.h: the model-record plugin's concepts: cassettes (one recorded
 * model step per JSON line), the recording model that wraps a real one,
 * the replaying model, and the `gamegate cassette` front end.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

/* ---- gg-record-cassette.c ---------------------------------------------- */

/* At most this many bytes of cassette are read (a cassette is a test
 * fixture a person edits, not a data set). */
#define GG_RECORD_MAX_CASSETTE_BYTES (256 * 1024 * 1024)

JsonObject *gg_record_asked_from_request   (GgModelRequest *request);
JsonObject *gg_record_reply_to_json        (const GgModelReply *reply);
GgModelReply *gg_record_reply_from_json    (JsonObject  *object,
                                            GError     **error);
JsonObject *gg_record_error_to_json        (const GError *error);
GError     *gg_record_error_from_json      (JsonObject *object);
char       *gg_record_digest               (JsonObject *asked);
GPtrArray  *gg_record_cassette_load        (const char  *path,
                                            GError     **error);
char       *gg_record_first_difference     (JsonObject *asked,
                                            JsonObject *recorded);
JsonNode   *gg_record_cassette_to_script   (GPtrArray  *entries,
                                            GError    **error);

/* ---- gg-record-model.c and gg-replay-model.c --------------------------- */

#define GG_TYPE_RECORD_MODEL (gg_record_model_get_type ())
G_DECLARE_FINAL_TYPE (GgRecordModel, gg_record_model, GG, RECORD_MODEL, GObject)

GgModel *gg_record_model_new (GgBus       *bus,
                              JsonObject  *spec,
                              GError     **error);

#define GG_TYPE_REPLAY_MODEL (gg_replay_model_get_type ())
G_DECLARE_FINAL_TYPE (GgReplayModel, gg_replay_model, GG, REPLAY_MODEL, GObject)

GgModel *gg_replay_model_new (JsonObject  *spec,
                              GError     **error);

/* ---- gg-record-frontend.c ---------------------------------------------- */

#define GG_TYPE_RECORD_FRONTEND (gg_record_frontend_get_type ())
G_DECLARE_FINAL_TYPE (GgRecordFrontend, gg_record_frontend, GG, RECORD_FRONTEND, GObject)

GgRecordFrontend *gg_record_frontend_new (void);

G_END_DECLS
