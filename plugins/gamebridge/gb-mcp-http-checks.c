/* gb-mcp-http-checks.c: which HTTP requests may reach the MCP endpoint:
 * Origin and Host (browsers and DNS rebinding kept out), and what the
 * client's Accept header lets us answer with.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "gb-mcp-private.h"

/**
 * gb_mcp_http_origin_allowed:
 * @origin: (nullable): the request's Origin header
 *
 * Returns: %TRUE if absent (not a browser) or a page served from this
 *   machine: http(s)://localhost|127.0.0.1|[::1] with any port
 */
gboolean
gb_mcp_http_origin_allowed (const char *origin)
{
  g_autoptr(GUri) uri = NULL;
  const char *scheme, *host, *path;

  if (origin == NULL)
    return TRUE;
  uri = g_uri_parse (origin, G_URI_FLAGS_NONE, NULL);
  if (uri == NULL)
    return FALSE;
  scheme = g_uri_get_scheme (uri);
  host = g_uri_get_host (uri);
  path = g_uri_get_path (uri);
  if (g_strcmp0 (scheme, "http") != 0 && g_strcmp0 (scheme, "https") != 0)
    return FALSE;
  if (g_uri_get_userinfo (uri) != NULL || g_uri_get_query (uri) != NULL ||
      g_uri_get_fragment (uri) != NULL || (path[0] != '\0' && strcmp (path, "/") != 0))
    return FALSE;
  return host != NULL && (g_ascii_strcasecmp (host, "localhost") == 0 ||
                          strcmp (host, "127.0.0.1") == 0 || strcmp (host, "::1") == 0);
}

/**
 * gb_mcp_http_host_allowed:
 * @host: (nullable): the request's Host header
 *
 * A DNS-rebound name (evil.example resolving to 127.0.0.1) is refused even
 * when the browser sends no Origin.
 *
 * Returns: %TRUE if absent (HTTP/1.0) or a loopback name with any port
 */
gboolean
gb_mcp_http_host_allowed (const char *host)
{
  g_autofree char *as_origin = NULL;

  if (host == NULL)
    return TRUE;
  if (*host == '\0' || strpbrk (host, "/?#@ ") != NULL)
    return FALSE;
  as_origin = g_strconcat ("http://", host, NULL);
  return gb_mcp_http_origin_allowed (as_origin);
}

/**
 * gb_mcp_http_parse_accept:
 * @accept: (nullable): the request's Accept header(s), comma-joined
 * @json_ok: (out): whether application/json is acceptable
 * @sse_ok: (out): whether text/event-stream is acceptable
 *
 * No header accepts both.
 */
void
gb_mcp_http_parse_accept (const char *accept,
                          gboolean   *json_ok,
                          gboolean   *sse_ok)
{
  g_autoptr(GSList) types = NULL;

  *json_ok = *sse_ok = (accept == NULL);
  if (accept == NULL)
    return;
  types = soup_header_parse_quality_list (accept, NULL);
  for (GSList *l = types; l != NULL; l = l->next)
    {
      const char *type = l->data;
      if (g_ascii_strcasecmp (type, "*/*") == 0)
        *json_ok = *sse_ok = TRUE;
      else if (g_ascii_strcasecmp (type, "application/*") == 0 ||
               g_ascii_strcasecmp (type, "application/json") == 0)
        *json_ok = TRUE;
      else if (g_ascii_strcasecmp (type, "text/*") == 0 ||
               g_ascii_strcasecmp (type, "text/event-stream") == 0)
        *sse_ok = TRUE;
    }
  g_slist_free_full (g_steal_pointer (&types), g_free);
}
