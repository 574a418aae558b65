/* example.c: a castle guard NPC with a client tool, through gamegate's oam
 * C ABI (gamegate-oam.h), as an engine written in C or C++ embeds it.
 *
 * The guard is asked to open the north gate; the model (a scripted one
 * here, so that the example runs anywhere) calls the engine's `open_gate`
 * tool, which the callback answers at once, and the guard replies. A real
 * engine uses a JSON library; this one picks strings out by hand.
 *
 *   cc example.c $(pkg-config --cflags --libs gamegate-oam-1) -o example
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gamegate-oam.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static oam_bridge *bridge;

/* The text of the string member `key` in `json` (no escapes), or "". */
static const char *
member (const char *json, const char *key, char *out, size_t size)
{
  char pattern[64];
  const char *start, *end;

  snprintf (pattern, sizeof pattern, "\"%s\":\"", key);
  start = strstr (json, pattern);
  out[0] = '\0';
  if (start == NULL)
    return out;
  start += strlen (pattern);
  end = strchr (start, '"');
  if (end != NULL && (size_t) (end - start) < size)
    {
      memcpy (out, start, (size_t) (end - start));
      out[end - start] = '\0';
    }
  return out;
}

/* Every message of the bridge: answer `tool/call`, the engine's tools. */
static void
on_message (const char *json_line, void *user_data)
{
  char id[64], answer[256];

  (void) user_data;
  if (strstr (json_line, "\"method\":\"tool/call\"") == NULL)
    return;
  /* The engine would play the gate animation here. */
  snprintf (answer, sizeof answer,
            "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"result\":{\"output\":\"the portcullis chain is jammed\"}}",
            member (json_line, "id", id, sizeof id));
  oam_bridge_send (bridge, answer);
}

int
main (void)
{
  char *created, *reply;
  char line[256], emotion[64];
  int ok;

  bridge = oam_bridge_create (on_message, NULL);
  created = oam_call_blocking (bridge,
    "{\"method\":\"npc/create\",\"params\":{\"npc\":\"guard\","
    "\"persona\":{\"name\":\"Brom\",\"role\":\"the guard of the north gate\"},"
    "\"tools\":[{\"name\":\"open_gate\",\"description\":\"Open a named gate.\",\"parameters\":"
    "{\"type\":\"object\",\"properties\":{\"gate\":{\"type\":\"string\"}},\"required\":[\"gate\"]}}],"
    "\"options\":{\"groundingTool\":\"open_gate\",\"replyFormat\":\"text\"},"
    "\"model\":{\"type\":\"scripted\",\"steps\":["
    "{\"toolCalls\":[{\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}}]},"
    "{\"template\":\"[angry] No luck: {toolOutput}.\"}]}}}", 10000);
  reply = oam_call_blocking (bridge,
    "{\"method\":\"npc/talk\",\"params\":{\"npc\":\"guard\",\"line\":\"Open the north gate!\"}}", 10000);
  ok = strstr (created, "\"result\"") != NULL && strstr (reply, "\"result\"") != NULL;
  printf ("oam %s\n", oam_version ());
  if (ok)
    printf ("Brom (%s): %s\n", member (reply, "emotion", emotion, sizeof emotion),
            member (reply, "line", line, sizeof line));
  else
    fprintf (stderr, "example: %s\n%s\n", created, reply);
  oam_string_free (created);
  oam_string_free (reply);
  oam_bridge_destroy (bridge);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
