/* gb-errors.c: the error classes of spec section 5, with their exact messages.
 *
 * The class name leads the message ("GameOffline: ...") because MCP clients
 * see only the text of an isError result.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-errors.h"

G_DEFINE_QUARK (gb-error-quark, gb_error)

/**
 * gb_substitute_port:
 * @text: a command or hint with `{port}` placeholders
 * @port: the port
 *
 * Returns: (transfer full): @text with every `{port}` replaced
 */
char *
gb_substitute_port (const char *text,
                    guint       port)
{
  GString *out = g_string_new (NULL);
  const char *p = text;
  const char *hit;

  while ((hit = strstr (p, "{port}")) != NULL)
    {
      g_string_append_len (out, p, hit - p);
      g_string_append_printf (out, "%u", port);
      p = hit + strlen ("{port}");
    }
  g_string_append (out, p);
  return g_string_free (out, FALSE);
}

void
gb_error_game_offline (GError    **error,
                       guint       port,
                       const char *launch_hint)
{
  g_autofree char *hint = NULL;

  if (launch_hint != NULL && *launch_hint != '\0')
    hint = gb_substitute_port (launch_hint, port);
  g_set_error (error, GB_ERROR, GB_ERROR_GAME_OFFLINE,
               "GameOffline: No game is answering on http://127.0.0.1:%u.\n"
               "Start one with:\n  %s", port,
               hint != NULL ? hint : "the launch_instance tool (it needs a gamebridge.json launch declaration)");
}

void
gb_error_not_a_game (GError    **error,
                     guint       port,
                     const char *what)
{
  g_set_error (error, GB_ERROR, GB_ERROR_NOT_A_GAME_SURFACE,
               "NotAGameSurface: Something is listening on http://127.0.0.1:%u, but it is not a\n"
               "debuggable game: %s.\n"
               "A drivable game must answer GET /health with {\"ok\":true,\"frame\":N}. Check whether\n"
               "another process has taken this port.", port, what);
}

void
gb_error_command_timeout (GError    **error,
                          const char *command,
                          guint       port,
                          guint       timeout_ms)
{
  g_set_error (error, GB_ERROR, GB_ERROR_COMMAND_TIMEOUT,
               "CommandTimeout: Command '%s' was queued on port %u but was not applied\n"
               "within %ums. The game accepted it, so it is probably blocked, frozen, or on a\n"
               "screen that ignores this command.", command, port, timeout_ms);
}

/* The first 200 characters of a body, cut on a UTF-8 boundary, invalid
 * bytes replaced, so a hostile body cannot break the JSON we answer with. */
static char *
body_excerpt (const char *body,
              gsize       len)
{
  g_autofree char *valid = g_utf8_make_valid (body != NULL ? body : "", body != NULL ? (gssize) len : 0);
  glong chars = g_utf8_strlen (valid, -1);

  if (chars <= 200)
    return g_steal_pointer (&valid);
  return g_utf8_substring (valid, 0, 200);
}

void
gb_error_http_status (GError    **error,
                      guint       port,
                      const char *path,
                      guint       status,
                      const char *body,
                      gsize       body_len)
{
  g_autofree char *excerpt = body_excerpt (body, body_len);

  g_set_error (error, GB_ERROR, GB_ERROR_HTTP_STATUS,
               "HttpStatusError: GET %s on http://127.0.0.1:%u returned HTTP %u: %s",
               path, port, status, excerpt);
}

void
gb_error_usage (GError    **error,
                const char *format,
                ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, GB_ERROR, GB_ERROR_USAGE, "BridgeUsageError: %s", text);
}
