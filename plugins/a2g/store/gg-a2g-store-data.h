/* gg-a2g-store-data.h: the plain data that crosses the store interface
 * (gg-a2g-store.h): a session's snapshot, a cache entry, a decision record,
 * an entity's telemetry, a budget's limit and a counter's delta. Each
 * serialises as it is (strings, numbers, JSON), so that a shared store
 * keeps what the process store keeps.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "gg-a2g-context.h"
#include "gg-a2g-manifest.h"

G_BEGIN_DECLS

/* A session as the store has it, a snapshot: read-only for callers. */
typedef struct {
  gatomicrefcount ref;
  char *client_id;
  char *id;                  /* random: scopes the session cache */
  char *game;
  char *manifest_hash;
  GgA2gManifest *manifest;   /* nullable: not readable from the store */
  char *token;               /* the current session token */
  gint64 ttl_s;              /* expires_in */
  GgA2gContext *context;     /* nullable: none set yet (gg_a2g_session_get_context) */
} GgA2gSession;

GgA2gSession *gg_a2g_session_new         (const char    *client_id,
                                          const char    *id,
                                          const char    *game,
                                          GgA2gManifest *manifest,
                                          const char    *manifest_hash,
                                          const char    *token,
                                          gint64         ttl_s,
                                          GgA2gContext  *context);
GgA2gSession *gg_a2g_session_ref         (GgA2gSession *session);
void          gg_a2g_session_unref       (GgA2gSession *session);
GgA2gContext *gg_a2g_session_get_context (GgA2gSession *session);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgA2gSession, gg_a2g_session_unref)

/* One cached decision. @key is "game:<hex>" or "session:<session id>:<hex>". */
typedef struct {
  gatomicrefcount ref;
  char *key;
  char *manifest_hash;
  char *type;
  JsonNode *situation;      /* the quantised observations */
  JsonNode *legal_actions;  /* sorted */
  char *action;
  gint64 confidence;
  char *reason;
  gint64 expires_us;        /* monotonic */
} GgA2gCacheEntry;

GgA2gCacheEntry *gg_a2g_cache_entry_new   (void);
GgA2gCacheEntry *gg_a2g_cache_entry_ref   (GgA2gCacheEntry *entry);
void             gg_a2g_cache_entry_unref (GgA2gCacheEntry *entry);
GPtrArray       *gg_a2g_cache_hits_new    (guint n_keys);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgA2gCacheEntry, gg_a2g_cache_entry_unref)

/* One budget a reservation draws on. */
typedef struct {
  const char *scope;     /* "session:<client_id>", "game:<game>" */
  gint64 limit;          /* tokens per window; 0: unlimited (still counted) */
  gint64 window_s;
  const char *window;    /* "hour", "day" */
} GgA2gBudgetLimit;

/* One decision, kept for reports and memory as long as its session lives. */
typedef struct {
  gatomicrefcount ref;
  char *decision_id;
  char *entity;
  char *type;
  char *action;
  gint64 confidence;
  char *reason;          /* nullable */
  char *situation_key;   /* hex: the cache key of the situation */
  char *outcome;         /* nullable until reported */
  double reward;
  gboolean has_reward;
} GgA2gRecord;

GgA2gRecord *gg_a2g_record_new   (void);
GgA2gRecord *gg_a2g_record_ref   (GgA2gRecord *record);
void         gg_a2g_record_unref (GgA2gRecord *record);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgA2gRecord, gg_a2g_record_unref)

/* What record_report() did with a report. */
typedef enum {
  GG_A2G_REPORT_ACCEPTED,
  GG_A2G_REPORT_UNKNOWN,
  GG_A2G_REPORT_OTHER_SESSION,
  GG_A2G_REPORT_OTHER_ENTITY,
  GG_A2G_REPORT_ALREADY_REPORTED,
} GgA2gReportResult;

/* The latest telemetry entry of one entity: scalars only. */
typedef struct {
  char *entity;
  char *type;            /* nullable */
  char *faction;         /* nullable */
  gboolean has_pos;
  double pos[3];
  guint dims;
  JsonObject *scalars;   /* the other kept members */
} GgA2gTelemetry;

GgA2gTelemetry *gg_a2g_telemetry_copy (const GgA2gTelemetry *entry);
void            gg_a2g_telemetry_free (GgA2gTelemetry *entry);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgA2gTelemetry, gg_a2g_telemetry_free)

/* One of the service's counters (/v1/usage) and what to add to it. */
typedef struct {
  const char *name;      /* "decisions.model", "fallbacks.busy", "tokens.input", ... */
  gint64 value;
} GgA2gCounter;

G_END_DECLS
