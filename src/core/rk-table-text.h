/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-table-text.h — a table's cells as text people read, filter and paste:
 * the locale's notation, and tab-separated rows for the clipboard. */
#pragma once

#include "rk-table.h"

G_BEGIN_DECLS

typedef enum {
  RK_CELL_TEXT_GROUP = 1 << 0,  /* the locale's thousands separator */
  RK_CELL_TEXT_EXACT = 1 << 1,  /* floats in full precision (a copy), not rounded */
} RkCellTextFlags;

/* @c_text, a float cell's C-locale text for @value, with the locale's
 * decimal point and, when @group, its thousands separator; the precision
 * of @c_text is kept. Exponent forms and non-finite values keep their C
 * text but for the decimal point. */
char *rk_table_text_localize_float (const char      *c_text,
                                    double           value,
                                    gboolean         group);

/* The text of a cell in the locale's notation, or NULL for a null. */
char *rk_table_text_format_cell    (RkTable         *table,
                                    guint            row,
                                    guint            column,
                                    RkCellTextFlags  flags);

/* Whether any cell of @row shows @folded (casefolded) in its text. */
gboolean rk_table_text_row_matches (RkTable         *table,
                                    guint            row,
                                    const char      *folded);

/* A header line and then @rows (physical rows, in that order) as
 * tab-separated exact values, every column or only @only_column (>= 0).
 * Tabs and line breaks inside a value become spaces; a null is empty. */
char *rk_table_text_tsv            (RkTable         *table,
                                    const guint     *rows,
                                    guint            n_rows,
                                    int              only_column);

typedef enum {
  RK_ROWS_ALL,       /* every row is shown */
  RK_ROWS_FIRST,     /* the first rows (a compact view) */
  RK_ROWS_FILTERED,  /* the rows a filter lets through */
} RkRowsShown;

/* What a view says of the rows it shows, @shown of @total: "1,234 rows",
 * "First 20 of 1,234 rows" (when fewer than all), "12 of 1,234 rows". */
char *rk_table_text_count_rows     (guint            total,
                                    guint            shown,
                                    RkRowsShown      how);

G_END_DECLS
