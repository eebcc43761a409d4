/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-file-summary.h — what a file's card and the sidebar say of a file in
 * one line, from its profile only (translated, digits grouped). GTK-free. */
#pragma once

#include "rk-profile.h"

G_BEGIN_DECLS

const char *rk_file_kind_label    (RkFileKind           kind);
const char *rk_column_type_label  (RkColumnType         type);
/* The symbolic icon of a file with @profile: its kind's, a warning for an
 * error, a plain document while it is read (NULL). */
const char *rk_file_icon_name     (const RkFileProfile *profile);
/* The card's line, e.g. "CSV · 12.3 kB · 1,204 rows × 7 columns"; @table:
 * the sheet (or PDF table) picked; @estimate: a big file's profile from a
 * sample, its rows still counted ("about … rows × 6 columns, counting…"). */
char       *rk_file_summary       (const RkFileProfile *profile,
                                   guint                table,
                                   gboolean             estimate);
/* The sidebar's: "1,204 rows × 7 columns", "3 sheets", "12 pages", its
 * error sentence… */
char       *rk_file_summary_short (const RkFileProfile *profile);
/* While a file is read: "Reading the file (182.3 MB)… 45 % 1:15", or
 * @estimate (a summary from the sample) with the percentage; @size 0 and
 * @progress < 0 are not known; no time under 2 s or over a day. */
char       *rk_file_reading_text  (const char          *estimate,
                                   guint64              size,
                                   double               progress,
                                   gint64               seconds);

G_END_DECLS
