/* gg-child-process.c: a game process a plugin launched (gamebridge's
 * launch_instance, a GABP mod's game).
 *
 * Both launchers need the same three things, so they live here once:
 *  - the child leads its own process group, so whatever it starts (a shell's
 *    children, a build tool's game process) is reached by a stop, and when
 *    the leader exits, what it left in its group gets SIGTERM with it;
 *  - with GG_CHILD_PROCESS_CAPTURE_OUTPUT its stdout and stderr are read
 *    line by line (each line a `line` signal, the last ones kept for an
 *    error message); otherwise its stdout goes to our stderr, so a parent
 *    speaking a protocol on stdout (`gamegate mcp`) stays clean;
 *  - a stop that waits for the game's own close (which the caller asked
 *    for, in its own protocol), then sends SIGTERM, then SIGKILL, to the
 *    group.
 *
 * Only a child this object spawned and has not yet seen exit is signalled:
 * once the exit is reported, the group id may belong to someone else.
 * `exited` is reported once the process is reaped and its output is read
 * to the end (or half a second passed: a grandchild may hold the pipe).
 * Disposing of the object kills a child that still runs.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib-unix.h>
#include <gio/gunixinputstream.h>

#include "gg-child-process.h"
#include "gg-main-context-private.h"

#define DRAIN_WAIT_MS  500
#define KILL_WAIT_MS   1500
#define MAX_LINE       8192

/* The one child watch of a process, for its whole life. A disposed
 * GgChildProcess leaves it in place with no owner, so that the child is
 * still reaped: removing it and adding another would race GLib's worker
 * thread where pidfds are missing (valgrind, some seccomp profiles), which
 * may have reaped the child for the first watch already, and the second
 * would then warn about ECHILD at the next SIGCHLD. */
typedef struct {
  GgChildProcess *owner;      /* NULL once disposed */
} ChildWatch;

struct _GgChildProcess {
  GObject parent_instance;

  GPid pid;
  ChildWatch *watch;          /* until reaped; outlives us if disposed first */
  GgChildProcessFlags flags;
  GDataInputStream *out;
  GQueue tail;                /* char *, oldest first */
  GCancellable *cancellable;  /* the reader and the wait; cancelled on dispose */
  gboolean reaped;
  gboolean eof;
  gboolean exited;            /* reported */
  int wait_status;
  GSource *drain;             /* waiting for the output after the exit */
  GList *waiters;             /* Waiter */
};

enum { SIGNAL_LINE, SIGNAL_EXITED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (GgChildProcess, gg_child_process, G_TYPE_OBJECT)

typedef struct {
  GgChildProcess *self;
  GTask *task;
  GSource *timer;
  GSource *cancel_source;
} Waiter;

/* Completes and frees @w, which the caller has taken off the list. */
static void
waiter_complete (Waiter   *w,
                 gboolean  exited,
                 GError   *error)
{
  _gg_source_clear (&w->timer);
  if (w->cancel_source != NULL)
    {
      g_source_destroy (w->cancel_source);
      g_clear_pointer (&w->cancel_source, g_source_unref);
    }
  if (error != NULL)
    g_task_return_error (w->task, error);
  else
    g_task_return_boolean (w->task, exited);
  g_object_unref (w->task);
  g_free (w);
}

static void
complete_waiters (GgChildProcess *self,
                  gboolean        exited,
                  const GError   *error)
{
  GList *waiters = g_steal_pointer (&self->waiters);

  for (GList *l = waiters; l != NULL; l = l->next)
    waiter_complete (l->data, exited, error != NULL ? g_error_copy (error) : NULL);
  g_list_free (waiters);
}

/**
 * gg_child_process_signal_group:
 * @self: a child process
 * @signum: a signal number
 *
 * Sends @signum to the child's whole process group. Does nothing once the
 * exit was reported (the group id may have been reused since).
 *
 * Since: 1.0
 */
void
gg_child_process_signal_group (GgChildProcess *self,
                               int             signum)
{
  g_return_if_fail (GG_IS_CHILD_PROCESS (self));

  if (self->exited || self->pid <= 0)
    return;
  if (kill (-self->pid, signum) != 0 && errno != ESRCH)
    g_debug ("kill(-%d, %d): %s", (int) self->pid, signum, g_strerror (errno));
}

static void
gg_child_process_dispose (GObject *object)
{
  GgChildProcess *self = GG_CHILD_PROCESS (object);
  g_autoptr(GError) gone = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                                "the child process was abandoned");

  /* A game we started does not outlive us; GLib still reaps it. */
  if (self->pid > 0 && !self->exited)
    gg_child_process_signal_group (self, SIGKILL);
  if (self->watch != NULL)
    {
      self->watch->owner = NULL;
      self->watch = NULL;
    }
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  _gg_source_clear (&self->drain);
  complete_waiters (self, FALSE, gone);
  g_clear_object (&self->out);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (gg_child_process_parent_class)->dispose (object);
}

static void
gg_child_process_finalize (GObject *object)
{
  GgChildProcess *self = GG_CHILD_PROCESS (object);

  g_queue_clear_full (&self->tail, g_free);
  G_OBJECT_CLASS (gg_child_process_parent_class)->finalize (object);
}

static void
gg_child_process_class_init (GgChildProcessClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = gg_child_process_dispose;
  object_class->finalize = gg_child_process_finalize;

  /**
   * GgChildProcess::line:
   * @self: the child process
   * @line: one line of its output, valid UTF-8, without the newline
   *
   * A line the child wrote (with %GG_CHILD_PROCESS_CAPTURE_OUTPUT).
   *
   * Since: 1.0
   */
  signals[SIGNAL_LINE] =
    g_signal_new ("line", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
  /**
   * GgChildProcess::exited:
   * @self: the child process
   * @wait_status: its wait status (see waitpid(2))
   *
   * The child exited and its output was read to the end.
   *
   * Since: 1.0
   */
  signals[SIGNAL_EXITED] =
    g_signal_new ("exited", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_INT);
}

static void
gg_child_process_init (GgChildProcess *self)
{
  g_queue_init (&self->tail);
  self->cancellable = g_cancellable_new ();
}

/* ---- exit ------------------------------------------------------------------ */

static void
report_exit (GgChildProcess *self)
{
  g_autoptr(GgChildProcess) hold = g_object_ref (self);

  if (self->exited)
    return;
  _gg_source_clear (&self->drain);
  self->exited = TRUE;
  g_signal_emit (self, signals[SIGNAL_EXITED], 0, self->wait_status);
  complete_waiters (self, TRUE, NULL);
}

static gboolean
on_drain_timeout (gpointer user_data)
{
  GgChildProcess *self = user_data;

  _gg_source_clear (&self->drain);
  report_exit (self);
  return G_SOURCE_REMOVE;
}

static void
on_reaped (GPid     pid,
           int      wait_status,
           gpointer user_data)
{
  ChildWatch *watch = user_data;
  GgChildProcess *self = watch->owner;

  if (self == NULL)
    {
      g_spawn_close_pid (pid);
      return;
    }
  self->watch = NULL;
  self->reaped = TRUE;
  self->wait_status = wait_status;
  g_spawn_close_pid (pid);
  g_debug ("Child %d exited (wait status %d)", (int) self->pid, self->wait_status);
  /* Whatever the leader left behind in its group goes with it. */
  gg_child_process_signal_group (self, SIGTERM);
  if (self->out != NULL && !self->eof)
    self->drain = _gg_timeout_add_here (DRAIN_WAIT_MS, on_drain_timeout, self);
  else
    report_exit (self);
}

/* ---- output ---------------------------------------------------------------- */

static void
add_line (GgChildProcess *self,
          const char     *line)
{
  char *valid = g_utf8_make_valid (line, -1);

  if (strlen (valid) > MAX_LINE)
    {
      char *cut = valid + MAX_LINE;

      /* At a character boundary: the text stays valid UTF-8. */
      while (cut > valid && (*cut & 0xC0) == 0x80)
        cut--;
      *cut = '\0';
    }
  g_queue_push_tail (&self->tail, valid);
  while (self->tail.length > GG_CHILD_PROCESS_TAIL_LINES)
    g_free (g_queue_pop_head (&self->tail));
  g_signal_emit (self, signals[SIGNAL_LINE], 0, valid);
}

static void
on_line (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  gsize length;
  g_autofree char *line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (source), result, &length,
                                                                &error);
  GgChildProcess *self;

  if (line == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;  /* disposed: @user_data is gone */
  self = user_data;
  if (line == NULL)
    {
      self->eof = TRUE;
      if (self->reaped)
        report_exit (self);
      return;
    }
  add_line (self, line);
  g_data_input_stream_read_line_async (self->out, G_PRIORITY_DEFAULT, self->cancellable, on_line, self);
}

/* ---- spawning -------------------------------------------------------------- */

static void
child_setup (gpointer user_data)
{
  /* Lead a process group, so a stop reaches the whole tree. */
  setpgid (0, 0);
}

/**
 * gg_child_process_spawn:
 * @argv: (array zero-terminated=1): the command
 * @envp: (array zero-terminated=1) (nullable): the whole environment, or
 *   %NULL to inherit ours
 * @cwd: (nullable): the working directory, or %NULL for ours
 * @flags: what happens to the child's output
 * @error: return location for a #GError
 *
 * Starts @argv as the leader of a new process group, with stdin from
 * `/dev/null`.
 *
 * Returns: (transfer full): the running child, or %NULL with @error set
 *
 * Since: 1.0
 */
GgChildProcess *
gg_child_process_spawn (const char * const  *argv,
                        const char * const  *envp,
                        const char          *cwd,
                        GgChildProcessFlags  flags,
                        GError             **error)
{
  gboolean capture = (flags & GG_CHILD_PROCESS_CAPTURE_OUTPUT) != 0;
  g_autoptr(GgChildProcess) self = NULL;
  int pipe_fds[2] = { -1, -1 };
  int out_fd = STDERR_FILENO;
  int err_fd = -1;
  gboolean spawned;

  g_return_val_if_fail (argv != NULL && argv[0] != NULL, NULL);

  if (capture)
    {
      if (!g_unix_open_pipe (pipe_fds, FD_CLOEXEC, error))
        return NULL;
      out_fd = err_fd = pipe_fds[1];
    }
  self = g_object_new (GG_TYPE_CHILD_PROCESS, NULL);
  self->flags = flags;
  /* Not reaped by GLib behind our back: until our watch reaps it, the pid
   * (and so the group id) cannot be given to another process. */
  spawned = g_spawn_async_with_pipes_and_fds (cwd, argv, envp,
                                              G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH |
                                              G_SPAWN_STDIN_FROM_DEV_NULL,
                                              child_setup, NULL, -1, out_fd, err_fd, NULL, NULL, 0,
                                              &self->pid, NULL, NULL, NULL, error);
  if (capture)
    close (pipe_fds[1]);
  if (!spawned)
    {
      if (capture)
        close (pipe_fds[0]);
      self->pid = 0;
      return NULL;
    }
  /* Also from this side: a stop right after the spawn must find the group. */
  setpgid (self->pid, self->pid);
  if (capture)
    {
      g_autoptr(GInputStream) pipe = g_unix_input_stream_new (pipe_fds[0], TRUE);

      self->out = g_data_input_stream_new (pipe);
      g_data_input_stream_set_newline_type (self->out, G_DATA_STREAM_NEWLINE_TYPE_ANY);
      g_data_input_stream_read_line_async (self->out, G_PRIORITY_DEFAULT, self->cancellable, on_line, self);
    }
  self->watch = g_new0 (ChildWatch, 1);
  self->watch->owner = self;
  /* On the context of the thread that spawned it, like every other source. */
  g_source_unref (_gg_source_attach_here (g_child_watch_source_new (self->pid),
                                          G_SOURCE_FUNC (on_reaped), self->watch, g_free));
  return g_steal_pointer (&self);
}

/**
 * gg_child_process_get_pid:
 * @self: a child process
 *
 * The child's process id.
 *
 * Returns: its process id (also its process group id)
 *
 * Since: 1.0
 */
gint64
gg_child_process_get_pid (GgChildProcess *self)
{
  g_return_val_if_fail (GG_IS_CHILD_PROCESS (self), 0);
  return (gint64) self->pid;
}

/**
 * gg_child_process_has_exited:
 * @self: a child process
 *
 * Whether the child exited and its output was read.
 *
 * Returns: %TRUE once #GgChildProcess::exited was emitted
 *
 * Since: 1.0
 */
gboolean
gg_child_process_has_exited (GgChildProcess *self)
{
  g_return_val_if_fail (GG_IS_CHILD_PROCESS (self), FALSE);
  return self->exited;
}

/**
 * gg_child_process_get_wait_status:
 * @self: a child process that exited
 *
 * How the child exited, as waitpid(2) reports it.
 *
 * Returns: its wait status (see waitpid(2)), 0 while it runs
 *
 * Since: 1.0
 */
int
gg_child_process_get_wait_status (GgChildProcess *self)
{
  g_return_val_if_fail (GG_IS_CHILD_PROCESS (self), 0);
  return self->wait_status;
}

/**
 * gg_child_process_describe_exit:
 * @self: a child process
 *
 * How the child ended, for an error message.
 *
 * Returns: (transfer full): how it ended, in English ("the process exited
 *   with code 1", "the process was killed by signal 9 (Killed)")
 *
 * Since: 1.0
 */
char *
gg_child_process_describe_exit (GgChildProcess *self)
{
  g_return_val_if_fail (GG_IS_CHILD_PROCESS (self), NULL);

  if (!self->reaped)
    return g_strdup ("the process is still running");
  if (WIFEXITED (self->wait_status))
    return g_strdup_printf ("the process exited with code %d", WEXITSTATUS (self->wait_status));
  if (WIFSIGNALED (self->wait_status))
    return g_strdup_printf ("the process was killed by signal %d (%s)", WTERMSIG (self->wait_status),
                            g_strsignal (WTERMSIG (self->wait_status)));
  return g_strdup ("the process ended");
}

/**
 * gg_child_process_get_tail:
 * @self: a child process spawned with %GG_CHILD_PROCESS_CAPTURE_OUTPUT
 * @max_lines: how many lines at most (at most %GG_CHILD_PROCESS_TAIL_LINES
 *   are kept)
 *
 * The last lines the child wrote.
 *
 * Returns: (transfer full) (array zero-terminated=1): the last lines of its
 *   output, oldest first
 *
 * Since: 1.0
 */
char **
gg_child_process_get_tail (GgChildProcess *self,
                           guint           max_lines)
{
  g_autoptr(GStrvBuilder) builder = NULL;
  guint skip;

  g_return_val_if_fail (GG_IS_CHILD_PROCESS (self), NULL);

  builder = g_strv_builder_new ();
  skip = self->tail.length > max_lines ? self->tail.length - max_lines : 0;
  for (GList *l = g_list_nth (self->tail.head, skip); l != NULL; l = l->next)
    g_strv_builder_add (builder, l->data);
  return g_strv_builder_end (builder);
}

/* ---- waiting --------------------------------------------------------------- */

static gboolean
on_waiter_timeout (gpointer user_data)
{
  Waiter *w = user_data;

  _gg_source_clear (&w->timer);
  w->self->waiters = g_list_remove (w->self->waiters, w);
  waiter_complete (w, FALSE, NULL);
  return G_SOURCE_REMOVE;
}

static gboolean
on_waiter_cancelled (GCancellable *cancellable,
                     gpointer      user_data)
{
  Waiter *w = user_data;

  g_clear_pointer (&w->cancel_source, g_source_unref);
  w->self->waiters = g_list_remove (w->self->waiters, w);
  waiter_complete (w, FALSE, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Operation was cancelled"));
  return G_SOURCE_REMOVE;
}

/**
 * gg_child_process_wait_async:
 * @self: a child process
 * @timeout_ms: how long to wait; 0 waits as long as it takes
 * @cancellable: (nullable): a #GCancellable
 * @callback: called once it exited or @timeout_ms passed
 * @user_data: data for @callback
 *
 * Waits for #GgChildProcess::exited.
 *
 * Since: 1.0
 */
void
gg_child_process_wait_async (GgChildProcess      *self,
                             guint                timeout_ms,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  GTask *task;
  Waiter *w;

  g_return_if_fail (GG_IS_CHILD_PROCESS (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, gg_child_process_wait_async);
  if (self->exited)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  w = g_new0 (Waiter, 1);
  w->self = self;
  w->task = task;
  if (timeout_ms > 0)
    w->timer = _gg_timeout_add_here (timeout_ms, on_waiter_timeout, w);
  if (cancellable != NULL)
    {
      w->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (w->cancel_source, G_SOURCE_FUNC (on_waiter_cancelled), w, NULL);
      g_source_attach (w->cancel_source, g_main_context_get_thread_default ());
    }
  self->waiters = g_list_append (self->waiters, w);
}

/**
 * gg_child_process_wait_finish:
 * @self: a child process
 * @result: the result
 * @error: return location for a #GError (set only on cancellation)
 *
 * Finishes gg_child_process_wait_async().
 *
 * Returns: %TRUE when it exited, %FALSE when the time ran out or the wait
 *   was cancelled
 *
 * Since: 1.0
 */
gboolean
gg_child_process_wait_finish (GgChildProcess  *self,
                              GAsyncResult    *result,
                              GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- stopping -------------------------------------------------------------- */

typedef struct {
  guint term_ms;
  GgChildStopHow stage;   /* what a exit seen now would mean */
} Stop;

static void
on_stop_wait (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  GgChildProcess *self = GG_CHILD_PROCESS (source);
  Stop *stop = g_task_get_task_data (task);
  GError *error = NULL;

  if (gg_child_process_wait_finish (self, result, &error))
    {
      g_task_return_int (task, stop->stage);
      g_object_unref (task);
      return;
    }
  if (error != NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  switch (stop->stage)
    {
    case GG_CHILD_STOP_EXITED:
      stop->stage = GG_CHILD_STOP_TERMINATED;
      gg_child_process_signal_group (self, SIGTERM);
      gg_child_process_wait_async (self, MAX (stop->term_ms, 1), g_task_get_cancellable (task), on_stop_wait, task);
      break;
    case GG_CHILD_STOP_TERMINATED:
      stop->stage = GG_CHILD_STOP_KILLED;
      gg_child_process_signal_group (self, SIGKILL);
      gg_child_process_wait_async (self, KILL_WAIT_MS, g_task_get_cancellable (task), on_stop_wait, task);
      break;
    default:
      g_task_return_int (task, GG_CHILD_STOP_WOULD_NOT_DIE);
      g_object_unref (task);
      break;
    }
}

/**
 * gg_child_process_stop_async:
 * @self: a child process
 * @close_ms: how long to wait for it to exit on its own first (the caller
 *   asked it to close, in its own protocol); 0 goes to SIGTERM at once
 * @term_ms: how long to wait after SIGTERM before SIGKILL
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with how it ended
 * @user_data: data for @callback
 *
 * Stops the child: waits @close_ms, then sends SIGTERM to its process group
 * and waits @term_ms, then sends SIGKILL to the group and waits a little
 * more. A child that already exited completes at once.
 *
 * Since: 1.0
 */
void
gg_child_process_stop_async (GgChildProcess      *self,
                             guint                close_ms,
                             guint                term_ms,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  GTask *task;
  Stop *stop;

  g_return_if_fail (GG_IS_CHILD_PROCESS (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, gg_child_process_stop_async);
  stop = g_new0 (Stop, 1);
  stop->term_ms = term_ms;
  stop->stage = GG_CHILD_STOP_EXITED;
  g_task_set_task_data (task, stop, g_free);
  if (close_ms == 0 && !self->exited)
    {
      stop->stage = GG_CHILD_STOP_TERMINATED;
      gg_child_process_signal_group (self, SIGTERM);
      close_ms = MAX (term_ms, 1);
    }
  gg_child_process_wait_async (self, close_ms, cancellable, on_stop_wait, task);
}

/**
 * gg_child_process_stop_finish:
 * @self: a child process
 * @result: the result
 * @error: return location for a #GError (set only on cancellation)
 *
 * Finishes gg_child_process_stop_async().
 *
 * Returns: how the child ended
 *
 * Since: 1.0
 */
GgChildStopHow
gg_child_process_stop_finish (GgChildProcess  *self,
                              GAsyncResult    *result,
                              GError         **error)
{
  g_autoptr(GError) local = NULL;
  gssize how;

  g_return_val_if_fail (g_task_is_valid (result, self), GG_CHILD_STOP_WOULD_NOT_DIE);
  how = g_task_propagate_int (G_TASK (result), &local);
  if (local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return GG_CHILD_STOP_WOULD_NOT_DIE;
    }
  return (GgChildStopHow) how;
}
