/* gg-a2g-endpoints.h: the a2g service's endpoints, one handler each, in
 * the files named after them (gg-a2g-<endpoint>-endpoint.c): what
 * gg-a2g-service.c routes to. The session-bound ones run authenticated
 * (the exchange's session set).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-a2g-exchange.h"

G_BEGIN_DECLS

void gg_a2g_handle_health    (GgA2gExchange *ex);   /* GET /health */
void gg_a2g_handle_session   (GgA2gExchange *ex);   /* POST /v1/session */
void gg_a2g_handle_decide    (GgA2gExchange *ex);   /* POST /v1/decide, session-bound */
void gg_a2g_handle_report    (GgA2gExchange *ex);   /* POST /v1/report, session-bound */
void gg_a2g_handle_telemetry (GgA2gExchange *ex);   /* POST /v1/telemetry, session-bound */
void gg_a2g_handle_context   (GgA2gExchange *ex);   /* POST /v1/context, session-bound */
void gg_a2g_handle_usage     (GgA2gExchange *ex);   /* GET /v1/usage */
void gg_a2g_handle_policy    (GgA2gExchange *ex);   /* GET /v1/policy */

G_END_DECLS
