/* gg-a2g-client-hello.h: what a TLS ClientHello offers, read before the
 * handshake (see gg-a2g-client-hello.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The most bytes of records read for one ClientHello (headers included);
 * the largest real ones (post-quantum key shares, many PSKs) are under
 * 8 KiB. */
#define GG_A2G_CLIENT_HELLO_MAX_SIZE 32768

/* The TLS versions on the wire. */
#define GG_A2G_TLS_1_0 0x0301
#define GG_A2G_TLS_1_1 0x0302
#define GG_A2G_TLS_1_2 0x0303

/* TLS alert descriptions (RFC 8446, 6.2) the reader answers with. */
#define GG_A2G_ALERT_UNEXPECTED_MESSAGE 10
#define GG_A2G_ALERT_RECORD_OVERFLOW 22
#define GG_A2G_ALERT_DECODE_ERROR 50
#define GG_A2G_ALERT_PROTOCOL_VERSION 70

typedef enum {
  GG_A2G_CLIENT_HELLO_INCOMPLETE,  /* more bytes are needed */
  GG_A2G_CLIENT_HELLO_ACCEPTABLE,  /* offers TLS 1.2 or later */
  GG_A2G_CLIENT_HELLO_TOO_OLD,     /* offers nothing newer than TLS 1.1 */
  GG_A2G_CLIENT_HELLO_REFUSED,     /* no TLS, a broken or oversized ClientHello */
} GgA2gClientHelloVerdict;

typedef struct {
  guint16 record_version;   /* of the first record; 0 when it is no TLS record */
  guint16 highest_version;  /* the newest TLS version offered (ACCEPTABLE, TOO_OLD) */
  guint8 alert;             /* the alert to answer with (TOO_OLD, REFUSED); 0: none */
  const char *problem;      /* why not ACCEPTABLE (static English), else NULL */
  gsize need;               /* INCOMPLETE: the bytes to have before checking again */
} GgA2gClientHello;

GgA2gClientHelloVerdict gg_a2g_client_hello_check (const guint8     *data,
                                                   gsize             length,
                                                   GgA2gClientHello *hello);
gsize                   gg_a2g_client_hello_alert (const GgA2gClientHello *hello,
                                                   guint8                  record[7]);

G_END_DECLS
