/* test-a2g-tls.c: the service's own TLS (server profile with
 * tls-certificate and tls-key, a self-signed certificate made at test time
 * with openssl) against the real `gamegate a2g`:
 *
 *   - openssl s_client: TLS 1.2 and 1.3 served; TLS 1.0 and 1.1 fail in
 *     the handshake with a protocol_version alert; plain HTTP on the TLS
 *     port gets no HTTP answer;
 *   - keep-alive with GIO's TLS client (GnuTLS): a session and 299
 *     decisions on one connection, every answer exact, no
 *     `Connection: close`, one handshake in the service's log
 *     (test-tls-keepalive.py has the same for Python's http.client over
 *     OpenSSL, 1,000 requests);
 *   - hostile first bytes on a raw socket: a ClientHello that comes in
 *     pieces, a broken one (decode_error), one offering TLS 1.1 only
 *     (protocol_version), each alert exactly; 50 connections that never
 *     say anything do not keep others from being served; with
 *     tls-handshake-timeout=1 a silent connection and one sending half a
 *     ClientHello are closed;
 *   - certificate and key files that do not go together.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "a2g-test-util.h"

#define CLIENT "c_5f1c9a27e04b7d13"
#define SEEDS A2G_CLIENT_HELLO_SEEDS
#define MODEL "model={\"type\":\"scripted\",\"fallback\":{\"json\":{\"reason\":\"Outgunned.\",\"action\":\"run\"," \
              "\"confidence\":61}}}\nsession-rate=100000\nsession-burst=100000\ngame-rate=100000\n" \
              "game-burst=100000\nsession-token-budget=0\ngame-token-budget=0\n"

#define ACCEPTED "a2g: TLS connection accepted (TLS 1.3)"

static const char protocol_version_alert[] = { 21, 3, 1, 0, 2, 2, 70 };
static const char decode_error_alert[] = { 21, 3, 1, 0, 2, 2, 50 };

/* ---- openssl s_client ------------------------------------------------------ */

typedef struct {
  char *out;
  char *err;
} SClient;

/* A GET /health over TLS @version (openssl s_client). */
static void
get_over (guint       port,
          const char *version,
          SClient    *result)
{
  /* SECLEVEL=0: the client offers old versions; the service decides. */
  g_autofree char *script = g_strdup_printf (
    "printf 'GET /health HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n' | "
    "openssl s_client -quiet -ign_eof -connect 127.0.0.1:%u %s -cipher DEFAULT:@SECLEVEL=0", port, version);
  const char *args[] = { "/bin/sh", "-c", script, NULL };
  g_autoptr(GError) error = NULL;

  g_spawn_sync (NULL, (char **) args, NULL, G_SPAWN_DEFAULT, NULL, NULL, &result->out, &result->err, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s: %s\n%s", version, result->out, result->err);
}

static void
test_versions (void)
{
  A2gPem *pem = a2g_pem_new ();
  g_autofree char *config = a2g_tls_server_config (pem, NULL);
  A2gService *service = a2g_service_start (config);
  g_autofree char *plain = NULL;
  const char *request = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";

  g_assert_true (service->tls);
  {
    /* Over TLS the proxy header is not needed. */
    g_autoptr(A2gResponse) health = a2g_get (service, "/health");

    g_assert_cmpuint (health->status, ==, 200);
    a2g_assert_json (health->body, "{\"a2g\":\"0.1\",\"ok\":true}");
    g_assert_cmpstr (soup_message_headers_get_one (health->headers, "Strict-Transport-Security"), ==,
                     "max-age=31536000");
  }
  /* Plain HTTP on the TLS port gets no HTTP answer at all. */
  plain = a2g_raw (service, request, strlen (request));
  g_assert_cmpstr (plain, ==, "");
  for (guint i = 0; i < 4; i++)
    {
      const char *versions[] = { "-tls1_2", "-tls1_3", "-tls1_1", "-tls1" };
      SClient result = { 0 };

      get_over (service->port, versions[i], &result);
      if (i < 2)
        {
          g_assert_true (g_str_has_prefix (result.out, "HTTP/1.1 200 OK\r\n"));
          g_assert_nonnull (strstr (result.out, "\r\n\r\n{\"a2g\":\"0.1\",\"ok\":true}"));
        }
      else
        {
          /* Refused in the handshake, with the alert a scanner looks for. */
          g_assert_cmpstr (result.out, ==, "");
          g_assert_nonnull (strstr (result.err, "alert protocol version"));
          g_assert_nonnull (strstr (result.err, "SSL alert number 70"));
        }
      g_free (result.out);
      g_free (result.err);
    }
  a2g_assert_no_secret (service, A2G_TEST_KEY_FREIGHT);
  a2g_service_stop (service);
  a2g_pem_free (pem);
}

/* ---- keep-alive over GIO's TLS client --------------------------------------- */

typedef struct {
  GSocketConnection *tcp;
  GIOStream *tls;
  GString *in;
} Client;

static gboolean
accept_any (GTlsConnection       *connection,
            GTlsCertificate      *certificate,
            GTlsCertificateFlags  errors,
            gpointer              user_data)
{
  return TRUE;
}

static Client *
client_connect (guint port)
{
  g_autoptr(GSocketClient) sockets = g_socket_client_new ();
  g_autoptr(GError) error = NULL;
  Client *client = g_new0 (Client, 1);

  client->tcp = g_socket_client_connect_to_host (sockets, "127.0.0.1", (guint16) port, NULL, &error);
  g_assert_no_error (error);
  g_socket_set_timeout (g_socket_connection_get_socket (client->tcp), gg_test_timeout_ms (30000) / 1000);
  client->tls = g_tls_client_connection_new (G_IO_STREAM (client->tcp), NULL, &error);
  g_assert_no_error (error);
  g_signal_connect (client->tls, "accept-certificate", G_CALLBACK (accept_any), NULL);
  g_assert_true (g_tls_connection_handshake (G_TLS_CONNECTION (client->tls), NULL, &error));
  g_assert_no_error (error);
  client->in = g_string_new (NULL);
  return client;
}

static void
client_free (Client *client)
{
  g_io_stream_close (client->tls, NULL, NULL);
  g_object_unref (client->tls);
  g_object_unref (client->tcp);
  g_string_free (client->in, TRUE);
  g_free (client);
}

/* One request on @client's connection; the answer's body. Fails the test
 * unless the answer keeps the connection open (no Connection: close). */
static char *
client_post (Client     *client,
             const char *path,
             const char *bearer,
             const char *body,
             guint       expected_status)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *request = g_strdup_printf ("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                              "Content-Type: application/json\r\nAuthorization: Bearer %s\r\n"
                                              "Content-Length: %zu\r\n\r\n%s", path, bearer, strlen (body), body);
  const char *end;
  gsize head, length = 0;
  char *answer;

  g_output_stream_write_all (g_io_stream_get_output_stream (client->tls), request, strlen (request), NULL, NULL,
                             &error);
  g_assert_no_error (error);
  for (;;)
    {
      char buffer[16384];
      gssize n;

      end = strstr (client->in->str, "\r\n\r\n");
      if (end != NULL)
        {
          const char *field = strstr (client->in->str, "\r\nContent-Length: ");

          head = (gsize) (end - client->in->str) + 4;
          g_assert_true (field != NULL && field < end);
          length = g_ascii_strtoull (field + strlen ("\r\nContent-Length: "), NULL, 10);
          if (client->in->len >= head + length)
            break;
        }
      n = g_input_stream_read (g_io_stream_get_input_stream (client->tls), buffer, sizeof buffer, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpint (n, >, 0);
      g_string_append_len (client->in, buffer, n);
    }
  {
    g_autofree char *status = g_strdup_printf ("HTTP/1.1 %u ", expected_status);
    g_autofree char *headers = g_ascii_strdown (client->in->str, (gssize) head);

    g_assert_true (g_str_has_prefix (client->in->str, status));
    g_assert_null (strstr (headers, "\r\nconnection: close"));
  }
  answer = g_strndup (client->in->str + head, length);
  g_string_erase (client->in, 0, (gssize) (head + length));
  return answer;
}

static guint
count (const char *text,
       const char *needle)
{
  guint n = 0;

  for (const char *at = strstr (text, needle); at != NULL; at = strstr (at + 1, needle))
    n++;
  return n;
}

/* The service's log, once it holds @text (read as the main loop runs). */
static const char *
log_with (A2gService *service,
          const char *text)
{
  gint64 until = g_get_monotonic_time () + gg_test_timeout_ms (2000) * 1000;

  while (strstr (gg_test_process_get_stderr (service->process), text) == NULL && g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, FALSE);
  return gg_test_process_get_stderr (service->process);
}

static void
test_keep_alive (void)
{
  A2gPem *pem = a2g_pem_new ();
  g_autofree char *config = a2g_tls_server_config (pem, MODEL);
  A2gService *service = a2g_service_start (config);
  Client *client = client_connect (service->port);
  g_autofree char *session = g_strdup_printf ("{\"a2g\":\"0.1\",\"client_id\":\"" CLIENT "\","
                                              "\"game\":\"orbital-freight\",\"manifest\":%s}", a2g_test_manifest);
  g_autofree char *hash = a2g_manifest_hash (a2g_test_manifest);
  g_autofree char *answer = client_post (client, "/v1/session", A2G_TEST_KEY_FREIGHT, session, 200);
  g_autoptr(JsonNode) node = gg_json_parse (answer, -1, 64, NULL);
  g_autofree char *token = g_strdup (json_object_get_string_member (json_node_get_object (node), "session_token"));
  g_autofree char *stripped = a2g_strip_member (answer, "session_token");
  g_autofree char *expected = g_strdup_printf ("{\"a2g\":\"0.1\",\"ok\":true,\"manifest_hash\":\"%s\","
                                               "\"session_token\":\"*\",\"expires_in\":3600,\"limits\":"
                                               "{\"entities_per_request\":16,\"max_body_bytes\":262144}}", hash);

  a2g_assert_json (stripped, expected);
  /* 299 decisions of distinct freighters (never cached: each one a model
   * call), epochs counting up. */
  for (guint i = 1; i < 300; i++)
    {
      g_autofree char *body = g_strdup_printf ("{\"client_id\":\"" CLIENT "\",\"epoch\":%u,\"entities\":["
                                               "{\"entity\":\"freighter-%u\",\"type\":\"freighter\","
                                               "\"legal_actions\":[\"run\",\"hide\"]}]}", i, i);
      g_autofree char *decided = client_post (client, "/v1/decide", token, body, 200);
      g_autofree char *decided_stripped = a2g_strip_member (decided, "decision_id");
      g_autofree char *decision = g_strdup_printf ("{\"a2g\":\"0.1\",\"epoch\":%u,\"decisions\":[{\"entity\":"
                                                   "\"freighter-%u\",\"decision_id\":\"*\",\"action\":\"run\","
                                                   "\"source\":\"model\",\"confidence\":61,\"ttl_ms\":2000,"
                                                   "\"reason\":\"Outgunned.\"}]}", i, i);

      a2g_assert_json (decided_stripped, decision);
    }
  client_free (client);
  /* One connection, one handshake. */
  g_assert_cmpuint (count (log_with (service, ACCEPTED), ACCEPTED), ==, 1);
  a2g_assert_no_secret (service, A2G_TEST_KEY_FREIGHT);
  a2g_assert_no_secret (service, token);
  a2g_service_stop (service);
  a2g_pem_free (pem);
}

/* ---- hostile first bytes ---------------------------------------------------- */

static GSocketConnection *
raw_connect (guint port)
{
  g_autoptr(GSocketClient) sockets = g_socket_client_new ();
  g_autoptr(GError) error = NULL;
  GSocketConnection *connection = g_socket_client_connect_to_host (sockets, "127.0.0.1", (guint16) port, NULL,
                                                                   &error);

  g_assert_no_error (error);
  g_socket_set_timeout (g_socket_connection_get_socket (connection), gg_test_timeout_ms (20000) / 1000);
  return connection;
}

static void
raw_send (GSocketConnection *connection,
          const char        *data,
          gsize              length)
{
  g_autoptr(GError) error = NULL;

  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (connection)), data, length, NULL, NULL,
                             &error);
  g_assert_no_error (error);
}

/* Everything the service sends until it closes. */
static GBytes *
raw_receive_all (GSocketConnection *connection)
{
  GByteArray *received = g_byte_array_new ();
  GSocket *socket = g_socket_connection_get_socket (connection);
  g_autoptr(GError) error = NULL;
  char buffer[4096];
  gssize n;

  while ((n = g_socket_receive (socket, buffer, sizeof buffer, NULL, &error)) > 0)
    g_byte_array_append (received, (const guint8 *) buffer, (guint) n);
  g_assert_no_error (error);
  return g_byte_array_free_to_bytes (received);
}

static char *
seed (const char *name,
      gsize      *length)
{
  g_autofree char *path = g_build_filename (SEEDS, name, NULL);
  g_autoptr(GError) error = NULL;
  char *data = NULL;

  g_file_get_contents (path, &data, length, &error);
  g_assert_no_error (error);
  return data;
}

static gboolean
wake (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
pause_ms (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, wake, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

static void
assert_answer (GSocketConnection *connection,
               const char        *expected,
               gsize              expected_length)
{
  g_autoptr(GBytes) received = raw_receive_all (connection);
  gsize length;
  const char *data = g_bytes_get_data (received, &length);

  g_assert_cmpmem (data, length, expected, expected_length);
}

static void
test_hostile (void)
{
  A2gPem *pem = a2g_pem_new ();
  g_autofree char *config = a2g_tls_server_config (pem, NULL);
  A2gService *service = a2g_service_start (config);
  gsize length;
  g_autofree char *tls1_1 = seed ("openssl-tls1_1", &length);

  {
    /* A TLS 1.1 ClientHello in three pieces: read to its end, then the
     * alert. */
    g_autoptr(GSocketConnection) connection = raw_connect (service->port);

    raw_send (connection, tls1_1, 3);
    pause_ms (100);
    raw_send (connection, tls1_1 + 3, 40);
    pause_ms (100);
    raw_send (connection, tls1_1 + 43, length - 43);
    assert_answer (connection, protocol_version_alert, sizeof protocol_version_alert);
  }
  {
    /* A broken one: the cipher suites' length (after an empty session
     * id, at 44) made odd. */
    g_autoptr(GSocketConnection) connection = raw_connect (service->port);
    g_autofree char *broken = g_memdup2 (tls1_1, length);

    g_assert_cmpint (broken[43], ==, 0);
    broken[45]--;
    raw_send (connection, broken, length);
    assert_answer (connection, decode_error_alert, sizeof decode_error_alert);
  }
  {
    /* Not TLS at all: closed without a word. */
    g_autoptr(GSocketConnection) connection = raw_connect (service->port);

    raw_send (connection, "\x80\x2e\x01\x03\x01", 5);
    assert_answer (connection, "", 0);
  }
  {
    /* 50 connections saying nothing, then a client: served. */
    GSocketConnection *silent[50];

    for (guint i = 0; i < G_N_ELEMENTS (silent); i++)
      silent[i] = raw_connect (service->port);
    {
      g_autoptr(A2gResponse) health = a2g_get (service, "/health");

      g_assert_cmpuint (health->status, ==, 200);
    }
    for (guint i = 0; i < G_N_ELEMENTS (silent); i++)
      g_object_unref (silent[i]);
  }
  a2g_service_stop (service);
  a2g_pem_free (pem);
}

static void
test_deadline (void)
{
  /* tls-handshake-timeout=1: connections that say nothing, or part of a
   * ClientHello, are closed without a word once it passes. */
  A2gPem *pem = a2g_pem_new ();
  g_autofree char *base = a2g_tls_server_config (pem, NULL);
  g_autoptr(GRegex) timeout = g_regex_new ("tls-handshake-timeout=[0-9]+", 0, 0, NULL);
  g_autofree char *config = g_regex_replace_literal (timeout, base, -1, 0, "tls-handshake-timeout=1", 0, NULL);
  A2gService *service = a2g_service_start (config);
  g_autoptr(GSocketConnection) silent = raw_connect (service->port);
  g_autoptr(GSocketConnection) partial = raw_connect (service->port);
  gsize length;
  g_autofree char *tls1_2 = seed ("openssl-tls1_2", &length);

  raw_send (partial, tls1_2, length / 2);
  assert_answer (silent, "", 0);
  assert_answer (partial, "", 0);
  g_assert_nonnull (strstr (log_with (service, "a2g: TLS connection closed: Operation was cancelled"),
                            "a2g: TLS connection closed: Operation was cancelled"));
  a2g_service_stop (service);
  a2g_pem_free (pem);
}

/* ---- configuration ----------------------------------------------------------- */

static void
test_bad_files (void)
{
  A2gPem *pem = a2g_pem_new ();
  g_autofree char *config = a2g_tls_server_config (pem, NULL);
  g_autofree char *key_text = NULL;
  g_autofree char *swapped = NULL;
  g_autofree char *missing_key = NULL;
  g_autoptr(GError) error = NULL;

  g_file_get_contents (pem->key, &key_text, NULL, &error);
  g_assert_no_error (error);
  /* The key given as the certificate: refused, its text never echoed. */
  swapped = g_strdup_printf ("[a2g]\nprofile=server\ntls-certificate=%s\ntls-key=%s\n%s", pem->key, pem->key,
                             strstr (config, "games="));
  a2g_assert_refuses_to_start (swapped, "[a2g] tls-certificate: cannot load it with tls-key", "PRIVATE KEY");
  missing_key = g_strdup_printf ("[a2g]\nprofile=server\ntls-certificate=%s\n%s", pem->certificate,
                                 strstr (config, "games="));
  a2g_assert_refuses_to_start (missing_key, "tls-certificate and tls-key go together", NULL);
  a2g_pem_free (pem);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* The service's log says when it accepts a TLS connection. */
  g_setenv ("G_MESSAGES_DEBUG", "gamegate-a2g", TRUE);
  g_test_add_func ("/a2g/tls/versions", test_versions);
  g_test_add_func ("/a2g/tls/keep-alive", test_keep_alive);
  g_test_add_func ("/a2g/tls/hostile", test_hostile);
  g_test_add_func ("/a2g/tls/deadline", test_deadline);
  g_test_add_func ("/a2g/tls/bad-files", test_bad_files);
  return g_test_run ();
}
