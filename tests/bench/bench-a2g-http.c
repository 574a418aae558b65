/* bench-a2g-http.c: the a2g benchmarks' HTTP side (see bench-a2g-http.h).
 *
 * The load generator is written against raw non-blocking sockets rather than
 * libsoup's client so that its own cost per request stays small and fixed
 * (no message objects, no main loop): each connection holds the prepared
 * requests, sends one, parses the status line and Content-Length (or
 * chunked framing) of the answer, notes the latency and sends the next.
 * Over TLS the same bytes go through a GnuTLS session per connection, its
 * handshake done once when the connection opens (keep-alive: the server
 * must not close it).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "bench-a2g-http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib-unix.h>
#include <gnutls/gnutls.h>
#include <libsoup/soup.h>

/* --- answers ------------------------------------------------------------ */

/* Looks at the bytes of one answer so far. Returns the length of the whole
 * answer once it is complete (headers and body), 0 while more is needed and
 * -1 when it is not HTTP. Sets @status and the body's offset and length. */
static gssize
answer_complete (const char *data,
                 gsize       len,
                 guint      *status,
                 gsize      *body_at,
                 gsize      *body_len)
{
  const char *end = g_strstr_len (data, len, "\r\n\r\n");
  gsize head_len;
  const char *line;
  gboolean chunked = FALSE;
  gssize content_length = -1;

  if (end == NULL)
    return len > 65536 ? -1 : 0;
  head_len = (gsize) (end - data) + 4;
  if (len < 12 || strncmp (data, "HTTP/1.", 7) != 0)
    return -1;
  *status = (guint) atoi (data + 9);
  for (line = strstr (data, "\r\n") + 2; line < end; line = strstr (line, "\r\n") + 2)
    {
      if (g_ascii_strncasecmp (line, "Content-Length:", 15) == 0)
        content_length = atol (line + 15);
      else if (g_ascii_strncasecmp (line, "Transfer-Encoding:", 18) == 0 &&
               g_strstr_len (line, end - line, "chunked") != NULL)
        chunked = TRUE;
    }
  *body_at = head_len;
  if (!chunked)
    {
      if (content_length < 0)
        content_length = 0;
      if (len < head_len + (gsize) content_length)
        return 0;
      *body_len = (gsize) content_length;
      return (gssize) (head_len + (gsize) content_length);
    }
  /* Chunked: walk the chunks; the body offset/length then cover the framed
   * bytes, which is enough for a substring check. */
  {
    gsize at = head_len;
    for (;;)
      {
        const char *crlf = g_strstr_len (data + at, len - at, "\r\n");
        gulong size;

        if (crlf == NULL)
          return 0;
        size = strtoul (data + at, NULL, 16);
        at = (gsize) (crlf - data) + 2;
        if (size == 0)
          {
            if (len < at + 2)
              return 0;
            *body_len = at - head_len;
            return (gssize) (at + 2);
          }
        if (len < at + size + 2)
          return 0;
        at += size + 2;
      }
  }
}

static int
connect_loopback (guint16   port,
                  gboolean  nonblocking,
                  GError  **error)
{
  struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons (port) };
  int one = 1;
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  if (fd < 0 || connect (fd, (struct sockaddr *) &address, sizeof address) < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "connect to 127.0.0.1:%u: %s", port, g_strerror (saved));
      if (fd >= 0)
        close (fd);
      return -1;
    }
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (nonblocking)
    g_unix_set_fd_nonblocking (fd, TRUE, NULL);
  return fd;
}

/* --- TLS ---------------------------------------------------------------- */

/* The servers measured are the benchmark's own, with certificates made for
 * the run: any certificate is taken. */
static gnutls_certificate_credentials_t
tls_credentials (void)
{
  static gnutls_certificate_credentials_t credentials;

  if (g_once_init_enter (&credentials))
    {
      gnutls_certificate_credentials_t made = NULL;

      if (gnutls_certificate_allocate_credentials (&made) < 0)
        g_error ("bench: gnutls_certificate_allocate_credentials failed");
      g_once_init_leave (&credentials, made);
    }
  return credentials;
}

/* A TLS client session over the connected, blocking @fd, handshaken. */
static gnutls_session_t
tls_open (int      fd,
          GError **error)
{
  gnutls_session_t session = NULL;
  int ret;

  if (gnutls_init (&session, GNUTLS_CLIENT) < 0 || gnutls_set_default_priority (session) < 0 ||
      gnutls_credentials_set (session, GNUTLS_CRD_CERTIFICATE, tls_credentials ()) < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot set up a TLS session");
      if (session != NULL)
        gnutls_deinit (session);
      return NULL;
    }
  gnutls_transport_set_int (session, fd);
  gnutls_handshake_set_timeout (session, GNUTLS_DEFAULT_HANDSHAKE_TIMEOUT);
  do
    ret = gnutls_handshake (session);
  while (ret < 0 && gnutls_error_is_fatal (ret) == 0);
  if (ret < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "TLS handshake: %s", gnutls_strerror (ret));
      gnutls_deinit (session);
      return NULL;
    }
  return session;
}

/* A GnuTLS record call's result as send() and recv() give it: -1 with
 * errno EAGAIN when it would block. */
static gssize
as_socket_result (gssize n)
{
  if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
    errno = n == GNUTLS_E_AGAIN ? EAGAIN : EINTR;
  else if (n < 0)
    errno = EIO;
  return n < 0 ? -1 : n;
}

/* send() or recv() on @fd, through @tls when there is one. */
static gssize
wire_send (int               fd,
           gnutls_session_t  tls,
           const char       *data,
           gsize             len)
{
  if (tls == NULL)
    return send (fd, data, len, MSG_NOSIGNAL);
  return as_socket_result (gnutls_record_send (tls, data, len));
}

static gssize
wire_recv (int               fd,
           gnutls_session_t  tls,
           char             *buffer,
           gsize             len)
{
  if (tls == NULL)
    return recv (fd, buffer, len, 0);
  return as_socket_result (gnutls_record_recv (tls, buffer, len));
}

/* Bytes GnuTLS has read from the socket already (poll() does not see them). */
static gboolean
wire_pending (gnutls_session_t tls)
{
  return tls != NULL && gnutls_record_check_pending (tls) > 0;
}

static void
wire_close (int              fd,
            gnutls_session_t tls)
{
  if (tls != NULL)
    gnutls_deinit (tls);
  if (fd >= 0)
    close (fd);
}

char *
bench_http_request_full (guint16     port,
                         const char *path,
                         const char *token,
                         const char *headers,
                         const char *body)
{
  g_autofree char *auth = token != NULL ? g_strdup_printf ("Authorization: Bearer %s\r\n", token)
                                        : g_strdup ("");

  return g_strdup_printf ("POST %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                          "Content-Type: application/json\r\n%s%sContent-Length: %zu\r\n\r\n%s",
                          path, port, auth, headers != NULL ? headers : "", strlen (body), body);
}

char *
bench_http_request (guint16     port,
                    const char *path,
                    const char *token,
                    const char *body)
{
  return bench_http_request_full (port, path, token, NULL, body);
}

/* --- the blocking client ------------------------------------------------ */

struct _BenchHttpConnection {
  int               fd;
  gnutls_session_t  tls;
  GString          *in;
};

BenchHttpConnection *
bench_http_connect_full (guint16   port,
                         gboolean  tls,
                         GError  **error)
{
  int fd = connect_loopback (port, FALSE, error);
  gnutls_session_t session = NULL;
  BenchHttpConnection *conn;

  if (fd < 0)
    return NULL;
  if (tls && (session = tls_open (fd, error)) == NULL)
    {
      close (fd);
      return NULL;
    }
  conn = g_new0 (BenchHttpConnection, 1);
  conn->fd = fd;
  conn->tls = session;
  conn->in = g_string_new (NULL);
  return conn;
}

BenchHttpConnection *
bench_http_connect (guint16   port,
                    GError  **error)
{
  return bench_http_connect_full (port, FALSE, error);
}

char *
bench_http_exchange (BenchHttpConnection *conn,
                     const char          *request,
                     guint               *status,
                     GError             **error)
{
  gsize len = strlen (request);
  gsize sent = 0;

  while (sent < len)
    {
      gssize n = wire_send (conn->fd, conn->tls, request + sent, len - sent);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "send: %s", g_strerror (errno));
          return NULL;
        }
      sent += (gsize) n;
    }
  for (;;)
    {
      gsize body_at = 0, body_len = 0;
      gssize whole = answer_complete (conn->in->str, conn->in->len, status, &body_at, &body_len);
      char buffer[65536];
      gssize n;

      if (whole < 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "not an HTTP answer");
          return NULL;
        }
      if (whole > 0)
        {
          char *body = g_strndup (conn->in->str + body_at, body_len);
          g_string_erase (conn->in, 0, whole);
          return body;
        }
      n = wire_recv (conn->fd, conn->tls, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED, "connection closed");
          return NULL;
        }
      g_string_append_len (conn->in, buffer, n);
    }
}

void
bench_http_close (BenchHttpConnection *conn)
{
  if (conn == NULL)
    return;
  wire_close (conn->fd, conn->tls);
  g_string_free (conn->in, TRUE);
  g_free (conn);
}

/* --- the load generator ------------------------------------------------- */

typedef struct {
  int              fd;
  gnutls_session_t tls;
  guint            next;        /* the request being sent */
  gsize            sent;        /* bytes of it written */
  gint64           started_ns;
  gboolean         checked;     /* its first answer was looked at */
  GString         *in;
} Connection;

static gint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

static int
compare_gint64 (gconstpointer a,
                gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

static guint
count_in (const char *data,
          gsize       len,
          const char *needle)
{
  gsize needle_len = strlen (needle);
  const char *end = data + len;
  guint n = 0;

  for (const char *at = g_strstr_len (data, len, needle); at != NULL;
       at = g_strstr_len (at + needle_len, end - at - needle_len, needle))
    n++;
  return n;
}

static gboolean
connection_send (Connection *c,
                 const char *request,
                 gsize       len)
{
  while (c->sent < len)
    {
      gssize n = wire_send (c->fd, c->tls, request + c->sent, len - c->sent);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return TRUE;
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      c->sent += (gsize) n;
    }
  return TRUE;
}

gboolean
bench_load_run_requests (guint16             port,
                         gboolean            tls,
                         const char * const *requests,
                         guint               connections,
                         double              warmup_s,
                         double              seconds,
                         const char         *expect,
                         BenchLoadResult    *result,
                         GError            **error)
{
  guint n_requests = g_strv_length ((char **) requests);
  g_autofree gsize *lens = g_new (gsize, MAX (n_requests, 1));
  g_autofree Connection *conns = g_new0 (Connection, connections);
  g_autofree struct pollfd *fds = g_new0 (struct pollfd, connections);
  g_autoptr(GArray) latencies = g_array_sized_new (FALSE, FALSE, sizeof (gint64), 1 << 18);
  gint64 start = now_ns ();
  gint64 measure_from = start + (gint64) (warmup_s * 1e9);
  gint64 measure_to = measure_from + (gint64) (seconds * 1e9);
  gboolean ok = TRUE;

  memset (result, 0, sizeof *result);
  g_return_val_if_fail (n_requests > 0, FALSE);
  for (guint i = 0; i < n_requests; i++)
    lens[i] = strlen (requests[i]);
  for (guint i = 0; i < connections; i++)
    {
      conns[i].fd = connect_loopback (port, !tls, error);
      conns[i].in = g_string_sized_new (4096);
      /* The connections start at different requests. */
      conns[i].next = i % n_requests;
      if (conns[i].fd >= 0 && tls)
        {
          conns[i].tls = tls_open (conns[i].fd, error);
          if (conns[i].tls != NULL)
            g_unix_set_fd_nonblocking (conns[i].fd, TRUE, NULL);
        }
      if (conns[i].fd < 0 || (tls && conns[i].tls == NULL))
        {
          ok = FALSE;
          connections = i + 1;
          goto out;
        }
      conns[i].started_ns = now_ns ();
      if (!connection_send (&conns[i], requests[conns[i].next], lens[conns[i].next]))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "send failed at once");
          ok = FALSE;
          connections = i + 1;
          goto out;
        }
    }

  while (now_ns () < measure_to)
    {
      gboolean buffered = FALSE;

      for (guint i = 0; i < connections; i++)
        {
          fds[i].fd = conns[i].fd;
          fds[i].events = POLLIN | (conns[i].sent < lens[conns[i].next] ? POLLOUT : 0);
          fds[i].revents = 0;
          buffered |= wire_pending (conns[i].tls);
        }
      if (poll (fds, connections, buffered ? 0 : 100) < 0 && errno != EINTR)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "poll: %s", g_strerror (errno));
          ok = FALSE;
          break;
        }
      for (guint i = 0; i < connections; i++)
        {
          Connection *c = &conns[i];
          char buffer[65536];
          gssize n;
          guint status = 0;
          gsize body_at = 0, body_len = 0;
          gssize whole;

          if (fds[i].revents & POLLOUT)
            connection_send (c, requests[c->next], lens[c->next]);
          if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)) && !wire_pending (c->tls))
            continue;
          n = wire_recv (c->fd, c->tls, buffer, sizeof buffer);
          if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
          if (n <= 0)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
                           "the server closed a keep-alive connection after %" G_GUINT64_FORMAT
                           " answers", result->requests);
              ok = FALSE;
              goto out;
            }
          g_string_append_len (c->in, buffer, n);
          whole = answer_complete (c->in->str, c->in->len, &status, &body_at, &body_len);
          if (whole < 0)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "not an HTTP answer");
              ok = FALSE;
              goto out;
            }
          if (whole == 0)
            continue;
          {
            gint64 done = now_ns ();

            if (!c->checked)
              {
                c->checked = TRUE;
                if (status != 200 || (expect != NULL &&
                                      g_strstr_len (c->in->str + body_at, body_len, expect) == NULL))
                  {
                    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                                 "unexpected first answer (status %u): %.*s", status,
                                 (int) MIN (body_len, 400), c->in->str + body_at);
                    ok = FALSE;
                    goto out;
                  }
              }
            if (done >= measure_from && done < measure_to)
              {
                gint64 latency = done - c->started_ns;
                g_array_append_val (latencies, latency);
                result->requests++;
                if (status != 200)
                  result->failures++;
                if (expect != NULL)
                  result->matches += count_in (c->in->str + body_at, body_len, expect);
              }
            g_string_erase (c->in, 0, whole);
            c->next = (c->next + 1) % n_requests;
            c->sent = 0;
            c->started_ns = now_ns ();
            connection_send (c, requests[c->next], lens[c->next]);
          }
        }
    }

out:
  for (guint i = 0; i < connections; i++)
    {
      wire_close (conns[i].fd, conns[i].tls);
      if (conns[i].in != NULL)
        g_string_free (conns[i].in, TRUE);
    }
  result->seconds = seconds;
  result->per_second = result->requests / seconds;
  if (latencies->len > 0)
    {
      g_array_sort (latencies, compare_gint64);
      result->p50_us = g_array_index (latencies, gint64, latencies->len / 2) / 1000.0;
      result->p99_us = g_array_index (latencies, gint64, MIN (latencies->len - 1,
                                                              (latencies->len * 99) / 100)) / 1000.0;
    }
  return ok;
}

gboolean
bench_load_run (guint16          port,
                const char      *request,
                guint            connections,
                double           warmup_s,
                double           seconds,
                const char      *expect,
                BenchLoadResult *result,
                GError         **error)
{
  const char *requests[] = { request, NULL };

  return bench_load_run_requests (port, FALSE, requests, connections, warmup_s, seconds, expect, result, error);
}

/* --- the bare libsoup server -------------------------------------------- */

struct _BenchBareServer {
  GThread      *thread;
  GMainContext *context;
  GMainLoop    *loop;
  GBytes       *body;
  GMutex        lock;
  GCond         ready;
  guint16       port;
  int           tid;
};

static void
on_bare_request (SoupServer        *server,
                 SoupServerMessage *msg,
                 const char        *path,
                 GHashTable        *query,
                 gpointer           user_data)
{
  BenchBareServer *self = user_data;
  gsize len;
  const char *data = g_bytes_get_data (self->body, &len);

  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, data, len);
  soup_server_message_set_status (msg, 200, NULL);
}

static gpointer
bare_server_thread (gpointer user_data)
{
  BenchBareServer *self = user_data;
  g_autoptr(GError) error = NULL;
  SoupServer *server;
  GSList *uris;

  g_main_context_push_thread_default (self->context);
  server = soup_server_new ("server-header", NULL, NULL);
  soup_server_add_handler (server, NULL, on_bare_request, self, NULL);
  if (!soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error))
    g_error ("bare server: %s", error->message);
  uris = soup_server_get_uris (server);
  g_mutex_lock (&self->lock);
  self->tid = (int) gettid ();
  self->port = (guint16) g_uri_get_port (uris->data);
  g_cond_signal (&self->ready);
  g_mutex_unlock (&self->lock);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  g_main_loop_run (self->loop);

  soup_server_disconnect (server);
  g_object_unref (server);
  while (g_main_context_iteration (self->context, FALSE))
    ;
  g_main_context_pop_thread_default (self->context);
  return NULL;
}

BenchBareServer *
bench_bare_server_start (const char *body)
{
  BenchBareServer *self = g_new0 (BenchBareServer, 1);

  self->context = g_main_context_new ();
  self->loop = g_main_loop_new (self->context, FALSE);
  self->body = g_bytes_new (body, strlen (body));
  g_mutex_init (&self->lock);
  g_cond_init (&self->ready);
  self->thread = g_thread_new ("bare-soup-server", bare_server_thread, self);
  g_mutex_lock (&self->lock);
  while (self->port == 0)
    g_cond_wait (&self->ready, &self->lock);
  g_mutex_unlock (&self->lock);
  return self;
}

guint16
bench_bare_server_port (BenchBareServer *self)
{
  return self->port;
}

guint64
bench_bare_server_cpu_ns (BenchBareServer *self)
{
  g_autofree char *path = g_strdup_printf ("/proc/self/task/%d/schedstat", self->tid);

  return bench_schedstat_ns (path);
}

static gboolean
quit_loop (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_REMOVE;
}

void
bench_bare_server_stop (BenchBareServer *self)
{
  g_main_context_invoke (self->context, quit_loop, self->loop);
  g_thread_join (self->thread);
  g_main_loop_unref (self->loop);
  g_main_context_unref (self->context);
  g_bytes_unref (self->body);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->ready);
  g_free (self);
}
