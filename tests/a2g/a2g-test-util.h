/* a2g-test-util.h: driving a real `gamegate a2g` over HTTP as a game would:
 * start it with a configuration, send requests (libsoup client, or raw
 * bytes on a socket) and compare JSON answers exactly.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <libsoup/soup.h>

#include "gg-test-util.h"

G_BEGIN_DECLS

typedef struct {
  GgTestProcess *process;
  guint port;
  char *dir;
  SoupSession *http;
  gboolean tls;         /* https (a certificate made by the test: any accepted) */
} A2gService;

typedef struct {
  guint status;
  char *body;
  SoupMessageHeaders *headers;
} A2gResponse;

/* A minimal valid manifest (the spec's pirate) and its pieces. */
extern const char *a2g_test_manifest;
/* deep-miner's manifest (one type, drone: dig or return). */
extern const char *a2g_test_miner_manifest;

A2gService  *a2g_service_start      (const char *config);
A2gService  *a2g_service_start_args (const char *config,
                                     const char * const *extra_args);
A2gService  *a2g_service_start_openai (const char *base_url);
void         a2g_service_stop       (A2gService *service);
A2gResponse *a2g_request            (A2gService         *service,
                                     const char         *method,
                                     const char         *path,
                                     const char * const *headers,
                                     const char         *body);
A2gResponse *a2g_post               (A2gService *service,
                                     const char *path,
                                     const char *token,
                                     const char *body);
A2gResponse *a2g_get                (A2gService *service,
                                     const char *path);
void         a2g_response_free      (A2gResponse *response);
/* Requests in flight side by side: start several, then wait for each. */
typedef struct _A2gPending A2gPending;
A2gPending  *a2g_post_start         (A2gService *service,
                                     const char *path,
                                     const char *token,
                                     const char *body);
A2gResponse *a2g_pending_wait       (A2gPending *pending);
void         a2g_pending_cancel     (A2gPending *pending);
char        *a2g_raw                (A2gService *service,
                                     const char *request,
                                     gsize       length);
char        *a2g_open               (A2gService *service,
                                     const char *client_id,
                                     const char *manifest);
JsonObject  *a2g_json               (A2gResponse *response);
char        *a2g_first_decision     (A2gResponse *response);
char        *a2g_model_config       (const char *steps_json);
void         a2g_assert_json        (const char *actual,
                                     const char *expected);
char        *a2g_strip_member       (const char *json,
                                     const char *member);
void         a2g_assert_no_secret   (A2gService *service,
                                     const char *secret);

/* The server profile (test-a2g-server, test-a2g-console-auth): two
 * registered games with these API keys, orbital-freight with
 * a2g_test_manifest, deep-miner with a2g_test_miner_manifest. */
#define A2G_TEST_KEY_FREIGHT "ak_orbital_7c1e9d20b44f6a83e5d1"
#define A2G_TEST_KEY_MINER "ak_miner_0b93a1f5c27e8d64"

/* A self-signed P-256 certificate and its key, made at test time (openssl). */
typedef struct {
  char *dir;
  char *certificate;
  char *key;
} A2gPem;

char        *a2g_manifest_hash      (const char *manifest);
char        *a2g_server_config      (const char *extra);
char        *a2g_tls_server_config  (A2gPem     *pem,
                                     const char *extra);
A2gResponse *a2g_proxied            (A2gService *service,
                                     const char *method,
                                     const char *path,
                                     const char *bearer,
                                     const char *body);
void         a2g_assert_error       (A2gResponse *response,
                                     guint        status,
                                     const char  *message,
                                     const char  *code);
char        *a2g_server_session     (A2gService *service,
                                     const char *client_id);
A2gPem      *a2g_pem_new            (void);
void         a2g_pem_free           (A2gPem *pem);
void         a2g_assert_refuses_to_start (const char *config,
                                          const char *message,
                                          const char *secret);
char        *a2g_first_event        (A2gService         *service,
                                     const char         *path,
                                     const char * const *headers,
                                     guint              *status);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (A2gResponse, a2g_response_free)

G_END_DECLS
