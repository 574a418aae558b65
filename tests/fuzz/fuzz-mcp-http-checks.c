/* fuzz-mcp-http-checks.c: which HTTP requests may reach the MCP endpoint:
 * the Origin and Host checks and the Accept parser, on any header values
 * (the input's lines: Origin, Host, Accept). An allowed Origin or Host is
 * on this machine by construction, so it must name a loopback host.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "gb-mcp-private.h"

/* GUri decodes a percent-encoded host ("%6cocalhost" is localhost), so
 * the oracle decodes too. */
static gboolean
names_loopback (const char *text)
{
  g_autofree char *decoded = g_uri_unescape_string (text, NULL);
  g_autofree char *lower = g_ascii_strdown (decoded != NULL ? decoded : text, -1);

  return strstr (lower, "localhost") != NULL || strstr (lower, "127.0.0.1") != NULL ||
         strstr (lower, "[::1]") != NULL;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  FuzzInput in = { data, size };
  g_autofree char *origin = fuzz_input_piece (&in, '\n', NULL);
  g_autofree char *host = fuzz_input_piece (&in, '\n', NULL);
  g_autofree char *accept = fuzz_input_piece (&in, '\n', NULL);
  gboolean json_ok = FALSE, sse_ok = FALSE;

  fuzz_init ();
  if (gb_mcp_http_origin_allowed (origin) && !names_loopback (origin))
    g_error ("an Origin not naming this machine passed: %s", origin);
  if (gb_mcp_http_host_allowed (host) && !names_loopback (host))
    g_error ("a Host not naming this machine passed: %s", host);
  (void) gb_mcp_http_origin_allowed (NULL);
  (void) gb_mcp_http_host_allowed (NULL);
  gb_mcp_http_parse_accept (accept, &json_ok, &sse_ok);
  gb_mcp_http_parse_accept (NULL, &json_ok, &sse_ok);
  return 0;
}
