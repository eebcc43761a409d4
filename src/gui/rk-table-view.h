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
void       rk_table_view_set_compact   (RkTableView *self,
                                        gboolean     compact);
/* The title shown above the table and used as its accessible name. */
void       rk_table_view_set_title     (RkTableView *self,
                                        const char  *title);

/* The selected rows (or all visible rows when none is selected) as TSV,
 * values only, one line a row: what Ctrl+C puts on the clipboard. */
char      *rk_table_view_get_selection_tsv (RkTableView *self);

G_END_DECLS
