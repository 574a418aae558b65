/* mcp-http-test.h: what the MCP Streamable HTTP test programs share: the
 * MCP server with the fake provider on a loopback port, a libsoup client, and
 * reading status, headers, JSON and SSE events of each answer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <string.h>
#include <libsoup/soup.h>

#include "gb-mcp-server.h"
#include "gb-mcp-private.h"
#include "mcp-fake-provider.h"

G_BEGIN_DECLS

typedef struct {
  FakeProvider  fake;
  GbMcpServer  *server;
  SoupSession  *client;
  char         *url;
} Fixture;

typedef struct {
  SoupMessage *msg;
  GBytes      *body;
  GError      *error;
  gboolean     done;
} Pending;

#define INIT_BODY "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":" \
                  "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}," \
                  "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"

void pending_free (Pending *pending);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Pending, pending_free)
void fixture_set_up (Fixture       *fx,
                     gconstpointer  data);
void iterate_for (guint ms);
void fixture_tear_down (Fixture       *fx,
                        gconstpointer  data);
void sent_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data);
Pending *start (Fixture            *fx,
                const char         *method,
                const char         *url,
                const char         *session_id,
                const char         *body,
                const char * const *headers);
void wait_for (Pending *pending);
Pending *request (Fixture            *fx,
                  const char         *method,
                  const char         *session_id,
                  const char         *body,
                  const char * const *headers);
guint status_of (Pending *pending);
const char *header_of (Pending    *pending,
                       const char *name);
char *body_of (Pending *pending);
JsonNode *json_of (Pending *pending);
GPtrArray *events_of (Pending *pending);
JsonNode *answer_of (Pending *pending);
gint64 member_int (JsonNode   *node,
                   const char *path);
const char *member_string (JsonNode   *node,
                           const char *path);
char *open_session (Fixture *fx);
char *open_session_version (Fixture    *fx,
                            const char *version);

/* A request whose SSE answer is read as it comes. */
typedef struct {
  SoupMessage      *msg;
  GInputStream     *body;
  GDataInputStream *lines;
  GString          *seen;    /* every line read, each ending in "\n" */
  gboolean          waiting;
  gboolean          eof;
} Stream;

/* Sends the request and waits for the answer's headers. */
Stream *stream_open        (Fixture            *fx,
                            const char         *method,
                            const char         *session_id,
                            const char         *body,
                            const char * const *headers);
void    stream_read_until  (Stream     *stream,
                            const char *needle);
/* Reads until the server ends the answer. */
void    stream_read_to_end (Stream *stream);
/* Closes the connection before the answer ends, as a network drop would. */
void    stream_drop        (Stream *stream);
void    stream_free        (Stream *stream);

G_END_DECLS
