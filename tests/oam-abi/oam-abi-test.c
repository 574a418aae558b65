/* oam-abi-test.c: the recording callback and waits of the C ABI tests
 * (oam-abi-test.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "oam-abi-test.h"

/**
 * abi_under_valgrind:
 *
 * Returns: whether the valgrind setup runs us (everything is far slower)
 */
gboolean
abi_under_valgrind (void)
{
  const char *wrapper = g_getenv ("GAMEGATE_TEST_WRAPPER");

  return wrapper != NULL && strstr (wrapper, "valgrind") != NULL;
}

/**
 * abi_timeout_ms:
 * @base_ms: the wait in the default setup
 *
 * Returns: @base_ms scaled for sanitizers and valgrind
 */
guint
abi_timeout_ms (guint base_ms)
{
  const char *scale = g_getenv ("GAMEGATE_TEST_TIMEOUT_SCALE");
  guint factor = scale != NULL ? (guint) g_ascii_strtoull (scale, NULL, 10) : 1;

  if (abi_under_valgrind ())
    factor = MAX (factor, 20);
  return base_ms * MAX (factor, 1);
}

AbiRecorder *
abi_recorder_new (void)
{
  AbiRecorder *rec = g_new0 (AbiRecorder, 1);
  pthread_condattr_t attr;

  pthread_mutex_init (&rec->lock, NULL);
  pthread_condattr_init (&attr);
  pthread_condattr_setclock (&attr, CLOCK_MONOTONIC);
  pthread_cond_init (&rec->cond, &attr);
  pthread_condattr_destroy (&attr);
  rec->lines = g_ptr_array_new_with_free_func (g_free);
  return rec;
}

void
abi_recorder_free (AbiRecorder *rec)
{
  g_ptr_array_unref (rec->lines);
  g_free (rec->tool_output);
  g_free (rec->destroy_on);
  g_free (rec->sleep_on);
  g_free (rec->blocking_on);
  g_free (rec->hold_on);
  g_free (rec->blocking_result);
  pthread_cond_destroy (&rec->cond);
  pthread_mutex_destroy (&rec->lock);
  g_free (rec);
}

/* The id of a tool/call line, as JSON text ("t-1" with its quotes). */
static char *
tool_call_id (const char *line)
{
  const char *start = strstr (line, "\"id\":");
  const char *end;

  if (start == NULL)
    return NULL;
  start += 5;
  end = strchr (start, ',');
  return end != NULL ? g_strndup (start, (gsize) (end - start)) : NULL;
}

void
abi_callback (const char *json_line,
              void       *user_data)
{
  AbiRecorder *rec = user_data;
  gboolean destroy = FALSE, sleep = FALSE, block = FALSE;
  oam_bridge *bridge;

  pthread_mutex_lock (&rec->lock);
  if (rec->destroyed)
    rec->after_destroy++;
  if (++rec->inside > 1)
    rec->overlapped = TRUE;
  if (!rec->thread_known)
    {
      rec->thread = pthread_self ();
      rec->thread_known = TRUE;
    }
  else if (!pthread_equal (rec->thread, pthread_self ()))
    rec->thread_changed = TRUE;
  g_ptr_array_add (rec->lines, g_strdup (json_line));
  bridge = rec->bridge;
  destroy = rec->destroy_on != NULL && !rec->destroyed && strstr (json_line, rec->destroy_on) != NULL;
  sleep = rec->sleep_on != NULL && strstr (json_line, rec->sleep_on) != NULL;
  block = rec->blocking_on != NULL && strstr (json_line, rec->blocking_on) != NULL;
  pthread_cond_broadcast (&rec->cond);
  if (rec->hold_on != NULL && strstr (json_line, rec->hold_on) != NULL)
    while (!rec->released)
      pthread_cond_wait (&rec->cond, &rec->lock);
  pthread_mutex_unlock (&rec->lock);

  if (rec->tool_output != NULL && strstr (json_line, "\"method\":\"tool/call\"") != NULL)
    {
      /* Answered at once, from inside the callback. */
      g_autofree char *id = tool_call_id (json_line);
      g_autofree char *answer = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"output\":%s}}",
                                                 id, rec->tool_output);

      g_assert_cmpint (oam_bridge_send (bridge, answer), ==, OAM_OK);
    }
  if (block)
    {
      char *result = oam_call_blocking (bridge, "{\"method\":\"ping\",\"id\":\"inside\"}", 1000);

      pthread_mutex_lock (&rec->lock);
      g_free (rec->blocking_result);
      rec->blocking_result = result;
      pthread_mutex_unlock (&rec->lock);
    }
  if (sleep)
    g_usleep (rec->sleep_ms * 1000);

  pthread_mutex_lock (&rec->lock);
  if (sleep)
    rec->slept = TRUE;
  if (destroy)
    rec->destroyed = TRUE;
  rec->inside--;
  pthread_cond_broadcast (&rec->cond);
  pthread_mutex_unlock (&rec->lock);
  /* The callback's last call. */
  if (destroy)
    oam_bridge_destroy (bridge);
}

/**
 * abi_release:
 * @rec: a recorder
 *
 * Lets a callback held by `hold_on` return.
 */
void
abi_release (AbiRecorder *rec)
{
  pthread_mutex_lock (&rec->lock);
  rec->released = TRUE;
  pthread_cond_broadcast (&rec->cond);
  pthread_mutex_unlock (&rec->lock);
}

/**
 * abi_bridge_new:
 * @rec: a recorder
 *
 * Returns: a bridge recording into @rec (which the callback may use)
 */
oam_bridge *
abi_bridge_new (AbiRecorder *rec)
{
  oam_bridge *bridge;

  pthread_mutex_lock (&rec->lock);
  bridge = oam_bridge_create (abi_callback, rec);
  rec->bridge = bridge;
  pthread_mutex_unlock (&rec->lock);
  g_assert_nonnull (bridge);
  return bridge;
}

guint
abi_count (AbiRecorder *rec)
{
  guint n;

  pthread_mutex_lock (&rec->lock);
  n = rec->lines->len;
  pthread_mutex_unlock (&rec->lock);
  return n;
}

char *
abi_line (AbiRecorder *rec,
          guint        index)
{
  char *line;

  pthread_mutex_lock (&rec->lock);
  g_assert_cmpuint (index, <, rec->lines->len);
  line = g_strdup (g_ptr_array_index (rec->lines, index));
  pthread_mutex_unlock (&rec->lock);
  return line;
}

static void
deadline_in (struct timespec *deadline,
             guint            ms)
{
  clock_gettime (CLOCK_MONOTONIC, deadline);
  deadline->tv_sec += ms / 1000;
  deadline->tv_nsec += (long) (ms % 1000) * 1000000L;
  if (deadline->tv_nsec >= 1000000000L)
    {
      deadline->tv_sec++;
      deadline->tv_nsec -= 1000000000L;
    }
}

static gint
find_locked (AbiRecorder *rec,
             const char  *substring)
{
  for (guint i = 0; i < rec->lines->len; i++)
    if (strstr (g_ptr_array_index (rec->lines, i), substring) != NULL)
      return (gint) i;
  return -1;
}

/**
 * abi_wait_count:
 * @rec: a recorder
 * @count: how many lines to wait for
 *
 * Fails the test when they do not come in time (10 s, scaled).
 *
 * Returns: the number of lines recorded
 */
guint
abi_wait_count (AbiRecorder *rec,
                guint        count)
{
  struct timespec deadline;
  guint n;

  deadline_in (&deadline, abi_timeout_ms (10000));
  pthread_mutex_lock (&rec->lock);
  while (rec->lines->len < count)
    if (pthread_cond_timedwait (&rec->cond, &rec->lock, &deadline) == ETIMEDOUT)
      break;
  n = rec->lines->len;
  pthread_mutex_unlock (&rec->lock);
  if (n < count)
    g_error ("%u line(s) came, %u were expected", n, count);
  return n;
}

/**
 * abi_wait_match:
 * @rec: a recorder
 * @substring: what a line holds
 *
 * Returns: the index of the first line holding @substring; fails the test
 *   when none comes in time
 */
guint
abi_wait_match (AbiRecorder *rec,
                const char  *substring)
{
  struct timespec deadline;
  gint index;

  deadline_in (&deadline, abi_timeout_ms (10000));
  pthread_mutex_lock (&rec->lock);
  while ((index = find_locked (rec, substring)) < 0)
    if (pthread_cond_timedwait (&rec->cond, &rec->lock, &deadline) == ETIMEDOUT)
      break;
  pthread_mutex_unlock (&rec->lock);
  if (index < 0)
    g_error ("no line holding %s came", substring);
  return (guint) index;
}

gboolean
abi_has_match (AbiRecorder *rec,
               const char  *substring)
{
  gint index;

  pthread_mutex_lock (&rec->lock);
  index = find_locked (rec, substring);
  pthread_mutex_unlock (&rec->lock);
  return index >= 0;
}

void
abi_send (oam_bridge *bridge,
          const char *line)
{
  g_assert_cmpint (oam_bridge_send (bridge, line), ==, OAM_OK);
}

/**
 * abi_call:
 * @bridge: a bridge
 * @request: a request
 * @timeout_ms: as for oam_call_blocking(); scaled
 *
 * Returns: (transfer full): the response, as a g_free()able string
 */
char *
abi_call (oam_bridge *bridge,
          const char *request,
          int         timeout_ms)
{
  char *response = oam_call_blocking (bridge, request,
                                      timeout_ms > 0 ? (int) abi_timeout_ms ((guint) timeout_ms) : timeout_ms);
  char *copy;

  g_assert_nonnull (response);
  copy = g_strdup (response);
  oam_string_free (response);
  return copy;
}

static guint
count_entries (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  g_assert_nonnull (d);
  while (g_dir_read_name (d) != NULL)
    n++;
  return n;
}

/** abi_count_threads: Returns: the threads of this process */
guint
abi_count_threads (void)
{
  return count_entries ("/proc/self/task");
}

/** abi_count_fds: Returns: the open file descriptors of this process */
guint
abi_count_fds (void)
{
  /* The directory being read holds one itself, every time alike. */
  return count_entries ("/proc/self/fd");
}
