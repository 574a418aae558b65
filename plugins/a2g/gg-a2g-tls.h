/* gg-a2g-tls.h: the A2G service's own HTTPS listener, TLS 1.2 or later
 * only (see gg-a2g-tls.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <libsoup/soup.h>

G_BEGIN_DECLS

/* [a2g] tls-handshake-timeout: seconds for a ClientHello and the handshake. */
#define GG_A2G_DEFAULT_TLS_HANDSHAKE_TIMEOUT_S 10

typedef struct _GgA2gTlsListener GgA2gTlsListener;

GgA2gTlsListener *gg_a2g_tls_listener_new      (SoupServer       *soup,
                                                GTlsCertificate  *certificate,
                                                GSocketAddress   *address,
                                                guint             handshake_timeout_s,
                                                GError          **error);
guint16           gg_a2g_tls_listener_get_port (GgA2gTlsListener *listener);
void              gg_a2g_tls_listener_free     (GgA2gTlsListener *listener);

G_END_DECLS
