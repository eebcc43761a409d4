/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-table-view.h — an RkTable in a GtkColumnView: inline (compact, first
 * rows) in the chat, or full (sort, filter, copy, save) in its own pane. */
#pragma once

#include <gtk/gtk.h>

#include "rk-table.h"

G_BEGIN_DECLS

#define RK_TYPE_TABLE_VIEW (rk_table_view_get_type ())
G_DECLARE_FINAL_TYPE (RkTableView, rk_table_view, RK, TABLE_VIEW, GtkWidget)

/* Rows shown by a compact view. */
#define RK_TABLE_VIEW_COMPACT_ROWS 20

GtkWidget *rk_table_view_new           (RkTable     *table);
GtkWidget *rk_table_view_new_compact   (RkTable     *table);

RkTable   *rk_table_view_get_table     (RkTableView *self);
gboolean   rk_table_view_get_compact   (RkTableView *self);
/* The title shown above the table and used as its accessible name. */
void       rk_table_view_set_title     (RkTableView *self,
                                        const char  *title);

/* The selected rows (or, when none is, all rows up to 100,000) as TSV,
 * values only, one line a row: what Ctrl+C puts on the clipboard. */
char      *rk_table_view_get_selection_tsv (RkTableView *self);
/* Writes the table (in its sorted order) to @file without asking, as the
 * table.save action does after its file chooser; "saved" (GFile *) is
 * emitted once it is written, the status line says how it went. */
void       rk_table_view_save          (RkTableView         *self,
                                        GFile               *file,
                                        RkTableExportFormat  format);
/* The whole of @table in a window of its own (sort, filter, copy, save),
 * titled @title (NULL: "Table"), over @parent's window; presented. */
GtkWindow *rk_table_view_open_window   (RkTable     *table,
                                        const char  *title,
                                        GtkWidget   *parent);

G_END_DECLS
