/* fuzz-gabp-codec.c: the GABP codec and its envelope checks. The first
 * byte picks the request method a response is checked against (or none),
 * the rest is one message body: it goes through gg_gabp_codec_process(),
 * which must emit exactly one of request, response, event or invalid for
 * it, and through gg_gabp_schemas_validate() directly.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "fuzz-common.h"
#include "gg-gabp-codec.h"

typedef struct {
  guint emitted;
} Counts;

static void on_request (GgGabpCodec *c, const char *id, const char *method, JsonObject *params, Counts *n) { n->emitted++; }
static void on_response (GgGabpCodec *c, const char *id, JsonNode *result, JsonObject *error, Counts *n) { n->emitted++; }
static void on_event (GgGabpCodec *c, const char *channel, guint64 seq, JsonNode *payload, Counts *n) { n->emitted++; }

static void
on_invalid (GgGabpCodec *c,
            const char  *id,
            const char  *type,
            GError      *error,
            Counts      *n)
{
  int code = gg_gabp_error_get_wire_code (error);

  g_assert_true (code == GG_GABP_ERROR_PARSE || code == GG_GABP_ERROR_INVALID_REQUEST ||
                 code == GG_GABP_ERROR_INVALID_PARAMS);
  g_assert_nonnull (gg_gabp_error_code_message (code));
  n->emitted++;
}

static GgGabpSchemas *
schemas (void)
{
  static GgGabpSchemas *loaded;

  if (loaded == NULL)
    {
      g_autoptr(GError) error = NULL;
      const char *dir = g_getenv ("GAMEGATE_GABP_SCHEMA_DIR");

      loaded = gg_gabp_schemas_new_from_dir (dir != NULL && *dir ? dir : FUZZ_GABP_SCHEMA_DIR, &error);
      if (loaded == NULL)
        g_error ("no GABP schemas: %s", error->message);
    }
  return loaded;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  static const char *methods[] = { NULL, "session/hello", "tools/list", "tools/call",
                                   "events/subscribe", "events/unsubscribe", "resources/list",
                                   "resources/read", "state/get", "state/set",
                                   "attention/current", "attention/ack", "no/such" };
  FuzzInput in = { data, size };
  guint8 mode = fuzz_input_byte (&in);
  const char *method = methods[mode % G_N_ELEMENTS (methods)];
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  g_autoptr(GgGabpCodec) codec = NULL;
  g_autoptr(JsonNode) node = NULL;
  Counts n = { 0 };

  fuzz_init ();
  input = g_memory_input_stream_new ();
  output = g_memory_output_stream_new_resizable ();
  codec = gg_gabp_codec_new_for_streams (input, output, schemas ());
  if (mode & 0x80)
    gg_gabp_codec_set_max_message_size (codec, 128);
  g_signal_connect (codec, "request", G_CALLBACK (on_request), &n);
  g_signal_connect (codec, "response", G_CALLBACK (on_response), &n);
  g_signal_connect (codec, "event", G_CALLBACK (on_event), &n);
  g_signal_connect (codec, "invalid", G_CALLBACK (on_invalid), &n);
  (void) gg_gabp_codec_process (codec, (const char *) in.data, in.size);
  g_assert_cmpuint (n.emitted, <=, 1);
  g_signal_handlers_disconnect_by_data (codec, &n);
  gg_gabp_codec_close (codec);

  node = gg_json_parse ((const char *) in.data, (gssize) in.size, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (node != NULL)
    {
      g_autoptr(GError) error = NULL;
      gboolean envelope_ok = FALSE;

      if (!gg_gabp_schemas_validate (schemas (), node, method, &envelope_ok, &error))
        g_assert_nonnull (error);
    }
  fuzz_drain ();
  return 0;
}
