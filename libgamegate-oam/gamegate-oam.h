/* gamegate-oam.h: the oam bridge protocol's C ABI (oam-bridge-protocol-1.0,
 * the transport table), served in-process by gamegate's oam front end.
 *
 * The declarations are open-apple-models' (bindings/c/open_apple_models.h),
 * so an engine written for libOpenAppleModelsFFI loads libgamegate-oam-1
 * (or its compatibility name libOpenAppleModelsFFI.so) unchanged and gets
 * the same protocol with every gamegate model, target and plugin behind it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef GAMEGATE_OAM_H
#define GAMEGATE_OAM_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * oam_bridge:
 *
 * One client of the bridge: its sessions, NPCs, worlds and decisions, as a
 * connection to `gamegate oam` has them, with its own thread and main loop.
 * Two bridges in one process share nothing.
 */
typedef struct oam_bridge oam_bridge;

/**
 * oam_message_callback:
 * @json_line: one message from the bridge: a line of UTF-8 JSON without
 *   its newline, valid only during the call
 * @user_data: what oam_bridge_create() was given
 *
 * Receives every message of the bridge: responses, notifications
 * (`session/event`, `npc/event`, `world/changed`, `tool/cancel`) and
 * `tool/call` requests. It runs on a thread the bridge owns, never
 * concurrently with itself, in the protocol's order (a request's events
 * and tool calls before its response). It may call oam_bridge_send() (to
 * answer a `tool/call` at once) and oam_bridge_destroy() (the last call it
 * gets); it should return quickly, since the bridge waits for it.
 */
typedef void (*oam_message_callback) (const char *json_line, void *user_data);

/** OAM_OK: the message was queued. */
#define OAM_OK 0
/** OAM_ERROR_INVALID_ARGUMENT: a NULL bridge or json_line. */
#define OAM_ERROR_INVALID_ARGUMENT (-1)
/** OAM_ERROR_INVALID_UTF8: json_line is not valid UTF-8. */
#define OAM_ERROR_INVALID_UTF8 (-2)

/**
 * oam_bridge_create:
 * @callback: receives every message of the bridge
 * @user_data: passed to @callback
 *
 * Starts a bridge: its thread reads the user's configuration
 * ($GAMEGATE_CONFIG, else $XDG_CONFIG_HOME/gamegate/gamegate.conf) and
 * loads the plugins ($GAMEGATE_PLUGIN_PATH, then the installed plugin
 * directory) as `gamegate oam` does. It returns at once: messages sent
 * meanwhile wait for it. If gamegate cannot serve (no oam plugin, a bad
 * configuration), every request is answered -32603 saying why.
 *
 * Returns: the bridge; NULL if @callback is NULL (or no thread can start)
 */
oam_bridge *oam_bridge_create (oam_message_callback callback, void *user_data);

/**
 * oam_bridge_send:
 * @bridge: a bridge
 * @json_line: one message: a request, a notification or the answer to a
 *   `tool/call`; borrowed for the call only. Newlines in it count as
 *   spaces; an empty (blank) line is ignored, as over stdio.
 *
 * Checks and queues the message and returns; it never waits for model
 * work. Requests are handled in the order sent, long ones concurrently.
 * Malformed JSON is answered through the callback (-32700), never here.
 * Any thread may call it, the callback included.
 *
 * Returns: %OAM_OK, %OAM_ERROR_INVALID_ARGUMENT or %OAM_ERROR_INVALID_UTF8
 */
int oam_bridge_send (oam_bridge *bridge, const char *json_line);

/**
 * oam_bridge_destroy:
 * @bridge: (nullable): a bridge; NULL is ignored
 *
 * Cancels every running turn and pending tool call, waits for a callback
 * in progress, and frees the bridge: once it returns the callback is never
 * called again. Blocking calls in progress return -32023. Called from
 * inside the callback, it is that callback's last call, and the bridge
 * finishes on its own thread once the callback has returned.
 */
void oam_bridge_destroy (oam_bridge *bridge);

/**
 * oam_version:
 *
 * Returns: gamegate's version (what `initialize` reports as
 *   `server.version`); static, do not free
 */
const char *oam_version (void);

/**
 * oam_call_blocking:
 * @bridge: a bridge
 * @request_json: a request; `jsonrpc` and `id` may be left out (an id
 *   `c-<n>` is added)
 * @timeout_ms: how long to wait; 0 or less waits for as long as it takes
 *
 * Sends the request and waits for its response, which is returned rather
 * than given to the callback; its notifications and tool calls still go to
 * the callback, with the request's id as `requestId`. When @timeout_ms
 * passes first, the request is cancelled (`request/cancel`) and an error
 * response with code -32024 `timeout` is returned; a response arriving
 * later is dropped. Not from inside the callback (it would wait for
 * itself): that is answered -32600 at once.
 *
 * Returns: (transfer full): the response, one line of JSON, for
 *   oam_string_free(); NULL only for a NULL argument
 */
char *oam_call_blocking (oam_bridge *bridge, const char *request_json, int timeout_ms);

/**
 * oam_string_free:
 * @string: (nullable): what oam_call_blocking() returned; NULL is ignored
 */
void oam_string_free (char *string);

#ifdef __cplusplus
}
#endif

#endif /* GAMEGATE_OAM_H */
