/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-report-print.h — "Print Report…": a conversation's report (RkReport)
 * through the print dialog, or straight to a PDF file. */
#pragma once

#include <gtk/gtk.h>

#include "rk-transcript.h"
#include "rk-workspace.h"

G_BEGIN_DECLS

/* Reads the results beneath @workspace (NULL: the text only) in a thread,
 * then runs a GtkPrintOperation: with the print dialog when @pdf_path is
 * NULL, else exported to that PDF file without a dialog. Completes when
 * the operation is done (printed, exported or cancelled). */
void     rk_report_print_async  (GtkWindow           *parent,
                                 RkTranscript        *transcript,
                                 RkWorkspace         *workspace,
                                 const char          *title,
                                 const char          *pdf_path,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data);
gboolean rk_report_print_finish (GAsyncResult        *result,
                                 GError             **error);

G_END_DECLS
