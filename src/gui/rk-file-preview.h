/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-file-preview.h — the first rows of a file's table on its card, as the
 * profiler saw them: a small grid in a button that opens the whole table. */
#pragma once

#include <gtk/gtk.h>

#include "rk-profile.h"

G_BEGIN_DECLS

#define RK_TYPE_FILE_PREVIEW (rk_file_preview_get_type ())
G_DECLARE_FINAL_TYPE (RkFilePreview, rk_file_preview, RK, FILE_PREVIEW, GtkWidget)

/* Rows and columns shown at most. */
#define RK_FILE_PREVIEW_ROWS    5
#define RK_FILE_PREVIEW_COLUMNS 8

GtkWidget *rk_file_preview_new       (void);
/* Shows the header and first rows of @table (NULL or no rows: hidden). */
void       rk_file_preview_set_table (RkFilePreview        *self,
                                      const RkTableProfile *table);

/* Signal "activate" (): the user asked for the whole table. */

G_END_DECLS
