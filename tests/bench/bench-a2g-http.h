/* bench-a2g-http.h: the a2g benchmarks' HTTP side: a keep-alive load
 * generator over raw sockets (one thread, poll(), N connections each sending
 * its next request as soon as the previous answer is complete; plain or
 * over TLS), a small blocking keep-alive client for setting things up, and
 * a bare libsoup server answering a fixed 200 JSON (the limit the service
 * is compared with).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "bench-stats.h"

G_BEGIN_DECLS

typedef struct {
  guint64 requests;       /* answers counted in the measured window */
  guint64 failures;       /* answers other than 200 */
  guint64 matches;        /* occurrences of @expect in the measured answers */
  double  seconds;        /* length of the measured window */
  double  per_second;
  double  p50_us;
  double  p99_us;
} BenchLoadResult;

/* Sends @request (a complete HTTP/1.1 request) again and again over
 * @connections keep-alive connections to 127.0.0.1:@port: @warmup_s seconds
 * unmeasured, then @seconds measured. The first answer on each connection
 * must be a 200 whose body contains @expect (when not NULL); @expect is
 * counted in every measured answer (decisions of a source, say). */
gboolean bench_load_run (guint16          port,
                         const char      *request,
                         guint            connections,
                         double           warmup_s,
                         double           seconds,
                         const char      *expect,
                         BenchLoadResult *result,
                         GError         **error);

/* The same with @requests (NULL-terminated) sent in turn on each
 * connection (each starting at another), over TLS when @tls. */
gboolean bench_load_run_requests (guint16             port,
                                  gboolean            tls,
                                  const char * const *requests,
                                  guint               connections,
                                  double              warmup_s,
                                  double              seconds,
                                  const char         *expect,
                                  BenchLoadResult    *result,
                                  GError            **error);

/* "POST @path" with a JSON @body, Host 127.0.0.1:@port, an Authorization
 * header when @token is not NULL. */
char    *bench_http_request (guint16     port,
                             const char *path,
                             const char *token,
                             const char *body);
/* The same with more @headers ("Name: value\r\n" lines, or NULL). */
char    *bench_http_request_full (guint16     port,
                                  const char *path,
                                  const char *token,
                                  const char *headers,
                                  const char *body);

/* One blocking keep-alive connection. */
typedef struct _BenchHttpConnection BenchHttpConnection;

BenchHttpConnection *bench_http_connect (guint16   port,
                                         GError  **error);
/* Over TLS when @tls (any certificate taken). */
BenchHttpConnection *bench_http_connect_full (guint16   port,
                                              gboolean  tls,
                                              GError  **error);
/* Sends @request, waits for the answer; returns its body, sets @status. */
char    *bench_http_exchange (BenchHttpConnection *conn,
                              const char          *request,
                              guint               *status,
                              GError             **error);
void     bench_http_close    (BenchHttpConnection *conn);

/* A libsoup server on its own thread answering every request with 200 and
 * @body as application/json. Returns its port. */
typedef struct _BenchBareServer BenchBareServer;

BenchBareServer *bench_bare_server_start (const char *body);
guint16          bench_bare_server_port  (BenchBareServer *server);
/* CPU time the server's thread has used so far, in nanoseconds. */
guint64          bench_bare_server_cpu_ns (BenchBareServer *server);
void             bench_bare_server_stop  (BenchBareServer *server);

G_END_DECLS
