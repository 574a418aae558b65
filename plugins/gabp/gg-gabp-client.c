/* gg-gabp-client.c: one bridge connection to one mod.
 *
 * Lifecycle: CONNECTING (TCP connect, retried with exponential backoff and
 * +-25 % jitter) -> HANDSHAKING (session/hello sent) -> READY (welcome
 * received) -> back to CONNECTING when the connection drops, failing every
 * call in flight. Calls made while not READY fail at once: the caller (the
 * target) decides whether to wait.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>

#include "gg-gabp-client.h"

#define DEFAULT_BACKOFF_INITIAL_MS 100
#define DEFAULT_BACKOFF_MAX_MS     5000
#define DEFAULT_TIMEOUT_MS         30000
/* For the TCP connect only: GSocketClient's timeout is an I/O timeout that
 * stays on the socket it creates, so on_connected() takes it off again. */
#define CONNECT_TIMEOUT_S          5

typedef struct {
  GgGabpClient *self;     /* borrowed: the client outlives its pending calls */
  GTask        *task;
  char         *id;
  GSource      *timeout;
  gulong        cancel_id;
} PendingCall;

struct _GgGabpClient
{
  GObject parent_instance;

  GgGabpSchemas    *schemas;
  char             *host;
  guint16           port;
  char             *token;
  guint             backoff_initial_ms;
  guint             backoff_max_ms;
  guint             timeout_ms;
  gsize             max_message_size;

  GgGabpClientState state;
  GCancellable     *connect_cancellable;
  GSource          *retry;
  guint             attempt;
  GSocketConnection *connection;
  GgGabpCodec      *codec;
  char             *hello_id;
  GSource          *hello_timeout;
  JsonObject       *welcome;
  GHashTable       *pending;  /* id -> PendingCall */
  guint             sessions; /* welcomes received so far */
};

enum { SIGNAL_READY, SIGNAL_DISCONNECTED, SIGNAL_EVENT, SIGNAL_HANDSHAKE_FAILED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (GgGabpClient, gg_gabp_client, G_TYPE_OBJECT)

static void schedule_connect (GgGabpClient *self);

/* Timers go to the thread-default context of the thread the client runs
 * on, never to the global default one: embedded in another program (the
 * oam C ABI), that is the host's loop. */
static GSource *
schedule (guint       interval_ms,
          GSourceFunc func,
          gpointer    data)
{
  GSource *source = g_timeout_source_new (interval_ms);

  g_source_set_callback (source, func, data, NULL);
  g_source_attach (source, g_main_context_get_thread_default ());
  return source;
}

static GSource *
attach_idle (GMainContext *context,
             GSourceFunc   func,
             gpointer      data)
{
  GSource *source = g_idle_source_new ();

  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, func, data, NULL);
  g_source_attach (source, context);
  return source;
}

static void
unschedule (GSource **source)
{
  if (*source == NULL)
    return;
  g_source_destroy (*source);
  g_clear_pointer (source, g_source_unref);
}
static void drop_connection (GgGabpClient *self, const GError *why, gboolean retry);

static void
pending_call_free (PendingCall *call)
{
  unschedule (&call->timeout);
  if (call->cancel_id != 0)
    g_cancellable_disconnect (g_task_get_cancellable (call->task), call->cancel_id);
  g_clear_object (&call->task);
  g_free (call->id);
  g_free (call);
}

/* Takes the call out of the table and fails it with @error. */
static void
pending_call_fail (PendingCall *call,
                   GError      *error)
{
  GTask *task = g_object_ref (call->task);

  g_hash_table_steal (call->self->pending, call->id);
  if (call->self->codec != NULL)
    gg_gabp_codec_forget_request (call->self->codec, call->id);
  pending_call_free (call);
  g_task_return_error (task, error);
  g_object_unref (task);
}

static void
fail_all_pending (GgGabpClient *self,
                  const char   *why)
{
  GHashTableIter iter;
  gpointer value;
  g_autoptr(GPtrArray) calls = g_ptr_array_new ();

  g_hash_table_iter_init (&iter, self->pending);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (calls, value);
  for (guint i = 0; i < calls->len; i++)
    pending_call_fail (g_ptr_array_index (calls, i),
                       g_error_new (G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED, "%s", why));
}

static void
gg_gabp_client_dispose (GObject *object)
{
  GgGabpClient *self = GG_GABP_CLIENT (object);

  gg_gabp_client_stop (self);
  G_OBJECT_CLASS (gg_gabp_client_parent_class)->dispose (object);
}

static void
gg_gabp_client_finalize (GObject *object)
{
  GgGabpClient *self = GG_GABP_CLIENT (object);

  g_hash_table_unref (self->pending);
  g_clear_object (&self->schemas);
  g_free (self->host);
  if (self->token != NULL)
    memset (self->token, 0, strlen (self->token));
  g_free (self->token);
  G_OBJECT_CLASS (gg_gabp_client_parent_class)->finalize (object);
}

static void
gg_gabp_client_class_init (GgGabpClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = gg_gabp_client_dispose;
  object_class->finalize = gg_gabp_client_finalize;

  signals[SIGNAL_READY] =
    g_signal_new ("ready", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, JSON_TYPE_OBJECT | G_SIGNAL_TYPE_STATIC_SCOPE);
  signals[SIGNAL_DISCONNECTED] =
    g_signal_new ("disconnected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_ERROR | G_SIGNAL_TYPE_STATIC_SCOPE);
  signals[SIGNAL_EVENT] =
    g_signal_new ("event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_UINT64,
                  JSON_TYPE_NODE | G_SIGNAL_TYPE_STATIC_SCOPE);
  signals[SIGNAL_HANDSHAKE_FAILED] =
    g_signal_new ("handshake-failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_ERROR | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
gg_gabp_client_init (GgGabpClient *self)
{
  self->backoff_initial_ms = DEFAULT_BACKOFF_INITIAL_MS;
  self->backoff_max_ms = DEFAULT_BACKOFF_MAX_MS;
  self->timeout_ms = DEFAULT_TIMEOUT_MS;
  self->max_message_size = GG_GABP_DEFAULT_MAX_MESSAGE_SIZE;
  self->pending = g_hash_table_new (g_str_hash, g_str_equal);
}

/**
 * gg_gabp_client_new:
 * @schemas: the GABP schemas
 * @host: the mod's address (a loopback address)
 * @port: its TCP port
 * @token: the token to send in session/hello
 *
 * Returns: (transfer full): a stopped client; gg_gabp_client_start() connects
 */
GgGabpClient *
gg_gabp_client_new (GgGabpSchemas *schemas,
                    const char    *host,
                    guint16        port,
                    const char    *token)
{
  GgGabpClient *self = g_object_new (GG_TYPE_GABP_CLIENT, NULL);

  self->schemas = g_object_ref (schemas);
  gg_gabp_client_set_endpoint (self, host, port, token);
  return self;
}

/** gg_gabp_client_set_endpoint: where to connect next time, and with which token. */
void
gg_gabp_client_set_endpoint (GgGabpClient *self,
                             const char   *host,
                             guint16       port,
                             const char   *token)
{
  g_free (self->host);
  self->host = g_strdup (host);
  self->port = port;
  if (self->token != NULL)
    memset (self->token, 0, strlen (self->token));
  g_free (self->token);
  self->token = g_strdup (token);
}

/** gg_gabp_client_set_backoff: first and largest delay between connection attempts. */
void
gg_gabp_client_set_backoff (GgGabpClient *self,
                            guint         initial_ms,
                            guint         max_ms)
{
  self->backoff_initial_ms = MAX (initial_ms, 1);
  self->backoff_max_ms = MAX (max_ms, self->backoff_initial_ms);
}

/** gg_gabp_client_set_timeout: how long a call may wait for its answer. */
void
gg_gabp_client_set_timeout (GgGabpClient *self,
                            guint         timeout_ms)
{
  self->timeout_ms = timeout_ms;
}

/** gg_gabp_client_set_max_message_size: the largest message accepted. */
void
gg_gabp_client_set_max_message_size (GgGabpClient *self,
                                     gsize         max_size)
{
  self->max_message_size = max_size;
}

/** gg_gabp_client_get_state: Returns: where the connection is. */
GgGabpClientState
gg_gabp_client_get_state (GgGabpClient *self)
{
  return self->state;
}

/** gg_gabp_client_get_welcome: Returns: (transfer none) (nullable): the last session/welcome result. */
JsonObject *
gg_gabp_client_get_welcome (GgGabpClient *self)
{
  return self->welcome;
}

/** gg_gabp_client_get_session_count: Returns: how many sessions were established. */
guint
gg_gabp_client_get_session_count (GgGabpClient *self)
{
  return self->sessions;
}

/**
 * gg_gabp_client_supports:
 * @self: a ready client
 * @method: a method name
 *
 * Capability negotiation: whether the mod's welcome listed @method. A mod
 * that lists no methods at all is taken to support the core set.
 *
 * Returns: %TRUE when @method may be called
 */
gboolean
gg_gabp_client_supports (GgGabpClient *self,
                         const char   *method)
{
  JsonObject *caps;
  JsonArray *methods;

  if (self->welcome == NULL)
    return FALSE;
  caps = json_object_get_object_member (self->welcome, "capabilities");
  if (caps == NULL || !json_object_has_member (caps, "methods"))
    return g_str_has_prefix (method, "tools/") || g_str_has_prefix (method, "events/");
  methods = json_object_get_array_member (caps, "methods");
  for (guint i = 0; methods != NULL && i < json_array_get_length (methods); i++)
    if (g_strcmp0 (json_array_get_string_element (methods, i), method) == 0)
      return TRUE;
  return FALSE;
}

static void
on_codec_response (GgGabpCodec  *codec,
                   const char   *id,
                   JsonNode     *result,
                   JsonObject   *error,
                   GgGabpClient *self);

static void
handshake_failed (GgGabpClient *self,
                  GError       *error)
{
  g_message ("GABP mod at %s:%u refused the session: %s", self->host, self->port, error->message);
  g_signal_emit (self, signals[SIGNAL_HANDSHAKE_FAILED], 0, error);
  drop_connection (self, error, TRUE);
}

static void
on_welcome (GgGabpClient *self,
            JsonNode     *result,
            JsonObject   *error)
{
  unschedule (&self->hello_timeout);
  g_clear_pointer (&self->hello_id, g_free);
  if (error != NULL)
    {
      g_autoptr(GError) why = g_error_new (GG_GABP_ERROR,
                                           (int) json_object_get_int_member_with_default (error, "code", GG_GABP_ERROR_INTERNAL),
                                           "%s", json_object_get_string_member_with_default (error, "message", "hello refused"));
      handshake_failed (self, why);
      return;
    }
  g_clear_pointer (&self->welcome, json_object_unref);
  self->welcome = json_object_ref (json_node_get_object (result));
  self->state = GG_GABP_CLIENT_READY;
  self->attempt = 0;
  self->sessions++;
  g_debug ("GABP session with %s:%u established", self->host, self->port);
  g_signal_emit (self, signals[SIGNAL_READY], 0, self->welcome);
}

static void
on_codec_response (GgGabpCodec  *codec,
                   const char   *id,
                   JsonNode     *result,
                   JsonObject   *error,
                   GgGabpClient *self)
{
  PendingCall *call;
  GTask *task;

  if (self->hello_id != NULL && g_str_equal (id, self->hello_id))
    {
      on_welcome (self, result, error);
      return;
    }
  call = g_hash_table_lookup (self->pending, id);
  if (call == NULL)
    {
      g_debug ("response to an unknown request %s ignored", id);
      return;
    }
  if (error != NULL)
    {
      pending_call_fail (call, g_error_new (GG_GABP_ERROR,
                                            (int) json_object_get_int_member_with_default (error, "code", GG_GABP_ERROR_INTERNAL),
                                            "%s", json_object_get_string_member_with_default (error, "message", "error")));
      return;
    }
  task = g_object_ref (call->task);
  g_hash_table_steal (self->pending, id);
  pending_call_free (call);
  g_task_return_pointer (task, json_node_copy (result), (GDestroyNotify) json_node_unref);
  g_object_unref (task);
}

static void
on_codec_request (GgGabpCodec  *codec,
                  const char   *id,
                  const char   *method,
                  JsonObject   *params,
                  GgGabpClient *self)
{
  /* A mod has nothing to ask a bridge in GABP 1.0. */
  gg_gabp_codec_send_error (codec, id, GG_GABP_ERROR_METHOD_NOT_FOUND, NULL, NULL, NULL);
}

static void
on_codec_event (GgGabpCodec  *codec,
                const char   *channel,
                guint64       seq,
                JsonNode     *payload,
                GgGabpClient *self)
{
  if (self->state == GG_GABP_CLIENT_READY)
    g_signal_emit (self, signals[SIGNAL_EVENT], 0, channel, seq, payload);
}

static void
on_codec_invalid (GgGabpCodec  *codec,
                  const char   *id,
                  const char   *type,
                  GError       *error,
                  GgGabpClient *self)
{
  PendingCall *call;

  g_message ("GABP mod at %s:%u sent an invalid message: %s", self->host, self->port, error->message);
  if (id == NULL)
    return;
  if (g_strcmp0 (type, "request") == 0)
    {
      gg_gabp_codec_send_error (codec, id, gg_gabp_error_get_wire_code (error), error->message, NULL, NULL);
      return;
    }
  if (self->hello_id != NULL && g_str_equal (id, self->hello_id))
    {
      g_autoptr(GError) why = g_error_new (G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                                           "invalid session/welcome: %s", error->message);
      g_clear_pointer (&self->hello_id, g_free);
      handshake_failed (self, why);
      return;
    }
  call = g_hash_table_lookup (self->pending, id);
  if (call != NULL)
    pending_call_fail (call, g_error_new (G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                                          "the mod answered with an invalid message: %s",
                                          error->message));
}

static void
on_codec_closed (GgGabpCodec  *codec,
                 GError       *error,
                 GgGabpClient *self)
{
  g_autoptr(GError) why = error != NULL ? g_error_copy (error)
    : g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED, "the mod closed the connection");

  drop_connection (self, why, TRUE);
}

/* Closes the connection, fails calls in flight and (with @retry) starts
 * connecting again. */
static void
drop_connection (GgGabpClient *self,
                 const GError *why,
                 gboolean      retry)
{
  gboolean was_ready = self->state == GG_GABP_CLIENT_READY;

  unschedule (&self->hello_timeout);
  g_clear_pointer (&self->hello_id, g_free);
  if (self->codec != NULL)
    {
      g_autoptr(GgGabpCodec) codec = g_steal_pointer (&self->codec);
      g_signal_handlers_disconnect_by_data (codec, self);
      gg_gabp_codec_close (codec);
    }
  g_clear_object (&self->connection);
  /* The state first: a failed call's callback may call again at once. */
  if (self->state != GG_GABP_CLIENT_STOPPED)
    self->state = GG_GABP_CLIENT_CONNECTING;
  fail_all_pending (self, "the connection to the mod was lost; the call may or may not have run");
  if (self->state == GG_GABP_CLIENT_STOPPED)
    return;
  if (was_ready)
    {
      g_message ("GABP mod at %s:%u disconnected: %s", self->host, self->port,
                 why != NULL ? why->message : "closed");
      g_signal_emit (self, signals[SIGNAL_DISCONNECTED], 0, why);
    }
  if (retry && self->state != GG_GABP_CLIENT_STOPPED)
    schedule_connect (self);
}

static gboolean
on_hello_timeout (gpointer user_data)
{
  GgGabpClient *self = user_data;
  g_autoptr(GError) why = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                                               "the mod did not answer session/hello");

  g_clear_pointer (&self->hello_timeout, g_source_unref);
  handshake_failed (self, why);
  return G_SOURCE_REMOVE;
}

static void
send_hello (GgGabpClient *self)
{
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(JsonObject) client_info = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *launch_id = g_uuid_string_random ();

  json_object_set_string_member (params, "token", self->token != NULL ? self->token : "");
  json_object_set_string_member (params, "bridgeVersion", PACKAGE_VERSION);
  json_object_set_string_member (params, "platform", "linux");
  json_object_set_string_member (params, "launchId", launch_id);
  json_object_set_string_member (client_info, "name", "gamegate");
  json_object_set_string_member (client_info, "version", PACKAGE_VERSION);
  json_object_set_object_member (params, "clientInfo", g_steal_pointer (&client_info));

  self->state = GG_GABP_CLIENT_HANDSHAKING;
  self->hello_id = gg_gabp_codec_send_request (self->codec, "session/hello", params, &error);
  if (self->hello_id == NULL)
    {
      /* A token shorter than the schema's 32 characters ends here. */
      handshake_failed (self, error);
      return;
    }
  self->hello_timeout = schedule (MAX (self->timeout_ms, 1000), on_hello_timeout, self);
}

static void
on_connected (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GgGabpClient) self = user_data;
  g_autoptr(GError) error = NULL;
  GSocketConnection *connection;

  connection = g_socket_client_connect_to_host_finish (G_SOCKET_CLIENT (source), result, &error);
  if (connection == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      g_clear_object (&self->connect_cancellable);
      g_debug ("connecting to %s:%u failed: %s", self->host, self->port, error->message);
      if (self->state != GG_GABP_CLIENT_STOPPED)
        schedule_connect (self);
      return;
    }
  g_clear_object (&self->connect_cancellable);
  if (self->state == GG_GABP_CLIENT_STOPPED)
    {
      g_object_unref (connection);
      return;
    }
  /* GABP has no heartbeat: a mod may stay silent for as long as nobody
   * asks it anything, or take long over one answer. The connect timeout
   * would otherwise fail the pending read after CONNECT_TIMEOUT_S of
   * silence ("Socket I/O timed out"), dropping the session and every call
   * in flight; how long a call may wait is timeout-ms, per call. */
  g_socket_set_timeout (g_socket_connection_get_socket (connection), 0);
  g_socket_set_option (g_socket_connection_get_socket (connection), IPPROTO_TCP, TCP_NODELAY, 1, NULL);
  self->connection = connection;
  self->codec = gg_gabp_codec_new (G_IO_STREAM (connection), self->schemas);
  gg_gabp_codec_set_max_message_size (self->codec, self->max_message_size);
  g_signal_connect (self->codec, "response", G_CALLBACK (on_codec_response), self);
  g_signal_connect (self->codec, "request", G_CALLBACK (on_codec_request), self);
  g_signal_connect (self->codec, "event", G_CALLBACK (on_codec_event), self);
  g_signal_connect (self->codec, "invalid", G_CALLBACK (on_codec_invalid), self);
  g_signal_connect (self->codec, "closed", G_CALLBACK (on_codec_closed), self);
  gg_gabp_codec_start (self->codec);
  send_hello (self);
}

static gboolean
connect_now (gpointer user_data)
{
  GgGabpClient *self = user_data;
  g_autoptr(GSocketClient) client = g_socket_client_new ();

  g_clear_pointer (&self->retry, g_source_unref);
  self->state = GG_GABP_CLIENT_CONNECTING;
  self->connect_cancellable = g_cancellable_new ();
  g_socket_client_set_timeout (client, CONNECT_TIMEOUT_S);
  g_socket_client_connect_to_host_async (client, self->host, self->port,
                                         self->connect_cancellable, on_connected,
                                         g_object_ref (self));
  return G_SOURCE_REMOVE;
}

/* Exponential backoff with jitter, so that many bridges restarting at once
 * do not knock in lockstep. The jitter needs no secure randomness. */
static void
schedule_connect (GgGabpClient *self)
{
  guint64 delay = self->backoff_initial_ms;

  if (self->retry != NULL || self->connect_cancellable != NULL)
    return;
  for (guint i = 0; i < self->attempt && delay < self->backoff_max_ms; i++)
    delay *= 2;
  delay = MIN (delay, self->backoff_max_ms);
  delay = (guint64) (delay * g_random_double_range (0.75, 1.25));
  self->attempt++;
  self->retry = schedule ((guint) delay, connect_now, self);
}

/** gg_gabp_client_start: starts connecting (at once). */
void
gg_gabp_client_start (GgGabpClient *self)
{
  if (self->state != GG_GABP_CLIENT_STOPPED)
    return;
  self->state = GG_GABP_CLIENT_CONNECTING;
  self->attempt = 0;
  connect_now (self);
}

/** gg_gabp_client_reconnect_now: forgets the backoff and tries again now (a relaunched mod). */
void
gg_gabp_client_reconnect_now (GgGabpClient *self)
{
  if (self->state != GG_GABP_CLIENT_CONNECTING || self->connect_cancellable != NULL)
    return;
  unschedule (&self->retry);
  self->attempt = 0;
  connect_now (self);
}

/** gg_gabp_client_stop: disconnects, fails calls in flight, stops retrying. */
void
gg_gabp_client_stop (GgGabpClient *self)
{
  unschedule (&self->retry);
  if (self->connect_cancellable != NULL)
    {
      g_cancellable_cancel (self->connect_cancellable);
      g_clear_object (&self->connect_cancellable);
    }
  self->state = GG_GABP_CLIENT_STOPPED;
  drop_connection (self, NULL, FALSE);
  g_clear_pointer (&self->welcome, json_object_unref);
}

static gboolean
on_call_timeout (gpointer user_data)
{
  PendingCall *call = user_data;

  g_clear_pointer (&call->timeout, g_source_unref);
  pending_call_fail (call, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                                                "the mod did not answer in time"));
  return G_SOURCE_REMOVE;
}

typedef struct {
  GTask *task;
  char  *id;
} CancelData;

static gboolean
cancel_in_idle (gpointer user_data)
{
  CancelData *data = user_data;
  GgGabpClient *self = g_task_get_source_object (data->task);
  PendingCall *call = g_hash_table_lookup (self->pending, data->id);

  /* Still pending? (It may have completed meanwhile.) */
  if (call != NULL && call->task == data->task)
    pending_call_fail (call, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                                  "the call was cancelled"));
  g_object_unref (data->task);
  g_free (data->id);
  g_free (data);
  return G_SOURCE_REMOVE;
}

static void
on_call_cancelled (GCancellable *cancellable,
                   PendingCall  *call)
{
  CancelData *data = g_new0 (CancelData, 1);

  /* Not from inside the cancel handler: g_cancellable_disconnect would deadlock. */
  data->task = g_object_ref (call->task);
  data->id = g_strdup (call->id);
  g_source_unref (attach_idle (g_task_get_context (data->task), cancel_in_idle, data));
}

/**
 * gg_gabp_client_call_async:
 * @self: a ready client
 * @method: the GABP method
 * @params: (nullable): its parameters
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the result
 * @user_data: for @callback
 *
 * Sends one request. Fails at once with %G_IO_ERROR_NOT_CONNECTED unless
 * the session is established.
 */
void
gg_gabp_client_call_async (GgGabpClient        *self,
                           const char          *method,
                           JsonObject          *params,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;
  PendingCall *call;
  char *id;

  g_task_set_source_tag (task, gg_gabp_client_call_async);
  if (self->state != GG_GABP_CLIENT_READY || self->codec == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                               "not connected to the mod");
      return;
    }
  if (g_task_return_error_if_cancelled (task))
    return;
  id = gg_gabp_codec_send_request (self->codec, method, params, &error);
  if (id == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  call = g_new0 (PendingCall, 1);
  call->self = self;
  call->task = g_object_ref (task);
  call->id = id;
  if (self->timeout_ms > 0)
    call->timeout = schedule (self->timeout_ms, on_call_timeout, call);
  if (cancellable != NULL)
    call->cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (on_call_cancelled), call, NULL);
  g_hash_table_insert (self->pending, call->id, call);
}

/**
 * gg_gabp_client_call_finish:
 * @self: a client
 * @result: the #GAsyncResult
 * @error: return location for a #GError: %GG_GABP_ERROR with the mod's code
 *   for an error response, %G_IO_ERROR otherwise
 *
 * Returns: (transfer full): the response's result
 */
JsonNode *
gg_gabp_client_call_finish (GgGabpClient  *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}
