/* fuzz-gb-connector.c: gamebridge's readers of a game's answers (/health,
 * /tools, /state and a command confirmed through /state) on whatever a
 * game sends back. The input is four answers, /health, /tools, /state and
 * /command in that order, separated by NUL bytes, each starting with one
 * byte choosing its HTTP status; they are served by a fake game in this
 * process over real HTTP. Every call must end with a value or a GB_ERROR.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "fuzz-common.h"
#include "fuzz-http-game.h"
#include "gb-bridge.h"

typedef struct {
  gboolean done;
  GError *error;
  gpointer value;
  GDestroyNotify free_value;
} Call;

static void
call_clear (Call *call)
{
  if (g_strcmp0 (g_getenv ("FUZZ_DUMP"), "1") == 0)
    g_printerr ("%s\n", call->error != NULL ? call->error->message : "ok");
  if (call->error != NULL)
    g_assert_true (call->error->domain == GB_ERROR || call->error->domain == G_IO_ERROR);
  g_clear_error (&call->error);
  if (call->value != NULL)
    call->free_value (call->value);
  call->value = NULL;
  call->done = FALSE;
}

static void
health_done (GObject *source, GAsyncResult *result, gpointer data)
{
  Call *call = data;

  call->value = gb_connector_health_finish (GB_CONNECTOR (source), result, &call->error);
  call->free_value = (GDestroyNotify) json_object_unref;
  call->done = TRUE;
}

static void
manifest_done (GObject *source, GAsyncResult *result, gpointer data)
{
  Call *call = data;

  call->value = gb_connector_manifest_finish (GB_CONNECTOR (source), result, &call->error);
  call->free_value = (GDestroyNotify) gb_manifest_unref;
  call->done = TRUE;
}

static void
state_done (GObject *source, GAsyncResult *result, gpointer data)
{
  Call *call = data;

  call->value = gb_connector_state_finish (GB_CONNECTOR (source), result, &call->error);
  call->free_value = (GDestroyNotify) json_node_unref;
  call->done = TRUE;
}

static void
command_done (GObject *source, GAsyncResult *result, gpointer data)
{
  Call *call = data;

  call->value = gb_connector_command_finish (GB_CONNECTOR (source), result, &call->error);
  call->free_value = (GDestroyNotify) json_object_unref;
  call->done = TRUE;
}

static void
check_manifest (GbManifest *manifest)
{
  g_autoptr(JsonArray) names = gb_manifest_toolset_names (manifest);

  for (guint i = 0; i < manifest->toolsets->len; i++)
    {
      GbToolset *set = manifest->toolsets->pdata[i];

      for (guint j = 0; j < set->tools->len; j++)
        {
          GbTool *tool = set->tools->pdata[j];
          g_autoptr(JsonObject) json = gb_tool_to_json (tool);

          g_assert_true (gb_manifest_find_tool (manifest, tool->name) != NULL);
        }
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  static const guint statuses[] = { 200, 200, 200, 404, 500, 204, 301, 200 };
  static SoupSession *session;
  FuzzInput in = { data, size };
  g_autoptr(GbConnector) connector = NULL;
  g_autoptr(JsonObject) arguments = json_object_new ();
  Call call = { 0 };

  fuzz_init ();
  if (session == NULL)
    {
      session = soup_session_new ();
      soup_session_set_proxy_resolver (session, NULL);
    }
  (void) fuzz_http_game_port ();   /* listening (and reset) before the answers are set */
  fuzz_http_game_reset ();
  for (guint i = 0; i < FUZZ_HTTP_N_PATHS && in.size > 0; i++)
    {
      guint status = statuses[fuzz_input_byte (&in) % G_N_ELEMENTS (statuses)];
      gsize length;
      g_autofree char *body = fuzz_input_piece (&in, '\0', &length);

      fuzz_http_game_set (i, status, body, length);
    }
  /* Short: a command /state never confirms waits this long. */
  connector = gb_connector_new (session, fuzz_http_game_port (), 60, NULL, NULL);

  gb_connector_health_async (connector, 0, NULL, health_done, &call);
  g_assert_true (fuzz_wait_until (&call.done, 10000));
  call_clear (&call);

  gb_connector_manifest_async (connector, FALSE, NULL, manifest_done, &call);
  g_assert_true (fuzz_wait_until (&call.done, 10000));
  if (call.value != NULL)
    check_manifest (call.value);
  call_clear (&call);

  gb_connector_state_async (connector, NULL, state_done, &call);
  g_assert_true (fuzz_wait_until (&call.done, 10000));
  call_clear (&call);

  json_object_set_string_member (arguments, "kind", "wood");
  gb_connector_command_async (connector, "spawn", arguments, NULL, command_done, &call);
  g_assert_true (fuzz_wait_until (&call.done, 10000));
  call_clear (&call);
  fuzz_drain ();
  return 0;
}
