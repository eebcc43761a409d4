/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-table-file.c — a table's rows exported to a file: replace, export,
 * close, each step asynchronous. */
#define G_LOG_DOMAIN "rk-table-file"
#include "config.h"

#include "rk-table-file.h"

#include <glib/gi18n-lib.h>

typedef struct
{
  RkTableExportFormat  format;
  GBytes              *rows;
  GOutputStream       *stream;
} WriteData;

static void
write_data_free (WriteData *data)
{
  g_clear_pointer (&data->rows, g_bytes_unref);
  g_clear_object (&data->stream);
  g_free (data);
}

/* Opening or closing the file failed: one sentence for people, the
 * details for the log. */
static void
return_unwritten (GTask  *task,
                  GError *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, error);
      return;
    }
  g_debug ("%s", error->message);
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", _("The file could not be written."));
  g_error_free (error);
}

static void
close_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (!g_output_stream_close_finish (G_OUTPUT_STREAM (source), result, &error))
    return_unwritten (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
export_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WriteData *data = g_task_get_task_data (task);
  /* not task's in the call that hands task on: the order is unspecified */
  GCancellable *cancellable = g_task_get_cancellable (task);
  GError *error = NULL;

  if (!rk_table_export_finish (RK_TABLE (source), result, &error))
    g_task_return_error (task, error);
  else
    g_output_stream_close_async (data->stream, G_PRIORITY_DEFAULT, cancellable,
                                 close_cb, g_steal_pointer (&task));
}

static void
replace_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WriteData *data = g_task_get_task_data (task);
  RkTable *table = g_task_get_source_object (task);
  GCancellable *cancellable = g_task_get_cancellable (task);
  GError *error = NULL;
  GFileOutputStream *stream = g_file_replace_finish (G_FILE (source), result, &error);

  if (stream == NULL)
    {
      return_unwritten (task, error);
      return;
    }
  data->stream = G_OUTPUT_STREAM (stream);
  rk_table_export_rows_async (table, data->format, data->rows, data->stream, cancellable,
                              NULL, NULL, NULL, export_cb, g_steal_pointer (&task));
}

void
rk_table_export_file_async (RkTable             *self,
                            RkTableExportFormat  format,
                            GBytes              *rows,
                            GFile               *file,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  GTask *task;
  WriteData *data;

  g_return_if_fail (RK_IS_TABLE (self));
  g_return_if_fail (G_IS_FILE (file));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_table_export_file_async);
  data = g_new0 (WriteData, 1);
  data->format = format;
  data->rows = rows != NULL ? g_bytes_ref (rows) : NULL;
  g_task_set_task_data (task, data, (GDestroyNotify) write_data_free);
  g_file_replace_async (file, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION, G_PRIORITY_DEFAULT,
                        cancellable, replace_cb, task);
}

gboolean
rk_table_export_file_finish (RkTable       *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
