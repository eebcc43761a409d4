/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-table.h — a columnar table written by the sandboxed kernel (the RkTable
 * format, docs/rktable-format.md), read lazily, defensively, and exported. */
#pragma once

#include <gio/gio.h>

#include "rk-workspace.h"

G_BEGIN_DECLS

/* Limits of format version 1, checked on every open. */
#define RK_TABLE_MAX_COLUMNS    16384
#define RK_TABLE_MAX_NAME       1024
#define RK_TABLE_MAX_TZ_NAME    64
#define RK_TABLE_MAX_FILE_SIZE  (G_GUINT64_CONSTANT (1) << 40)
/* Excel's sheet limit, header row included. */
#define RK_TABLE_XLSX_MAX_ROWS  1048576

typedef enum
{
  RK_TABLE_COLUMN_INT64    = 1,
  RK_TABLE_COLUMN_FLOAT64  = 2,
  RK_TABLE_COLUMN_BOOL     = 3,
  RK_TABLE_COLUMN_DATETIME = 4,
  RK_TABLE_COLUMN_STRING   = 5,
} RkTableColumnType;

typedef enum
{
  RK_TABLE_EXPORT_CSV,
  RK_TABLE_EXPORT_XLSX,
} RkTableExportFormat;

/* Called with the rows written so far and the total; from the thread that
 * called rk_table_export(), or in the caller's main context for the async one. */
typedef void (*RkTableProgressFunc) (guint64  done,
                                     guint64  total,
                                     gpointer user_data);

#define RK_TYPE_TABLE_ROW (rk_table_row_get_type ())
G_DECLARE_FINAL_TYPE (RkTableRow, rk_table_row, RK, TABLE_ROW, GObject)

#define RK_TYPE_TABLE (rk_table_get_type ())
G_DECLARE_FINAL_TYPE (RkTable, rk_table, RK, TABLE, GObject)

/* Opening. A file is opened with O_NOFOLLOW and must be a regular file. It is
 * mapped, not read: if the sandbox truncates it afterwards, the lost pages
 * read as zeros (a SIGBUS guard), and since every offset is checked at use,
 * changed bytes can garble cells but never make the reader go out of bounds. */
RkTable            *rk_table_open                 (const char    *path,
                                                   GError       **error);
/* Opens @relpath beneath the directory @dirfd, refusing symlinks in every
 * component and any '..'. */
RkTable            *rk_table_open_at              (int            dirfd,
                                                   const char    *relpath,
                                                   GError       **error);
/* The same, beneath @workspace: for the relative paths of kernel events. */
RkTable            *rk_table_open_beneath         (RkWorkspace   *workspace,
                                                   const char    *relpath,
                                                   GError       **error);
/* Does not take ownership of @fd. */
RkTable            *rk_table_open_fd              (int            fd,
                                                   GError       **error);
RkTable            *rk_table_new_from_bytes       (GBytes        *bytes,
                                                   GError       **error);

guint               rk_table_get_n_rows           (RkTable       *self);
guint               rk_table_get_n_columns        (RkTable       *self);
/* The first N columns hold the DataFrame's index. */
guint               rk_table_get_n_index_columns  (RkTable       *self);
/* Always valid UTF-8. */
const char         *rk_table_get_column_name      (RkTable       *self,
                                                   guint          column);
RkTableColumnType   rk_table_get_column_type      (RkTable       *self,
                                                   guint          column);
/* The time zone of an aware datetime column, NULL for a naive one. */
const char         *rk_table_get_column_timezone  (RkTable       *self,
                                                   guint          column);
/* Validates a column's data now (it happens lazily on first use otherwise).
 * Cells of a column that fails read as null. */
gboolean            rk_table_check_column         (RkTable       *self,
                                                   guint          column,
                                                   GError       **error);

/* Cell access by physical row (file order, not the sorted order). */
gboolean            rk_table_is_null              (RkTable       *self,
                                                   guint          row,
                                                   guint          column);
/* Text for display: numbers in C locale with sensible precision, dates ISO
 * 8601, NaN as "NaN", null as "". Free with g_free(). */
char               *rk_table_get_cell_text        (RkTable       *self,
                                                   guint          row,
                                                   guint          column);
/* Typed accessors return FALSE for a null, or a column of another type. */
gboolean            rk_table_get_int64            (RkTable       *self,
                                                   guint          row,
                                                   guint          column,
                                                   gint64        *value);
/* Works on int64, float64 and bool columns. */
gboolean            rk_table_get_double           (RkTable       *self,
                                                   guint          row,
                                                   guint          column,
                                                   double        *value);
gboolean            rk_table_get_boolean          (RkTable       *self,
                                                   guint          row,
                                                   guint          column,
                                                   gboolean      *value);
/* Nanoseconds since the epoch: UTC for an aware column, wall time for a naive one. */
gboolean            rk_table_get_datetime         (RkTable       *self,
                                                   guint          row,
                                                   guint          column,
                                                   gint64        *nanoseconds);
/* The raw bytes of a string cell (not NUL-terminated, maybe invalid UTF-8). */
const char         *rk_table_peek_string          (RkTable       *self,
                                                   guint          row,
                                                   guint          column,
                                                   gsize         *length);
/* Reads every cell of @n_rows physical rows from @first_row, so that the
 * pages of the file they are on are in memory: call it off the GUI thread
 * (the table is mapped, and a view reading a page not yet read would wait
 * for the disk). Any thread. */
void                rk_table_prefetch_rows        (RkTable       *self,
                                                   guint          first_row,
                                                   guint          n_rows);

/* Sorting: a stable permutation with nulls (and NaN) last in both directions;
 * the data is not copied. @column -1 restores the file order. The list model
 * (RkTableRow items) follows the permutation and emits items-changed. */
gboolean            rk_table_sort                 (RkTable       *self,
                                                   int            column,
                                                   gboolean       ascending,
                                                   GError       **error);
void                rk_table_sort_async           (RkTable              *self,
                                                   int                   column,
                                                   gboolean              ascending,
                                                   GCancellable         *cancellable,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
gboolean            rk_table_sort_finish          (RkTable       *self,
                                                   GAsyncResult  *result,
                                                   GError       **error);
int                 rk_table_get_sort_column      (RkTable       *self);
gboolean            rk_table_get_sort_ascending   (RkTable       *self);
/* The physical row shown at @position of the sorted view. */
guint               rk_table_get_row_at           (RkTable       *self,
                                                   guint          position);

/* Export of the rows in the current (sorted) order, with a header row of
 * column names. CSV: RFC 4180, UTF-8, CRLF. XLSX: one sheet, numbers as
 * numbers, dates as dates; fails beyond Excel's row limit. */
gboolean            rk_table_export               (RkTable              *self,
                                                   RkTableExportFormat   format,
                                                   GOutputStream        *stream,
                                                   GCancellable         *cancellable,
                                                   RkTableProgressFunc   progress,
                                                   gpointer              progress_data,
                                                   GError              **error);
/* The same for the physical rows in @rows (guint32 each, in the order to
 * write; NULL: every row in the sorted order, as rk_table_export() writes
 * them; a filter passes what it shows), without progress. */
gboolean            rk_table_export_rows          (RkTable              *self,
                                                   RkTableExportFormat   format,
                                                   GBytes               *rows,
                                                   GOutputStream        *stream,
                                                   GCancellable         *cancellable,
                                                   GError              **error);
/* rk_table_export_rows() in a thread, with progress. */
void                rk_table_export_rows_async    (RkTable              *self,
                                                   RkTableExportFormat   format,
                                                   GBytes               *rows,
                                                   GOutputStream        *stream,
                                                   GCancellable         *cancellable,
                                                   RkTableProgressFunc   progress,
                                                   gpointer              progress_data,
                                                   GDestroyNotify        progress_data_free,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
gboolean            rk_table_export_finish        (RkTable       *self,
                                                   GAsyncResult  *result,
                                                   GError       **error);

/* A row of the list model. */
RkTable            *rk_table_row_get_table        (RkTableRow    *self);
/* The physical row index. */
guint               rk_table_row_get_index        (RkTableRow    *self);
char               *rk_table_row_get_cell_text    (RkTableRow    *self,
                                                   guint          column);

G_END_DECLS
