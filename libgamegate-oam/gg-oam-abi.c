/* gg-oam-abi.c: the C ABI of gamegate-oam.h: a bridge's life (its thread
 * and main context), sending, and handing the front end's output to the
 * callback one line at a time.
 *
 * Each bridge runs its own GMainContext on its own thread (pushed as that
 * thread's default, so every source the plugins add lands there): bridges
 * are independent, and nothing reaches the host's main loop, whatever it
 * is. A shared thread was rejected: one bridge's plugins (a model's HTTP
 * session, a game's socket) would be bound to the context of another, and
 * destroying one would have to untangle them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "gg-oam-abi-private.h"

/* The bridge whose thread this is (NULL on every other thread). Not
 * compiler TLS: hosts dlopen() the library, and LeakSanitizer's tracer
 * crashes on the dynamic TLS of such libraries. */
static GPrivate current_bridge;

/**
 * gg_oam_abi_on_bridge_thread:
 * @bridge: a bridge
 *
 * Returns: whether the caller runs on @bridge's own thread (its callback)
 */
gboolean
gg_oam_abi_on_bridge_thread (oam_bridge *bridge)
{
  return g_private_get (&current_bridge) == bridge;
}

/* Called with the lock held; TRUE when the caller must wake the thread. */
static gboolean
need_wake_locked (oam_bridge *bridge)
{
  if (bridge->wake_pending)
    return FALSE;
  bridge->wake_pending = TRUE;
  return TRUE;
}

static void
wake (oam_bridge *bridge)
{
  /* Thread-safe: it takes the context's lock and wakes its poll. */
  g_source_set_ready_time (bridge->wake, 0);
}

/**
 * gg_oam_abi_enqueue:
 * @bridge: a bridge
 * @line: (array length=length): one message, valid UTF-8
 * @length: its length
 *
 * Queues @line for the front end, newlines and carriage returns counting
 * as spaces (they can only be JSON whitespace there), and wakes the bridge.
 * Past %GG_OAM_ABI_MAX_QUEUED_BYTES the message is answered -32603 instead.
 */
void
gg_oam_abi_enqueue (oam_bridge *bridge,
                    const char *line,
                    gsize       length)
{
  gboolean must_wake = FALSE;
  gboolean full;

  pthread_mutex_lock (&bridge->lock);
  full = bridge->inbox->len - bridge->inbox_pos + length + 1 > GG_OAM_ABI_MAX_QUEUED_BYTES;
  if (!bridge->destroying && !full)
    {
      guint start = bridge->inbox->len;

      g_byte_array_append (bridge->inbox, (const guint8 *) line, (guint) length);
      for (guint i = start; i < bridge->inbox->len; i++)
        if (bridge->inbox->data[i] == '\n' || bridge->inbox->data[i] == '\r')
          bridge->inbox->data[i] = ' ';
      g_byte_array_append (bridge->inbox, (const guint8 *) "\n", 1);
      must_wake = need_wake_locked (bridge);
    }
  pthread_mutex_unlock (&bridge->lock);

  if (full)
    {
      /* Parsed outside the lock: its id is what the answer needs. */
      g_autoptr(JsonNode) root = gg_json_parse (line, (gssize) length, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
      JsonNode *id = NULL;
      g_autofree char *message = g_strdup_printf ("The bridge's input queue is full (the limit is %d bytes): "
                                                  "the message was dropped", GG_OAM_ABI_MAX_QUEUED_BYTES);
      char *response;

      if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
        {
          g_autofree char *key = NULL;

          id = json_object_get_member (json_node_get_object (root), "id");
          /* Echoed only when it is an id the protocol accepts. */
          key = gg_oam_abi_id_key (id);
          if (key == NULL)
            id = NULL;
        }
      response = gg_oam_abi_error_response (id, GG_JSONRPC_INTERNAL_ERROR, "internal_error", message);
      pthread_mutex_lock (&bridge->lock);
      if (bridge->destroying)
        g_free (response);
      else
        {
          g_ptr_array_add (bridge->rejected, response);
          must_wake = need_wake_locked (bridge);
        }
      pthread_mutex_unlock (&bridge->lock);
    }
  if (must_wake)
    wake (bridge);
}

static void
deliver_line (oam_bridge *bridge,
              const char *line,
              gsize       length)
{
  gboolean routed;

  pthread_mutex_lock (&bridge->lock);
  /* Destroyed: nothing more for anybody (blocking callers get -32023). */
  if (bridge->destroying)
    {
      pthread_mutex_unlock (&bridge->lock);
      return;
    }
  routed = g_hash_table_size (bridge->calls) > 0 || g_hash_table_size (bridge->abandoned) > 0;
  pthread_mutex_unlock (&bridge->lock);
  /* The answer to a blocking call goes to its caller, not the callback. */
  if (routed && gg_oam_abi_route_response (bridge, line, length))
    return;

  pthread_mutex_lock (&bridge->lock);
  if (bridge->destroying)
    {
      pthread_mutex_unlock (&bridge->lock);
      return;
    }
  bridge->callback_running = TRUE;
  pthread_mutex_unlock (&bridge->lock);

  bridge->callback (line, bridge->user_data);

  pthread_mutex_lock (&bridge->lock);
  bridge->callback_running = FALSE;
  pthread_cond_broadcast (&bridge->cond);
  pthread_mutex_unlock (&bridge->lock);
}

/**
 * gg_oam_abi_deliver:
 * @bridge: a bridge
 * @data: (array length=length): what the front end wrote
 * @length: its length
 *
 * Hands every whole line of @data to the callback (bridge thread), each
 * NUL-terminated without its newline; a partial line waits for its end.
 */
void
gg_oam_abi_deliver (oam_bridge   *bridge,
                    const guint8 *data,
                    gsize         length)
{
  const guint8 *end = data + length;

  while (data < end)
    {
      const guint8 *newline = memchr (data, '\n', (gsize) (end - data));

      if (newline == NULL)
        {
          g_byte_array_append (bridge->partial, data, (guint) (end - data));
          return;
        }
      g_byte_array_append (bridge->partial, data, (guint) (newline - data));
      if (bridge->partial->len > 0)
        {
          guint line_length = bridge->partial->len;

          g_byte_array_append (bridge->partial, (const guint8 *) "", 1);
          deliver_line (bridge, (const char *) bridge->partial->data, line_length);
        }
      g_byte_array_set_size (bridge->partial, 0);
      data = newline + 1;
    }
}

/* The wake source: ready while another thread has something for us. */
static gboolean
wake_dispatch (GSource     *source,
               GSourceFunc  callback,
               gpointer     user_data)
{
  g_source_set_ready_time (source, -1);
  return callback (user_data);
}

static GSourceFuncs wake_funcs = {
  .dispatch = wake_dispatch,
};

static gboolean
on_wake (gpointer user_data)
{
  oam_bridge *bridge = user_data;
  g_autoptr(GPtrArray) rejected = NULL;
  gboolean stop;

  pthread_mutex_lock (&bridge->lock);
  bridge->wake_pending = FALSE;
  stop = bridge->stop_requested && !bridge->stopping;
  if (bridge->rejected->len > 0)
    {
      rejected = g_steal_pointer (&bridge->rejected);
      bridge->rejected = g_ptr_array_new_with_free_func (g_free);
    }
  pthread_mutex_unlock (&bridge->lock);

  for (guint i = 0; rejected != NULL && i < rejected->len; i++)
    {
      const char *line = g_ptr_array_index (rejected, i);

      deliver_line (bridge, line, strlen (line));
    }
  if (bridge->input != NULL)
    gg_oam_abi_input_feed (bridge->input);
  if (stop)
    {
      bridge->stopping = TRUE;
      gg_oam_abi_host_stop (bridge->host);
    }
  return G_SOURCE_CONTINUE;
}

/**
 * gg_oam_abi_finish:
 * @bridge: a bridge whose host has stopped
 *
 * Ends the bridge thread's loop.
 */
void
gg_oam_abi_finish (oam_bridge *bridge)
{
  bridge->finished = TRUE;
  g_main_context_wakeup (bridge->context);
}

static void
bridge_free (oam_bridge *bridge)
{
  /* Blocking calls woken by the destroy leave first. */
  pthread_mutex_lock (&bridge->lock);
  while (bridge->active_calls > 0)
    pthread_cond_wait (&bridge->cond, &bridge->lock);
  pthread_mutex_unlock (&bridge->lock);

  g_source_destroy (bridge->wake);
  g_source_unref (bridge->wake);
  g_main_context_unref (bridge->context);
  g_byte_array_unref (bridge->inbox);
  g_byte_array_unref (bridge->partial);
  g_ptr_array_unref (bridge->rejected);
  g_hash_table_unref (bridge->calls);
  g_hash_table_unref (bridge->abandoned);
  pthread_cond_destroy (&bridge->cond);
  pthread_mutex_destroy (&bridge->lock);
  g_free (bridge);
}

static gpointer
bridge_thread (gpointer data)
{
  oam_bridge *bridge = data;
  gboolean self_destroy;
  GThread *thread;
  sigset_t pipe_only;

  /* A write to a pipe whose reader went away (a game gamegate launched)
   * fails instead of raising SIGPIPE: blocked in this thread only, the
   * host's disposition untouched. */
  sigemptyset (&pipe_only);
  sigaddset (&pipe_only, SIGPIPE);
  pthread_sigmask (SIG_BLOCK, &pipe_only, NULL);

  g_private_set (&current_bridge, bridge);
  g_main_context_push_thread_default (bridge->context);
  bridge->host = gg_oam_abi_host_start (bridge);
  while (!bridge->finished)
    g_main_context_iteration (bridge->context, TRUE);
  g_clear_pointer (&bridge->host, gg_oam_abi_host_free);
  /* What the plugins left to run (closing, idles) runs now, so that their
   * objects go with the context. */
  while (g_main_context_iteration (bridge->context, FALSE))
    ;
  g_main_context_pop_thread_default (bridge->context);
  g_private_set (&current_bridge, NULL);

  pthread_mutex_lock (&bridge->lock);
  self_destroy = bridge->self_destroy;
  thread = bridge->thread;
  pthread_mutex_unlock (&bridge->lock);
  if (self_destroy)
    {
      /* Nobody joins: this thread was its own last user. */
      bridge_free (bridge);
      g_thread_unref (thread);
    }
  return NULL;
}

oam_bridge *
oam_bridge_create (oam_message_callback callback,
                   void                *user_data)
{
  g_autoptr(GError) error = NULL;
  oam_bridge *bridge;
  pthread_condattr_t attr;
  GThread *thread;

  if (callback == NULL)
    return NULL;
  gg_oam_abi_log_init ();

  bridge = g_new0 (oam_bridge, 1);
  bridge->callback = callback;
  bridge->user_data = user_data;
  pthread_mutex_init (&bridge->lock, NULL);
  /* oam_call_blocking() waits on the monotonic clock. */
  pthread_condattr_init (&attr);
  pthread_condattr_setclock (&attr, CLOCK_MONOTONIC);
  pthread_cond_init (&bridge->cond, &attr);
  pthread_condattr_destroy (&attr);
  bridge->inbox = g_byte_array_new ();
  bridge->partial = g_byte_array_new ();
  bridge->rejected = g_ptr_array_new_with_free_func (g_free);
  bridge->calls = g_hash_table_new (g_str_hash, g_str_equal);
  bridge->abandoned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  bridge->context = g_main_context_new ();
  bridge->wake = g_source_new (&wake_funcs, sizeof (GSource));
  g_source_set_callback (bridge->wake, on_wake, bridge, NULL);
  g_source_set_name (bridge->wake, "oam bridge: input");
  g_source_attach (bridge->wake, bridge->context);

  pthread_mutex_lock (&bridge->lock);
  thread = g_thread_try_new ("oam-bridge", bridge_thread, bridge, &error);
  bridge->thread = thread;
  pthread_mutex_unlock (&bridge->lock);
  if (thread == NULL)
    {
      g_debug ("oam_bridge_create: %s", error->message);
      bridge_free (bridge);
      return NULL;
    }
  return bridge;
}

int
oam_bridge_send (oam_bridge *bridge,
                 const char *json_line)
{
  gsize length;

  if (bridge == NULL || json_line == NULL)
    return OAM_ERROR_INVALID_ARGUMENT;
  length = strlen (json_line);
  if (!g_utf8_validate (json_line, (gssize) length, NULL))
    return OAM_ERROR_INVALID_UTF8;
  gg_oam_abi_enqueue (bridge, json_line, length);
  return OAM_OK;
}

void
oam_bridge_destroy (oam_bridge *bridge)
{
  gboolean own_thread;
  GThread *thread;

  if (bridge == NULL)
    return;
  own_thread = gg_oam_abi_on_bridge_thread (bridge);

  pthread_mutex_lock (&bridge->lock);
  bridge->destroying = TRUE;
  bridge->stop_requested = TRUE;
  bridge->self_destroy = own_thread;
  /* From another thread: the callback in progress finishes first. (From
   * the callback itself, it is that callback.) */
  while (!own_thread && bridge->callback_running)
    pthread_cond_wait (&bridge->cond, &bridge->lock);
  thread = bridge->thread;
  pthread_mutex_unlock (&bridge->lock);

  gg_oam_abi_calls_shut_down (bridge);
  wake (bridge);
  if (own_thread)
    return;
  g_thread_join (thread);
  bridge_free (bridge);
}

const char *
oam_version (void)
{
  return PACKAGE_VERSION;
}

void
oam_string_free (char *string)
{
  g_free (string);
}
