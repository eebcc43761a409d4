/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-code-block.h — code in a read-only GtkSourceView with a Copy button;
 * editable in place for the approval bar's Edit. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RK_TYPE_CODE_BLOCK (rk_code_block_get_type ())
G_DECLARE_FINAL_TYPE (RkCodeBlock, rk_code_block, RK, CODE_BLOCK, GtkWidget)

/* @language: a GtkSourceView language id or a fence's info word ("py",
 * "python3", ...); NULL or "" for none. */
GtkWidget  *rk_code_block_new           (const char  *language);
void        rk_code_block_set_language  (RkCodeBlock *self,
                                         const char  *language);
const char *rk_code_block_get_language  (RkCodeBlock *self);
/* Setting code that extends the current code only appends the new part, so
 * a streaming fence does not re-highlight from the start. */
void        rk_code_block_set_code      (RkCodeBlock *self,
                                         const char  *code);
char       *rk_code_block_get_code      (RkCodeBlock *self);
void        rk_code_block_set_editable  (RkCodeBlock *self,
                                         gboolean     editable);
gboolean    rk_code_block_get_editable  (RkCodeBlock *self);
/* A short caption above the code, e.g. "Python" or "Edited code". */
void        rk_code_block_set_caption   (RkCodeBlock *self,
                                         const char  *caption);
GtkWidget  *rk_code_block_get_source_view (RkCodeBlock *self);

G_END_DECLS
