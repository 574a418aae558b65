/* fake-openai-server.h: an OpenAI-compatible HTTP server for tests, on
 * 127.0.0.1, speaking the real wire format (libsoup's SoupServer on the
 * test's own main loop).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

typedef struct _FakeOpenai FakeOpenai;

/**
 * FakeReply:
 *
 * What the server answers to one `POST /chat/completions`, rendered streamed
 * or not as the request asked. Replies are used in the order they were
 * pushed; with none queued the server answers "Hello from the fake server.".
 */
typedef struct {
  guint status;          /* 200 */
  char *text;            /* the answer text (or JSON text of a schema answer) */
  guint text_pieces;     /* streamed deltas the text is split into (default 4) */
  JsonArray *tool_calls; /* [{"id","name","arguments": JSON text}] */
  guint arg_fragments;   /* streamed pieces each tool call's arguments are split into */
  char *finish_reason;   /* default "stop" or "tool_calls" */
  char *refusal;         /* a refusal instead of content */
  char *raw_body;        /* sent verbatim as the body (any status) */
  char *raw_sse;         /* sent verbatim as an event stream */
  guint raw_pieces;      /* writes the raw stream is split into (default 1) */
  char *retry_after;     /* a Retry-After header */
  guint delay_ms;        /* before the response starts */
  guint chunk_delay_ms;  /* between streamed events */
  int drop_after;        /* close the connection after this many events (-1: never) */
  gboolean hang;         /* never finish the response */
  gboolean no_usage;     /* leave usage out */
} FakeReply;

FakeOpenai *fake_openai_new                (void);
void        fake_openai_free               (FakeOpenai *self);
char       *fake_openai_get_base_url       (FakeOpenai *self);
void        fake_openai_set_models         (FakeOpenai         *self,
                                            const char * const *ids);
/* The answer text when no reply is queued (default "Hello from the fake
 * server."). */
void        fake_openai_set_default_text   (FakeOpenai *self,
                                            const char *text);
void        fake_openai_set_api_key        (FakeOpenai *self,
                                            const char *key);
FakeReply  *fake_openai_push               (FakeOpenai *self);
FakeReply  *fake_openai_push_text          (FakeOpenai *self,
                                            const char *text);
FakeReply  *fake_openai_push_error         (FakeOpenai *self,
                                            guint       status,
                                            const char *body);
void        fake_reply_add_tool_call       (FakeReply  *reply,
                                            const char *id,
                                            const char *name,
                                            const char *arguments);
guint       fake_openai_get_n_requests     (FakeOpenai *self);
JsonObject *fake_openai_get_request        (FakeOpenai *self,
                                            guint       index);
const char *fake_openai_get_authorization  (FakeOpenai *self,
                                            guint       index);
guint       fake_openai_get_n_model_lists  (FakeOpenai *self);
guint       fake_openai_get_n_aborted      (FakeOpenai *self);
guint       fake_openai_get_n_pending      (FakeOpenai *self);
guint       fake_openai_get_max_pending    (FakeOpenai *self);
gint64      fake_openai_get_last_served_us (FakeOpenai *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FakeOpenai, fake_openai_free)

G_END_DECLS
