/* gg-record-frontend.c: `gamegate cassette`, the command line of the
 * model-record plugin.
 *
 *   gamegate cassette --to-script npc.jsonl > steps.json
 *
 * writes a recorded cassette as a model-scripted script (oam section 10:
 * `{"steps": [...]}` with the recorded texts, tool calls, JSON answers and
 * errors in order), so a recording can become a hand-edited fixture. It
 * has no daemon part.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "gg-record.h"

struct _GgRecordFrontend {
  GObject parent_instance;

  char *to_script;           /* --to-script */
};

static void gg_record_frontend_iface_init (GgFrontendInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GgRecordFrontend, gg_record_frontend, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_FRONTEND, gg_record_frontend_iface_init))

static const char *
gg_record_frontend_get_name (GgFrontend *frontend)
{
  return "cassette";
}

static const char *
gg_record_frontend_get_summary (GgFrontend *frontend)
{
  return _("Convert a recorded model cassette (model-record) into a scripted model's steps");
}

static GOptionGroup *
gg_record_frontend_get_option_group (GgFrontend *frontend)
{
  GgRecordFrontend *self = GG_RECORD_FRONTEND (frontend);
  GOptionGroup *group = g_option_group_new ("cassette", _("Options of gamegate cassette:"),
                                            _("Show cassette options"), NULL, NULL);
  const GOptionEntry entries[] = {
    { "to-script", 0, 0, G_OPTION_ARG_FILENAME, &self->to_script,
      N_("Write the cassette FILE as a model-scripted script to standard output"), N_("FILE") },
    G_OPTION_ENTRY_NULL
  };

  g_option_group_set_translation_domain (group, GETTEXT_PACKAGE);
  g_option_group_add_entries (group, entries);
  return group;
}

static void
on_written (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
gg_record_frontend_run_stdio_async (GgFrontend          *frontend,
                                    GIOStream           *stdio,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GgRecordFrontend *self = GG_RECORD_FRONTEND (frontend);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(JsonNode) script = NULL;
  g_autofree char *text = NULL;
  GError *error = NULL;

  g_task_set_source_tag (task, gg_record_frontend_run_stdio_async);
  if (self->to_script == NULL)
    {
      g_task_return_new_error (task, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                               _("Nothing to do: give --to-script CASSETTE"));
      return;
    }
  entries = gg_record_cassette_load (self->to_script, &error);
  if (entries == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  script = gg_record_cassette_to_script (entries, NULL);
  text = gg_json_to_string (script);
  g_task_set_task_data (task, g_strconcat (text, "\n", NULL), g_free);
  g_output_stream_write_all_async (g_io_stream_get_output_stream (stdio), g_task_get_task_data (task),
                                   strlen (g_task_get_task_data (task)), G_PRIORITY_DEFAULT, cancellable,
                                   on_written, g_object_ref (task));
}

static void
gg_record_frontend_iface_init (GgFrontendInterface *iface)
{
  iface->get_name = gg_record_frontend_get_name;
  iface->get_summary = gg_record_frontend_get_summary;
  iface->get_option_group = gg_record_frontend_get_option_group;
  iface->run_stdio_async = gg_record_frontend_run_stdio_async;
}

static void
gg_record_frontend_finalize (GObject *object)
{
  g_free (GG_RECORD_FRONTEND (object)->to_script);
  G_OBJECT_CLASS (gg_record_frontend_parent_class)->finalize (object);
}

static void
gg_record_frontend_class_init (GgRecordFrontendClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_record_frontend_finalize;
}

static void
gg_record_frontend_init (GgRecordFrontend *self)
{
}

/** gg_record_frontend_new: Returns: (transfer full): `gamegate cassette` */
GgRecordFrontend *
gg_record_frontend_new (void)
{
  return g_object_new (GG_TYPE_RECORD_FRONTEND, NULL);
}
