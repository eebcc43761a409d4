/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-file-chip.h — a file a cell wrote: icon, name and size; a click saves
 * it where the user chooses. */
#pragma once

#include <gtk/gtk.h>

#include "rk-workspace.h"

G_BEGIN_DECLS

#define RK_TYPE_FILE_CHIP (rk_file_chip_get_type ())
G_DECLARE_FINAL_TYPE (RkFileChip, rk_file_chip, RK, FILE_CHIP, GtkWidget)

GtkWidget  *rk_file_chip_new       (void);
/* @rel_path beneath @workspace; its size is read off the GUI thread. */
void        rk_file_chip_set_file  (RkFileChip  *self,
                                    RkWorkspace *workspace,
                                    const char  *rel_path,
                                    const char  *mime_type,
                                    const char  *title);
const char *rk_file_chip_get_name  (RkFileChip *self);
/* The size shown ("" until known). */
const char *rk_file_chip_get_size_text (RkFileChip *self);

/* Signal "size-known". Save says in a toast how it went (rk_save_toast). */

G_END_DECLS
