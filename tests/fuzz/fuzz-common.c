/* fuzz-common.c: see fuzz-common.h. The chunk stream is what lets a target
 * feed one input to a GgFramedStream in split reads: a message cut inside
 * its header, its body or its UTF-8 sequences must frame the same way as
 * one read of the whole.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static GLogWriterOutput
quiet_writer (GLogLevelFlags   level,
              const GLogField *fields,
              gsize            n_fields,
              gpointer         user_data)
{
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
    {
      g_log_writer_standard_streams (level, fields, n_fields, user_data);
      /* abort(), not GLib's breakpoint trap: libFuzzer turns SIGABRT into
       * a crash report with the input saved; SIGTRAP kills it silently. */
      abort ();
    }
  return G_LOG_WRITER_HANDLED;
}

void
fuzz_init (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once))
    {
      g_log_set_always_fatal (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL);
      g_log_set_writer_func (quiet_writer, NULL, NULL);
      g_once_init_leave (&once, 1);
    }
}

guint8
fuzz_input_byte (FuzzInput *in)
{
  guint8 b;

  if (in->size == 0)
    return 0;
  b = in->data[0];
  in->data++;
  in->size--;
  return b;
}

guint32
fuzz_input_u32 (FuzzInput *in)
{
  guint32 v = 0;

  for (int i = 0; i < 4; i++)
    v = (v << 8) | fuzz_input_byte (in);
  return v;
}

char *
fuzz_input_piece (FuzzInput *in,
                  char       sep,
                  gsize     *length)
{
  const guint8 *end = memchr (in->data, sep, in->size);
  gsize n = end != NULL ? (gsize) (end - in->data) : in->size;
  char *piece = g_malloc (n + 1);

  memcpy (piece, in->data, n);
  piece[n] = '\0';
  in->data += n;
  in->size -= n;
  if (end != NULL)
    {
      in->data++;
      in->size--;
    }
  if (length != NULL)
    *length = n;
  return piece;
}

/* The chunk stream ------------------------------------------------------- */

#define FUZZ_TYPE_CHUNK_STREAM (fuzz_chunk_stream_get_type ())
G_DECLARE_FINAL_TYPE (FuzzChunkStream, fuzz_chunk_stream, FUZZ, CHUNK_STREAM, GInputStream)

struct _FuzzChunkStream {
  GInputStream parent_instance;
  GBytes *data;
  gsize offset;
  guint32 state;
  gsize max_chunk;
  GArray *pauses;   /* gsize offsets, ascending; a read stops at each */
  guint next_pause;
};

G_DEFINE_TYPE (FuzzChunkStream, fuzz_chunk_stream, G_TYPE_INPUT_STREAM)

static gsize
next_chunk (FuzzChunkStream *self)
{
  /* xorshift32: deterministic for a given seed. */
  guint32 x = self->state;

  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  self->state = x;
  /* One read in four is a single byte: splits land everywhere. */
  if ((x & 3) == 0)
    return 1;
  return (x >> 2) % self->max_chunk + 1;
}

static gssize
chunk_read (GInputStream  *stream,
            void          *buffer,
            gsize          count,
            GCancellable  *cancellable,
            GError       **error)
{
  FuzzChunkStream *self = FUZZ_CHUNK_STREAM (stream);
  gsize total = g_bytes_get_size (self->data);
  gsize chunk = next_chunk (self);  /* once: MIN() evaluates twice */
  gsize end = total;
  gsize n;

  if (self->pauses != NULL && self->next_pause < self->pauses->len)
    end = g_array_index (self->pauses, gsize, self->next_pause);
  n = MIN (count, MIN (chunk, end - self->offset));

  if (n == 0)
    return 0;

  memcpy (buffer, (const guint8 *) g_bytes_get_data (self->data, NULL) + self->offset, n);
  self->offset += n;
  return (gssize) n;
}

typedef struct {
  void *buffer;
  gsize count;
} PausedRead;

static gboolean
paused_read_cb (gpointer data)
{
  GTask *task = data;
  FuzzChunkStream *self = g_task_get_source_object (task);
  PausedRead *read = g_task_get_task_data (task);
  GError *error = NULL;

  while (self->next_pause < self->pauses->len &&
         g_array_index (self->pauses, gsize, self->next_pause) == self->offset)
    self->next_pause++;
  if (g_cancellable_set_error_if_cancelled (g_task_get_cancellable (task), &error))
    g_task_return_error (task, error);
  else
    g_task_return_int (task, chunk_read (G_INPUT_STREAM (self), read->buffer, read->count, NULL, NULL));
  return G_SOURCE_REMOVE;
}

static void
chunk_read_async (GInputStream        *stream,
                  void                *buffer,
                  gsize                count,
                  int                  io_priority,
                  GCancellable        *cancellable,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data)
{
  FuzzChunkStream *self = FUZZ_CHUNK_STREAM (stream);
  g_autoptr(GTask) task = g_task_new (stream, cancellable, callback, user_data);
  GError *error = NULL;

  g_task_set_source_tag (task, chunk_read_async);
  if (g_cancellable_set_error_if_cancelled (cancellable, &error))
    g_task_return_error (task, error);
  else if (self->pauses != NULL && self->next_pause < self->pauses->len &&
           self->offset == g_array_index (self->pauses, gsize, self->next_pause))
    {
      PausedRead *read = g_new (PausedRead, 1);

      read->buffer = buffer;
      read->count = count;
      g_task_set_task_data (task, read, g_free);
      g_idle_add_full (G_PRIORITY_LOW, paused_read_cb, g_object_ref (task), g_object_unref);
    }
  else
    g_task_return_int (task, chunk_read (stream, buffer, count, cancellable, NULL));
}

static gssize
chunk_read_finish (GInputStream  *stream,
                   GAsyncResult  *result,
                   GError       **error)
{
  return g_task_propagate_int (G_TASK (result), error);
}

/* Without these GInputStream would close in a worker thread. */
static void
chunk_close_async (GInputStream        *stream,
                   int                  io_priority,
                   GCancellable        *cancellable,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (stream, cancellable, callback, user_data);

  g_task_set_source_tag (task, chunk_close_async);
  g_task_return_boolean (task, TRUE);
}

static gboolean
chunk_close_finish (GInputStream  *stream,
                    GAsyncResult  *result,
                    GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
chunk_finalize (GObject *object)
{
  FuzzChunkStream *self = FUZZ_CHUNK_STREAM (object);

  g_bytes_unref (self->data);
  if (self->pauses != NULL)
    g_array_unref (self->pauses);
  G_OBJECT_CLASS (fuzz_chunk_stream_parent_class)->finalize (object);
}

static void
fuzz_chunk_stream_class_init (FuzzChunkStreamClass *klass)
{
  GInputStreamClass *stream_class = G_INPUT_STREAM_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = chunk_finalize;
  stream_class->read_fn = chunk_read;
  stream_class->read_async = chunk_read_async;
  stream_class->read_finish = chunk_read_finish;
  stream_class->close_async = chunk_close_async;
  stream_class->close_finish = chunk_close_finish;
}

static void
fuzz_chunk_stream_init (FuzzChunkStream *self)
{
}

GInputStream *
fuzz_chunk_stream_new (GBytes  *data,
                       guint32  seed,
                       gsize    max_chunk)
{
  FuzzChunkStream *self = g_object_new (FUZZ_TYPE_CHUNK_STREAM, NULL);

  self->data = g_bytes_ref (data);
  self->state = seed != 0 ? seed : 0x9e3779b9u;
  self->max_chunk = MAX (max_chunk, 1);
  return G_INPUT_STREAM (self);
}

GInputStream *
fuzz_chunk_stream_new_paused (GBytes  *data,
                              guint32  seed,
                              gsize    max_chunk)
{
  gsize size = 0;
  const char *text = g_bytes_get_data (data, &size);
  g_autoptr(GByteArray) kept = g_byte_array_new ();
  GArray *pauses = g_array_new (FALSE, FALSE, sizeof (gsize));
  FuzzChunkStream *self;
  gsize start = 0;

  /* Lines of exactly "~" become pauses at the offset they stood at. */
  while (start < size)
    {
      const char *nl = memchr (text + start, '\n', size - start);
      gsize end = nl != NULL ? (gsize) (nl - text) + 1 : size;
      gsize len = end - start;

      if ((len == 2 && text[start] == '~' && text[start + 1] == '\n') ||
          (len == 1 && text[start] == '~'))
        {
          gsize at = kept->len;
          g_array_append_val (pauses, at);
        }
      else
        g_byte_array_append (kept, (const guint8 *) text + start, (guint) len);
      start = end;
    }
  {
    g_autoptr(GBytes) stripped = g_byte_array_free_to_bytes (g_steal_pointer (&kept));

    self = FUZZ_CHUNK_STREAM (fuzz_chunk_stream_new (stripped, seed, max_chunk));
  }
  self->pauses = pauses;
  return G_INPUT_STREAM (self);
}

/* Main loop -------------------------------------------------------------- */

gboolean
fuzz_run_until (gboolean *done,
                guint     max_iterations)
{
  GMainContext *context = g_main_context_get_thread_default ();

  for (guint i = 0; i < max_iterations && !*done; i++)
    g_main_context_iteration (context, FALSE);
  return *done;
}

static gboolean
deadline_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

gboolean
fuzz_wait_until (gboolean *done,
                 guint     timeout_ms)
{
  GMainContext *context = g_main_context_get_thread_default ();
  gboolean expired = FALSE;
  GSource *timer = g_timeout_source_new (timeout_ms);

  g_source_set_callback (timer, deadline_cb, &expired, NULL);
  g_source_attach (timer, context);
  while (!*done && !expired)
    g_main_context_iteration (context, TRUE);
  g_source_destroy (timer);
  g_source_unref (timer);
  return *done;
}

void
fuzz_drain (void)
{
  GMainContext *context = g_main_context_get_thread_default ();

  for (guint i = 0; i < 10000 && g_main_context_iteration (context, FALSE); i++)
    ;
}

void
fuzz_dump_output (GOutputStream *memory_output)
{
  GMemoryOutputStream *out = G_MEMORY_OUTPUT_STREAM (memory_output);

  if (g_strcmp0 (g_getenv ("FUZZ_DUMP"), "1") != 0)
    return;
  fwrite (g_memory_output_stream_get_data (out), 1, g_memory_output_stream_get_data_size (out), stderr);
  fputc ('\n', stderr);
}
