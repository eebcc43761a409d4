/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-report-print.c — the printed report through a GtkPrintOperation: the
 * report (rk-report.c) reads its results in a thread, then is laid out for
 * the page size the user picked and drawn page by page. */
#define G_LOG_DOMAIN "rk-report-print"
#include "config.h"

#include "rk-report-print.h"

#include <glib/gi18n-lib.h>

#include "rk-report.h"

typedef struct
{
  RkReport  *report;
  char      *pdf_path;
  GtkWindow *parent;
  gboolean   returned;
} PrintData;

static void
print_data_free (PrintData *data)
{
  g_clear_object (&data->report);
  g_free (data->pdf_path);
  g_clear_object (&data->parent);
  g_free (data);
}

static void
load_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  PrintData *data = task_data;

  rk_report_load (data->report, cancellable);
  if (!g_task_return_error_if_cancelled (task))
    g_task_return_boolean (task, TRUE);
}

static void
begin_print_cb (GtkPrintOperation *op,
                GtkPrintContext   *context,
                RkReport          *report)
{
  PangoContext *pango = gtk_print_context_create_pango_context (context);

  gtk_print_operation_set_n_pages (op, rk_report_paginate (report, pango,
                                                          gtk_print_context_get_width (context),
                                                          gtk_print_context_get_height (context)));
  g_object_unref (pango);
}

static void
draw_page_cb (GtkPrintOperation *op,
              GtkPrintContext   *context,
              int                page_nr,
              RkReport          *report)
{
  if (page_nr >= 0)
    rk_report_draw_page (report, gtk_print_context_get_cairo_context (context), (guint) page_nr);
}

/* Once, whether "done" came or gtk_print_operation_run() ended it. */
static void
complete (GTask  *task,
          GError *error)
{
  PrintData *data = g_task_get_task_data (task);

  if (data->returned)
    {
      g_clear_error (&error);
      return;
    }
  data->returned = TRUE;
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
done_cb (GtkPrintOperation       *op,
         GtkPrintOperationResult  result,
         GTask                   *task)
{
  g_autoptr(GError) error = NULL;

  if (result == GTK_PRINT_OPERATION_RESULT_ERROR)
    {
      gtk_print_operation_get_error (op, &error);
      complete (task, error ? g_error_copy (error)
                            : g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, _("The report could not be printed.")));
    }
  else
    complete (task, NULL);
}

static void
loaded_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrintData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GtkPrintOperation) op = NULL;
  GtkPrintOperationResult res;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      complete (task, g_steal_pointer (&error));
      return;
    }
  op = gtk_print_operation_new ();
  gtk_print_operation_set_job_name (op, rk_report_get_title (data->report));
  gtk_print_operation_set_embed_page_setup (op, TRUE);
  gtk_print_operation_set_allow_async (op, TRUE);
  g_signal_connect (op, "begin-print", G_CALLBACK (begin_print_cb), data->report);
  g_signal_connect (op, "draw-page", G_CALLBACK (draw_page_cb), data->report);
  /* The task holds the report the callbacks use until the operation goes. */
  g_signal_connect_data (op, "done", G_CALLBACK (done_cb), g_object_ref (task),
                         (GClosureNotify) (void (*) (void)) g_object_unref, 0);
  if (data->pdf_path != NULL)
    gtk_print_operation_set_export_filename (op, data->pdf_path);
  res = gtk_print_operation_run (op, data->pdf_path != NULL ? GTK_PRINT_OPERATION_ACTION_EXPORT
                                                           : GTK_PRINT_OPERATION_ACTION_PRINT_DIALOG,
                                 data->parent, &error);
  /* An operation that did not go asynchronous may not emit "done". */
  if (res != GTK_PRINT_OPERATION_RESULT_IN_PROGRESS)
    complete (task, res == GTK_PRINT_OPERATION_RESULT_ERROR ? g_steal_pointer (&error) : NULL);
}

void
rk_report_print_async (GtkWindow           *parent,
                       RkTranscript        *transcript,
                       RkWorkspace         *workspace,
                       const char          *title,
                       const char          *pdf_path,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  GTask *task;
  g_autoptr(GTask) load = NULL;
  PrintData *data;

  g_return_if_fail (RK_IS_TRANSCRIPT (transcript));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_report_print_async);
  data = g_new0 (PrintData, 1);
  data->report = rk_report_new (transcript, workspace, title);
  data->pdf_path = g_strdup (pdf_path);
  data->parent = parent ? g_object_ref (parent) : NULL;
  /* The outer task owns the report: the print operation outlives @load. */
  g_task_set_task_data (task, data, (GDestroyNotify) print_data_free);
  load = g_task_new (NULL, cancellable, loaded_cb, task);
  g_task_set_task_data (load, data, NULL);
  g_task_run_in_thread (load, load_thread);
}

gboolean
rk_report_print_finish (GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
