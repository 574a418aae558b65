/* gabp-mod.c: a reference GABP mod, behaving like Lib.GAB.
 *
 * It listens on 127.0.0.1:$GABP_SERVER_PORT and expects $GABP_TOKEN, as a
 * mod launched by GABS or gamegate does; started by hand it picks port 5174
 * (or --port, 0 for any free one) and a token of its own, and prints both.
 * It is written against the spec on its own (GIO and json-glib only, no
 * gamegate code), so the tests talk to an independent peer.
 *
 * Surface: LSP framing with Content-Length and Content-Type; errors
 * -31000..-31005; tools with full descriptors; the world/tick event channel;
 * an attention item that can be raised and acknowledged; resources; state;
 * a screenshot tool (gamegate's extension: a result carrying
 * {"image": {"mimeType", "data"}}) and one that answers broken images on
 * purpose, both in gabp-mod-screenshot.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gio/gio.h>
#include <glib-unix.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gabp-mod-screenshot.h"

#define MAX_BODY (1024 * 1024)

typedef struct {
  GSocketConnection *connection;
  GOutputStream     *out;
  GByteArray        *in;
  GHashTable        *subscribed;
  gboolean           authenticated;
  gboolean           closed;
  guint8             buf[16384];
} Conn;

static struct {
  char       *token;
  GList      *conns;
  GHashTable *seqs;          /* channel -> next seq */
  JsonObject *attention;     /* open item or NULL */
  guint       attention_n;
  gint64      x, y;
  gint64      tick;
  guint       max_connections;
  GMainLoop  *loop;
  GList      *held;          /* Delayed, newest first */
} mod;

static const char *tools_json =
  "["
  "{\"name\":\"world/get_time\",\"title\":\"Get time\",\"description\":\"The current world tick.\","
  " \"inputSchema\":{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false},"
  " \"outputSchema\":{\"type\":\"object\",\"properties\":{\"tick\":{\"type\":\"integer\"}},\"required\":[\"tick\"]},"
  " \"tags\":[\"read-only\"]},"
  "{\"name\":\"player/move\",\"title\":\"Move player\",\"description\":\"Moves the player to x, y.\","
  " \"inputSchema\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\"},\"y\":{\"type\":\"integer\"}},"
  "   \"required\":[\"x\",\"y\"],\"additionalProperties\":false},"
  " \"outputSchema\":{\"type\":\"object\",\"properties\":{\"position\":{\"type\":\"object\"}}},"
  " \"tags\":[\"action\"]},"
  "{\"name\":\"game/echo\",\"title\":\"Echo\",\"description\":\"Returns its arguments.\","
  " \"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\"}},"
  "{\"name\":\"game/slow\",\"title\":\"Slow\",\"description\":\"Answers after `ms` milliseconds with `value`.\","
  " \"inputSchema\":{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\"},\"value\":{}}},"
  " \"outputSchema\":{\"type\":\"object\"}},"
  "{\"name\":\"game/hold\",\"title\":\"Hold\",\"description\":\"Answers with `value` only when game/release is called.\","
  " \"inputSchema\":{\"type\":\"object\",\"properties\":{\"value\":{}}},\"outputSchema\":{\"type\":\"object\"}},"
  "{\"name\":\"game/release\",\"title\":\"Release\",\"description\":\"Answers every held call, the last held first, then itself.\","
  " \"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\"}},"
  "{\"name\":\"game/fail\",\"title\":\"Fail\",\"description\":\"Always fails.\","
  " \"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\"}},"
  "{\"name\":\"world/emit_ticks\",\"title\":\"Emit ticks\",\"description\":\"Advances the world `count` ticks, one world/tick event each; `skip` drops that many sequence numbers first.\","
  " \"inputSchema\":{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"integer\"},\"skip\":{\"type\":\"integer\"}}},"
  " \"outputSchema\":{\"type\":\"object\"},\"tags\":[\"action\"]},"
  "{\"name\":\"attention/raise\",\"title\":\"Raise attention\",\"description\":\"Opens an attention item.\","
  " \"inputSchema\":{\"type\":\"object\",\"properties\":{\"blocking\":{\"type\":\"boolean\"},\"summary\":{\"type\":\"string\"}}},"
  " \"outputSchema\":{\"type\":\"object\"},\"tags\":[\"diagnostic\"]},"
  "{\"name\":\"game/screenshot\",\"title\":\"Screenshot\",\"description\":\"The frame as a PNG: the player on a 64x48 field.\","
  " \"inputSchema\":{\"type\":\"object\",\"properties\":{\"width\":{\"type\":\"integer\"},\"height\":{\"type\":\"integer\"},"
  "   \"region\":{\"type\":\"object\"}}},"
  " \"outputSchema\":{\"type\":\"object\",\"properties\":{\"image\":{\"type\":\"object\"},\"frame\":{\"type\":\"integer\"}}},"
  " \"tags\":[\"screenshot\"]},"
  "{\"name\":\"game/bad_image\",\"title\":\"Bad image\",\"description\":\"Answers a broken image of the given kind: truncated, not-image, mismatch, bad-base64, no-data.\","
  " \"inputSchema\":{\"type\":\"object\",\"properties\":{\"kind\":{\"type\":\"string\"}}},"
  " \"outputSchema\":{\"type\":\"object\"},\"tags\":[\"diagnostic\"]},"
  "{\"name\":\"game/crash\",\"title\":\"Crash\",\"description\":\"Exits the game at once, as a crash would.\","
  " \"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\"}}"
  "]";

static void conn_close (Conn *c);

static void
send_node (Conn     *c,
           JsonNode *node)
{
  g_autofree char *body = json_to_string (node, FALSE);
  g_autofree char *frame = g_strdup_printf ("Content-Length: %zu\r\nContent-Type: application/json\r\n\r\n%s",
                                            strlen (body), body);

  if (c->closed)
    return;
  /* Small messages on loopback: a blocking write is what a game mod does
   * from its network thread; fine for a test peer. */
  if (!g_output_stream_write_all (c->out, frame, strlen (frame), NULL, NULL, NULL))
    conn_close (c);
}

static JsonObject *
envelope (const char *id,
          const char *type)
{
  JsonObject *o = json_object_new ();
  json_object_set_string_member (o, "v", "gabp/1");
  json_object_set_string_member (o, "id", id);
  json_object_set_string_member (o, "type", type);
  return o;
}

static void
send_object (Conn       *c,
             JsonObject *o)
{
  JsonNode *node = json_node_init_object (json_node_alloc (), o);
  send_node (c, node);
  json_node_unref (node);
}

static void
reply (Conn     *c,
       const char *id,
       JsonNode *result)
{
  JsonObject *o = envelope (id, "response");
  json_object_set_member (o, "result", result);
  send_object (c, o);
  json_object_unref (o);
}

static void
reply_error (Conn       *c,
             const char *id,
             int         code,
             const char *message)
{
  JsonObject *o = envelope (id, "response");
  JsonObject *e = json_object_new ();
  json_object_set_int_member (e, "code", code);
  json_object_set_string_member (e, "message", message);
  json_object_set_object_member (o, "error", e);
  send_object (c, o);
  json_object_unref (o);
}

static JsonNode *
parse (const char *text)
{
  return json_from_string (text, NULL);
}

static void
emit_event (const char *channel,
            JsonNode   *payload,
            guint       skip)
{
  gint64 seq = GPOINTER_TO_SIZE (g_hash_table_lookup (mod.seqs, channel)) + skip;
  g_autofree char *id = g_uuid_string_random ();

  g_hash_table_insert (mod.seqs, g_strdup (channel), GSIZE_TO_POINTER ((gsize) seq + 1));
  for (GList *l = mod.conns; l != NULL; l = l->next)
    {
      Conn *c = l->data;
      JsonObject *o;

      if (!c->authenticated || !g_hash_table_contains (c->subscribed, channel))
        continue;
      o = envelope (id, "event");
      json_object_set_string_member (o, "channel", channel);
      json_object_set_int_member (o, "seq", seq);
      json_object_set_member (o, "payload", json_node_copy (payload));
      send_object (c, o);
      json_object_unref (o);
    }
}

static JsonNode *
attention_node (void)
{
  if (mod.attention == NULL)
    return json_node_new (JSON_NODE_NULL);
  return json_node_init_object (json_node_alloc (), mod.attention);
}

typedef struct {
  Conn     *c;
  char     *id;
  JsonNode *value;
} Delayed;

static gboolean
on_delayed (gpointer data)
{
  Delayed *d = data;

  if (g_list_find (mod.conns, d->c) != NULL)
    {
      JsonObject *r = json_object_new ();
      json_object_set_member (r, "value", d->value);
      reply (d->c, d->id, json_node_init_object (json_node_alloc (), r));
      json_object_unref (r);
    }
  else
    json_node_unref (d->value);
  g_free (d->id);
  g_free (d);
  return G_SOURCE_REMOVE;
}

static void
call_tool (Conn       *c,
           const char *id,
           const char *name,
           JsonObject *args)
{
  JsonObject *r = json_object_new ();

  if (g_strcmp0 (name, "world/get_time") == 0)
    json_object_set_int_member (r, "tick", mod.tick);
  else if (g_strcmp0 (name, "player/move") == 0)
    {
      JsonNode *x = json_object_get_member (args, "x"), *y = json_object_get_member (args, "y");
      JsonObject *pos;

      if (x == NULL || y == NULL || json_node_get_value_type (x) != G_TYPE_INT64 ||
          json_node_get_value_type (y) != G_TYPE_INT64)
        {
          reply_error (c, id, -32602, "x and y must be integers");
          json_object_unref (r);
          return;
        }
      mod.x = json_node_get_int (x);
      mod.y = json_node_get_int (y);
      pos = json_object_new ();
      json_object_set_int_member (pos, "x", mod.x);
      json_object_set_int_member (pos, "y", mod.y);
      json_object_set_object_member (r, "position", pos);
    }
  else if (g_strcmp0 (name, "game/echo") == 0)
    json_object_set_object_member (r, "echo", json_object_ref (args));
  else if (g_strcmp0 (name, "game/slow") == 0)
    {
      Delayed *d = g_new0 (Delayed, 1);
      JsonNode *value = json_object_get_member (args, "value");

      d->c = c;
      d->id = g_strdup (id);
      d->value = value != NULL ? json_node_copy (value) : json_node_new (JSON_NODE_NULL);
      g_timeout_add ((guint) json_object_get_int_member_with_default (args, "ms", 0), on_delayed, d);
      json_object_unref (r);
      return;
    }
  else if (g_strcmp0 (name, "game/hold") == 0)
    {
      Delayed *d = g_new0 (Delayed, 1);
      JsonNode *value = json_object_get_member (args, "value");

      d->c = c;
      d->id = g_strdup (id);
      d->value = value != NULL ? json_node_copy (value) : json_node_new (JSON_NODE_NULL);
      mod.held = g_list_prepend (mod.held, d);
      json_object_unref (r);
      return;
    }
  else if (g_strcmp0 (name, "game/release") == 0)
    {
      GList *held = mod.held;
      guint n = g_list_length (held);

      /* Newest first: the reverse of the order they were asked in. */
      mod.held = NULL;
      for (GList *l = held; l != NULL; l = l->next)
        on_delayed (l->data);
      g_list_free (held);
      json_object_set_int_member (r, "released", n);
    }
  else if (g_strcmp0 (name, "game/fail") == 0)
    {
      reply_error (c, id, -31003, "the tool failed on purpose");
      json_object_unref (r);
      return;
    }
  else if (g_strcmp0 (name, "world/emit_ticks") == 0)
    {
      gint64 count = json_object_get_int_member_with_default (args, "count", 1);
      gint64 skip = json_object_get_int_member_with_default (args, "skip", 0);

      for (gint64 i = 0; i < count; i++)
        {
          JsonObject *p = json_object_new ();
          JsonNode *pn;

          json_object_set_int_member (p, "tick", ++mod.tick);
          pn = json_node_init_object (json_node_alloc (), p);
          emit_event ("world/tick", pn, i == 0 ? (guint) skip : 0);
          json_node_unref (pn);
          json_object_unref (p);
        }
      json_object_set_int_member (r, "emitted", count);
    }
  else if (g_strcmp0 (name, "attention/raise") == 0)
    {
      g_autofree char *aid = g_strdup_printf ("attn_%u", ++mod.attention_n);
      JsonNode *pn;

      g_clear_pointer (&mod.attention, json_object_unref);
      mod.attention = json_object_new ();
      json_object_set_string_member (mod.attention, "attentionId", aid);
      json_object_set_string_member (mod.attention, "state", "open");
      json_object_set_string_member (mod.attention, "severity", "error");
      json_object_set_boolean_member (mod.attention, "blocking",
                                      json_object_get_boolean_member_with_default (args, "blocking", TRUE));
      json_object_set_boolean_member (mod.attention, "stateInvalidated", TRUE);
      json_object_set_string_member (mod.attention, "summary",
                                     json_object_get_string_member_with_default (args, "summary", "Something happened."));
      json_object_set_int_member (mod.attention, "openedAtSequence", mod.tick);
      json_object_set_int_member (mod.attention, "latestSequence", mod.tick);
      json_object_set_int_member (mod.attention, "totalUrgentEntries", 1);
      /* Answer first, then announce: the caller sees its result before the event. */
      json_object_set_string_member (r, "attentionId", aid);
      reply (c, id, json_node_init_object (json_node_alloc (), r));
      json_object_unref (r);
      pn = attention_node ();
      emit_event ("attention/opened", pn, 0);
      json_node_unref (pn);
      return;
    }
  else if (g_strcmp0 (name, "game/screenshot") == 0)
    {
      g_autoptr(GBytes) png = gabp_mod_screenshot_png (args, mod.x, mod.y);
      gsize length;
      const guint8 *data = g_bytes_get_data (png, &length);

      gabp_mod_set_image (r, "image/png", data, length);
      json_object_set_int_member (r, "frame", mod.tick);
    }
  else if (g_strcmp0 (name, "game/bad_image") == 0)
    gabp_mod_bad_image (r, json_object_get_string_member_with_default (args, "kind", ""), mod.x, mod.y);
  else if (g_strcmp0 (name, "game/crash") == 0)
    _exit (3);
  else
    {
      reply_error (c, id, -31002, "tool not found");
      json_object_unref (r);
      return;
    }
  reply (c, id, json_node_init_object (json_node_alloc (), r));
  json_object_unref (r);
}

static gboolean
token_ok (const char *given)
{
  size_t a = strlen (given), b = strlen (mod.token);
  unsigned diff = (unsigned) (a ^ b);

  for (size_t i = 0; i < a && i < b; i++)
    diff |= (unsigned char) given[i] ^ (unsigned char) mod.token[i];
  return diff == 0;
}

static void
handle (Conn     *c,
        JsonNode *node)
{
  JsonObject *o, *params;
  const char *id, *method;
  JsonObject *r;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return;
  o = json_node_get_object (node);
  id = json_object_get_string_member_with_default (o, "id", NULL);
  if (id == NULL || g_strcmp0 (json_object_get_string_member_with_default (o, "v", ""), "gabp/1") != 0)
    {
      if (id != NULL)
        reply_error (c, id, -32600, "invalid request");
      return;
    }
  if (g_strcmp0 (json_object_get_string_member_with_default (o, "type", ""), "request") != 0)
    return;
  method = json_object_get_string_member_with_default (o, "method", "");
  params = json_object_has_member (o, "params") && JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "params"))
             ? json_object_get_object_member (o, "params") : NULL;
  if (params == NULL)
    params = json_object_new ();
  else
    json_object_ref (params);

  if (g_str_equal (method, "session/hello"))
    {
      if (!token_ok (json_object_get_string_member_with_default (params, "token", "")))
        reply_error (c, id, -31000, "authentication failed");
      else
        {
          c->authenticated = TRUE;
          reply (c, id, parse ("{\"agentId\":\"gabp-mod\",\"app\":{\"name\":\"Reference Game\",\"version\":\"1.0.0\"},"
                               "\"capabilities\":{\"methods\":[\"session/hello\",\"tools/list\",\"tools/call\","
                               "\"events/subscribe\",\"events/unsubscribe\",\"resources/list\",\"resources/read\","
                               "\"state/get\",\"state/set\",\"attention/current\",\"attention/ack\"],"
                               "\"events\":[\"world/tick\",\"attention/opened\",\"attention/updated\",\"attention/cleared\"],"
                               "\"resources\":[\"gabp://game/world\"]},\"schemaVersion\":\"1.0\"}"));
        }
    }
  else if (!c->authenticated)
    reply_error (c, id, -31001, "session not established");
  else if (g_str_equal (method, "tools/list"))
    {
      r = json_object_new ();
      json_object_set_member (r, "tools", parse (tools_json));
      reply (c, id, json_node_init_object (json_node_alloc (), r));
      json_object_unref (r);
    }
  else if (g_str_equal (method, "tools/call"))
    {
      JsonNode *args = json_object_get_member (params, "arguments");
      if (args == NULL)
        args = json_object_get_member (params, "parameters");
      JsonObject *a = args != NULL && JSON_NODE_HOLDS_OBJECT (args) ? json_object_ref (json_node_get_object (args)) : json_object_new ();
      call_tool (c, id, json_object_get_string_member_with_default (params, "name", ""), a);
      json_object_unref (a);
    }
  else if (g_str_equal (method, "events/subscribe") || g_str_equal (method, "events/unsubscribe"))
    {
      gboolean sub = g_str_equal (method, "events/subscribe");
      JsonArray *in = json_object_has_member (params, "channels") ? json_object_get_array_member (params, "channels") : NULL;
      JsonArray *done = json_array_new ();

      for (guint i = 0; in != NULL && i < json_array_get_length (in); i++)
        {
          const char *ch = json_array_get_string_element (in, i);
          if (sub)
            g_hash_table_add (c->subscribed, g_strdup (ch));
          else
            g_hash_table_remove (c->subscribed, ch);
          json_array_add_string_element (done, ch);
        }
      r = json_object_new ();
      json_object_set_array_member (r, sub ? "subscribed" : "unsubscribed", done);
      reply (c, id, json_node_init_object (json_node_alloc (), r));
      json_object_unref (r);
    }
  else if (g_str_equal (method, "attention/current"))
    {
      r = json_object_new ();
      json_object_set_member (r, "attention", attention_node ());
      reply (c, id, json_node_init_object (json_node_alloc (), r));
      json_object_unref (r);
    }
  else if (g_str_equal (method, "attention/ack"))
    {
      const char *aid = json_object_get_string_member_with_default (params, "attentionId", "");
      gboolean ok = mod.attention != NULL &&
                    g_str_equal (aid, json_object_get_string_member (mod.attention, "attentionId"));

      if (ok)
        {
          JsonNode *cleared;
          json_object_set_string_member (mod.attention, "state", "cleared");
          cleared = json_node_init_object (json_node_alloc (), mod.attention);
          g_clear_pointer (&mod.attention, json_object_unref);
          r = json_object_new ();
          json_object_set_boolean_member (r, "acknowledged", TRUE);
          json_object_set_string_member (r, "attentionId", aid);
          json_object_set_member (r, "currentAttention", attention_node ());
          reply (c, id, json_node_init_object (json_node_alloc (), r));
          json_object_unref (r);
          emit_event ("attention/cleared", cleared, 0);
          json_node_unref (cleared);
        }
      else
        {
          r = json_object_new ();
          json_object_set_boolean_member (r, "acknowledged", FALSE);
          json_object_set_string_member (r, "attentionId", aid);
          json_object_set_member (r, "currentAttention", attention_node ());
          reply (c, id, json_node_init_object (json_node_alloc (), r));
          json_object_unref (r);
        }
    }
  else if (g_str_equal (method, "resources/list"))
    reply (c, id, parse ("{\"resources\":[{\"uri\":\"gabp://game/world\",\"name\":\"World\",\"mimeType\":\"application/json\"}]}"));
  else if (g_str_equal (method, "resources/read"))
    {
      if (g_strcmp0 (json_object_get_string_member_with_default (params, "uri", ""), "gabp://game/world") != 0)
        reply_error (c, id, -31004, "resource not found");
      else
        {
          g_autofree char *text = g_strdup_printf ("{\"tick\":%" G_GINT64_FORMAT "}", mod.tick);
          r = json_object_new ();
          json_object_set_string_member (r, "content", text);
          json_object_set_string_member (r, "mimeType", "application/json");
          json_object_set_string_member (r, "encoding", "utf-8");
          reply (c, id, json_node_init_object (json_node_alloc (), r));
          json_object_unref (r);
        }
    }
  else if (g_str_equal (method, "state/get"))
    {
      g_autofree char *text = g_strdup_printf ("{\"state\":{\"tick\":%" G_GINT64_FORMAT ",\"position\":{\"x\":%" G_GINT64_FORMAT ",\"y\":%" G_GINT64_FORMAT "}},\"timestamp\":%" G_GINT64_FORMAT "}",
                                               mod.tick, mod.x, mod.y, g_get_real_time () / G_USEC_PER_SEC);
      reply (c, id, parse (text));
    }
  else if (g_str_equal (method, "state/set"))
    {
      JsonObject *updates = json_object_has_member (params, "updates") ? json_object_get_object_member (params, "updates") : NULL;
      if (updates == NULL)
        reply_error (c, id, -32602, "updates required");
      else
        {
          mod.x = json_object_get_int_member_with_default (updates, "x", mod.x);
          mod.y = json_object_get_int_member_with_default (updates, "y", mod.y);
          r = json_object_new ();
          json_object_set_object_member (r, "applied", json_object_ref (updates));
          reply (c, id, json_node_init_object (json_node_alloc (), r));
          json_object_unref (r);
        }
    }
  else
    reply_error (c, id, -32601, "method not found");
  json_object_unref (params);
}

/* Returns FALSE when the stream is beyond repair. */
static gboolean
process_input (Conn *c)
{
  for (;;)
    {
      guint8 *data = c->in->data;
      gsize len = c->in->len, pos = 0, header_end = 0;
      gint64 length = -1;

      /* Find the blank line that ends the headers (CRLF or LF). */
      for (gsize i = 0; i < len; i++)
        if (data[i] == '\n' && ((i >= 1 && data[i - 1] == '\n') ||
                                (i >= 2 && data[i - 1] == '\r' && data[i - 2] == '\n')))
          {
            header_end = i + 1;
            break;
          }
      if (header_end == 0)
        return len <= 8192;
      while (pos < header_end)
        {
          gsize eol = pos;
          g_autofree char *line = NULL;

          while (eol < header_end && data[eol] != '\n')
            eol++;
          line = g_strndup ((char *) data + pos, eol - pos);
          g_strchomp (line);
          if (g_ascii_strncasecmp (line, "Content-Length:", 15) == 0)
            {
              char *end;
              length = g_ascii_strtoll (g_strstrip (line + 15), &end, 10);
              if (*end != '\0')
                return FALSE;
            }
          pos = eol + 1;
        }
      if (length < 0 || length > MAX_BODY)
        return FALSE;
      if (len - header_end < (gsize) length)
        return TRUE;
      {
        JsonParser *parser = json_parser_new ();
        if (json_parser_load_from_data (parser, (char *) data + header_end, length, NULL))
          handle (c, json_parser_get_root (parser));
        g_object_unref (parser);
      }
      if (c->closed)
        return TRUE;
      g_byte_array_remove_range (c->in, 0, header_end + length);
    }
}

static void read_more (Conn *c);

static void
conn_free (Conn *c)
{
  g_object_unref (c->connection);
  g_byte_array_unref (c->in);
  g_hash_table_unref (c->subscribed);
  g_free (c);
}

static void
conn_close (Conn *c)
{
  if (c->closed)
    return;
  c->closed = TRUE;
  mod.conns = g_list_remove (mod.conns, c);
  g_io_stream_close (G_IO_STREAM (c->connection), NULL, NULL);
}

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      data)
{
  Conn *c = data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);

  if (n <= 0 || c->closed)
    {
      conn_close (c);
      conn_free (c);
      return;
    }
  g_byte_array_append (c->in, c->buf, (guint) n);
  if (!process_input (c))
    {
      conn_close (c);
      conn_free (c);
      return;
    }
  if (c->closed)
    {
      conn_free (c);
      return;
    }
  read_more (c);
}

static void
read_more (Conn *c)
{
  g_input_stream_read_async (g_io_stream_get_input_stream (G_IO_STREAM (c->connection)),
                             c->buf, sizeof c->buf, G_PRIORITY_DEFAULT, NULL, on_read, c);
}

static gboolean
on_incoming (GSocketService    *service,
             GSocketConnection *connection,
             GObject           *source,
             gpointer           data)
{
  Conn *c;

  if (g_list_length (mod.conns) >= mod.max_connections)
    {
      g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
      return TRUE;
    }
  c = g_new0 (Conn, 1);
  c->connection = g_object_ref (connection);
  c->out = g_io_stream_get_output_stream (G_IO_STREAM (connection)); /* borrowed: c->connection's */
  c->in = g_byte_array_new ();
  c->subscribed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  mod.conns = g_list_prepend (mod.conns, c);
  read_more (c);
  return TRUE;
}

static gboolean
on_signal (gpointer data)
{
  g_main_loop_quit (mod.loop);
  return G_SOURCE_REMOVE;
}

int
main (int argc, char **argv)
{
  g_autoptr(GSocketService) service = g_socket_service_new ();
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) addr = NULL;
  g_autoptr(GSocketAddress) effective = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GOptionContext) context = g_option_context_new ("- reference GABP mod");
  const char *env_port = g_getenv ("GABP_SERVER_PORT");
  const char *env_token = g_getenv ("GABP_TOKEN");
  int port = -1;
  char *token = NULL;
  int max_connections = 10;
  GOptionEntry entries[] = {
    { "port", 0, 0, G_OPTION_ARG_INT, &port, "Port (0: any free one); default $GABP_SERVER_PORT or 5174", "PORT" },
    { "token", 0, 0, G_OPTION_ARG_STRING, &token, "Token; default $GABP_TOKEN or a random one", "TOKEN" },
    { "max-connections", 0, 0, G_OPTION_ARG_INT, &max_connections, "Concurrent connections", "N" },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 2;
    }
  if (port < 0)
    port = env_port != NULL ? atoi (env_port) : 5174;
  if (token != NULL)
    mod.token = token;
  else if (env_token != NULL)
    mod.token = g_strdup (env_token);
  else
    {
      GString *t = g_string_new (NULL);
      guint8 bytes[32];
      GFile *urandom = g_file_new_for_path ("/dev/urandom");
      GFileInputStream *in = g_file_read (urandom, NULL, NULL);
      gsize got = 0;

      if (in == NULL || !g_input_stream_read_all (G_INPUT_STREAM (in), bytes, sizeof bytes, &got, NULL, NULL) || got != sizeof bytes)
        return 1;
      for (gsize i = 0; i < sizeof bytes; i++)
        g_string_append_printf (t, "%02x", bytes[i]);
      g_object_unref (in);
      g_object_unref (urandom);
      mod.token = g_string_free (t, FALSE);
      printf ("GABP_TOKEN=%s\n", mod.token);
    }
  mod.max_connections = (guint) MAX (max_connections, 1);
  mod.seqs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  addr = g_inet_socket_address_new (lo, (guint16) port);
  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (service), addr, G_SOCKET_TYPE_STREAM,
                                      G_SOCKET_PROTOCOL_TCP, NULL, &effective, &error))
    {
      fprintf (stderr, "cannot listen: %s\n", error->message);
      return 1;
    }
  g_signal_connect (service, "incoming", G_CALLBACK (on_incoming), NULL);
  printf ("GABP_SERVER_PORT=%u\n", g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective)));
  fflush (stdout);

  mod.loop = g_main_loop_new (NULL, FALSE);
  g_unix_signal_add (SIGTERM, on_signal, NULL);
  g_unix_signal_add (SIGINT, on_signal, NULL);
  g_main_loop_run (mod.loop);

  g_socket_service_stop (service);
  g_socket_listener_close (G_SOCKET_LISTENER (service));
  while (mod.conns != NULL)
    conn_close (mod.conns->data);
  g_main_loop_unref (mod.loop);
  g_hash_table_unref (mod.seqs);
  g_clear_pointer (&mod.attention, json_object_unref);
  g_free (mod.token);
  return 0;
}
