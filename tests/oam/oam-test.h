/* oam-test.h: drives the built `gamegate oam` over real pipes, the way a
 * game engine does, and compares its messages as exact JSON lines.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-test-exchange.h"
#include "gg-test-util.h"

G_BEGIN_DECLS

typedef struct {
  GgTestProcess *process;
} OamClient;

OamClient *oam_client_new        (const char * const *args,
                                  const char * const *env);
void       oam_send              (OamClient  *client,
                                  const char *line);
char      *oam_recv              (OamClient *client);
void       oam_expect            (OamClient  *client,
                                  const char *expected);
void       oam_expect_prefix     (OamClient  *client,
                                  const char *prefix);
int        oam_client_finish     (OamClient *client,
                                  char     **rest);
void       oam_client_free       (OamClient *client);
char      *oam_normalize         (const char *line);
void       oam_run_exchange      (const char * const *args,
                                  const char * const *env,
                                  const char * const *lines);
void       oam_play              (OamClient  *client,
                                  const char *name);
void       oam_run_exchange_file (const char * const *args,
                                  const char * const *env,
                                  const char         *name);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OamClient, oam_client_free)

/* A scripted model value for params. */
#define OAM_SCRIPT(steps) "\"model\":{\"type\":\"scripted\",\"steps\":" steps "}"

G_END_DECLS
