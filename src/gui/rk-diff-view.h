/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-diff-view.h — a colored unified diff between earlier code and its
 * revision (rk-diff). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RK_TYPE_DIFF_VIEW (rk_diff_view_get_type ())
G_DECLARE_FINAL_TYPE (RkDiffView, rk_diff_view, RK, DIFF_VIEW, GtkWidget)

GtkWidget *rk_diff_view_new        (void);
void       rk_diff_view_set_texts  (RkDiffView *self,
                                    const char *old_code,
                                    const char *new_code);
/* Lines added and removed by the diff shown. */
guint      rk_diff_view_get_n_inserted (RkDiffView *self);
guint      rk_diff_view_get_n_deleted  (RkDiffView *self);
/* The unified text shown (without the file header lines). */
char      *rk_diff_view_get_text   (RkDiffView *self);

G_END_DECLS
