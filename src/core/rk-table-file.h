/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-table-file.h — a table's rows exported to a file, off the GUI thread. */
#pragma once

#include "rk-table.h"

G_BEGIN_DECLS

/* Writes @rows of @table (as rk_table_export_rows_async(): NULL is every row
 * in the sorted order) to @file, replacing it, and closes it. A failure to
 * open or close the file is reported as "The file could not be written."
 * (the details go to the debug log); the export's own errors say what went
 * wrong. */
void     rk_table_export_file_async  (RkTable              *self,
                                      RkTableExportFormat   format,
                                      GBytes               *rows,
                                      GFile                *file,
                                      GCancellable         *cancellable,
                                      GAsyncReadyCallback   callback,
                                      gpointer              user_data);
gboolean rk_table_export_file_finish (RkTable              *self,
                                      GAsyncResult         *result,
                                      GError              **error);

G_END_DECLS
