/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-result-open.c — a table or a chart a cell made, opened from the
 * workspace in a worker thread (mapping a table and parsing a chart spec
 * may take a while; the GUI thread never waits for them). */
#define G_LOG_DOMAIN "rk-result-open"
#include "config.h"

#include "rk-chart.h"
#include "rk-result-open.h"
#include "rk-table.h"

typedef struct
{
  RkWorkspace *workspace;
  char        *path;
  RkEntryKind  kind;
  guint        prefetch_rows;
} OpenJob;

static void
open_job_free (OpenJob *job)
{
  g_clear_object (&job->workspace);
  g_free (job->path);
  g_free (job);
}

static void
open_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  OpenJob *job = task_data;
  GError *error = NULL;
  GObject *object;

  if (job->kind == RK_ENTRY_TABLE)
    {
      object = G_OBJECT (rk_table_open_beneath (job->workspace, job->path, &error));
      if (object != NULL)
        rk_table_prefetch_rows (RK_TABLE (object), 0, job->prefetch_rows);
    }
  else
    object = G_OBJECT (rk_chart_new_from_workspace (job->workspace, job->path, &error));
  if (object == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, object, g_object_unref);
}

void
rk_result_open_async (RkWorkspace         *workspace,
                      RkEntryKind          kind,
                      const char          *rel_path,
                      guint                prefetch_rows,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  OpenJob *job;

  g_return_if_fail (RK_IS_WORKSPACE (workspace));
  g_return_if_fail (rel_path != NULL);

  job = g_new0 (OpenJob, 1);
  job->workspace = g_object_ref (workspace);
  job->path = g_strdup (rel_path);
  job->kind = kind;
  job->prefetch_rows = prefetch_rows;
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_result_open_async);
  g_task_set_task_data (task, job, (GDestroyNotify) open_job_free);
  g_task_run_in_thread (task, open_thread);
}

GObject *
rk_result_open_finish (GAsyncResult  *result,
                       GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
