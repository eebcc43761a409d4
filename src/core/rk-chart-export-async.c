/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chart-export-async.c — rk_chart_export() in a worker thread, so the
 * GUI thread never waits for a large PDF or SVG. */
#define G_LOG_DOMAIN "rk-chart-export"
#include "config.h"

#include "rk-chart-export-async.h"

typedef struct
{
  char         *path;
  int           format;
  int           width;
  int           height;
  RkChartStyle  style;
} ExportJob;

static void
export_job_free (ExportJob *job)
{
  g_free (job->path);
  g_free (job);
}

static void
export_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  ExportJob *job = task_data;
  GError *error = NULL;

  if (rk_chart_export (source, job->path, job->format, job->width, job->height, job->style, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
rk_chart_export_async (RkChart             *self,
                       const char          *path,
                       int                  format,
                       int                  width,
                       int                  height,
                       RkChartStyle         style,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  ExportJob *job;

  g_return_if_fail (RK_IS_CHART (self));
  g_return_if_fail (path != NULL);

  job = g_new0 (ExportJob, 1);
  job->path = g_strdup (path);
  job->format = format;
  job->width = width;
  job->height = height;
  job->style = style;
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_chart_export_async);
  g_task_set_task_data (task, job, (GDestroyNotify) export_job_free);
  g_task_run_in_thread (task, export_thread);
}

gboolean
rk_chart_export_finish (RkChart       *self,
                        GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
