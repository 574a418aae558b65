/* refgame-screenshot.c: GET /screenshot: the scene (refgame-render.c) of the
 * current state as a PNG (refgame-png.c), optionally cut to
 * `region=x,y,w,h` of the native frame and scaled down to fit `width` and/or
 * `height` (never up). The answer carries the frame it shows (`X-Frame`)
 * and the game's own render and encode times (`Server-Timing`, ms); the
 * bytes depend on the state only, so one state gives one file.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "refgame-screenshot.h"
#include "refgame-png.h"
#include "refgame-query.h"
#include "refgame-render.h"
#include "refgame-sim.h"

#include <string.h>

static gboolean
parse_side (const char  *text,
            guint        max,
            const char  *what,
            guint       *out,
            GError     **error)
{
  guint64 value;

  if (!g_ascii_string_to_unsigned (text, 10, 1, max, &value, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s must be an integer 1..%u", what, max);
      return FALSE;
    }
  *out = (guint) value;
  return TRUE;
}

/**
 * rg_screenshot_parse_size:
 * @text: "WIDTHxHEIGHT"
 * @width: (out): the width
 * @height: (out): the height
 * @error: a refusal
 *
 * Returns: %TRUE for a size with both sides 1..RG_PNG_MAX_SIDE
 */
gboolean
rg_screenshot_parse_size (const char  *text,
                          guint       *width,
                          guint       *height,
                          GError     **error)
{
  g_auto(GStrv) parts = g_strsplit (text, "x", -1);

  if (g_strv_length (parts) != 2)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "a size is WIDTHxHEIGHT, like 640x480");
      return FALSE;
    }
  return parse_side (parts[0], RG_PNG_MAX_SIDE, "the width", width, error) &&
         parse_side (parts[1], RG_PNG_MAX_SIDE, "the height", height, error);
}

char *
rg_screenshot_manifest (const RgScreenshotOptions *options)
{
  if (options->disabled)
    return NULL;
  return g_strdup_printf ("{\"mimeTypes\":[\"image/png\"],\"width\":%u,\"height\":%u,\"scale\":%s,\"region\":true}",
                          options->width, options->height, options->ignore_size ? "false" : "true");
}

static void
respond_error (SoupServerMessage *msg,
               guint              status,
               const char        *code,
               const char        *message)
{
  g_autoptr(GString) out = g_string_new ("{\"error\":");

  rg_json_write_string (out, code);
  g_string_append (out, ",\"message\":");
  rg_json_write_string (out, message);
  g_string_append_c (out, '}');
  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Cache-Control", "no-store");
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, out->str, out->len);
}

/* region=x,y,w,h inside the native frame. */
static gboolean
parse_region (const char                *text,
              const RgScreenshotOptions *options,
              guint                      region[4],
              GError                   **error)
{
  g_auto(GStrv) parts = g_strsplit (text, ",", -1);
  guint64 v[4];

  if (g_strv_length (parts) != 4)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "region is x,y,w,h");
      return FALSE;
    }
  for (int i = 0; i < 4; i++)
    if (!g_ascii_string_to_unsigned (parts[i], 10, i < 2 ? 0 : 1, RG_PNG_MAX_SIDE, &v[i], NULL))
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "region is x,y,w,h: integers, w and h >= 1");
        return FALSE;
      }
  if (v[0] + v[2] > options->width || v[1] + v[3] > options->height)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "region %s lies outside the %ux%u frame", text, options->width, options->height);
      return FALSE;
    }
  for (int i = 0; i < 4; i++)
    region[i] = (guint) v[i];
  return TRUE;
}

/* Fits w x h into the asked box (either side may be 0: not asked), never
 * larger than it is. */
static void
fit (guint  w,
     guint  h,
     guint  max_w,
     guint  max_h,
     guint *out_w,
     guint *out_h)
{
  /* The scale as a fraction num/den <= 1: the tighter of the two sides. */
  guint64 num = 1, den = 1;

  if (max_w > 0 && max_w < w)
    num = max_w, den = w;
  if (max_h > 0 && max_h < h && (guint64) max_h * den < num * h)
    num = max_h, den = h;
  *out_w = (guint) MAX (1, (w * num + den / 2) / den);
  *out_h = (guint) MAX (1, (h * num + den / 2) / den);
}

void
rg_screenshot_respond (const RgScreenshotOptions *options,
                       RgGame                    *game,
                       SoupServerMessage         *msg)
{
  GUri *uri = soup_server_message_get_uri (msg);
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) params = NULL;
  g_autofree guint8 *frame = NULL;
  g_autofree guint8 *cut = NULL;
  g_autoptr(GBytes) png = NULL;
  g_autofree char *frame_text = NULL;
  g_autofree char *timing = NULL;
  guint region[4] = { 0, 0, options->width, options->height };
  guint max_w = 0, max_h = 0, out_w, out_h;
  const char *value;
  gint64 started, rendered, encoded;

  if (options->disabled)
    {
      respond_error (msg, SOUP_STATUS_NOT_FOUND, "not_found", "this game serves no screenshots");
      return;
    }
  params = rg_query_parse (g_uri_get_query (uri), &error);
  if (params == NULL ||
      ((value = g_hash_table_lookup (params, "region")) != NULL && !parse_region (value, options, region, &error)) ||
      ((value = g_hash_table_lookup (params, "width")) != NULL &&
       !parse_side (value, RG_PNG_MAX_SIDE, "width", &max_w, &error)) ||
      ((value = g_hash_table_lookup (params, "height")) != NULL &&
       !parse_side (value, RG_PNG_MAX_SIDE, "height", &max_h, &error)))
    {
      respond_error (msg, SOUP_STATUS_BAD_REQUEST, "bad_query", error->message);
      return;
    }
  if (options->ignore_size)
    max_w = max_h = 0;
  fit (region[2], region[3], max_w, max_h, &out_w, &out_h);

  started = g_get_monotonic_time ();
  frame = rg_render_scene (rg_game_get_sim (game), options->width, options->height);
  cut = rg_render_crop_scale (frame, options->width, region[0], region[1], region[2], region[3], out_w, out_h);
  rendered = g_get_monotonic_time ();
  png = rg_png_encode_rgb (cut, out_w, out_h, &error);
  encoded = g_get_monotonic_time ();
  if (png == NULL)
    {
      respond_error (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, "encode_failed", error->message);
      return;
    }
  frame_text = g_strdup_printf ("%" G_GUINT64_FORMAT, rg_game_get_frame (game));
  timing = g_strdup_printf ("render;dur=%.3f, encode;dur=%.3f", (rendered - started) / 1000.0,
                            (encoded - rendered) / 1000.0);
  soup_message_headers_replace (headers, "Cache-Control", "no-store");
  soup_message_headers_replace (headers, "X-Frame", frame_text);
  soup_message_headers_replace (headers, "Server-Timing", timing);
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (msg, "image/png", SOUP_MEMORY_COPY, g_bytes_get_data (png, NULL),
                                    g_bytes_get_size (png));
}
