/* gg-a2g-settings.h: the [a2g] configuration group, read once at setup.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

#include "gg-a2g-access.h"
#include "gg-a2g-policy-sign.h"

G_BEGIN_DECLS

typedef struct {
  GgA2gProfile profile;
  GgA2gAccess *access;           /* registered games, transport */
  GgA2gPolicySigner *policy_signer; /* nullable: policy-signing-key */
  char *listen;                  /* "127.0.0.1:8787" */
  char *listen_host;
  guint16 listen_port;
  JsonNode *model;               /* the bus model spec */
  gint64 default_deadline_ms;
  gint64 tls_handshake_timeout_s; /* own TLS: ClientHello and handshake (10) */
  gint64 max_sessions;
  gint64 session_ttl_s;
  gint64 renew_grace_s;
  gint64 cache_entries;
  gint64 cache_ttl_s;
  gint64 max_tracked_entities;
  double nearby_radius;
  gint64 session_token_budget;   /* input+output tokens per hour, 0: none */
  gint64 game_token_budget;      /* per day, 0: none */
  double session_rate, session_burst;   /* model decisions per second */
  double game_rate, game_burst;
  double address_rate, address_burst;   /* requests per second */
  double session_open_rate, session_open_burst;
  double sub_open_rate, sub_open_burst;  /* client profile: per join-token sub */
  gint64 max_sessions_per_sub;   /* client profile: live sessions per sub, 0: unlimited */
  gint64 max_model_calls;        /* model calls in flight */
  gint64 replay_window_s;        /* request_id replays (60) */
  char *redis;                   /* nullable: the shared store's URL (may hold a password) */
  char *redis_prefix;            /* "a2g:" */
  gint64 redis_timeout_ms;       /* a command's or a connect's timeout (250) */
} GgA2gSettings;

gboolean gg_a2g_settings_load   (GgA2gSettings *settings,
                                 GgConfig      *config,
                                 GError       **error);
gboolean gg_a2g_settings_set_listen (GgA2gSettings *settings,
                                     const char    *listen,
                                     GError       **error);
void     gg_a2g_settings_clear  (GgA2gSettings *settings);

G_END_DECLS
