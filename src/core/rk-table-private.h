/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-table-private.h — what the table exporter needs from the reader. */
#pragma once

#include "rk-table.h"

G_BEGIN_DECLS

/* Appends the cell's text; FALSE (and nothing appended) for a null. @exact:
 * doubles in round-trip precision and NaN as null (for export). */
gboolean  _rk_table_append_cell        (RkTable  *self,
                                        GString  *out,
                                        guint     row,
                                        guint     column,
                                        gboolean  exact);
void      _rk_table_format_double      (GString  *out,
                                        double    value,
                                        gboolean  exact);
/* The current permutation (guint32 a row), or NULL for the file order. */
GBytes   *_rk_table_ref_permutation    (RkTable  *self);
gboolean  _rk_table_column_date_only   (RkTable  *self,
                                        guint     column);
int       _rk_table_column_utc_offset  (RkTable  *self,
                                        guint     column,
                                        gint64    secs);

/* How many SIGBUS faults in table mappings were absorbed (for tests). */
guint     _rk_table_sigbus_count       (void);

G_END_DECLS
