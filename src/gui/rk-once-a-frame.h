/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-once-a-frame.h — text that changes many times a frame (a streamed
 * reply, a chatty cell) shown at most once a frame. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef void (*RkFrameFunc) (GtkWidget *widget);

/* Calls @func on @widget at its next frame, once however often it is asked
 * before then; *@tick_id holds the pending call (0: none). An unmapped
 * widget has no frames: returns FALSE and calls nothing. */
gboolean rk_once_a_frame        (GtkWidget   *widget,
                                 guint       *tick_id,
                                 RkFrameFunc  func);
void     rk_once_a_frame_cancel (GtkWidget   *widget,
                                 guint       *tick_id);

G_END_DECLS
