/* a2g-test-util.c: helpers of the a2g tests (see a2g-test-util.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "a2g-test-util.h"
#include "gg-a2g-canonical.h"

/* deep-miner's (registered in a2g_server_config()). */
const char *a2g_test_miner_manifest =
  "{\"a2g\":\"0.1\",\"game\":\"deep-miner\",\"world\":\"Mining drones in an asteroid belt.\","
  "\"entity_types\":{\"drone\":{\"observations\":{\"ore\":{\"type\":\"integer\",\"min\":0,\"max\":100}},"
  "\"actions\":{\"dig\":{},\"return\":{}},\"cache\":\"game\"}}}";

const char *a2g_test_manifest =
  "{\"a2g\":\"0.1\",\"game\":\"orbital-freight\",\"version\":\"0.9.2\","
  "\"world\":\"A cargo-hauling game on an orbital station. Pirates raid slow freighters.\","
  "\"entity_types\":{\"pirate\":{\"description\":\"A raider in a small fast ship.\","
  "\"observations\":{\"hp\":{\"type\":\"integer\",\"min\":0,\"max\":100,\"bucket\":10},"
  "\"target_distance\":{\"type\":\"number\",\"min\":0,\"max\":5000,\"bucket\":250},"
  "\"allies_near\":{\"type\":\"integer\",\"min\":0,\"max\":16},"
  "\"cargo_seen\":{\"type\":\"enum\",\"values\":[\"none\",\"ore\",\"medicine\",\"weapons\"]},"
  "\"cornered\":{\"type\":\"boolean\"},\"callsign\":{\"type\":\"string\",\"max_length\":8}},"
  "\"actions\":{\"attack\":{\"description\":\"Close in and fire.\"},"
  "\"flee\":{\"description\":\"Break off and run for the asteroid field.\"},"
  "\"call_help\":{\"description\":\"Call nearby allies.\"},"
  "\"surrender\":{\"description\":\"Power down and hail.\"}},"
  "\"ttl_ms\":3000,\"token_budget\":800,\"cache\":\"game\",\"memory\":5,\"min_confidence\":0},"
  "\"freighter\":{\"actions\":{\"run\":{},\"hide\":{},\"fight\":{}},\"cache\":\"off\",\"memory\":3},"
  "\"guard\":{\"actions\":{\"patrol\":{},\"chase\":{}},\"cache\":\"session\",\"min_confidence\":60}},"
  "\"scopes\":{\"station\":{\"text\":\"Station security patrols the inner ring.\"},"
  "\"inner_ring\":{\"text\":\"Patrols arrive within 20 seconds.\"}},"
  "\"profiles\":{\"coward\":{\"text\":\"Values its own life above loot.\"},"
  "\"veteran\":{\"text\":\"Has survived many raids; calm and calculating.\"}}}";

/**
 * a2g_service_start_args:
 * @config: the configuration file's text ([a2g] … and more)
 * @extra_args: (nullable): more arguments of `gamegate a2g`
 *
 * Starts `gamegate --config FILE a2g --listen 127.0.0.1:0` and reads the
 * port from its one line on stdout.
 */
A2gService *
a2g_service_start_args (const char         *config,
                        const char * const *extra_args)
{
  A2gService *service = g_new0 (A2gService, 1);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *line = NULL;
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  const char *prefix = "a2g: listening on http://127.0.0.1:";

  service->dir = g_dir_make_tmp ("gg-a2g-test-XXXXXX", &error);
  g_assert_no_error (error);
  path = g_build_filename (service->dir, "gamegate.conf", NULL);
  g_file_set_contents (path, config != NULL ? config : "", -1, &error);
  g_assert_no_error (error);
  g_ptr_array_add (args, "--config");
  g_ptr_array_add (args, path);
  g_ptr_array_add (args, "a2g");
  g_ptr_array_add (args, "--listen");
  g_ptr_array_add (args, "127.0.0.1:0");
  for (guint i = 0; extra_args != NULL && extra_args[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) extra_args[i]);
  g_ptr_array_add (args, NULL);
  service->process = gg_test_process_spawn ((const char * const *) args->pdata, NULL, &error);
  g_assert_no_error (error);
  line = gg_test_process_read_line (service->process, gg_test_timeout_ms (10000), &error);
  if (line == NULL)
    g_error ("gamegate a2g did not start: %s\n%s", error != NULL ? error->message : "EOF",
             gg_test_process_get_stderr (service->process));
  service->tls = g_str_has_prefix (line, "a2g: listening on https://127.0.0.1:");
  if (service->tls)
    prefix = "a2g: listening on https://127.0.0.1:";
  g_assert_true (g_str_has_prefix (line, prefix));
  service->port = (guint) g_ascii_strtoull (line + strlen (prefix), NULL, 10);
  g_assert_cmpuint (service->port, >, 0);
  service->http = soup_session_new_with_options ("timeout", 60, "idle-timeout", 60, NULL);
  return service;
}

/**
 * a2g_service_start_openai:
 * @base_url: an OpenAI-compatible server's (the tests' fake one)
 *
 * Returns: (transfer full): the local profile with that server as its
 *   model, and a long default deadline (HTTP to the fake server is slow
 *   under valgrind)
 */
A2gService *
a2g_service_start_openai (const char *base_url)
{
  g_autofree char *config = g_strdup_printf ("[a2g]\nmodel={\"type\":\"openai\",\"baseUrl\":\"%s\","
                                             "\"model\":\"fake-model\"}\ndefault-deadline-ms=30000\n", base_url);

  return a2g_service_start (config);
}

/** a2g_service_start: a2g_service_start_args() without extra arguments */
A2gService *
a2g_service_start (const char *config)
{
  return a2g_service_start_args (config, NULL);
}

static void
remove_dir (const char *dir)
{
  g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

/**
 * a2g_service_stop:
 * @service: (transfer full): a service
 *
 * SIGTERM; the service must exit 0 and leave no warning behind. A test
 * that ended the process itself sets @service->process to %NULL first.
 */
void
a2g_service_stop (A2gService *service)
{
  int status = -1;

  g_clear_object (&service->http);
  if (service->process != NULL)
    {
      gg_test_process_send_signal (service->process, SIGTERM);
      g_assert_true (gg_test_process_wait (service->process, gg_test_timeout_ms (10000), &status));
      if (status != 0 || strstr (gg_test_process_get_stderr (service->process), "CRITICAL") != NULL)
        g_error ("gamegate a2g exited with %d:\n%s", status, gg_test_process_get_stderr (service->process));
      gg_test_process_free (service->process);
    }
  remove_dir (service->dir);
  g_free (service->dir);
  g_free (service);
}

typedef struct {
  gboolean done;
  GBytes *bytes;
  GError *error;
} Wait;

static void
on_sent (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Wait *wait = user_data;

  wait->bytes = soup_session_send_and_read_finish (SOUP_SESSION (source), result, &wait->error);
  wait->done = TRUE;
}

struct _A2gPending {
  SoupMessage *msg;
  GCancellable *cancellable;
  Wait wait;
};

static gboolean
accept_any_certificate (SoupMessage          *msg,
                        GTlsCertificate      *certificate,
                        GTlsCertificateFlags  errors,
                        gpointer              user_data)
{
  return TRUE;
}

static A2gPending *
request_start (A2gService         *service,
               const char         *method,
               const char         *path,
               const char * const *headers,
               const char         *body)
{
  g_autofree char *url = g_strdup_printf ("%s://127.0.0.1:%u%s", service->tls ? "https" : "http", service->port,
                                          path);
  A2gPending *pending = g_new0 (A2gPending, 1);

  pending->msg = soup_message_new (method, url);
  if (service->tls)
    g_signal_connect (pending->msg, "accept-certificate", G_CALLBACK (accept_any_certificate), NULL);
  pending->cancellable = g_cancellable_new ();
  g_assert_nonnull (pending->msg);
  for (guint i = 0; headers != NULL && headers[i] != NULL; i += 2)
    soup_message_headers_replace (soup_message_get_request_headers (pending->msg), headers[i], headers[i + 1]);
  if (body != NULL)
    {
      g_autoptr(GBytes) bytes = g_bytes_new (body, strlen (body));
      g_autofree char *type = g_strdup (soup_message_headers_get_one (soup_message_get_request_headers (pending->msg),
                                                                       "Content-Type"));

      soup_message_set_request_body_from_bytes (pending->msg, type != NULL ? type : "application/json", bytes);
    }
  soup_session_send_and_read_async (service->http, pending->msg, G_PRIORITY_DEFAULT, pending->cancellable,
                                    on_sent, &pending->wait);
  return pending;
}

/**
 * a2g_pending_wait:
 * @pending: (transfer full): a request in flight
 *
 * Returns: (transfer full): its answer
 */
A2gResponse *
a2g_pending_wait (A2gPending *pending)
{
  A2gResponse *response = g_new0 (A2gResponse, 1);
  gsize length = 0;
  const char *data;

  g_assert_true (gg_test_wait_until (&pending->wait.done, gg_test_timeout_ms (60000)));
  g_assert_no_error (pending->wait.error);
  data = g_bytes_get_data (pending->wait.bytes, &length);
  response->status = soup_message_get_status (pending->msg);
  response->body = g_strndup (data != NULL ? data : "", length);
  response->headers = soup_message_headers_ref (soup_message_get_response_headers (pending->msg));
  g_bytes_unref (pending->wait.bytes);
  g_object_unref (pending->msg);
  g_object_unref (pending->cancellable);
  g_free (pending);
  return response;
}

/**
 * a2g_pending_cancel:
 * @pending: (transfer full): a request in flight
 *
 * Gives the request up: the client closes its connection.
 */
void
a2g_pending_cancel (A2gPending *pending)
{
  g_cancellable_cancel (pending->cancellable);
  g_assert_true (gg_test_wait_until (&pending->wait.done, gg_test_timeout_ms (10000)));
  g_clear_error (&pending->wait.error);
  g_clear_pointer (&pending->wait.bytes, g_bytes_unref);
  g_object_unref (pending->msg);
  g_object_unref (pending->cancellable);
  g_free (pending);
}

/**
 * a2g_post_start:
 * @service: the service
 * @path: the path
 * @token: (nullable): the session token
 * @body: JSON text
 *
 * Returns: (transfer full): the request in flight
 */
A2gPending *
a2g_post_start (A2gService *service,
                const char *path,
                const char *token,
                const char *body)
{
  g_autofree char *bearer = token != NULL ? g_strconcat ("Bearer ", token, NULL) : NULL;
  const char *headers[] = { "Content-Type", "application/json", bearer != NULL ? "Authorization" : NULL,
                            bearer, NULL };

  return request_start (service, "POST", path, headers, body);
}

/**
 * a2g_request:
 * @service: the service
 * @method: "GET", "POST", …
 * @path: the path (and query)
 * @headers: (nullable): name, value, name, value, …, %NULL
 * @body: (nullable): the body text
 *
 * Returns: (transfer full): the answer
 */
A2gResponse *
a2g_request (A2gService         *service,
             const char         *method,
             const char         *path,
             const char * const *headers,
             const char         *body)
{
  return a2g_pending_wait (request_start (service, method, path, headers, body));
}

/** a2g_post: POSTs JSON @body to @path, with `Authorization: Bearer @token` when given */
A2gResponse *
a2g_post (A2gService *service,
          const char *path,
          const char *token,
          const char *body)
{
  g_autofree char *bearer = token != NULL ? g_strconcat ("Bearer ", token, NULL) : NULL;
  const char *headers[] = { "Content-Type", "application/json", bearer != NULL ? "Authorization" : NULL,
                            bearer, NULL };

  return a2g_request (service, "POST", path, headers, body);
}

/** a2g_get: GETs @path */
A2gResponse *
a2g_get (A2gService *service,
         const char *path)
{
  return a2g_request (service, "GET", path, NULL, NULL);
}

/** a2g_response_free: @response: (transfer full) (nullable): an answer */
void
a2g_response_free (A2gResponse *response)
{
  if (response == NULL)
    return;
  g_free (response->body);
  soup_message_headers_unref (response->headers);
  g_free (response);
}

/**
 * a2g_raw:
 * @service: the service
 * @request: bytes to send as they are
 * @length: their length
 *
 * Sends @request on a new connection and reads until the service closes
 * it (or 10 s pass): requests that the service answers without closing
 * should say `Connection: close`.
 *
 * Returns: (transfer full): everything the service sent back
 */
char *
a2g_raw (A2gService *service,
         const char *request,
         gsize       length)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) connection = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  GSocket *socket;
  char buffer[4096];
  gssize n;

  connection = g_socket_client_connect_to_host (client, "127.0.0.1", (guint16) service->port, NULL, &error);
  g_assert_no_error (error);
  socket = g_socket_connection_get_socket (connection);
  g_socket_set_timeout (socket, 10);
  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (connection)), request, length,
                             NULL, NULL, &error);
  g_clear_error (&error);
  while ((n = g_socket_receive (socket, buffer, sizeof buffer, NULL, &error)) > 0)
    g_string_append_len (out, buffer, n);
  return g_strdup (out->str);
}

/**
 * a2g_open:
 * @service: the service
 * @client_id: the client
 * @manifest: (nullable): the manifest JSON (default: a2g_test_manifest)
 *
 * Returns: (transfer full): the session token
 */
char *
a2g_open (A2gService *service,
          const char *client_id,
          const char *manifest)
{
  g_autofree char *body = g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"%s\",\"game\":\"orbital-freight\","
                                           "\"manifest\":%s}", client_id,
                                           manifest != NULL ? manifest : a2g_test_manifest);
  g_autoptr(A2gResponse) response = a2g_post (service, "/v1/session", NULL, body);
  g_autoptr(JsonObject) object = NULL;

  if (response->status != 200)
    g_error ("session: %u %s", response->status, response->body);
  object = a2g_json (response);
  return g_strdup (json_object_get_string_member (object, "session_token"));
}

/** a2g_json: Returns: (transfer full): the answer's body as an object */
JsonObject *
a2g_json (A2gResponse *response)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = gg_json_parse (response->body, -1, 64, &error);

  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_object_ref (json_node_get_object (node));
}

/**
 * a2g_first_decision:
 * @response: a 200 answer to /v1/decide
 *
 * Returns: (transfer full): its first decision as "SOURCE ACTION REASON"
 *   (reason "-" when none), or "FALLBACK CODE"
 */
char *
a2g_first_decision (A2gResponse *response)
{
  g_autoptr(JsonObject) object = NULL;
  JsonObject *decision;

  g_assert_cmpuint (response->status, ==, 200);
  object = a2g_json (response);
  decision = json_array_get_object_element (json_object_get_array_member (object, "decisions"), 0);
  if (json_object_has_member (decision, "code"))
    return g_strdup_printf ("FALLBACK %s", json_object_get_string_member (decision, "code"));
  return g_strdup_printf ("%s %s %s", json_object_get_string_member (decision, "source"),
                          json_object_get_string_member (decision, "action"),
                          json_object_has_member (decision, "reason") ?
                          json_object_get_string_member (decision, "reason") : "-");
}

/**
 * a2g_model_config:
 * @steps_json: the scripted model's steps array
 *
 * Returns: (transfer full): an `[a2g] model=` line for a scripted model
 */
char *
a2g_model_config (const char *steps_json)
{
  return g_strdup_printf ("model={\"type\":\"scripted\",\"steps\":%s}\n", steps_json);
}

/**
 * a2g_assert_json:
 * @actual: JSON text
 * @expected: JSON text
 *
 * Compares the two as compact JSON text (member order counts).
 */
void
a2g_assert_json (const char *actual,
                 const char *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) a = gg_json_parse (actual, -1, 64, &error);
  g_autoptr(JsonNode) e = NULL;
  g_autofree char *a_text = NULL;
  g_autofree char *e_text = NULL;

  if (a == NULL)
    g_error ("not JSON (%s): %s", error->message, actual);
  e = gg_json_parse (expected, -1, 64, &error);
  g_assert_no_error (error);
  a_text = gg_json_to_string (a);
  e_text = gg_json_to_string (e);
  g_assert_cmpstr (a_text, ==, e_text);
}

static void
strip (JsonNode   *node,
       const char *member)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = NULL;

      if (json_object_has_member (object, member))
        json_object_set_string_member (object, member, "*");
      members = json_object_get_members (object);
      for (GList *l = members; l != NULL; l = l->next)
        strip (json_object_get_member (object, l->data), member);
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        strip (json_array_get_element (array, i), member);
    }
}

/**
 * a2g_strip_member:
 * @json: JSON text
 * @member: a member name
 *
 * Returns: (transfer full): @json with every @member's value replaced by
 *   "*" (for random ids), compact
 */
char *
a2g_strip_member (const char *json,
                  const char *member)
{
  g_autoptr(JsonNode) node = gg_json_parse (json, -1, 64, NULL);

  g_assert_nonnull (node);
  strip (node, member);
  return gg_json_to_string (node);
}

/** a2g_assert_no_secret: the service's stderr does not hold @secret */
void
a2g_assert_no_secret (A2gService *service,
                      const char *secret)
{
  g_assert_null (strstr (gg_test_process_get_stderr (service->process), secret));
}

/* ---- the server profile ---------------------------------------------------- */

/** a2g_manifest_hash: Returns: (transfer full): "sha256:<hex>" of @manifest's canonical JSON */
char *
a2g_manifest_hash (const char *manifest)
{
  g_autoptr(JsonNode) node = gg_json_parse (manifest, -1, 64, NULL);

  g_assert_nonnull (node);
  return gg_a2g_canonical_hash (node);
}

static char *
games_config (const char *extra)
{
  g_autofree char *hash = a2g_manifest_hash (a2g_test_manifest);
  g_autofree char *freight = g_compute_checksum_for_string (G_CHECKSUM_SHA256, A2G_TEST_KEY_FREIGHT, -1);
  g_autofree char *miner = g_compute_checksum_for_string (G_CHECKSUM_SHA256, A2G_TEST_KEY_MINER, -1);
  g_autofree char *miner_hash = a2g_manifest_hash (a2g_test_miner_manifest);

  return g_strdup_printf ("games=orbital-freight, deep-miner\n"
                          "orbital-freight.api-key-sha256=%s\norbital-freight.manifests=%s\n"
                          "deep-miner.api-key-sha256=%s\n"
                          "deep-miner.manifests=%s\n"
                          "%s", freight, hash, miner, miner_hash, extra != NULL ? extra : "");
}

/**
 * a2g_server_config:
 * @extra: (nullable): more [a2g] lines
 *
 * Returns: (transfer full): the server profile behind a declared TLS
 *   proxy, with the two test games
 */
char *
a2g_server_config (const char *extra)
{
  g_autofree char *games = games_config (extra);

  return g_strconcat ("[a2g]\nprofile=server\nbehind-tls-proxy=true\n", games, NULL);
}

/**
 * a2g_tls_server_config:
 * @pem: the certificate and key
 * @extra: (nullable): more [a2g] lines
 *
 * Returns: (transfer full): the server profile with TLS of its own, with
 *   the two test games
 */
char *
a2g_tls_server_config (A2gPem     *pem,
                       const char *extra)
{
  g_autofree char *games = games_config (extra);

  /* The handshake's deadline as the tests' own: slower under valgrind. */
  return g_strdup_printf ("[a2g]\nprofile=server\ntls-certificate=%s\ntls-key=%s\ntls-handshake-timeout=%u\n%s",
                          pem->certificate, pem->key, gg_test_timeout_ms (10000) / 1000, games);
}

/**
 * a2g_proxied:
 * @service: the service
 * @method: "GET", "POST"
 * @path: the path
 * @bearer: (nullable): `Authorization: Bearer @bearer`
 * @body: (nullable): JSON text
 *
 * Returns: (transfer full): the answer to a request as a TLS-terminating
 *   proxy forwards it (`X-Forwarded-Proto: https`)
 */
A2gResponse *
a2g_proxied (A2gService *service,
             const char *method,
             const char *path,
             const char *bearer,
             const char *body)
{
  g_autofree char *auth = bearer != NULL ? g_strconcat ("Bearer ", bearer, NULL) : NULL;
  const char *headers[] = { "X-Forwarded-Proto", "https", "Content-Type", "application/json",
                            auth != NULL ? "Authorization" : NULL, auth, NULL };

  return a2g_request (service, method, path, headers, body);
}

/**
 * a2g_assert_error:
 * @response: an answer outside the local profile
 * @status: its status
 * @message: its `error`
 * @code: its `code`
 *
 * The exact error body, HSTS, and no Access-Control-Allow-Origin.
 */
void
a2g_assert_error (A2gResponse *response,
                  guint        status,
                  const char  *message,
                  const char  *code)
{
  g_autofree char *expected = g_strdup_printf ("{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"%s\",\"code\":\"%s\"}",
                                               message, code);

  g_test_message ("%u %s", response->status, response->body);
  g_assert_cmpuint (response->status, ==, status);
  a2g_assert_json (response->body, expected);
  g_assert_cmpstr (soup_message_headers_get_one (response->headers, "Strict-Transport-Security"), ==,
                   "max-age=31536000");
  g_assert_null (soup_message_headers_get_one (response->headers, "Access-Control-Allow-Origin"));
}

/**
 * a2g_server_session:
 * @service: a server-profile service
 * @client_id: the client
 *
 * Returns: (transfer full): the session token of an orbital-freight
 *   session opened with its API key
 */
char *
a2g_server_session (A2gService *service,
                    const char *client_id)
{
  g_autofree char *body = g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"%s\",\"game\":\"orbital-freight\","
                                           "\"manifest\":%s}", client_id, a2g_test_manifest);
  g_autoptr(A2gResponse) response = a2g_proxied (service, "POST", "/v1/session", A2G_TEST_KEY_FREIGHT, body);
  g_autoptr(JsonObject) object = NULL;

  g_assert_cmpuint (response->status, ==, 200);
  g_assert_cmpstr (soup_message_headers_get_one (response->headers, "Strict-Transport-Security"), ==,
                   "max-age=31536000");
  object = a2g_json (response);
  return g_strdup (json_object_get_string_member (object, "session_token"));
}

/** a2g_pem_new: Returns: (transfer full): a self-signed P-256 certificate for 127.0.0.1, made now */
A2gPem *
a2g_pem_new (void)
{
  g_autoptr(GError) error = NULL;
  A2gPem *pem = g_new0 (A2gPem, 1);
  int status = -1;

  pem->dir = g_dir_make_tmp ("gg-a2g-tls-XXXXXX", &error);
  g_assert_no_error (error);
  pem->certificate = g_build_filename (pem->dir, "cert.pem", NULL);
  pem->key = g_build_filename (pem->dir, "key.pem", NULL);
  {
    const char *args[] = { "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                           "-nodes", "-keyout", pem->key, "-out", pem->certificate, "-days", "1",
                           "-subj", "/CN=127.0.0.1", NULL };
    g_spawn_sync (NULL, (char **) args, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
                  G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  }
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  return pem;
}

/** a2g_pem_free: @pem: (transfer full): removes the files too */
void
a2g_pem_free (A2gPem *pem)
{
  g_unlink (pem->certificate);
  g_unlink (pem->key);
  g_rmdir (pem->dir);
  g_free (pem->certificate);
  g_free (pem->key);
  g_free (pem->dir);
  g_free (pem);
}

typedef struct {
  GInputStream *stream;
  GError *error;
  gboolean done;
} Opened;

static void
on_stream_opened (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Opened *opened = user_data;

  opened->stream = soup_session_send_finish (SOUP_SESSION (source), result, &opened->error);
  opened->done = TRUE;
}

/**
 * a2g_first_event:
 * @service: the service
 * @path: an event stream (/v1/console/events)
 * @headers: (nullable): name, value, …, %NULL
 * @status: (out): the answer's status
 *
 * Returns: (transfer full) (nullable): on 200 the stream's first event
 *   ("event: …\ndata: …"), else %NULL; the stream is closed after it
 */
char *
a2g_first_event (A2gService         *service,
                 const char         *path,
                 const char * const *headers,
                 guint              *status)
{
  g_autofree char *url = g_strdup_printf ("%s://127.0.0.1:%u%s", service->tls ? "https" : "http", service->port,
                                          path);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
  g_autoptr(GDataInputStream) lines = NULL;
  g_autoptr(GString) event = g_string_new (NULL);
  Opened opened = { NULL, NULL, FALSE };

  if (service->tls)
    g_signal_connect (msg, "accept-certificate", G_CALLBACK (accept_any_certificate), NULL);
  for (guint i = 0; headers != NULL && headers[i] != NULL; i += 2)
    soup_message_headers_replace (soup_message_get_request_headers (msg), headers[i], headers[i + 1]);
  soup_session_send_async (service->http, msg, G_PRIORITY_DEFAULT, NULL, on_stream_opened, &opened);
  g_assert_true (gg_test_wait_until (&opened.done, gg_test_timeout_ms (10000)));
  g_assert_no_error (opened.error);
  *status = soup_message_get_status (msg);
  if (*status != 200)
    {
      g_input_stream_close (opened.stream, NULL, NULL);
      g_object_unref (opened.stream);
      return NULL;
    }
  lines = g_data_input_stream_new (opened.stream);
  for (;;)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *line = gg_test_read_line (lines, gg_test_timeout_ms (5000), &error);

      g_assert_no_error (error);
      g_assert_nonnull (line);
      if (*line == '\0' && event->len > 0)
        break;
      if (event->len > 0)
        g_string_append_c (event, '\n');
      g_string_append (event, line);
    }
  g_input_stream_close (opened.stream, NULL, NULL);
  g_object_unref (opened.stream);
  return g_strdup (event->str);
}

/**
 * a2g_assert_refuses_to_start:
 * @config: a configuration `gamegate a2g` must refuse
 * @message: what its stderr must say
 * @secret: (nullable): what its stderr must not say
 */
void
a2g_assert_refuses_to_start (const char *config,
                             const char *message,
                             const char *secret)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("gg-a2g-server-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "gamegate.conf", NULL);
  const char *args[] = { "--config", path, "a2g", "--listen", "127.0.0.1:0", NULL };
  GgTestProcess *process;
  int status = 0;

  g_assert_no_error (error);
  g_file_set_contents (path, config, -1, &error);
  g_assert_no_error (error);
  process = gg_test_process_spawn (args, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (gg_test_process_wait (process, gg_test_timeout_ms (10000), &status));
  g_assert_cmpint (status, !=, 0);
  g_test_message ("%s", gg_test_process_get_stderr (process));
  g_assert_nonnull (strstr (gg_test_process_get_stderr (process), message));
  if (secret != NULL)
    g_assert_null (strstr (gg_test_process_get_stderr (process), secret));
  gg_test_process_free (process);
  g_unlink (path);
  g_rmdir (dir);
}
