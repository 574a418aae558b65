/* bench-screenshot.c: a 640x480 PNG screenshot of the reference game from
 * the game to the agent, through `gamegate mcp` on stdio: the screenshot
 * tool through call_tool and the resource game://PORT/screenshot (MCP image
 * content / a blob, base64 in JSON), beside the same GET /screenshot made
 * directly, and beside the game's own time to render and encode it (its
 * Server-Timing header). The bridge's CPU per image is its user + system
 * time (/proc/<pid>/stat) over the calls, divided by their number; the
 * game's likewise. Prints figures; asserts nothing about speed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb-mcp-client.h"
#include "refgame-driver.h"

#define CALLS 300

static int
compare (gconstpointer a,
         gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static double
percentile (GArray *us,
            double  p)
{
  return g_array_index (us, gint64, (guint) (p * (us->len - 1))) / 1000.0;
}

/* User + system CPU time of @pid so far, in ms; -1 when unknown. */
static double
cpu_ms (const char *pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%s/stat", pid);
  g_autofree char *text = NULL;
  g_auto(GStrv) fields = NULL;
  const char *after;

  if (!g_file_get_contents (path, &text, NULL, NULL) || (after = strrchr (text, ')')) == NULL)
    return -1;
  /* After the command's closing parenthesis: state is field 3, utime 14, stime 15. */
  fields = g_strsplit (after + 2, " ", -1);
  if (g_strv_length (fields) < 13)
    return -1;
  return (g_ascii_strtod (fields[11], NULL) + g_ascii_strtod (fields[12], NULL)) * 1000.0 / sysconf (_SC_CLK_TCK);
}

static void
report (const char *what,
        GArray     *us,
        gint64      total_us,
        double      bridge_ms,
        double      game_ms)
{
  g_array_sort (us, compare);
  printf ("%-34s %4u calls %7.0f /s  p50 %7.3f ms  p99 %7.3f ms", what, us->len, us->len / (total_us / 1e6),
          percentile (us, 0.50), percentile (us, 0.99));
  if (bridge_ms >= 0)
    printf ("  bridge CPU %6.3f ms/image", bridge_ms / us->len);
  printf ("  game CPU %6.3f ms/image\n", game_ms / us->len);
}

/* The game's own figures: Server-Timing `render;dur=R, encode;dur=E`. */
static void
game_timing (Game   *game,
             GArray *render_us,
             GArray *encode_us,
             gsize  *bytes)
{
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/screenshot", game->port);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
  g_autoptr(GBytes) body = soup_session_send_and_read (game->session, msg, NULL, NULL);
  const char *timing = soup_message_headers_get_one (soup_message_get_response_headers (msg), "Server-Timing");
  const char *render = timing != NULL ? strstr (timing, "render;dur=") : NULL;
  const char *encode = timing != NULL ? strstr (timing, "encode;dur=") : NULL;
  gint64 r, e;

  g_assert_nonnull (body);
  g_assert_nonnull (render);
  g_assert_nonnull (encode);
  r = (gint64) (g_ascii_strtod (render + strlen ("render;dur="), NULL) * 1000);
  e = (gint64) (g_ascii_strtod (encode + strlen ("encode;dur="), NULL) * 1000);
  g_array_append_val (render_us, r);
  g_array_append_val (encode_us, e);
  *bytes = g_bytes_get_size (body);
}

int
main (int argc, char **argv)
{
  g_autoptr(Game) game = NULL;
  g_autoptr(Mcp) mcp = NULL;
  g_autoptr(GArray) direct = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) tool = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) resource = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) render = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) encode = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree char *call = NULL;
  g_autofree char *read = NULL;
  const char *game_pid;
  const char *bridge_pid;
  gsize bytes = 0;
  double b0, g0;
  gint64 start;

  g_test_init (&argc, &argv, NULL);
  game = game_spawn ("--no-registry", NULL);
  game_pid = g_subprocess_get_identifier (game->proc);
  command_and_wait (game, "cmd=spawn&kind=steel");
  command_and_wait (game, "cmd=drop&x=-1");
  command_and_wait (game, "cmd=spawn&kind=ice");
  mcp = mcp_start ((const char *[]) { "--no-scan", NULL }, NULL);
  bridge_pid = gg_test_process_get_pid (mcp->process);
  call = g_strdup_printf ("{\"name\":\"screenshot\",\"port\":%u}", game->port);
  read = g_strdup_printf ("{\"uri\":\"game://%u/screenshot\"}", game->port);
  /* Warm: connections, the manifest, the first allocations. */
  for (guint i = 0; i < 10; i++)
    {
      g_autoptr(JsonObject) r = mcp_call (mcp, "call_tool", call);
    }

  for (guint i = 0; i < CALLS; i++)
    game_timing (game, render, encode, &bytes);
  g_array_sort (render, compare);
  g_array_sort (encode, compare);
  printf ("%-34s %zu bytes, 640x480 RGB\n", "the reference game's PNG", bytes);
  printf ("%-34s render p50 %7.3f ms  encode p50 %7.3f ms  encode p99 %7.3f ms (Server-Timing)\n",
          "the game's own time per image", percentile (render, 0.5), percentile (encode, 0.5),
          percentile (encode, 0.99));

  g0 = cpu_ms (game_pid);
  start = g_get_monotonic_time ();
  for (guint i = 0; i < CALLS; i++)
    {
      gint64 t0 = g_get_monotonic_time (), dt;
      guint status = 0;
      g_autoptr(GBytes) body = http_get_bytes (game, "/screenshot", &status, NULL);

      dt = g_get_monotonic_time () - t0;
      g_assert_cmpuint (status, ==, 200);
      g_array_append_val (direct, dt);
    }
  report ("GET /screenshot, direct", direct, g_get_monotonic_time () - start, -1, cpu_ms (game_pid) - g0);

  b0 = cpu_ms (bridge_pid);
  g0 = cpu_ms (game_pid);
  start = g_get_monotonic_time ();
  for (guint i = 0; i < CALLS; i++)
    {
      gint64 t0 = g_get_monotonic_time (), dt;
      g_autoptr(JsonObject) r = mcp_call (mcp, "call_tool", call);

      dt = g_get_monotonic_time () - t0;
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (r, "content")), ==, 2);
      g_array_append_val (tool, dt);
    }
  report ("call_tool screenshot (MCP stdio)", tool, g_get_monotonic_time () - start, cpu_ms (bridge_pid) - b0,
          cpu_ms (game_pid) - g0);

  b0 = cpu_ms (bridge_pid);
  g0 = cpu_ms (game_pid);
  start = g_get_monotonic_time ();
  for (guint i = 0; i < CALLS; i++)
    {
      gint64 t0 = g_get_monotonic_time (), dt;
      g_autoptr(JsonObject) r = mcp_request (mcp, "resources/read", read);

      dt = g_get_monotonic_time () - t0;
      g_assert_true (json_object_has_member (r, "result"));
      g_array_append_val (resource, dt);
    }
  report ("resources/read game://P/screenshot", resource, g_get_monotonic_time () - start,
          cpu_ms (bridge_pid) - b0, cpu_ms (game_pid) - g0);
  return 0;
}
