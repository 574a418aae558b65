/* gabp-test-util.h: helpers for the GABP tests: the reference mod as a
 * child process, and a raw GABP peer that writes exact bytes and reads
 * whole messages while the main loop keeps running.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

#include "gg-gabp-codec.h"
#include "gg-test-server.h"
#include "gg-test-util.h"

#define TEST_TOKEN  "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define TEST_TOKEN2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

GgTestServer *test_mod_start     (guint16 port, const char *token);

typedef struct {
  GSocketConnection *connection;
  GgFramedStream    *stream;
  GQueue             messages;   /* JsonNode */
  gboolean           closed;
} TestPeer;

TestPeer   *test_peer_connect       (guint16 port);
/* test_peer_connect() once 127.0.0.1:@port accepts connections (a server
 * starting); NULL once @timeout_ms is up. */
TestPeer   *test_peer_connect_with_retry (guint16 port, guint timeout_ms);
TestPeer   *test_peer_new_for_connection (GSocketConnection *connection);
void        test_peer_free          (TestPeer *peer);
void        test_peer_attach        (TestPeer *peer);
void        test_peer_send_raw      (TestPeer *peer, const char *data, gsize length);
void        test_peer_send          (TestPeer *peer, const char *json);
char       *test_peer_request       (TestPeer *peer, const char *method, const char *params_json);
JsonNode   *test_peer_next          (TestPeer *peer, guint timeout_ms);
JsonObject *test_peer_wait_response (TestPeer *peer, const char *id);
gboolean    test_peer_wait_closed   (TestPeer *peer, guint timeout_ms);
JsonObject *test_peer_hello         (TestPeer *peer, const char *token);
int         test_response_error_code (JsonObject *response);

GgGabpSchemas *test_schemas         (void);
