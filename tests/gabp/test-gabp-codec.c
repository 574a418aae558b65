/* test-gabp-codec.c: the GABP schemas and codec: every conformance case by
 * name, outgoing validation, broken, truncated, oversized and hostile
 * input, and framing abuse over a real pipe.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <gio/gunixinputstream.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <gio/gunixoutputstream.h>
#include <string.h>
#include <unistd.h>

#include "gabp-test-util.h"

#define CASES GG_TOP_SRCDIR "/data/gabp/CONFORMANCE/1.0"

/* The method each response case answers (responses carry no method). */
static const char *
response_method (const char *file)
{
  if (strstr (file, "session_welcome")) return "session/hello";
  if (strstr (file, "tools_list")) return "tools/list";
  if (strstr (file, "attention_current")) return "attention/current";
  if (strstr (file, "attention_ack")) return "attention/ack";
  return NULL;
}

typedef struct {
  GgGabpCodec *codec;
  int          requests, responses, events, invalid;
  int          last_code;
  gboolean     closed;
  char        *last_method;
  char        *last_invalid_id;
} Counts;

static void on_request (GgGabpCodec *c, const char *id, const char *method, JsonObject *params, Counts *n)
{ n->requests++; g_free (n->last_method); n->last_method = g_strdup (method); }
static void on_response (GgGabpCodec *c, const char *id, JsonNode *result, JsonObject *error, Counts *n)
{ n->responses++; }
static void on_event (GgGabpCodec *c, const char *channel, guint64 seq, JsonNode *payload, Counts *n)
{ n->events++; }
static void on_invalid (GgGabpCodec *c, const char *id, const char *type, GError *error, Counts *n)
{ n->invalid++; n->last_code = error->code; g_free (n->last_invalid_id); n->last_invalid_id = g_strdup (id); }
static void on_closed (GgGabpCodec *c, GError *error, Counts *n)
{ n->closed = TRUE; }

static void
counts_connect (Counts *n, GgGabpCodec *codec)
{
  n->codec = codec;
  g_signal_connect (codec, "request", G_CALLBACK (on_request), n);
  g_signal_connect (codec, "response", G_CALLBACK (on_response), n);
  g_signal_connect (codec, "event", G_CALLBACK (on_event), n);
  g_signal_connect (codec, "invalid", G_CALLBACK (on_invalid), n);
  g_signal_connect (codec, "closed", G_CALLBACK (on_closed), n);
}

static void
counts_clear (Counts *n)
{
  g_free (n->last_method);
  g_free (n->last_invalid_id);
}

/* A codec reading from a pipe we write to, writing to a pipe we read. */
typedef struct {
  GgGabpCodec *codec;
  int          to_codec;    /* write end */
  int          from_codec;  /* read end */
  Counts       n;
} Pipes;

static void
pipes_open (Pipes *p)
{
  int in[2], out[2];
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();

  g_assert_cmpint (pipe (in), ==, 0);
  g_assert_cmpint (pipe (out), ==, 0);
  g_unix_set_fd_nonblocking (in[0], TRUE, NULL);
  g_unix_set_fd_nonblocking (in[1], TRUE, NULL);
  g_unix_set_fd_nonblocking (out[1], TRUE, NULL);
  input = g_unix_input_stream_new (in[0], TRUE);
  output = g_unix_output_stream_new (out[1], TRUE);
  p->to_codec = in[1];
  p->from_codec = out[0];
  memset (&p->n, 0, sizeof p->n);
  p->codec = gg_gabp_codec_new_for_streams (input, output, schemas);
  counts_connect (&p->n, p->codec);
  gg_gabp_codec_start (p->codec);
}

static void
pipes_close (Pipes *p)
{
  g_clear_object (&p->codec);
  close (p->to_codec);
  close (p->from_codec);
  counts_clear (&p->n);
}

static void
pipes_write (Pipes *p, const char *data, gsize length)
{
  gsize done = 0;

  while (done < length)
    {
      gssize w = write (p->to_codec, data + done, length - done);
      if (w < 0 && errno != EAGAIN && errno != EINTR)
        return;  /* the codec closed its end (EPIPE): that is what some tests expect */
      if (w < 0)
        {
          /* The pipe is full: let the codec read. */
          g_main_context_iteration (NULL, FALSE);
          continue;
        }
      done += (gsize) w;
      g_main_context_iteration (NULL, FALSE);
    }
}

static void
pipes_frame (Pipes *p, const char *json)
{
  g_autofree char *frame = g_strdup_printf ("Content-Length: %zu\r\n\r\n%s", strlen (json), json);
  pipes_write (p, frame, strlen (frame));
}

static gboolean
total_at_least (gpointer data)
{
  Pipes *p = data;
  return p->n.requests + p->n.responses + p->n.events + p->n.invalid >= 1 || p->n.closed;
}

static void
pipes_settle (Pipes *p)
{
  gg_test_wait_for (total_at_least, p, 2000);
  gg_test_spin (20);
}

#define HELLO "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440000\",\"type\":\"request\",\"method\":\"tools/list\",\"params\":{}}"

/* Conformance ----------------------------------------------------------- */

static void
test_conformance (gconstpointer data)
{
  const char *path = data;
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();
  g_autofree char *contents = NULL;
  g_autofree char *base = g_path_get_basename (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  gboolean expect_valid = strstr (path, "/valid/") != NULL;
  gboolean valid;

  g_assert_true (g_file_get_contents (path, &contents, NULL, &error));
  node = gg_json_parse (contents, -1, 64, &error);
  g_assert_no_error (error);

  valid = gg_gabp_schemas_validate (schemas, node, response_method (base), NULL, &error);
  if (expect_valid)
    g_assert_no_error (error);
  else
    g_assert_error (error, GG_SCHEMA_ERROR, GG_SCHEMA_ERROR_INVALID);
  g_assert_cmpint (valid, ==, expect_valid);

  /* Requests and events the same way through the codec. */
  {
    g_autoptr(GgGabpCodec) codec = NULL;
    g_autoptr(GInputStream) in = g_memory_input_stream_new ();
    g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
    JsonObject *o = json_node_get_object (node);
    const char *type = json_object_get_string_member_with_default (o, "type", "");
    Counts n = { 0 };

    if (g_str_equal (type, "response"))
      return;
    codec = gg_gabp_codec_new_for_streams (in, out, schemas);
    counts_connect (&n, codec);
    g_assert_cmpint (gg_gabp_codec_process (codec, contents, strlen (contents)), ==, expect_valid);
    g_assert_cmpint (n.invalid, ==, expect_valid ? 0 : 1);
    g_assert_cmpint (n.requests + n.events, ==, expect_valid ? 1 : 0);
    counts_clear (&n);
  }
}

static void
test_schemas_all_methods (void)
{
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();
  const char *methods[] = { "session/hello", "tools/list", "tools/call", "events/subscribe",
                            "events/unsubscribe", "resources/list", "resources/read", "state/get",
                            "state/set", "attention/current", "attention/ack" };

  for (gsize i = 0; i < G_N_ELEMENTS (methods); i++)
    g_assert_true (gg_gabp_schemas_has_method (schemas, methods[i]));
  g_assert_false (gg_gabp_schemas_has_method (schemas, "session/welcome"));
}

static void
test_schemas_missing_dir (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GgGabpSchemas) schemas = gg_gabp_schemas_new_from_dir ("/nonexistent", &error);

  g_assert_null (schemas);
  g_assert_nonnull (error);
}

static void
test_schemas_hostile_ref (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gabp-schema-XXXXXX", NULL);
  g_autofree char *root = g_build_filename (dir, "SCHEMA", "1.0", NULL);
  g_autofree char *methods = g_build_filename (root, "methods", NULL);
  g_autofree char *events = g_build_filename (root, "events", NULL);
  g_autofree char *env = g_build_filename (root, "envelope.schema.json", NULL);
  g_autofree char *att = g_build_filename (events, "attention.payload.schema.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GgGabpSchemas) schemas = NULL;

  g_mkdir_with_parents (methods, 0700);
  g_mkdir_with_parents (events, 0700);
  /* A reference to itself must not recurse forever; a remote one is refused. */
  g_file_set_contents (env, "{\"$ref\":\"envelope.schema.json\"}", -1, NULL);
  g_file_set_contents (att, "{\"$ref\":\"https://example.com/x.json\"}", -1, NULL);
  schemas = gg_gabp_schemas_new_from_dir (dir, &error);
  g_assert_null (schemas);
  g_assert_nonnull (error);
  g_remove (env);
  g_remove (att);
  g_rmdir (methods);
  g_rmdir (events);
  g_rmdir (root);
  g_autofree char *schema_dir = g_build_filename (dir, "SCHEMA", NULL);
  g_rmdir (schema_dir);
  g_rmdir (dir);
}

/* Hostile bodies --------------------------------------------------------- */

#define UUID "550e8400-e29b-41d4-a716-446655440000"

static void
test_codec_bad_bodies (void)
{
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();
  g_autoptr(GInputStream) in = g_memory_input_stream_new ();
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GgGabpCodec) codec = gg_gabp_codec_new_for_streams (in, out, schemas);
  g_autoptr(GString) deep = g_string_new (NULL);
  g_autofree char *zeros = g_strnfill (400, '0');
  g_autofree char *huge = g_strdup_printf ("{\"v\":\"gabp/1\",\"id\":\"%s\",\"type\":\"request\",\"method\":\"session/hello\","
                                           "\"params\":{\"n\":1%s}}", UUID, zeros);
  Counts n = { 0 };
  /* An invalid message keeps the id it shows, even one that is not JSON
   * after it, so that a request can be answered. */
  struct { const char *body; int code; const char *id; } cases[] = {
    { "{", GG_GABP_ERROR_PARSE, NULL },
    { "", GG_GABP_ERROR_PARSE, NULL },
    { "\xff\xfe", GG_GABP_ERROR_PARSE, NULL },
    { "[1,2]", GG_GABP_ERROR_INVALID_REQUEST, NULL },
    { "42", GG_GABP_ERROR_INVALID_REQUEST, NULL },
    { "{\"v\":\"gabp/1\",\"id\":\"x\",\"type\":\"request\",\"method\":\"tools/list\"}", GG_GABP_ERROR_INVALID_REQUEST, "x" },
    { "{\"v\":\"gabp/1\",\"id\":\"" UUID "\",\"type\":\"bogus\"}", GG_GABP_ERROR_INVALID_REQUEST, UUID },
    { "{\"v\":\"gabp/1\",\"id\":\"" UUID "\",\"type\":\"request\",\"method\":\"tools/call\",\"params\":{}}", GG_GABP_ERROR_INVALID_PARAMS, UUID },
    { "{\"v\":\"gabp/1\",\"id\":\"" UUID "\",\"type\":\"event\",\"channel\":\"a\",\"seq\":-1,\"payload\":1}", GG_GABP_ERROR_INVALID_REQUEST, UUID },
    { "{\"v\":\"gabp/1\",\"id\":\"" UUID "\",\"type\":\"request\",\"method\":\"tools/list\",\"params\":[]}", GG_GABP_ERROR_INVALID_REQUEST, UUID },
    /* Well-formed but for a number beyond a double: an invalid request. */
    { huge, GG_GABP_ERROR_INVALID_REQUEST, UUID },
    /* Broken after the id: not JSON, the id read all the same. */
    { "{\"v\":\"gabp/1\",\"id\":\"" UUID "\",\"type\":\"request\",\"method\":\"tools/list\",\"params\":{", GG_GABP_ERROR_PARSE, UUID },
    { "{\"v\":\"gabp/1\",\"id\":\"" UUID "\",oops}", GG_GABP_ERROR_PARSE, UUID },
    /* Broken inside the id: none. */
    { "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b", GG_GABP_ERROR_PARSE, NULL },
  };

  counts_connect (&n, codec);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      n.invalid = 0;
      g_assert_false (gg_gabp_codec_process (codec, cases[i].body, strlen (cases[i].body)));
      g_assert_cmpint (n.invalid, ==, 1);
      g_assert_cmpint (n.last_code, ==, cases[i].code);
      g_assert_cmpstr (n.last_invalid_id, ==, cases[i].id);
    }

  for (int i = 0; i < 10000; i++)
    g_string_append_c (deep, '[');
  n.invalid = 0;
  g_assert_false (gg_gabp_codec_process (codec, deep->str, deep->len));
  g_assert_cmpint (n.last_code, ==, GG_GABP_ERROR_PARSE);
  g_assert_cmpint (n.requests + n.responses + n.events, ==, 0);
  counts_clear (&n);
}

static void
test_codec_lenient_hello (void)
{
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();
  g_autoptr(GInputStream) in = g_memory_input_stream_new ();
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GgGabpCodec) codec = gg_gabp_codec_new_for_streams (in, out, schemas);
  const char *darwin = "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440000\",\"type\":\"request\","
                       "\"method\":\"session/hello\",\"params\":{\"token\":\"" TEST_TOKEN "\",\"bridgeVersion\":\"1\","
                       "\"platform\":\"darwin\",\"launchId\":\"550e8400-e29b-41d4-a716-446655440001\"}}";
  const char *no_token = "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440000\",\"type\":\"request\","
                         "\"method\":\"session/hello\",\"params\":{\"bridgeVersion\":\"1\","
                         "\"platform\":\"linux\",\"launchId\":\"550e8400-e29b-41d4-a716-446655440001\"}}";
  Counts n = { 0 };

  counts_connect (&n, codec);
  /* GABS sends platform "darwin"; only that deviation is forgiven. */
  g_assert_true (gg_gabp_codec_process (codec, darwin, strlen (darwin)));
  g_assert_false (gg_gabp_codec_process (codec, no_token, strlen (no_token)));
  g_assert_cmpint (n.last_code, ==, GG_GABP_ERROR_INVALID_PARAMS);
  counts_clear (&n);
}

static void
test_codec_validation_off (void)
{
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();
  g_autoptr(GInputStream) in = g_memory_input_stream_new ();
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GgGabpCodec) codec = gg_gabp_codec_new_for_streams (in, out, schemas);
  const char *bad_method = "{\"v\":\"gabp/1\",\"id\":\"x\",\"type\":\"request\",\"method\":\"Not.Valid\"}";
  const char *no_type = "{\"v\":\"gabp/1\",\"id\":\"x\"}";
  Counts n = { 0 };

  counts_connect (&n, codec);
  gg_gabp_codec_set_validate (codec, FALSE);
  g_assert_true (gg_gabp_codec_process (codec, bad_method, strlen (bad_method)));
  g_assert_false (gg_gabp_codec_process (codec, no_type, strlen (no_type)));
  g_assert_cmpstr (n.last_method, ==, "Not.Valid");
  counts_clear (&n);
}

/* Outgoing validation ------------------------------------------------------ */

static void
test_codec_outgoing (void)
{
  Pipes p;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  g_autoptr(JsonNode) bad_tools = json_from_string ("{\"tools\":[{\"name\":\"inventory.get\"}]}", NULL);
  g_autoptr(JsonNode) good = json_from_string ("{\"tools\":[]}", NULL);
  g_autoptr(JsonNode) payload = json_from_string ("{\"attentionId\":\"a\"}", NULL);
  char buf[4096];
  gssize r;

  pipes_open (&p);
  id = gg_gabp_codec_send_request (p.codec, "Bad.Method", NULL, &error);
  g_assert_null (id);
  g_assert_error (error, GG_SCHEMA_ERROR, GG_SCHEMA_ERROR_INVALID);
  g_clear_error (&error);

  /* An incoming tools/list, answered with a result that breaks its schema:
   * the peer gets -32603 instead. */
  pipes_frame (&p, HELLO);
  pipes_settle (&p);
  g_assert_cmpint (p.n.requests, ==, 1);
  g_assert_false (gg_gabp_codec_send_result (p.codec, "550e8400-e29b-41d4-a716-446655440000", bad_tools, &error));
  g_assert_error (error, GG_SCHEMA_ERROR, GG_SCHEMA_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_true (gg_gabp_codec_send_result (p.codec, "550e8400-e29b-41d4-a716-446655440000", good, &error));
  g_assert_no_error (error);
  /* An attention event with an incomplete payload is refused. */
  g_assert_false (gg_gabp_codec_send_event (p.codec, "attention/opened", 0, payload, &error));
  g_clear_error (&error);
  g_assert_true (gg_gabp_codec_send_event (p.codec, "world/tick", 0, payload, &error));
  g_assert_no_error (error);
  gg_test_spin (50);
  r = read (p.from_codec, buf, sizeof buf - 1);
  g_assert_cmpint (r, >, 0);
  buf[r] = '\0';
  g_assert_nonnull (strstr (buf, "\"code\":-32603"));
  g_assert_nonnull (strstr (buf, "{\"tools\":[]}"));
  g_assert_nonnull (strstr (buf, "\"channel\":\"world/tick\""));
  g_assert_true (g_str_has_prefix (buf, "Content-Length: "));
  pipes_close (&p);
}

/* Framing abuse ------------------------------------------------------------ */

static void
test_framing_split_headers (void)
{
  Pipes p;
  g_autofree char *frame = g_strdup_printf ("content-length: %zu\nContent-Type: application/json\n\n%s", strlen (HELLO), HELLO);

  pipes_open (&p);
  /* One byte per read, LF-only lines, lower-case header name. */
  for (gsize i = 0; frame[i] != '\0'; i++)
    {
      pipes_write (&p, frame + i, 1);
      g_main_context_iteration (NULL, FALSE);
    }
  pipes_settle (&p);
  g_assert_cmpint (p.n.requests, ==, 1);
  g_assert_cmpint (p.n.invalid, ==, 0);
  g_assert_false (p.n.closed);
  pipes_close (&p);
}

static void
test_framing_missing_length (void)
{
  Pipes p;
  const char *frame = "Content-Type: application/json\r\n\r\n{}";

  pipes_open (&p);
  pipes_write (&p, frame, strlen (frame));
  pipes_settle (&p);
  g_assert_true (p.n.closed);
  g_assert_cmpint (p.n.requests, ==, 0);
  pipes_close (&p);
}

static void
test_framing_bad_length (void)
{
  const char *frames[] = {
    "Content-Length: abc\r\n\r\n{}",
    "Content-Length: -5\r\n\r\n{}",
    "Content-Length: 12x\r\n\r\n{}",
    "garbage line\r\n\r\n" HELLO,
  };

  for (gsize i = 0; i < G_N_ELEMENTS (frames); i++)
    {
      Pipes p;

      pipes_open (&p);
      pipes_write (&p, frames[i], strlen (frames[i]));
      pipes_settle (&p);
      g_assert_true (p.n.closed);
      g_assert_cmpint (p.n.requests, ==, 0);
      pipes_close (&p);
    }
}

static void
test_framing_garbage_between (void)
{
  Pipes p;
  g_autofree char *frame = g_strdup_printf ("Content-Length: %zu\r\n\r\n%s", strlen (HELLO), HELLO);

  pipes_open (&p);
  pipes_write (&p, frame, strlen (frame));
  /* Blank lines between messages are harmless ... */
  pipes_write (&p, "\r\n\r\n", 4);
  pipes_write (&p, frame, strlen (frame));
  gg_test_spin (50);
  g_assert_cmpint (p.n.requests, ==, 2);
  /* ... text is not: the stream cannot be trusted any more. */
  pipes_write (&p, "xyzzy\r\n", 7);
  pipes_write (&p, frame, strlen (frame));
  gg_test_spin (50);
  g_assert_true (p.n.closed);
  g_assert_cmpint (p.n.requests, ==, 2);
  pipes_close (&p);
}

static void
test_framing_oversized (void)
{
  Pipes p;
  gsize limit = GG_GABP_DEFAULT_MAX_MESSAGE_SIZE;
  g_autofree char *big = g_malloc (limit + 2);
  g_autofree char *header = NULL;
  g_autofree char *frame = g_strdup_printf ("Content-Length: %zu\r\n\r\n%s", strlen (HELLO), HELLO);

  /* 1 MiB + 1 byte of JSON whitespace: refused, skipped whole, and the
   * next message still arrives. */
  memset (big, ' ', limit + 1);
  big[limit + 1] = '\0';
  header = g_strdup_printf ("Content-Length: %zu\r\n\r\n", limit + 1);
  pipes_open (&p);
  pipes_write (&p, header, strlen (header));
  pipes_write (&p, big, limit + 1);
  pipes_write (&p, frame, strlen (frame));
  gg_test_spin (100);
  g_assert_cmpint (p.n.invalid, ==, 1);
  g_assert_cmpint (p.n.last_code, ==, GG_GABP_ERROR_INVALID_REQUEST);
  g_assert_cmpint (p.n.requests, ==, 1);
  g_assert_false (p.n.closed);
  pipes_close (&p);
}

static void
test_framing_exactly_limit (void)
{
  Pipes p;
  gsize limit = GG_GABP_DEFAULT_MAX_MESSAGE_SIZE;
  g_autofree char *body = g_malloc (limit + 1);
  g_autofree char *header = g_strdup_printf ("Content-Length: %zu\r\n\r\n", limit);

  /* A valid request padded with whitespace to exactly 1 MiB is accepted. */
  memset (body, ' ', limit);
  memcpy (body, HELLO, strlen (HELLO));
  body[limit] = '\0';
  pipes_open (&p);
  pipes_write (&p, header, strlen (header));
  pipes_write (&p, body, limit);
  gg_test_spin (100);
  g_assert_cmpint (p.n.requests, ==, 1);
  g_assert_cmpint (p.n.invalid, ==, 0);
  pipes_close (&p);
}

static void
test_framing_huge_length (void)
{
  Pipes p;
  const char *frame = "Content-Length: 99999999999999\r\n\r\n{\"a\":1}";

  pipes_open (&p);
  pipes_write (&p, frame, strlen (frame));
  pipes_settle (&p);
  /* Refused before any allocation. */
  g_assert_true (p.n.invalid == 1 || p.n.closed);
  g_assert_cmpint (p.n.requests, ==, 0);
  pipes_close (&p);
}

static void
test_framing_truncated (void)
{
  Pipes p;
  const char *frame = "Content-Length: 100\r\n\r\n{\"v\":";

  pipes_open (&p);
  pipes_write (&p, frame, strlen (frame));
  close (p.to_codec);
  p.to_codec = open ("/dev/null", O_WRONLY);
  pipes_settle (&p);
  g_assert_true (p.n.closed);
  g_assert_cmpint (p.n.requests, ==, 0);
  pipes_close (&p);
}

int
main (int argc, char **argv)
{
  const char *dirs[] = { CASES "/valid", CASES "/invalid" };
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  g_test_init (&argc, &argv, NULL);
  signal (SIGPIPE, SIG_IGN);

  for (gsize i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autoptr(GDir) dir = g_dir_open (dirs[i], 0, NULL);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;

      g_assert_nonnull (dir);
      while ((name = g_dir_read_name (dir)) != NULL)
        if (g_str_has_suffix (name, ".json"))
          g_ptr_array_add (names, g_strdup (name));
      g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
      for (guint j = 0; j < names->len; j++)
        {
          const char *file = g_ptr_array_index (names, j);
          g_autofree char *stem = g_strndup (file, strlen (file) - 5);
          g_autofree char *test = g_strdup_printf ("/gabp/conformance/%s/%s", i == 0 ? "valid" : "invalid", stem);
          char *path = g_build_filename (dirs[i], file, NULL);

          g_ptr_array_add (paths, path);
          g_test_add_data_func (test, path, test_conformance);
        }
    }
  g_test_add_func ("/gabp/schemas/all-methods", test_schemas_all_methods);
  g_test_add_func ("/gabp/schemas/missing-dir", test_schemas_missing_dir);
  g_test_add_func ("/gabp/schemas/hostile-ref", test_schemas_hostile_ref);
  g_test_add_func ("/gabp/codec/bad-bodies", test_codec_bad_bodies);
  g_test_add_func ("/gabp/codec/lenient-hello", test_codec_lenient_hello);
  g_test_add_func ("/gabp/codec/validation-off", test_codec_validation_off);
  g_test_add_func ("/gabp/codec/outgoing", test_codec_outgoing);
  g_test_add_func ("/gabp/framing/split-headers", test_framing_split_headers);
  g_test_add_func ("/gabp/framing/missing-length", test_framing_missing_length);
  g_test_add_func ("/gabp/framing/bad-length", test_framing_bad_length);
  g_test_add_func ("/gabp/framing/garbage-between", test_framing_garbage_between);
  g_test_add_func ("/gabp/framing/oversized", test_framing_oversized);
  g_test_add_func ("/gabp/framing/exactly-limit", test_framing_exactly_limit);
  g_test_add_func ("/gabp/framing/huge-length", test_framing_huge_length);
  g_test_add_func ("/gabp/framing/truncated", test_framing_truncated);
  return g_test_run ();
}
