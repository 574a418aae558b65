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
} A2gService;

typedef struct {
  guint status;
  char *body;
  SoupMessageHeaders *headers;
} A2gResponse;

/* A minimal valid manifest (the spec's pirate) and its pieces. */
extern const char *a2g_test_manifest;

A2gService  *a2g_service_start      (const char *config);
A2gService  *a2g_service_start_args (const char *config,
                                     const char * const *extra_args);
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
char        *a2g_model_config       (const char *steps_json);
void         a2g_assert_json        (const char *actual,
                                     const char *expected);
char        *a2g_strip_member       (const char *json,
                                     const char *member);
void         a2g_assert_no_secret   (A2gService *service,
                                     const char *secret);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (A2gResponse, a2g_response_free)

G_END_DECLS
