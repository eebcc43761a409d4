/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-approval-bar.h — Run · Edit · Skip under proposed code, and the switch
 * "Run without asking in this conversation". */
#pragma once

#include <gtk/gtk.h>

#include "rk-code-block.h"

G_BEGIN_DECLS

#define RK_TYPE_APPROVAL_BAR (rk_approval_bar_get_type ())
G_DECLARE_FINAL_TYPE (RkApprovalBar, rk_approval_bar, RK, APPROVAL_BAR, GtkWidget)

GtkWidget *rk_approval_bar_new             (void);
/* The code the bar decides on: Edit makes it editable in place. */
void       rk_approval_bar_set_code_block  (RkApprovalBar *self,
                                            RkCodeBlock   *block);
gboolean   rk_approval_bar_get_editing     (RkApprovalBar *self);
/* What Run does (also Ctrl+Enter, through chat.approve). */
void       rk_approval_bar_run             (RkApprovalBar *self);
/* Gives Run the keyboard focus (so Enter runs the code); FALSE if it cannot
 * take it (not shown). */
gboolean   rk_approval_bar_focus_run       (RkApprovalBar *self);
/* Leaves edit mode; the code block is read-only again. */
void       rk_approval_bar_reset           (RkApprovalBar *self);

/* Properties: "auto-approve" (gboolean, the switch), "editing".
 * Run activates chat.approve, or chat.edit (s: the edited code) after Edit;
 * Skip activates chat.skip. */

G_END_DECLS
